// The Anthropic ChatModel (llm/anthropic_client.h): one request per attempt,
// the body from BuildAnthropicMessagesBody, a 2xx answer read by
// ParseAnthropicMessage or, streamed, by an AnthropicStreamAccumulator that
// forwards text deltas to the caller; failures worded and retried by
// llm/retry.h.

#include "llm/anthropic_client.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "core/log.h"
#include "core/text_util.h"
#include "llm/anthropic_wire.h"
#include "llm/context_fit.h"
#include "llm/model_span.h"
#include "llm/retry.h"
#include "llm/sse.h"

namespace medreact {
namespace {

class AnthropicModel : public ChatModel {
 public:
  explicit AnthropicModel(AnthropicOptions options) : options_(std::move(options)) {
    std::string base = options_.base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    const bool has_v1 = base.size() >= 3 && base.compare(base.size() - 3, 3, "/v1") == 0;
    url_ = base + (has_v1 ? "/messages" : "/v1/messages");
    display_url_ = RedactUrl(url_);
    if (!options_.transport) options_.transport = MakeCurlTransport();
    policy_ = {.max_retries = options_.max_retries, .initial_backoff = options_.initial_backoff,
               .max_backoff = options_.max_backoff, .request_timeout = options_.request_timeout,
               .sleep = options_.sleep};
    body_options_ = {.model = options_.model, .default_max_tokens = options_.default_max_tokens,
                     .cache_min_tokens = options_.cache_min_tokens};
  }

  Result<ModelResponse> Complete(const ModelRequest& original, const ModelCallContext& ctx) override {
    std::optional<ModelRequest> fitted;
    if (options_.context_tokens > 0) {
      std::vector<std::string> changes;
      Result<std::optional<ModelRequest>> fit = FitToContext(original, options_.context_tokens, &changes);
      if (!fit.ok()) return fit.status();
      fitted = std::move(*fit);
      for (const std::string& change : changes) {
        Log().info("model {}: {} ({} tokens)", name(), change, options_.context_tokens);
      }
    }
    const ModelRequest& request = fitted ? *fitted : original;
    HttpRequest http;
    http.url = url_;
    http.body = DumpJson(BuildAnthropicMessagesBody(request, body_options_));
    http.headers.emplace_back("content-type", "application/json");
    http.headers.emplace_back("anthropic-version", "2023-06-01");
    http.headers.emplace_back("accept", request.stream ? "text/event-stream" : "application/json");
    if (!options_.api_key.empty()) http.headers.emplace_back("x-api-key", options_.api_key);
    http.idle_timeout = request.stream ? options_.idle_timeout : Millis(0);
    otel::Span span = StartModelSpan("anthropic", name(), url_, request, ctx);
    AddTraceparent(http, span, ctx);

    Result<ModelResponse> result = CallWithRetries(policy_, ctx, [&](Millis budget) {
      http.total_timeout = budget;
      http.connect_timeout = std::min(options_.connect_timeout, budget);
      return RunAttempt(http, request.stream, ctx);
    });
    EndModelSpan(span, result);
    return result;
  }

  std::string name() const override { return options_.model.empty() ? "default" : options_.model; }
  std::string protocol() const override { return "anthropic"; }
  ModelCapabilities capabilities() const override {
    return {.tool_calling = ToolCalling::kNative, .streaming = true, .images = true,
            .context_tokens = options_.context_tokens};
  }

 private:
  ModelAttempt RunAttempt(const HttpRequest& http, bool stream, const ModelCallContext& ctx) const {
    ModelAttempt attempt;
    AnthropicStreamAccumulator accumulator;
    if (stream && ctx.on_text_delta) accumulator.set_on_text(ctx.on_text_delta);
    // An error answer (4xx/5xx) is one JSON body even to a streamed request (sse.h).
    JsonBodySniffer sniffer;
    HttpChunkHandler on_chunk;
    if (stream) {
      on_chunk = [&](std::string_view bytes) { return sniffer.Feed(bytes) || accumulator.Feed(bytes); };
    }
    Result<HttpResponse> sent = options_.transport->Send(http, on_chunk, ctx.cancel);
    if (stream && !sniffer.maybe_json() && !accumulator.error().empty()) {
      attempt.error = accumulator.Finish().status();  // an error event or a malformed event
      attempt.retryable = accumulator.error_retryable();
      return attempt;
    }
    if (!sent.ok()) {
      attempt.error = sent.status();
      attempt.retryable = IsRetryableTransportError(attempt.error);
      return attempt;
    }
    HttpResponse response = *sent;
    attempt.http_status = response.status;
    if (stream && sniffer.maybe_json() && response.body.empty()) response.body = sniffer.body();
    if (response.status / 100 != 2) return HttpFailureAttempt(response, display_url_);

    Result<AnthropicReply> parsed = Status::Internal("unset");
    if (stream && !sniffer.maybe_json()) {
      parsed = accumulator.Finish();
      attempt.retryable = !parsed.ok() && parsed.status().code() == StatusCode::kUnavailable;
    } else {
      Result<Json> body = ParseJson(stream ? sniffer.body() : response.body);
      if (!body.ok()) {
        attempt.error = body.status().WithContext("Anthropic messages body");
        return attempt;
      }
      parsed = ParseAnthropicMessage(*body);
      attempt.retryable = !parsed.ok() && parsed.status().code() == StatusCode::kUnavailable;
    }
    if (parsed.ok()) {
      if (parsed->cache_creation_tokens > 0 || parsed->cache_read_tokens > 0) {
        Log().debug("model {}: prompt cache: {} tokens written, {} read", name(), parsed->cache_creation_tokens,
                    parsed->cache_read_tokens);
      }
      attempt.response = std::move(parsed->response);
    } else {
      attempt.error = parsed.status();
    }
    return attempt;
  }

  AnthropicOptions options_;
  AnthropicBodyOptions body_options_;
  RetryPolicy policy_;
  std::string url_;
  std::string display_url_;
};

}  // namespace

std::unique_ptr<ChatModel> MakeAnthropicModel(AnthropicOptions options) {
  return std::make_unique<AnthropicModel>(std::move(options));
}

}  // namespace medreact
