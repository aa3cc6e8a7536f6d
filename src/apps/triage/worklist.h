// The triage worklist: a directory of cases triaged concurrently and sorted
// by final priority, the way a reading list is (seed 001, "Save & Update
// Worklist").
//
// A case is a sub-folder of the worklist directory holding
//   fhir.json (or fhir.ndjson)  the patient's FHIR R4 record
//   findings.txt                the imaging findings
//   case.json (optional)        {"base_priority": 1..3, "as_of": "YYYY-MM-DD",
//                                "description": "...", "expected": {...}}
//   or, instead of the record file, case.json's "fhir_url" and "patient": the
//   record read from a FHIR R4 server (tools/fhir/fhir_rest.h; its auth from
//   the environment, MEDREACT_FHIR_*)
// A broken case (missing or malformed file, blank findings, bad case.json) is
// reported with a precise error and never stops the others.
//
// Output: <case>.json and <case>.trace.json per triaged case and worklist.json
// (sorted), each written atomically as soon as it is known. A case's files
// from an earlier run are removed before it is triaged, and the files of
// cases listed in an earlier worklist.json that are no longer in the list are
// removed at the start, as is the earlier worklist.json itself, so the folder
// never holds a result this run did not vouch for (a stale priority for a
// case that now fails would be dangerous). Cancelling options.triage.cancel
// stops the list: cases not started are reported as failed ("not run: the
// worklist was cancelled").
//
// Durable worklists (issue 14). worklist.state.json in the output folder
// records, as each case's files are written, the digest of what decided it
// (its fhir, findings and case.json bytes, the planner, the model and the
// limits: CaseDigest) for every case whose investigation finished (not on a
// limit, an error or the rules fallback). With options.resume, a case whose
// entry's digest matches and whose <case>.json is there is not triaged again:
// the report (and worklist.json) takes its earlier result, marked skipped; a
// changed case, or one without an entry, is triaged again, its old files
// removed at the start (they are not vouched for any more). With a run store
// (options.store), every case's model investigation is recorded (app
// "triage", its TriageInputs naming the worklist, the case, the output
// folder and the digest), and with options.resume a case whose run was cut
// (killed: left `running`; or interrupted) with the same inputs goes on from
// its last checkpoint instead of starting over. Without a store, --resume
// still skips finished cases; a cut case starts over. The rules planner's
// runs are not recorded (see triage_app.h). Two processes must not run into
// one output folder at once.
//
//   auto names = ListWorklistCases(dir);
//   WorklistReport report = RunWorklist(dir, *names, options);
//   std::cout << RenderWorklistTable(report);
#ifndef MEDREACT_APPS_TRIAGE_WORKLIST_H_
#define MEDREACT_APPS_TRIAGE_WORKLIST_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/triage/triage_app.h"
#include "medreact/json.h"
#include "medreact/status.h"
#include "store/run_store.h"

