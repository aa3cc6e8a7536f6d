// `medreact runs resume` for triage and extract runs. See runs_resume_apps.h.
#include "cli/runs_resume_apps.h"

#include <iostream>

#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/setting_flags.h"
#include "cli/triage_flags.h"
#include "core/printable.h"
#include "medreact/message.h"
#include "service/triage_runs.h"

namespace medreact::cli {
namespace {

constexpr char kWho[] = "medreact runs";

int Fail(const std::string& message) {
  std::cerr << kWho << ": " << WithFlagNames(message) << "\n";
  return kExitBadInput;
}

void Warn(const std::string& w) { std::cerr << kWho << ": " << PrintableLine(WithFlagNames(w)) << "\n"; }

service::ResumeSpec SpecOf(const AppResumeFlags& flags) {
  return {.model = HasModel(flags.model) ? ModelSettingsOf(flags.model)
                                         : service::ModelSettings{.api_key = flags.model.api_key},
          .stream = flags.stream};
}

int ResumeTriage(service::RunService& runs, const RunRecord& run, const AppResumeFlags& flags) {
  const RunOutputs outputs{.trace_path = flags.trace_path, .events_path = flags.events_path,
                           .verbose = flags.verbose, .stream = flags.stream};
  if (Status s = RunReporter::CheckPaths(outputs); !s.ok()) return Fail(s.message());
  // Every check (the inputs, the checkpoint, the record, the model) before any work.
  Result<std::unique_ptr<service::PreparedTriage>> prepared = service::PrepareTriageResume(runs, run.id, SpecOf(flags));
  if (!prepared.ok()) {
    std::string message = prepared.status().message();
    if (Result<TriageInputs> inputs = TriageInputsFromJson(run.inputs); inputs.ok() && !inputs->worklist_dir.empty()) {
      message += ": 'medreact worklist " + PrintableLine(inputs->worklist_dir) + " --out " +
                 PrintableLine(inputs->out_dir) + " --resume' (with the same planner flags)";
    }
    return Fail(message);
  }
  // Last: the event log is created only once nothing can be refused any more.
  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
  if (!reporter.ok()) return Fail(reporter.status().message());
  const service::TriageRan ran = service::RunTriagePrepared(
      runs, std::move(*prepared), {.on_event = (*reporter)->sink(), .cancel = InstallInterruptHandlers(), .warn = Warn});
  return ReportTriage(ran, **reporter, /*require_model=*/false, kWho);
}

int ResumeExtract(service::RunService& runs, const RunRecord& run, const AppResumeFlags& flags) {
  // Every check (the note and schema read again, the corpus, the model, the checkpoint) before any work.
  Result<std::unique_ptr<service::PreparedExtract>> prepared =
      service::PrepareExtractResume(runs, run.id, SpecOf(flags));
  if (!prepared.ok()) return Fail(prepared.status().message());
  const RunOutputs outputs{.trace_path = flags.trace_path,
                           .events_path = flags.events_path,
                           .result_path = (*prepared)->inputs.out_path,
                           .verbose = flags.verbose,
                           .stream = flags.stream};
  if (Status s = RunReporter::CheckPaths(outputs); !s.ok()) return Fail(s.message());
  for (const std::string& w : (*prepared)->warnings) Warn(w);
  const bool require_model = (*prepared)->inputs.require_model;
  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
  if (!reporter.ok()) return Fail(reporter.status().message());
  Result<service::ExtractRan> ran = service::RunExtractPrepared(
      runs, std::move(*prepared), {.on_event = (*reporter)->sink(), .cancel = InstallInterruptHandlers(), .warn = Warn});
  if (!ran.ok()) return Fail(ran.status().message());
  return ReportExtraction(*ran, **reporter, require_model, kWho);
}

// The run's files and stdout, as every app's command writes them: the
// trace (when there is one), the result (--out) and the result on stdout.
// False when a file could not be written (said on stderr).
bool WriteRunOutputs(const RunReporter& reporter, const RunTrace* trace, const std::string& result_text,
                     const std::string& who) {
  bool ok = true;
  // WriteTrace names a failed event log too; without a trace, ask it alone.
  if (Status s = trace ? reporter.WriteTrace(*trace) : reporter.EventsStatus(); !s.ok()) {
    std::cerr << who << ": " << WithFlagNames(s.message()) << "\n";
    ok = false;
  }
  if (Status s = reporter.WriteResult(result_text); !s.ok()) {
    std::cerr << who << ": " << WithFlagNames(s.message()) << "\n";
    ok = false;
  }
  std::cout << Printable(result_text);  // JSON; record and model text in its strings
  return ok;
}

void SayInterrupted(const std::string& status, bool stored, const std::string& run_id, const std::string& who) {
  if (stored && status == "interrupted") {
    std::cerr << who << ": the run was interrupted; go on with it with 'medreact runs resume " << run_id << "'\n";
  }
}

}  // namespace

int ResumeAppRun(service::RunService& runs, const RunRecord& run, const AppResumeFlags& flags) {
  if (run.app == "triage") return ResumeTriage(runs, run, flags);
  if (run.app == "extract") return ResumeExtract(runs, run, flags);
  return Fail("resuming a '" + PrintableLine(run.app) + "' run is not supported here");
}

std::string NewRunId() { return "run_" + MintToolCallId().substr(5, 16); }

int ReportTriage(const service::TriageRan& ran, const RunReporter& reporter, bool require_model,
                 const std::string& who) {
  const TriageOutcome& outcome = ran.outcome;
  SayInterrupted(ran.status, ran.stored, ran.run_id, who);
  if (outcome.fell_back) {
    std::cerr << who << ": the model never answered (" << PrintableLine(outcome.model_failure)
              << "); the rules planner decided instead\n";
  }
  const bool unfinished = outcome.agent_ran && outcome.status != RunStatus::kFinished;
  int exit_code = unfinished ? kExitRunFailed : kExitOk;
  if (outcome.fell_back && require_model) exit_code = kExitRunFailed;
  if (!WriteRunOutputs(reporter, outcome.trace ? &*outcome.trace : nullptr, DumpJson(outcome.result, 2) + "\n",
                       who)) {
    exit_code = kExitRunFailed;
  }
  if (unfinished) {
    std::cerr << who << ": the investigation ended with status '" << RunStatusName(outcome.status)
              << "'; the result uses what it found\n";
  }
  return ExitCodeAfterInterrupt(exit_code);
}

int ReportExtraction(const service::ExtractRan& ran, const RunReporter& reporter, bool require_model,
                     const std::string& who) {
  const ExtractionOutcome& outcome = ran.outcome;
  SayInterrupted(ran.status, ran.stored, ran.run_id, who);
  if (outcome.fell_back) {
    std::cerr << who << ": the model never answered (" << PrintableLine(outcome.model_failure)
              << "); the offline planner extracted instead\n";
  }
  int exit_code = outcome.valid ? kExitOk : kExitRunFailed;
  if (outcome.fell_back && require_model) exit_code = kExitRunFailed;
  if (!WriteRunOutputs(reporter, &outcome.trace, DumpJson(outcome.result, 2) + "\n", who)) exit_code = kExitRunFailed;
  if (!outcome.valid) {
    std::cerr << who
              << ": the answer does not validate against the schema; the best partial result "
                 "and its problems are in 'validation_errors'\n";
  }
  return ExitCodeAfterInterrupt(exit_code);
}

}  // namespace medreact::cli
