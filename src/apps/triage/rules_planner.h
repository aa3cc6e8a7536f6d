// The deterministic clinical planner (`--planner rules`): a ChatModel that is
// not a language model. Each Complete() reads the conversation — the imaging
// findings in the user message, the planner's earlier tool calls and their
// results — and returns the next assistant turn: the next fhir tool call(s)
// still needed by the rules that match the findings, or a final answer.
//
// Rules (each cited in rules_planner.cc): a new PE/DVT/thrombus on an active
// anticoagulant → anticoagulation failure; a new stroke/TIA on an active
// antiplatelet or anticoagulant → antiplatelet/anticoagulation failure;
// tachycardic cardiac finding on an active beta-blocker → rate-control
// failure; intracranial or major bleeding (a chronic subdural hematoma
// included) on an anticoagulant or antiplatelet → INCREASE; a contrast study
// → renal function reported; no rule → NONE. "New" is what FindingsReader
// reads as acute, subacute or undated: a chronic, organized, known or
// historical clot or infarct triggers no failure rule, and the assessment
// says so. Only an order with status "active" (the tools'
// is_currently_active) counts.
//
// The final turn is a call of `submit_assessment` {"final_assessment": text,
// "risk_adjustment": "INCREASE"|"DECREASE"|"NONE", "critical_findings": [...],
// "rule": id, "rules_matched": [...], "sources": [...]}, which the agent
// validates and ends the run with, as it does a model's. Tool errors are noted, never fatal. It never repeats a call with
// the same arguments and answers by its 8th turn (it batches the remaining
// calls from its 5th turn on). Deterministic; no state between calls, so one
// instance may serve many runs (not concurrently).
#ifndef MEDREACT_APPS_TRIAGE_RULES_PLANNER_H_
#define MEDREACT_APPS_TRIAGE_RULES_PLANNER_H_

#include <memory>

#include "medreact/model.h"

namespace medreact {

// name() "rules-planner", protocol() "rules".
std::unique_ptr<ChatModel> MakeTriageRulesPlanner();

}  // namespace medreact

#endif  // MEDREACT_APPS_TRIAGE_RULES_PLANNER_H_
