// What the literature clients share: their options (LiteratureOptions, with
// the environment read by ResolveLiteratureOptions) and the one way they
// fetch a URL (LiteratureFetcher): online or from the cache, rate-limited,
// with timeouts, retries and cancellation.
//
// Network access is opt-in. A fetcher sends requests only when
// `online` is true; otherwise it serves the literature cache and a miss is
// an error saying "not in the literature cache (offline; its online setting is off)".
// ResolveLiteratureOptions sets `online` when a base URL was given
// explicitly (in the options or MEDREACT_*_URL), so pointing a source at a
// mirror or a test server is enough to use it.
//
// Retries follow the model clients' policy (llm/retry.h): a transport
// failure (refused, reset, timeout) and HTTP 408, 409, 429 and 5xx are tried
// again, after the server's Retry-After when given (seconds, HTTP-date or
// retry-after-ms; capped at max_backoff), else after initial_backoff * 2^n
// with jitter; other 4xx return at once. A body the client rejects with
// kResourceExhausted (E-utilities' "API rate limit exceeded" inside an HTTP
// 200) is retried the same way; any other rejection is final. No retry starts
// when the call's deadline would pass during the wait; cancellation stops
// everything at once, waits included. Thread-safe.
#ifndef MEDREACT_TOOLS_LITERATURE_LITERATURE_FETCH_H_
#define MEDREACT_TOOLS_LITERATURE_LITERATURE_FETCH_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "medreact/cancel.h"
#include "core/text_util.h"  // UrlEncode
#include "medreact/http.h"
#include "medreact/status.h"
#include "medreact/tool.h"
#include "tools/literature/evidence.h"
#include "tools/literature/literature_cache.h"
#include "tools/literature/rate_limiter.h"

