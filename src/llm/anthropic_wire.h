// The Anthropic Messages API wire mapping, in one place: the request body,
// the non-streamed response and the streamed events. Pure functions and one
// accumulator, no I/O, so each shape is unit-tested on its own.
//
// Request (POST {base}/v1/messages): system messages become the top-level
// "system" text blocks; user turns with images become image blocks (base64
// from data: URLs, "url" sources otherwise) then the text; assistant turns
// become text and tool_use blocks (the arguments parsed into "input"; invalid
// arguments are re-sent as {} — the tool result already told the model what
// was wrong); tool results become tool_result blocks in a user message. The
// API wants the roles to alternate, so consecutive messages of one role (the
// results of one turn's several calls, then a user note) are merged into one
// message. Prompt caching: when the tools, or the tools and the system prompt,
// are long enough to be cached (cache_min_tokens, estimated at 4 bytes per
// token), the last tool and the last system block carry
// cache_control {"type": "ephemeral"}; below it no marker is sent (the API
// would not cache such a prefix anyway).
//
// Response: text blocks are joined into the content, tool_use blocks become
// tool calls (input written back as JSON text), stop_reason is mapped to the
// Chat Completions words (end_turn/stop_sequence → stop, tool_use →
// tool_calls, max_tokens → length; others kept), and usage counts the cached
// prompt tokens in prompt_tokens (AnthropicReply also has them on their own).
#ifndef MEDREACT_LLM_ANTHROPIC_WIRE_H_
#define MEDREACT_LLM_ANTHROPIC_WIRE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "medreact/json.h"
#include "medreact/model.h"
#include "medreact/status.h"

namespace medreact {

struct AnthropicBodyOptions {
  std::string model;               // sent as "model" (required by the API)
  int default_max_tokens = 4096;   // "max_tokens" when the request sets none (the API requires one)
  // The shortest prefix worth a cache marker, in estimated tokens (the API's
  // minimum cacheable prompt is 1024 tokens for most models). Default: 1024
  int64_t cache_min_tokens = 1024;
};

// A reply and its prompt-cache counts (ModelResponse's Usage has no field
// for them; prompt_tokens includes them).
struct AnthropicReply {
  ModelResponse response;
  int64_t cache_creation_tokens = 0;  // prompt tokens written to the cache
  int64_t cache_read_tokens = 0;      // prompt tokens read from it
};

Json BuildAnthropicMessagesBody(const ModelRequest& request, const AnthropicBodyOptions& options);

// A Messages API response object ({"type": "message", ...}); an
// {"type": "error"} body is an error naming its type.
Result<AnthropicReply> ParseAnthropicMessage(const Json& body);

// "stop", "tool_calls", "length" for the API's stop reasons; others as they are.
std::string MapAnthropicStopReason(const std::string& stop_reason);

// True for the error types worth another attempt: overloaded_error,
// rate_limit_error, api_error, timeout_error.
bool IsRetryableAnthropicError(const std::string& type);

// Incremental decoding of a streamed Messages response: message_start,
// content_block_start/delta/stop (text_delta, input_json_delta fragments
// joined per block index), message_delta (stop_reason, usage), message_stop,
// ping; an error event stops it with error() set (and error_retryable() for
// overloaded_error and the like). Feed() bytes split anywhere.
class AnthropicStreamAccumulator {
 public:
  AnthropicStreamAccumulator();
  ~AnthropicStreamAccumulator();
  // False once an error event or a malformed event was seen; error() says which.
  bool Feed(std::string_view bytes);
  // The message. Unavailable when the stream ended before message_stop (cut).
  Result<AnthropicReply> Finish();
  const std::string& error() const;
  bool error_retryable() const;
  void set_on_text(std::function<void(std::string_view)> fn);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace medreact

#endif  // MEDREACT_LLM_ANTHROPIC_WIRE_H_
