// Worklists through the server (Sentinel-X's queue): POST /v1/worklists
// with a folder of cases under an input root, or the cases uploaded
// (multipart parts named CASE/fhir.json, CASE/findings.txt, CASE/case.json);
// GET /v1/worklists/{id} for its status, cases sorted by final priority then
// waiting time as they finish. A worklist keeps its folder beside the store
// (<store>.worklists/<id>/: server.json, the uploaded cases, out/ with each
// case's result and the worklist's state), so its status survives a restart
// and a worklist cut by a crash is gone on with at the next start (its
// finished cases skipped, its cut model runs resumed).
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <random>

#include "core/file_io.h"
#include "core/printable.h"
#include "server/api_state.h"
#include "server/multipart.h"
#include "service/app_inputs.h"
#include "service/triage_runs.h"
#include "service/worklist_queue.h"

namespace medreact::server {
namespace {

std::string NewWorklistId() {
  static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device rd;
  std::string id = "wl_";
  for (int i = 0; i < 16; ++i) id += kAlphabet[rd() % (sizeof kAlphabet - 1)];
  return id;
}

bool IsWorklistId(const std::string& id) {
  if (id.size() != 19 || id.rfind("wl_", 0) != 0) return false;
  return std::all_of(id.begin() + 3, id.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); });
}

// Beside the store (a PostgreSQL store: its local folder, RunStoreFilesBase).
std::string WorklistsDir(const ApiState& s) { return RunStoreFilesBase(s.service.store()->path()) + ".worklists"; }

Json CaseJson(const WorklistCaseResult& c, const RunStore& store) {
  Json j{{"case", c.name}, {"ok", c.ok}, {"elapsed_ms", c.elapsed_ms}};
  if (!c.ok) {
    j["error"] = c.error;
    if (c.not_run) j["not_run"] = true;
    return j;
  }
  const Json result = ParseJson(c.result.dump()).value_or(Json());
  for (const char* key : {"priority_level", "base_priority", "needs_review", "patient_id"}) {
    if (result.is_object() && result.contains(key)) j[key] = result[key];
  }
  // The adjustment the agent made (INCREASE, DECREASE, NONE; null when no agent ran).
  if (result.is_object() && result.contains("agent_reasoning") && result["agent_reasoning"].is_object() &&
      result["agent_reasoning"].contains("risk_adjustment")) {
    j["risk_adjustment"] = result["agent_reasoning"]["risk_adjustment"];
  }
  j["status"] = RunStatusName(c.status);
  j["fell_back"] = c.fell_back;
  j["skipped"] = c.skipped;
  j["resumed"] = c.resumed;
  if (c.trace && !c.trace->run_id.empty() && store.Get(c.trace->run_id).ok()) j["run_id"] = c.trace->run_id;
  return j;
}

// Priority 1 first, then the longest waiting (the earliest done_at: finished
// first; a case without one keeps its place after those with one), cases that failed last.
void SortCases(Json& cases) {
  std::stable_sort(cases.begin(), cases.end(), [](const Json& a, const Json& b) {
    const int64_t pa = IntegerOr(a, "priority_level", 99), pb = IntegerOr(b, "priority_level", 99);
    if (pa != pb) return pa < pb;
    const std::string da = StringOr(a, "done_at"), db = StringOr(b, "done_at");
    if (da.empty() || db.empty()) return !da.empty() && db.empty();
    return da < db;  // ISO 8601 UTC with milliseconds: text order is time order
  });
}

Status WriteServerFile(const ServerWorklist& w) {
  Json j{{"id", w.id},         {"dir", w.dir},         {"created_at", w.created_at},
         {"status", w.status}, {"concurrency", w.concurrency}, {"cases_total", w.total},
         {"cases_done", w.done}, {"cases_failed", w.failed}, {"cases", w.cases}};
  if (!w.batch.empty()) j["batch"] = w.batch;
  return WriteFileAtomic(w.folder + "/server.json", DumpJson(j, 2) + "\n");
}

