// The OpenAI-compatible ChatModel: POST {base_url}/chat/completions with
// retries.
//
// Each attempt sends the JSON body of BuildChatCompletionsBody (written as
// text by ChatCompletionsBodyText from the client's ChatBodyCache, so a run's
// history is serialised once, not on every call) with
// "Content-Type: application/json", "Authorization: Bearer <key>" when a key
// is set, and "Accept: text/event-stream" when streaming. A non-streamed 2xx
// body goes to ParseChatCompletion; a streamed one through a
// StreamAccumulator, which also forwards text deltas to the caller. (A server
// that ignores "stream": true and answers with one JSON object is accepted.)
//
// Retries (which failures, how long to wait, the deadline and cancellation)
// are llm/retry.h's, shared with every HTTP provider. Each attempt's total
// timeout is the smaller of request_timeout and the time left before the
// deadline. Note that text deltas of a stream that is cut and retried have
// already reached on_text_delta; the retry streams anew.

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "core/log.h"
#include "core/text_util.h"
#include "llm/context_fit.h"
#include "llm/model_span.h"
#include "llm/openai_wire.h"
#include "llm/retry.h"
#include "llm/sse.h"
#include "medreact/openai.h"

namespace medreact {
namespace {

class OpenAIModel : public ChatModel, public ContextWindowSource {
 public:
  explicit OpenAIModel(OpenAIOptions options) : options_(std::move(options)) {
    std::string base = options_.base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    url_ = base + "/chat/completions";
    display_url_ = RedactUrl(url_);
    if (!options_.transport) options_.transport = MakeCurlTransport();
    if (options_.context_tokens > 0) known_window_ = options_.context_tokens;
    policy_ = {.max_retries = options_.max_retries, .initial_backoff = options_.initial_backoff,
               .max_backoff = options_.max_backoff, .request_timeout = options_.request_timeout,
               .sleep = options_.sleep};
  }

  Result<ModelResponse> Complete(const ModelRequest& original, const ModelCallContext& ctx) override {
    const int64_t window = ContextWindow(ctx);
    std::optional<ModelRequest> fitted;
    if (window > 0) {
      std::vector<std::string> changes;
      Result<std::optional<ModelRequest>> fit = FitToContext(original, window, &changes);
      if (!fit.ok()) return fit.status();
      fitted = std::move(*fit);
      for (const std::string& change : changes) Log().info("model {}: {} ({} tokens)", name(), change, window);
    }
    const ModelRequest& request = fitted ? *fitted : original;
    HttpRequest http;
    http.url = url_;
    http.body = ChatCompletionsBodyText(request, options_.model, body_cache_);
    http.headers.emplace_back("Content-Type", "application/json");
    http.headers.emplace_back("Accept", request.stream ? "text/event-stream" : "application/json");
    if (!options_.api_key.empty()) http.headers.emplace_back("Authorization", "Bearer " + options_.api_key);
    http.idle_timeout = request.stream ? options_.idle_timeout : Millis(0);
    otel::Span span = StartModelSpan("openai", name(), url_, request, ctx);
    AddTraceparent(http, span, ctx);

    Result<ModelResponse> result = CallWithRetries(policy_, ctx, [&](Millis budget) {
      http.total_timeout = budget;
      http.connect_timeout = std::min(options_.connect_timeout, budget);
      return RunAttempt(http, request.stream, ctx);
    });
    body_cache_.ReturnBody(request.conversation_id, std::move(http.body));  // the conversation's kept text
    EndModelSpan(span, result);
    return result;
  }

  std::string name() const override { return options_.model.empty() ? "default" : options_.model; }
  std::string protocol() const override { return "native"; }
  ModelCapabilities capabilities() const override {
    return {.tool_calling = ToolCalling::kNative, .streaming = true, .images = true,
            .context_tokens = static_cast<int>(known_window_.load())};
  }