namespace medreact {

// Public endpoints, as documented by each service:
// E-utilities https://www.ncbi.nlm.nih.gov/books/NBK25497/ ("Base URL"),
// ClinicalTrials.gov API v2 https://clinicaltrials.gov/data-api/api,
// Europe PMC REST https://europepmc.org/RestfulWebService.
inline constexpr const char kDefaultPubMedUrl[] = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/";
inline constexpr const char kDefaultCtgovUrl[] = "https://clinicaltrials.gov/api/v2/";
inline constexpr const char kDefaultEuropePmcUrl[] = "https://www.ebi.ac.uk/europepmc/webservices/rest/";

// NCBI: "no more than three URL requests per second", ten with an API key
// (E-utilities, NBK25497, "Usage Guidelines and Requirements").
inline constexpr double kNcbiRequestsPerSecond = 3;
inline constexpr double kNcbiRequestsPerSecondWithKey = 10;

struct LiteratureOptions {
  // Live requests. The fetcher does what this says; ResolveLiteratureOptions
  // turns an explicitly given base URL into true. Default: false (offline:
  // answers come from the cache only)
  bool online = false;
  // E-utilities base, ending in "/eutils/". Default: "" = MEDREACT_PUBMED_URL,
  // else kDefaultPubMedUrl
  std::string pubmed_url;
  // ClinicalTrials.gov API v2 base ("/studies" is appended). Default: "" =
  // MEDREACT_CTGOV_URL, else kDefaultCtgovUrl
  std::string ctgov_url;
  // Europe PMC REST base ("search" is appended). Default: "" =
  // MEDREACT_EUROPEPMC_URL, else kDefaultEuropePmcUrl
  std::string europepmc_url;
  // NCBI API key, sent as api_key (never cached, logged or shown). Default:
  // "" = NCBI_API_KEY, else none
  std::string ncbi_api_key;
  // Contact address NCBI asks tools to send as email. Default: "" =
  // NCBI_EMAIL, else none
  std::string ncbi_email;
  std::string ncbi_tool = "medreact";  // sent as tool=. Default: "medreact"
  // E-utilities requests per second. Default: 0 = 3, or 10 with an API key
  double pubmed_requests_per_second = 0;
  // Keep every accepted response in the literature cache (and serve from it
  // offline). Default: true
  bool use_cache = true;
  // The cache file, opened at the first request. Default: "" =
  // DefaultLiteratureCachePath() ($XDG_CACHE_HOME/medreact/literature.sqlite)
  std::string cache_path;
  Millis request_timeout{20'000};  // one attempt, at most. Default: 20 s
  Millis connect_timeout{10'000};  // TCP+TLS connect. Default: 10 s
  int max_retries = 3;             // after the first attempt. Default: 3
  Millis initial_backoff{1'000};   // first retry delay before jitter. Default: 1 s
  Millis max_backoff{30'000};      // cap on any retry delay, Retry-After included. Default: 30 s
  std::shared_ptr<HttpTransport> transport;  // Default: nullptr = libcurl
  // Waits for retries and the rate limit; tests record them. Default: wait
  // on the call's cancellation token
  std::function<void(Millis)> sleep;
  // The rate limiter's clock; tests use a fake one. Default: steady clock
  RateLimiter::Clock now;
};

// Fills what the options leave empty from the environment (`getenv`
// Default: std::getenv) and the defaults, drops trailing slashes and adds
// one, sets `online` when a base URL was given in the options or the
// environment, and checks that every base URL is http(s). InvalidArgument
// naming the variable when one is not.
Result<LiteratureOptions> ResolveLiteratureOptions(LiteratureOptions options,
                                                   const std::function<const char*(const char*)>& getenv = {});

// What one search returned: the evidence (at most the number asked for, in
// the source's order), the source's total count of matches, notes a reader
// should see (phrases the source ignored or did not find), and whether every
// response came from the cache.
struct LiteratureResults {
  std::vector<Evidence> evidence;
  int64_t total = 0;
  std::vector<std::string> notes;
  bool from_cache = false;
};

// One GET as the clients describe it.
struct LiteratureRequest {
  std::string url;   // the full URL sent (secrets included)
  std::string what;  // names it in errors, after the source's name: "esearch"
  RateLimiter* limiter = nullptr;  // the service's limiter, or none
};

struct LiteratureResponse {
  CachedResponse response;
  bool from_cache = false;
};

// Checks a 2xx body: OK to accept (and cache) it; kResourceExhausted to
// retry; anything else fails the request with that status.
using AcceptBody = std::function<Status(const CachedResponse&)>;

class LiteratureFetcher {
 public:
  // Options as given: call ResolveLiteratureOptions first for the
  // environment and the defaults. Empty base URLs get the defaults (not the
  // environment) and a trailing '/'; an empty cache_path means the default.
  explicit LiteratureFetcher(LiteratureOptions options);

  // Online: GET with retries, `accept` on each 2xx body, the accepted one
  // cached. Offline: the cached response, through `accept`; a miss is
  // NotFound "<what> is not in the literature cache (offline; its online setting is off)".
  // Errors name `what`; a failure after retries says how many attempts.
  Result<LiteratureResponse> Get(const LiteratureRequest& request, const ToolContext& ctx,
                                 const AcceptBody& accept) const;

  const LiteratureOptions& options() const { return options_; }

 private:
  // The cache, opened at first use; null when disabled or (online) unusable.
  Result<LiteratureCache*> Cache() const;
  Result<LiteratureResponse> GetOnline(const LiteratureRequest& request, const std::string& key,
                                       const ToolContext& ctx, const AcceptBody& accept) const;
  // Waits `d` unless cancelled or past the deadline; false when it did not.
  bool Wait(Millis d, const ToolContext& ctx) const;

  LiteratureOptions options_;
  mutable std::mutex cache_mu_;
  mutable bool cache_tried_ = false;
  mutable Status cache_error_;
  mutable std::shared_ptr<LiteratureCache> cache_;
};

}  // namespace medreact

#endif  // MEDREACT_TOOLS_LITERATURE_LITERATURE_FETCH_H_
