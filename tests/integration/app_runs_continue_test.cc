// Going on with runs of any app (service/app_runs.h: ContinueAppRun,
// RunsToTakeOver), in process, with a real SQLite store: a chat paused for
// approval, decided (RunService::Decide) and continued; a chat and a
// research "crashed" mid-run — the store copied as it stood at that moment
// (VACUUM INTO: what a killed process leaves: the run `running`, held by a
// store that is gone) — found by RunsToTakeOver in a new service, taken
// (PrepareResume) and continued to the uninterrupted result; and the runs
// RunsToTakeOver leaves alone (a live holder's, a paused one, an ended one).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

#include "service/app_runs.h"
#include "store/run_store.h"
#include "mockllm/mock_server.h"
#include "testing/build_paths.h"
#include "testing/scripted_server.h"
#include "testing/subprocess.h"

namespace medreact::service {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<RunStore> Store(const std::string& path, RunStoreOptions options = {}) {
  Result<std::unique_ptr<RunStore>> store = RunStore::Open(path, options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::shared_ptr<RunStore>(std::move(*store)) : nullptr;
}

// A consistent copy of a SQLite file as its committed state stands.
void CopyDatabase(const std::string& from, const std::string& to) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(from.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  char* error = nullptr;
  const std::string sql = "VACUUM INTO '" + to + "'";
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << message;
}

Json Call(const std::string& id, const std::string& expression) {
  return {{"message",
           {{"content", nullptr},
            {"tool_calls",
             Json::array({{{"id", id}, {"name", "calculator"}, {"arguments", Json{{"expression", expression}}}}})}}}};
}
Json Answer(const std::string& text) { return {{"message", {{"content", text}}}}; }

std::vector<std::string> Ids(const std::vector<RunRecord>& runs) {
  std::vector<std::string> out;
  for (const RunRecord& r : runs) out.push_back(r.id);
  return out;
}

TEST(AppRunsContinueTest, AChatPausedForApprovalGoesOnAfterTheDecision) {
  testing::ScriptedServer model(Json{{"responses", Json::array({Call("c1", "2+2"), Answer("It is 4.")})}});
  testing::TempDir dir;
  RunService service(Store(dir.File("runs.sqlite")));
  const AppRunContext ctx{.model = {.url = model.url(), .name = "mock", .max_retries = 0}};
  Result<std::unique_ptr<PreparedAppRun>> prepared = PrepareAppRun(
      service, "chat", {{"message", "What is 2+2?"}, {"require_approval", {"all"}}}, ctx, nullptr);
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  const AppRunResult paused = RunAppPrepared(service, std::move(*prepared), {});
  ASSERT_EQ(paused.status, "awaiting_approval");
  ASSERT_TRUE(paused.stored);
  EXPECT_EQ(model.chat_requests(), 1u);
  // A paused run is not taken over: it waits for a person.
  Result<std::vector<RunRecord>> takeover = RunsToTakeOver(service);
  ASSERT_TRUE(takeover.ok());
  EXPECT_TRUE(takeover->empty());

  Result<DecideOutcome> decided = service.Decide(paused.run_id, {{.call_id = "c1", .approve = true}}, {"dr.a"});
  ASSERT_TRUE(decided.ok()) << decided.status().ToString();
  ASSERT_TRUE(decided->waiting.empty());
  Result<RunRecord> run = service.store()->Get(paused.run_id);
  ASSERT_TRUE(run.ok());
  std::vector<std::string> started;
  Result<AppRunResult> done = ContinueAppRun(
      service, *run, {}, {.on_started = [&](const std::string& id) { started.push_back(id); }}, ctx);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->run_id, paused.run_id);
  EXPECT_EQ(done->status, "finished");
  EXPECT_EQ(StringOr(done->result, "answer"), "It is 4.");
  EXPECT_EQ(done->result.value("tool_calls", 0), 1);
  EXPECT_EQ(started, std::vector<std::string>{paused.run_id});
  EXPECT_EQ(model.chat_requests(), 2u);
  Result<RunView> view = service.Show(paused.run_id);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->run.status, "finished");
  EXPECT_EQ(view->run.owner, "");  // the lease was given back
}

