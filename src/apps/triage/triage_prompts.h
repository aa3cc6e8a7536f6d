// Sentinel-X triage prompts (seed 001, "Prompts"): the system prompt (role,
// tools injected from their specs, the silent-failure patterns, how to
// finish, a one-shot PE example) and the `submit_assessment` finishing tool.
// Every protocol finishes through that tool (AgentOptions::answer_tool): a
// native model calls it, the text protocol's final block (FINAL_ASSESSMENT /
// RISK_ADJUSTMENT / CRITICAL_FINDINGS, derived from its schema) becomes a
// call of it, and the rules planner calls it; so the assessment always
// arrives as its validated arguments.
#ifndef MEDREACT_APPS_TRIAGE_TRIAGE_PROMPTS_H_
#define MEDREACT_APPS_TRIAGE_TRIAGE_PROMPTS_H_

#include <string>
#include <vector>

#include "medreact/json.h"
#include "medreact/model.h"
#include "medreact/status.h"
#include "medreact/tool_registry.h"

namespace medreact {

inline constexpr char kSubmitAssessmentTool[] = "submit_assessment";

// `submit_assessment` {final_assessment, risk_adjustment: INCREASE|DECREASE|NONE,
// critical_findings: [string], and optionally rule, rules_matched, sources
// (what the rules planner reports)}: the finishing tool (set it as
// AgentOptions::answer_tool); its result text is the assessment.
Status RegisterSubmitAssessment(ToolRegistry& registry);

// The system prompt. Native tool calling (and a planner) gets the tool list
// (name and description of each spec) and submit_assessment; the text protocol leaves the
// tool catalogue and response format to the text-protocol adapter, which
// appends them, and shows the example in THOUGHT/TOOL_CALL form.
std::string TriageSystemPrompt(ToolCalling tool_calling, const std::vector<ToolSpec>& tools);

}  // namespace medreact

#endif  // MEDREACT_APPS_TRIAGE_TRIAGE_PROMPTS_H_
