// `medreact runs resume` for the apps besides chat (triage, extract): flags →
// the run service (service/triage_runs.h, service/extract_runs.h) →
// printing, as the app's own command prints. Also the printing that
// `medreact extract` shares with its resume.
//
// A triage run: its result JSON as `medreact triage` prints it. A worklist's
// case is refused (its worklist's `--resume` goes on with it and writes its
// result into the worklist's folder). An extract run: the note and schema
// read again from their stored paths (refused when changed), the result
// printed and written to the stored --out path, as `medreact extract` would.
// Exit codes as the app's own command.
#ifndef MEDREACT_CLI_RUNS_RESUME_APPS_H_
#define MEDREACT_CLI_RUNS_RESUME_APPS_H_

#include <string>

#include "apps/common/app_runner.h"
#include "cli/model_flags.h"
#include "service/extract_runs.h"
#include "service/run_service.h"
#include "service/triage_runs.h"
#include "store/run_store.h"

namespace medreact::cli {

// What `runs resume` passes on from its flags.
struct AppResumeFlags {
  ModelFlags model;         // the model flags; a URL here replaces the stored model
  bool verbose = false;     // -v
  bool stream = false;      // --stream
  std::string trace_path;   // --trace
  std::string events_path;  // --events
};

// Resumes a stored triage or extract run that did not end. The caller
// checked it (service::RunService::PrepareResume: status, app, lease).
int ResumeAppRun(service::RunService& runs, const RunRecord& run, const AppResumeFlags& flags);

// What `medreact triage` and `runs resume` print and write after a triage
// (the trace, --out, stdout, the warnings on stderr) and its exit code: 0
// done, 1 the investigation ended on a limit or error, a fallback with
// `require_model`, or an output that could not be written.
int ReportTriage(const service::TriageRan& ran, const RunReporter& reporter, bool require_model,
                 const std::string& who);

// What `medreact extract` prints and writes after the run (trace, --out,
// stdout, the warnings on stderr) and its exit code: 0 valid, 1 not valid, a
// fallback with `require_model`, or an output that could not be written.
int ReportExtraction(const service::ExtractRan& ran, const RunReporter& reporter, bool require_model,
                     const std::string& who);

// A new run id in the engine's form ("run_" + 16 characters), for the runs an
// app records without an Agent of its own (research).
std::string NewRunId();

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_RUNS_RESUME_APPS_H_
