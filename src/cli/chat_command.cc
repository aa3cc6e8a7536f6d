// `medreact chat`: the general agent (seed 004) — any tool packs, any question,
// against any OpenAI-compatible server, natively or through the text protocol.
//
// stdout gets the answer (or, with --json, the result object); stderr gets
// progress (-v) and, with --stream, the model's text as it arrives. The trace
// (--trace) and the event log (--events) are files the user asked for; logs
// never carry the message text. --image files (PNG, JPEG, DICOM) go through
// an ImageStore: read, checked, downscaled and encoded once before the run,
// then sent as image parts of the user turn (a vision model is required).
#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "apps/chat/chat_app.h"
#include "apps/common/app_runner.h"
#include "cli/approval_flags.h"
#include "cli/chat_output.h"
#include "cli/cli_io.h"
#include "cli/commands.h"
#include "cli/fhir_flags.h"
#include "cli/flag_checks.h"
#include "cli/interrupt.h"
#include "cli/mcp_client_flags.h"
#include "cli/model_flags.h"
#include "cli/setting_flags.h"
#include "cli/store_flags.h"
#include "core/printable.h"
#include "mcp/mcp_attach.h"
#include "service/run_service.h"
#include "tools/imaging/image_store.h"

namespace medreact::cli {
namespace {

struct ChatFlags {
  ModelFlags model;
  std::string message;
  std::string message_file;
  std::string tools = "util";
  FhirRecordFlags record;
  std::string as_of;
  std::string corpus_dir;
  std::string extras_path;
  std::string system_file;
  std::vector<std::string> images;
  int image_max_side = 1024;
  int max_steps = 20;
  double timeout_s = 600;
  double tool_timeout_s = 60;
  int64_t token_budget = 0;
  int tool_budget = 0;
  int parallel = 4;
  bool stream = false;
  bool json = false;
  bool verbose = false;
  bool interactive = false;
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  std::string trace_path;
  std::string events_path;
  StoreFlags store;
  ApprovalFlags approval;
  McpClientFlags mcp;
};

int RunChatCommand(const ChatFlags& flags) {
  auto fail = [](const std::string& message) {
    std::cerr << "medreact chat: " << WithFlagNames(message) << "\n";
    return kExitBadInput;
  };
  if (!flags.message_file.empty() && !flags.message.empty()) {
    return fail("give the message either as MESSAGE or with --message-file, not both");
  }
  std::string message = flags.message;
  if (!flags.message_file.empty()) {
    Result<std::string> text = ReadInputFile(flags.message_file, "message");
    if (!text.ok()) return fail(text.status().message());
    message = *text;
  }
  if (flags.interactive && IsBlank(message)) {  // the first question from stdin too
    if (isatty(STDIN_FILENO) != 0) std::cerr << "Question (empty line or 'exit' to stop): ";
    if (!std::getline(std::cin, message)) message.clear();
  }
  if (IsBlank(message)) return fail("the message is empty: give MESSAGE or --message-file FILE");
  const RunOutputs outputs{.trace_path = flags.trace_path, .events_path = flags.events_path,
                           .verbose = flags.verbose, .stream = flags.stream};
  if (Status s = RunReporter::CheckPaths(outputs); !s.ok()) return fail(s.message());
  if (Result<std::string> provider = ResolveProvider("auto", flags.model.protocol, HasModel(flags.model), false);
      !provider.ok()) {
    return fail(provider.status().message());
  }
  Result<std::string> record = RecordLocator(flags.record, /*required=*/false);
  if (!record.ok()) return fail(record.status().message());
  // Every image is read and encoded before any model call: a bad one is exit 2.
  RunRequest request{.message = message};
  auto images = std::make_shared<imaging::ImageStore>(imaging::ImageStoreOptions{.max_side = flags.image_max_side});
  for (const std::string& path : flags.images) {
    Result<std::shared_ptr<const imaging::StoredImage>> image = images->AddFile(path);
    if (!image.ok()) return fail(image.status().message());
    request.images.push_back((*image)->Part());
  }
  Result<std::vector<std::string>> approval_rules = ApprovalRules(flags.approval);
  if (!approval_rules.ok()) return fail(approval_rules.status().message());
  service::ChatStart start{.inputs = {.message = message,
                                      .packs = SplitPackList(flags.tools),
                                      .context = {.fhir_path = *record, .as_of = flags.as_of,
                                                  .corpus_dir = flags.corpus_dir, .extras_path = flags.extras_path},
                                      .require_approval = *approval_rules},
                           .model = ModelSettingsOf(flags.model),
                           .images = std::move(request.images)};
  // MCP servers (--mcp, --mcp-url): connected once, their tools attached on
  // every registration (each turn); image results go to the run's image store.
  Result<std::vector<std::shared_ptr<mcp::McpClient>>> mcp_servers = ConnectMcpFlags(flags.mcp, images);
  if (!mcp_servers.ok()) return fail(mcp_servers.status().message());
  if (!mcp_servers->empty()) start.inputs.context.attach.push_back(mcp::McpAttacher(*mcp_servers));
  AgentOptions& options = start.inputs.options;
  if (!flags.system_file.empty()) {
    Result<std::string> text = ReadInputFile(flags.system_file, "system prompt");
    if (!text.ok()) return fail(text.status().message());
    options.system_prompt = *text;
  }
  options.max_steps = flags.max_steps;
  options.timeout = SecondsToMillis(flags.timeout_s);
  options.tool_timeout = SecondsToMillis(flags.tool_timeout_s);
  options.token_budget = flags.token_budget;
  options.tool_call_budget = flags.tool_budget;
  options.max_parallel_tools = flags.parallel;
  options.stream = flags.stream;
  options.temperature = flags.temperature;
  options.max_tokens = flags.max_tokens;
  auto warn = [](const std::string& w) { std::cerr << "medreact chat: " << PrintableLine(WithFlagNames(w)) << "\n"; };
  // The run store: a checkpoint after every step and tool call (medreact runs resume).
  Result<std::shared_ptr<RunStore>> store = OpenStoreForRun(flags.store, warn);
  if (!store.ok()) return fail(store.status().message());
  service::RunService runs(*store);
  // The terminal approver checks an edit against the run's tools' schemas.
  std::shared_ptr<const ToolRegistry> tools;
  if (!approval_rules->empty()) {
    Result<std::shared_ptr<ToolRegistry>> built = ChatTools(start.inputs.packs, start.inputs.context);
    if (!built.ok()) return fail(built.status().message());
    tools = std::move(*built);
  }
  service::RunHooks hooks{
      .cancel = InstallInterruptHandlers(),
      .approve = tools ? TerminalApprover(flags.approval.prompt, tools, std::cin, std::cerr) : nullptr,
      .warn = warn};
  const service::ChatStart follow_up_template = start;  // settings for the conversation's next turns
  // Every check (tools, model, images, rules) before any work.
  Result<std::unique_ptr<service::PreparedChat>> prepared = runs.PrepareChat(std::move(start), hooks);
  if (!prepared.ok()) return fail(prepared.status().message());
  // Last: the event log is created only once nothing can be refused any more.
  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
  if (!reporter.ok()) return fail(reporter.status().message());
  hooks.on_event = (*reporter)->sink();
  // One run per turn; with --interactive the next turn is read from stdin and
  // carries the conversation so far (a follow-up, or the answer to the
  // model's clarifying question).
  for (int turn = 1;; ++turn) {
    Result<service::RunOutcome> out = runs.RunPrepared(std::move(*prepared), hooks);
    if (!out.ok()) return fail(out.status().message());
    if (out->status == "interrupted" && out->stored) {
      std::cerr << "medreact chat: the run was interrupted; go on with it with 'medreact runs resume " << out->run_id
                << "'\n";
    }
    if (Status s = (*reporter)->WriteTrace(out->result.trace); !s.ok()) {
      std::cerr << "medreact chat: " << WithFlagNames(s.message()) << "\n";
      return ExitCodeAfterInterrupt(kExitRunFailed);
    }
    const int code = ReportChatResult(out->result, flags.json, out->stored, "medreact chat");
    std::cout << std::flush;
    if (!flags.interactive || code == kExitAwaitingApproval || hooks.cancel.cancelled()) return code;
    std::string next;
    if (isatty(STDIN_FILENO) != 0) std::cerr << "> ";
    if (!std::getline(std::cin, next) || IsBlank(next) || next == "exit" || next == "quit") return code;
    service::ChatStart follow = follow_up_template;
    follow.inputs.message = next;
    follow.images.clear();  // the first turn's images are in the history
    follow.history = std::move(out->result.messages);
    prepared = runs.PrepareChat(std::move(follow), hooks);
    if (!prepared.ok()) return fail(prepared.status().message());
  }
}

}  // namespace

void AddChatCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<ChatFlags>();
  CLI::App* chat = app.add_subcommand("chat", "ask the general agent a question; it may call tools");
  AddModelFlags(chat, &flags->model);
  chat->add_option("message", flags->message, "the question or task");
  chat->add_option("--message-file", flags->message_file, "read the message from a file ('-' = stdin)");
  chat->add_option("--tools", flags->tools, "comma-separated tool packs (see 'medreact tools list')");
  AddFhirRecordFlags(chat, &flags->record, "a patient's FHIR R4 bundle (JSON or NDJSON) for the fhir pack");
  chat->add_option("--as-of", flags->as_of, "YYYY-MM-DD used as 'now' by the fhir pack (default: latest date in the record)");
  chat->add_option("--corpus", flags->corpus_dir, "a folder of guideline documents (.md, .txt) for the rag pack");
  chat->add_option("--extras", flags->extras_path, "a hints file (JSON) for the rag pack's query_extras");
  chat->add_option("--system-file", flags->system_file, "replace the system prompt with this file's text");
  chat->add_option("--image", flags->images,
                   "an image for the model: PNG, JPEG or DICOM (first frame), by content; repeatable. "
                   "Sent once as a PNG image part of the question; needs a vision model")
      ->allow_extra_args(false);  // one file per --image, so that MESSAGE after it stays the message
  chat->add_option("--image-max-side", flags->image_max_side,
                   "downscale each --image so that its longer side is at most N pixels "
                   "(default 1024; 0 = keep the size)")
      ->check(CLI::Range(0, 16384));
  chat->add_option("--max-steps", flags->max_steps, "model turns before stopping (status max_steps)")
      ->check(CLI::Range(1, 1000));
  chat->add_option("--timeout", flags->timeout_s, "seconds for the whole run (status timeout)")
      ->check(Seconds());
  chat->add_option("--tool-timeout", flags->tool_timeout_s, "seconds for one tool call")
      ->check(Seconds());
  chat->add_option("--token-budget", flags->token_budget, "total tokens before stopping (0 = none)")
      ->check(CLI::NonNegativeNumber);
  chat->add_option("--tool-budget", flags->tool_budget, "tool calls before stopping (0 = none)")
      ->check(CLI::NonNegativeNumber);
  chat->add_option("--parallel", flags->parallel, "tool calls of one turn run at once")
      ->check(CLI::Range(1, 64));
  chat->add_option("--temperature", flags->temperature, "sampling temperature sent to the server")
      ->check(FiniteRange(0, 2, "temperature units"));
  chat->add_option("--max-tokens", flags->max_tokens, "max tokens per model turn")
      ->check(CLI::Range(1, 10'000'000));
  chat->add_flag("--interactive", flags->interactive,
                 "a conversation: after each answer read the next message from stdin (an answer to the model's "
                 "clarifying question, or a follow-up) until an empty line, 'exit' or end of input; each turn is "
                 "a run of its own with the conversation so far");
  chat->add_flag("--stream", flags->stream, "stream the model's text to stderr as it arrives (SSE)");
  chat->add_flag("--json", flags->json, "print the result as JSON");
  chat->add_flag("-v,--verbose", flags->verbose, "progress on stderr (tool names and timings only)");
  chat->add_option("--trace", flags->trace_path, "write the run trace (JSON) to this file");
  chat->add_option("--events", flags->events_path, "write every event as JSON lines to this file");
  AddStoreFlags(chat, &flags->store);
  AddApprovalFlags(chat, &flags->approval);
  AddMcpClientFlags(chat, &flags->mcp);
  chat->callback([flags, exit_code] { *exit_code = RunChatCommand(*flags); });
}

}  // namespace medreact::cli