// A queued worklist's case as the page and the API show a case run here
// (CaseJson): a done job's result as its worker reported it, a dead job as a
// failed case naming its attempts and last error; nullopt while it is queued
// or running.
std::optional<Json> QueuedCaseJson(const Job& job, const RunStore& store) {
  Json j;
  if (job.state == "done") {
    Result<OrderedJson> reported = ParseOrderedJson(job.result);
    Result<FinishedCase> finished = reported.ok() ? WorklistCaseFromJson(*reported) : Result<FinishedCase>(reported.status());
    if (!finished.ok()) {
      j = Json{{"case", job.case_name}, {"ok", false}, {"error", "its worker's result cannot be read: " +
                                                                     finished.status().message()}};
    } else {
      j = CaseJson(finished->result, store);
    }
  } else if (job.state == "dead") {
    j = Json{{"case", job.case_name}, {"ok", false},
             {"error", "gave up after " + std::to_string(job.attempts) + " attempt(s): " + job.last_error}};
  } else {
    return std::nullopt;
  }
  if (!job.run_id.empty()) j["run_id"] = job.run_id;
  j["attempts"] = job.attempts;
  j["done_at"] = job.updated_at;
  return j;
}

// Brings a queued worklist up to its batch: the cases its workers finished,
// the counts, finished once no job is queued or running. Takes s.mu itself.
Status RefreshQueued(ApiState& s, ServerWorklist& w) {
  Result<std::vector<Job>> jobs = s.options.worklist_queue->ListBatch(w.batch);
  if (!jobs.ok()) return jobs.status();
  Json cases = Json::array();
  size_t done = 0, failed = 0, open = 0;
  for (const Job& job : *jobs) {
    std::optional<Json> c = QueuedCaseJson(job, *s.service.store());
    if (!c) {
      ++open;
      continue;
    }
    (BoolOr(*c, "ok", false) ? done : failed) += 1;
    cases.push_back(std::move(*c));
  }
  std::lock_guard<std::mutex> lock(s.mu);
  const bool ended = open == 0 && w.status != "finished";
  w.cases = std::move(cases);
  w.total = jobs->size();
  w.done = done + failed;  // as a worklist run here counts them: every case with a result
  w.failed = failed;
  w.status = open == 0 ? "finished" : "running";
  if (ended) WriteServerFile(w);  // the record an earlier start's worklist is read from
  return Status::OK();
}

// This server's queued worklists (those with a batch), taken under s.mu.
std::vector<std::shared_ptr<ServerWorklist>> QueuedWorklists(ApiState& s) {
  std::vector<std::shared_ptr<ServerWorklist>> queued;
  std::lock_guard<std::mutex> lock(s.mu);
  for (const auto& [id, w] : s.worklists) {
    if (!w->batch.empty()) queued.push_back(w);
  }
  return queued;
}

// The cases of a multipart form, written under `folder`/cases/.
Status WriteUploadedCases(const std::vector<FormPart>& parts, const std::string& folder, std::string* field) {
  size_t files = 0;
  for (const FormPart& part : parts) {
    const size_t slash = part.name.find('/');
    const std::string name = slash == std::string::npos ? "" : part.name.substr(0, slash);
    const std::string file = slash == std::string::npos ? "" : part.name.substr(slash + 1);
    if (part.name == "concurrency") continue;
    if (name.empty() || SafeUploadName(name) != name || (file != "fhir.json" && file != "findings.txt" &&
                                                         file != "case.json")) {
      *field = part.name;
      return Status::InvalidArgument("form part '" + PrintableLine(part.name) +
                                     "' is not CASE/fhir.json, CASE/findings.txt or CASE/case.json (CASE: letters, "
                                     "digits, . _ - + ( ))");
    }
    std::error_code ec;
    std::filesystem::create_directories(folder + "/cases/" + name, ec);
    if (ec) return Status::Unavailable("the server could not keep the uploaded cases");
    if (Status s = WriteFileAtomic(folder + "/cases/" + name + "/" + file, part.data); !s.ok()) {
      return Status::Unavailable("the server could not keep the uploaded cases");
    }
    ++files;
  }
  if (files == 0) {
    *field = "body";
    return Status::InvalidArgument("no case was uploaded");
  }
  return Status::OK();
}

}  // namespace

