// The OpenAI-compatible facade (api.h): GET /v1/models and POST
// /v1/chat/completions over the app runs (service/app_runs.h), so a chat UI
// or an OpenAI client library talks to medreact as to a model server.
//
// Models: medreact-chat (app chat: the last user message is the message,
// the earlier user/assistant turns its history; the client's system
// messages are left out, the agent keeps its own prompt), medreact-cxr (app
// cxr: the images of the user messages, base64 data URLs, kept in the upload
// folder by their sha-256, and the last user message as the question),
// medreact-research (app research: the last user message as the question;
// online only when the server allows network tools). Each completion is a
// stored run ("chatcmpl-" + run id, header x-medreact-run-id), cancellable
// with POST /v1/runs/{id}/cancel; closing a stream cancels its run.
//
// The body's extension "medreact": {"require_approval": [...], "packs": [...]}
// goes to the app's inputs as it is. A run that pauses for approval ends its
// answer with what waits, the run id and the approval route.
//
// Streams: the first chunk's delta has the role; the agent's steps and tool
// calls come as delta.reasoning_content, the answer as delta.content, then a
// chunk with finish_reason "stop", the usage chunk (choices []) when
// stream_options.include_usage, and "data: [DONE]". A run that fails ends
// the same way, its error in the content.
//
// UI task prompts (titles, tags, follow-ups) are answered at once, without
// a run (openai_facade_wire.h). Errors keep the server's one shape, with
// error.type added for OpenAI clients.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <mutex>
#include <random>
#include <utility>

#include "core/file_io.h"
#include "core/sha256.h"
#include "core/text_util.h"
#include "server/api_state.h"
#include "server/metrics.h"
#include "server/openai_facade_wire.h"
#include "service/app_runs.h"

namespace medreact::server {
namespace {

namespace wire = openai;

int64_t UnixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string RandomHex(size_t n) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) out += kHex[rng() % 16];
  return out;
}

// The server's error shape plus error.type, which OpenAI clients show.
HttpResponse FacadeError(HttpResponse r) {
  Result<Json> body = ParseJson(r.body);
  if (body.ok() && body->is_object() && body->contains("error") && (*body)["error"].is_object()) {
    (*body)["error"]["type"] = r.status >= 500 ? "server_error" : "invalid_request_error";
    r.body = DumpJson(*body);
  }
  return r;
}
HttpResponse FacadeError(const Status& s, const std::string& field) { return FacadeError(StatusResponse(s, field)); }

// The reasoning line of an engine event ("" for none).
std::string ReasoningOf(const Event& e) {
  switch (e.type) {
    case EventType::kToolStarted:
      return "→ " + e.tool_name + " " + Preview(e.text, 500) + "\n";
    case EventType::kToolFinished:
      return std::string(e.ok ? "← " : "← failed: ") + Preview(e.text, 500) + "\n";
    case EventType::kAssistantMessage: {
      // An intermediate step's text (the final answer comes as content).
      const bool calls = e.data.is_object() && e.data.contains("tool_calls") && e.data["tool_calls"].is_array() &&
                         !e.data["tool_calls"].empty();
      return calls && !IsBlank(e.text) ? Trim(e.text) + "\n" : "";
    }
    case EventType::kApproval:
      return e.data.is_object() && StringOr(e.data, "decision") == "awaiting"
                 ? "⏸ " + e.tool_name + " waits for a person's approval\n"
                 : "";
    case EventType::kError:
      return "! " + Preview(e.text, 300) + "\n";
    default:
      return "";
  }
}

std::string ReasoningOf(const ResearchEvent& e) {
  if (e.type == ResearchEventType::kStreaming || e.type == ResearchEventType::kComplete || IsBlank(e.message)) {
    return "";
  }
  return (e.agent.empty() ? "" : "[" + e.agent + "] ") + Preview(e.message, 300) + "\n";
}

// The answer's text for a run's end: the result, or what waits and where,
// or why it stopped.
std::string FinalText(ApiState& s, const service::AppRunResult& r) {
  std::string answer = wire::ReadableResult(r.result);
  const std::string where = r.run_id.empty() ? "" : " Run: " + r.run_id + " (GET /v1/runs/" + r.run_id + ").";
  if (r.status == "finished") return answer;
  if (r.status == "awaiting_approval") {
    std::string text = r.result.is_object() ? StringOr(r.result, "answer") : "";
    if (!text.empty()) text += "\n\n";
    text += "This run is paused: it waits for a person's approval of\n";
    if (Result<service::RunView> view = s.service.Show(r.run_id); view.ok()) {
      for (const ToolCall& c : view->waiting) {
        text += "- " + c.name + " " + Preview(c.arguments, 500) + " (call " + c.id + ")\n";
      }
    }
    text += "Run: " + r.run_id + ". Decide each call with POST /v1/runs/" + r.run_id +
            "/approvals/{call_id} and a JSON body {\"decision\": \"approve\" | \"edit\" | \"reject\", "
            "\"reviewer\": \"...\"} (an edit adds \"arguments\", a rejection a \"reason\"); the run goes on after "
            "the last decision (GET /v1/runs/" + r.run_id + " shows it).";
    return text;
  }
  const std::string error = r.result.is_object() ? StringOr(r.result, "error") : "";
  if (r.status == "error") return "The run failed: " + (error.empty() ? std::string("see its events") : error) + "." + where;
  if (r.status == "interrupted") return "The run was stopped before it finished (interrupted; it can be resumed)." + where;
  std::string text = answer;
  if (!text.empty()) text += "\n\n";
  return text + "(The run ended with status '" + r.status + "'" + (error.empty() ? "" : ": " + error) + ".)" + where;
}

