// EmbeddingsClient: text → vectors through an OpenAI-compatible
// POST {base_url}/embeddings (OpenAI, vLLM, llama.cpp's server, Ollama's /v1,
// LM Studio, LiteLLM, TEI's OpenAI route).
//
// Request: {"model": m, "input": [texts...]} ("model" omitted when empty).
// Reply: {"data": [{"index": i, "embedding": [floats]}, ...]}; items are put
// back in input order by `index` (position when a server omits it), and the
// reply must hold exactly one vector per input, all of one non-zero
// dimension. One attempt per call, no retries: at index time a failure rolls
// the update back and the next Open() redoes it; at query time the caller
// falls back to BM25. Errors name the URL and, for HTTP errors, the status
// and a preview of the body. Thread-safe when the transport is.
#ifndef MEDREACT_TOOLS_RAG_EMBEDDINGS_H_
#define MEDREACT_TOOLS_RAG_EMBEDDINGS_H_

#include <memory>
#include <string>
#include <vector>

#include "medreact/cancel.h"
#include "medreact/http.h"
#include "medreact/json.h"
#include "medreact/status.h"

namespace medreact {

using Embedding = std::vector<float>;

struct EmbeddingsClientOptions {
  std::string base_url;   // "/embeddings" is appended (trailing slashes dropped)
  std::string model;      // Default: "" (omitted)
  std::string api_key;    // Default: "" (no Authorization header)
  std::shared_ptr<HttpTransport> transport;  // Default: nullptr = libcurl
  Millis timeout{120'000};                   // whole request. Default: 120 s
};

class EmbeddingsClient {
 public:
  explicit EmbeddingsClient(EmbeddingsClientOptions options);
  // One vector per text, in order. `timeout` overrides options.timeout when
  // positive. REQUIRES: !texts.empty().
  Result<std::vector<Embedding>> Embed(const std::vector<std::string>& texts, const CancellationToken& cancel = {},
                                       Millis timeout = Millis(0)) const;
  const std::string& url() const { return url_; }

 private:
  EmbeddingsClientOptions options_;
  std::string url_;
};

// The wire mapping, exposed for tests.
Json BuildEmbeddingsBody(const std::vector<std::string>& texts, const std::string& model);
Result<std::vector<Embedding>> ParseEmbeddingsReply(const Json& body, size_t expected);

// Scales to unit length in place (a zero vector stays zero).
void NormalizeEmbedding(Embedding& v);

}  // namespace medreact

#endif  // MEDREACT_TOOLS_RAG_EMBEDDINGS_H_
