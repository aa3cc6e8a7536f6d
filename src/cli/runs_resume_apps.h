// The run store for `medreact extract`, `cxr` and `research` (issue 14): what
// `medreact runs resume` does with their runs, and the parts of recording
// and output that the commands share with their resume.
//
// extract resumes: its one agent run goes on from its last checkpoint (the
// note and schema read again from their stored paths, refused when their
// digest changed), and the result is printed, and written to the stored
// --out path, exactly as `medreact extract` would. research is recorded
// (row, steps, status, result) but not resumed: the run service's app table
// (service/app_table.h) refuses it saying why. (cxr: runs_resume_cxr.h.)
#ifndef MEDREACT_CLI_RUNS_RESUME_APPS_H_
#define MEDREACT_CLI_RUNS_RESUME_APPS_H_

#include <memory>
#include <ostream>
#include <string>

#include "apps/common/app_runner.h"
#include "apps/extract/extract_app.h"
#include "cli/model_flags.h"
#include "store/run_recorder.h"
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

// Resumes a stored extract run that did not end. The caller checked it
// (service::RunService::PrepareResume: status, app, lease). Exit codes as
// the app's own command.
int ResumeAppRun(const std::shared_ptr<RunStore>& store, const RunRecord& run, const AppResumeFlags& flags);

// Records the end of an extraction's row: the final status (interrupted
// when a signal stopped it), the first agent run's steps, and as result the
// extraction's JSON (answer and final_fields) with its validity.
void FinishRecordedExtraction(RunRecorder* recorder, const ExtractionOutcome& outcome, std::ostream& err,
                              const std::string& who);

// What `medreact extract` prints and writes after the run (trace, --out,
// stdout, the warnings on stderr) and its exit code (before the interrupt
// rule): 0 valid, 1 not valid, a fallback with `require_model`, or an
// output that could not be written.
int ReportExtraction(const ExtractionOutcome& outcome, const RunReporter& reporter, bool require_model,
                     const std::string& who);

// A path as the user gave it, made absolute (lexically: the file may be gone
// by the time a resume reads it, which then fails naming it); "" and "-"
// stay as they are.
std::string AbsoluteInputPath(const std::string& path);

// A new run id in the engine's form ("run_" + 16 characters), for the runs an
// app records without an Agent of its own (research).
std::string NewRunId();

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_RUNS_RESUME_APPS_H_
