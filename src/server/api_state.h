// What the server's route files share (internal to src/server): the state
// every route reads, the helpers that answer with JSON or the one error
// shape, and the route files' entry points. Not a public header.
#ifndef MEDREACT_SERVER_API_STATE_H_
#define MEDREACT_SERVER_API_STATE_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/thread_pool.h"
#include "medreact/json.h"
#include "medreact/status.h"
#include "server/api.h"
#include "server/event_hub.h"
#include "server/http.h"
#include "server/http_engine.h"
#include "server/metrics.h"
#include "server/server_options.h"
#include "service/run_service.h"

namespace medreact::server {

// A run this server executes (or queued to), for cancel and shutdown.
struct ServerRun {
  CancellationToken cancel;
  std::string app;
  std::chrono::steady_clock::time_point queued;
};

// A worklist this server runs (api_worklists.cc); guarded by ApiState::mu.
struct ServerWorklist {
  std::string id;
  std::string dir;     // the cases' folder
  std::string folder;  // <store>.worklists/<id>
  std::string status = "running";  // running | finished | interrupted
  std::string created_at;
  int concurrency = 4;
  size_t total = 0, done = 0, failed = 0;
  Json cases = Json::array();  // the cases finished so far
  CancellationToken cancel;
  // The job-queue batch its cases were put in (ServeOptions::worklist_queue);
  // "" when it runs in this server. A queued worklist is read from its batch.
  std::string batch;
};

struct ApiState : std::enable_shared_from_this<ApiState> {
  ApiState(const ServeOptions& o, std::shared_ptr<service::RunService> s, std::shared_ptr<EventHub> h);

  ServeOptions options;
  std::shared_ptr<service::RunService> owned_service;  // runs still going after a stop hold it
  service::RunService& service;
  // A request or run still going on a worker after the server stopped holds
  // the state, so the hub lives as long as the state (a reference to the
  // server's hub could be read after the server had destroyed it).
  std::shared_ptr<EventHub> owned_hub;
  EventHub& hub;
  // Store reads and checks, off the I/O threads.
  ThreadPool requests{4};
  // Requests that wait for a run to be stored (POST /v1/runs), so that
  // waiting ones never hold up reads.
  ThreadPool starts{16};
  // The runs: at most max_concurrent_runs at once, the rest queued.
  ThreadPool runs;
  std::atomic<int> queued{0};
  std::mutex mu;
  std::map<std::string, std::shared_ptr<ServerRun>> live;  // by run id; guarded by mu
  std::map<std::string, std::shared_ptr<ServerWorklist>> worklists;  // by id; guarded by mu
  std::atomic<int> executing{0};
  std::atomic<bool> stopping{false};  // the server is stopping: what it cuts is gone on with at the next start
  // The engine's counters, for /metrics; holds the engine weakly (a
  // /metrics request may still run after the server and its engine are gone).
  std::function<HttpEngineStats()> engine_stats;
  MetricsRegistry metrics;
  int64_t dropped_seen = 0;  // the engine's slow-stream drops already counted; guarded by mu

  // Events sent to streams since the last /metrics (added to its counter there).
  std::atomic<int64_t> events_streamed{0};

  // Runs `work` on the run pool (a run from start to its end or pause);
  // false when the queue is full.
  bool Enqueue(std::function<void()> work);
};

// The answer helpers.
HttpResponse JsonResponse(int status, const Json& body);
// The error response for a Status (InvalidArgument 400, NotFound 404,
// FailedPrecondition 409, PermissionDenied 403, Unavailable 503, ResourceExhausted 429, else 500).
HttpResponse StatusResponse(const Status& status, const std::string& field = "");

// The body as a JSON object; the error response when it is not one.
Result<Json> JsonBody(const HttpRequest& request, std::string* field);

// The route files' handlers: each answers on the exchange.
using Params = std::vector<std::string>;
void ListRuns(ApiState& s, const std::shared_ptr<Exchange>& ex);
void ShowRun(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);
void RunEvents(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);
void ManyRunsEvents(ApiState& s, const std::shared_ptr<Exchange>& ex);
void CancelRun(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);
// The approvals (api_approvals.cc).
void ListAllApprovals(ApiState& s, const std::shared_ptr<Exchange>& ex);
void ListApprovals(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);
void DecideApproval(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);
void StartRun(ApiState& s, const std::shared_ptr<Exchange>& ex);
void ListApps(ApiState& s, const std::shared_ptr<Exchange>& ex);
void GetArtifact(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);
void RunImages(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);
std::string RenderMetrics(ApiState& s);
void CreateWorklist(ApiState& s, const std::shared_ptr<Exchange>& ex);
void ShowWorklist(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);
void CancelWorklist(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);
// GET /v1/worklists: this server's worklists (newest first, no cases) and the
// folders of cases under the input roots.
void ListWorklists(ApiState& s, const std::shared_ptr<Exchange>& ex);
// GET /v1/runs/{id}/triage: the triage result a worklist wrote for its case's run.
void ShowTriageCase(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);
// Goes on with the worklists an earlier start left running; their ids.
std::vector<std::string> ResumeWorklists(ApiState& s);
// The OpenAI-compatible facade (api_openai.cc).
void ListModels(ApiState& s, const std::shared_ptr<Exchange>& ex);
void ShowModel(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);
void ChatCompletions(ApiState& s, const std::shared_ptr<Exchange>& ex);
// The clinician's page (api_page.cc): GET / and GET /assets/{name}.
void ServePage(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);
void ServeAsset(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);
// The page's session (api_page.cc): GET /v1/session (whether the server needs
// its token, whether this browser is signed in, and the store's event
// position to stream from), POST /v1/session (the token → the cookie),
// POST /v1/session/end (the cookie cleared).
void ShowSession(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);
void StartSession(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);
void EndSession(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);
// Whether the request carries a session cookie the server's token made.
bool HasValidSession(const ApiState& s, const HttpRequest& r);

// Registers a run the server executes (or queued) in `live` under `key`
// (cancel, shutdown); dropping the returned guard removes it (unless another
// entry took the key).
std::shared_ptr<void> TrackServerRun(ApiState& s, const std::string& key, const std::shared_ptr<ServerRun>& run);
// A run's model and tool calls, counted in `metrics` (every route that runs one).
void CountCalls(ApiState& s, const Event& event);
// A run's end in `metrics` (its duration by app).
void CountRunEnd(ApiState& s, const std::string& app, std::chrono::steady_clock::time_point started);

// Goes on with a run whose decisions are all taken, or whose owner died,
// on the run pool.
void ContinueOnPool(ApiState& s, const RunRecord& run);
void ResumeRun(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p);

}  // namespace medreact::server

#endif  // MEDREACT_SERVER_API_STATE_H_
