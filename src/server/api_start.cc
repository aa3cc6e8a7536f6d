// Runs started and gone on with by the server: POST /v1/runs (JSON, or
// multipart with uploads), going on after approvals, taking over the runs
// whose owner died, stopping them all at shutdown, and the metrics.
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <future>

#include "core/file_io.h"
#include "core/otel.h"
#include "core/printable.h"
#include "core/sha256.h"
#include "server/api_state.h"
#include "server/metrics.h"
#include "server/multipart.h"
#include "service/app_runs.h"
#include "service/run_json.h"

namespace medreact::server {
namespace {

constexpr std::string_view kUploadPrefix = "upload:";

service::AppRunContext ContextOf(const ApiState& s) {
  service::AppRunContext ctx;
  ctx.model = s.options.model;
  ctx.imaging = {.vision_url = s.options.vision_url,
                 .vision_model = s.options.vision_model,
                 .vision_api_key = s.options.vision_api_key,
                 .classifier_url = s.options.classifier_url,
                 .segmentation_url = s.options.segmentation_url,
                 .grounding_url = s.options.grounding_url};
  ctx.input_roots = s.options.input_roots;
  ctx.input_roots.push_back(s.options.upload_dir);
  ctx.network_tools = s.options.network_tools;
  return ctx;
}

// Every "upload:NAME" string in `inputs` replaced by the path of the
// uploaded part NAME; InvalidArgument naming the input for an unknown part.
Status ResolveUploads(Json& j, const std::map<std::string, std::string>& paths, const std::string& where,
                      std::string* field) {
  if (j.is_string()) {
    const std::string& text = j.get_ref<const std::string&>();
    if (text.rfind(kUploadPrefix, 0) != 0) return Status::OK();
    auto it = paths.find(text.substr(kUploadPrefix.size()));
    if (it == paths.end()) {
      *field = where;
      return Status::InvalidArgument(where + " names an upload '" + PrintableLine(text.substr(kUploadPrefix.size())) +
                                     "' that is not a file part of this request");
    }
    j = it->second;
    return Status::OK();
  }
  if (j.is_object()) {
    for (auto& [key, value] : j.items()) {
      if (Status s = ResolveUploads(value, paths, where + "." + key, field); !s.ok()) return s;
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      if (Status s = ResolveUploads(j[i], paths, where + "[" + std::to_string(i) + "]", field); !s.ok()) return s;
    }
  }
  return Status::OK();
}

// A refusal's message with each uploaded file's path (the server's own
// folder) replaced by the form part that sent it: a client is told of its
// upload, never of where the server keeps it.
Status WithUploadNames(const Status& status, const std::map<std::string, std::string>& uploads) {
  std::string message = status.message();
  bool changed = false;
  for (const auto& [part, path] : uploads) {
    const std::string name = "the upload '" + PrintableLine(part) + "'";
    for (size_t at = message.find(path); at != std::string::npos; at = message.find(path, at + name.size())) {
      message.replace(at, path.size(), name);
      changed = true;
    }
  }
  if (!changed) return status;
  switch (status.code()) {
    case StatusCode::kInvalidArgument: return Status::InvalidArgument(message);
    case StatusCode::kNotFound: return Status::NotFound(message);
    case StatusCode::kFailedPrecondition: return Status::FailedPrecondition(message);
    case StatusCode::kPermissionDenied: return Status::PermissionDenied(message);
    case StatusCode::kResourceExhausted: return Status::ResourceExhausted(message);
    case StatusCode::kUnavailable: return Status::Unavailable(message);
    default: return Status::Internal(message);
  }
}

// The app and its inputs from a JSON body or a multipart form (`app`,
// `inputs` as JSON text, and files, kept in the upload folder by content;
// `*kept`: each file part's name and where it was kept).
Status ReadStart(ApiState& s, const HttpRequest& r, std::string* app, Json* inputs, std::string* field,
                 std::map<std::string, std::string>* kept) {
  const std::string type = r.Header("content-type");
  if (type.rfind("multipart/form-data", 0) == 0) {
    Result<std::vector<FormPart>> parts =
        ParseMultipart(type, r.body, {.max_total_bytes = s.options.max_body_bytes});
    if (!parts.ok()) {
      *field = "body";
      return parts.status();  // a limit is ResourceExhausted: StartRun answers 413
    }
    std::map<std::string, std::string> uploads;
    std::string inputs_text;
    for (const FormPart& part : *parts) {
      if (part.filename.empty()) {
        if (part.name == "app") *app = part.data;
        else if (part.name == "inputs") inputs_text = part.data;
        else {
          *field = part.name;
          return Status::InvalidArgument("unknown form field '" + PrintableLine(part.name) +
                                         "' (app, inputs, and files)");
        }
        continue;
      }
      const std::string path =
          s.options.upload_dir + "/" + Sha256Hex(part.data).substr(0, 32) + "-" + SafeUploadName(part.filename);
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0) {  // the same bytes under the same name: kept once
        if (Status w = WriteFileAtomic(path, part.data); !w.ok()) {
          return Status::Unavailable("the server could not keep the upload '" + PrintableLine(part.name) + "'");
        }
      }
      uploads[part.name] = path;
    }
    if (inputs_text.empty()) inputs_text = "{}";
    Result<Json> parsed = ParseJson(inputs_text);
    if (!parsed.ok()) {
      *field = "inputs";
      return Status::InvalidArgument("the form field inputs is not JSON: " + parsed.status().message());
    }
    *inputs = std::move(*parsed);
    *kept = uploads;
    return ResolveUploads(*inputs, uploads, "inputs", field);
  }
  Result<Json> body = JsonBody(r, field);
  if (!body.ok()) return body.status();
  for (const auto& [key, value] : body->items()) {
    if (key != "app" && key != "inputs") {
      *field = key;
      return Status::InvalidArgument("unknown field '" + PrintableLine(key) + "' (app, inputs)");
    }
  }
  if (!(*body)["app"].is_string()) {
    *field = "app";
    return Status::InvalidArgument("app must name an app (GET /v1/apps lists them)");
  }
  *app = (*body)["app"].get<std::string>();
  *inputs = body->contains("inputs") ? (*body)["inputs"] : Json::object();
  // An upload reference in a JSON body names nothing: uploads come with multipart.
  return ResolveUploads(*inputs, {}, "inputs", field);
}

EventSink CountingSink(ApiState& s) {
  return [&s](const Event& e) { CountCalls(s, e); };
}

}  // namespace