namespace medreact {

struct WorklistCaseResult {
  std::string name;                         // the case folder's name
  bool ok = false;                          // false: the case could not be triaged (see error)
  std::string error;                        // why, when !ok
  OrderedJson result;                       // the triage result, when ok
  RunStatus status = RunStatus::kFinished;  // the deciding run's status, when ok
  bool fell_back = false;                   // the model never answered; rules decided
  double elapsed_ms = 0;
  std::optional<RunTrace> trace;  // unset for a skipped case (its trace file stays)
  bool skipped = false;           // finished by an earlier run with the same inputs (options.resume)
  bool resumed = false;           // its model run went on from a stored checkpoint
  bool not_run = false;           // the worklist was cancelled before it started (!ok)
};

struct WorklistOptions {
  int concurrency = 4;  // cases triaged at once (>= 1). Default: 4
  // Builds one model per worker (models are used by one thread at a time);
  // null → the rules planner. An error fails the cases that worker takes.
  std::function<Result<std::shared_ptr<ChatModel>>()> make_model;
  TriageConfig triage;  // everything but the model
  // Where to write <case>.json, <case>.trace.json and worklist.json; "" = nowhere.
  std::string out_dir;
  // Called (serialised, from worker threads) as each case finishes.
  std::function<void(const WorklistCaseResult&, size_t done, size_t total)> on_case_done;
  // Skip the cases worklist.state.json says finished with the same digest,
  // and resume cut runs from the store (see above). Default: false
  bool resume = false;
  // Where each case's model investigation is recorded; null = nowhere. Default: null
  std::shared_ptr<RunStore> store;
  // Record every case in `store`, the rules planner's too (stored as it
  // ended: TriageAsEndedRun). Default: false (only a model's investigation)
  bool record_always = false;
  // The model as the store keeps it (never an API key): stored with each run
  // and part of each case's digest. Default: {}
  Json model_identity = Json::object();
  // Warnings: a run store that failed, a state file that could not be read
  // (serialised calls from worker threads). Default: none
  std::function<void(const std::string&)> on_warning;
  // Every case's events with the case's name (the CLI's --events), besides
  // triage.on_event; called from worker threads, not serialised. Default: none
  std::function<void(const std::string& case_name, const Event&)> on_case_event;
  // Stored runs to go on with, by case name (a job queue's job remembers
  // its first attempt's run: a retry or a takeover resumes it from its
  // checkpoint). A run that ended, or is not in `store`, is not resumed: the
  // case starts over. Default: none
  std::map<std::string, std::string> resume_runs;
  // Called (from the case's thread) once a case's model run is stored, with
  // its id: after its first checkpoint, or at once for a resumed run. Default: none
  std::function<void(const std::string& case_name, const std::string& run_id)> on_run_stored;
};

struct WorklistReport {
  std::vector<WorklistCaseResult> cases;  // triaged, sorted; then failed, by name
  std::string planner;                    // PlannerLabel of the options
  double elapsed_ms = 0;
  size_t failed = 0;        // cases that could not be triaged
  size_t not_finished = 0;  // triaged, but the run ended on a limit or error
  size_t skipped = 0;       // finished earlier with the same inputs (options.resume)
  size_t resumed = 0;       // went on from a stored checkpoint
  std::string write_error;  // first output file that could not be written
};

// The case folders of `dir`, sorted by name; `skip` (e.g. the output folder,
// when it lies inside `dir`) is left out. Errors: `dir` missing or not a
// directory, or holding no sub-folder.
Result<std::vector<std::string>> ListWorklistCases(const std::string& dir, const std::string& skip = "");

// The digest of a case's inputs (CaseDigest's "what decided it"): 16 hex
// digits; "" when a file cannot be read (the case is then never skipped).
std::string CaseDigest(const std::string& case_dir, const WorklistOptions& options);

// Triage every case. Never throws; failures are per case.
WorklistReport RunWorklist(const std::string& dir, const std::vector<std::string>& cases,
                           const WorklistOptions& options);

// A case as a job queue carries it from a worker to the waiter:
// {"case", "ok", "error", "status", "fell_back", "resumed", "elapsed_ms",
//  "planner", "digest", "result", "trace"} — the trace as its trace file's JSON
// (null when none).
OrderedJson WorklistCaseToJson(const WorklistCaseResult& c, const std::string& planner, const std::string& digest);
// A case that ran elsewhere, read back (WorklistCaseToJson's shape).
struct FinishedCase {
  WorklistCaseResult result;        // trace unset: its JSON is `trace`
  OrderedJson trace;                // the trace file's JSON; null when none
  std::string digest;               // CaseDigest as the worker computed it; "" unknown
  std::string planner;
};
Result<FinishedCase> WorklistCaseFromJson(const OrderedJson& j);
// A failed case (one that could not be triaged: a dead job) for FinishWorklist.
FinishedCase FailedCase(const std::string& name, const std::string& error);

// Writes a worklist whose cases ran elsewhere (a job queue's workers) into
// `out_dir` exactly as RunWorklist writes a local run's: the earlier run's
// files it does not vouch for removed, <case>.json and <case>.trace.json per
// triaged case, worklist.state.json for the finished ones and worklist.json
// sorted. Returns the report (its write_error set when a file could not be
// written); `out_dir` "" writes nothing.
WorklistReport FinishWorklist(const std::string& out_dir, std::vector<FinishedCase> cases, double elapsed_ms);

// Cases sort by final priority (1 first), then by risk adjustment (INCREASE
// first), base priority and name.
bool WorklistOrder(const WorklistCaseResult& a, const WorklistCaseResult& b);

// {"planner", "elapsed_ms", "counts": {cases, triaged, failed, not_finished,
//  skipped, resumed, by_priority}, "cases": [{case, status, fell_back,
//  skipped, elapsed_ms, result}],
//  "failed": [{case, error}]}
OrderedJson WorklistJson(const WorklistReport& report);

// A readable table: rank, case, patient, base → final, adjustment, critical
// findings; failed cases listed below it with their errors.
std::string RenderWorklistTable(const WorklistReport& report);

}  // namespace medreact

#endif  // MEDREACT_APPS_TRIAGE_WORKLIST_H_
