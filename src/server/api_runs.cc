// The run routes: list, show, events (one run's, or many runs' in one
// stream), cancel, artifacts, a run's kept images and the app table
// (api.h); the approvals are in api_approvals.cc.
#include <algorithm>
#include <charconv>

#include "core/printable.h"
#include "server/api_state.h"
#include "service/app_table.h"
#include "service/cxr_runs.h"
#include "service/run_images.h"
#include "service/run_json.h"

namespace medreact::server {
namespace {

// A non-negative integer parameter; nullopt (and `*bad`) when it is not one.
std::optional<int64_t> IntParam(const std::optional<std::string>& text, bool* bad) {
  if (!text) return std::nullopt;
  int64_t v = 0;
  const char* end = text->data() + text->size();
  auto [p, ec] = std::from_chars(text->data(), end, v);
  if (ec != std::errc() || p != end || v < 0) {
    *bad = true;
    return std::nullopt;
  }
  return v;
}

// Where a reconnecting client is: Last-Event-ID, else ?since=.
Result<int64_t> StreamStart(const HttpRequest& r, std::string* field) {
  bool bad = false;
  std::string header = r.Header("last-event-id");
  if (!header.empty()) {
    std::optional<int64_t> v = IntParam(header, &bad);
    if (bad) {
      *field = "last-event-id";
      return Status::InvalidArgument("Last-Event-ID must be an event id this server sent (a number)");
    }
    return *v;
  }
  std::optional<int64_t> since = IntParam(r.Query("since"), &bad);
  if (bad) {
    *field = "since";
    return Status::InvalidArgument("since must be a non-negative integer (an event id)");
  }
  return since.value_or(0);
}

// Opens an SSE stream and follows `sub` on it until either side ends.
void Follow(ApiState& s, const std::shared_ptr<Exchange>& ex, Subscription sub, bool ids_by_seq) {
  std::shared_ptr<EventStream> stream =
      ex->Stream({{"cache-control", "no-store"}, {"x-accel-buffering", "no"}});
  stream->Send("retry: " + std::to_string(s.options.sse_retry_ms) + "\n\n");
  ApiState* state = &s;
  sub.deliver = [stream, ids_by_seq, state](const StoreEvent& e) {
    ++state->events_streamed;
    // The hub's pump is the one caller: an event's message is formatted once
    // for all the streams it goes to (the same run's numbers, or the same
    // store position), not once per stream.
    struct Last {
      std::string run_id;
      int64_t key = -1;
      bool by_seq = false;
      std::string text;
    };
    thread_local Last last;
    const int64_t key = ids_by_seq ? e.event.seq : e.cursor;
    if (last.key != key || last.by_seq != ids_by_seq || (ids_by_seq && last.run_id != e.run_id)) {
      last = {.run_id = e.run_id, .key = key, .by_seq = ids_by_seq, .text = SseMessage(e, key)};
    }
    return stream->Send(last.text);
  };
  sub.heartbeat = [stream] { return stream->Send(": keep-alive\n\n"); };
  sub.ended = [stream, run = sub.runs.empty() ? std::string() : sub.runs.front()](const std::string& status) {
    // No id: the client's Last-Event-ID stays the last stored event's.
    stream->Send("event: end\ndata: " + DumpJson(Json{{"run_id", run}, {"status", status}}) + "\n\n");
    stream->Close();
  };
  auto handle = std::make_shared<std::shared_ptr<void>>(s.hub.Subscribe(std::move(sub)));
  stream->OnClose([handle] { handle->reset(); });
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= text.size()) {
    const size_t j = text.find(',', i);
    std::string part = text.substr(i, j == std::string::npos ? std::string::npos : j - i);
    if (!part.empty()) out.push_back(std::move(part));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

bool IsSha256(const std::string& text) {
  return text.size() == 64 &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// A stored event as the page reads it, in the shape of a stream's message
// data (SseMessage: run_id, seq, app, at, then the event's own fields) with
// its store-wide position as "id".
Json EventJson(const RunRecord& run, const RunEvent& e) {
  Json out{{"id", e.cursor}, {"run_id", run.id}, {"seq", e.seq}, {"app", run.app}};
  if (!e.at.empty()) out["at"] = e.at;
  Result<Json> body = ParseJson(e.json);
  if (!body.ok() || !body->is_object()) {
    out["event"] = body.ok() ? *body : Json();
    return out;
  }
  for (auto& [key, value] : body->items()) {
    if (!out.contains(key)) out[key] = std::move(value);
  }
  return out;
}

// The statuses a run can have (RunRecord::status).
bool IsRunStatus(const std::string& s) {
  for (const char* known : {"running", "interrupted", "awaiting_approval", "finished", "max_steps", "stuck",
                            "timeout", "budget", "error"}) {
    if (s == known) return true;
  }
  return false;
}

// A run id search: 1..64 letters, digits, '_' or '-' (what run ids are made of).
bool IsIdSearch(const std::string& q) {
  return !q.empty() && q.size() <= 64 && std::all_of(q.begin(), q.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

std::string ContentTypeOf(std::string_view bytes) {
  if (bytes.size() >= 8 && bytes.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8)) return "image/png";
  if (bytes.size() >= 3 && bytes.substr(0, 3) == std::string_view("\xff\xd8\xff", 3)) return "image/jpeg";
  if (bytes.size() >= 132 && bytes.substr(128, 4) == "DICM") return "application/dicom";
  return "application/octet-stream";
}

}  // namespace

void ListApps(ApiState&, const std::shared_ptr<Exchange>& ex) {
  Json apps = Json::array();
  for (const service::AppRow& row : service::AppTable()) {
    Json j{{"name", row.name},
           {"summary", row.summary},
           {"resumable", row.resumable},
           {"waits_for_approval", row.waits_for_approval},
           {"inputs", row.inputs_schema}};
    if (!row.resumable) j["not_resumable_why"] = row.not_resumable_why;
    apps.push_back(std::move(j));
  }
  ex->Respond(JsonResponse(200, Json{{"apps", std::move(apps)}}));
}

void ListRuns(ApiState& s, const std::shared_ptr<Exchange>& ex) {
  const HttpRequest& r = ex->request();
  bool bad = false;
  const int64_t limit = IntParam(r.Query("limit"), &bad).value_or(50);
  if (bad || limit < 1 || limit > 500) {
    return ex->Respond(ErrorResponse("bad_request", "limit must be an integer 1..500", "limit"));
  }
  const int64_t offset = IntParam(r.Query("offset"), &bad).value_or(0);
  if (bad) return ex->Respond(ErrorResponse("bad_request", "offset must be a non-negative integer", "offset"));
  const std::string app = r.Query("app").value_or("");
  if (!app.empty() && !service::FindApp(app)) {
    return ex->Respond(ErrorResponse("bad_request", "no app named '" + PrintableLine(app) + "'", "app"));
  }
  const std::string status = r.Query("status").value_or("");
  if (!status.empty() && !IsRunStatus(status)) {
    return ex->Respond(ErrorResponse("bad_request",
                                     "no status '" + PrintableLine(status) +
                                         "' (running, interrupted, awaiting_approval, finished, max_steps, stuck, "
                                         "timeout, budget, error)",
                                     "status"));
  }
  // q: a part of the run's id (never a search of the inputs: they may hold patient data).
  const std::optional<std::string> q = r.Query("q");
  if (q && !q->empty() && !IsIdSearch(*q)) {
    return ex->Respond(ErrorResponse(
        "bad_request", "q is a part of a run id: at most 64 letters, digits, '_' or '-'", "q"));
  }
  // One more than asked: whether there is a next page.
  Result<std::vector<RunRecord>> runs = s.service.List(
      {.app = app, .status = status, .id_contains = q.value_or(""), .limit = offset + limit + 1});
  if (!runs.ok()) return ex->Respond(StatusResponse(runs.status()));
  Json out = Json::array();
  for (size_t i = static_cast<size_t>(offset); i < runs->size() && out.size() < static_cast<size_t>(limit); ++i) {
    out.push_back(service::RunRecordJson((*runs)[i], /*brief=*/true));
  }
  Json body{{"runs", std::move(out)}};
  body["next_offset"] = runs->size() > static_cast<size_t>(offset + limit) ? Json(offset + limit) : Json();
  ex->Respond(JsonResponse(200, body));
}

void ShowRun(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p) {
  // ?events=1: with the run's stored events; ?events_after=N: those after its N-th.
  const HttpRequest& r = ex->request();
  const std::optional<std::string> events = r.Query("events");
  if (events && *events != "0" && *events != "1") {
    return ex->Respond(ErrorResponse("bad_request", "events must be 1 (with the run's events) or 0", "events"));
  }
  bool bad = false;
  const std::optional<int64_t> after = IntParam(r.Query("events_after"), &bad);
  if (bad) {
    return ex->Respond(
        ErrorResponse("bad_request", "events_after must be a non-negative integer (an event's seq)", "events_after"));
  }
  const bool with_events = after.has_value() || (events && *events == "1");
  Result<service::RunView> view = s.service.Show(p[0]);
  if (!view.ok()) return ex->Respond(StatusResponse(view.status()));
  Json body = service::RunViewJson(*view);
  if (with_events) {
    // Read after the run: an event stored in between is in the list (a
    // reader merges by seq), none is left out.
    Result<std::vector<RunEvent>> stored = s.service.Events(p[0], after.value_or(0));
    if (!stored.ok()) return ex->Respond(StatusResponse(stored.status()));
    Json list = Json::array();
    for (const RunEvent& e : *stored) list.push_back(EventJson(view->run, e));
    body["events"] = std::move(list);
  }
  {
    std::lock_guard<std::mutex> lock(s.mu);
    body["run"]["executing_here"] = s.live.count(p[0]) > 0;
  }
  ex->Respond(JsonResponse(200, body));
}

void RunEvents(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p) {
  std::string field;
  Result<int64_t> after = StreamStart(ex->request(), &field);
  if (!after.ok()) return ex->Respond(StatusResponse(after.status(), field));
  Result<RunRecord> run = s.service.store()->Get(p[0]);
  if (!run.ok()) {
    // A run the server accepted is stored at its first checkpoint; one not
    // stored yet but executing here is followed from its start.
    std::lock_guard<std::mutex> lock(s.mu);
    if (!s.live.count(p[0])) return ex->Respond(StatusResponse(run.status()));
  }
  Follow(s, ex, {.runs = {p[0]}, .after = *after, .by_seq = true}, /*ids_by_seq=*/true);
}

void ManyRunsEvents(ApiState& s, const std::shared_ptr<Exchange>& ex) {
  const HttpRequest& r = ex->request();
  std::string field;
  Result<int64_t> after = StreamStart(r, &field);
  if (!after.ok()) return ex->Respond(StatusResponse(after.status(), field));
  std::vector<std::string> runs = SplitList(r.Query("runs").value_or(""));
  if (runs.size() > 1000) return ex->Respond(ErrorResponse("bad_request", "at most 1000 runs per stream", "runs"));
  const std::string app = r.Query("app").value_or("");
  if (!app.empty() && !service::FindApp(app)) {
    return ex->Respond(ErrorResponse("bad_request", "no app named '" + PrintableLine(app) + "'", "app"));
  }
  Follow(s, ex, {.runs = std::move(runs), .app = app, .after = *after, .by_seq = false}, /*ids_by_seq=*/false);
}

void CancelRun(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p) {
  const std::string& id = p[0];
  {
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.live.find(id);
    if (it != s.live.end()) {
      it->second->cancel.Cancel();
      s.service.Cancel(id);  // when it is already running in the service
      return ex->Respond(JsonResponse(202, Json{{"run_id", id}, {"status", "cancelling"}}));
    }
  }
  if (s.service.Cancel(id).ok()) {
    return ex->Respond(JsonResponse(202, Json{{"run_id", id}, {"status", "cancelling"}}));
  }
  Result<RunRecord> run = s.service.store()->Get(id);
  if (!run.ok()) return ex->Respond(StatusResponse(run.status()));
  if (run->status == "awaiting_approval") {
    return ex->Respond(ErrorResponse(
        "conflict", "run '" + id + "' is paused for approval, not running: reject its waiting calls to stop it"));
  }
  if (run->status != "running") {
    return ex->Respond(ErrorResponse("conflict", "run '" + id + "' has already ended with status '" +
                                                     PrintableLine(run->status) + "'"));
  }
  return ex->Respond(ErrorResponse("conflict", "run '" + id + "' is not running in this server" +
                                                   (run->owner.empty() ? std::string()
                                                                       : " (held by " +
                                                                             PrintableLine(DescribeRunOwner(run->owner)) +
                                                                             ")")));
}

void GetArtifact(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p) {
  const std::string hash = p[0];
  if (!IsSha256(hash)) {
    return ex->Respond(ErrorResponse("bad_request", "an artifact is named by its sha-256 (64 lower-case hex digits)"));
  }
  const service::RunImageFolder folder(service::RunImageFolder::ForStore(s.service.store()->path()));
  Result<std::string> bytes = folder.Get(hash);
  if (!bytes.ok()) {
    // The folder's path is the server's business, not the client's.
    return ex->Respond(bytes.status().code() == StatusCode::kNotFound
                           ? ErrorResponse("not_found", "no artifact " + hash)
                           : ErrorResponse("conflict", "artifact " + hash + " no longer has that hash"));
  }
  HttpResponse r{.content_type = ContentTypeOf(*bytes), .body = std::move(*bytes)};
  r.headers = {{"cache-control", "private, max-age=31536000, immutable"}, {"x-content-type-options", "nosniff"}};
  ex->Respond(std::move(r));
}

// The images a run kept, for the page to show by /v1/artifacts/{sha256}.
// An upload's label loses the server's content prefix ("<32 hex>-"): the
// name the user gave the file, never the server's path.
void RunImages(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p) {
  Result<Json> images = service::CxrRunImages(s.service, p[0]);
  if (!images.ok()) return ex->Respond(StatusResponse(images.status()));
  for (Json& image : *images) {
    const std::string label = StringOr(image, "label");
    if (image["origin"] == "user" && label.size() > 33 && label[32] == '-' &&
        label.find_first_not_of("0123456789abcdef") == 32) {
      image["label"] = label.substr(33);
    }
  }
  ex->Respond(JsonResponse(200, Json{{"run_id", p[0]}, {"images", std::move(*images)}}));
}

}  // namespace medreact::server
