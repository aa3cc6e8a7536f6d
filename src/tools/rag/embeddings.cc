// The embeddings wire mapping and its one HTTP call. See embeddings.h.
#include "tools/rag/embeddings.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace medreact {

EmbeddingsClient::EmbeddingsClient(EmbeddingsClientOptions options) : options_(std::move(options)) {
  if (!options_.transport) options_.transport = MakeCurlTransport();
  std::string base = options_.base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  url_ = base + "/embeddings";
}

Json BuildEmbeddingsBody(const std::vector<std::string>& texts, const std::string& model) {
  Json body = Json::object();
  if (!model.empty()) body["model"] = model;
  body["input"] = texts;
  return body;
}

Result<std::vector<Embedding>> ParseEmbeddingsReply(const Json& body, size_t expected) {
  const char* kShape = "; expected {\"data\": [{\"index\": 0, \"embedding\": [numbers]}, ...]}";
  if (!body.is_object()) return Status::ParseError(std::string("embeddings reply is not a JSON object") + kShape);
  auto data = body.find("data");
  if (data == body.end() || !data->is_array()) {
    return Status::ParseError(std::string("embeddings reply has no /data array") + kShape);
  }
  if (data->size() != expected) {
    return Status::ParseError("embeddings reply has " + std::to_string(data->size()) + " vectors for " +
                              std::to_string(expected) + " inputs");
  }
  std::vector<Embedding> out(expected);
  std::vector<bool> seen(expected, false);
  size_t dim = 0;
  for (size_t i = 0; i < data->size(); ++i) {
    const Json& item = (*data)[i];
    const std::string at = "/data/" + std::to_string(i);
    if (!item.is_object()) return Status::ParseError("embeddings reply " + at + " is not an object");
    size_t index = i;
    if (auto idx = item.find("index"); idx != item.end()) {
      if (!idx->is_number_unsigned() || idx->get<size_t>() >= expected) {
        return Status::ParseError("embeddings reply " + at + "/index is not an integer in [0, " +
                                  std::to_string(expected) + ")");
      }
      index = idx->get<size_t>();
    }
    if (seen[index]) return Status::ParseError("embeddings reply repeats index " + std::to_string(index));
    seen[index] = true;
    auto vec = item.find("embedding");
    if (vec == item.end() || !vec->is_array() || vec->empty()) {
      return Status::ParseError("embeddings reply " + at + "/embedding is missing or not a non-empty array" +
                                " (base64 encoding_format is not supported)");
    }
    if (dim == 0) dim = vec->size();
    if (vec->size() != dim) {
      return Status::ParseError("embeddings reply " + at + "/embedding has " + std::to_string(vec->size()) +
                                " dimensions, the first has " + std::to_string(dim));
    }
    Embedding& e = out[index];
    e.reserve(dim);
    for (const Json& x : *vec) {
      if (!x.is_number()) return Status::ParseError("embeddings reply " + at + "/embedding holds a non-number");
      e.push_back(x.get<float>());
    }
  }
  return out;
}

Result<std::vector<Embedding>> EmbeddingsClient::Embed(const std::vector<std::string>& texts,
                                                       const CancellationToken& cancel, Millis timeout) const {
  HttpRequest request;
  request.method = "POST";
  request.url = url_;
  request.headers = {{"Content-Type", "application/json"}};
  if (!options_.api_key.empty()) request.headers.emplace_back("Authorization", "Bearer " + options_.api_key);
  request.body = DumpJson(BuildEmbeddingsBody(texts, options_.model));
  request.total_timeout = timeout.count() > 0 ? timeout : options_.timeout;
  request.idle_timeout = request.total_timeout;
  Result<HttpResponse> response = options_.transport->Send(request, nullptr, cancel);
  if (!response.ok()) return response.status().WithContext("embeddings request to " + url_);
  if (response->status / 100 != 2) {
    std::string what = "embeddings server " + url_ + " answered HTTP " + std::to_string(response->status) + ": " +
                       Preview(response->body);
    if (response->status == 401 || response->status == 403) {
      return Status::PermissionDenied(what + "; check the API key");
    }
    if (response->status == 404) return Status::NotFound(what + "; check the URL (it should end in /v1)");
    if (response->status == 429 || response->status >= 500) return Status::Unavailable(what);
    return Status::InvalidArgument(what + "; check the model name");
  }
  Result<Json> body = ParseJson(response->body);
  if (!body.ok()) return body.status().WithContext("embeddings reply from " + url_);
  Result<std::vector<Embedding>> vectors = ParseEmbeddingsReply(*body, texts.size());
  if (!vectors.ok()) return vectors.status().WithContext(url_);
  return vectors;
}

void NormalizeEmbedding(Embedding& v) {
  double sum = 0;
  for (float x : v) sum += static_cast<double>(x) * x;
  if (sum <= 0 || !std::isfinite(sum)) return;
  const float inv = static_cast<float>(1.0 / std::sqrt(sum));
  for (float& x : v) x *= inv;
}

}  // namespace medreact