TEST(AppRunsContinueTest, ACrashedChatIsFoundTakenOverAndFinishedWithoutRunningAToolTwice) {
  // The first run's model: a call, then the answer; the resume's: the answer.
  testing::ScriptedServer model(
      Json{{"responses", Json::array({Call("c1", "2+2"), Answer("It is 4."), Answer("It is 4.")})}});
  testing::TempDir dir;
  const std::string crashed = dir.File("crashed.sqlite");
  std::string cut_id;
  {
    RunService first(Store(dir.File("runs.sqlite")));
    const AppRunContext ctx{.model = {.url = model.url(), .name = "mock", .max_retries = 0}};
    Result<std::unique_ptr<PreparedAppRun>> prepared =
        PrepareAppRun(first, "chat", {{"message", "What is 2+2?"}}, ctx, nullptr);
    ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
    AppRunHooks hooks;
    hooks.on_started = [&](const std::string& id) { cut_id = id; };
    // After the step that ran the tool (its checkpoint committed): the "crash".
    hooks.on_event = [&](const Event& e) {
      if (e.type == EventType::kStepFinished && !std::filesystem::exists(crashed)) {
        CopyDatabase(dir.File("runs.sqlite"), crashed);
      }
    };
    const AppRunResult whole = RunAppPrepared(first, std::move(*prepared), hooks);
    ASSERT_EQ(whole.status, "finished");
    ASSERT_EQ(whole.run_id, cut_id);
  }  // the first process's store is gone
  ASSERT_TRUE(std::filesystem::exists(crashed));
  ASSERT_EQ(model.chat_requests(), 2u);

  RunService second(Store(crashed));
  // Beside it: a run another live process holds (another host, lease not
  // expired), and an ended one: neither is taken over.
  auto far = Store(crashed, {.owner = "far-host/7/7/1"});
  ASSERT_TRUE(far->CreateRun({.id = "run_held_far_away", .app = "chat"}).ok());
  ASSERT_TRUE(far->CreateRun({.id = "run_ended", .app = "chat"}).ok());
  ASSERT_TRUE(far->FinishRun("run_ended", "finished", Json::object(), {}).ok());
  Result<std::vector<RunRecord>> takeover = RunsToTakeOver(second);
  ASSERT_TRUE(takeover.ok()) << takeover.status().ToString();
  EXPECT_EQ(Ids(*takeover), std::vector<std::string>{cut_id});
  ASSERT_EQ(takeover->size(), 1u);
  EXPECT_EQ((*takeover)[0].status, "running");
  EXPECT_EQ((*takeover)[0].steps, 1);

  Result<RunRecord> taken = second.PrepareResume(cut_id);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  // Taken: no longer offered to another starting server.
  Result<std::vector<RunRecord>> again = RunsToTakeOver(second);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());
  std::vector<std::string> started;
  Result<AppRunResult> done =
      ContinueAppRun(second, *taken, {}, {.on_started = [&](const std::string& id) { started.push_back(id); }}, {});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->status, "finished");
  EXPECT_EQ(done->run_id, cut_id);
  EXPECT_EQ(StringOr(done->result, "answer"), "It is 4.");
  EXPECT_EQ(done->result.value("tool_calls", 0), 1);  // the tool that ran before the crash is not run again
  EXPECT_EQ(started, std::vector<std::string>{cut_id});
  EXPECT_EQ(model.chat_requests(), 3u);  // one model call after the crash
  Result<RunView> view = second.Show(cut_id);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->run.status, "finished");
  EXPECT_EQ(view->steps.size(), 2u);
}

