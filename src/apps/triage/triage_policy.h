// Triage policy: the pure, model-free parts of Sentinel-X triage (seed 001).
//
//   std::string why;
//   int base = BasePriorityFromFindings(findings, &why);      // 1..3 by keyword
//   int final = ApplyRiskAdjustment(base, "INCREASE");         // 1 CRITICAL .. 3 ROUTINE
//   Json out = BuildTriageResult(patient_id, findings, base, why, &run_result);
//
// Priorities follow the seed: 1 CRITICAL, 2 HIGH RISK, 3 ROUTINE. A lower
// number is more urgent, so INCREASE (more urgent) subtracts one and DECREASE
// adds one, clamped to 1..3. Findings are read by FindingsReader
// (findings_reader.h): terms anchored at word starts (stems such as "embol"
// match "embolism" and "emboli"), negated and hypothetical mentions skipped
// ("no pulmonary embolism", "negative for DVT", "PE ruled out", "rule out
// PE"), hedged ones kept ("possible PE"), chronic and historical ones read as
// such ("chronic, organized thrombus", "history of PE"). Every function here
// is pure and thread-safe.
#ifndef MEDREACT_APPS_TRIAGE_TRIAGE_POLICY_H_
#define MEDREACT_APPS_TRIAGE_TRIAGE_POLICY_H_

#include <string>
#include <string_view>
#include <vector>

#include "medreact/agent.h"
#include "medreact/json.h"

namespace medreact {

inline constexpr int kPriorityCritical = 1;
inline constexpr int kPriorityHighRisk = 2;
inline constexpr int kPriorityRoutine = 3;

// True when `term` (a word stem, or a whole word when three letters or fewer:
// "pe", "dvt", "cta") occurs in `text` at a word start in a mention that is
// neither negated nor only asked about (FindingsReader: NegEx-style triggers
// before and after the term within its clause, pseudo-negations such as "no
// change in" and "cannot be excluded" masked; "non-contrast" negates
// "contrast"). Temporality is not looked at: "chronic PE" is affirmed.
bool MentionsAffirmed(std::string_view text, std::string_view term);

// The first of `terms` (in list order) that MentionsAffirmed, or "" when none.
std::string FirstAffirmed(std::string_view text, const std::vector<std::string>& terms);

// Base priority from the findings text by explicit rules (triage_policy.cc):
// 1 for immediately life-threatening findings, 2 for urgent ones, 3
// otherwise; the most urgent tier any affirmed mention earns. A finding
// stated chronic takes its chronic tier (chronic PE or infarct: 3; chronic
// subdural hematoma: 2), a known/unchanged one is never 1, a historical one
// counts for nothing, a hedged one counts as present. `why` (may be null)
// receives a one-line rationale naming the keyword and how it was read.
int BasePriorityFromFindings(std::string_view findings, std::string* why);

// INCREASE -1, DECREASE +1, anything else 0 (case-insensitive), clamped to
// 1..3. A base outside 1..3 is clamped first.
int ApplyRiskAdjustment(int base, std::string_view adjustment);

// "CRITICAL", "HIGH RISK", "ROUTINE"; "UNKNOWN" outside 1..3.
std::string PriorityName(int priority);

// The triage result contract, keys in the contract's order: {patient_id, priority_level, base_priority,
// rationale, visual_findings, findings_summary, agent_reasoning{iterations,
// tools_used, critical_findings, risk_adjustment, final_assessment, errors},
// needs_review, review_reasons}.
// `run` null means the agent was skipped (--no-agent): priority_level is the
// base, agent_reasoning has iterations 0, empty lists and null
// risk_adjustment/final_assessment/errors. With a run, risk_adjustment comes
// from run->final_fields["risk_adjustment"] ("NONE" when absent or invalid),
// final_assessment from run->final_fields["final_assessment"] or the answer,
// tools_used lists every call in order, and errors lists the run's error,
// model failures, unusable replies and failed tool calls, or is null.
// The safety floor (safety_floor.h) applies to the adjusted priority: a
// DECREASE below an acute critical finding without supporting tool evidence
// is held at the reader's level; needs_review is true and review_reasons says
// why when the floor held, when critical_findings name what no tool returned,
// or when the findings hold a non-diagnostic segment.
OrderedJson BuildTriageResult(std::string_view patient_id, std::string_view findings, int base_priority,
                       std::string_view base_rationale, const RunResult* run);

}  // namespace medreact

#endif  // MEDREACT_APPS_TRIAGE_TRIAGE_POLICY_H_
