// The OpenAI-compatible ChatModel: POST {base_url}/chat/completions with
// retries.
//
// Each attempt sends the JSON body built by BuildChatCompletionsBody with
// "Content-Type: application/json", "Authorization: Bearer <key>" when a key
// is set, and "Accept: text/event-stream" when streaming. A non-streamed 2xx
// body goes to ParseChatCompletion; a streamed one through a
// StreamAccumulator, which also forwards text deltas to the caller. (A server
// that ignores "stream": true and answers with one JSON object is accepted.)
//
// Retry policy: an attempt is retried after a transport failure (refused,
// reset, DNS, connect/idle/total timeout), a truncated stream, or HTTP 408,
// 409, 429 and 5xx. Other 4xx are the caller's fault and return at once with
// the server's message (401/403 as kPermissionDenied, the rest as
// kInvalidArgument). The delay before retry n (n = 0, 1, ...) is the server's
// Retry-After (retry-after-ms, integer seconds, or an HTTP-date) when given,
// else initial_backoff * 2^n drawn uniformly from [half, full]; both capped at
// max_backoff. No retry starts when the call's deadline would pass during the
// wait, and cancellation stops everything. Each attempt's total timeout is
// the smaller of request_timeout and the time left before the deadline. When
// retries run out, 429 becomes kResourceExhausted, a timeout kTimeout and
// everything else kUnavailable. Note that text deltas of a stream that is cut
// and retried have already reached on_text_delta; the retry streams anew.

#include <time.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>

#include "medreact/openai.h"

namespace medreact {
namespace {

bool IsRetryableHttpStatus(int status) {
  return status == 408 || status == 409 || status == 429 || (status >= 500 && status <= 599);
}

// The server's own words from an error body: error.message, error (string),
// detail or message, shortened and with control characters escaped. A body
// that is not JSON is quoted only when it is a short line (nginx's "Bad
// Gateway"); a long one (an HTML page, a stack trace that may echo the
// prompt) is described by its size.
std::string ServerErrorText(const std::string& body) {
  constexpr size_t kMaxQuoted = 200;
  Result<Json> parsed = ParseJson(body);
  if (parsed.ok() && parsed->is_object()) {
    const Json& j = *parsed;
    auto text_of = [](const Json& v) -> std::string {
      if (v.is_string()) return v.get<std::string>();
      if (v.is_object() && v.contains("message") && v["message"].is_string()) {
        return v["message"].get<std::string>();
      }
      return "";
    };
    for (const char* key : {"error", "detail", "message"}) {
      auto it = j.find(key);
      if (it == j.end()) continue;
      std::string text = text_of(*it);
      if (text.empty() && !it->is_null()) text = DumpJson(*it);
      if (!text.empty()) return Preview(text, kMaxQuoted);
    }
  }
  if (body.empty()) return "(empty body)";
  std::string_view line = body;
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.size() <= kMaxQuoted && line.find('\n') == std::string_view::npos) return Preview(line, kMaxQuoted);
  return "(a " + std::to_string(body.size()) + "-byte body that is not a JSON error)";
}

// Retry-After as a delay: "retry-after-ms", then "retry-after" as integer
// seconds or an HTTP-date (IMF-fixdate). nullopt when absent or unreadable.
std::optional<Millis> RetryAfter(const HttpResponse& response) {
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() < 12 &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
  };
  std::string ms = response.Header("retry-after-ms");
  if (digits(ms)) return Millis(std::stoll(ms));
  std::string value = response.Header("retry-after");
  if (value.empty()) return std::nullopt;
  if (digits(value)) return Millis(std::stoll(value) * 1000);
  struct tm parts = {};
  const char* end = strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S", &parts);
  if (end == nullptr) return std::nullopt;
  time_t at = timegm(&parts);
  if (at == static_cast<time_t>(-1)) return std::nullopt;
  auto seconds = static_cast<int64_t>(at) - static_cast<int64_t>(time(nullptr));
  return Millis(std::max<int64_t>(0, seconds) * 1000);
}

Millis Backoff(const OpenAIOptions& options, int retry) {
  double base = static_cast<double>(options.initial_backoff.count()) * std::pow(2.0, std::min(retry, 30));
  base = std::min(base, static_cast<double>(options.max_backoff.count()));
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  return Millis(static_cast<int64_t>(base * jitter(rng)));
}

// What one HTTP attempt produced.
struct Attempt {
  std::optional<ModelResponse> response;  // set on success
  Status error;                           // set on failure
  bool retryable = false;
  int http_status = 0;  // 0 when the failure was below HTTP
  std::optional<Millis> retry_after;
};

class OpenAIModel : public ChatModel {
 public:
  explicit OpenAIModel(OpenAIOptions options) : options_(std::move(options)) {
    std::string base = options_.base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    url_ = base + "/chat/completions";
    display_url_ = RedactUrl(url_);
    if (!options_.transport) options_.transport = MakeCurlTransport();
  }