TEST(AppRunsContinueTest, ACrashedResearchIsTakenOverAndEndsWithTheUninterruptedReport) {
  testing::TempDir dir;
  const std::string recordings = MEDREACT_SOURCE_DIR + "/examples/research";
  const AppRunContext ctx{.input_roots = {recordings}, .research_cache = dir.File("cache.sqlite")};
  const Json inputs = {{"question", "What is the evidence for Keytruda in cancer?"},
                       {"planner", "rules"},
                       {"results", 3},
                       {"replay", recordings + "/keytruda.jsonl"}};
  const std::string crashed = dir.File("crashed.sqlite");
  AppRunResult whole;
  {
    RunService first(Store(dir.File("runs.sqlite")));
    Result<std::unique_ptr<PreparedAppRun>> prepared = PrepareAppRun(first, "research", inputs, ctx, nullptr);
    ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
    AppRunHooks hooks;
    // As the report starts: the turns before it are checkpointed.
    hooks.on_research_event = [&](const ResearchEvent& e) {
      if (e.type == ResearchEventType::kSynthesizing && !std::filesystem::exists(crashed)) {
        CopyDatabase(dir.File("runs.sqlite"), crashed);
      }
    };
    whole = RunAppPrepared(first, std::move(*prepared), hooks);
    ASSERT_EQ(whole.status, "finished") << whole.result.dump();
  }
  ASSERT_TRUE(std::filesystem::exists(crashed));

  RunService second(Store(crashed));
  Result<std::vector<RunRecord>> takeover = RunsToTakeOver(second);
  ASSERT_TRUE(takeover.ok()) << takeover.status().ToString();
  ASSERT_EQ(Ids(*takeover), std::vector<std::string>{whole.run_id});
  const int64_t steps_at_crash = (*takeover)[0].steps;
  EXPECT_GE(steps_at_crash, 1);
  Result<RunRecord> taken = second.PrepareResume(whole.run_id);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  std::vector<std::string> events;
  Result<AppRunResult> done = ContinueAppRun(
      second, *taken, {},
      {.on_research_event = [&](const ResearchEvent& e) { events.push_back(ResearchEventTypeName(e.type)); }}, ctx);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->run_id, whole.run_id);
  EXPECT_EQ(done->status, "finished");
  EXPECT_EQ(StringOr(done->result, "report_markdown"), StringOr(whole.result, "report_markdown"));
  EXPECT_FALSE(events.empty());
  Result<RunView> view = second.Show(whole.run_id);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->run.status, "finished");
  Result<RunView> original = RunService(Store(dir.File("runs.sqlite"))).Show(whole.run_id);
  ASSERT_TRUE(original.ok());
  EXPECT_EQ(view->steps.size(), original->steps.size());  // none lost, none twice
}

// The chest X-ray agent's script (tests/integration/cxr_service_test.cc):
// classifier and segmentation, then a picture and a grounding, then the answer.
Json CxrScript(const std::string& answer) {
  Result<Json> endpoints = ParseJson(testing::ReadFileOrEmpty(MEDREACT_SOURCE_DIR + "/examples/cxr/endpoints.json"));
  EXPECT_TRUE(endpoints.ok());
  Json script = *endpoints;
  script["select"] = "by_turn";
  auto calls = [](Json list) { return Json{{"message", {{"content", nullptr}, {"tool_calls", std::move(list)}}}}; };
  auto call = [](const std::string& id, const std::string& tool, Json args) {
    return Json{{"id", id}, {"name", tool}, {"arguments", std::move(args)}};
  };
  script["responses"] = Json::array(
      {calls(Json::array({call("cls1", "chest_xray_classifier", {{"image_id", "img1"}}),
                          call("seg1", "chest_xray_segmentation", {{"image_id", "img1"}})})),
       calls(Json::array({call("viz1", "image_visualizer", {{"image_id", "img1"}, {"masks", {"img2"}}}),
                          call("grd1", "xray_phrase_grounding", {{"image_id", "img1"}, {"phrase", "cardiomegaly"}})})),
       Json{{"message", {{"content", answer}}}}});
  return script;
}

