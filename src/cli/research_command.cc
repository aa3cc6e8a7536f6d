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
// The run service runs and records it (service/research_runs.h: every check
// before any work, then a row with its question and options, one step per
// agent run, its events, a checkpoint after every agent's turn, its status
// and result); this command keeps the flags and the printing. A killed or
// interrupted research goes on with `medreact runs resume ID` from its last
// checkpoint (ResumeResearchRun, research_runs_cli.h).
#include <cstdio>
#include <iostream>

#include "apps/common/app_runner.h"
#include "apps/research/research_app.h"
#include "cli/approval_flags.h"
#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/interrupt.h"
#include "cli/model_flags.h"
#include "cli/research_runs_cli.h"
#include "cli/setting_flags.h"
#include "cli/store_flags.h"
#include "core/file_io.h"
#include "core/printable.h"
#include "core/text_util.h"
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
  ApprovalFlags approval;
};

int Fail(const std::string& message) {
  std::cerr << "medreact research: " << WithFlagNames(message) << "\n";
  return kExitBadInput;
}

// The research's event sink for the terminal and the --events file.
class ResearchPrinter {
 public:
  ResearchPrinter(std::unique_ptr<LineLog> events, bool quiet) : events_(std::move(events)), quiet_(quiet) {}
  ResearchPrinter(const ResearchPrinter&) = delete;
  ResearchPrinter& operator=(const ResearchPrinter&) = delete;

  void operator()(const ResearchEvent& e) {
    if (events_) events_->Write(DumpJson(ToJson(e)));
    if (quiet_ || (e.type == ResearchEventType::kProgress && e.agent.empty())) return;  // graph transitions: file only
    if (e.type == ResearchEventType::kStreaming && e.agent == "report") {  // fragments: file only, one line here
      if (!report_streaming_) {
        std::cerr << "research [round " << e.iteration << "] streaming: the report agent is writing"
                  << (events_ ? " (its text streams to --events)" : "") << "\n";
      }
      report_streaming_ = true;
      return;
    }
    std::cerr << "research [round " << e.iteration << "] " << ResearchEventTypeName(e.type) << ": "
              << PrintableLine(e.message)
              << "\n";
  }

  // OK, or the --events file's first failed write.
  Status events_status() const { return events_ ? events_->status() : Status::OK(); }

 private:
  std::unique_ptr<LineLog> events_;
  bool quiet_;
  bool report_streaming_ = false;
};

}  // namespace

int ReportResearchRun(const service::ResearchRun& run, const ResearchOutputs& outputs, const std::string& who) {
  const ResearchOutcome& out = run.outcome;
  if (!out.status.ok()) {
    std::cerr << who << ": " << WithFlagNames(out.status.message()) << "\n";
    return kExitBadInput;
  }
  if (run.status == "awaiting_approval" && out.paused) {
    // No report yet: the research goes on once the searches are decided.
    std::cerr << who << ": the research waits for a person's approval of "
              << Printable(Join(out.paused->awaiting_approval, ", ")) << "; decide with 'medreact runs approve|reject "
              << run.run_id << "' (see 'medreact runs show " << run.run_id << "')\n";
    if (!outputs.trace_path.empty()) {
      if (Status s = WriteJsonFile(out.trace, outputs.trace_path); !s.ok()) std::cerr << who << ": " << s.message() << "\n";
    }
    return ExitCodeAfterInterrupt(kExitAwaitingApproval);
  }
  int exit_code = out.report_from_agent ? kExitOk : kExitRunFailed;
  if (out.fell_back) {
    std::cerr << who << ": the model never answered (" << PrintableLine(out.model_failure)
              << "); the rules planner researched instead\n";
    if (outputs.require_model) exit_code = kExitRunFailed;
  }
  if (!out.report_from_agent) {
    std::cerr << who << ": fallback synthesis (" << PrintableLine(out.stop_reason)
              << "): " << PrintableLine(out.fallback_reason) << "\n";
  }
  if (run.status == "interrupted" && run.stored) {
    std::cerr << who << ": the research was interrupted; go on with it with 'medreact runs resume " << run.run_id
              << "'\n";
  }
  auto write = [&](const Status& s) {
    if (!s.ok()) {
      std::cerr << who << ": " << s.message() << "\n";
      exit_code = kExitRunFailed;
    }
  };
  if (!outputs.trace_path.empty()) write(WriteJsonFile(out.trace, outputs.trace_path));
  if (!outputs.out_path.empty()) write(WriteTextFile(DumpJson(out.result, 2) + "\n", outputs.out_path));
  if (!outputs.report_path.empty()) {
    write(WriteTextFile(out.report.markdown, outputs.report_path));
  } else {
    std::cout << Printable(out.report.markdown);  // titles, abstracts and the model's words: from outside
  }
  return ExitCodeAfterInterrupt(exit_code);
}