 private:
  ModelAttempt RunAttempt(const HttpRequest& http, bool stream, const ModelCallContext& ctx) const {
    ModelAttempt attempt;
    StreamAccumulator accumulator;
    if (stream && ctx.on_text_delta) accumulator.set_on_text(ctx.on_text_delta);
    // A server may ignore "stream": true and send one JSON object (sse.h).
    JsonBodySniffer sniffer;
    HttpChunkHandler on_chunk;
    if (stream) {
      on_chunk = [&](std::string_view bytes) {
        sniffer.Feed(bytes);
        return accumulator.Feed(bytes);
      };
    }

    Result<HttpResponse> sent = options_.transport->Send(http, on_chunk, ctx.cancel);
    if (stream && !accumulator.error().empty() && !sniffer.maybe_json()) {
      attempt.error = accumulator.Finish().status();  // an error event or a malformed chunk
      return attempt;
    }
    if (!sent.ok()) {
      attempt.error = sent.status();
      attempt.retryable = IsRetryableTransportError(attempt.error);
      return attempt;
    }
    const HttpResponse& response = *sent;
    attempt.http_status = response.status;
    if (response.status / 100 != 2) return HttpFailureAttempt(response, display_url_);

    Result<ModelResponse> parsed = Status::Internal("unset");
    if (stream && !(sniffer.maybe_json() && !sniffer.body().empty())) {
      parsed = accumulator.Finish();
      // Feed errors were handled above, so kUnavailable here means the stream
      // was cut or empty: worth another try. A malformed one is not.
      attempt.retryable = !parsed.ok() && parsed.status().code() == StatusCode::kUnavailable;
    } else {
      Result<Json> body = ParseJson(stream ? sniffer.body() : response.body);
      if (!body.ok()) {
        attempt.error = body.status().WithContext("chat completion body");
        return attempt;
      }
      parsed = ParseChatCompletion(*body);
    }
    if (parsed.ok()) {
      attempt.response = std::move(*parsed);
    } else {
      attempt.error = parsed.status();
    }
    return attempt;
  }

 public:
  // The context window: given, or learned once from llama.cpp's /props.
  int64_t ContextWindow(const ModelCallContext& ctx) override {
    if (options_.context_tokens > 0) return options_.context_tokens;
    if (!options_.probe_context) return 0;
    std::call_once(probe_once_, [&] {
      if (options_.context_cache) {
        if (std::optional<int64_t> known = options_.context_cache->Get(options_.base_url, options_.model)) {
          known_window_ = *known;  // 0: the server does not say, and is not asked again
          return;
        }
      }
      const int64_t probed = ProbeContext(ctx);
      known_window_ = probed;
      if (options_.context_cache) options_.context_cache->Put(options_.base_url, options_.model, probed);
    });
    return known_window_.load();
  }

 private:
  // GET /props: the window a llama.cpp server runs with; 0 when the server
  // does not say (another kind of server) or cannot be reached.
  int64_t ProbeContext(const ModelCallContext& ctx) {
    {
      std::string root = options_.base_url;
      while (!root.empty() && root.back() == '/') root.pop_back();
      if (root.size() >= 3 && root.compare(root.size() - 3, 3, "/v1") == 0) root.resize(root.size() - 3);
      HttpRequest get;
      get.method = "GET";
      get.url = root + "/props";
      get.connect_timeout = std::min(options_.connect_timeout, Millis(3'000));
      get.total_timeout = Millis(3'000);
      if (!options_.api_key.empty()) get.headers.emplace_back("Authorization", "Bearer " + options_.api_key);
      Result<HttpResponse> response = options_.transport->Send(get, {}, ctx.cancel);
      if (!response.ok() || response->status != 200) return 0;  // not llama.cpp, or not reachable yet
      Result<Json> props = ParseJson(response->body);
      if (!props.ok() || !props->is_object()) return 0;
      // A llama-server router (--models-dir / --models-preset) answers for
      // itself with n_ctx 0; the model's own settings are at /props?model=NAME.
      if (props->value("role", "") == "router" && !options_.model.empty()) {
        get.url = root + "/props?model=" + UrlEncode(options_.model);
        response = options_.transport->Send(get, {}, ctx.cancel);
        if (!response.ok() || response->status != 200) return 0;
        props = ParseJson(response->body);
        if (!props.ok() || !props->is_object()) return 0;
      }
      const Json settings = props->value("default_generation_settings", Json::object());
      std::optional<int64_t> n_ctx = ExactInteger(settings.value("n_ctx", Json()), 1, 100'000'000);
      if (!n_ctx) n_ctx = ExactInteger(props->value("n_ctx", Json()), 1, 100'000'000);
      if (!n_ctx) return 0;
      Log().info("model {}: context window {} tokens (from {})", name(), *n_ctx, RedactUrl(get.url));
      return *n_ctx;
    }
  }

  OpenAIOptions options_;
  std::once_flag probe_once_;
  std::atomic<int64_t> known_window_{0};
  ChatBodyCache body_cache_;
  RetryPolicy policy_;
  std::string url_;
  std::string display_url_;  // url_ without credentials, for messages
};

}  // namespace

std::unique_ptr<ChatModel> MakeOpenAIModel(OpenAIOptions options) {
  return std::make_unique<OpenAIModel>(std::move(options));
}

}  // namespace medreact
