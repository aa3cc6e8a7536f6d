// Triage runs in the run service (seed 001): one patient's triage started,
// recorded and resumed, and a worklist of them prepared and run — the same
// checks and the same recording for every front end (the CLI's `triage`,
// `worklist` and `runs resume` now; the server next).
//
//   RunService service(store);
//   Result<std::unique_ptr<PreparedTriage>> p = PrepareTriage(service, {.fhir_path = f, .findings = t});
//   TriageRan r = RunTriagePrepared(service, std::move(*p), hooks);   // r.outcome.result: the contract JSON
//
// Only a model's investigation is recorded: the rules planner is
// deterministic, local and takes milliseconds, so a cut one is simply run
// again (TriageIsRecorded says which, before a front end opens a store).
#ifndef MEDREACT_SERVICE_TRIAGE_RUNS_H_
#define MEDREACT_SERVICE_TRIAGE_RUNS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/triage/triage_app.h"
#include "apps/triage/worklist.h"
#include "service/run_service.h"

namespace medreact::service {

// Who investigates a triage and within which limits (one triage and every
// case of a worklist).
struct TriageSettings {
  std::string planner = "auto";  // model | rules | auto (the model when its URL is set)
  bool agent = true;             // false: the base priority only, no investigation
  int max_steps = 10;            // model turns per investigation. Default: 10
  double timeout_s = 300;        // one investigation. Default: 300 s
  double tool_timeout_s = 30;    // one tool call. Default: 30 s
  ModelSettings model;
  // Record the triage whatever decides it: the rules planner's run, or the
  // base priority alone (no agent), is stored as it ended (a row with its
  // result, no checkpoint: it takes milliseconds and is run again rather
  // than resumed). A server needs every run stored. Default: false (only a
  // model's investigation is recorded)
  bool record_always = false;
};

// The settings checked: the limits, and one model per run or worker when the
// model investigates (make_model empty: the rules planner, or no agent).
struct TriagePlan {
  TriageConfig config;  // limits and agent; model unset
  std::function<Result<std::shared_ptr<ChatModel>>()> make_model;
  Json stored_model = Json::object();  // StoredModel of the settings when a model investigates
};
// InvalidArgument naming the setting: the planner `model` without a URL, a
// bad URL or protocol (the model is built once here to check it). The
// plan's make_model builds through `service`, which must outlive it (and a
// PreparedWorklist holding it).
Result<TriagePlan> PlanTriage(const RunService& service, const TriageSettings& settings);
// Whether a triage with these settings is recorded (a model investigates,
// or record_always): a front end opens a store only then.
bool TriageIsRecorded(const TriageSettings& settings);

// One triage to start.
struct TriageStart {
  std::string fhir_path;             // the patient's FHIR R4 record (Bundle JSON or NDJSON), as the user gave it
  std::string findings;              // the imaging findings
  std::optional<int> base_priority;  // 1..3; unset: from the findings
  std::string as_of;                 // YYYY-MM-DD used as now; "": the record's latest clinical date
  TriageSettings settings;
};

// A triage checked and assembled, ready to run: a new one (PrepareTriage,
// `run.id` empty, no state) or a stored one to go on with
// (PrepareTriageResume, its last checkpoint in `state`).
struct PreparedTriage {
  RunRecord run;
  TriageInputs inputs;
  std::optional<RunState> state;
  std::shared_ptr<const FhirStore> record;
  TriageConfig config;  // limits, agent and model
  bool record_always = false;  // TriageSettings::record_always
};

// What a triage gives: the triage's outcome (its result JSON, the model run,
// the trace) and the run as stored.
struct TriageRan {
  TriageOutcome outcome;
  std::string run_id;  // "" when not recorded
  std::string status;  // the stored status (finished, interrupted, error, ...); the run's status when not stored
  bool stored = false;
};

// Every check of a triage before any work: the findings (not blank), the
// base priority (1..3), the record (read and parsed), the as-of date, the
// planner and its model.
Result<std::unique_ptr<PreparedTriage>> PrepareTriage(const RunService& service, TriageStart start);
// Runs a prepared triage (new or resumed) to its end, recording a model's
// investigation (any triage with record_always) when the service has a store.
TriageRan RunTriagePrepared(RunService& service, std::unique_ptr<PreparedTriage> prepared, const RunHooks& hooks);

// A stored triage run (after RunService::PrepareResume): every check and every
// input read again (the inputs, its checkpoint, the record, the model) before
// any work. FailedPrecondition for a worklist's case (its worklist's resume
// goes on with it and writes its result there).
Result<std::unique_ptr<PreparedTriage>> PrepareTriageResume(const RunService& service, const std::string& run_id,
                                                            const ResumeSpec& spec);

// A worklist to run: every case folder (fhir.json, findings.txt [, case.json]) of `dir`.
struct WorklistStart {
  std::string dir;
  std::string out_dir;   // where results go (created); "" = nowhere
  int concurrency = 4;   // cases at once (1..64)
  bool resume = false;   // go on with an earlier run into the same out_dir (worklist.h)
  TriageSettings settings;
};
struct PreparedWorklist {
  std::string dir;
  std::vector<std::string> cases;
  WorklistOptions options;  // the front end adds on_case_done and on_case_event
};
// Every check before any case runs: the cases, the output folder (created,
// writable), `resume` with an output folder, the planner and its model.
Result<std::unique_ptr<PreparedWorklist>> PrepareWorklist(const RunService& service, WorklistStart start);
// Runs a prepared worklist, each case's model investigation recorded in the
// service's store; `hooks.cancel` stops it, `hooks.warn` gets its warnings.
WorklistReport RunWorklistPrepared(RunService& service, std::unique_ptr<PreparedWorklist> prepared,
                                   const RunHooks& hooks);

}  // namespace medreact::service

#endif  // MEDREACT_SERVICE_TRIAGE_RUNS_H_