// One completion in flight: its answer (a response, or a stream opened once
// the run's id is known) from the run pool's thread and the run's events.
struct Completion : std::enable_shared_from_this<Completion> {
  std::shared_ptr<ApiState> state;
  std::shared_ptr<Exchange> ex;
  std::string model, app;
  int64_t created = UnixNow();
  bool stream = false, include_usage = false;
  CancellationToken cancel;

  std::shared_ptr<ServerRun> tracked = std::make_shared<ServerRun>();  // in ApiState::live once stored

  std::mutex mu;
  std::string run_id, id;
  std::shared_ptr<EventStream> out;  // once opened
  std::shared_ptr<void> beat;        // the event hub's heartbeat on `out` while the run runs
  std::string pending;               // reasoning before the stream opened
  bool ended = false;

  // In ApiState::live (TrackServerRun): while queued under a ticket, so a
  // shutdown stops it before it starts; once stored under its id (cancel by id).
  std::shared_ptr<void> queued_guard, run_guard;
  std::string Ticket() const { return "queued:chatcmpl:" + std::to_string(reinterpret_cast<uintptr_t>(this)); }
  void Queued() { queued_guard = TrackServerRun(*state, Ticket(), tracked); }
  // The run is stored: under its id instead, the stream opened.
  void Started(const std::string& run) {
    queued_guard.reset();
    run_guard = TrackServerRun(*state, run, tracked);
    std::lock_guard<std::mutex> lock(mu);
    run_id = run;
    id = "chatcmpl-" + run;
    if (stream) OpenLocked();
  }
  // The run's end (or it never started): out of ApiState::live.
  void Untrack() {
    queued_guard.reset();
    run_guard.reset();
  }
  void OpenLocked() {
    if (out) return;
    if (id.empty()) id = "chatcmpl-" + RandomHex(24);
    HeaderList headers = {{"cache-control", "no-store"}, {"x-accel-buffering", "no"}};
    if (!run_id.empty()) headers.emplace_back("x-medreact-run-id", run_id);
    out = ex->Stream(std::move(headers));
    CancellationToken token = cancel;
    out->OnClose([token] { token.Cancel(); });  // the client left: stop its run
    out->Send(wire::SseData(wire::Chunk(id, model, created, Json{{"role", "assistant"}, {"content", ""}})));
    if (!pending.empty()) SendReasoningLocked(std::exchange(pending, ""));
    // A comment line every heartbeat_s keeps a quiet stream (a long model
    // call) open through proxies; the hub's timer sends it (no event is
    // delivered: the subscription starts past every event).
    if (!run_id.empty() && !ended) {
      beat = state->hub.Subscribe({.runs = {run_id},
                                   .after = std::numeric_limits<int64_t>::max(),
                                   .by_seq = true,
                                   .deliver = [](const StoreEvent&) { return true; },
                                   .heartbeat = [weak = weak_from_this()] {
                                     std::shared_ptr<Completion> c = weak.lock();
                                     if (!c) return false;
                                     std::lock_guard<std::mutex> lock(c->mu);
                                     return !c->ended && c->out->Send(": keep-alive\n\n");
                                   }});
    }
  }
  void SendReasoningLocked(const std::string& text) {
    out->Send(wire::SseData(wire::Chunk(id, model, created, Json{{"reasoning_content", text}})));
  }
  void Reasoning(const std::string& text) {
    if (!stream || text.empty()) return;
    std::lock_guard<std::mutex> lock(mu);
    if (ended) return;
    if (!out) pending += text;
    else SendReasoningLocked(text);
  }
  // The run's end: the answer, once.
  void Finish(const std::string& content, const Json& usage) {
    std::lock_guard<std::mutex> lock(mu);
    if (ended) return;
    ended = true;
    if (id.empty()) id = "chatcmpl-" + RandomHex(24);
    if (!stream) {
      HttpResponse r = JsonResponse(200, wire::CompletionBody(id, model, created, content, usage));
      if (!run_id.empty()) r.headers.emplace_back("x-medreact-run-id", run_id);
      ex->Respond(std::move(r));
      return;
    }
    OpenLocked();
    beat.reset();
    if (!content.empty()) out->Send(wire::SseData(wire::Chunk(id, model, created, Json{{"content", content}})));
    out->Send(wire::SseData(wire::Chunk(id, model, created, Json::object(), "stop")));
    if (include_usage) out->Send(wire::SseData(wire::UsageChunk(id, model, created, usage)));
    out->Send(wire::kSseDone);
    out->Close();
  }
};