int RunPrintedResearch(service::RunService& runs, std::unique_ptr<service::PreparedResearch> prepared,
                       const ResearchOutputs& outputs, const std::string& who) {
  std::unique_ptr<LineLog> events;
  if (!outputs.events_path.empty()) {
    Result<std::unique_ptr<LineLog>> opened = LineLog::Open(outputs.events_path, "event log");
    if (!opened.ok()) return Fail("--events: " + opened.status().message());
    events = std::move(*opened);
  }
  ResearchPrinter printer(std::move(events), outputs.quiet);
  // A search that waits asks on the terminal (--approval-prompt), else the research pauses.
  std::shared_ptr<ToolRegistry> tools;
  if (prepared->config.needs_approval && PromptsOnTerminal(outputs.approval_prompt)) {
    Result<std::shared_ptr<ToolRegistry>> offered = service::ResearchDecisionTools(prepared->run);
    if (offered.ok()) tools = *offered;
  }
  const service::ResearchHooks hooks{
      .on_event = [&printer](const ResearchEvent& e) { printer(e); },
      .cancel = InstallInterruptHandlers(),
      .warn = [who](const std::string& w) { std::cerr << who << ": " << PrintableLine(w) << "\n"; },
      .approve = tools ? TerminalApprover(outputs.approval_prompt, tools, std::cin, std::cerr) : nullptr};
  const service::ResearchRun run = service::RunPreparedResearch(runs, std::move(prepared), hooks);
  int exit_code = ReportResearchRun(run, outputs, who);
  if (Status s = printer.events_status(); !s.ok()) {
    std::cerr << who << ": --events: " << s.message() << "\n";
    if (exit_code == kExitOk) exit_code = kExitRunFailed;
  }
  return exit_code;
}

int ResumeResearchRun(service::RunService& runs, const RunRecord& run, const ModelFlags& model,
                      const ResearchOutputs& outputs) {
  const std::string who = "medreact runs";
  if (Status s = RunReporter::CheckPaths({.trace_path = outputs.trace_path, .events_path = outputs.events_path});
      !s.ok()) {
    std::cerr << who << ": " << WithFlagNames(s.message()) << "\n";
    return kExitBadInput;
  }
  service::ResumeSpec spec;
  spec.model = HasModel(model) ? ModelSettingsOf(model) : service::ModelSettings{.api_key = model.api_key};
  Result<std::unique_ptr<service::PreparedResearch>> prepared = service::PrepareResearchResume(runs, run.id, spec);
  if (!prepared.ok()) {
    std::cerr << who << ": " << WithFlagNames(prepared.status().message()) << "\n";
    return kExitBadInput;
  }
  ResearchOutputs stored = outputs;  // the research's own --out and --report, where it stored them
  stored.out_path = (*prepared)->out_path;
  stored.report_path = (*prepared)->report_path;
  return RunPrintedResearch(runs, std::move(*prepared), stored, who);
}

