// A stored triage run resumed from its last checkpoint. See runs_resume_triage.h.
#include "cli/runs_resume_triage.h"

#include <iostream>

#include "apps/triage/triage_app.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/setting_flags.h"
#include "cli/store_flags.h"

namespace medreact::cli {
namespace {

constexpr char kWho[] = "medreact runs";

int Fail(const std::string& message) {
  std::cerr << kWho << ": " << WithFlagNames(message) << "\n";
  return kExitBadInput;
}

}  // namespace

int ResumeTriageRun(service::RunService& runs, const RunRecord& run, const ModelFlags& model,
                    const RunOutputs& outputs) {
  if (Status s = RunReporter::CheckPaths(outputs); !s.ok()) return Fail(s.message());
  const service::ResumeSpec spec{.model = HasModel(model) ? ModelSettingsOf(model)
                                                          : service::ModelSettings{.api_key = model.api_key}};
  // Every check (the inputs, the checkpoint, the record, the model) before any work.
  Result<std::unique_ptr<service::PreparedTriage>> prepared = runs.PrepareTriageResume(run.id, spec);
  if (!prepared.ok()) {
    std::string message = prepared.status().message();
    if (Result<TriageInputs> inputs = TriageInputsFromJson(run.inputs); inputs.ok() && !inputs->worklist_dir.empty()) {
      message += ": 'medreact worklist " + Printable(inputs->worklist_dir) + " --out " +
                 Printable(inputs->out_dir) + " --resume' (with the same planner flags)";
    }
    return Fail(message);
  }
  // Last: the event log is created only once nothing can be refused any more.
  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
  if (!reporter.ok()) return Fail(reporter.status().message());
  service::TriageResumed resumed =
      runs.RunTriageResume(std::move(*prepared), {.on_event = (*reporter)->sink(),
                                                 .cancel = InstallInterruptHandlers(),
                                                 .warn = [](const std::string& w) {
                                                   std::cerr << kWho << ": " << WithFlagNames(w) << "\n";
                                                 }});
  const TriageOutcome& outcome = resumed.outcome;
  if (resumed.status == "interrupted") {
    std::cerr << kWho << ": the run was interrupted; go on with it with 'medreact runs resume " << run.id << "'\n";
  }
  if (outcome.fell_back) {
    std::cerr << kWho << ": the model never answered (" << outcome.model_failure
              << "); the rules planner decided instead\n";
  }
  int exit_code = outcome.status != RunStatus::kFinished ? kExitRunFailed : kExitOk;
  if (outcome.trace) {
    if (Status s = (*reporter)->WriteTrace(*outcome.trace); !s.ok()) {
      std::cerr << kWho << ": " << WithFlagNames(s.message()) << "\n";
      exit_code = kExitRunFailed;
    }
  }
  std::cout << DumpJson(outcome.result, 2) << "\n";
  if (outcome.status != RunStatus::kFinished) {
    std::cerr << kWho << ": the investigation ended with status '" << RunStatusName(outcome.status)
              << "'; the result uses what it found\n";
  }
  return ExitCodeAfterInterrupt(exit_code);
}

}  // namespace medreact::cli
