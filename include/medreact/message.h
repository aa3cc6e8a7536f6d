// Message, ToolCall and Usage: the conversation as plain structs.
//
// A conversation is a vector<Message>. Roles follow the Chat Completions model:
// system, user, assistant (text and/or tool_calls), tool (one result per call,
// linked by tool_call_id). Content is text, optionally with image parts for
// multimodal models. These are value types; provider wire formats live in the
// provider modules (llm/openai.cc, llm/text_protocol.cc), the trace format in
// engine/trace.cc, so each JSON mapping has exactly one home.
#ifndef MEDREACT_MESSAGE_H_
#define MEDREACT_MESSAGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "medreact/json.h"

namespace medreact {

enum class Role { kSystem, kUser, kAssistant, kTool };

const char* RoleName(Role role);  // "system", "user", "assistant", "tool"

// One part of a multimodal user message.
struct ContentPart {
  enum class Kind { kText, kImage };
  Kind kind = Kind::kText;
  std::string text;       // kText
  std::string image_url;  // kImage: "data:image/png;base64,..." or an http(s) URL
};

// A tool call requested by the model.
struct ToolCall {
  std::string id;         // provider's id, or one minted by medreact when missing
  std::string name;       // tool name as the model wrote it (may be unknown)
  std::string arguments;  // arguments exactly as received: JSON text, possibly invalid

  bool operator==(const ToolCall&) const = default;
};

struct Message {
  Role role = Role::kUser;
  std::string content;                // text; for multimodal user turns the text part
  std::vector<ContentPart> images;    // image parts (user turns only); empty for text-only
  std::vector<ToolCall> tool_calls;   // assistant turns only
  std::string tool_call_id;           // tool turns only: the call this answers
  std::string name;                   // tool turns only: the tool's name

  static Message System(std::string text);
  static Message User(std::string text);
  static Message Assistant(std::string text, std::vector<ToolCall> calls = {});
  static Message Tool(std::string tool_call_id, std::string tool_name, std::string content);

  bool has_tool_calls() const { return !tool_calls.empty(); }
};

// Token accounting as reported by the provider ("usage"). Zero when unknown.
struct Usage {
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t total_tokens = 0;

  Usage& operator+=(const Usage& other);
  bool empty() const { return prompt_tokens == 0 && completion_tokens == 0 && total_tokens == 0; }
};

// Trace/debug JSON for these types (not a provider wire format).
Json ToJson(const ToolCall& call);
Json ToJson(const Usage& usage);
Json ToJson(const Message& message);

// Mints a tool-call id ("call_" + 24 random alphanumerics) for providers that
// omit one. Thread-safe.
std::string MintToolCallId();

}  // namespace medreact

#endif  // MEDREACT_MESSAGE_H_
