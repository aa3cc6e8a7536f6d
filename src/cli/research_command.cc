// `medreact research QUESTION`: the multi-agent research app (seed 003,
// apps/research). Offline by default: the literature tools answer from the
// literature cache only (--online to reach PubMed, ClinicalTrials.gov and
// Europe PMC; --replay FILE to import recorded responses into the cache
// first, as the `make run` demo does). Without --llm-url (or with --planner
// rules) the rules planner plays every agent.
//
// stdout: the report (markdown), unless --report FILE. stderr: one line per
// research event (types, agents, counts; never abstracts). --out: the
// structured ResearchReport and the run's facts (JSON); --events: the
// research events as JSON lines; --trace: the research trace (events, ledger
// per round, every sub-agent's RunTrace).
//
// Exit codes: 0 the report agent wrote the report; 1 the report came from
// fallback synthesis (a break condition: max rounds, timeout, token budget,
// a failed agent), or with --require-model the rules planner stood in for a
// model that never answered, or an output could not be written (whatever
// could be written was); 2 bad usage or bad input, nothing written.
//
// The research run is recorded in the run store (--store, --no-store): a row
// with its question and options, one step per agent run as it ends (the
// agent, its round, its tool calls and answer), its status and result, for
// `medreact runs list/show`. It is not resumed (research_app.h says why).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "apps/common/app_runner.h"
#include "apps/research/research_app.h"
#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/interrupt.h"
#include "cli/model_flags.h"
#include "cli/runs_resume_apps.h"
#include "cli/setting_flags.h"
#include "cli/store_flags.h"
#include "core/file_io.h"
#include "core/text_util.h"
#include "core/time_util.h"
#include "medreact/trace.h"
#include "tools/literature/literature_recording.h"
#include "tools/packs.h"

namespace medreact::cli {
namespace {

struct ResearchFlags {
  ModelFlags model;
  std::string planner = "auto";
  std::string question;
  int max_rounds = 5;
  double timeout_s = 600;
  int64_t token_budget = 50'000;
  std::string sources = "pubmed,trials,preprints";
  int results = 5;
  bool online = false;
  std::string cache_path;
  std::string replay_path;
  std::string memory_path;
  std::string out_path;
  std::string report_path;
  std::string events_path;
  std::string trace_path;
  bool quiet = false;
  bool require_model = false;
  StoreFlags store;
};

int Fail(const std::string& message) {
  std::cerr << "medreact research: " << WithFlagNames(message) << "\n";
  return kExitBadInput;
}

// The research run in the run store: one row, one step per agent run. The
// state it checkpoints is not one Agent::Resume could take (research runs
// are not resumed): the question, and the agent runs as steps.
class ResearchRecording {
 public:
  ResearchRecording(std::unique_ptr<RunRecorder> recorder, const std::string& question)
      : recorder_(std::move(recorder)), started_(std::chrono::steady_clock::now()) {
    if (!recorder_) return;
    state_.messages.push_back(Message::User(question));
    state_.trace.run_id = NewRunId();
    state_.trace.started_at = UtcTimestamp();
    state_.trace.input = Json{{"message", question}};
    recorder_->Hook()(state_);  // the row exists before the first agent runs
  }

  // An agent run that ended: its answer, its tool calls and their results
  // (every step's, in order), and a note saying which agent of which round.
  void AgentRun(int round, const std::string& agent, const RunResult& run) {
    if (!recorder_) return;
    StepRecord step;
    step.index = static_cast<int>(state_.trace.steps.size()) + 1;
    step.assistant = Message::Assistant(run.answer);
    for (const StepRecord& s : run.trace.steps) {
      const size_t n = std::min(s.assistant.tool_calls.size(), s.tool_results.size());
      for (size_t i = 0; i < n; ++i) {
        step.assistant.tool_calls.push_back(s.assistant.tool_calls[i]);
        step.tool_results.push_back(s.tool_results[i]);
      }
    }
    step.notes.push_back("round " + std::to_string(round) + ": the " + agent + " agent (run " + run.trace.run_id +
                         ") ended '" + RunStatusName(run.status) + "' after " + std::to_string(run.steps) +
                         " step(s) and " + std::to_string(run.tool_calls) + " tool call(s)" +
                         (run.error.empty() ? "" : ": " + Preview(run.error, 200)));
    step.usage = run.usage;
    step.elapsed_ms = run.trace.elapsed_ms;
    tool_calls_ += static_cast<int>(step.tool_results.size());
    state_.trace.steps.push_back(std::move(step));
    state_.step = static_cast<int>(state_.trace.steps.size());
    state_.usage += run.usage;
    state_.trace.usage = state_.usage;
    state_.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_).count();
    recorder_->Hook()(state_);
  }

  // A research event for the store, as the --events line; the report's
  // streamed fragments are left out (many, and the report is the result),
  // as the engine's model_delta are.
  void Event(const ResearchEvent& e) {
    if (!recorder_ || (e.type == ResearchEventType::kStreaming && e.agent == "report")) return;
    recorder_->KeepEvent({.type = ResearchEventTypeName(e.type),
                          .step = static_cast<int64_t>(state_.trace.steps.size()),
                          .at = e.timestamp,
                          .json = DumpJson(ToJson(e))});
  }

