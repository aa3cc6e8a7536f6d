// cxr runs survive kill -9 (issue 22), end to end: a real `medreact cxr`
// (the model's turns and the imaging endpoints scripted by a real
// medreact-mock-llm on loopback, each reply delayed) killed with SIGKILL at
// points spread over the run, then `medreact runs resume` in a new process.
// For every kill point: the store passes integrity_check, the resumed run
// gives the scripted answer into the same run id, no completed step is lost
// (every step, each tool step with all its results), no tool call that had
// finished before the kill (its tool_finished event in the killed process's
// log) is started again, and the images the run made (the masks a later call
// draws) come back from the run folder by hash. Timing decides only where a
// kill lands, never what is asserted.
#include <gtest/gtest.h>
#include <signal.h>

#include <iostream>
#include <set>
#include <thread>

#include "medreact/json.h"
#include "store/run_store.h"
#include "testing/build_paths.h"
#include "testing/event_log.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using testing::BackgroundCommand;
using testing::CallIds;
using testing::EventLines;
using testing::MockLlmProcess;
using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::TempDir;
using testing::WaitForEvent;

constexpr int kDelayMs = 150;
constexpr char kAnswer[] = "The heart looks enlarged: cardiomegaly is likely.";

Json CallOf(const std::string& id, const std::string& tool, Json arguments) {
  return {{"id", id}, {"name", tool}, {"arguments", DumpJson(arguments)}};
}

// The demo endpoints, each answer delayed; turn 1 classifies and segments
// img1, turn 2 draws the heart's mask (img2, made in turn 1) and grounds a
// phrase, then the answer.
std::string Script() {
  Result<Json> endpoints = ParseJson(ReadFileOrEmpty(MEDREACT_SOURCE_DIR + "/examples/cxr/endpoints.json"));
  EXPECT_TRUE(endpoints.ok());
  Json script = *endpoints;
  for (auto& [path, route] : script["routes"].items()) {
    for (Json& r : route["responses"]) r["delay_ms"] = kDelayMs;
  }
  auto calls = [](Json list) {
    return Json{{"delay_ms", kDelayMs}, {"message", {{"content", nullptr}, {"tool_calls", std::move(list)}}}};
  };
  script["select"] = "by_turn";
  script["responses"] = Json::array(
      {calls(Json::array({CallOf("cls1", "chest_xray_classifier", {{"image_id", "img1"}}),
                          CallOf("seg1", "chest_xray_segmentation", {{"image_id", "img1"}})})),
       calls(Json::array({CallOf("viz1", "image_visualizer", {{"image_id", "img1"}, {"masks", {"img2"}}}),
                          CallOf("grd1", "xray_phrase_grounding",
                                 {{"image_id", "img1"}, {"phrase", "cardiomegaly"}})})),
       Json{{"delay_ms", kDelayMs}, {"message", {{"content", kAnswer}}}}});
  return DumpJson(script);
}

std::vector<std::string> CxrArgs(const MockLlmProcess& mock, const TempDir& dir) {
  std::string root = mock.base_url();
  root = root.substr(0, root.rfind("/v1"));
  return {MEDREACT_BINARY, "cxr", MEDREACT_SOURCE_DIR + "/tests/fixtures/dicom/CR-MONO1-10-chest.dcm",
          "--question", "Is the heart enlarged?", "--planner", "model", "--llm-url", mock.base_url(), "--model",
          "mock", "--max-retries", "0", "--classifier-url", root + "/classify", "--segmentation-url",
          root + "/segment", "--grounding-url", root + "/ground", "--image-dir", dir.File("images"), "--store",
          dir.File("runs.sqlite"), "--events", dir.File("first.jsonl"), "--out", dir.File("result.json"), "-q"};
}

