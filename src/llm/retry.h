// Retries for calls over HTTP, shared by every model provider (the
// OpenAI-compatible client today, the Anthropic one next), the literature
// fetcher and the imaging endpoints: which failures are worth another
// attempt, how long to wait, and the loop that keeps to the call's deadline
// and cancellation. The loop is generic in what an attempt produces
// (CallWithRetriesT<T>); CallWithRetries is its model-call form.
//
// Policy: an attempt is retried after a transport failure (refused, reset,
// DNS, connect/idle/total timeout), a truncated stream, or HTTP 408, 409, 429
// and 5xx; other 4xx are the caller's fault and return at once. The delay
// before retry n (n = 0, 1, ...) is the server's Retry-After (retry-after-ms,
// integer seconds, or an HTTP-date) when given, else initial_backoff * 2^n
// drawn uniformly from [half, full]; both capped at max_backoff. No retry
// starts when the deadline would pass during the wait; cancellation stops
// everything, also during the wait. When retries run out, 429 becomes
// kResourceExhausted, a timeout kTimeout and everything else kUnavailable.
#ifndef MEDREACT_LLM_RETRY_H_
#define MEDREACT_LLM_RETRY_H_

#include <functional>
#include <optional>
#include <string>

#include "medreact/cancel.h"
#include "medreact/http.h"
#include "medreact/model.h"
#include "medreact/status.h"