namespace {

int RunResearchCommand(ResearchFlags flags) {
  if (flags.report_path == "-") flags.report_path.clear();  // --report -: standard output, as without the flag
  // Every output path is checked before anything runs.
  for (const RunOutputs& o : {RunOutputs{.trace_path = flags.trace_path, .events_path = flags.events_path,
                                         .result_path = flags.out_path},
                              RunOutputs{.result_path = flags.report_path}}) {
    if (Status s = RunReporter::CheckPaths(o); !s.ok()) return Fail(s.message());
  }
  Result<std::shared_ptr<RunStore>> store =
      OpenStoreForRun(flags.store, [](const std::string& w) {
        std::cerr << "medreact research: " << PrintableLine(w) << "\n";
      });
  if (!store.ok()) return Fail(store.status().message());
  service::RunService runs(*store);
  service::ResearchStart start{.question = flags.question,
                               .planner = flags.planner,
                               .model = ModelSettingsOf(flags.model),
                               .max_rounds = flags.max_rounds,
                               .timeout_s = flags.timeout_s,
                               .token_budget = flags.token_budget,
                               .sources = SplitPackList(flags.sources),
                               .results = flags.results,
                               .online = flags.online,
                               .cache_path = flags.cache_path,
                               .replay_path = flags.replay_path,
                               .memory_path = flags.memory_path,
                               .out_path = flags.out_path,
                               .report_path = flags.report_path};
  Result<std::vector<std::string>> rules = ApprovalRules(flags.approval);
  if (!rules.ok()) return Fail(rules.status().message());
  start.require_approval = *rules;
  Result<std::unique_ptr<service::PreparedResearch>> prepared = service::PrepareResearch(runs, start);
  if (!prepared.ok()) return Fail(prepared.status().message());
  if (!flags.replay_path.empty() && !flags.quiet) {
    std::cerr << "research: imported " << (*prepared)->imported << " recorded response(s) into the literature cache\n";
  }
  return RunPrintedResearch(runs, std::move(*prepared),
                            {.out_path = flags.out_path,
                             .report_path = flags.report_path,
                             .events_path = flags.events_path,
                             .trace_path = flags.trace_path,
                             .quiet = flags.quiet,
                             .require_model = flags.require_model,
                             .approval_prompt = flags.approval.prompt},
                            "medreact research");
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
  cmd->add_option("--results", flags->results, "records per search the rules planner asks for (1-50)")
      ->check(CLI::Range(1, 50));
  cmd->add_flag("--online", flags->online, "send requests to the literature services (default: the cache only)");
  CLI::Option* cache = cmd->add_option("--cache", flags->cache_path,
                                       "the literature cache (default: $XDG_CACHE_HOME/medreact/literature.sqlite)");
  // A recording goes into a cache the user names, never silently into the default one.
  cmd->add_option("--replay", flags->replay_path,
                  "import recorded responses (JSON lines: method, url, status, content_type, body) into the --cache "
                  "file before the run (needs --cache)")
      ->needs(cache);
  cmd->add_option("--memory", flags->memory_path, "keep the research memory in this SQLite file (resumable)");
  cmd->add_option("--out", flags->out_path, "write the structured report and the run's facts (JSON)");
  cmd->add_option("--report", flags->report_path, "write the report (markdown) here instead of stdout ('-': stdout)");
  cmd->add_option("--events", flags->events_path, "write the research events as JSON lines");
  cmd->add_option("--trace", flags->trace_path, "write the research trace (JSON)");
  cmd->add_flag("-q,--quiet", flags->quiet, "no progress lines on stderr");
  cmd->add_flag("--require-model", flags->require_model,
                "exit 1 when the model never answered and the rules planner researched instead");
  AddStoreFlags(cmd, &flags->store);
  AddApprovalFlags(cmd, &flags->approval);  // the searches that wait for a person
  cmd->callback([flags, exit_code] { *exit_code = RunResearchCommand(*flags); });
}

}  // namespace medreact::cli
