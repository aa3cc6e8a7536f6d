// Retries for model calls, shared by every HTTP provider (the OpenAI-compatible
// client today, the Anthropic one next): which failures are worth another
// attempt, how long to wait, and the loop that keeps to the call's deadline
// and cancellation.
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
struct ModelAttempt {
  std::optional<ModelResponse> response;
  Status error;
  bool retryable = false;
  int http_status = 0;  // 0 when the failure was below HTTP
  std::optional<Millis> retry_after;
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

// A non-2xx response as an attempt: "HTTP <status> from <url>: <text>";
// retryable statuses marked, 401/403 kPermissionDenied, other 4xx
// kInvalidArgument.
ModelAttempt HttpFailureAttempt(const HttpResponse& response, const std::string& display_url);

// Runs `attempt(budget)` until it returns a response, a non-retryable error,
// the retries run out, the deadline passes or the call is cancelled. `budget`
// is the time the attempt may take: min(request_timeout, time left). The
// response's `attempts` is set.
Result<ModelResponse> CallWithRetries(const RetryPolicy& policy, const ModelCallContext& ctx,
                                      const std::function<ModelAttempt(Millis budget)>& attempt);

}  // namespace medreact

#endif  // MEDREACT_LLM_RETRY_H_
