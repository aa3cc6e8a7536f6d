#include "cli/approval_flags.h"

#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "apps/common/approval_policy.h"
#include "core/printable.h"
#include "core/text_util.h"
#include "store/run_store.h"

namespace medreact::cli {
namespace {

constexpr int kMaxTries = 3;  // unreadable answers before the call is left for later

bool ReadLine(std::istream& in, std::string* line) {
  if (!std::getline(in, *line)) return false;
  *line = Trim(*line);
  return true;
}

std::optional<ApprovalDecision> AskOnTerminal(const std::shared_ptr<const ToolRegistry>& tools, const ToolCall& call,
                                              const ToolSpec& spec, std::istream& in, std::ostream& out);

}  // namespace

void AddApprovalFlags(CLI::App* command, ApprovalFlags* flags) {
  command->add_option("--require-approval", flags->rules,
                      "tool calls that wait for a person's approval before they run (repeatable): all, network, "
                      "writes, pack:NAME, tool:NAME (or NAME)")
      ->allow_extra_args(false);  // one rule per flag, so that MESSAGE after it stays the message
  command->add_option("--approval-file", flags->file,
                      "approval rules from a JSON file: {\"require_approval\": [RULE, ...]}");
  AddApprovalPromptFlag(command, &flags->prompt);
}

void AddApprovalPromptFlag(CLI::App* command, std::string* prompt) {
  command
      ->add_option("--approval-prompt", *prompt,
                   "who decides a waiting call: auto (ask on the terminal when there is one, else pause), "
                   "always (ask on stdin), never (pause; decide with 'medreact runs approve|reject')")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

Result<std::vector<std::string>> ApprovalRules(const ApprovalFlags& flags) {
  std::vector<std::string> rules;
  if (!flags.file.empty()) {
    Result<std::vector<std::string>> from_file = LoadApprovalFile(flags.file);
    if (!from_file.ok()) return from_file.status();
    rules = std::move(*from_file);
  }
  rules.insert(rules.end(), flags.rules.begin(), flags.rules.end());
  return CheckApprovalRules(rules);
}

bool PromptsOnTerminal(const std::string& prompt) {
  if (prompt == "always") return true;
  if (prompt == "never") return false;
  return ::isatty(STDIN_FILENO) == 1 && ::isatty(STDERR_FILENO) == 1;
}

std::function<std::optional<ApprovalDecision>(const ToolCall&, const ToolSpec&)> TerminalApprover(
    const std::string& prompt, std::shared_ptr<const ToolRegistry> tools, std::istream& in, std::ostream& out) {
  if (!PromptsOnTerminal(prompt)) return nullptr;
  return [tools, &in, &out](const ToolCall& call, const ToolSpec& spec) -> std::optional<ApprovalDecision> {
    std::optional<ApprovalDecision> d = AskOnTerminal(tools, call, spec, in, out);
    if (d) {
      d->reviewer = OsUserName();
      d->decided_at = StoreTimestampMillis(std::chrono::system_clock::now());
    }
    return d;
  };
}

std::string OsUserName() {
  if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_name && *pw->pw_name) return pw->pw_name;
  if (const char* user = std::getenv("USER"); user && *user) return user;
  return "uid " + std::to_string(::geteuid());
}

namespace {

// One decision asked on the terminal; nullopt: later.
std::optional<ApprovalDecision> AskOnTerminal(const std::shared_ptr<const ToolRegistry>& tools, const ToolCall& call,
                                              const ToolSpec& spec, std::istream& in, std::ostream& out) {
  {
    out << "\nThe agent wants to run " << PrintableLine(spec.name) << " (call " << PrintableLine(call.id)
        << ") with arguments:\n  " << Preview(call.arguments, 4000) << "\n";
    for (int tries = 0; tries < kMaxTries; ++tries) {
      out << "Run it? [y]es / [n]o / [e]dit the arguments / [l]ater (pause the run): " << std::flush;
      std::string answer;
      if (!ReadLine(in, &answer)) break;  // end of input: decide later
      if (answer == "y" || answer == "yes") return ApprovalDecision{.approved = true};
      if (answer == "l" || answer == "later") return std::nullopt;
      if (answer == "n" || answer == "no") {
        out << "Reason for the model (optional, one line): " << std::flush;
        std::string reason;
        ReadLine(in, &reason);
        return ApprovalDecision{.approved = false, .reason = reason};
      }
      if (answer == "e" || answer == "edit") {
        out << "Arguments (one line of JSON): " << std::flush;
        std::string args;
        if (!ReadLine(in, &args)) break;
        Result<Json> valid = tools->ValidateArguments(spec.name, args);
        if (valid.ok()) return ApprovalDecision{.approved = true, .arguments = DumpJson(*valid)};
        out << "Those arguments cannot be used: " << valid.status().message() << "\n";
        continue;
      }
      out << "Please answer y, n, e or l.\n";
    }
    out << "Left for later.\n";
    return std::nullopt;
  }
}

}  // namespace

Status ApplyApproval(const std::vector<std::string>& rules, const std::string& prompt,
                     std::shared_ptr<const ToolRegistry> tools, const std::map<std::string, std::string>& tool_packs,
                     AgentOptions& options) {
  Result<std::function<bool(const ToolCall&, const ToolSpec&)>> needs = ApprovalPredicate(rules, *tools, tool_packs);
  if (!needs.ok()) return needs.status();
  options.needs_approval = std::move(*needs);
  if (options.needs_approval) options.approve = TerminalApprover(prompt, std::move(tools), std::cin, std::cerr);
  return Status::OK();
}

void ReportPause(const RunResult& result, bool stored, std::ostream& err, const std::string& who) {
  const std::string& id = result.trace.run_id;
  err << who << ": the run paused: " << PrintableLine(result.error) << "\n";
  if (!stored) {
    err << who << ": this run is not in a run store (--no-store), so nothing can resume it\n";
    return;
  }
  err << who << ": decide with 'medreact runs approve " << id << " [--call ID] [--args JSON]' or 'medreact runs reject "
      << id << " [--call ID] --reason TEXT' ('medreact runs show " << id << "' shows the calls)\n";
}

}  // namespace medreact::cli