// Runs (or goes on with) a worklist on the run pool.
void RunWorklistOnPool(ApiState& s, const std::shared_ptr<ServerWorklist>& w,
                       std::unique_ptr<service::PreparedWorklist> prepared) {
  auto job = std::make_shared<std::unique_ptr<service::PreparedWorklist>>(std::move(prepared));
  ApiState* state = &s;
  const bool queued = s.Enqueue([state, w, job] {
    ApiState& st = *state;
    (*job)->options.on_case_done = [&st, w](const WorklistCaseResult& c, size_t, size_t total) {
      Json entry = CaseJson(c, *st.service.store());
      entry["done_at"] = StoreTimestampMillis(std::chrono::system_clock::now());
      std::lock_guard<std::mutex> lock(st.mu);
      w->cases.push_back(std::move(entry));
      if (!c.not_run) ++w->done;
      w->total = total;
    };
    WorklistReport report = service::RunWorklistPrepared(st.service, std::move(*job), {.cancel = w->cancel});
    Json cases = Json::array();
    for (const WorklistCaseResult& c : report.cases) cases.push_back(CaseJson(c, *st.service.store()));
    std::lock_guard<std::mutex> lock(st.mu);
    // Each case keeps the time its result was known (a case not run has none).
    std::map<std::string, Json> done_at;
    for (const Json& c : w->cases) {
      if (c.is_object() && c.contains("done_at")) done_at[StringOr(c, "case")] = c["done_at"];
    }
    for (Json& c : cases) {
      if (auto it = done_at.find(StringOr(c, "case")); it != done_at.end()) c["done_at"] = it->second;
    }
    // Cut by the server's stop: still running, for the next start to go on with.
    w->status = st.stopping ? "running" : w->cancel.cancelled() ? "interrupted" : "finished";
    const size_t not_run = static_cast<size_t>(std::count_if(
        report.cases.begin(), report.cases.end(), [](const WorklistCaseResult& c) { return c.not_run; }));
    w->failed = report.failed - std::min(report.failed, not_run);  // the cases not run are listed as such
    w->cases = std::move(cases);  // a cancelled list names the cases it did not run
    w->done = static_cast<size_t>(std::count_if(report.cases.begin(), report.cases.end(),
                                                 [](const WorklistCaseResult& c) { return !c.not_run; }));
    WriteServerFile(*w);
  });
  if (!queued) {
    std::lock_guard<std::mutex> lock(s.mu);
    w->status = "interrupted";
  }
}

Result<std::shared_ptr<ServerWorklist>> StartWorklist(ApiState& s, const std::string& id, const std::string& dir,
                                                      int concurrency, bool resume, std::string* field) {
  auto w = std::make_shared<ServerWorklist>();
  w->id = id;
  w->dir = dir;
  w->folder = WorklistsDir(s) + "/" + id;
  w->concurrency = concurrency;
  w->created_at = StoreTimestampMillis(std::chrono::system_clock::now());
  if (s.options.worklist_queue) {
    // The cases go to the job queue; `medreact worker`s run them.
    Result<std::string> batch = service::EnqueueWorklist(*s.options.worklist_queue, dir, "");
    if (!batch.ok()) {
      *field = "dir";
      return batch.status();
    }
    w->batch = *batch;
    if (Result<BatchInfo> info = s.options.worklist_queue->Batch(w->batch); info.ok()) {
      w->total = static_cast<size_t>(info->jobs);
    }
    if (Status st = WriteServerFile(*w); !st.ok()) return Status::Unavailable("the server could not keep the worklist");
    std::lock_guard<std::mutex> lock(s.mu);
    s.worklists[id] = w;
    return w;
  }
  service::TriageSettings settings{.model = s.options.model, .record_always = true};
  Result<std::unique_ptr<service::PreparedWorklist>> prepared = service::PrepareWorklist(
      s.service, {.dir = dir, .out_dir = w->folder + "/out", .concurrency = concurrency, .resume = resume,
                  .settings = settings});
  if (!prepared.ok()) {
    *field = "dir";
    return prepared.status();
  }
  w->total = (*prepared)->cases.size();
  if (Status st = WriteServerFile(*w); !st.ok()) return Status::Unavailable("the server could not keep the worklist");
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.worklists[id] = w;
  }
  RunWorklistOnPool(s, w, std::move(*prepared));
  return w;
}