TEST(CxrCrashTest, KilledAtAnyPointTheRunResumesLosingNothingAndRunningNothingTwice) {
  MockLlmProcess mock(Script());
  ASSERT_TRUE(mock.ok());
  constexpr int kKillPoints = 8;
  constexpr int kRunMs = 6 * kDelayMs;  // three model turns and two tool turns, about
  int resumed = 0, finished_before_kill = 0, steps_lost = 0, duplicate_calls = 0;
  for (int k = 0; k < kKillPoints; ++k) {
    const auto delay = std::chrono::milliseconds(k * kRunMs / kKillPoints);
    SCOPED_TRACE("kill point " + std::to_string(k) + ": " + std::to_string(delay.count()) + " ms after the first "
                 "model request");
    TempDir dir;
    const std::string store = dir.File("runs.sqlite");
    BackgroundCommand cxr(CxrArgs(mock, dir), {{"MEDREACT_LLM_URL", ""}});
    ASSERT_TRUE(WaitForEvent(dir.File("first.jsonl"), "model_request", std::chrono::seconds(30)));
    std::this_thread::sleep_for(delay);
    cxr.Signal(SIGKILL);
    testing::ProcessResult killed = cxr.Wait();
    {
      Result<std::unique_ptr<RunStore>> s = RunStore::Open(store, {.create_if_missing = false});
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      EXPECT_TRUE((*s)->IntegrityCheck().ok()) << (*s)->IntegrityCheck().ToString();
    }
    testing::ProcessResult list = RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", store});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    Result<Json> runs = ParseJson(list.out);
    ASSERT_TRUE(runs.ok() && runs->is_array() && runs->size() == 1u) << list.out;
    const std::string id = StringOr((*runs)[0], "id");
    if (StringOr((*runs)[0], "status") == "finished") {
      // The kill came after the run's end was stored (the process may still
      // have been writing its files, or done): nothing to resume.
      ++finished_before_kill;
      EXPECT_EQ(StringOr((*runs)[0]["result"], "answer"), kAnswer);
      continue;
    }
    EXPECT_EQ(killed.term_signal, SIGKILL);
    EXPECT_EQ(StringOr((*runs)[0], "status"), "running");

    testing::ProcessResult again = RunCommand({MEDREACT_BINARY, "runs", "resume", id, "--store", store, "--events",
                                               dir.File("second.jsonl"), "--trace", dir.File("trace.json")});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(again.out, std::string(kAnswer) + "\n");
    ++resumed;

    Result<std::unique_ptr<RunStore>> s = RunStore::Open(store, {.create_if_missing = false});
    ASSERT_TRUE(s.ok());
    EXPECT_TRUE((*s)->IntegrityCheck().ok());
    EXPECT_EQ((*s)->Get(id)->status, "finished");
    Result<std::vector<StepRecord>> steps = (*s)->Steps(id);
    ASSERT_TRUE(steps.ok());
    steps_lost += std::max(0, 3 - static_cast<int>(steps->size()));
    ASSERT_EQ(steps->size(), 3u);
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ((*steps)[i].index, i + 1);
      ASSERT_EQ((*steps)[i].tool_results.size(), 2u);
      for (const ToolResultRecord& r : (*steps)[i].tool_results) EXPECT_TRUE(r.ok) << r.name << ": " << r.error;
    }
    EXPECT_EQ((*steps)[2].assistant.content, kAnswer);
    Result<Json> trace = ParseJson(ReadFileOrEmpty(dir.File("trace.json")));
    ASSERT_TRUE(trace.ok());
    EXPECT_EQ(StringOr(*trace, "run_id"), id);
    // The result went where `cxr --out` would have written it, the annotated picture with it.
    Result<Json> result = ParseJson(ReadFileOrEmpty(dir.File("result.json")));
    ASSERT_TRUE(result.ok());
    EXPECT_EQ(StringOr(*result, "answer"), kAnswer);
    ASSERT_EQ((*result)["annotated_images"].size(), 1u);
    EXPECT_EQ(ReadFileOrEmpty(StringOr((*result)["annotated_images"][0], "path")).substr(1, 3), "PNG");

    const std::set<std::string> finished = CallIds(EventLines(dir.File("first.jsonl")), "tool_finished");
    for (const std::string& call : CallIds(EventLines(dir.File("second.jsonl")), "tool_started")) {
      if (finished.count(call)) {
        ++duplicate_calls;
        ADD_FAILURE() << "tool call " << call << " finished before the kill and ran again after it";
      }
    }
  }
  std::cout << "[cxr-crash-resume] kill points " << kKillPoints << ", resumed " << resumed
            << ", finished before the kill " << finished_before_kill << ", steps lost " << steps_lost
            << ", duplicate calls " << duplicate_calls << "\n";
  EXPECT_EQ(steps_lost, 0);
  EXPECT_EQ(duplicate_calls, 0);
  EXPECT_GE(resumed, kKillPoints / 2);
}

// The endpoint calls wait for a person (`--require-approval network`): the
// run pauses (exit 3) at each turn that calls an endpoint, and `runs approve`
// / `runs reject` (new processes) go on with the decisions.
TEST(CxrCrashTest, EndpointCallsWaitForApprovalAcrossProcesses) {
  MockLlmProcess mock(Script());
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  std::vector<std::string> argv = CxrArgs(mock, dir);
  for (const char* a : {"--require-approval", "network", "--approval-prompt", "never"}) argv.push_back(a);
  testing::ProcessResult first = RunCommand(argv);
  ASSERT_EQ(first.exit_code, 3) << first.err;
  EXPECT_NE(first.err.find("medreact runs approve"), std::string::npos) << first.err;
  Result<Json> runs = ParseJson(RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", store}).out);
  ASSERT_TRUE(runs.ok() && runs->size() == 1u);
  const std::string id = StringOr((*runs)[0], "id");
  EXPECT_EQ(StringOr((*runs)[0], "status"), "awaiting_approval");
  testing::ProcessResult show = RunCommand({MEDREACT_BINARY, "runs", "show", id, "--store", store});
  EXPECT_NE(show.out.find("chest_xray_classifier"), std::string::npos) << show.out;

  // Turn 1's two endpoint calls approved; turn 2's grounding waits (the visualizer does not).
  testing::ProcessResult approved = RunCommand({MEDREACT_BINARY, "runs", "approve", id, "--store", store,
                                                "--reviewer", "dr.a", "--approval-prompt", "never"});
  ASSERT_EQ(approved.exit_code, 3) << approved.err;
  EXPECT_NE(approved.err.find("grd1"), std::string::npos) << approved.err;
  testing::ProcessResult rejected = RunCommand({MEDREACT_BINARY, "runs", "reject", id, "--store", store, "--reason",
                                                "no grounding today", "--approval-prompt", "never"});
  ASSERT_EQ(rejected.exit_code, 0) << rejected.err;
  EXPECT_EQ(rejected.out, std::string(kAnswer) + "\n");
  Result<std::unique_ptr<RunStore>> s = RunStore::Open(store, {.create_if_missing = false});
  ASSERT_TRUE(s.ok());
  Result<std::vector<StepRecord>> steps = (*s)->Steps(id);
  ASSERT_TRUE(steps.ok() && steps->size() == 3u);
  EXPECT_TRUE((*steps)[0].tool_results[0].ok);
  ASSERT_EQ((*steps)[1].tool_results.size(), 2u);
  EXPECT_TRUE((*steps)[1].tool_results[0].ok);   // the visualizer ran, drawing the kept mask
  EXPECT_FALSE((*steps)[1].tool_results[1].ok);  // the grounding was rejected
  EXPECT_NE((*steps)[1].tool_results[1].error.find("no grounding today"), std::string::npos);
}

}  // namespace
}  // namespace medreact
