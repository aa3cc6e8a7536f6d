// The server's routes (`medreact serve`): JSON at the edge over the run
// service, one error shape, the token, CORS and rate limits. Server (server.h)
// builds one Api and hands its Handle to the HTTP engine.
//
// Routes (README, "medreact serve", has a curl example of each):
//   GET  /, /assets/{name}                 the clinician's page (web/, embedded; api_page.cc): no token
//   GET  /healthz, /readyz, /metrics
//   GET  /v1/apps                          the app table (each app's inputs as a JSON Schema)
//   POST /v1/runs                          {"app", "inputs"}: 201 {"run": ...} once the run is stored
//   GET  /v1/runs?q=&app=&status=&limit=&offset=   q: a part of the run id (any case), never the inputs
//   GET  /v1/runs/{id}                     status, result, who holds it, the calls it waits for;
//                                          ?events=1: its stored events (?events_after=N: after seq N),
//                                          each as a stream's data with "id" = its store-wide position
//   GET  /v1/runs/{id}/events              SSE: id = the event's number in the run; Last-Event-ID / ?since=
//   GET  /v1/events?runs=a,b|app=NAME      SSE over many runs: id = the store-wide position
//   POST /v1/runs/{id}/cancel
//   GET  /v1/runs/{id}/approvals
//   POST /v1/runs/{id}/approvals/{call_id} {"decision": "approve"|"edit"|"reject", "arguments", "reason", "reviewer"}
//   GET  /v1/artifacts/{sha256}            an image a run kept
//   GET  /v1/runs/{id}/images              the images a cxr run kept (ids, hashes, what made them)
//   POST /v1/runs/{id}/resume              an interrupted or failed run goes on from its checkpoint
//   POST /v1/worklists, GET /v1/worklists/{id}, POST /v1/worklists/{id}/cancel
//   GET  /v1/models, /v1/models/{id}, POST /v1/chat/completions   the OpenAI-compatible facade (api_openai.cc)
//
// Errors: {"error": {"code": "...", "message": "...", "field": "..."}} with
// the HTTP status of the code (ErrorResponse).
#ifndef MEDREACT_SERVER_API_H_
#define MEDREACT_SERVER_API_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "server/http.h"
#include "server/http_engine.h"
#include "server/server_options.h"

namespace medreact::service {
class RunService;
}

namespace medreact::server {

class EventHub;
class RateLimiter;
struct ApiState;

class Api {
 public:
  // Work still going after a stop (runs, requests on the pools' workers)
  // holds `service` and `hub`, so neither is gone under it.
  Api(const ServeOptions& options, std::shared_ptr<service::RunService> service, std::shared_ptr<EventHub> hub);
  ~Api();
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;

  // The HttpHandler: called on an I/O thread; never blocks.
  void Handle(std::shared_ptr<Exchange> exchange);

  // Takes over the runs whose owner died (their leases) and goes on with
  // them on the run pool; returns the ids taken.
  std::vector<std::string> TakeOverOrphans();
  // Stops every run this server runs (they end interrupted, resumable) and
  // waits up to `seconds` for them to store their end.
  void StopRuns(double seconds);
  // Counters the engine keeps (open streams, ...), for /metrics.
  void SetEngineStats(std::function<HttpEngineStats()> stats);

 private:
  std::shared_ptr<ApiState> state_;
  std::shared_ptr<RateLimiter> limiter_;
};

// {"error": {"code", "message", "field"?}} with the status `code` maps to
// (bad_request 400, unauthorized 401, forbidden 403, not_found 404,
// conflict 409, too_large 413, rate_limited 429, unavailable 503,
// internal 500).
HttpResponse ErrorResponse(const std::string& code, const std::string& message, const std::string& field = "");

}  // namespace medreact::server

#endif  // MEDREACT_SERVER_API_H_
