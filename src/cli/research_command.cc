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
#include <cstdio>
#include <iostream>

#include "apps/common/app_runner.h"
#include "apps/research/research_app.h"
#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/interrupt.h"
#include "cli/model_flags.h"
#include "core/file_io.h"
#include "core/text_util.h"
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
};

int Fail(const std::string& message) {
  std::cerr << "medreact research: " << message << "\n";
  return kExitBadInput;
}

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
  std::FILE* events = nullptr;
  if (!flags.events_path.empty()) {
    Result<std::FILE*> opened = OpenPrivateFile(flags.events_path, "event log");
    if (!opened.ok()) return Fail("--events: " + opened.status().message());
    events = *opened;
  }
  config.cancel = InstallInterruptHandlers();
  config.on_event = [&](const ResearchEvent& e) {
    if (events) {
      const std::string line = DumpJson(ToJson(e)) + "\n";
      std::fwrite(line.data(), 1, line.size(), events);
      std::fflush(events);
    }
    if (flags.quiet || (e.type == ResearchEventType::kProgress && e.agent.empty())) return;  // graph transitions: file only
    std::cerr << "research [round " << e.iteration << "] " << ResearchEventTypeName(e.type) << ": " << e.message << "\n";
  };

  ResearchOutcome out = RunResearch(flags.question, config);
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
  cmd->callback([flags, exit_code] { *exit_code = RunResearchCommand(*flags); });
}

}  // namespace medreact::cli
