// Human approval on the command line (issue 14): which calls wait
// (--require-approval RULE, repeatable; --approval-file FILE; the rules in
// apps/common/approval_policy.h), and who decides them:
//
//   --approval-prompt auto    (default) ask on the terminal when stdin and
//                             stderr are both terminals, else pause the run
//   --approval-prompt always  ask on stdin even when it is not a terminal
//                             (scripts, tests)
//   --approval-prompt never   always pause: the run stops with status
//                             `awaiting_approval` (exit 3) and is decided with
//                             `medreact runs approve|reject RUN_ID`
//
// The terminal prompt shows the tool, the call's id and its arguments (the
// user's own terminal: content is shown, never logged) and reads one line:
// y (run it), n (do not; then an optional reason for the model), e (edit the
// arguments: one line of JSON, checked against the tool's schema) or l /
// end of input (decide later: the run pauses).
#ifndef MEDREACT_CLI_APPROVAL_FLAGS_H_
#define MEDREACT_CLI_APPROVAL_FLAGS_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <istream>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "medreact/agent.h"
#include "medreact/tool_registry.h"

namespace medreact::cli {

struct ApprovalFlags {
  std::vector<std::string> rules;  // --require-approval
  std::string file;                // --approval-file
  std::string prompt = "auto";     // --approval-prompt auto|always|never
};

// --require-approval and --approval-file (the commands that start runs).
void AddApprovalFlags(CLI::App* command, ApprovalFlags* flags);
// --approval-prompt only (the commands that go on with a stored run, whose
// rules are stored with it).
void AddApprovalPromptFlag(CLI::App* command, std::string* prompt);

// The file's rules then the flags', checked (CheckApprovalRules).
Result<std::vector<std::string>> ApprovalRules(const ApprovalFlags& flags);

// Whether `prompt` asks on the terminal for this process.
bool PromptsOnTerminal(const std::string& prompt);

// The reviewer's identity the CLI stores with a decision: the OS user.
std::string OsUserName();

// The terminal approver for AgentOptions::approve, reading `in` and writing
// to `out`; `tools` checks edited arguments. Null when `prompt` does not ask.
// Its decisions carry the OS user and the time.
std::function<std::optional<ApprovalDecision>(const ToolCall&, const ToolSpec&)> TerminalApprover(
    const std::string& prompt, std::shared_ptr<const ToolRegistry> tools, std::istream& in, std::ostream& out);

// Sets options.needs_approval (from `rules` over `tools`, whose packs
// `tool_packs` names) and options.approve (the terminal, per `prompt`).
// InvalidArgument when a rule names a tool the run does not have.
Status ApplyApproval(const std::vector<std::string>& rules, const std::string& prompt,
                     std::shared_ptr<const ToolRegistry> tools, const std::map<std::string, std::string>& tool_packs,
                     AgentOptions& options);

// What a paused run tells the user on `err`: the waiting calls and the
// commands that decide them (or, without a store, that nothing can resume it).
void ReportPause(const RunResult& result, bool stored, std::ostream& err, const std::string& who);

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_APPROVAL_FLAGS_H_
