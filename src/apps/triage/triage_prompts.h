// Sentinel-X triage prompts and the shapes a model's assessment may take
// (seed 001, "Prompts"): the system prompt (role, tools injected from their
// specs, the silent-failure patterns, how to finish, a one-shot PE example),
// the text protocol's final block (FINAL_ASSESSMENT / RISK_ADJUSTMENT /
// CRITICAL_FINDINGS), the `submit_assessment` finishing tool for native tool
// calling, and NormalizeAssessment, which turns any of the three ways an
// assessment arrives (finishing-tool arguments, text-protocol fields keyed by
// marker, the rules planner's fields, or a plain-text reply holding the final
// block) into one shape.
#ifndef MEDREACT_APPS_TRIAGE_TRIAGE_PROMPTS_H_
#define MEDREACT_APPS_TRIAGE_TRIAGE_PROMPTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "medreact/json.h"
#include "medreact/model.h"
#include "medreact/status.h"
#include "medreact/text_protocol.h"
#include "medreact/tool_registry.h"

namespace medreact {

inline constexpr char kSubmitAssessmentTool[] = "submit_assessment";

// FINAL_ASSESSMENT as the taught final marker (FINAL_ANSWER also accepted),
// RISK_ADJUSTMENT and CRITICAL_FINDINGS (JSON list) as final fields.
TextProtocolOptions TriageTextProtocolOptions();

// `submit_assessment` {final_assessment, risk_adjustment: INCREASE|DECREASE|NONE,
// critical_findings: [string]}: a finishing tool (list it in
// AgentOptions::finish_tools); its result text is the assessment.
Status RegisterSubmitAssessment(ToolRegistry& registry);

// The system prompt. Native tool calling (and a planner) gets the tool list
// (name and description of each spec) and submit_assessment; the text protocol leaves the
// tool catalogue and response format to the text-protocol adapter, which
// appends them, and shows the example in THOUGHT/TOOL_CALL form.
std::string TriageSystemPrompt(ToolCalling tool_calling, const std::vector<ToolSpec>& tools);

// {"final_assessment": string, "risk_adjustment": "INCREASE"|"DECREASE"|"NONE",
//  "critical_findings": [string], ...other fields kept, keys lower-cased}.
// Reads `fields` (any key case); when it lacks a risk adjustment, looks for a
// final block in `answer` (a model that answered in prose). An unknown or
// missing adjustment is "NONE"; critical findings given as one string become
// a one-item list (or the list it spells, if it is JSON); final_assessment
// falls back to `answer`.
Json NormalizeAssessment(const Json& fields, std::string_view answer);

}  // namespace medreact

#endif  // MEDREACT_APPS_TRIAGE_TRIAGE_PROMPTS_H_