std::shared_ptr<void> TrackServerRun(ApiState& s, const std::string& key, const std::shared_ptr<ServerRun>& run) {
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.live[key] = run;
  }
  return std::shared_ptr<void>(nullptr, [&s, key, run](void*) {
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.live.find(key);
    if (it != s.live.end() && it->second == run) s.live.erase(it);
  });
}

void CountCalls(ApiState& s, const Event& e) {
  if (e.type == EventType::kModelRequest) s.metrics.Increment(kMetricModelCalls);
  if (e.type == EventType::kToolFinished) s.metrics.Increment(kMetricToolCalls, {e.tool_name});
}

void CountRunEnd(ApiState& s, const std::string& app, std::chrono::steady_clock::time_point started) {
  s.metrics.Observe(kMetricRunSeconds, {app},
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

void StartRun(ApiState& s, const std::shared_ptr<Exchange>& ex) {
  std::string app, field;
  Json inputs;
  std::map<std::string, std::string> uploads;
  if (Status st = ReadStart(s, ex->request(), &app, &inputs, &field, &uploads); !st.ok()) {
    return ex->Respond(st.code() == StatusCode::kResourceExhausted ? ErrorResponse("too_large", st.message(), field)
                                                                    : StatusResponse(st, field));
  }
  service::AppRunContext ctx = ContextOf(s);
  Result<std::unique_ptr<service::PreparedAppRun>> prepared =
      service::PrepareAppRun(s.service, app, inputs, ctx, &field);
  if (!prepared.ok()) return ex->Respond(StatusResponse(WithUploadNames(prepared.status(), uploads), field));

  // The run goes to the run pool; the answer waits for its id (its first
  // checkpoint), so the client can follow it at once.
  auto run = std::make_shared<ServerRun>();
  run->app = app;
  run->queued = std::chrono::steady_clock::now();
  auto id = std::make_shared<std::promise<std::string>>();
  auto answered = std::make_shared<std::atomic<bool>>(false);
  auto give_id = [id, answered](const std::string& run_id) {
    if (!answered->exchange(true)) id->set_value(run_id);
  };
  const std::string ticket = "queued:" + std::to_string(reinterpret_cast<uintptr_t>(run.get()));
  auto guard = std::make_shared<std::shared_ptr<void>>(TrackServerRun(s, ticket, run));
  auto job = std::make_shared<std::unique_ptr<service::PreparedAppRun>>(std::move(*prepared));
  // A client's W3C trace context: the run's spans continue its trace (a
  // malformed header is ignored: the run starts a trace of its own).
  const otel::SpanContext trace_parent =
      otel::ParseTraceparent(ex->request().Header("traceparent")).value_or(otel::SpanContext{});
  ApiState* state = &s;
  const bool queued = s.Enqueue([state, run, job, give_id, guard, app, ticket, trace_parent] {
    ApiState& st = *state;
    const otel::ScopedContext trace_scope(trace_parent);  // the pool's thread runs in the client's trace
    if (run->cancel.cancelled()) return give_id("");
    const auto started = std::chrono::steady_clock::now();
    std::shared_ptr<void> by_id;
    service::AppRunHooks hooks{.on_event = CountingSink(st),
                               .on_started =
                                   [&](const std::string& run_id) {
                                     by_id = TrackServerRun(st, run_id, run);
                                     guard->reset();
                                     give_id(run_id);
                                   },
                               .cancel = run->cancel};
    service::AppRunResult r = service::RunAppPrepared(st.service, std::move(*job), hooks);
    give_id(r.run_id);  // a run that ended before it was stored
    CountRunEnd(st, app, started);
  });
  if (!queued) {
    guard->reset();
    return ex->Respond(ErrorResponse("unavailable", "the server's run queue is full; retry later"));
  }
  std::future<std::string> f = id->get_future();
  if (f.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    run->cancel.Cancel();  // still queued: it will not start
    HttpResponse busy = ErrorResponse("unavailable", "every run slot is busy; retry later");
    busy.headers.emplace_back("retry-after", "5");
    return ex->Respond(std::move(busy));
  }
  const std::string run_id = f.get();
  if (run_id.empty()) {
    return ex->Respond(ErrorResponse("internal", "the run ended before it could be stored; see the server's log"));
  }
  Result<RunRecord> record = s.service.store()->Get(run_id);
  Json body{{"run", record.ok() ? service::RunRecordJson(*record) : Json{{"id", run_id}, {"app", app}}}};
  body["links"] = Json{{"self", "/v1/runs/" + run_id},
                       {"events", "/v1/runs/" + run_id + "/events"},
                       {"approvals", "/v1/runs/" + run_id + "/approvals"}};
  HttpResponse created = JsonResponse(201, body);
  created.headers.emplace_back("location", "/v1/runs/" + run_id);
  ex->Respond(std::move(created));
}

void ContinueOnPool(ApiState& s, const RunRecord& record) {
  auto run = std::make_shared<ServerRun>();
  run->app = record.app;
  run->queued = std::chrono::steady_clock::now();
  auto guard = std::make_shared<std::shared_ptr<void>>(TrackServerRun(s, record.id, run));
  ApiState* state = &s;
  const bool queued = s.Enqueue([state, run, record, guard] {
    ApiState& st = *state;
    const auto started = std::chrono::steady_clock::now();
    service::AppRunHooks hooks{.on_event = CountingSink(st), .cancel = run->cancel};
    Result<service::AppRunResult> r =
        service::ContinueAppRun(st.service, record, {.model = {.api_key = st.options.model.api_key}}, hooks,
                                ContextOf(st));
    if (!r.ok()) {
      // The run stays as stored (its checkpoint intact); the next start or
      // a resume goes on with it.
      st.service.store()->ReleaseRun(record.id);
    }
    CountRunEnd(st, record.app, started);
    guard->reset();
  });
  if (!queued) {
    guard->reset();
    s.service.store()->ReleaseRun(record.id);
  }
}

void ResumeRun(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p) {
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.live.count(p[0])) {
      return ex->Respond(ErrorResponse("conflict", "run '" + p[0] + "' is running in this server"));
    }
  }
  // The service's checks: it exists, its app can be resumed, its status
  // allows it (a paused run is decided, not resumed), and the lease.
  Result<RunRecord> run = s.service.PrepareResume(p[0]);
  if (!run.ok()) return ex->Respond(StatusResponse(run.status()));
  ContinueOnPool(s, *run);
  ex->Respond(JsonResponse(202, Json{{"run_id", p[0]}, {"status", "resuming"},
                                     {"links", {{"events", "/v1/runs/" + p[0] + "/events"}}}}));
}