  // The research's end: finished when the report agent wrote the report,
  // else the break condition as the engine's status; the report as answer
  // and the --out JSON as final fields.
  void Finish(const ResearchOutcome& out) {
    if (!recorder_) return;
    RunResult end;
    const std::string& stop = out.stop_reason;
    end.status = !out.status.ok()                                       ? RunStatus::kError
                 : stop == "judge_approved" || stop == "report_written" ? RunStatus::kFinished
                 : stop == "max_rounds"                                 ? RunStatus::kMaxSteps
                 : stop == "timeout"                                    ? RunStatus::kTimeout
                 : stop == "token_budget"                               ? RunStatus::kBudget
                                                                        : RunStatus::kError;
    end.answer = out.report.markdown;
    if (!out.status.ok()) {
      end.error = out.status.message();
    } else if (!out.report_from_agent) {
      end.error = "fallback synthesis (" + stop + "): " + out.fallback_reason;
    }
    if (out.status.ok()) end.final_fields = Json::parse(DumpJson(out.result));
    end.trace = state_.trace;
    end.steps = static_cast<int>(state_.trace.steps.size());
    end.tool_calls = tool_calls_;
    end.usage = out.usage;
    recorder_->Finish(end, /*interrupted=*/false);  // not resumable: a stopped run ends as it stood
  }

 private:
  std::unique_ptr<RunRecorder> recorder_;
  std::chrono::steady_clock::time_point started_;
  RunState state_;
  int tool_calls_ = 0;
};

int RunResearchCommand(const ResearchFlags& flags) {
  if (IsBlank(flags.question)) return Fail("the question is empty: give QUESTION");
  std::vector<std::string> sources;
  for (const std::string& s : SplitPackList(flags.sources)) {
    if (s != "pubmed" && s != "trials" && s != "preprints") {
      return Fail("--sources: unknown source '" + s + "' (pubmed, trials, preprints)");
    }
    sources.push_back(s);
  }
  if (sources.empty()) return Fail("--sources: name at least one of pubmed, trials, preprints");
  // Every output path is checked before anything runs.
  for (const RunOutputs& o : {RunOutputs{.trace_path = flags.trace_path, .events_path = flags.events_path,
                                         .result_path = flags.out_path},
                              RunOutputs{.result_path = flags.report_path}}) {
    if (Status s = RunReporter::CheckPaths(o); !s.ok()) return Fail(s.message());
  }
  Result<std::string> provider = ResolveProvider(flags.planner, flags.model.protocol, HasModel(flags.model), true);
  if (!provider.ok()) return Fail(provider.status().message());

  ResearchConfig config;
  if (*provider != "rules") {
    Result<std::shared_ptr<ChatModel>> model = MakeModel(flags.model, {});
    if (!model.ok()) return Fail(model.status().message());
    config.model = *model;
  }
  config.max_rounds = flags.max_rounds;
  config.timeout = SecondsToMillis(flags.timeout_s);
  config.token_budget = flags.token_budget;
  config.sources = sources;
  config.results_per_search = flags.results;
  config.literature.client.online = flags.online;
  config.literature.client.cache_path = flags.cache_path;
  config.memory_path = flags.memory_path;
  if (!flags.replay_path.empty()) {
    Result<int> imported = ImportLiteratureRecording(flags.replay_path, flags.cache_path);
    if (!imported.ok()) return Fail("--replay: " + imported.status().message());
    if (!flags.quiet) std::cerr << "research: imported " << *imported << " recorded response(s) into the literature cache\n";
  }
  Result<std::shared_ptr<RunStore>> store =
      OpenStoreForRun(flags.store, [](const std::string& w) { std::cerr << "medreact research: " << w << "\n"; });
  if (!store.ok()) return Fail(store.status().message());
  std::FILE* events = nullptr;
  if (!flags.events_path.empty()) {
    Result<std::FILE*> opened = OpenPrivateFile(flags.events_path, "event log");
    if (!opened.ok()) return Fail("--events: " + opened.status().message());
    events = *opened;
  }
  config.cancel = InstallInterruptHandlers();
  bool report_streaming = false;
  ResearchRecording* recording_of = nullptr;  // set below, before the research starts
  config.on_event = [&](const ResearchEvent& e) {
    if (recording_of) recording_of->Event(e);  // the store's copy first
    if (events) {
      const std::string line = DumpJson(ToJson(e)) + "\n";
      std::fwrite(line.data(), 1, line.size(), events);
      std::fflush(events);
    }
    if (flags.quiet || (e.type == ResearchEventType::kProgress && e.agent.empty())) return;  // graph transitions: file only
    if (e.type == ResearchEventType::kStreaming && e.agent == "report") {  // fragments: file only, one line here
      if (!report_streaming) {
        std::cerr << "research [round " << e.iteration << "] streaming: the report agent is writing"
                  << (events ? " (its text streams to --events)" : "") << "\n";
      }
      report_streaming = true;
      return;
    }
    std::cerr << "research [round " << e.iteration << "] " << ResearchEventTypeName(e.type) << ": " << e.message << "\n";
  };

  ResearchRecording recording(
      MakeRunRecorder(*store,
                      {.app = "research",
                       .inputs = Json{{"message", flags.question},
                                      {"planner", *provider == "rules" ? "rules" : "model"},
                                      {"sources", sources},
                                      {"results", flags.results},
                                      {"online", flags.online},
                                      {"cache", AbsoluteInputPath(flags.cache_path)},
                                      {"memory", AbsoluteInputPath(flags.memory_path)},
                                      {"out", AbsoluteInputPath(flags.out_path)},
                                      {"report", AbsoluteInputPath(flags.report_path)},
                                      {"options",
                                       {{"max_rounds", flags.max_rounds},
                                        {"timeout_s", flags.timeout_s},
                                        {"token_budget", flags.token_budget}}}},
                       .model = config.model ? StoredModelJson(flags.model)
                                             : Json{{"name", "research-rules-planner"}, {"protocol", "rules"}}},
                      std::cerr, "medreact research"),
      flags.question);
  recording_of = &recording;
  config.on_agent_run = [&recording](int round, const std::string& agent, const RunResult& run) {
    recording.AgentRun(round, agent, run);
  };
  ResearchOutcome out = RunResearch(flags.question, config);
  recording.Finish(out);
  if (events) std::fclose(events);
  if (!out.status.ok()) return Fail(out.status.message());
  int exit_code = out.report_from_agent ? kExitOk : kExitRunFailed;
  if (out.fell_back) {
    std::cerr << "medreact research: the model never answered (" << out.model_failure
              << "); the rules planner researched instead\n";
    if (flags.require_model) exit_code = kExitRunFailed;
  }
  if (!out.report_from_agent) {
    std::cerr << "medreact research: fallback synthesis (" << out.stop_reason << "): " << out.fallback_reason << "\n";
  }
  auto write = [&](const Status& s) {
    if (!s.ok()) {
      std::cerr << "medreact research: " << s.message() << "\n";
      exit_code = kExitRunFailed;
    }
  };
  if (!flags.trace_path.empty()) write(WriteJsonFile(out.trace, flags.trace_path));
  if (!flags.out_path.empty()) write(WriteTextFile(DumpJson(out.result, 2) + "\n", flags.out_path));
  if (!flags.report_path.empty()) {
    write(WriteTextFile(out.report.markdown, flags.report_path));
  } else {
    std::cout << out.report.markdown;
  }
  return ExitCodeAfterInterrupt(exit_code);
}

}  // namespace

void AddResearchCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<ResearchFlags>();
  CLI::App* cmd = app.add_subcommand(
      "research", "multi-agent literature research (seed 003): search, judge, hypothesise and report with "
                  "numbered references");
  AddModelFlags(cmd, &flags->model);
  cmd->add_option("question", flags->question, "the research question")->required();
  cmd->add_option("--planner", flags->planner,
                  "who plays the agents: model (the configured server), rules (the deterministic plan; no server) "
                  "or auto (model when --llm-url/MEDREACT_LLM_URL is set)")
      ->check(CLI::IsMember({"auto", "model", "rules"}));
  cmd->add_option("--max-rounds", flags->max_rounds, "manager rounds before fallback synthesis")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--timeout", flags->timeout_s, "seconds for the whole research")->check(Seconds());
  cmd->add_option("--token-budget", flags->token_budget, "tokens over every agent run (0 = none)")
      ->check(CLI::Range(int64_t{0}, int64_t{1'000'000'000}));
  cmd->add_option("--sources", flags->sources, "comma-separated: pubmed, trials, preprints");
  cmd->add_option("--results", flags->results, "records per search the rules planner asks for")
      ->check(CLI::Range(1, 100));
  cmd->add_flag("--online", flags->online, "send requests to the literature services (default: the cache only)");
  CLI::Option* cache =
      cmd->add_option("--cache", flags->cache_path, "the literature cache (default: $XDG_CACHE_HOME/medreact/literature.sqlite)");
  // A recording goes into a cache the user names, never silently into the default one.
  cmd->add_option("--replay", flags->replay_path,
                  "import recorded responses (JSON lines: method, url, status, content_type, body) into the --cache "
                  "file before the run (needs --cache)")
      ->needs(cache);
  cmd->add_option("--memory", flags->memory_path, "keep the research memory in this SQLite file (resumable)");
  cmd->add_option("--out", flags->out_path, "write the structured report and the run's facts (JSON)");
  cmd->add_option("--report", flags->report_path, "write the report (markdown) here instead of stdout");
  cmd->add_option("--events", flags->events_path, "write the research events as JSON lines");
  cmd->add_option("--trace", flags->trace_path, "write the research trace (JSON)");
  cmd->add_flag("-q,--quiet", flags->quiet, "no progress lines on stderr");
  cmd->add_flag("--require-model", flags->require_model,
                "exit 1 when the model never answered and the rules planner researched instead");
  AddStoreFlags(cmd, &flags->store);
  cmd->callback([flags, exit_code] { *exit_code = RunResearchCommand(*flags); });
}

}  // namespace medreact::cli