Json WorklistJson(const ServerWorklist& w) {
  Json cases = w.cases;
  SortCases(cases);
  return Json{{"id", w.id},           {"status", w.status}, {"created_at", w.created_at},
              {"cases_total", w.total}, {"cases_done", w.done}, {"cases_failed", w.failed},
              {"cases", std::move(cases)}};
}

void CreateWorklist(ApiState& s, const std::shared_ptr<Exchange>& ex) {
  const HttpRequest& r = ex->request();
  std::string field;
  const std::string id = NewWorklistId();
  const std::string folder = WorklistsDir(s) + "/" + id;
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  ::chmod(WorklistsDir(s).c_str(), 0700);
  if (ec) return ex->Respond(ErrorResponse("unavailable", "the server could not make the worklist's folder"));
  std::string dir;
  int concurrency = 4;
  const std::string type = r.Header("content-type");
  if (type.rfind("multipart/form-data", 0) == 0) {
    Result<std::vector<FormPart>> parts = ParseMultipart(type, r.body, {.max_parts = 3000,
                                                                        .max_total_bytes = s.options.max_body_bytes});
    if (!parts.ok()) {
      std::filesystem::remove_all(folder, ec);
      return ex->Respond(parts.status().code() == StatusCode::kResourceExhausted
                             ? ErrorResponse("too_large", parts.status().message(), "body")
                             : StatusResponse(parts.status(), "body"));
    }
    if (Status st = WriteUploadedCases(*parts, folder, &field); !st.ok()) {
      std::filesystem::remove_all(folder, ec);
      return ex->Respond(StatusResponse(st, field));
    }
    dir = folder + "/cases";
  } else {
    Result<Json> body = JsonBody(r, &field);
    if (!body.ok()) return ex->Respond(StatusResponse(body.status(), field));
    for (const auto& [key, value] : body->items()) {
      if (key != "dir" && key != "concurrency") {
        std::filesystem::remove_all(folder, ec);
        return ex->Respond(ErrorResponse("bad_request", "unknown field '" + PrintableLine(key) + "' (dir, concurrency)",
                                         key));
      }
    }
    const Json schema{{"type", "object"},
                      {"required", {"dir"}},
                      {"properties",
                       {{"dir", {{"type", "string"}, {"format", "path"}, {"minLength", 1}}},
                        {"concurrency", {{"type", "integer"}, {"minimum", 1}, {"maximum", 16}}}}}};
    Result<Json> resolved = service::ResolveInputPaths(schema, *body, s.options.input_roots, &field);
    if (Status st = service::CheckAgainstSchema(schema, *body, "", &field); !st.ok() || !resolved.ok()) {
      std::filesystem::remove_all(folder, ec);
      if (field.rfind("inputs.", 0) == 0) field.erase(0, 7);  // the body's own key
      if (!st.ok()) return ex->Respond(StatusResponse(st, field.empty() ? "dir" : field));
      return ex->Respond(StatusResponse(resolved.status(), field.empty() ? "dir" : field));
    }
    dir = StringOr(*resolved, "dir");
    concurrency = static_cast<int>(IntegerOr(*resolved, "concurrency", 4));
  }
  Result<std::shared_ptr<ServerWorklist>> w = StartWorklist(s, id, dir, concurrency, false, &field);
  if (!w.ok()) {
    std::filesystem::remove_all(folder, ec);
    return ex->Respond(StatusResponse(w.status(), field));
  }
  Json body;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    body = WorklistJson(**w);
  }
  HttpResponse created = JsonResponse(201, Json{{"worklist", body}});
  created.headers.emplace_back("location", "/v1/worklists/" + id);
  ex->Respond(std::move(created));
}

