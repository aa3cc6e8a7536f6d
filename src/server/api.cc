#include "server/api.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <iostream>

#include "core/otel.h"
#include "core/printable.h"
#include "server/access_log.h"
#include "server/api_state.h"
#include "server/auth.h"
#include "server/rate_limit.h"

namespace medreact::server {
namespace {

struct Route {
  const char* method;
  const char* pattern;  // segments; "{name}" matches one
  bool open;            // answered without a token (/healthz)
  bool on_io_thread;    // cheap: answered where it arrives
  std::function<void(ApiState&, const std::shared_ptr<Exchange>&, const Params&)> run;
};

std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    const size_t j = path.find('/', i);
    out.emplace_back(path.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
    if (j == std::string_view::npos) break;
    i = j;
  }
  return out;
}

const std::vector<Route>& Routes() {
  static const std::vector<Route> routes = {
      // The clinician's page (web/, embedded): open, as /healthz.
      {"GET", "/", true, true, ServePage},
      {"GET", "/assets/{name}", true, true, ServeAsset},
      {"GET", "/v1/session", true, false, ShowSession},
      {"POST", "/v1/session", true, false, StartSession},
      {"POST", "/v1/session/end", true, true, EndSession},
      {"GET", "/healthz", true, true,
       [](ApiState&, const std::shared_ptr<Exchange>& ex, const Params&) {
         ex->Respond(JsonResponse(200, Json{{"ok", true}}));
       }},
      {"GET", "/readyz", true, false,
       [](ApiState& s, const std::shared_ptr<Exchange>& ex, const Params&) {
         // Ready: the store answers and the run queue has room.
         Result<int64_t> cursor = s.service.store()->LastEventCursor();
         if (!cursor.ok()) return ex->Respond(ErrorResponse("unavailable", "the run store does not answer"));
         if (s.queued >= s.options.max_queued_runs) {
           return ex->Respond(ErrorResponse("unavailable", "the run queue is full"));
         }
         ex->Respond(JsonResponse(200, Json{{"ready", true}, {"runs_executing", s.executing.load()},
                                            {"runs_queued", s.queued.load()}}));
       }},
      {"GET", "/metrics", false, false,
       [](ApiState& s, const std::shared_ptr<Exchange>& ex, const Params&) {
         ex->Respond({.content_type = "text/plain; version=0.0.4; charset=utf-8", .body = RenderMetrics(s)});
       }},
      {"GET", "/v1/apps", false, true,
       [](ApiState& s, const std::shared_ptr<Exchange>& ex, const Params&) { ListApps(s, ex); }},
      {"GET", "/v1/runs", false, false,
       [](ApiState& s, const std::shared_ptr<Exchange>& ex, const Params&) { ListRuns(s, ex); }},
      {"POST", "/v1/runs", false, false,
       [](ApiState& s, const std::shared_ptr<Exchange>& ex, const Params&) { StartRun(s, ex); }},
      {"GET", "/v1/runs/{id}", false, false, ShowRun},
      {"GET", "/v1/runs/{id}/events", false, false, RunEvents},
      {"GET", "/v1/runs/{id}/images", false, false, RunImages},
      {"POST", "/v1/runs/{id}/cancel", false, false, CancelRun},
      {"POST", "/v1/runs/{id}/resume", false, false, ResumeRun},
      {"GET", "/v1/approvals", false, false,
       [](ApiState& s, const std::shared_ptr<Exchange>& ex, const Params&) { ListAllApprovals(s, ex); }},
      {"GET", "/v1/runs/{id}/approvals", false, false, ListApprovals},
      {"GET", "/v1/runs/{id}/triage", false, false, ShowTriageCase},
      {"POST", "/v1/runs/{id}/approvals/{call_id}", false, false, DecideApproval},
      {"GET", "/v1/events", false, false,
       [](ApiState& s, const std::shared_ptr<Exchange>& ex, const Params&) { ManyRunsEvents(s, ex); }},
      {"GET", "/v1/artifacts/{sha256}", false, false, GetArtifact},
      {"POST", "/v1/worklists", false, false,
       [](ApiState& s, const std::shared_ptr<Exchange>& ex, const Params&) { CreateWorklist(s, ex); }},
      {"GET", "/v1/worklists", false, false,
       [](ApiState& s, const std::shared_ptr<Exchange>& ex, const Params&) { ListWorklists(s, ex); }},
      {"GET", "/v1/worklists/{id}", false, false, ShowWorklist},
      {"POST", "/v1/worklists/{id}/cancel", false, false, CancelWorklist},
      {"GET", "/v1/models", false, true,
       [](ApiState& s, const std::shared_ptr<Exchange>& ex, const Params&) { ListModels(s, ex); }},
      {"GET", "/v1/models/{id}", false, true, ShowModel},
      {"POST", "/v1/chat/completions", false, false,
       [](ApiState& s, const std::shared_ptr<Exchange>& ex, const Params&) { ChatCompletions(s, ex); }},
  };
  return routes;
}

// The route for a request: its pattern's parameters, or why none matched
// (404, or 405 when the path is known with another method).
const Route* Match(const HttpRequest& r, Params* params, bool* other_method) {
  const std::vector<std::string> got = Segments(r.path);
  for (const Route& route : Routes()) {
    const std::vector<std::string> want = Segments(route.pattern);
    if (want.size() != got.size()) continue;
    Params p;
    bool ok = true;
    for (size_t i = 0; i < want.size() && ok; ++i) {
      if (want[i].front() == '{') {
        std::optional<std::string> decoded = PercentDecode(got[i], false);
        if (!decoded || decoded->empty()) ok = false;
        else p.push_back(std::move(*decoded));
      } else {
        ok = want[i] == got[i];
      }
    }
    if (!ok) continue;
    if (r.method != route.method && !(r.method == "HEAD" && std::string_view(route.method) == "GET")) {
      *other_method = true;
      continue;
    }
    *params = std::move(p);
    return &route;
  }
  return nullptr;
}

// The host part of a Host header ("127.0.0.1:8080" → "127.0.0.1", "[::1]:80" → "::1").
std::string HostName(std::string_view host) {
  if (!host.empty() && host.front() == '[') {
    const size_t end = host.find(']');
    return std::string(host.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1));
  }
  return std::string(host.substr(0, host.find(':')));
}

