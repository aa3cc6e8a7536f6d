#include "llm/retry.h"

#include "core/log.h"
#include "core/text_util.h"

#include <time.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <random>
#include <thread>
#include <utility>

namespace medreact {

bool IsRetryableHttpStatus(int status) {
  return status == 408 || status == 409 || status == 429 || (status >= 500 && status <= 599);
}

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

Millis Backoff(const RetryPolicy& policy, int retry) {
  double base = static_cast<double>(policy.initial_backoff.count()) * std::pow(2.0, std::min(retry, 30));
  base = std::min(base, static_cast<double>(policy.max_backoff.count()));
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  return Millis(static_cast<int64_t>(base * jitter(rng)));
}

ModelAttempt HttpFailureAttempt(const HttpResponse& response, const std::string& display_url) {
  ModelAttempt attempt;
  attempt.http_status = response.status;
  std::string text = "HTTP " + std::to_string(response.status) + " from " + display_url + ": " +
                     ServerErrorText(response.body);
  if (response.status == 500 && text.find("requires --jinja") != std::string::npos) {
    // llama-server without its Jinja templates (--no-jinja; older builds'
    // default) refuses "tools" with a 500 that no retry changes.
    attempt.error = Status::InvalidArgument(
        "the server cannot take native tool calls (start llama-server with --jinja, or set the tool protocol "
        "(protocol) to text): " + text);
  } else if (IsRetryableHttpStatus(response.status)) {
    attempt.retryable = true;
    attempt.retry_after = RetryAfter(response);
    attempt.error = Status::Unavailable(std::move(text));
  } else if (response.status == 400 && AsciiLower(text).find("context") != std::string::npos &&
             (AsciiLower(text).find("exceed") != std::string::npos || AsciiLower(text).find("too long") != std::string::npos)) {
    // llama.cpp: "the request exceeds the available context size"; others say
    // "maximum context length". Say what it means before the server's words.
    attempt.error = Status::InvalidArgument(
        "the request does not fit the model's context window (when the window was not known, give its size "
        "(context_size); when it was, the request's size was underestimated for this model's tokenizer: give a "
        "smaller size (context_size) to leave room, or use a server with a larger context): " + text);
  } else if (response.status == 401 || response.status == 403) {
    attempt.error = Status::PermissionDenied(std::move(text));
  } else {
    attempt.error = Status::InvalidArgument(std::move(text));
  }
  return attempt;
}

namespace {

// The model clients' words (RetryCall's defaults).
Status ModelStopped(RetryStop stop) {
  switch (stop) {
    case RetryStop::kDeadlineBeforeFirstAttempt:
      return Status::Timeout("the deadline passed before the model was called");
    case RetryStop::kStoppedWhileWaiting:
      return Status::Cancelled("model call cancelled while waiting to retry");
    case RetryStop::kCancelledBeforeAttempt:
    case RetryStop::kCancelledAfterAttempt:
      break;
  }
  return Status::Cancelled("model call cancelled");
}

Status ModelGiveUp(const RetryGiveUpInfo& info) {
  std::string why;
  switch (info.reason) {
    case RetryGiveUp::kDeadlinePassed:
      why = "the deadline passed";
      break;
    case RetryGiveUp::kRetriesExhausted:
      why = "retries exhausted";
      break;
    case RetryGiveUp::kDeadlineNearerThanDelay:
      why = "the deadline leaves " + std::to_string(info.left.count()) + " ms, less than the " +
            std::to_string(info.delay.count()) + " ms retry delay";
      break;
  }
  std::string text = "model call failed after " + std::to_string(info.attempts) +
                     (info.attempts == 1 ? " attempt (" : " attempts (") + why +
                     "); last error: " + info.last.message();
  if (info.http_status == 429) return Status::ResourceExhausted(std::move(text));
  if (info.last.code() == StatusCode::kTimeout) return Status::Timeout(std::move(text));
  return Status::Unavailable(std::move(text));
}

}  // namespace

namespace retry_internal {

Status RunRetryLoop(const RetryPolicy& policy, const RetryCall& call,
                    const std::function<AttemptOutcome(Millis budget)>& run_attempt, int* attempts_out) {
  const int max_attempts = 1 + std::max(0, policy.max_retries);
  auto stopped = [&](RetryStop stop) { return call.stopped ? call.stopped(stop) : ModelStopped(stop); };
  AttemptOutcome last;
  int& attempts = *attempts_out;
  attempts = 0;
  auto give_up = [&](RetryGiveUp reason, Millis delay = Millis(0), Millis left = Millis(0)) {
    const RetryGiveUpInfo info{.last = last.error, .http_status = last.http_status, .attempts = attempts,
                               .reason = reason, .delay = delay, .left = left};
    return call.give_up ? call.give_up(info) : ModelGiveUp(info);
  };
  while (true) {
    if (call.cancel.cancelled()) return stopped(RetryStop::kCancelledBeforeAttempt);
    if (call.deadline.expired()) {
      return attempts == 0 ? stopped(RetryStop::kDeadlineBeforeFirstAttempt) : give_up(RetryGiveUp::kDeadlinePassed);
    }
    if (call.before_attempt) {
      if (Status s = call.before_attempt(); !s.ok()) return s;
    }
    Millis budget = std::min(policy.request_timeout, call.deadline.remaining());
    if (!call.deadline.is_never()) budget = std::max(budget, Millis(1));  // 0 would mean "no limit"
    ++attempts;
    last = run_attempt(budget);
    if (last.succeeded) return Status::OK();
    if (call.cancel.cancelled() || last.error.code() == StatusCode::kCancelled) {
      return stopped(RetryStop::kCancelledAfterAttempt);
    }
    if (!last.retryable) return last.error;
    if (attempts >= max_attempts) return give_up(RetryGiveUp::kRetriesExhausted);

    const Millis delay =
        last.retry_after ? std::min(*last.retry_after, policy.max_backoff) : Backoff(policy, attempts - 1);
    if (!call.deadline.is_never() && call.deadline.remaining() < delay) {
      return give_up(RetryGiveUp::kDeadlineNearerThanDelay, delay, call.deadline.remaining());
    }
    Log().warn("{} attempt {} failed ({}{}), retrying in {} ms: {}", call.what, attempts,
               StatusCodeName(last.error.code()),
               last.http_status != 0 ? ", HTTP " + std::to_string(last.http_status) : std::string(), delay.count(),
               last.error.message());
    bool waited = true;
    if (call.wait) {
      waited = call.wait(delay);
    } else if (policy.sleep) {
      policy.sleep(delay);
    } else {
      call.cancel.WaitFor(delay);
    }
    if (!waited || call.cancel.cancelled()) return stopped(RetryStop::kStoppedWhileWaiting);
  }
}

}  // namespace retry_internal

Result<ModelResponse> CallWithRetries(const RetryPolicy& policy, const ModelCallContext& ctx,
                                      const std::function<ModelAttempt(Millis budget)>& run_attempt) {
  int attempts = 0;
  Result<ModelResponse> response =
      CallWithRetriesT<ModelResponse>(policy, RetryCall{.deadline = ctx.deadline, .cancel = ctx.cancel}, run_attempt,
                                      &attempts);
  if (response.ok()) response->attempts = attempts;
  return response;
}

}  // namespace medreact
