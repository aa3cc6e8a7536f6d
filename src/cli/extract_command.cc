// `medreact extract`: a clinical note + a JSON Schema → a JSON object that
// validates, by the agentic extraction loop of seed 002 (apps/extract). The
// result goes to stdout and, with --out, to a file; --trace writes every
// attempt's steps. Exit 0 when the answer validates, 1 when it does not (the
// best partial answer and its problems are still written), 2 on bad input.
// The agent run is recorded in the run store (--store, --no-store): a killed
// or interrupted extraction goes on with `medreact runs resume RUN_ID`.
#include <iostream>

#include "apps/common/app_runner.h"
#include "apps/extract/extract_app.h"
#include "apps/extract/extract_prompts.h"
#include "cli/cli_io.h"
#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/interrupt.h"
#include "cli/model_flags.h"
#include "cli/runs_resume_apps.h"
#include "cli/setting_flags.h"
#include "cli/store_flags.h"
#include "core/printable.h"
#include "medreact/trace.h"
#include "service/extract_runs.h"

namespace medreact::cli {
namespace {

struct ExtractFlags {
  ModelFlags model;
  std::string planner = "auto";
  std::string note_path;
  std::string schema_path;
  std::string label;
  std::string corpus_dir;
  std::string rag_db;
  std::string extras_path;
  std::string out_path;
  std::string trace_path;
  std::string events_path;
  int max_iterations = 20;
  int tool_budget = 40;
  int validation_retries = 2;
  double timeout_s = 600;
  bool verbose = false;
  bool require_model = false;
  StoreFlags store;
};

int Fail(const std::string& message) {
  std::cerr << "medreact extract: " << WithFlagNames(message) << "\n";
  return kExitBadInput;
}

int RunExtractCommand(const ExtractFlags& flags) {
  if (flags.note_path == "-" && flags.schema_path == "-") {
    return Fail("--note and --schema cannot both be read from standard input ('-')");
  }
  Result<std::string> note = ReadInputFile(flags.note_path, "note");
  if (!note.ok()) return Fail("--note: " + note.status().message());
  Result<std::string> schema_text = ReadInputFile(flags.schema_path, "schema", kMaxJsonConfigBytes);
  if (!schema_text.ok()) return Fail("--schema: " + schema_text.status().message());
  const RunOutputs outputs{.trace_path = flags.trace_path,
                           .events_path = flags.events_path,
                           .result_path = flags.out_path,
                           .verbose = flags.verbose};
  if (Status s = RunReporter::CheckPaths(outputs); !s.ok()) return Fail(s.message());
  auto warn = [](const std::string& w) {
    std::cerr << "medreact extract: " << PrintableLine(WithFlagNames(w)) << "\n";
  };
  // The run store: the agent run's checkpoints, for `medreact runs resume`.
  Result<std::shared_ptr<RunStore>> store = OpenStoreForRun(flags.store, warn);
  if (!store.ok()) return Fail(store.status().message());
  service::RunService runs(*store);
  // Every check (the note, the schema, the limits, the corpus, the hints, the model) before any work.
  Result<std::unique_ptr<service::PreparedExtract>> prepared =
      service::PrepareExtract(runs, {.note = std::move(*note),
                                     .note_path = flags.note_path,
                                     .schema_text = std::move(*schema_text),
                                     .schema_path = flags.schema_path,
                                     .label = flags.label,
                                     .corpus_dir = flags.corpus_dir,
                                     .rag_db = flags.rag_db,
                                     .extras_path = flags.extras_path,
                                     .out_path = flags.out_path,
                                     .planner = flags.planner,
                                     .require_model = flags.require_model,
                                     .max_iterations = flags.max_iterations,
                                     .tool_call_budget = flags.tool_budget,
                                     .max_validation_retries = flags.validation_retries,
                                     .timeout_s = flags.timeout_s,
                                     .model = ModelSettingsOf(flags.model)});
  if (!prepared.ok()) return Fail(prepared.status().message());
  for (const std::string& w : (*prepared)->warnings) warn(w);
  // Last: the event log is created only once nothing can be refused any more.
  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
  if (!reporter.ok()) return Fail(reporter.status().message());
  Result<service::ExtractRan> ran = service::RunExtractPrepared(
      runs, std::move(*prepared), {.on_event = (*reporter)->sink(), .cancel = InstallInterruptHandlers(), .warn = warn});
  if (!ran.ok()) return Fail(ran.status().message());
  return ReportExtraction(*ran, **reporter, flags.require_model, "medreact extract");
}

}  // namespace

void AddExtractCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<ExtractFlags>();
  CLI::App* cmd = app.add_subcommand(
      "extract", "agentic extraction (seed 002): clinical note + JSON Schema -> validated JSON, using guideline "
                 "retrieval, medical functions and hints");
  AddModelFlags(cmd, &flags->model);
  cmd->add_option("--planner", flags->planner,
                  "who extracts: model (the configured server), rules (the offline, explained plan; no server "
                  "needed) or auto (model when --llm-url/MEDREACT_LLM_URL is set)")
      ->check(CLI::IsMember({"auto", "model", "rules"}));
  cmd->add_option("--note", flags->note_path, "the clinical note (text file; '-' = stdin)")->required();
  cmd->add_option("--schema", flags->schema_path, "the JSON Schema the answer must validate against")->required();
  cmd->add_option("--label", flags->label, "context from the requester, e.g. an expected diagnosis (not proof)");
  cmd->add_option("--corpus", flags->corpus_dir, "a folder of guideline documents (.md, .txt) for query_rag");
  cmd->add_option("--rag-db", flags->rag_db, "where the corpus index lives (default: $XDG_CACHE_HOME/medreact/rag/<folder>-<hash>.sqlite, "
                  "else ~/.cache/medreact/rag/)");
  cmd->add_option("--extras", flags->extras_path, "a hints file (JSON) for query_extras");
  cmd->add_option("--out", flags->out_path, "also write the result JSON to this file");
  cmd->add_option("--trace", flags->trace_path, "write the extraction's trace (every attempt's steps) as JSON");
  cmd->add_option("--events", flags->events_path, "write every event as JSON lines to this file");
  cmd->add_option("--max-iterations", flags->max_iterations, "model turns over the whole extraction")
      ->check(CLI::Range(1, 200));
  cmd->add_option("--tool-budget", flags->tool_budget, "tool calls over the whole extraction")->check(CLI::Range(1, 1000));
  cmd->add_option("--validation-retries", flags->validation_retries,
                  "times a non-validating answer goes back to the model")
      ->check(CLI::Range(0, 10));
  cmd->add_option("--timeout", flags->timeout_s, "seconds for the whole extraction")->check(Seconds());
  cmd->add_flag("-v,--verbose", flags->verbose, "progress on stderr (tool names and timings only)");
  cmd->add_flag("--require-model", flags->require_model,
                "exit 1 when the model never answered and the offline planner extracted instead "
                "(the result is still written, marked 'rules (fallback)')");
  AddStoreFlags(cmd, &flags->store);
  cmd->callback([flags, exit_code] { *exit_code = RunExtractCommand(*flags); });
}

}  // namespace medreact::cli
