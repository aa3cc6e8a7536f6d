// `medreact triage`: one patient's imaging findings + FHIR record → priority
// 1..3 with a risk adjustment and the agent's reasoning (seed 001). The result
// JSON goes to stdout and, with --out, to a file; --trace writes the run.
// Progress (-v) shows tool names and timings only.
//
// The run store (issue 14): a model's investigation is recorded by default
// (--store PATH, MEDREACT_STORE or the default store; --no-store turns it
// off) with a checkpoint after every step and tool call, so a killed triage
// goes on with `medreact runs resume RUN_ID` to the same result. The rules
// planner's runs (no model, or --planner rules) are not recorded: they are
// deterministic, local and take milliseconds, so a cut one is simply run
// again, and `runs resume` could add nothing to it; --no-agent runs nothing.
// A model run that never answered is recorded as it ended (status error);
// the rules fallback that then decides is not.
#include <iostream>

#include "apps/common/app_runner.h"
#include "apps/triage/triage_app.h"
#include "cli/cli_io.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/setting_flags.h"
#include "cli/store_flags.h"
#include "cli/triage_flags.h"
#include "medreact/trace.h"

namespace medreact::cli {
namespace {

struct TriageCommandFlags {
  TriageFlags triage;
  std::string fhir_path;
  std::string findings;
  std::string findings_file;
  std::optional<int> base_priority;
  std::string as_of;
  std::string out_path;
  std::string trace_path;
  bool verbose = false;
  StoreFlags store;
};

int Fail(const std::string& message) {
  std::cerr << "medreact triage: " << WithFlagNames(message) << "\n";
  return kExitBadInput;
}

int RunTriageCommand(const TriageCommandFlags& flags) {
  if (flags.findings.empty() == flags.findings_file.empty()) {
    return Fail("give the imaging findings with exactly one of --findings TEXT or --findings-file FILE");
  }
  std::string findings = flags.findings;
  if (!flags.findings_file.empty()) {
    Result<std::string> text = ReadInputFile(flags.findings_file, "findings");
    if (!text.ok()) return Fail(text.status().message());
    findings = *text;
  }
  if (IsBlank(findings)) return Fail("the findings are empty");
  const RunOutputs outputs{.trace_path = flags.trace_path, .result_path = flags.out_path, .verbose = flags.verbose};
  if (Status s = RunReporter::CheckPaths(outputs); !s.ok()) return Fail(s.message());
  while (!findings.empty() && (findings.back() == '\n' || findings.back() == '\r')) findings.pop_back();

  Result<FhirStore> store = FhirStore::LoadFile(flags.fhir_path);
  if (!store.ok()) return Fail(store.status().message());
  if (!flags.as_of.empty()) {
    if (Status s = store->SetAsOf(flags.as_of); !s.ok()) return Fail("--as-of: " + s.message());
  }
  Result<TriageSetup> setup = MakeTriageSetup(flags.triage);
  if (!setup.ok()) return Fail(setup.status().message());
  TriageConfig config = setup->config;
  config.cancel = InstallInterruptHandlers();
  if (setup->make_model) {
    Result<std::shared_ptr<ChatModel>> model = setup->make_model();
    if (!model.ok()) return Fail(model.status().message());
    config.model = *model;
  }
  // Only a model's investigation is recorded (see the header).
  Result<std::shared_ptr<RunStore>> run_store = std::shared_ptr<RunStore>();
  if (config.model && config.agent) {
    run_store =
        OpenStoreForRun(flags.store, [](const std::string& w) { std::cerr << "medreact triage: " << w << "\n"; });
    if (!run_store.ok()) return Fail(run_store.status().message());
  } else if (flags.store.no_store && !flags.store.path.empty()) {
    return Fail("give either --store or --no-store, not both");
  }
  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
  if (!reporter.ok()) return Fail(reporter.status().message());
  config.on_event = (*reporter)->sink();
  const TriageCase triage_case{.findings = findings, .base_priority = flags.base_priority};
  std::unique_ptr<RunRecorder> recorder = MakeRunRecorder(
      *run_store,
      {.app = "triage",
       .inputs = TriageInputsToJson(MakeTriageInputs(flags.fhir_path, flags.as_of, triage_case, config)),
       .model = StoredModelJson(flags.triage.model)},
      std::cerr, "medreact triage");
  if (recorder) {
    config.on_checkpoint = recorder->Hook();
    config.on_event = recorder->Events(std::move(config.on_event));  // the store's copy, then --events etc.
  }

  TriageOutcome outcome = RunTriage(std::make_shared<const FhirStore>(std::move(store).value()), triage_case, config);
  if (outcome.model_run) FinishRecordedRun(recorder.get(), *outcome.model_run, std::cerr, "medreact triage");
  if (outcome.fell_back) {
    std::cerr << "medreact triage: the model never answered (" << outcome.model_failure
              << "); the rules planner decided instead\n";
  }
  int exit_code = outcome.agent_ran && outcome.status != RunStatus::kFinished ? kExitRunFailed : kExitOk;
  if (outcome.fell_back && flags.triage.require_model) exit_code = kExitRunFailed;
  if (outcome.trace) {
    if (Status s = (*reporter)->WriteTrace(*outcome.trace); !s.ok()) {
      std::cerr << "medreact triage: " << s.message() << "\n";
      exit_code = kExitRunFailed;
    }
  }
  const std::string text = DumpJson(outcome.result, 2) + "\n";
  if (Status s = (*reporter)->WriteResult(text); !s.ok()) {
    std::cerr << "medreact triage: " << s.message() << "\n";
    exit_code = kExitRunFailed;
  }
  std::cout << text;
  if (outcome.agent_ran && outcome.status != RunStatus::kFinished) {
    std::cerr << "medreact triage: the investigation ended with status '" << RunStatusName(outcome.status)
              << "'; the result uses what it found\n";
  }
  return ExitCodeAfterInterrupt(exit_code);
}

}  // namespace

void AddTriageCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<TriageCommandFlags>();
  CLI::App* cmd = app.add_subcommand(
      "triage", "CT triage (Sentinel-X): imaging findings + FHIR record -> priority 1-3 with risk adjustment");
  AddTriageFlags(cmd, &flags->triage);
  cmd->add_option("--fhir", flags->fhir_path, "the patient's FHIR R4 record (Bundle JSON or NDJSON)")->required();
  cmd->add_option("--findings", flags->findings, "the imaging findings text");
  cmd->add_option("--findings-file", flags->findings_file, "read the findings from a file ('-' = stdin)");
  cmd->add_option("--base-priority", flags->base_priority,
                  "1 CRITICAL, 2 HIGH RISK, 3 ROUTINE (default: from the findings by keyword rules)")
      ->check(CLI::Range(1, 3));
  cmd->add_option("--as-of", flags->as_of, "YYYY-MM-DD used as 'now' (default: latest clinical date in the record)");
  cmd->add_option("--out", flags->out_path, "also write the result JSON to this file");
  cmd->add_option("--trace", flags->trace_path, "write the investigation's trace (JSON) to this file");
  cmd->add_flag("-v,--verbose", flags->verbose, "progress on stderr (tool names and timings only)");
  AddStoreFlags(cmd, &flags->store);
  cmd->callback([flags, exit_code] { *exit_code = RunTriageCommand(*flags); });
}

}  // namespace medreact::cli
