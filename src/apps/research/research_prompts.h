// What each agent of the research team is told: its system prompt and its
// task message. A task message is prose for a model followed by one line
// "CONTEXT_JSON: {...}" holding the same facts as JSON (the question, the
// instruction, the evidence with reference numbers, the last judgement...),
// which the rules planner reads instead of the prose (ReadTaskContext).
#ifndef MEDREACT_APPS_RESEARCH_RESEARCH_PROMPTS_H_
#define MEDREACT_APPS_RESEARCH_RESEARCH_PROMPTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "medreact/json.h"
#include "medreact/message.h"
#include "tools/literature/evidence.h"

namespace medreact {

inline constexpr char kContextMarker[] = "CONTEXT_JSON: ";

// The question's key terms: lower-case words of letters, digits and '-',
// English question and filler words dropped (kStopWords in the .cc), each
// once, in order. "Does pembrolizumab improve survival in melanoma?" →
// {"pembrolizumab", "improve", "survival", "melanoma"}.
std::vector<std::string> KeyTerms(std::string_view question);
// KeyTerms joined by spaces (the rules planners' search query).
std::string KeyTermQuery(std::string_view question);

std::string ManagerSystemPrompt();
std::string SearchSystemPrompt();
std::string JudgeSystemPrompt();
std::string HypothesisSystemPrompt();
std::string ReportSystemPrompt();

// One evidence record as the agents see it: {"ref","id","type","source",
// "year","peer_reviewed","title","abstract"(first 400 bytes)}.
Json EvidenceContext(int reference, const Evidence& e);

// `prose` + "\n\n" + kContextMarker + the compact JSON of `context`.
std::string TaskMessage(const std::string& prose, const Json& context);

// The context of the first user message holding kContextMarker; an empty
// object when none does or it is not a JSON object.
Json ReadTaskContext(const std::vector<Message>& messages);

}  // namespace medreact

#endif  // MEDREACT_APPS_RESEARCH_RESEARCH_PROMPTS_H_