// An exchange that logs its answer (no body, no query string) and counts it.
class LoggedExchange : public Exchange {
 public:
  LoggedExchange(std::shared_ptr<Exchange> inner, std::string route, bool log, MetricsRegistry& metrics)
      : inner_(std::move(inner)),
        route_(std::move(route)),
        log_(log),
        metrics_(metrics),
        start_(std::chrono::steady_clock::now()) {}
  const HttpRequest& request() const override { return inner_->request(); }
  void Respond(HttpResponse response) override {
    Log(response.status, response.body.size());
    inner_->Respond(std::move(response));
  }
  std::shared_ptr<EventStream> Stream(HeaderList headers, std::string content_type) override {
    Log(200, 0);
    return inner_->Stream(std::move(headers), std::move(content_type));
  }

 private:
  void Log(int status, size_t bytes) {
    if (logged_.exchange(true)) return;
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
    metrics_.Increment(kMetricHttpRequests, {route_, std::to_string(status)});
    metrics_.Observe(kMetricHttpSeconds, {route_}, ms / 1000);
    if (!log_) return;
    std::cerr << AccessLogLine({.method = request().method,
                                .route = route_,
                                .target = request().path,
                                .status = status,
                                .bytes = bytes,
                                .duration_ms = ms,
                                .client = request().peer})
              << "\n";
  }
  std::shared_ptr<Exchange> inner_;
  std::string route_;
  bool log_;
  MetricsRegistry& metrics_;  // the Api's, which outlives its exchanges' answers
  std::chrono::steady_clock::time_point start_;
  std::atomic<bool> logged_{false};
};

}  // namespace

