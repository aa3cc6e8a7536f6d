// Prompts of the extraction app (seed 002's agentic prompt, adapted): the
// system prompt (role, workflow, rules, how to answer per protocol), the task
// message (label, clinical text, schema), and the validation feedback that
// sends a non-conforming answer back to the model.
//
// One departure from the seed, on purpose: the seed tells the model the label
// is "definitive" and the extraction "must support" it. Here the label is
// context; the model reports what the note supports and says so when the two
// disagree, because an extraction bent to fit a label is not evidence.
#ifndef MEDREACT_APPS_EXTRACT_EXTRACT_PROMPTS_H_
#define MEDREACT_APPS_EXTRACT_EXTRACT_PROMPTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "apps/extract/extract_planner.h"
#include "medreact/json_schema.h"
#include "medreact/model.h"
#include "medreact/status.h"
#include "medreact/tool_registry.h"

namespace medreact {

// How to answer depends on how the model calls tools (its capabilities()).
std::string ExtractionSystemPrompt(ToolCalling tool_calling);

std::string ExtractionTaskMessage(const ExtractionTask& task);

// The corrective message after an answer that did not validate (or held no JSON).
std::string ValidationFeedback(const std::vector<SchemaProblem>& problems);
std::string NoJsonFeedback(const std::string& why);

inline constexpr char kSubmitExtractionTool[] = "submit_extraction";

// `submit_extraction` {json: object, notes?: [string]}: the finishing tool
// (AgentOptions::answer_tool); its result is the JSON, pretty-printed, so the
// answer check reads it like a plain-text answer. Through the text protocol
// its final block is FINAL_JSON (FINAL_ANSWER also read) with an optional
// NOTES line.
Status RegisterSubmitExtraction(ToolRegistry& registry);

// The JSON object in a final answer: strict, then lenient (fences, prose,
// Python literals, trailing commas). InvalidArgument when none is found or it
// is not an object.
Result<Json> ParseExtractionAnswer(std::string_view answer);

}  // namespace medreact

#endif  // MEDREACT_APPS_EXTRACT_EXTRACT_PROMPTS_H_
