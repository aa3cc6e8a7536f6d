// The Sentinel-X triage app (seed 001): imaging findings + a patient's FHIR
// record → priority 1..3 with a risk adjustment and the agent's reasoning.
//
//   auto store = std::make_shared<const FhirStore>(*FhirStore::LoadFile(path));
//   TriageConfig config;                      // model null → the rules planner
//   TriageOutcome out = RunTriage(store, {.findings = text}, config);
//   WriteJsonFile(out.result, "result.json");
//
// Steps: base priority (given, or by keyword rules from the findings); unless
// `agent` is false (--no-agent, the static baseline), an Agent investigates
// the record with the fhir pack — through the configured model (native tool
// calling with submit_assessment, or the text protocol's final block) or the
// deterministic rules planner; the assessment is normalised and the risk
// adjustment applied and clamped to 1..3. When a configured model never
// answers (unreachable, refused, every call failed), the rules planner decides
// instead and the result says so. The task message is the findings alone.
//
// Durable runs (issue 14): TriageConfig::on_checkpoint receives the model's
// investigation's checkpoints (a run store's RunRecorder plugs in there),
// TriageOutcome::model_run is that run as it ended (for the recorder's
// Finish), and ResumeTriage goes on from a stored checkpoint to the result
// the uninterrupted triage would have given. TriageInputs is what a store
// keeps to rebuild a triage. The rules planner's runs are not checkpointed:
// they are deterministic and local, so a cut one is simply run again.
#ifndef MEDREACT_APPS_TRIAGE_TRIAGE_APP_H_
#define MEDREACT_APPS_TRIAGE_TRIAGE_APP_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "medreact/agent.h"
#include "medreact/json.h"
#include "medreact/model.h"
#include "medreact/run_state.h"
#include "tools/fhir/fhir_store.h"

namespace medreact {

struct TriageCase {
  std::string findings;              // the imaging findings; must not be blank
  std::optional<int> base_priority;  // 1..3; unset = from the findings by keyword
};

struct TriageConfig {
  // The model; null = the rules planner. A text-protocol model must be built
  // with TriageTextProtocolOptions() so its final block is read. Each run uses
  // it from one thread at a time.
  std::shared_ptr<ChatModel> model;
  bool agent = true;                        // false: skip the loop (static baseline). Default: true
  bool fallback_to_rules = true;            // model never answered → rules planner. Default: true
  int max_steps = 10;                       // the rules planner needs 8 at most. Default: 10
  Millis timeout{300'000};                  // the whole investigation. Default: 5 min
  Millis tool_timeout{30'000};              // Default: 30 s
  std::optional<double> temperature = 0.0;  // seed 001: deterministic tool calls
  std::optional<int> max_tokens;            // Default: unset (server default)
  bool stream = false;
  EventSink on_event;  // events of every run (model and fallback)
  // Stops the investigation when cancelled (Ctrl-C); a cancelled run is
  // never handed to the rules planner. Default: a fresh token.
  CancellationToken cancel;
  // The model's investigation's checkpoints (AgentOptions::on_checkpoint),
  // for a run store; never called for the rules planner's run (a fallback's
  // included). Default: none
  std::function<void(const RunState&)> on_checkpoint;
};

struct TriageOutcome {
  // The contract (patient_id, priority_level, base_priority, rationale,
  // visual_findings, findings_summary, agent_reasoning{...}) followed by
  // "planner" ("rules", "model", "rules (fallback)", "none") and "record"
  // {source, as_of, as_of_source, warnings}.
  OrderedJson result;
  bool agent_ran = false;
  RunStatus status = RunStatus::kFinished;  // the deciding run's status
  bool fell_back = false;                   // the model never answered; rules decided
  std::string model_failure;                // why, when fell_back
  std::optional<RunTrace> trace;            // the deciding run
  std::optional<RunTrace> model_trace;      // the failed model run, when fell_back
  // The model's investigation as it ended (without its conversation), when
  // a model ran: what a run store records as the run's end.
  std::optional<RunResult> model_run;
};

// A triage no model investigated (the rules planner, or the base priority
// alone) as a run that ended, for a run store that records every triage:
// its status, the result as its answer and final fields, its trace (a run
// id minted when it has none), steps, tool calls and usage.
RunResult TriageAsEndedRun(const TriageOutcome& outcome);

// REQUIRES: store non-null, case_.findings not blank, base_priority in 1..3
// when set (callers validate input and report it as bad input).
TriageOutcome RunTriage(std::shared_ptr<const FhirStore> store, const TriageCase& case_, const TriageConfig& config);

// Goes on with a triage whose model investigation was cut (killed, or
// interrupted) from its checkpoint `state` (Agent::Resume), and ends as the
// uninterrupted RunTriage would have: the same result JSON, and the rules
// planner deciding when the model never answered. The config must be the
// one the triage started with (the model and the limits); its
// on_checkpoint goes on receiving the run's checkpoints.
// REQUIRES: as RunTriage, config.agent and config.model set.
TriageOutcome ResumeTriage(std::shared_ptr<const FhirStore> store, const TriageCase& case_, const TriageConfig& config,
                           const RunState& state);

// The planner label for `config`: "none", "rules" or "model".
std::string PlannerLabel(const TriageConfig& config);

// What rebuilds a triage run for a resume (the run store's inputs, issue
// 14): the record's path (made absolute, so a resume from another folder
// finds it), the findings, the base priority, the as-of date and the
// investigation's limits. A worklist's case also names its worklist, case
// folder, output folder and the digest of the case's inputs, so that
// `worklist --resume` finds it (and `runs resume` leaves it to the
// worklist). The model is stored apart; no API key is here.
struct TriageInputs {
  std::string fhir_path;             // the patient's record (made absolute)
  std::string record_source;         // the record's path as the user gave it: the result's record.source
  std::string findings;              // the imaging findings (the task)
  std::optional<int> base_priority;  // 1..3; unset = from the findings
  std::string as_of;                 // YYYY-MM-DD; "" = the record's latest date
  // The investigation's limits, as TriageConfig's (and with its defaults).
  int max_steps = 10;                       // Default: 10
  Millis timeout{300'000};                  // Default: 5 min
  Millis tool_timeout{30'000};              // Default: 30 s
  std::optional<double> temperature = 0.0;  // Default: 0
  std::optional<int> max_tokens;            // Default: unset
  bool fallback_to_rules = true;            // Default: true
  // Set for a worklist's case only ("" otherwise).
  std::string worklist_dir;  // the worklist folder (made absolute)
  std::string case_name;     // the case's folder name in it
  std::string out_dir;       // the worklist's --out (made absolute)
  std::string digest;        // CaseDigest (worklist.h) of the case when it ran
};
// The inputs of a triage with `config` (its limits) and `case_` on the record at `fhir_path`.
TriageInputs MakeTriageInputs(const std::string& fhir_path, const std::string& as_of, const TriageCase& case_,
                              const TriageConfig& config);
Json TriageInputsToJson(const TriageInputs& inputs);
// InvalidArgument naming the field when `json` is not a triage run's inputs.
Result<TriageInputs> TriageInputsFromJson(const Json& json);
// The case and the config's limits (not its model, hooks or token) the inputs describe.
TriageCase TriageCaseOf(const TriageInputs& inputs);
void ApplyTriageLimits(const TriageInputs& inputs, TriageConfig& config);

}  // namespace medreact

#endif  // MEDREACT_APPS_TRIAGE_TRIAGE_APP_H_
