// Rendering of scripted entries into Chat Completions wire bytes.
//
// Pure functions, no I/O: the server decides when to write, these decide
// what. A message entry becomes either one chat.completion JSON body or a
// list of SSE frames ("data: {...}\n\n") shaped like OpenAI's streaming
// output — a role chunk, content fragments, tool-call fragments (header
// chunk with index/id/type/name and "arguments": "", then argument
// fragments), a finish_reason chunk, an optional usage-only chunk and
// "data: [DONE]" — with the script's quirks applied. Output is
// deterministic: ids are "chatcmpl-mock-<sequence>" and "created" is fixed.
#ifndef MEDREACT_MOCKLLM_MOCK_RESPONSE_H_
#define MEDREACT_MOCKLLM_MOCK_RESPONSE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/json.h"
#include "mockllm/mock_script.h"

namespace medreact::mockllm {

// {"error": {"message", "type", "param": null, "code": null}} as compact text.
std::string ErrorBodyText(const std::string& message, const std::string& type);

// The non-streamed reply to `request` (the parsed request body) for a
// kMessage entry. `sequence` numbers the chat requests from 1.
std::string CompletionBody(const MockEntry& entry, const Json& request, int64_t sequence);

// The SSE frames to write, in order, for a kMessage entry served as a stream
// or for a kChunks entry. Applies done, crlf and truncate_after; the caller
// applies chunk_delay_ms and, when entry.truncate_after is set, cuts the
// connection after the last frame.
std::vector<std::string> StreamFrames(const MockEntry& entry, const Json& request,
                                      int64_t sequence);

// "data: <payload>" followed by a blank line ("\n\n", or "\r\n\r\n").
std::string FrameSse(std::string_view payload, bool crlf);

// Splits UTF-8 text into pieces of at most max_chars code points; never
// splits a multi-byte character. Empty text gives no pieces.
std::vector<std::string> SplitUtf8(std::string_view text, size_t max_chars);

}  // namespace medreact::mockllm

#endif  // MEDREACT_MOCKLLM_MOCK_RESPONSE_H_
