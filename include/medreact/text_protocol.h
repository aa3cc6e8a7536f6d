// The text protocol (seed 001): tool calling for models without native support.
//
// TextProtocolModel wraps any ChatModel. It sends no `tools` field; instead the
// system prompt gains a tool catalogue (name, description, parameters) and a
// response format:
//
//   THOUGHT: <reasoning>
//   TOOL_CALL: {"tool": "<name>", "arguments": {...}}
// or
//   THOUGHT: <reasoning>
//   FINAL_ANSWER: <answer>
//   <APP_FIELD>: <value>          (app-defined, e.g. RISK_ADJUSTMENT, CRITICAL_FINDINGS)
//
// History is rewritten for the inner model: assistant tool calls become their
// TOOL_CALL text, tool results become user turns "OBSERVATION (<tool>): ...".
// Replies are parsed by ParseTextReply, which tolerates what small models
// produce (fences, prose, Python literals, single quotes, trailing commas,
// truncation; several TOOL_CALL blocks; {"name":..,"parameters":..} spellings).
// Nothing parseable → ModelResponse::parse_error, which the agent turns into a
// corrective turn. Thread-compatible like the wrapped model.
#ifndef MEDREACT_TEXT_PROTOCOL_H_
#define MEDREACT_TEXT_PROTOCOL_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/model.h"

namespace medreact {

// An app-defined field of the final block.
struct FinalField {
  std::string marker;       // e.g. "RISK_ADJUSTMENT" (written "RISK_ADJUSTMENT:")
  std::string description;  // shown in the format section of the prompt
  bool json = false;        // value is JSON (e.g. a list); parsed leniently
};

struct TextProtocolOptions {
  // Markers that introduce the final answer. The first is the one the prompt
  // teaches; all are accepted. Default: FINAL_ANSWER, FINAL_ASSESSMENT.
  std::vector<std::string> final_markers = {"FINAL_ANSWER", "FINAL_ASSESSMENT"};
  std::vector<FinalField> final_fields;  // Default: none
};

struct TextReply {
  std::string thought;              // THOUGHT: text, if any
  std::vector<ToolCall> tool_calls; // ids minted
  bool is_final = false;
  std::string final_answer;
  Json final_fields = Json::object();  // marker -> string or JSON value
  std::string error;                // non-empty: nothing usable was found; says why
};

TextReply ParseTextReply(std::string_view text, const TextProtocolOptions& options);

// The system-prompt section describing tools and the response format.
std::string RenderTextProtocolInstructions(const std::vector<ToolSpec>& tools,
                                           const TextProtocolOptions& options);

std::unique_ptr<ChatModel> MakeTextProtocolModel(std::unique_ptr<ChatModel> inner,
                                                 TextProtocolOptions options = {});

}  // namespace medreact

#endif  // MEDREACT_TEXT_PROTOCOL_H_
