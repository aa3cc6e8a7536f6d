// `medreact runs resume RUN_ID` for a stored `triage` run (issue 14): rebuilds
// the triage from the run's inputs (TriageInputs: the record, the findings,
// the base priority, the as-of date, the limits) and its stored model, goes
// on from the run's last checkpoint into the same run id (ResumeTriage), and
// prints the triage result JSON as `medreact triage` does, with the same exit
// codes (0 done, 1 the investigation ended on a limit or error, 2 bad usage).
// A worklist's case is left to `medreact worklist --resume`, which also
// writes its result into the worklist's output folder.
#ifndef MEDREACT_CLI_RUNS_RESUME_TRIAGE_H_
#define MEDREACT_CLI_RUNS_RESUME_TRIAGE_H_

#include <memory>

#include "apps/common/app_runner.h"
#include "cli/model_flags.h"
#include "service/run_service.h"
#include "store/run_store.h"

namespace medreact::cli {

// `run` is a stored triage run the service prepared to resume
// (RunService::PrepareResume: status, app, lease); `model` the resume's model
// flags (used when they name a URL, else the stored model with
// model.api_key); `outputs` its --trace/--events/-v. The service rebuilds and
// runs it (PrepareTriageResume, RunTriageResume); this prints.
int ResumeTriageRun(service::RunService& runs, const RunRecord& run, const ModelFlags& model,
                    const RunOutputs& outputs);

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_RUNS_RESUME_TRIAGE_H_
