// ChatModel: one call to a language model (or to something that stands in for
// one, such as the deterministic rules planner or a scripted fake).
//
// Complete() sends the conversation and the tool specs and returns one assistant
// message. It never throws. A model that answered with something unusable (no
// text and no calls, unparseable text-protocol output) still returns OK with
// ModelResponse::parse_error set: the agent shows that error to the model as an
// observation. A non-OK Status means the model could not be reached or refused
// the request after retries; the agent then ends the run with status `error`.
// Implementations must be safe to call from one thread at a time per instance;
// the OpenAI client is also safe to call concurrently.
#ifndef MEDREACT_MODEL_H_
#define MEDREACT_MODEL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/cancel.h"
#include "medreact/json.h"
#include "medreact/message.h"
#include "medreact/status.h"
#include "medreact/tool_spec.h"

namespace medreact {

struct ModelRequest {
  std::vector<Message> messages;   // system first, if any
  ToolSpecList tools;              // empty: no tools offered
  // The run's finishing tool, when the app has one (AgentOptions::answer_tool):
  // a provider without native tool calling (the text protocol, a planner)
  // gives its final answer as a call of it. Set on every call of the run, the
  // tool-less fallback call included, whether or not `tools` lists it.
  // Default: none
  std::shared_ptr<const ToolSpec> answer_tool;
  // Names an append-only conversation: every request with this id holds the
  // messages of the one before it, unchanged and in order, plus new ones at
  // the end. A client may then keep what it derived from those messages (the
  // serialised history) instead of comparing them again. The agent sets a
  // process-unique id per run (NextConversationId) when it sends its whole
  // history; an adapter that rewrites the messages must not pass it on.
  // Default: 0 (none: every message is looked at)
  uint64_t conversation_id = 0;
  std::string tool_choice;         // "auto", "none", "required" or "" (omit). Default: ""
  // Constrains the reply's text to JSON, sent as is when not null:
  // {"type": "json_schema", "json_schema": {"name": .., "schema": .., "strict": true}}
  // or {"type": "json_object"} (OpenAI's structured output, honoured by vLLM,
  // llama-server and Ollama). The caller still validates the reply: a server
  // may ignore it. The text protocol drops it (its reply format is its own).
  // Default: null (omitted)
  Json response_format;
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  bool stream = false;             // SSE streaming where the provider supports it
};

struct ModelResponse {
  Message message;              // role kAssistant; content and/or tool_calls
  Usage usage;                  // zero when the provider did not report it
  std::string finish_reason;    // as reported; informative only, never used to detect calls
  std::string model;            // model name the server reported, if any
  std::string parse_error;      // non-empty: the reply was unusable; shown to the model
  Json final_fields;            // text protocol: app-defined final-block fields, else null
  std::string raw_text;         // the model's reply text before protocol parsing (text protocol), else ""
  int attempts = 1;             // HTTP attempts made (retries + 1)
};

// A process-unique ModelRequest::conversation_id (never 0, never reused).
uint64_t NextConversationId();

// Per-call context: deadline, cancellation, and a sink for streamed text.
struct ModelCallContext {
  Deadline deadline = Deadline::Never();
  CancellationToken cancel;
  std::function<void(std::string_view text_delta)> on_text_delta;  // may be empty
  // The trace context the call continues (W3C traceparent, "00-<trace
  // id>-<span id>-01"): the model call's span is its child and the HTTP
  // request carries it on. The agent sets its step's; a call made on
  // another thread must set it. Default: "" (the calling thread's current
  // span, core/otel.h)
  std::string traceparent;
};

// How a model calls tools: the server's own tool calling, the text protocol
// (tools described in the prompt, calls read from the reply), or a
// deterministic planner that stands in for a model.
enum class ToolCalling { kNative, kTextProtocol, kPlanner };

// What a model can do, typed: apps and the engine branch on these, never on
// protocol() (a label for traces).
struct ModelCapabilities {
  ToolCalling tool_calling = ToolCalling::kNative;
  bool streaming = false;   // can stream text deltas (on_text_delta)
  bool images = false;      // accepts image parts
  int context_tokens = 0;   // the context window when known; 0 = unknown
};

class ChatModel {
 public:
  virtual ~ChatModel() = default;
  // Default: native tool calling, nothing else known.
  virtual ModelCapabilities capabilities() const { return {}; }
  virtual Result<ModelResponse> Complete(const ModelRequest& request, const ModelCallContext& ctx) = 0;
  virtual std::string name() const = 0;      // model name for traces
  virtual std::string protocol() const = 0;  // label for traces: "native", "text", "rules", "scripted", ...
};

}  // namespace medreact

#endif  // MEDREACT_MODEL_H_
