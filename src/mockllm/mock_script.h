// MockScript: the replay script of the scripted OpenAI-compatible model server.
//
// A script is a list of responses consumed in order, one per chat request,
// plus what to do once they run out. Each entry is one of four kinds: a
// normal assistant reply (served as JSON, or as SSE when the request asked
// for "stream": true), raw SSE chunks (always streamed, written as given), a
// fault (any status, headers and body) or a raw body. Any entry may first
// wait (delay_ms) or stall (hang_ms). ParseMockScript() validates the JSON
// form strictly — an unknown field is an error — so that a typo in a test's
// script fails loudly with the entry index and the field's path instead of
// silently changing what the server sends. A script may also script other
// paths ("routes": the imaging endpoints' /classify, /segment, /ground, or
// any path), each with its own list of plain responses (a JSON body, a fault,
// a raw body or a hang) consumed by the requests to that path.
// docs/mock-llm.md is the reference. These are plain value types;
// thread-compatible.
#ifndef MEDREACT_MOCKLLM_MOCK_SCRIPT_H_
#define MEDREACT_MOCKLLM_MOCK_SCRIPT_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "medreact/json.h"
#include "medreact/status.h"

namespace medreact::mockllm {

// One tool call of a scripted assistant reply.
struct MockToolCall {
  std::optional<std::string> id;  // absent: the response carries no "id" at all
  std::string name;
  Json arguments = "{}";  // a JSON string (sent as a string) or an object (sent as an object)
};

struct MockEntry {
  enum class Kind {
    kMessage,  // an assistant reply; JSON or auto-chunked SSE, as the request asks
    kChunks,   // raw SSE chunks, always streamed
    kPlain,    // a fault or a raw body: status, headers and body bytes as given
    kHangOnly, // only hang_ms: after the stall, a 504 error body
  };
  Kind kind = Kind::kMessage;

  // Waits before anything is sent. Both are cut short by Stop().
  int delay_ms = 0;
  int hang_ms = 0;

  // Extra response headers (any kind), in script order.
  std::vector<std::pair<std::string, std::string>> headers;

  // kMessage.
  Json content;  // a string or null
  std::vector<MockToolCall> tool_calls;
  Json finish_reason;  // a string or null; resolved at parse time
  std::optional<Json> usage;  // absent: computed from lengths; null: omitted; object: as given
  std::string model = "mock";
  int fragment_chars = 8;
  bool interleave = false;
  bool repeat_name_empty = false;

  // kChunks: JSON values, or strings written verbatim after "data: ".
  std::vector<Json> chunks;

  // Streaming (kMessage when streamed, kChunks).
  bool done = true;                    // append "data: [DONE]"
  int chunk_delay_ms = 0;              // pause between events
  std::optional<size_t> truncate_after;  // send K events, then cut the connection
  bool crlf = false;                   // "\r\n" line endings instead of "\n"

  // kPlain.
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

enum class MockOnExhausted { kError, kRepeatLast };

// The responses of one scripted path, consumed one per request (any method)
// in arrival order. Entries are kPlain or kHangOnly.
struct MockRoute {
  std::vector<MockEntry> responses;
  MockOnExhausted on_exhausted = MockOnExhausted::kError;
};

struct MockScript {
  using OnExhausted = MockOnExhausted;
  // kInOrder: one entry per chat request, in arrival order. kByTurn: the entry
  // at the index equal to the number of assistant messages in the request, so
  // concurrent conversations following the same script each get their own
  // turn's reply whatever the interleaving.
  enum class Select { kInOrder, kByTurn };
  std::vector<MockEntry> responses;
  OnExhausted on_exhausted = OnExhausted::kError;
  Select select = Select::kInOrder;
  // Served at GET /props (llama.cpp's server settings, e.g.
  // {"default_generation_settings": {"n_ctx": 2048}}); null: 404. Neither is
  // recorded as a request, so scripts count only chat requests.
  Json props;
  // Scripted paths ("/classify" → its responses). A path starts with "/" and
  // is none of the server's own (/v1/chat/completions, /chat/completions, /v1/messages,
  // /v1/models, /models, /props, /_mock/requests).
  std::map<std::string, MockRoute> routes;
};

// Validates and converts a script. Errors are InvalidArgument with a message
// like "responses[2].message.tool_calls[0].name: expected a string, got number"
// or "routes./classify.responses[0].jsn: unknown field in a fault entry".
Result<MockScript> ParseMockScript(const Json& script);

}  // namespace medreact::mockllm

#endif  // MEDREACT_MOCKLLM_MOCK_SCRIPT_H_
