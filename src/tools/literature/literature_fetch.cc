// Options, and the fetch loop every literature client uses. See
// literature_fetch.h.
#include "tools/literature/literature_fetch.h"

#include <time.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <utility>

#include "core/log.h"
#include "core/text_util.h"
#include "core/time_util.h"
#include "llm/retry.h"

namespace medreact {
namespace {


// Resolves one base URL: the option, else the variable, else the default;
// "explicit" when the first two gave it.
Status ResolveUrl(std::string& url, const char* variable, const char* fallback,
                  const std::function<const char*(const char*)>& env, bool& explicit_url) {
  std::string from = "the option";
  if (url.empty()) {
    if (const char* v = env(variable); v != nullptr && !IsBlank(v)) {
      url = Trim(v);
      from = variable;
    }
  }
  if (url.empty()) {
    url = fallback;
    return Status::OK();
  }
  explicit_url = true;
  if (!StartsWith(AsciiLower(url), "http://") && !StartsWith(AsciiLower(url), "https://")) {
    return Status::InvalidArgument(std::string(variable) + ": the base URL given by " + from + " ('" +
                                   Preview(url, 80) + "') is not an http:// or https:// URL");
  }
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += '/';
  return Status::OK();
}

Status HttpStatusError(const HttpResponse& response, const std::string& url) {
  std::string text = "HTTP " + std::to_string(response.status) + " from " + RedactUrl(url) + ": " +
                     ServerErrorText(response.body);
  if (response.status == 429) return Status::ResourceExhausted(std::move(text));
  if (response.status == 404) return Status::NotFound(std::move(text));
  if (response.status == 401 || response.status == 403) return Status::PermissionDenied(std::move(text));
  if (response.status >= 400 && response.status < 500 && !IsRetryableHttpStatus(response.status)) {
    return Status::InvalidArgument(std::move(text));
  }
  return Status::Unavailable(std::move(text));
}

Status GiveUp(const Status& last, const std::string& what, int attempts, const std::string& why) {
  const std::string text = last.message() + " (" + what + ": " + why + " after " + std::to_string(attempts) +
                           (attempts == 1 ? " attempt)" : " attempts)");
  switch (last.code()) {
    case StatusCode::kResourceExhausted:
      return Status::ResourceExhausted(text);
    case StatusCode::kTimeout:
      return Status::Timeout(text);
    default:
      return Status::Unavailable(text);
  }
}

}  // namespace

Result<LiteratureOptions> ResolveLiteratureOptions(LiteratureOptions options,
                                                   const std::function<const char*(const char*)>& getenv) {
  auto env = [&getenv](const char* name) -> const char* { return getenv ? getenv(name) : std::getenv(name); };
  bool explicit_url = false;
  if (Status s = ResolveUrl(options.pubmed_url, "MEDREACT_PUBMED_URL", kDefaultPubMedUrl, env, explicit_url); !s.ok()) {
    return s;
  }
  if (Status s = ResolveUrl(options.ctgov_url, "MEDREACT_CTGOV_URL", kDefaultCtgovUrl, env, explicit_url); !s.ok()) {
    return s;
  }
  if (Status s = ResolveUrl(options.europepmc_url, "MEDREACT_EUROPEPMC_URL", kDefaultEuropePmcUrl, env, explicit_url);
      !s.ok()) {
    return s;
  }
  if (explicit_url) options.online = true;
  if (options.ncbi_api_key.empty()) {
    if (const char* v = env("NCBI_API_KEY"); v != nullptr) options.ncbi_api_key = Trim(v);
  }
  if (options.ncbi_email.empty()) {
    if (const char* v = env("NCBI_EMAIL"); v != nullptr) options.ncbi_email = Trim(v);
  }
  if (options.use_cache && options.cache_path.empty()) {
    // Without a folder for it the path stays empty: the first request that
    // needs the cache says why (registration touches nothing).
    if (Result<std::string> path = DefaultLiteratureCachePath(getenv); path.ok()) options.cache_path = *path;
  }
  return options;
}

LiteratureFetcher::LiteratureFetcher(LiteratureOptions options) : options_(std::move(options)) {
  if (!options_.transport) options_.transport = MakeCurlTransport();
  for (auto [url, fallback] : {std::pair<std::string*, const char*>{&options_.pubmed_url, kDefaultPubMedUrl},
                               {&options_.ctgov_url, kDefaultCtgovUrl},
                               {&options_.europepmc_url, kDefaultEuropePmcUrl}}) {
    if (url->empty()) *url = fallback;
    if (url->back() != '/') *url += '/';
  }
}

Result<LiteratureCache*> LiteratureFetcher::Cache() const {
  std::lock_guard<std::mutex> lock(cache_mu_);
  if (!options_.use_cache) return static_cast<LiteratureCache*>(nullptr);
  if (!cache_tried_) {
    cache_tried_ = true;
    Result<std::shared_ptr<LiteratureCache>> opened = Status::Internal("unset");
    if (options_.cache_path.empty()) {
      Result<std::string> path = DefaultLiteratureCachePath();
      opened = path.ok() ? LiteratureCache::Open(*path) : Result<std::shared_ptr<LiteratureCache>>(path.status());
    } else {
      opened = LiteratureCache::Open(options_.cache_path);
    }
    if (opened.ok()) {
      cache_ = std::move(*opened);
    } else {
      cache_error_ = opened.status();
      if (options_.online) Log().warn("literature cache unusable, responses are not kept: {}", cache_error_.message());
    }
  }
  if (cache_) return cache_.get();
  if (options_.online) return static_cast<LiteratureCache*>(nullptr);
  return cache_error_;
}

bool LiteratureFetcher::Wait(Millis d, const ToolContext& ctx) const {
  if (d.count() <= 0) return !ctx.should_stop();
  if (!ctx.deadline.is_never() && ctx.deadline.remaining() < d) return false;
  if (options_.sleep) {
    options_.sleep(d);
  } else {
    ctx.cancel.WaitFor(d);
  }
  return !ctx.cancel.cancelled();
}

Result<LiteratureResponse> LiteratureFetcher::Get(const LiteratureRequest& request, const ToolContext& ctx,
                                                  const AcceptBody& accept) const {
  const std::string key = LiteratureCacheKey("GET", request.url);
  if (options_.online) return GetOnline(request, key, ctx, accept);

  const std::string miss = "not in the literature cache, and the pack is offline (online is off): " + request.what +
                           " " + RedactUrl(request.url);
  Result<LiteratureCache*> cache = Cache();
  if (!cache.ok()) return Status::NotFound(miss + "; the cache cannot be opened: " + cache.status().message());
  if (*cache == nullptr) return Status::NotFound(miss + "; the cache is disabled");
  Result<std::optional<CachedResponse>> hit = (*cache)->Get(key);
  if (!hit.ok()) return hit.status();
  if (!hit->has_value()) return Status::NotFound(miss);
  if (accept) {
    if (Status s = accept(**hit); !s.ok()) {
      return s.WithContext("cached " + request.what + " response of " + (*hit)->fetched_at);
    }
  }
  return LiteratureResponse{std::move(**hit), true};
}

Result<LiteratureResponse> LiteratureFetcher::GetOnline(const LiteratureRequest& request, const std::string& key,
                                                        const ToolContext& ctx, const AcceptBody& accept) const {
  const RetryPolicy policy{.max_retries = options_.max_retries,
                           .initial_backoff = options_.initial_backoff,
                           .max_backoff = options_.max_backoff,
                           .request_timeout = options_.request_timeout};
  auto stopped = [&](const char* when) {
    return ctx.cancel.cancelled() ? Status::Cancelled(request.what + " cancelled " + when)
                                  : Status::Timeout(request.what + ": the call's deadline passed " + when);
  };
  RetryCall call{
      .deadline = ctx.deadline,
      .cancel = ctx.cancel,
      .what = "literature " + request.what,
      .before_attempt =
          [&]() {
            if (request.limiter != nullptr && !Wait(request.limiter->Reserve(), ctx)) {
              return stopped("while waiting for the rate limit");
            }
            return Status::OK();
          },
      .wait = [&](Millis delay) { return Wait(delay, ctx); },
      .stopped =
          [&](RetryStop stop) {
            switch (stop) {
              case RetryStop::kCancelledAfterAttempt:
                return Status::Cancelled(request.what + " cancelled");
              case RetryStop::kStoppedWhileWaiting:
                return stopped("while waiting to retry");
              case RetryStop::kCancelledBeforeAttempt:
              case RetryStop::kDeadlineBeforeFirstAttempt:
                break;
            }
            return stopped("before the request was sent");
          },
      .give_up =
          [&](const RetryGiveUpInfo& info) {
            switch (info.reason) {
              case RetryGiveUp::kDeadlinePassed:
                return GiveUp(info.last, request.what, info.attempts, "the deadline passed");
              case RetryGiveUp::kRetriesExhausted:
                break;
              case RetryGiveUp::kDeadlineNearerThanDelay:
                return GiveUp(info.last, request.what, info.attempts,
                              "the call's deadline is nearer than the " + std::to_string(info.delay.count()) +
                                  " ms retry delay");
            }
            return GiveUp(info.last, request.what, info.attempts, "gave up");
          },
  };
  // One GET. The status is left 0 in the attempt: GiveUp reads the code,
  // which HttpStatusError chose by status.
  return CallWithRetriesT<LiteratureResponse>(policy, call, [&](Millis budget) {
    RetryAttempt<LiteratureResponse> attempt;
    budget = std::max(budget, Millis(1));  // 0 would mean "no limit"
    HttpRequest http{.method = "GET",
                     .url = request.url,
                     .connect_timeout = std::min(options_.connect_timeout, budget),
                     .total_timeout = budget,
                     .idle_timeout = budget};
    Result<HttpResponse> response = options_.transport->Send(http, nullptr, ctx.cancel);
    if (ctx.cancel.cancelled() || (!response.ok() && response.status().code() == StatusCode::kCancelled)) {
      attempt.error = Status::Cancelled(request.what + " cancelled");
    } else if (!response.ok()) {
      attempt.error = response.status();
      attempt.retryable = IsRetryableTransportError(attempt.error);
    } else if (response->status / 100 != 2) {
      attempt.error = HttpStatusError(*response, request.url);
      attempt.retryable = IsRetryableHttpStatus(response->status);
      attempt.retry_after = RetryAfter(*response);
    } else {
      CachedResponse body{.status = response->status,
                          .content_type = response->Header("content-type"),
                          .body = std::move(response->body),
                          .fetched_at = UtcTimestamp()};
      attempt.error = accept ? accept(body) : Status::OK();
      if (attempt.error.ok()) {
        if (Result<LiteratureCache*> cache = Cache(); cache.ok() && *cache != nullptr) {
          if (Status s = (*cache)->Put(key, body); !s.ok()) Log().warn("literature cache: {}", s.message());
        }
        attempt.response = LiteratureResponse{std::move(body), false};
      } else {
        attempt.retryable = attempt.error.code() == StatusCode::kResourceExhausted;
      }
    }
    return attempt;
  });
}

}  // namespace medreact
