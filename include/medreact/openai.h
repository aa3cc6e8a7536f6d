// The OpenAI-compatible Chat Completions client (the default "native" protocol).
//
// Talks to any server that speaks POST {base_url}/chat/completions: OpenAI,
// vLLM, llama.cpp's server, Ollama, LM Studio, TGI, LiteLLM... Non-streaming and
// SSE streaming. It tolerates the quirks these servers show in the wild:
// streamed tool calls accumulated by `index`; `id`/`type`/`name` set once and
// never erased by later empty values; `arguments` as fragments or whole, as a
// string or as an object; ids minted when missing; tool calls detected by their
// presence, never by `finish_reason`; `content` null or ""; a usage-only final
// chunk; `[DONE]` or just end-of-stream. It retries with exponential backoff
// (each delay drawn between half and all of initial_backoff * 2^n) on
// connection errors, timeouts, truncated streams, 408, 409, 429 and 5xx
// (honouring Retry-After, seconds or HTTP-date), never on other 4xx.
//
// The history it sends is always valid for a strict server: assistant
// tool_calls carry `type: "function"` and arguments as a JSON *string* (invalid
// arguments are re-sent as "{}" — the tool result already told the model what
// was wrong), and every tool message carries its tool_call_id.
// Thread-safe: one client may serve many concurrent runs.
#ifndef MEDREACT_OPENAI_H_
#define MEDREACT_OPENAI_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "medreact/http.h"
#include "medreact/model.h"

namespace medreact {

// Context sizes learned from model servers, kept across runs and processes
// (the run store keeps one), so a server is asked once per model, not
// before every run. Thread-safe implementations only.
class ContextSizeCache {
 public:
  virtual ~ContextSizeCache() = default;
  // The size stored for (base URL, model): nullopt when never asked, 0 when
  // the server did not say (not llama.cpp: it is not asked again).
  virtual std::optional<int64_t> Get(const std::string& base_url, const std::string& model) = 0;
  virtual void Put(const std::string& base_url, const std::string& model, int64_t tokens) = 0;
};

struct OpenAIOptions {
  std::string base_url;        // e.g. "http://127.0.0.1:8000/v1"; "/chat/completions" is appended
  std::string model;           // sent as "model". Default: "" (omitted; some servers need it)
  std::string api_key;         // bearer token. Default: "" (no Authorization header)
  Millis connect_timeout{10'000};   // Default: 10 s
  Millis request_timeout{300'000};  // whole request, per attempt. Default: 300 s
  Millis idle_timeout{60'000};      // streaming: max silence between chunks. Default: 60 s
  int max_retries = 4;              // retries after the first attempt. Default: 4
  Millis initial_backoff{500};      // first retry delay before jitter. Default: 0.5 s
  Millis max_backoff{20'000};       // cap for computed and Retry-After delays. Default: 20 s
  // The model's context window in tokens, when the user knows it
  // (--context-size); requests are fitted into it (llm/context_fit.h).
  // Default: 0 = unknown.
  int context_tokens = 0;
  // When context_tokens is 0, ask the server once, before the first call:
  // GET {base_url without /v1}/props, llama.cpp's server settings
  // (default_generation_settings.n_ctx). Other servers answer 404 and the
  // window stays unknown. Default: false (the model factory turns it on).
  bool probe_context = false;
  // Where a probe's answer is kept (and looked up first). Default: nullptr
  // = asked once per process
  std::shared_ptr<ContextSizeCache> context_cache;
  std::shared_ptr<HttpTransport> transport;  // Default: nullptr = libcurl
  // How to wait between retries; tests inject a recorder. Default: sleep, waking on cancel.
  std::function<void(Millis)> sleep;
};

std::unique_ptr<ChatModel> MakeOpenAIModel(OpenAIOptions options);

// Exposed for tests and benchmarks: the wire mapping, in one place.
Json BuildChatCompletionsBody(const ModelRequest& request, const std::string& model);
Result<ModelResponse> ParseChatCompletion(const Json& body);

// Incremental SSE + delta accumulation for streamed Chat Completions.
// Feed() raw bytes as they arrive (any split); Finish() at end of stream.
class StreamAccumulator {
 public:
  StreamAccumulator();
  ~StreamAccumulator();
  // Returns false and sets error() when a data line is not valid JSON or the
  // server sent an error object; the caller then stops reading.
  bool Feed(std::string_view bytes);
  // Completes the message. Fails if the stream ended without any event or was
  // cut mid-event (a truncated stream) before [DONE] or a finish_reason.
  Result<ModelResponse> Finish();
  const std::string& error() const;
  bool done() const;  // [DONE] seen
  // Called with each text delta as it is parsed.
  void set_on_text(std::function<void(std::string_view)> fn);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace medreact

#endif  // MEDREACT_OPENAI_H_