  Result<ModelResponse> Complete(const ModelRequest& request, const ModelCallContext& ctx) override {
    HttpRequest http;
    http.url = url_;
    http.body = DumpJson(BuildChatCompletionsBody(request, options_.model));
    http.headers.emplace_back("Content-Type", "application/json");
    http.headers.emplace_back("Accept", request.stream ? "text/event-stream" : "application/json");
    if (!options_.api_key.empty()) http.headers.emplace_back("Authorization", "Bearer " + options_.api_key);
    http.idle_timeout = request.stream ? options_.idle_timeout : Millis(0);

    const int max_attempts = 1 + std::max(0, options_.max_retries);
    Attempt last;
    int attempts = 0;
    while (true) {
      if (ctx.cancel.cancelled()) return Status::Cancelled("model call cancelled");
      if (ctx.deadline.expired()) {
        return attempts == 0 ? Status::Timeout("the deadline passed before the model was called")
                             : GiveUp(last, attempts, "the deadline passed");
      }
      Millis budget = std::min(options_.request_timeout, ctx.deadline.remaining());
      if (!ctx.deadline.is_never()) budget = std::max(budget, Millis(1));  // 0 would mean "no limit"
      http.total_timeout = budget;
      http.connect_timeout = std::min(options_.connect_timeout, budget);
      ++attempts;
      last = RunAttempt(http, request.stream, ctx);
      if (last.response) {
        last.response->attempts = attempts;
        return std::move(*last.response);
      }
      if (ctx.cancel.cancelled() || last.error.code() == StatusCode::kCancelled) {
        return Status::Cancelled("model call cancelled");
      }
      if (!last.retryable) return last.error;
      if (attempts >= max_attempts) return GiveUp(last, attempts, "retries exhausted");

      Millis delay = last.retry_after ? std::min(*last.retry_after, options_.max_backoff)
                                      : Backoff(options_, attempts - 1);
      if (!ctx.deadline.is_never() && ctx.deadline.remaining() < delay) {
        return GiveUp(last, attempts,
                      "the deadline leaves " + std::to_string(ctx.deadline.remaining().count()) +
                          " ms, less than the " + std::to_string(delay.count()) + " ms retry delay");
      }
      Wait(delay, ctx.cancel);
      if (ctx.cancel.cancelled()) return Status::Cancelled("model call cancelled while waiting to retry");
    }
  }

  std::string name() const override { return options_.model.empty() ? "default" : options_.model; }
  std::string protocol() const override { return "native"; }

 private:
  Attempt RunAttempt(const HttpRequest& http, bool stream, const ModelCallContext& ctx) const {
    Attempt attempt;
    StreamAccumulator accumulator;
    if (stream && ctx.on_text_delta) accumulator.set_on_text(ctx.on_text_delta);
    // A server may ignore "stream": true and send one JSON object; keep the
    // bytes while they still look like one.
    std::string raw;
    bool maybe_json = true;
    HttpChunkHandler on_chunk;
    if (stream) {
      on_chunk = [&](std::string_view bytes) {
        if (maybe_json) {
          raw.append(bytes);
          size_t first = raw.find_first_not_of(" \t\r\n");
          if (first != std::string::npos && raw[first] != '{') {
            maybe_json = false;
            raw.clear();
          }
        }
        return accumulator.Feed(bytes);
      };
    }

    Result<HttpResponse> sent = options_.transport->Send(http, on_chunk, ctx.cancel);
    if (stream && !accumulator.error().empty() && !maybe_json) {
      attempt.error = accumulator.Finish().status();  // an error event or a malformed chunk
      return attempt;
    }
    if (!sent.ok()) {
      attempt.error = sent.status();
      attempt.retryable = attempt.error.code() == StatusCode::kUnavailable ||
                          attempt.error.code() == StatusCode::kTimeout;
      return attempt;
    }
    const HttpResponse& response = *sent;
    attempt.http_status = response.status;
    if (response.status / 100 != 2) return HttpFailure(response);

    Result<ModelResponse> parsed = Status::Internal("unset");
    if (stream && !(maybe_json && !raw.empty())) {
      parsed = accumulator.Finish();
      // Feed errors were handled above, so kUnavailable here means the stream
      // was cut or empty: worth another try. A malformed one is not.
      attempt.retryable = !parsed.ok() && parsed.status().code() == StatusCode::kUnavailable;
    } else {
      Result<Json> body = ParseJson(stream ? raw : response.body);
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

  Attempt HttpFailure(const HttpResponse& response) const {
    Attempt attempt;
    attempt.http_status = response.status;
    std::string text = "HTTP " + std::to_string(response.status) + " from " + display_url_ + ": " +
                       ServerErrorText(response.body);
    if (IsRetryableHttpStatus(response.status)) {
      attempt.retryable = true;
      attempt.retry_after = RetryAfter(response);
      attempt.error = Status::Unavailable(std::move(text));
    } else if (response.status == 401 || response.status == 403) {
      attempt.error = Status::PermissionDenied(std::move(text));
    } else {
      attempt.error = Status::InvalidArgument(std::move(text));
    }
    return attempt;
  }

  static Status GiveUp(const Attempt& last, int attempts, const std::string& why) {
    std::string text = "model call failed after " + std::to_string(attempts) +
                       (attempts == 1 ? " attempt (" : " attempts (") + why + "); last error: " +
                       last.error.message();
    if (last.http_status == 429) return Status::ResourceExhausted(std::move(text));
    if (last.error.code() == StatusCode::kTimeout) return Status::Timeout(std::move(text));
    return Status::Unavailable(std::move(text));
  }

  void Wait(Millis delay, const CancellationToken& cancel) const {
    if (options_.sleep) {
      options_.sleep(delay);
      return;
    }
    auto until = SteadyClock::now() + delay;
    while (!cancel.cancelled()) {
      auto now = SteadyClock::now();
      if (now >= until) break;
      std::this_thread::sleep_for(std::min<SteadyClock::duration>(until - now, Millis(50)));
    }
  }

  OpenAIOptions options_;
  std::string url_;
  std::string display_url_;  // url_ without credentials, for messages
};

}  // namespace

std::unique_ptr<ChatModel> MakeOpenAIModel(OpenAIOptions options) {
  return std::make_unique<OpenAIModel>(std::move(options));
}

}  // namespace medreact