// An answer without a run (a UI task prompt).
void AnswerAtOnce(const std::shared_ptr<Exchange>& ex, const wire::ChatRequest& req, const std::string& content) {
  const std::string id = "chatcmpl-task-" + RandomHex(16);
  const int64_t created = UnixNow();
  const Json usage = Json::object();
  if (!req.stream) return ex->Respond(JsonResponse(200, wire::CompletionBody(id, req.model, created, content, usage)));
  std::shared_ptr<EventStream> out = ex->Stream({{"cache-control", "no-store"}});
  out->Send(wire::SseData(wire::Chunk(id, req.model, created, Json{{"role", "assistant"}, {"content", ""}})));
  out->Send(wire::SseData(wire::Chunk(id, req.model, created, Json{{"content", content}})));
  out->Send(wire::SseData(wire::Chunk(id, req.model, created, Json::object(), "stop")));
  if (req.include_usage) out->Send(wire::SseData(wire::UsageChunk(id, req.model, created, usage)));
  out->Send(wire::kSseDone);
  out->Close();
}

// An image kept in the upload folder by its sha-256 (0600); its path.
Result<std::string> KeepUpload(const ApiState& s, const wire::WireImage& image) {
  const std::string ext = image.kind == "png" ? ".png" : image.kind == "jpeg" ? ".jpg" : ".dcm";
  const std::string path = s.options.upload_dir + "/" + Sha256Hex(image.bytes) + ext;
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) return path;
  if (Status w = WriteFileAtomic(path, image.bytes); !w.ok()) {
    return Status::Unavailable("the server could not keep the uploaded image");  // its folder is not the client's business
  }
  return path;
}

service::AppRunContext ContextOf(const ApiState& s) {
  const ServeOptions& o = s.options;
  service::AppRunContext ctx{.model = o.model,
                             .imaging = {.vision_url = o.vision_url,
                                         .vision_model = o.vision_model,
                                         .vision_api_key = o.vision_api_key,
                                         .classifier_url = o.classifier_url,
                                         .segmentation_url = o.segmentation_url,
                                         .grounding_url = o.grounding_url},
                             .input_roots = o.input_roots,
                             .network_tools = o.network_tools};
  if (!o.upload_dir.empty()) ctx.input_roots.push_back(o.upload_dir);
  return ctx;
}

// An app input's JSON path as the request's: the facade's own settings under
// "medreact", the rest come from the messages.
std::string RequestField(const std::string& input_field) {
  for (const char* key : {"require_approval", "packs"}) {
    const std::string in = std::string("inputs.") + key;
    if (StartsWith(input_field, in)) return "medreact." + input_field.substr(7);
  }
  return input_field.empty() ? "" : "messages";
}

// The models' `created`: this server's first answer about them.
int64_t ModelsCreated() {
  static const int64_t created = UnixNow();
  return created;
}

}  // namespace

void ListModels(ApiState&, const std::shared_ptr<Exchange>& ex) {
  ex->Respond(JsonResponse(200, wire::ModelsList(ModelsCreated())));
}

void ShowModel(ApiState&, const std::shared_ptr<Exchange>& ex, const Params& p) {
  const Json models = wire::ModelsList(ModelsCreated());
  for (const Json& m : models["data"]) {
    if (StringOr(m, "id") == p[0]) return ex->Respond(JsonResponse(200, m));
  }
  ex->Respond(FacadeError(ErrorResponse(
      "not_found", "no model '" + Preview(p[0], 60) + "' (medreact-chat, medreact-cxr, medreact-research)", "model")));
}

