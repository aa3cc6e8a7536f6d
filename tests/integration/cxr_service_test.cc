// cxr runs in the run service (issue 22), in process, against the scripted
// model server (model turns and the imaging endpoints) on loopback and a
// real SQLite store: a run started and recorded with its images kept by
// hash; a kill simulated by copying the store (and its run folder) at the
// moment a tool call's checkpoint committed, the first process then ended;
// the copy resumed to the same steps, answer and stored events as the run
// that was not killed, without running the finished call again; a kept
// image missing or changed refused by name; approval rules pausing an
// endpoint call, decided (approve, reject, an edit checked against the
// tool's schema) and continued; a run stopped by its token resumed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "core/file_io.h"
#include "mockllm/mock_server.h"
#include "service/cxr_runs.h"
#include "service/run_images.h"
#include "service/run_service.h"
#include "store/run_store.h"
#include "testing/build_paths.h"
#include "testing/subprocess.h"

namespace medreact::service {
namespace {

using ::testing::HasSubstr;
using mockllm::MockLlmServer;

const std::string kAnswer = "The heart looks enlarged: cardiomegaly is likely.";

Json Calls(Json calls) { return {{"message", {{"content", nullptr}, {"tool_calls", std::move(calls)}}}}; }
Json CallOf(const std::string& id, const std::string& tool, Json arguments) {
  return {{"id", id}, {"name", tool}, {"arguments", std::move(arguments)}};
}

// Turn 1: the classifier and the segmentation of img1 together; turn 2: the
// annotated picture of the heart's mask (img2, made by turn 1) and the
// grounding of a phrase; then the answer.
Json Script() {
  Result<Json> endpoints = ParseJson(testing::ReadFileOrEmpty(MEDREACT_SOURCE_DIR + "/examples/cxr/endpoints.json"));
  EXPECT_TRUE(endpoints.ok());
  Json script = *endpoints;
  script["select"] = "by_turn";
  script["responses"] = Json::array(
      {Calls(Json::array({CallOf("cls1", "chest_xray_classifier", {{"image_id", "img1"}}),
                          CallOf("seg1", "chest_xray_segmentation", {{"image_id", "img1"}})})),
       Calls(Json::array({CallOf("viz1", "image_visualizer", {{"image_id", "img1"}, {"masks", {"img2"}}}),
                          CallOf("grd1", "xray_phrase_grounding",
                                 {{"image_id", "img1"}, {"phrase", "cardiomegaly"}})})),
       Json{{"message", {{"content", kAnswer}}}}});
  return script;
}

struct Server {
  Server() {
    Result<mockllm::MockScript> parsed = MockLlmServer::ParseScript(Script());
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    server = std::make_unique<MockLlmServer>(*parsed);
    EXPECT_TRUE(server->Start().ok());
  }
  ~Server() { server->Stop(); }
  std::string url() const { return server->base_url(); }
  std::string root() const { return "http://127.0.0.1:" + std::to_string(server->port()); }
  std::unique_ptr<MockLlmServer> server;
};

std::shared_ptr<RunStore> Store(const std::string& path) {
  Result<std::unique_ptr<RunStore>> store = RunStore::Open(path, {.lease_ttl = std::chrono::milliseconds(0)});
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::shared_ptr<RunStore>(std::move(*store)) : nullptr;
}

CxrSettings Settings(const Server& s, const std::string& image_dir, std::vector<std::string> rules = {}) {
  CxrSettings settings;
  settings.images = {MEDREACT_SOURCE_DIR + "/tests/fixtures/dicom/CR-MONO1-10-chest.dcm"};
  settings.planner = "model";
  settings.model = {.url = s.url(), .name = "mock", .max_retries = 0};
  settings.classifier_url = s.root() + "/classify";
  settings.segmentation_url = s.root() + "/segment";
  settings.grounding_url = s.root() + "/ground";
  settings.image_dir = image_dir;
  settings.require_approval = std::move(rules);
  return settings;
}

// What the stored events say, timing aside: the model's turns, the steps
// and the end, with their step numbers.
std::vector<std::string> Story(const std::vector<RunEvent>& events) {
  std::vector<std::string> out;
  for (const RunEvent& e : events) {
    if (e.type == "assistant_message" || e.type == "step_finished" || e.type == "run_finished") {
      out.push_back(e.type + "@" + std::to_string(e.step));
    }
  }
  return out;
}

void CopyStore(const std::string& from, const std::string& to) {
  for (const char* suffix : {"", "-wal"}) {
    std::error_code ec;
    if (std::filesystem::exists(from + suffix)) {
      std::filesystem::copy_file(from + suffix, to + suffix, std::filesystem::copy_options::overwrite_existing, ec);
      ASSERT_FALSE(ec) << ec.message();
    }
  }
}

TEST(CxrServiceTest, AKilledRunResumesToTheSameStepsAnswerAndEventsRunningNoFinishedCallTwice) {
  Server server;
  testing::TempDir dir;
  // The run that is not killed: the reference.
  std::string reference_id;
  std::vector<StepRecord> reference_steps;
  std::vector<std::string> reference_story;
  {
    RunService service(Store(dir.File("reference.sqlite")));
    Result<std::unique_ptr<PreparedCxr>> prepared = PrepareCxr(service, Settings(server, dir.File("ref-images")));
    ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
    Result<CxrRunOutcome> ran = RunCxrQuestion(service, **prepared, "Is the heart enlarged?", {}, {});
    ASSERT_TRUE(ran.ok()) << ran.status().ToString();
    ASSERT_EQ(ran->status, "finished") << ran->outcome.error;
    EXPECT_EQ(ran->outcome.answer, kAnswer);
    reference_id = ran->run_id;
    reference_steps = *service.store()->Steps(reference_id);
    reference_story = Story(*service.Events(reference_id));
  }
  ASSERT_EQ(reference_steps.size(), 3u);

  // The run "killed" at the first call that finished: the store as it was
  // right after that call's checkpoint (taken before its tool_finished).
  const std::string live = dir.File("live.sqlite"), killed = dir.File("killed.sqlite");
  std::string first_done;
  std::string id;
  {
    RunService service(Store(live));
    Result<std::unique_ptr<PreparedCxr>> prepared = PrepareCxr(service, Settings(server, dir.File("images")));
    ASSERT_TRUE(prepared.ok());
    RunHooks hooks{.on_event = [&](const Event& e) {
      if (e.type == EventType::kToolFinished && first_done.empty()) {
        first_done = e.tool_call_id;
        CopyStore(live, killed);
      }
    }};
    Result<CxrRunOutcome> ran = RunCxrQuestion(service, **prepared, "Is the heart enlarged?", {}, hooks);
    ASSERT_TRUE(ran.ok());
    id = ran->run_id;
  }
  ASSERT_FALSE(first_done.empty());
  std::filesystem::copy(RunImageFolder::ForStore(live), RunImageFolder::ForStore(killed));

  RunService service(Store(killed));
  Result<RunRecord> run = service.PrepareResume(id);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->status, "running");
  Result<std::unique_ptr<PreparedCxrResume>> prepared = PrepareCxrResume(service, *run, {}, "");
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  EXPECT_EQ((*prepared)->state.phase, RunState::Phase::kInTurn);
  std::vector<std::string> started;
  CxrRunOutcome resumed = RunCxrResume(service, std::move(*prepared), {.on_event = [&](const Event& e) {
                                         if (e.type == EventType::kToolStarted) started.push_back(e.tool_call_id);
                                       }});
  EXPECT_EQ(resumed.status, "finished") << resumed.outcome.error;
  EXPECT_EQ(resumed.outcome.answer, kAnswer);
  EXPECT_EQ(resumed.outcome.trace.run_id, id);
  EXPECT_EQ(std::count(started.begin(), started.end(), first_done), 0) << first_done << " ran twice";