void ShowWorklist(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p) {
  if (!IsWorklistId(p[0])) return ex->Respond(ErrorResponse("not_found", "no worklist '" + PrintableLine(p[0]) + "'"));
  std::shared_ptr<ServerWorklist> known;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.worklists.find(p[0]);
    if (it != s.worklists.end()) known = it->second;
  }
  if (known) {
    if (!known->batch.empty()) {
      if (Status st = RefreshQueued(s, *known); !st.ok()) return ex->Respond(StatusResponse(st));
    }
    std::lock_guard<std::mutex> lock(s.mu);
    return ex->Respond(JsonResponse(200, Json{{"worklist", WorklistJson(*known)}}));
  }
  // A worklist of an earlier start: its files.
  const std::string folder = WorklistsDir(s) + "/" + p[0];
  Result<std::string> text = ReadUserFile(folder + "/server.json", "the worklist's record", 1 << 20);
  if (!text.ok()) return ex->Respond(ErrorResponse("not_found", "no worklist '" + p[0] + "'"));
  Result<Json> record = ParseJson(*text);
  if (!record.ok()) return ex->Respond(ErrorResponse("internal", "the worklist's record is damaged"));
  ServerWorklist w{.id = p[0], .status = StringOr(*record, "status"), .created_at = StringOr(*record, "created_at")};
  w.total = static_cast<size_t>(IntegerOr(*record, "cases_total", 0));
  w.done = static_cast<size_t>(IntegerOr(*record, "cases_done", 0));
  w.failed = static_cast<size_t>(IntegerOr(*record, "cases_failed", 0));
  w.cases = record->contains("cases") && (*record)["cases"].is_array() ? (*record)["cases"] : Json::array();
  ex->Respond(JsonResponse(200, Json{{"worklist", WorklistJson(w)}}));
}

void CancelWorklist(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p) {
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.worklists.find(p[0]);
  if (it == s.worklists.end()) {
    return ex->Respond(ErrorResponse("not_found", "no worklist '" + PrintableLine(p[0]) + "' runs in this server"));
  }
  if (!it->second->batch.empty()) {
    return ex->Respond(ErrorResponse("conflict", "worklist '" + p[0] + "' is queued: its cases are run by medreact "
                                                 "workers, which this server does not stop"));
  }
  if (it->second->status != "running") {
    return ex->Respond(ErrorResponse("conflict", "worklist '" + p[0] + "' has already ended (" +
                                                     it->second->status + ")"));
  }
  // The cases under way end interrupted (resumable); those not started are not triaged.
  it->second->cancel.Cancel();
  ex->Respond(JsonResponse(202, Json{{"worklist_id", p[0]}, {"status", "cancelling"}}));
}

std::vector<std::string> ResumeWorklists(ApiState& s) {
  std::vector<std::string> resumed;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(WorklistsDir(s), ec)) {
    const std::string id = entry.path().filename().string();
    if (!IsWorklistId(id)) continue;
    Result<std::string> text = ReadUserFile(entry.path().string() + "/server.json", "the worklist's record", 1 << 20);
    if (!text.ok()) continue;
    Result<Json> record = ParseJson(*text);
    if (!record.ok() || StringOr(*record, "status") != "running") continue;
    if (const std::string batch = StringOr(*record, "batch"); !batch.empty()) {
      // Queued: its workers go on with it; this server follows its batch again.
      if (!s.options.worklist_queue) continue;
      auto w = std::make_shared<ServerWorklist>();
      w->id = id;
      w->dir = StringOr(*record, "dir");
      w->folder = entry.path().string();
      w->created_at = StringOr(*record, "created_at");
      w->batch = batch;
      w->total = static_cast<size_t>(std::max<int64_t>(0, IntegerOr(*record, "cases_total", 0)));
      std::lock_guard<std::mutex> lock(s.mu);
      s.worklists[id] = std::move(w);
      continue;
    }
    std::string field;
    if (StartWorklist(s, id, StringOr(*record, "dir"), static_cast<int>(IntegerOr(*record, "concurrency", 4)),
                      /*resume=*/true, &field)
            .ok()) {
      resumed.push_back(id);
    }
  }
  return resumed;
}