TEST(AppRunsContinueTest, ACxrRunFromJsonPausesForApprovalAndGoesOnAfterTheDecision) {
  const std::string answer = "The heart looks enlarged: cardiomegaly is likely.";
  testing::ScriptedServer server(CxrScript(answer));
  const std::string root = "http://127.0.0.1:" + std::to_string(server.server->port());
  testing::TempDir dir;
  RunService service(Store(dir.File("runs.sqlite")));
  const std::string fixtures = MEDREACT_SOURCE_DIR + "/tests/fixtures/dicom";
  const AppRunContext ctx{.model = {.url = server.url(), .name = "mock", .max_retries = 0},
                          .imaging = {.classifier_url = root + "/classify",
                                      .segmentation_url = root + "/segment",
                                      .grounding_url = root + "/ground",
                                      .image_dir = dir.File("images")},
                          .input_roots = {fixtures}};
  std::string field;
  Result<std::unique_ptr<PreparedAppRun>> prepared =
      PrepareAppRun(service, "cxr",
                    {{"question", "Is the heart enlarged?"},
                     {"images", {fixtures + "/CR-MONO1-10-chest.dcm"}},
                     {"planner", "model"},
                     {"require_approval", {"tool:chest_xray_classifier"}}},
                    ctx, &field);
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString() << " " << field;
  std::vector<std::string> started;
  const AppRunResult paused = RunAppPrepared(
      service, std::move(*prepared), {.on_started = [&](const std::string& id) { started.push_back(id); }});
  ASSERT_EQ(paused.status, "awaiting_approval") << paused.result.dump();
  ASSERT_TRUE(paused.stored);
  EXPECT_EQ(started, std::vector<std::string>{paused.run_id});
  Result<RunView> view = service.Show(paused.run_id);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->run.app, "cxr");
  ASSERT_EQ(view->waiting.size(), 1u);
  EXPECT_EQ(view->waiting[0].id, "cls1");

  Result<DecideOutcome> decided = service.Decide(paused.run_id, {{.call_id = "cls1", .approve = true}}, {"dr.a"});
  ASSERT_TRUE(decided.ok()) << decided.status().ToString();
  ASSERT_TRUE(decided->waiting.empty());
  Result<AppRunResult> done = ContinueAppRun(service, service.store()->Get(paused.run_id).value(), {}, {}, ctx);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->run_id, paused.run_id);
  EXPECT_EQ(done->status, "finished") << done->result.dump();
  EXPECT_EQ(StringOr(done->result, "answer"), answer) << done->result.dump();
  EXPECT_EQ(service.Show(paused.run_id).value().run.status, "finished");
}