ApiState::ApiState(const ServeOptions& o, std::shared_ptr<service::RunService> s, std::shared_ptr<EventHub> h)
    : options(o),
      owned_service(std::move(s)),
      service(*owned_service),
      owned_hub(std::move(h)),
      hub(*owned_hub),
      runs(std::max(1, o.max_concurrent_runs)) {}

bool ApiState::Enqueue(std::function<void()> work) {
  if (queued.fetch_add(1) >= options.max_queued_runs) {
    --queued;
    return false;
  }
  runs.Submit([self = shared_from_this(), work = std::move(work)] {
    --self->queued;
    ++self->executing;
    work();
    --self->executing;
  });
  return true;
}

HttpResponse ErrorResponse(const std::string& code, const std::string& message, const std::string& field) {
  static const std::map<std::string, int> kStatus = {
      {"bad_request", 400}, {"unauthorized", 401},  {"forbidden", 403},   {"not_found", 404},
      {"method_not_allowed", 405}, {"conflict", 409}, {"too_large", 413}, {"unsupported_media_type", 415},
      {"rate_limited", 429}, {"internal", 500},     {"unavailable", 503}};
  auto it = kStatus.find(code);
  Json error{{"code", code}, {"message", message}};
  if (!field.empty()) error["field"] = field;
  return JsonResponse(it == kStatus.end() ? 500 : it->second, Json{{"error", std::move(error)}});
}

HttpResponse JsonResponse(int status, const Json& body) {
  return {.status = status, .content_type = "application/json", .body = DumpJson(body)};
}

HttpResponse StatusResponse(const Status& status, const std::string& field) {
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kParseError:
      return ErrorResponse("bad_request", status.message(), field);
    case StatusCode::kNotFound:
      return ErrorResponse("not_found", status.message(), field);
    case StatusCode::kFailedPrecondition:
      return ErrorResponse("conflict", status.message(), field);
    case StatusCode::kPermissionDenied:
      return ErrorResponse("forbidden", status.message(), field);
    case StatusCode::kResourceExhausted:
      return ErrorResponse("rate_limited", status.message(), field);
    case StatusCode::kUnavailable:
    case StatusCode::kTimeout:
      return ErrorResponse("unavailable", status.message(), field);
    default:
      return ErrorResponse("internal", status.message(), field);
  }
}

Result<Json> JsonBody(const HttpRequest& request, std::string* field) {
  const std::string type = request.Header("content-type");
  if (type.rfind("application/json", 0) != 0) {
    *field = "content-type";
    return Status::InvalidArgument("the body must be JSON (content-type: application/json)");
  }
  Result<Json> body = ParseJson(request.body);
  if (!body.ok()) {
    *field = "body";
    return Status::InvalidArgument("the body is not JSON: " + body.status().message());
  }
  if (!body->is_object()) {
    *field = "body";
    return Status::InvalidArgument("the body must be a JSON object");
  }
  return body;
}

