// `medreact chat`: the general agent (seed 004) — any tool packs, any question,
// against any OpenAI-compatible server, natively or through the text protocol.
//
// stdout gets the answer (or, with --json, the result object); stderr gets
// progress (-v) and, with --stream, the model's text as it arrives. The trace
// (--trace) and the event log (--events) are files the user asked for; logs
// never carry the message text. --image files (PNG, JPEG, DICOM) go through
// an ImageStore: read, checked, downscaled and encoded once before the run,
// then sent as image parts of the user turn (a vision model is required).
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
#include "cli/flag_checks.h"
#include "cli/interrupt.h"
#include "cli/model_flags.h"
#include "cli/setting_flags.h"
#include "cli/store_flags.h"
#include "tools/imaging/image_store.h"

namespace medreact::cli {
namespace {

struct ChatFlags {
  ModelFlags model;
  std::string message;
  std::string message_file;
  std::string tools = "util";
  std::string fhir_path;
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
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  std::string trace_path;
  std::string events_path;
  StoreFlags store;
  ApprovalFlags approval;
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
  if (IsBlank(message)) return fail("the message is empty: give MESSAGE or --message-file FILE");
  const RunOutputs outputs{.trace_path = flags.trace_path, .events_path = flags.events_path,
                           .verbose = flags.verbose, .stream = flags.stream};
  if (Status s = RunReporter::CheckPaths(outputs); !s.ok()) return fail(s.message());
  if (Result<std::string> provider = ResolveProvider("auto", flags.model.protocol, HasModel(flags.model), false);
      !provider.ok()) {
    return fail(provider.status().message());
  }
  // Every image is read and encoded before any model call: a bad one is exit 2.
  RunRequest request{.message = message};
  imaging::ImageStore images({.max_side = flags.image_max_side});
  for (const std::string& path : flags.images) {
    Result<std::shared_ptr<const imaging::StoredImage>> image = images.AddFile(path);
    if (!image.ok()) return fail(image.status().message());
    request.images.push_back((*image)->Part());
  }
  Result<std::vector<std::string>> approval_rules = ApprovalRules(flags.approval);
  if (!approval_rules.ok()) return fail(approval_rules.status().message());
  std::map<std::string, std::string> tool_packs;
  Result<std::shared_ptr<ToolRegistry>> tools =
      ChatTools(SplitPackList(flags.tools),
                {.fhir_path = flags.fhir_path, .as_of = flags.as_of, .corpus_dir = flags.corpus_dir,
                 .extras_path = flags.extras_path,
                 .on_warning =
                     [](const std::string& w) { std::cerr << "medreact chat: " << WithFlagNames(w) << "\n"; }},
                &tool_packs);
  if (!tools.ok()) return fail(tools.status().message());
  Result<std::shared_ptr<ChatModel>> model = MakeModel(flags.model);
  if (!model.ok()) return fail(model.status().message());
  if (!request.images.empty() && !(*model)->capabilities().images) {
    return fail("model '" + (*model)->name() + "' (protocol " + (*model)->protocol() +
                ") cannot take images: --image needs a vision model on an OpenAI-compatible server "
                "(--llm-url, --protocol native; e.g. a LLaVA, Qwen-VL or MedGemma model in vLLM, llama-server "
                "with its --mmproj projector, or Ollama)");
  }

  AgentOptions options;
  if (!flags.system_file.empty()) {
    Result<std::string> text = ReadInputFile(flags.system_file, "system prompt");
    if (!text.ok()) return fail(text.status().message());
    options.system_prompt = *text;
  }
  if (Status s = ApplyApproval(*approval_rules, flags.approval.prompt, *tools, tool_packs, options); !s.ok()) {
    return fail(s.message());
  }
  Result<std::shared_ptr<RunStore>> store =
      OpenStoreForRun(flags.store, [](const std::string& w) { std::cerr << "medreact chat: " << w << "\n"; });
  if (!store.ok()) return fail(store.status().message());
  if (options.needs_approval && !*store && !options.approve) {
    return fail("calls that wait for approval need a run store to wait in (or --approval-prompt always to decide "
                "them here): drop --no-store");
  }
  // Last: the event log is created only once nothing can be refused any more.
  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
  if (!reporter.ok()) return fail(reporter.status().message());
  options.max_steps = flags.max_steps;
  options.timeout = SecondsToMillis(flags.timeout_s);
  options.tool_timeout = SecondsToMillis(flags.tool_timeout_s);
  options.token_budget = flags.token_budget;
  options.tool_call_budget = flags.tool_budget;
  options.max_parallel_tools = flags.parallel;
  options.stream = flags.stream;
  options.temperature = flags.temperature;
  options.max_tokens = flags.max_tokens;
  options.cancel = InstallInterruptHandlers();
  options.on_event = (*reporter)->sink();
  // The run store: a checkpoint after every step and tool call (medreact runs resume).
  std::unique_ptr<RunRecorder> recorder = MakeRunRecorder(
      *store,
      {.app = "chat",
       .inputs = ChatInputsToJson({.message = message, .packs = SplitPackList(flags.tools),
                                   .context = {.fhir_path = flags.fhir_path, .as_of = flags.as_of,
                                               .corpus_dir = flags.corpus_dir, .extras_path = flags.extras_path},
                                   .options = options,
                                   .require_approval = *approval_rules}),
       .model = StoredModelJson(flags.model)},
      std::cerr, "medreact chat");
  if (recorder) {
    options.on_checkpoint = recorder->Hook();
    options.on_event = recorder->Events(std::move(options.on_event));  // the store's copy, then --events etc.
  }

  RunResult result = RunChat(*model, *tools, std::move(request), options);
  FinishRecordedRun(recorder.get(), result, std::cerr, "medreact chat");

  if (Status s = (*reporter)->WriteTrace(result.trace); !s.ok()) {
    std::cerr << "medreact chat: " << WithFlagNames(s.message()) << "\n";
    return ExitCodeAfterInterrupt(kExitRunFailed);
  }
  return ReportChatResult(result, flags.json, recorder != nullptr, "medreact chat");
}

}  // namespace

void AddChatCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<ChatFlags>();
  CLI::App* chat = app.add_subcommand("chat", "ask the general agent a question; it may call tools");
  AddModelFlags(chat, &flags->model);
  chat->add_option("message", flags->message, "the question or task");
  chat->add_option("--message-file", flags->message_file, "read the message from a file ('-' = stdin)");
  chat->add_option("--tools", flags->tools, "comma-separated tool packs (see 'medreact tools list')");
  chat->add_option("--fhir", flags->fhir_path, "a patient's FHIR R4 bundle (JSON or NDJSON) for the fhir pack");
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
  chat->add_flag("--stream", flags->stream, "stream the model's text to stderr as it arrives (SSE)");
  chat->add_flag("--json", flags->json, "print the result as JSON");
  chat->add_flag("-v,--verbose", flags->verbose, "progress on stderr (tool names and timings only)");
  chat->add_option("--trace", flags->trace_path, "write the run trace (JSON) to this file");
  chat->add_option("--events", flags->events_path, "write every event as JSON lines to this file");
  AddStoreFlags(chat, &flags->store);
  AddApprovalFlags(chat, &flags->approval);
  chat->callback([flags, exit_code] { *exit_code = RunChatCommand(*flags); });
}

}  // namespace medreact::cli