namespace {
// The runs a stopping server cut (they ended interrupted), for the next start.
std::string StoppedFile(const ApiState& s) { return RunStoreFilesBase(s.service.store()->path()) + ".serve-stopped.json"; }
}  // namespace

std::vector<std::string> Api::TakeOverOrphans() {
  ApiState& s = *state_;
  std::vector<std::string> taken;
  // The runs the last stop cut: interrupted by the server, not by a person.
  if (Result<std::string> text = ReadUserFile(StoppedFile(s), "the stopped runs", 1 << 20); text.ok()) {
    Result<Json> ids = ParseJson(*text);
    for (const Json& id : ids.ok() && ids->is_array() ? *ids : Json::array()) {
      if (!id.is_string()) continue;
      Result<RunRecord> claimed = s.service.PrepareResume(id.get<std::string>());
      if (!claimed.ok()) continue;
      ContinueOnPool(s, *claimed);
      taken.push_back(claimed->id);
    }
    std::remove(StoppedFile(s).c_str());
  }
  // Worklists first: their cut cases are theirs to go on with.
  for (std::string& id : ResumeWorklists(s)) taken.push_back(std::move(id));
  Result<std::vector<RunRecord>> orphans = service::RunsToTakeOver(s.service);
  if (!orphans.ok()) return taken;
  for (const RunRecord& run : *orphans) {
    Result<RunRecord> claimed = s.service.PrepareResume(run.id);  // takes the lease; refused when taken meanwhile
    if (!claimed.ok()) continue;
    ContinueOnPool(s, *claimed);
    taken.push_back(run.id);
  }
  return taken;
}