Api::Api(const ServeOptions& options, std::shared_ptr<service::RunService> service, std::shared_ptr<EventHub> hub)
    : state_(std::make_shared<ApiState>(options, std::move(service), std::move(hub))) {
  limiter_ = std::make_shared<RateLimiter>(
      RateLimitOptions{.per_second = options.rate_per_second, .burst = options.rate_burst});
  ApiState& s = *state_;
  RegisterServerMetrics(s.metrics);
  s.metrics.AddCounter("medreact_events_streamed_total", "Stored events sent to event-stream clients.");
  s.metrics.AddGauge("medreact_runs_executing", "Runs this server is executing now.");
  s.metrics.AddGauge("medreact_runs_queued", "Runs waiting for a run slot.");
  s.metrics.AddGauge("medreact_open_connections", "HTTP connections open now.");
  s.metrics.AddCounter("medreact_streams_dropped_slow_total",
                       "Event streams closed because their reader fell too far behind (it reconnects and replays).");
  s.metrics.AddCounter("medreact_chat_completions_total",
                       "Chat completions of the OpenAI-compatible facade, by model and how they ended (a run's status, "
                       "or task: answered without a run).",
                       {"model", "outcome"});
  // Traces (core/otel.h): what became of this process's spans, counted since it started.
  s.metrics.AddGauge("medreact_otel_spans",
                     "Trace spans since the process started, by outcome: ended, exported, dropped (queue full, "
                     "collector down, slow or refusing).",
                     {"outcome"});
  s.metrics.AddGauge("medreact_otel_failed_exports", "OTLP export requests that failed since the process started.");
  s.metrics.SetGaugeCallback("medreact_otel_spans", [] {
    const otel::TracerStats t = otel::GlobalTracerStats();
    return std::vector<GaugeSample>{{.label_values = {"ended"}, .value = double(t.ended)},
                                    {.label_values = {"exported"}, .value = double(t.exported)},
                                    {.label_values = {"dropped"}, .value = double(t.dropped)}};
  });
  s.metrics.SetGaugeCallback("medreact_otel_failed_exports", [] {
    return std::vector<GaugeSample>{{.value = double(otel::GlobalTracerStats().failed_exports)}};
  });
  std::weak_ptr<ApiState> weak = state_;
  s.metrics.SetGaugeCallback(kMetricRuns, [weak] {
    std::vector<GaugeSample> out;
    auto st = weak.lock();
    if (!st) return out;
    if (Result<std::vector<RunStore::RunCount>> counts = st->service.store()->CountRuns(); counts.ok()) {
      for (const auto& c : *counts) out.push_back({.label_values = {c.app, c.status}, .value = double(c.runs)});
    }
    return out;
  });
}

Api::~Api() = default;

void Api::SetEngineStats(std::function<HttpEngineStats()> stats) { state_->engine_stats = std::move(stats); }

