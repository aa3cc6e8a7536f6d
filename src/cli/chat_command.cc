// `medreact chat`: the general agent (seed 004) — any tool packs, any question,
// against any OpenAI-compatible server, natively or through the text protocol.
//
// stdout gets the answer (or, with --json, the result object); stderr gets
// progress (-v) and, with --stream, the model's text as it arrives. The trace
// (--trace) and the event log (--events) are files the user asked for; logs
// never carry the message text.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <iostream>
#include <iterator>
#include <mutex>

#include "cli/cli_io.h"
#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/interrupt.h"
#include "cli/model_flags.h"
#include "medreact/agent.h"
#include "tools/packs.h"

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
};

// Everything that can be checked before a model is called; exit code 2 on failure.
Result<RunRequest> BuildRequest(const ChatFlags& flags) {
  RunRequest request;
  if (!flags.message_file.empty() && !flags.message.empty()) {
    return Status::InvalidArgument("give the message either as MESSAGE or with --message-file, not both");
  }
  if (!flags.message_file.empty()) {
    auto text = ReadInputFile(flags.message_file, "message");
    if (!text.ok()) return text.status();
    request.message = *text;
  } else {
    request.message = flags.message;
  }
  if (IsBlank(request.message)) {
    return Status::InvalidArgument("the message is empty: give MESSAGE or --message-file FILE");
  }
  // Output paths are checked before the run, so a typo costs nothing.
  if (!flags.trace_path.empty()) {
    if (Status s = CheckOutputPath(flags.trace_path, "trace (--trace)"); !s.ok()) return s;
  }
  if (!flags.events_path.empty()) {
    if (Status s = CheckOutputPath(flags.events_path, "event log (--events)"); !s.ok()) return s;
  }
  return request;
}

int RunChat(const ChatFlags& flags) {
  auto request = BuildRequest(flags);
  if (!request.ok()) {
    std::cerr << "medreact chat: " << request.status().message() << "\n";
    return kExitBadInput;
  }
  if (Result<std::string> provider = ResolveProvider("auto", flags.model.protocol, HasModel(flags.model), false);
      !provider.ok()) {
    std::cerr << "medreact chat: " << provider.status().message() << "\n";
    return kExitBadInput;
  }
  auto registry = std::make_shared<ToolRegistry>();
  std::vector<std::string> packs = SplitPackList(flags.tools);
  if (!flags.fhir_path.empty() && std::find(packs.begin(), packs.end(), "fhir") == packs.end()) {
    packs.push_back("fhir");  // naming a record means using it
  }
  if ((!flags.corpus_dir.empty() || !flags.extras_path.empty()) &&
      std::find(packs.begin(), packs.end(), "rag") == packs.end()) {
    packs.push_back("rag");  // likewise a corpus or a hints file
  }
  const PackContext context{.fhir_path = flags.fhir_path, .as_of = flags.as_of,
                            .corpus_dir = flags.corpus_dir, .extras_path = flags.extras_path,
                            .on_warning = [](const std::string& w) { std::cerr << "medreact chat: " << w << "\n"; }};
  if (Status s = RegisterPacks(*registry, packs, context); !s.ok()) {
    std::cerr << "medreact chat: " << s.message() << "\n";
    return kExitBadInput;
  }
  auto model = MakeModel(flags.model);
  if (!model.ok()) {
    std::cerr << "medreact chat: " << model.status().message() << "\n";
    return kExitBadInput;
  }

  AgentOptions options;
  if (!flags.system_file.empty()) {
    auto text = ReadInputFile(flags.system_file, "system prompt");
    if (!text.ok()) {
      std::cerr << "medreact chat: " << text.status().message() << "\n";
      return kExitBadInput;
    }
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

  options.cancel = InstallInterruptHandlers();

  std::unique_ptr<std::FILE, int (*)(std::FILE*)> events(nullptr, &std::fclose);
  if (!flags.events_path.empty()) {
    Result<std::FILE*> file = OpenPrivateFile(flags.events_path, "event log (--events)");
    if (!file.ok()) {
      std::cerr << "medreact chat: " << file.status().message() << "\n";
      return kExitBadInput;
    }
    events.reset(*file);
  }
  if (events || flags.verbose || flags.stream) {
    options.on_event = [&](const Event& e) {
      if (events) {
        const std::string line = DumpJson(ToJson(e)) + "\n";
        std::fwrite(line.data(), 1, line.size(), events.get());
        std::fflush(events.get());
      }
      if (flags.stream && e.type == EventType::kModelDelta) std::cerr << e.text << std::flush;
      if (flags.stream && e.type == EventType::kAssistantMessage && !e.text.empty()) std::cerr << "\n";
      if (!flags.verbose) return;
      switch (e.type) {  // names and timings only: no message or tool content
        case EventType::kToolFinished:
          std::cerr << "[step " << e.step << "] " << e.tool_name << (e.ok ? " ok " : " error ")
                    << static_cast<long long>(e.elapsed_ms) << " ms\n";
          break;
        case EventType::kStepFinished:
          std::cerr << "[step " << e.step << "] done in " << static_cast<long long>(e.elapsed_ms) << " ms\n";
          break;
        case EventType::kError:
          std::cerr << "[step " << e.step << "] model error\n";
          break;
        default:
          break;
      }
    };
  }

  Agent agent(*model, registry, options);
  RunResult result = agent.Run(*request);

  if (!flags.trace_path.empty()) {
    if (Status s = WriteTraceFile(result.trace, flags.trace_path); !s.ok()) {
      std::cerr << "medreact chat: " << s.message() << "\n";
      return ExitCodeAfterInterrupt(kExitRunFailed);
    }
  }
  if (flags.json) {
    Json out{{"status", RunStatusName(result.status)},
             {"answer", result.answer},
             {"steps", result.steps},
             {"tool_calls", result.tool_calls},
             {"usage", ToJson(result.usage)}};
    if (!result.error.empty()) out["error"] = result.error;
    std::cout << DumpJson(out, 2) << "\n";
  } else {
    std::cout << result.answer << "\n";
  }
  if (result.status != RunStatus::kFinished) {
    std::cerr << "medreact chat: run ended with status '" << RunStatusName(result.status)
              << "': " << result.error << "\n";
    return ExitCodeAfterInterrupt(kExitRunFailed);
  }
  return ExitCodeAfterInterrupt(kExitOk);
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
  chat->callback([flags, exit_code] { *exit_code = RunChat(*flags); });
}

}  // namespace medreact::cli