namespace medreact {

struct RetryPolicy {
  int max_retries = 4;          // retries after the first attempt
  Millis initial_backoff{500};  // first delay before jitter
  Millis max_backoff{20'000};   // cap for computed and Retry-After delays
  Millis request_timeout{300'000};  // one attempt, at most
  // How to wait between retries; tests inject a recorder. Default: wait,
  // waking at once on cancellation.
  std::function<void(Millis)> sleep;
};

// What one attempt produced: a response, or an error and whether to retry.
template <typename T>
struct RetryAttempt {
  std::optional<T> response;
  Status error;
  bool retryable = false;
  int http_status = 0;  // 0 when the failure was below HTTP
  std::optional<Millis> retry_after;
};
using ModelAttempt = RetryAttempt<ModelResponse>;

// Where a call stopped without giving up on a failure.
enum class RetryStop {
  kCancelledBeforeAttempt,      // cancelled before an attempt was sent
  kDeadlineBeforeFirstAttempt,  // the deadline had passed before the first attempt
  kCancelledAfterAttempt,       // cancelled during an attempt (or it said kCancelled)
  kStoppedWhileWaiting,         // cancelled, or the wait refused, before a retry
};

// Why a call gave up after retryable failures.
enum class RetryGiveUp {
  kDeadlinePassed,           // the deadline passed after an attempt
  kRetriesExhausted,         // max_retries retries were made
  kDeadlineNearerThanDelay,  // the deadline would pass during the wait before the next retry
};

struct RetryGiveUpInfo {
  const Status& last;  // the last attempt's error
  int http_status = 0;  // the last attempt's status, 0 below HTTP
  int attempts = 0;
  RetryGiveUp reason = RetryGiveUp::kRetriesExhausted;
  Millis delay{0};  // kDeadlineNearerThanDelay: the retry delay
  Millis left{0};   // kDeadlineNearerThanDelay: the time the deadline left
};

// One retried call: its deadline and cancellation, and the words and hooks
// that differ between callers. Every hook is optional; the defaults are the
// model clients' (CallWithRetries).
struct RetryCall {
  Deadline deadline = Deadline::Never();
  CancellationToken cancel;
  // Names the call in the log line of each retry ("<what> attempt 2 failed
  // ..."). Default: "model call"
  std::string what = "model call";
  // Runs before each attempt (a rate limiter's wait); a non-OK Status ends
  // the call with it. Default: none
  std::function<Status()> before_attempt;
  // Waits before a retry; false stops the call (kStoppedWhileWaiting).
  // Default: the policy's sleep, else the token's WaitFor; true
  std::function<bool(Millis)> wait;
  // The Status of a stopped call. Default: "model call cancelled", "the
  // deadline passed before the model was called", ...
  std::function<Status(RetryStop)> stopped;
  // The Status of a call that gave up. Default: "model call failed after 3
  // attempts (retries exhausted); last error: ...", kResourceExhausted after
  // a 429, kTimeout after a timeout, else kUnavailable.
  std::function<Status(const RetryGiveUpInfo&)> give_up;
};

bool IsRetryableHttpStatus(int status);

// Retry-After as a delay: "retry-after-ms", then "retry-after" as integer
// seconds or an HTTP-date (IMF-fixdate). nullopt when absent or unreadable.
std::optional<Millis> RetryAfter(const HttpResponse& response);

// initial_backoff * 2^retry, capped, with jitter in [half, full].
Millis Backoff(const RetryPolicy& policy, int retry);

// The server's own words from an error body: error.message, error (string),
// detail or message, shortened and with control characters escaped. A body
// that is not JSON is quoted only when it is a short line; a long one (an
// HTML page, a stack trace that may echo the prompt) is described by size.
std::string ServerErrorText(const std::string& body);

// Whether a request that got no response may be tried again: the server
// could not be reached or did not answer in time (not a cancel, not a
// refused request).
inline bool IsRetryableTransportError(const Status& error) {
  return error.code() == StatusCode::kUnavailable || error.code() == StatusCode::kTimeout;
}

// A non-2xx response as an attempt: "HTTP <status> from <url>: <text>";
// retryable statuses marked, 401/403 kPermissionDenied, other 4xx
// kInvalidArgument.
ModelAttempt HttpFailureAttempt(const HttpResponse& response, const std::string& display_url);

namespace retry_internal {

// An attempt without its value: whether it succeeded, else why not.
struct AttemptOutcome {
  bool succeeded = false;
  Status error;
  bool retryable = false;
  int http_status = 0;
  std::optional<Millis> retry_after;
};

// The loop of CallWithRetriesT, over attempts whose value the caller keeps.
// OK when an attempt succeeded; *attempts counts the attempts made.
Status RunRetryLoop(const RetryPolicy& policy, const RetryCall& call,
                    const std::function<AttemptOutcome(Millis budget)>& run_attempt, int* attempts);

}  // namespace retry_internal

// Runs `attempt(budget)` until it returns a response, a non-retryable error
// (returned as it is), the retries run out, the deadline passes or the call
// is cancelled (then call's hooks word the Status). `budget` is the time the
// attempt may take: min(request_timeout, time left), at least 1 ms under a
// deadline. `attempts`, when given, receives the number of attempts made.
template <typename T>
Result<T> CallWithRetriesT(const RetryPolicy& policy, const RetryCall& call,
                           const std::function<RetryAttempt<T>(Millis budget)>& attempt, int* attempts = nullptr) {
  std::optional<T> value;
  int made = 0;
  Status status = retry_internal::RunRetryLoop(
      policy, call,
      [&](Millis budget) {
        RetryAttempt<T> a = attempt(budget);
        if (a.response) {
          value = std::move(a.response);
          return retry_internal::AttemptOutcome{.succeeded = true};
        }
        return retry_internal::AttemptOutcome{.error = std::move(a.error),
                                              .retryable = a.retryable,
                                              .http_status = a.http_status,
                                              .retry_after = a.retry_after};
      },
      &made);
  if (attempts != nullptr) *attempts = made;
  if (value) return std::move(*value);
  if (status.ok()) return Status::Internal("retry loop ended without a response or an error");
  return status;
}

// The model calls' form: CallWithRetriesT with the model clients' words; the
// response's `attempts` is set.
Result<ModelResponse> CallWithRetries(const RetryPolicy& policy, const ModelCallContext& ctx,
                                      const std::function<ModelAttempt(Millis budget)>& attempt);

}  // namespace medreact

#endif  // MEDREACT_LLM_RETRY_H_
