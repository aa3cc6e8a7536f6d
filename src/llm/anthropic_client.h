// The Anthropic Messages API ChatModel: POST {base_url}/v1/messages (or
// {base_url}/messages when the base already ends in /v1), non-streamed or
// streamed (SSE events, llm/anthropic_wire.h), with the headers the API
// wants: "x-api-key" (the key, never logged), "anthropic-version: 2023-06-01"
// and "content-type: application/json".
//
// Retries are llm/retry.h's, as for every HTTP provider: 429, 529
// (overloaded) and other 5xx, connection failures and cut streams are tried
// again, waiting the server's retry-after when it gives one; an "error"
// event in the middle of a stream is retried when its type says the server
// was busy (overloaded_error, rate_limit_error, api_error), else returned.
// Requests are fitted into the context window (llm/context_fit.h) as the
// OpenAI-compatible client's are; Anthropic's models have 200,000 tokens.
// Thread-safe: one client may serve many concurrent runs.
#ifndef MEDREACT_LLM_ANTHROPIC_CLIENT_H_
#define MEDREACT_LLM_ANTHROPIC_CLIENT_H_

#include <functional>
#include <memory>
#include <string>

#include "medreact/http.h"
#include "medreact/model.h"

namespace medreact {

struct AnthropicOptions {
  std::string base_url = "https://api.anthropic.com";
  std::string model;                // required by the API
  std::string api_key;              // sent as x-api-key. Default: "" (no header)
  Millis connect_timeout{10'000};   // Default: 10 s
  Millis request_timeout{300'000};  // per attempt. Default: 300 s
  Millis idle_timeout{60'000};      // streaming: max silence between events. Default: 60 s
  int max_retries = 4;              // Default: 4
  Millis initial_backoff{500};      // Default: 0.5 s
  Millis max_backoff{20'000};       // cap for computed and retry-after delays. Default: 20 s
  int context_tokens = 200'000;     // the window requests are fitted into; 0: not fitted
  int default_max_tokens = 4096;    // "max_tokens" when a request sets none
  int64_t cache_min_tokens = 1024;  // the shortest prefix given a prompt-cache marker
  std::shared_ptr<HttpTransport> transport;  // Default: libcurl
  std::function<void(Millis)> sleep;         // between retries; tests inject a recorder
};

std::unique_ptr<ChatModel> MakeAnthropicModel(AnthropicOptions options);

}  // namespace medreact

#endif  // MEDREACT_LLM_ANTHROPIC_CLIENT_H_