void Api::Handle(std::shared_ptr<Exchange> raw) {
  ApiState& s = *state_;
  const HttpRequest& r = raw->request();
  Params params;
  bool other_method = false;
  const Route* route = Match(r, &params, &other_method);
  auto ex = std::make_shared<LoggedExchange>(raw, route ? route->pattern : "(unmatched)", s.options.access_log,
                                             s.metrics);

  // CORS: a browser's request from another origin is answered only for the
  // configured origins; a request from any other origin is refused before
  // it does anything (a page elsewhere must not start runs on a loopback
  // server that has no token).
  HeaderList cors;
  const std::string origin = r.Header("origin");
  if (!origin.empty()) {
    const bool same = origin == "http://" + r.Header("host") || origin == "https://" + r.Header("host");
    const bool allowed =
        std::find(s.options.cors_origins.begin(), s.options.cors_origins.end(), origin) != s.options.cors_origins.end();
    if (!same && !allowed) {
      return ex->Respond(ErrorResponse("forbidden", "requests from origin '" + PrintableLine(origin) +
                                                        "' are not allowed (the server's CORS origins)"));
    }
    if (allowed) {
      cors = {{"access-control-allow-origin", origin},
              {"vary", "origin"},
              {"access-control-expose-headers", "x-medreact-run-id, location, retry-after"}};
      if (r.method == "OPTIONS") {
        HttpResponse pre{.status = 204, .content_type = "", .headers = cors};
        pre.headers.emplace_back("access-control-allow-methods", "GET, POST, OPTIONS");
        // The headers the page asks for (an SDK adds its own, e.g. x-stainless-*),
        // when they are plain header names; else the ones the API reads.
        std::string asked = r.Header("access-control-request-headers");
        const bool plain = !asked.empty() && asked.size() <= 1024 &&
                           std::all_of(asked.begin(), asked.end(), [](char c) {
                             return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
                                    c == ',' || c == ' ';
                           });
        pre.headers.emplace_back("access-control-allow-headers",
                                 plain ? asked : std::string("authorization, content-type, last-event-id"));
        pre.headers.emplace_back("access-control-max-age", "600");
        return ex->Respond(std::move(pre));
      }
    }
  }
  auto respond_error = [&](HttpResponse e) {
    e.headers.insert(e.headers.end(), cors.begin(), cors.end());
    ex->Respond(std::move(e));
  };
  // A loopback server without a token answers only to its own names (a
  // DNS-rebound name pointing a browser at 127.0.0.1 is refused).
  if (s.options.token.empty()) {
    const std::string host = HostName(r.Header("host"));
    if (!host.empty() && !IsLoopbackAddress(host) && host != s.options.host) {
      return respond_error(ErrorResponse("forbidden", "the Host header does not name this server"));
    }
  }
  if (!route) {
    return respond_error(other_method ? ErrorResponse("method_not_allowed", r.method + " is not allowed on this path")
                                      : ErrorResponse("not_found", "no such route"));
  }
  // Signing in is rate-limited like the API (a token is not guessed fast).
  const bool signing_in = r.method == "POST" && std::string_view(route->pattern) == "/v1/session";
  if (!route->open || signing_in) {
    std::optional<std::string> given = BearerToken(r.Header("authorization"));
    if (!route->open && !s.options.token.empty() && !given && HasValidSession(s, r)) {
      // The page, signed in by its cookie. A browser sends the cookie with
      // any request to this origin, so a change must also carry the page's
      // header, which another origin's page cannot add without a CORS
      // preflight (refused above) — a form elsewhere cannot post here.
      if (r.method != "GET" && r.Header("x-medreact-page") != "1") {
        return respond_error(ErrorResponse("forbidden", "a signed-in page's request needs the x-medreact-page header"));
      }
    } else if (!route->open && !s.options.token.empty()) {
      if (!given || !TokenMatches(s.options.token, *given)) {
        HttpResponse e = ErrorResponse("unauthorized", given ? "the token is not this server's"
                                                             : "this server needs a bearer token (authorization: Bearer ...)");
        e.headers.emplace_back("www-authenticate", "Bearer");
        return respond_error(std::move(e));
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (!limiter_->Allow(r.peer, now)) {
      HttpResponse e = ErrorResponse("rate_limited", "too many requests from this client; retry later");
      e.headers.emplace_back("retry-after",
                             std::to_string(static_cast<int>(std::ceil(limiter_->RetryAfterSeconds(r.peer, now)))));
      return respond_error(std::move(e));
    }
  }
  // Answer with the CORS headers on every response of an allowed origin.
  std::shared_ptr<Exchange> answer = ex;
  if (!cors.empty()) {
    class WithHeaders : public Exchange {
     public:
      WithHeaders(std::shared_ptr<Exchange> inner, HeaderList extra)
          : inner_(std::move(inner)), extra_(std::move(extra)) {}
      const HttpRequest& request() const override { return inner_->request(); }
      void Respond(HttpResponse r) override {
        r.headers.insert(r.headers.end(), extra_.begin(), extra_.end());
        inner_->Respond(std::move(r));
      }
      std::shared_ptr<EventStream> Stream(HeaderList h, std::string t) override {
        h.insert(h.end(), extra_.begin(), extra_.end());
        return inner_->Stream(std::move(h), std::move(t));
      }

     private:
      std::shared_ptr<Exchange> inner_;
      HeaderList extra_;
    };
    answer = std::make_shared<WithHeaders>(ex, cors);
  }
  if (route->on_io_thread) return route->run(s, answer, params);
  const bool waits = r.method == "POST" && (std::string_view(route->pattern) == "/v1/runs" ||
                                            std::string_view(route->pattern) == "/v1/worklists");
  (waits ? s.starts : s.requests).Submit([state = state_, route, answer, params = std::move(params)] {
    try {
      route->run(*state, answer, params);
    } catch (const std::exception&) {
      answer->Respond(ErrorResponse("internal", "the server failed on this request; see its log"));
    }
  });
}

}  // namespace medreact::server
