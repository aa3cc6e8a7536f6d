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

int ResumeTriageRun(std::shared_ptr<RunStore> store, const RunRecord& run, const ModelFlags& model,
                    const RunOutputs& outputs) {
  Result<TriageInputs> inputs = TriageInputsFromJson(run.inputs);
  if (!inputs.ok()) return Fail("run '" + run.id + "': " + inputs.status().message());
  if (!inputs->worklist_dir.empty()) {
    return Fail("run '" + run.id + "' is case '" + Printable(inputs->case_name) + "' of the worklist '" +
                Printable(inputs->worklist_dir) + "'; go on with it with 'medreact worklist " +
                Printable(inputs->worklist_dir) + " --out " + Printable(inputs->out_dir) +
                " --resume' (and the same planner flags), which also writes its result there");
  }
  Result<std::optional<RunState>> state = store->LatestState(run.id);
  if (!state.ok()) return Fail(state.status().message());
  if (!state->has_value()) return Fail("run '" + run.id + "' has no checkpoint to resume from");

  // The model: the flags (or MEDREACT_LLM_URL) when they name one, else the stored one.
  const ModelFlags model_flags = HasModel(model) ? model : ModelFlagsFromStored(run.model, model.api_key);
  if (!HasModel(model_flags)) return Fail("run '" + run.id + "' has no model URL stored; give --llm-url");
  Result<FhirStore> record = FhirStore::LoadFile(inputs->fhir_path);
  if (!record.ok()) return Fail("run '" + run.id + "': " + record.status().message());
  if (!inputs->as_of.empty()) {
    if (Status s = record->SetAsOf(inputs->as_of); !s.ok()) return Fail("run '" + run.id + "': as_of: " + s.message());
  }
  Result<std::shared_ptr<ChatModel>> chat_model = MakeModel(model_flags);
  if (!chat_model.ok()) return Fail(chat_model.status().message());

  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
  if (!reporter.ok()) return Fail(reporter.status().message());
  TriageConfig config;
  ApplyTriageLimits(*inputs, config);
  config.model = *chat_model;
  config.cancel = InstallInterruptHandlers();
  config.on_event = (*reporter)->sink();
  std::unique_ptr<RunRecorder> recorder = MakeRunRecorder(store, run, std::cerr, kWho, /*resumed=*/true);
  config.on_checkpoint = recorder->Hook();
  config.on_event = recorder->Events(std::move(config.on_event));

  TriageOutcome outcome = ResumeTriage(std::make_shared<const FhirStore>(std::move(record).value()),
                                       TriageCaseOf(*inputs), config, **state);
  if (outcome.model_run) FinishRecordedRun(recorder.get(), *outcome.model_run, std::cerr, kWho);
  // The record was read from its absolute path; the result names it as the triage did.
  outcome.result["record"]["source"] = inputs->record_source;
  if (outcome.fell_back) {
    std::cerr << kWho << ": the model never answered (" << outcome.model_failure
              << "); the rules planner decided instead\n";
  }
  int exit_code = outcome.status != RunStatus::kFinished ? kExitRunFailed : kExitOk;
  if (outcome.trace) {
    if (Status s = (*reporter)->WriteTrace(*outcome.trace); !s.ok()) {
      std::cerr << kWho << ": " << s.message() << "\n";
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
