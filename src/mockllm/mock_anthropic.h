// Rendering of scripted entries into Anthropic Messages API wire bytes, for
// the scripted server's POST /v1/messages (docs/mock-llm.md, "Anthropic").
//
// The same script entries as the chat route, in Anthropic's shapes: a
// message entry becomes one {"type": "message"} body, or the event sequence
// message_start, ping, content_block_start / content_block_delta
// (text_delta, input_json_delta fragments of fragment_chars) /
// content_block_stop per block, message_delta (stop_reason, usage) and
// message_stop. finish_reason is given in either vocabulary ("tool_calls" is
// sent as tool_use, "stop" as end_turn, "length" as max_tokens). A chunks
// entry's JSON objects are sent as events named by their "type" (so a script
// can send ping, error or any event mid-stream); its strings are written
// verbatim after "data: ". No "[DONE]" is sent. Pure functions, no I/O.
#ifndef MEDREACT_MOCKLLM_MOCK_ANTHROPIC_H_
#define MEDREACT_MOCKLLM_MOCK_ANTHROPIC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "medreact/json.h"
#include "mockllm/mock_script.h"

namespace medreact::mockllm {

// {"type": "error", "error": {"type", "message"}} as compact text.
std::string AnthropicErrorBodyText(const std::string& message, const std::string& type);

// The non-streamed reply to `request` for a kMessage entry.
std::string AnthropicMessageBody(const MockEntry& entry, const Json& request, int64_t sequence);

// The SSE frames of a kMessage entry served as a stream, or of a kChunks
// entry, with crlf and truncate_after applied.
std::vector<std::string> AnthropicStreamFrames(const MockEntry& entry, const Json& request, int64_t sequence);

}  // namespace medreact::mockllm

#endif  // MEDREACT_MOCKLLM_MOCK_ANTHROPIC_H_