// The worklists of this server (running here, or kept from an earlier
// start), newest first, without their cases; and the folders under the input
// roots that hold cases (a sub-folder with findings.txt), each with how many.
void ListWorklists(ApiState& s, const std::shared_ptr<Exchange>& ex) {
  constexpr size_t kMaxWorklists = 100, kMaxFolders = 200, kMaxEntries = 20000;
  std::map<std::string, Json> by_id;
  const auto brief = [](const std::string& id, const std::string& status, const std::string& created_at,
                        size_t total, size_t done, size_t failed) {
    return Json{{"id", id},           {"status", status},   {"created_at", created_at},
                {"cases_total", total}, {"cases_done", done}, {"cases_failed", failed}};
  };
  for (const auto& w : QueuedWorklists(s)) RefreshQueued(s, *w);  // a failing queue leaves the counts as they were
  {
    std::lock_guard<std::mutex> lock(s.mu);
    for (const auto& [id, w] : s.worklists) by_id[id] = brief(id, w->status, w->created_at, w->total, w->done, w->failed);
  }
  std::error_code ec;
  for (std::filesystem::directory_iterator it(WorklistsDir(s), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string id = it->path().filename().string();
    if (!IsWorklistId(id) || by_id.count(id)) continue;
    Result<std::string> text = ReadUserFile(it->path().string() + "/server.json", "the worklist's record", 1 << 20);
    if (!text.ok()) continue;
    Result<Json> r = ParseJson(*text);
    if (!r.ok() || !r->is_object()) continue;
    by_id[id] = brief(id, StringOr(*r, "status"), StringOr(*r, "created_at"),
                      static_cast<size_t>(std::max<int64_t>(0, IntegerOr(*r, "cases_total", 0))),
                      static_cast<size_t>(std::max<int64_t>(0, IntegerOr(*r, "cases_done", 0))),
                      static_cast<size_t>(std::max<int64_t>(0, IntegerOr(*r, "cases_failed", 0))));
  }
  std::vector<Json> lists;
  for (auto& [id, j] : by_id) lists.push_back(std::move(j));
  std::stable_sort(lists.begin(), lists.end(), [](const Json& a, const Json& b) {
    return StringOr(a, "created_at") > StringOr(b, "created_at");
  });
  if (lists.size() > kMaxWorklists) lists.resize(kMaxWorklists);

  // A folder's sub-folders (symbolic links are not followed), at most kMaxEntries looked at in all.
  size_t entries = 0;
  const auto sub_folders = [&entries](const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> out;
    std::error_code e;
    for (std::filesystem::directory_iterator it(dir, e), end; !e && it != end; it.increment(e)) {
      if (++entries > kMaxEntries) break;
      std::error_code se;
      if (!it->is_symlink(se) && it->is_directory(se)) out.push_back(it->path());
    }
    return out;
  };
  // A folder's cases: its sub-folders holding findings.txt.
  const auto count_cases = [&sub_folders](const std::filesystem::path& dir) {
    size_t n = 0;
    for (const auto& sub : sub_folders(dir)) {
      std::error_code se;
      if (std::filesystem::is_regular_file(sub / "findings.txt", se)) ++n;
    }
    return n;
  };
  Json folders = Json::array();
  for (const std::string& root : s.options.input_roots) {
    std::vector<std::filesystem::path> candidates = {root};
    for (auto& sub : sub_folders(root)) candidates.push_back(std::move(sub));
    std::sort(candidates.begin() + 1, candidates.end());
    for (const auto& dir : candidates) {
      if (folders.size() >= kMaxFolders || entries > kMaxEntries) break;
      if (const size_t n = count_cases(dir); n > 0) folders.push_back(Json{{"dir", dir.string()}, {"cases", n}});
    }
  }
  ex->Respond(JsonResponse(200, Json{{"worklists", lists}, {"folders", std::move(folders)}}));
}

namespace {

// The done job of this server's queued worklists whose run is `run_id`,
// with its worklist's id.
std::optional<std::pair<std::string, Job>> FindQueuedCase(ApiState& s, const std::string& run_id) {
  for (const auto& w : QueuedWorklists(s)) {
    Result<std::vector<Job>> jobs = s.options.worklist_queue->ListBatch(w->batch);
    if (!jobs.ok()) continue;
    for (const Job& job : *jobs) {
      if (job.run_id == run_id && job.state == "done") return std::make_pair(w->id, job);
    }
  }
  return std::nullopt;
}

}  // namespace

// The triage result of a worklist's case, by the case's run: what the
// worklist wrote for it (final priority, risk adjustment and its reason,
// needs_review and why), without the record's path.
void ShowTriageCase(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p) {
  Result<RunRecord> run = s.service.store()->Get(p[0]);
  if (!run.ok()) return ex->Respond(StatusResponse(run.status()));
  const std::string id = PrintableLine(p[0]);
  if (run->app != "triage") {
    return ex->Respond(ErrorResponse("not_found", "run '" + id + "' is a " + PrintableLine(run->app) +
                                                      " run, not a triage"));
  }
  const Json wl = run->inputs.is_object() && run->inputs.contains("worklist") ? run->inputs["worklist"] : Json();
  const std::filesystem::path out = std::filesystem::path(StringOr(wl, "out")).lexically_normal();
  const std::string name = StringOr(wl, "case");
  std::error_code ec;
  const std::filesystem::path mine = std::filesystem::absolute(WorklistsDir(s), ec).lexically_normal();
  const std::string worklist_id = out.parent_path().filename().string();
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos || out.filename() != "out" ||
      !IsWorklistId(worklist_id) || out.parent_path().parent_path() != mine) {
    // A case of a queued worklist: its worker's result, kept in its job.
    if (std::optional<std::pair<std::string, Job>> queued = FindQueuedCase(s, p[0])) {
      Result<Json> reported = ParseJson(queued->second.result);
      if (!reported.ok() || !reported->is_object() || !(*reported)["result"].is_object()) {
        return ex->Respond(ErrorResponse("internal", "the triage result of run '" + id + "' is damaged"));
      }
      Json result = (*reported)["result"];
      if (result.contains("record") && result["record"].is_object()) result["record"].erase("source");
      return ex->Respond(JsonResponse(200, Json{{"run_id", p[0]}, {"worklist_id", queued->first},
                                                {"case", queued->second.case_name}, {"result", std::move(result)}}));
    }
    return ex->Respond(ErrorResponse("not_found", "run '" + id + "' is not a case of a worklist of this server"));
  }
  Result<std::string> text = ReadUserFile((out / (name + ".json")).string(), "the case's result", 8 << 20);
  if (!text.ok()) {
    return ex->Respond(ErrorResponse("not_found", "run '" + id + "' has no triage result yet (its run is " +
                                                      PrintableLine(run->status) + ")"));
  }
  Result<Json> result = ParseJson(*text);
  if (!result.ok() || !result->is_object()) {
    return ex->Respond(ErrorResponse("internal", "the triage result of run '" + id + "' is damaged"));
  }
  if (result->contains("record") && (*result)["record"].is_object()) (*result)["record"].erase("source");
  ex->Respond(JsonResponse(200, Json{{"run_id", p[0]}, {"worklist_id", worklist_id}, {"case", name},
                                     {"result", std::move(*result)}}));
}

}  // namespace medreact::server