  // The same steps as the run that was not killed, each call with its result.
  Result<std::vector<StepRecord>> steps = service.store()->Steps(id);
  ASSERT_TRUE(steps.ok());
  ASSERT_EQ(steps->size(), reference_steps.size());
  for (size_t i = 0; i < steps->size(); ++i) {
    EXPECT_EQ((*steps)[i].index, reference_steps[i].index);
    ASSERT_EQ((*steps)[i].tool_results.size(), reference_steps[i].tool_results.size()) << "step " << i + 1;
    for (size_t c = 0; c < (*steps)[i].tool_results.size(); ++c) {
      EXPECT_EQ((*steps)[i].tool_results[c].tool_call_id, reference_steps[i].tool_results[c].tool_call_id);
      EXPECT_TRUE((*steps)[i].tool_results[c].ok) << (*steps)[i].tool_results[c].error;
    }
  }
  // The same stored story of model turns, steps and end.
  EXPECT_EQ(Story(*service.Events(id)), reference_story);
  EXPECT_TRUE(service.store()->IntegrityCheck().ok());
  // The annotated picture (img5: after the three masks) was made again into the image folder.
  EXPECT_EQ(resumed.outcome.result["annotated_images"].size(), 1u);
}

TEST(CxrServiceTest, AKeptImageMissingOrChangedIsRefusedNamingIt) {
  Server server;
  testing::TempDir dir;
  const std::string path = dir.File("runs.sqlite"), copy = dir.File("copy.sqlite");
  std::string id;
  {
    RunService service(Store(path));
    Result<std::unique_ptr<PreparedCxr>> prepared = PrepareCxr(service, Settings(server, dir.File("images")));
    ASSERT_TRUE(prepared.ok());
    bool copied = false;
    Result<CxrRunOutcome> ran =
        RunCxrQuestion(service, **prepared, "Is the heart enlarged?", {}, {.on_event = [&](const Event& e) {
                         if (e.type == EventType::kStepFinished && !copied) {
                           copied = true;
                           CopyStore(path, copy);  // after turn 1: the masks are kept
                         }
                       }});
    ASSERT_TRUE(ran.ok());
    id = ran->run_id;
  }
  const std::string folder = RunImageFolder::ForStore(copy);
  std::filesystem::copy(RunImageFolder::ForStore(path), folder);
  std::string user_hash, mask_hash;
  {
    RunService service(Store(copy));
    Result<std::optional<RunState>> state = service.store()->LatestState(id);
    ASSERT_TRUE(state.ok() && state->has_value());
    const Json& images = (**state).app["images"];
    ASSERT_GE(images.size(), 2u) << images.dump();
    EXPECT_EQ(images[0]["id"], "img1");
    EXPECT_EQ(images[0]["origin"], "user");
    EXPECT_EQ(images[1]["origin"], "chest_xray_segmentation");
    user_hash = images[0]["sha256"].get<std::string>();
    mask_hash = images[1]["sha256"].get<std::string>();
  }
  ASSERT_TRUE(WriteFileAtomic(folder + "/" + mask_hash, "not the mask").ok());
  {
    RunService service(Store(copy));
    Result<RunRecord> run = service.PrepareResume(id);
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    Result<std::unique_ptr<PreparedCxrResume>> prepared = PrepareCxrResume(service, *run, {}, "");
    ASSERT_FALSE(prepared.ok());
    EXPECT_THAT(prepared.status().message(), HasSubstr("image img2"));
    EXPECT_THAT(prepared.status().message(), HasSubstr("has changed"));
  }
  std::filesystem::remove(folder + "/" + user_hash);
  {
    RunService service(Store(copy));
    Result<RunRecord> run = service.PrepareResume(id);  // the lease was given back
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    Result<std::unique_ptr<PreparedCxrResume>> prepared = PrepareCxrResume(service, *run, {}, "");
    ASSERT_FALSE(prepared.ok());
    EXPECT_THAT(prepared.status().message(), HasSubstr("image img1 (CR-MONO1-10-chest.dcm, read from"));
    EXPECT_THAT(prepared.status().message(), HasSubstr("is missing"));
  }
}

TEST(CxrServiceTest, AnEndpointCallWaitsForApprovalThenGoesOnWithTheDecisions) {
  Server server;
  testing::TempDir dir;
  RunService service(Store(dir.File("runs.sqlite")));
  Result<std::unique_ptr<PreparedCxr>> prepared =
      PrepareCxr(service, Settings(server, dir.File("images"), {"tool:chest_xray_classifier",
                                                                 "tool:chest_xray_segmentation"}));
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  Result<CxrRunOutcome> ran = RunCxrQuestion(service, **prepared, "Is the heart enlarged?", {}, {});
  ASSERT_TRUE(ran.ok());
  EXPECT_EQ(ran->status, "awaiting_approval") << ran->outcome.error;
  EXPECT_FALSE(ran->how.fell_back);
  const std::string id = ran->run_id;
  const std::vector<Json> requests = server.server->requests();
  EXPECT_TRUE(std::none_of(requests.begin(), requests.end(),
                           [](const Json& r) { return StringOr(r, "path") == "/classify"; }));  // nothing ran
  Result<RunView> view = service.Show(id);
  ASSERT_TRUE(view.ok());
  ASSERT_EQ(view->waiting.size(), 2u);
  EXPECT_EQ(view->waiting[0].id, "cls1");

  Result<DecideOutcome> decided = service.Decide(id, {{.call_id = "cls1", .approve = true}}, {.identity = "dr.a"});
  ASSERT_TRUE(decided.ok()) << decided.status().ToString();
  EXPECT_EQ(decided->waiting, std::vector<std::string>{"seg1"});
  decided = service.Decide(id, {{.call_id = "seg1", .approve = false, .reason = "not needed"}}, {.identity = "dr.a"});
  ASSERT_TRUE(decided.ok()) << decided.status().ToString();
  EXPECT_TRUE(decided->waiting.empty());

  Result<RunRecord> run = service.store()->Get(id);
  ASSERT_TRUE(run.ok());
  Result<std::unique_ptr<PreparedCxrResume>> again = PrepareCxrResume(service, *run, {}, "");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  // Turn 2 has no call the rules select (the mask img2 was never made, so
  // the visualizer fails as an observation); the run ends with the answer.
  CxrRunOutcome done = RunCxrResume(service, std::move(*again), {});
  EXPECT_EQ(done.status, "finished") << done.outcome.error;
  EXPECT_EQ(done.outcome.answer, kAnswer);
  Result<std::vector<StepRecord>> steps = service.store()->Steps(id);
  ASSERT_TRUE(steps.ok() && !steps->empty());
  ASSERT_EQ((*steps)[0].tool_results.size(), 2u);
  EXPECT_TRUE((*steps)[0].tool_results[0].ok);   // approved: it ran
  EXPECT_FALSE((*steps)[0].tool_results[1].ok);  // rejected: the reason is its result
  EXPECT_THAT((*steps)[0].tool_results[1].error, HasSubstr("not needed"));
  EXPECT_THAT(::testing::PrintToString((*steps)[0].notes), HasSubstr("approved by dr.a"));
}

TEST(CxrServiceTest, AnEditIsCheckedAgainstTheToolsSchemaAndRunsWithTheReviewersArguments) {
  Server server;
  testing::TempDir dir;
  RunService service(Store(dir.File("runs.sqlite")));
  Result<std::unique_ptr<PreparedCxr>> prepared =
      PrepareCxr(service, Settings(server, dir.File("images"), {"tool:chest_xray_segmentation"}));
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  Result<CxrRunOutcome> ran = RunCxrQuestion(service, **prepared, "Is the heart enlarged?", {}, {});
  ASSERT_TRUE(ran.ok());
  ASSERT_EQ(ran->status, "awaiting_approval");
  const std::string id = ran->run_id;
  Result<DecideOutcome> bad =
      service.Decide(id, {{.call_id = "seg1", .approve = true, .arguments = R"({"image_id": 5})"}}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("chest_xray_segmentation"));
  Result<DecideOutcome> edited = service.Decide(
      id, {{.call_id = "seg1", .approve = true, .arguments = R"({"image_id": "img1", "structures": ["Heart"]})"}},
      {.identity = "dr.b"});
  ASSERT_TRUE(edited.ok()) << edited.status().ToString();
  Result<RunRecord> run = service.store()->Get(id);
  ASSERT_TRUE(run.ok());
  Result<std::unique_ptr<PreparedCxrResume>> again = PrepareCxrResume(service, *run, {}, "");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  CxrRunOutcome done = RunCxrResume(service, std::move(*again), {});
  EXPECT_EQ(done.status, "finished") << done.outcome.error;
  Result<std::vector<StepRecord>> steps = service.store()->Steps(id);
  ASSERT_TRUE(steps.ok() && !steps->empty());
  EXPECT_THAT((*steps)[0].assistant.tool_calls[1].arguments, HasSubstr("Heart"));
  EXPECT_THAT(::testing::PrintToString((*steps)[0].notes), HasSubstr("reviewer's arguments"));
  bool approval_event = false;
  // The events held in a named Result: a range-for over `*service.Events(id)`
  // would read a temporary destroyed before the loop (ASan: stack-use-after-scope).
  Result<std::vector<RunEvent>> events = service.Events(id);
  ASSERT_TRUE(events.ok());
  for (const RunEvent& e : *events) approval_event = approval_event || e.type == "approval";
  EXPECT_TRUE(approval_event);
}

TEST(CxrServiceTest, AStoppedRunEndsInterruptedAndResumesWithoutRunningAFinishedCallAgain) {
  Server server;
  testing::TempDir dir;
  RunService service(Store(dir.File("runs.sqlite")));
  Result<std::unique_ptr<PreparedCxr>> prepared = PrepareCxr(service, Settings(server, dir.File("images")));
  ASSERT_TRUE(prepared.ok());
  CancellationToken cancel;
  std::string first_done;
  // Stopped through the service (as `serve` would), by the run's id.
  RunHooks hooks{.on_event =
                     [&](const Event& e) {
                       if (e.type != EventType::kToolFinished || !first_done.empty()) return;
                       first_done = e.tool_call_id;
                       Result<std::vector<RunRecord>> running = service.List({.status = "running"});
                       ASSERT_TRUE(running.ok() && running->size() == 1u);
                       EXPECT_TRUE(service.Cancel((*running)[0].id).ok());
                     },
                 .cancel = cancel};
  Result<CxrRunOutcome> ran = RunCxrQuestion(service, **prepared, "Is the heart enlarged?", {}, hooks);
  ASSERT_TRUE(ran.ok());
  EXPECT_EQ(ran->status, "interrupted") << ran->outcome.error;
  EXPECT_FALSE(ran->how.fell_back);  // a stop is not a model that never answered
  EXPECT_FALSE(service.Cancel(ran->run_id).ok());  // no longer running here
  Result<RunRecord> run = service.PrepareResume(ran->run_id);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  Result<std::unique_ptr<PreparedCxrResume>> again = PrepareCxrResume(service, *run, {}, "");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  std::vector<std::string> started;
  CxrRunOutcome done = RunCxrResume(service, std::move(*again), {.on_event = [&](const Event& e) {
                                      if (e.type == EventType::kToolStarted) started.push_back(e.tool_call_id);
                                    }});
  EXPECT_EQ(done.status, "finished") << done.outcome.error;
  EXPECT_EQ(done.outcome.answer, kAnswer);
  EXPECT_EQ(std::count(started.begin(), started.end(), first_done), 0);
  Result<std::vector<StepRecord>> steps = service.store()->Steps(ran->run_id);
  ASSERT_TRUE(steps.ok());
  ASSERT_EQ(steps->size(), 3u);
  for (const ToolResultRecord& r : (*steps)[0].tool_results) EXPECT_TRUE(r.ok) << r.name << ": " << r.error;
}

TEST(CxrServiceTest, APackRuleIsRefusedAndMessagesNameSettings) {
  Server server;
  testing::TempDir dir;
  RunService service(Store(dir.File("runs.sqlite")));
  Result<std::unique_ptr<PreparedCxr>> bad = PrepareCxr(service, Settings(server, dir.File("i"), {"pack:util"}));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("in no pack"));
  CxrSettings settings = Settings(server, dir.File("i"));
  settings.classifier_url = "ftp://x/";
  bad = PrepareCxr(service, settings);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("ftp://x/"));
  EXPECT_THAT(bad.status().message(), ::testing::Not(HasSubstr("--")));
}

}  // namespace
}  // namespace medreact::service
