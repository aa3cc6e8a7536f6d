// `medreact triage`: one patient's imaging findings + FHIR record → priority
// 1..3 with a risk adjustment and the agent's reasoning (seed 001). The result
// JSON goes to stdout and, with --out, to a file; --trace writes the run.
// Progress (-v) shows tool names and timings only.
#include <iostream>

#include "apps/common/app_runner.h"
#include "apps/triage/triage_app.h"
#include "cli/cli_io.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
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
};

int Fail(const std::string& message) {
  std::cerr << "medreact triage: " << message << "\n";
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
  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
  if (!reporter.ok()) return Fail(reporter.status().message());
  config.on_event = (*reporter)->sink();

  TriageOutcome outcome = RunTriage(std::make_shared<const FhirStore>(std::move(store).value()),
                                    {.findings = findings, .base_priority = flags.base_priority}, config);
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
  cmd->callback([flags, exit_code] { *exit_code = RunTriageCommand(*flags); });
}

}  // namespace medreact::cli
