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
//   <FIELD>: <value>              (one per argument of the app's finishing tool)
//
// When the request names a finishing tool (ModelRequest::answer_tool), the
// final block is that tool's arguments written as text: FINAL_<FIRST
// REQUIRED ARGUMENT> (FINAL_ANSWER also accepted) opens it, one line per other
// argument follows (RISK_ADJUSTMENT, CRITICAL_FINDINGS, ...), and the adapter
// returns a call of the tool with the values coerced to the schema's types,
// which the agent validates and runs like any other call. FinalBlockOptions,
// FinalBlockArguments and ReadFinalBlock are that mapping, for the engine to
// read a plain-text answer of a natively calling model the same way.
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
  bool taught = true;       // shown in the prompt's format; false: only read. Default: true
  std::string argument;     // the finishing tool's argument it fills, if any
};

struct TextProtocolOptions {
  // Markers that introduce the final answer. The first is the one the prompt
  // teaches; all are accepted. Default: FINAL_ANSWER, FINAL_ASSESSMENT.
  std::vector<std::string> final_markers = {"FINAL_ANSWER", "FINAL_ASSESSMENT"};
  std::vector<FinalField> final_fields;  // Default: none
  // The finishing tool's argument the final marker's text fills (set by
  // FinalBlockOptions). Default: "" (no finishing tool)
  std::string final_argument;
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

// The final block of a finishing tool: FINAL_<FIRST REQUIRED ARGUMENT>
// (the argument's own name when it already begins with "final_") taught,
// FINAL_ANSWER accepted; one field per other argument, named by the argument
// in capitals, taught when required, read when optional. A tool with no
// required argument uses its first property.
TextProtocolOptions FinalBlockOptions(const ToolSpec& answer_tool);

// The arguments a final block spells, coerced to the tool's schema
// (CoerceToSchema). `options` must come from FinalBlockOptions(answer_tool).
Json FinalBlockArguments(const TextReply& reply, const ToolSpec& answer_tool, const TextProtocolOptions& options);

// A plain-text answer as the finishing tool's arguments: its final block if
// it has one; otherwise the whole text fills the first argument. Never fails:
// what cannot be read is left for schema validation to name.
Json ReadFinalBlock(std::string_view text, const ToolSpec& answer_tool);

// Turns what a small model wrote into the value `schema` asks for, where that
// is unambiguous: an enum word with decoration ("**increase** (+1)" →
// "INCREASE"), a list from JSON, Python-style or plain text ("None" → [], one
// phrase → a one-item list), numbers, booleans and objects from their text.
// Anything else is returned as given.
Json CoerceToSchema(const Json& schema, const Json& value);

// A list from text: JSON when it looks like JSON, else one item per line when
// there are several lines, else comma-separated; "none", "n/a", "[]" → [].
Json ParseListText(std::string_view text);

std::unique_ptr<ChatModel> MakeTextProtocolModel(std::unique_ptr<ChatModel> inner,
                                                 TextProtocolOptions options = {});

}  // namespace medreact

#endif  // MEDREACT_TEXT_PROTOCOL_H_
