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
#ifndef MEDREACT_APPS_TRIAGE_TRIAGE_APP_H_
#define MEDREACT_APPS_TRIAGE_TRIAGE_APP_H_

#include <memory>
#include <optional>
#include <string>

#include "medreact/agent.h"
#include "medreact/json.h"
#include "medreact/model.h"
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
  bool agent = true;              // false: skip the loop (static baseline). Default: true
  bool fallback_to_rules = true;  // model never answered → rules planner. Default: true
  int max_steps = 10;             // the rules planner needs 8 at most. Default: 10
  Millis timeout{300'000};        // the whole investigation. Default: 5 min
  Millis tool_timeout{30'000};    // Default: 30 s
  std::optional<double> temperature = 0.0;  // seed 001: deterministic tool calls
  std::optional<int> max_tokens;            // Default: unset (server default)
  bool stream = false;
  EventSink on_event;             // events of every run (model and fallback)
  // Stops the investigation when cancelled (Ctrl-C); a cancelled run is
  // never handed to the rules planner. Default: a fresh token.
  CancellationToken cancel;
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
};

// REQUIRES: store non-null, case_.findings not blank, base_priority in 1..3
// when set (callers validate input and report it as bad input).
TriageOutcome RunTriage(std::shared_ptr<const FhirStore> store, const TriageCase& case_,
                        const TriageConfig& config);

// The planner label for `config`: "none", "rules" or "model".
std::string PlannerLabel(const TriageConfig& config);

}  // namespace medreact

#endif  // MEDREACT_APPS_TRIAGE_TRIAGE_APP_H_