void ChatCompletions(ApiState& s, const std::shared_ptr<Exchange>& ex) {
  std::string field;
  Result<Json> body = JsonBody(ex->request(), &field);
  if (!body.ok()) return ex->Respond(FacadeError(body.status(), field));
  Result<wire::ChatRequest> req = wire::ParseChatRequest(*body, s.options.max_image_bytes, &field);
  if (!req.ok()) return ex->Respond(FacadeError(req.status(), field));
  const wire::FacadeModel* model = wire::FindFacadeModel(req->model);
  if (!model) {
    return ex->Respond(FacadeError(ErrorResponse(
        "not_found", "no model '" + Preview(req->model, 60) + "' (medreact-chat, medreact-cxr, medreact-research)",
        "model")));
  }
  // A UI's task prompt: answered without a run.
  if (const wire::TaskKind task = wire::DetectTask(*req); task != wire::TaskKind::kNone) {
    s.metrics.Increment("medreact_chat_completions_total", {model->id, "task"});
    return AnswerAtOnce(ex, *req, wire::TaskAnswer(task, *req));
  }
  const std::string question = Trim(wire::LastUserText(*req));
  if (question.empty()) {
    return ex->Respond(FacadeError(Status::InvalidArgument("messages: the last user message has no text"), "messages"));
  }
  // The app's inputs.
  Json inputs = req->medreact;
  std::vector<Message> history;
  const std::string app = model->app;
  if (!model->takes_images) {
    for (size_t i = 0; i < req->messages.size(); ++i) {
      if (!req->messages[i].images.empty()) {
        const std::string at = "messages[" + std::to_string(i) + "].content";
        return ex->Respond(FacadeError(
            Status::InvalidArgument(at + ": " + model->id + " takes no images (medreact-cxr does)"), at));
      }
    }
  }
  if (app == "chat") {
    inputs["message"] = question;
    size_t last_user = 0;
    for (size_t i = 0; i < req->messages.size(); ++i) {
      if (req->messages[i].role == "user") last_user = i;
    }
    for (size_t i = 0; i < last_user; ++i) {
      const wire::WireMessage& m = req->messages[i];
      if (IsBlank(m.text)) continue;
      if (m.role == "user") history.push_back(Message::User(m.text));
      else if (m.role == "assistant") history.push_back(Message::Assistant(m.text));
    }
  } else if (app == "cxr") {
    inputs["question"] = question;
    Json paths = Json::array();
    for (size_t i = 0; i < req->messages.size(); ++i) {
      for (const wire::WireImage& image : req->messages[i].images) {
        Result<std::string> path = KeepUpload(s, image);
        if (!path.ok()) return ex->Respond(FacadeError(path.status(), ""));
        if (std::find(paths.begin(), paths.end(), Json(*path)) == paths.end()) paths.push_back(*path);
      }
    }
    if (paths.empty()) {
      return ex->Respond(FacadeError(
          Status::InvalidArgument("messages: medreact-cxr needs at least one image (an image_url data URL)"),
          "messages"));
    }
    inputs["images"] = std::move(paths);
  } else {
    inputs["question"] = question;
    inputs["online"] = s.options.network_tools;
  }
  Result<std::unique_ptr<service::PreparedAppRun>> prepared =
      service::PrepareAppRun(s.service, app, inputs, ContextOf(s), &field);
  if (!prepared.ok()) return ex->Respond(FacadeError(prepared.status(), RequestField(field)));
  if ((*prepared)->chat) (*prepared)->chat->history = std::move(history);

  auto c = std::make_shared<Completion>();
  c->state = s.shared_from_this();
  c->ex = ex;
  c->model = model->id;
  c->app = app;
  c->stream = req->stream;
  c->include_usage = req->include_usage;
  c->tracked->cancel = c->cancel;
  c->tracked->app = app;
  c->tracked->queued = std::chrono::steady_clock::now();
  auto holder = std::make_shared<std::unique_ptr<service::PreparedAppRun>>(std::move(*prepared));
  c->Queued();
  const bool queued = s.Enqueue([c, holder] {
    ApiState& st = *c->state;
    if (c->cancel.cancelled()) {  // stopped while queued (a shutdown): it never starts
      c->Untrack();
      return c->Finish("The server stopped before this run could start; nothing was run.", Json::object());
    }
    const auto started = std::chrono::steady_clock::now();
    service::AppRunResult r;
    try {
      r = service::RunAppPrepared(
          st.service, std::move(*holder),
          {.on_event =
               [c](const Event& e) {
                 CountCalls(*c->state, e);
                 c->Reasoning(ReasoningOf(e));
               },
           .on_research_event = [c](const ResearchEvent& e) { c->Reasoning(ReasoningOf(e)); },
           .on_started = [c](const std::string& id) { c->Started(id); },
           .cancel = c->cancel});
    } catch (const std::exception&) {
      r.status = "error";
      r.result = Json{{"error", "the server failed on this run; see its log"}};
    }
    if (r.run_id.empty()) {
      std::lock_guard<std::mutex> lock(c->mu);
      r.run_id = c->run_id;
    }
    c->Untrack();
    CountRunEnd(st, c->app, started);
    st.metrics.Increment("medreact_chat_completions_total", {c->model, r.status.empty() ? "error" : r.status});
    c->Finish(FinalText(st, r), r.usage);
  });
  if (!queued) {
    c->Untrack();
    return ex->Respond(FacadeError(ErrorResponse("unavailable", "the run queue is full; retry later")));
  }
}

}  // namespace medreact::server