void Api::StopRuns(double seconds) {
  ApiState& s = *state_;
  s.stopping = true;
  Json cut = Json::array();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    for (auto& [id, run] : s.live) {
      if (id.rfind("queued:", 0) != 0) cut.push_back(id);
      run->cancel.Cancel();
      s.service.Cancel(id);
    }
    for (auto& [id, w] : s.worklists) w->cancel.Cancel();
  }
  if (!cut.empty()) WriteFileAtomic(StoppedFile(s), DumpJson(cut) + "\n");
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (s.executing == 0 && s.queued == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string RenderMetrics(ApiState& s) {
  s.metrics.Set("medreact_runs_executing", {}, s.executing.load());
  s.metrics.Set("medreact_runs_queued", {}, s.queued.load());
  if (s.engine_stats) {
    const HttpEngineStats st = s.engine_stats();
    s.metrics.Set(kMetricOpenStreams, {}, static_cast<double>(st.streams_open));
    s.metrics.Set("medreact_open_connections", {}, static_cast<double>(st.connections_open));
    // Counters only go up: add what happened since the last render.
    std::lock_guard<std::mutex> lock(s.mu);
    s.metrics.Increment("medreact_streams_dropped_slow_total", {}, double(st.streams_dropped_slow - s.dropped_seen));
    s.dropped_seen = st.streams_dropped_slow;
  }
  const int64_t streamed = s.events_streamed.exchange(0);
  s.metrics.Increment("medreact_events_streamed_total", {}, static_cast<double>(streamed));
  return s.metrics.Render();
}

}  // namespace medreact::server