TEST(AppRunsContinueTest, ARunIsCancelledByItsIdAndGoesOnFromWhereItStopped) {
  testing::ScriptedServer model(Json{{"responses", Json::array({Call("c1", "2+2"), Answer("It is 4.")})}});
  testing::TempDir dir;
  RunService service(Store(dir.File("runs.sqlite")));
  const AppRunContext ctx{.model = {.url = model.url(), .name = "mock", .max_retries = 0},
                          .input_roots = {MEDREACT_SOURCE_DIR + "/examples/research"},
                          .research_cache = dir.File("cache.sqlite")};
  // As soon as the server knows the id, a client stops it (DELETE /v1/runs/{id}).
  auto stop_at_once = [&](AppRunHooks& hooks, Status* cancelled) {
    hooks.on_started = [&service, cancelled](const std::string& id) { *cancelled = service.Cancel(id); };
  };
  for (const std::string app : {"chat", "research"}) {
    SCOPED_TRACE(app);
    const Json inputs = app == "chat" ? Json{{"message", "What is 2+2?"}}
                                      : Json{{"question", "What is the evidence for Keytruda in cancer?"},
                                             {"planner", "rules"},
                                             {"results", 3},
                                             {"replay", MEDREACT_SOURCE_DIR + "/examples/research/keytruda.jsonl"}};
    Result<std::unique_ptr<PreparedAppRun>> prepared = PrepareAppRun(service, app, inputs, ctx, nullptr);
    ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
    AppRunHooks hooks;
    Status cancelled = Status::Internal("never started");
    stop_at_once(hooks, &cancelled);
    const AppRunResult stopped = RunAppPrepared(service, std::move(*prepared), hooks);
    EXPECT_TRUE(cancelled.ok()) << cancelled.ToString();
    EXPECT_EQ(stopped.status, "interrupted");
    ASSERT_TRUE(stopped.stored);
    EXPECT_EQ(service.Cancel(stopped.run_id).code(), StatusCode::kNotFound);  // no longer running here
    // An interrupted run is not a crashed one: it is not taken over, it is resumed on request.
    Result<std::vector<RunRecord>> takeover = RunsToTakeOver(service);
    ASSERT_TRUE(takeover.ok());
    EXPECT_TRUE(takeover->empty());
    Result<RunRecord> taken = service.PrepareResume(stopped.run_id);
    ASSERT_TRUE(taken.ok()) << taken.status().ToString();
    Result<AppRunResult> done = ContinueAppRun(service, *taken, {}, {}, ctx);
    ASSERT_TRUE(done.ok()) << done.status().ToString();
    EXPECT_EQ(done->status, "finished") << done->result.dump();
    EXPECT_EQ(done->run_id, stopped.run_id);
  }
  EXPECT_EQ(model.chat_requests(), 2u);  // the chat's model calls, once each
}

TEST(AppRunsContinueTest, AnExtractionGivenAsTextCannotGoOnAndSaysWhy) {
  testing::TempDir dir;
  const std::string examples = MEDREACT_SOURCE_DIR + "/examples/extract/";
  RunService service(Store(dir.File("runs.sqlite")));
  Result<std::unique_ptr<PreparedAppRun>> prepared = PrepareAppRun(
      service, "extract",
      {{"note", testing::ReadFileOrEmpty(examples + "pediatric-malnutrition.txt")},
       {"schema", ParseJson(testing::ReadFileOrEmpty(examples + "pediatric-malnutrition.schema.json")).value()},
       {"planner", "rules"}},
      {}, nullptr);
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  Status cancelled = Status::Internal("never started");
  const AppRunResult stopped = RunAppPrepared(
      service, std::move(*prepared),
      {.on_started = [&](const std::string& id) { cancelled = service.Cancel(id); }});
  ASSERT_TRUE(cancelled.ok()) << cancelled.ToString();
  ASSERT_EQ(stopped.status, "interrupted");
  Result<RunRecord> taken = service.PrepareResume(stopped.run_id);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  Result<AppRunResult> again = ContinueAppRun(service, *taken, {}, {}, {});
  EXPECT_EQ(again.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(again.status().message(), HasSubstr("was given its note as text"));
  EXPECT_EQ(service.store()->Get(stopped.run_id).value().owner, "");  // the lease given back
}

TEST(AppRunsContinueTest, ARunOfAnUnknownAppOrWithoutAStoreIsRefused) {
  RunService unstored(nullptr);
  EXPECT_EQ(RunsToTakeOver(unstored).status().code(), StatusCode::kFailedPrecondition);
  testing::TempDir dir;
  RunService service(Store(dir.File("runs.sqlite")));
  ASSERT_TRUE(service.store()->CreateRun({.id = "run_odd", .app = "oracle"}).ok());
  Result<std::vector<RunRecord>> takeover = RunsToTakeOver(service);
  ASSERT_TRUE(takeover.ok());
  EXPECT_TRUE(takeover->empty());  // ours, and of no app this medreact knows
  Result<AppRunResult> odd = ContinueAppRun(service, service.store()->Get("run_odd").value(), {}, {}, {});
  EXPECT_THAT(odd.status().message(), HasSubstr("does not know"));
  EXPECT_EQ(service.store()->Get("run_odd").value().owner, "");  // given back
}

}  // namespace
}  // namespace medreact::service
