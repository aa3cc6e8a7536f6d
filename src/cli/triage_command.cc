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
#include "cli/runs_resume_apps.h"
#include "cli/setting_flags.h"
#include "cli/store_flags.h"
#include "cli/fhir_flags.h"
#include "cli/triage_flags.h"
#include "core/printable.h"
#include "medreact/trace.h"
#include "service/triage_runs.h"

namespace medreact::cli {
namespace {

struct TriageCommandFlags {
  TriageFlags triage;
  FhirRecordFlags record;
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
  const RunOutputs outputs{.trace_path = flags.trace_path, .result_path = flags.out_path, .verbose = flags.verbose};
  if (Status s = RunReporter::CheckPaths(outputs); !s.ok()) return Fail(s.message());
  const service::TriageSettings settings = TriageSettingsOf(flags.triage);
  auto warn = [](const std::string& w) { std::cerr << "medreact triage: " << PrintableLine(WithFlagNames(w)) << "\n"; };
  // Only a model's investigation is recorded (see the header).
  Result<std::shared_ptr<RunStore>> run_store = std::shared_ptr<RunStore>();
  if (service::TriageIsRecorded(settings)) {
    run_store = OpenStoreForRun(flags.store, warn);
    if (!run_store.ok()) return Fail(run_store.status().message());
  } else if (flags.store.no_store && !flags.store.path.empty()) {
    return Fail("give either --store or --no-store, not both");
  }
  Result<std::string> record = RecordLocator(flags.record, /*required=*/true);
  if (!record.ok()) return Fail(record.status().message());
  service::RunService runs(*run_store);
  // Every check (the findings, the record, the planner and its model) before any work.
  Result<std::unique_ptr<service::PreparedTriage>> prepared =
      service::PrepareTriage(runs, {.fhir_path = *record,
                                    .findings = findings,
                                    .base_priority = flags.base_priority,
                                    .as_of = flags.as_of,
                                    .settings = settings});
  if (!prepared.ok()) return Fail(prepared.status().message());
  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
  if (!reporter.ok()) return Fail(reporter.status().message());
  const service::TriageRan ran = service::RunTriagePrepared(
      runs, std::move(*prepared), {.on_event = (*reporter)->sink(), .cancel = InstallInterruptHandlers(), .warn = warn});
  return ReportTriage(ran, **reporter, flags.triage.require_model, "medreact triage");
}

}  // namespace

void AddTriageCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<TriageCommandFlags>();
  CLI::App* cmd = app.add_subcommand(
      "triage", "CT triage (Sentinel-X): imaging findings + FHIR record -> priority 1-3 with risk adjustment");
  AddTriageFlags(cmd, &flags->triage);
  AddFhirRecordFlags(cmd, &flags->record, "the patient's FHIR R4 record (Bundle JSON or NDJSON)");
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
