// The run store for extract, cxr and research (issue 14), through the real
// `medreact` binary, the scripted server as a process, and real SQLite files.
//
// extract: a run is recorded (row, inputs with absolute paths and digests,
// steps, status, result; never the API key); a `medreact extract` killed
// with SIGKILL at points spread over its run is finished by `medreact runs
// resume` with the result an uninterrupted run gives (stdout and the stored
// --out file), the store whole, no step lost and no finished tool call run
// again; a note changed since the run is refused. cxr and research: their
// runs are recorded with their steps, credentials stay out of the store;
// `runs resume` refuses a cxr run saying why (research runs are resumed:
// research_runs_test.cc, research_crash_test.cc).
//
// The extraction's script (chosen by the number of assistant turns,
// "by_turn", each reply after `delay_ms`) goes through both answer paths the
// resume must read again: a plain-text answer sent back by the schema check,
// a submit_extraction call sent back, then the accepted one. Timing decides
// only where a kill lands, never what is asserted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "testing/build_paths.h"
#include "medreact/json.h"
#include "store/run_store.h"
#include "testing/event_log.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using testing::BackgroundCommand;
using testing::CallIds;
using testing::EventLines;
using ::testing::HasSubstr;
using testing::MockLlmProcess;
using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::TempDir;
using testing::WaitForEvent;

const std::string kSource = MEDREACT_SOURCE_DIR;
constexpr int kDelayMs = 150;
constexpr int kReplies = 5;

Json Reply(Json message) { return {{"delay_ms", kDelayMs}, {"message", std::move(message)}}; }
Json Call(const std::string& id, const std::string& name, const Json& args) {
  return {{"content", nullptr},
          {"tool_calls", Json::array({{{"id", id}, {"name", name}, {"arguments", DumpJson(args)}}})}};
}

Json Extraction(const std::string& severity) {
  return {{"malnutrition_present", true},
          {"severity", severity},
          {"anthropometrics",
           {{{"indicator", "bmi_for_age"},
             {"z_score", -2.11},
             {"percentile", 1.7},
             {"interpretation", "moderate malnutrition (ASPEN/AND 2014)"}}}},
          {"evidence_summary", "BMI-for-age z -2.11 at 38 months (CDC 2000): moderate malnutrition."},
          {"guideline_sources", {"pediatric-malnutrition-aspen-and.md"}}};
}

std::string ExtractScript() {
  const Json growth = {
      {"function_name", "growth_zscore"},
      {"parameters",
       {{"reference", "cdc"}, {"indicator", "bmi_for_age"}, {"sex", "female"}, {"age_months", 38}, {"value", 13.58}}}};
  const Json interpret = {{"function_name", "interpret_zscore_malnutrition"},
                          {"parameters", {{"z", -2.11}, {"indicator", "bmi_for_age"}, {"age_months", 38}}}};
  Json responses = Json::array(
      {Reply(Call("call_growth", "call_medical_function", growth)),
       Reply(Call("call_interpret", "call_medical_function", interpret)),
       Reply({{"content", DumpJson(Extraction("Moderate"))}}),  // not in the enum: sent back (text path)
       Reply(Call("call_submit_1", "submit_extraction", {{"json", Extraction("Moderate")}})),  // sent back again
       Reply(Call("call_submit_2", "submit_extraction", {{"json", Extraction("moderate")}}))});
  return DumpJson(Json{{"select", "by_turn"}, {"responses", responses}});
}

class ExtractStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("note.txt", ReadFileOrEmpty(kSource + "/examples/extract/pediatric-malnutrition.txt"));
    dir_.Write("schema.json", ReadFileOrEmpty(kSource + "/examples/extract/pediatric-malnutrition.schema.json"));
  }

  std::vector<std::string> Args(const MockLlmProcess& mock, const std::string& store, const std::string& out,
                                const std::string& events) const {
    return {MEDREACT_BINARY, "extract",
            "--llm-url",     mock.base_url(),
            "--model",       "mock",
            "--api-key",     "sk-extract-secret",
            "--note",        dir_.File("note.txt"),
            "--schema",      dir_.File("schema.json"),
            "--store",       store,
            "--out",         out,
            "--events",      events};
  }

  // The one run in `store`.
  static Json OnlyRun(const std::string& store) {
    testing::ProcessResult list = RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", store});
    Result<Json> runs = ParseJson(list.out);
    if (!runs.ok() || !runs->is_array() || runs->size() != 1u) return Json();
    return (*runs)[0];
  }

  TempDir dir_;
};

TEST_F(ExtractStoreTest, ARunIsRecordedWithItsInputsStepsAndResult) {
  MockLlmProcess mock(ExtractScript());
  ASSERT_TRUE(mock.ok());
  const std::string store = dir_.File("runs.sqlite");
  testing::ProcessResult r = RunCommand(Args(mock, store, dir_.File("out.json"), dir_.File("events.jsonl")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFileOrEmpty(store).find("sk-extract-secret"), std::string::npos);
  const Json run = OnlyRun(store);
  ASSERT_TRUE(run.is_object()) << "expected one run in the store";
  EXPECT_EQ(StringOr(run, "app"), "extract");
  EXPECT_EQ(StringOr(run, "status"), "finished");
  EXPECT_EQ(IntegerOr(run, "steps", 0), kReplies);

  testing::ProcessResult show =
      RunCommand({MEDREACT_BINARY, "runs", "show", StringOr(run, "id"), "--json", "--store", store});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  Result<Json> shown = ParseJson(show.out);
  ASSERT_TRUE(shown.ok());
  const Json& inputs = (*shown)["run"]["inputs"];
  EXPECT_EQ(StringOr(inputs, "note"), dir_.File("note.txt"));
  EXPECT_EQ(StringOr(inputs, "schema"), dir_.File("schema.json"));
  EXPECT_EQ(StringOr(inputs, "out"), dir_.File("out.json"));
  EXPECT_THAT(StringOr(inputs, "note_digest"), HasSubstr("fnv1a64:"));
  EXPECT_EQ(StringOr(inputs, "planner"), "model");
  EXPECT_FALSE((*shown)["run"]["model"].contains("api_key"));
  const Json& result = (*shown)["run"]["result"];
  EXPECT_EQ(StringOr(result, "status"), "finished");
  EXPECT_EQ(result["final_fields"]["valid"], true);
  EXPECT_EQ(result["final_fields"]["attempts"], 3);
  EXPECT_EQ(result["final_fields"]["extraction"]["severity"], "moderate");
  EXPECT_EQ(ParseJson(StringOr(result, "answer")).value_or(Json()), ParseJson(r.out).value_or(Json(1)));
  EXPECT_EQ((*shown)["steps"].size(), static_cast<size_t>(kReplies));

  // --no-store: nothing recorded.
  const std::string none = dir_.File("none.sqlite");
  std::vector<std::string> args = Args(mock, none, dir_.File("out2.json"), dir_.File("events2.jsonl"));
  args.erase(std::find(args.begin(), args.end(), "--store"), std::find(args.begin(), args.end(), "--store") + 2);
  args.push_back("--no-store");
  testing::ProcessResult off = RunCommand(args);
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_FALSE(std::filesystem::exists(none));
}

TEST_F(ExtractStoreTest, KilledAtAnyPointTheResumedRunGivesTheUninterruptedResult) {
  MockLlmProcess mock(ExtractScript());
  ASSERT_TRUE(mock.ok());
  testing::ProcessResult reference =
      RunCommand(Args(mock, dir_.File("reference.sqlite"), dir_.File("reference.json"), dir_.File("reference.jsonl")));
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  Result<Json> expected = ParseJson(reference.out);
  ASSERT_TRUE(expected.ok()) << reference.out;
  ASSERT_EQ((*expected)["valid"], true);
  ASSERT_EQ((*expected)["attempts"], 3);

  constexpr int kKillPoints = 8;
  int resumed = 0, finished_before_kill = 0, steps_lost = 0, duplicate_calls = 0;
  for (int k = 0; k < kKillPoints; ++k) {
    const auto delay = std::chrono::milliseconds(k * kReplies * kDelayMs / kKillPoints);
    SCOPED_TRACE("kill point " + std::to_string(k) + ": " + std::to_string(delay.count()) + " ms after run_started");
    const std::string tag = std::to_string(k);
    const std::string store = dir_.File("runs" + tag + ".sqlite");
    const std::string out = dir_.File("out" + tag + ".json");
    const std::string first = dir_.File("first" + tag + ".jsonl");
    BackgroundCommand extract(Args(mock, store, out, first));
    ASSERT_TRUE(WaitForEvent(first, "run_started", std::chrono::seconds(30)));
    std::this_thread::sleep_for(delay);
    extract.Signal(SIGKILL);
    testing::ProcessResult killed = extract.Wait();
    {
      Result<std::unique_ptr<RunStore>> s = RunStore::Open(store, {.create_if_missing = false});
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      EXPECT_TRUE((*s)->IntegrityCheck().ok()) << (*s)->IntegrityCheck().ToString();
    }
    const Json run = OnlyRun(store);
    ASSERT_TRUE(run.is_object());
    const std::string id = StringOr(run, "id");
    if (killed.exit_code == 0) {
      ++finished_before_kill;
      EXPECT_EQ(StringOr(run, "status"), "finished");
      continue;
    }
    EXPECT_EQ(StringOr(run, "status"), "running");
    std::filesystem::remove(out);  // the resume writes --out again

    const std::string second = dir_.File("second" + tag + ".jsonl");
    testing::ProcessResult again = RunCommand({MEDREACT_BINARY, "runs", "resume", id, "--store", store, "--events",
                                               second, "--trace", dir_.File("trace" + tag + ".json")});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    ++resumed;
    EXPECT_EQ(ParseJson(again.out).value_or(Json()), *expected) << again.out;
    EXPECT_EQ(ParseJson(ReadFileOrEmpty(out)).value_or(Json()), *expected);

    Result<std::unique_ptr<RunStore>> s = RunStore::Open(store, {.create_if_missing = false});
    ASSERT_TRUE(s.ok());
    EXPECT_TRUE((*s)->IntegrityCheck().ok());
    Result<RunRecord> stored = (*s)->Get(id);
    ASSERT_TRUE(stored.ok());
    EXPECT_EQ(stored->status, "finished");
    Result<std::vector<StepRecord>> steps = (*s)->Steps(id);
    ASSERT_TRUE(steps.ok());
    steps_lost += std::max(0, kReplies - static_cast<int>(steps->size()));
    EXPECT_EQ(steps->size(), static_cast<size_t>(kReplies));
    Result<Json> trace = ParseJson(ReadFileOrEmpty(dir_.File("trace" + tag + ".json")));
    ASSERT_TRUE(trace.ok());
    EXPECT_EQ(StringOr(*trace, "run_id"), id);

    const std::set<std::string> finished = CallIds(EventLines(first), "tool_finished");
    for (const std::string& call : CallIds(EventLines(second), "tool_started")) {
      if (finished.count(call)) {
        ++duplicate_calls;
        ADD_FAILURE() << "tool call " << call << " finished before the kill and ran again after it";
      }
    }
  }
  std::cout << "[extract-resume] kill points " << kKillPoints << ", resumed " << resumed
            << ", finished before the kill " << finished_before_kill << ", steps lost " << steps_lost
            << ", duplicate calls " << duplicate_calls << "\n";
  EXPECT_EQ(steps_lost, 0);
  EXPECT_EQ(duplicate_calls, 0);
  EXPECT_GE(resumed, kKillPoints / 2);
}

TEST_F(ExtractStoreTest, AResumeRefusesANoteThatChanged) {
  MockLlmProcess mock(ExtractScript());
  ASSERT_TRUE(mock.ok());
  const std::string store = dir_.File("runs.sqlite");
  BackgroundCommand extract(Args(mock, store, dir_.File("out.json"), dir_.File("events.jsonl")));
  ASSERT_TRUE(WaitForEvent(dir_.File("events.jsonl"), "tool_finished", std::chrono::seconds(30)));
  extract.Signal(SIGKILL);
  extract.Wait();
  const std::string id = StringOr(OnlyRun(store), "id");
  ASSERT_FALSE(id.empty());
  const std::string original = ReadFileOrEmpty(dir_.File("note.txt"));
  dir_.Write("note.txt", original + "\nAddendum: weight rechecked.\n");
  testing::ProcessResult refused = RunCommand({MEDREACT_BINARY, "runs", "resume", id, "--store", store});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("changed since the run started"));
  EXPECT_EQ(StringOr(OnlyRun(store), "status"), "running");  // still resumable
  dir_.Write("note.txt", original);
  testing::ProcessResult again = RunCommand({MEDREACT_BINARY, "runs", "resume", id, "--store", store});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(ParseJson(again.out).value_or(Json())["valid"], true);
}

// A run row as a killed process leaves it (status running), for the refusals.
void AddRunningRun(const std::string& store, const std::string& id, const std::string& app) {
  Result<std::unique_ptr<RunStore>> s = RunStore::Open(store);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  RunState state;
  state.trace.run_id = id;
  ASSERT_TRUE((*s)->CreateRun({.id = id, .app = app}, &state).ok());
}

TEST(CxrStoreTest, ACxrRunIsRecordedWithoutCredentialsAndACheckpointWithoutAGraphIsRefused) {
  MockLlmProcess mock(ReadFileOrEmpty(kSource + "/examples/cxr/endpoints.json"));
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  std::string root = mock.base_url();
  root = root.substr(0, root.rfind("/v1"));
  const std::string with_password = "http://reader:pw-cxr-secret@" + root.substr(root.find("://") + 3);
  testing::ProcessResult r = RunCommand(
      {MEDREACT_BINARY, "cxr", kSource + "/tests/fixtures/dicom/CR-MONO1-10-chest.dcm", "--question",
       "Is the heart enlarged?", "--image-dir", dir.File("images"), "--classifier-url", with_password + "/classify",
       "--segmentation-url", root + "/segment", "--grounding-url", root + "/ground", "--store", store},
      {{"MEDREACT_LLM_URL", ""}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFileOrEmpty(store).find("pw-cxr-secret"), std::string::npos);

  testing::ProcessResult list = RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", store});
  Result<Json> runs = ParseJson(list.out);
  ASSERT_TRUE(runs.ok() && runs->size() == 1u) << list.out;
  const Json& run = (*runs)[0];
  EXPECT_EQ(StringOr(run, "app"), "cxr");
  EXPECT_EQ(StringOr(run, "status"), "finished");
  EXPECT_GE(IntegerOr(run, "steps", 0), 2);
  testing::ProcessResult show =
      RunCommand({MEDREACT_BINARY, "runs", "show", StringOr(run, "id"), "--json", "--store", store});
  Result<Json> shown = ParseJson(show.out);
  ASSERT_TRUE(shown.ok()) << show.err;
  const Json& inputs = (*shown)["run"]["inputs"];
  EXPECT_EQ(StringOr(inputs, "message"), "Is the heart enlarged?");
  EXPECT_EQ(inputs["images"], Json::array({kSource + "/tests/fixtures/dicom/CR-MONO1-10-chest.dcm"}));
  EXPECT_EQ(StringOr(inputs["endpoints"], "classifier"), root + "/classify");
  EXPECT_THAT(StringOr((*shown)["run"]["result"], "answer"), HasSubstr("Cardiomegaly"));
  EXPECT_EQ(StringOr((*shown)["run"]["result"]["final_fields"], "question"), "Is the heart enlarged?");
  EXPECT_EQ((*shown)["steps"].size(), static_cast<size_t>(IntegerOr(run, "steps", 0)));

  AddRunningRun(store, "run_cxrkilled000000", "cxr");
  testing::ProcessResult refused =
      RunCommand({MEDREACT_BINARY, "runs", "resume", "run_cxrkilled000000", "--store", store});
  EXPECT_EQ(refused.exit_code, 2);
  // A checkpoint no cxr run wrote is refused naming the run (cxr_crash_test.cc resumes real ones).
  EXPECT_THAT(refused.err, HasSubstr("run_cxrkilled000000"));
}

TEST(ResearchStoreTest, AResearchRunIsRecordedWithAStepPerAgentRun) {
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  testing::ProcessResult r = RunCommand(
      {MEDREACT_BINARY, "research", "What is the evidence for Keytruda in cancer?", "--planner", "rules", "--results",
       "3", "--cache", dir.File("cache.sqlite"), "--replay", kSource + "/examples/research/keytruda.jsonl", "--out",
       dir.File("report.json"), "--store", store, "-q"},
      {{"MEDREACT_LLM_URL", ""}, {"HOME", dir.path()}, {"XDG_CACHE_HOME", dir.path()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Result<Json> report = ParseJson(ReadFileOrEmpty(dir.File("report.json")));
  ASSERT_TRUE(report.ok());

  testing::ProcessResult list = RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", store});
  Result<Json> runs = ParseJson(list.out);
  ASSERT_TRUE(runs.ok() && runs->size() == 1u) << list.out;
  const Json& run = (*runs)[0];
  EXPECT_EQ(StringOr(run, "app"), "research");
  EXPECT_EQ(StringOr(run, "status"), "finished");
  testing::ProcessResult show =
      RunCommand({MEDREACT_BINARY, "runs", "show", StringOr(run, "id"), "--json", "--store", store});
  Result<Json> shown = ParseJson(show.out);
  ASSERT_TRUE(shown.ok()) << show.err;
  EXPECT_EQ(StringOr((*shown)["run"]["inputs"], "message"), "What is the evidence for Keytruda in cancer?");
  EXPECT_EQ(StringOr((*shown)["run"]["result"], "answer"), r.out);
  EXPECT_EQ((*shown)["run"]["result"]["final_fields"], *report);
  // One step per agent run, in order: the manager first, the report agent last.
  const Json& steps = (*shown)["steps"];
  ASSERT_GE(steps.size(), 3u);
  EXPECT_THAT(steps[0]["notes"][0].get<std::string>(), HasSubstr("round 1: the manager agent"));
  EXPECT_THAT(steps.back()["notes"][0].get<std::string>(), HasSubstr("the report agent"));
  bool searched = false;
  for (const Json& step : steps) {
    for (const Json& call : step["assistant"].value("tool_calls", Json::array())) {
      searched = searched || StringOr(call, "name").find("search") != std::string::npos;
    }
  }
  EXPECT_TRUE(searched) << "the search agent's tool calls are in its step";
  testing::ProcessResult text = RunCommand({MEDREACT_BINARY, "runs", "show", StringOr(run, "id"), "--store", store});
  EXPECT_THAT(text.out, HasSubstr("message:  What is the evidence for Keytruda in cancer?"));
  // Its events are stored as for every app: the research's own, in order,
  // the report's streamed text joined into pieces (research_runs_test.cc).
  testing::ProcessResult events =
      RunCommand({MEDREACT_BINARY, "runs", "show", StringOr(run, "id"), "--events", "--store", store});
  ASSERT_EQ(events.exit_code, 0) << events.err;
  std::vector<std::string> types;
  int report_fragments = 0;
  std::stringstream lines(events.out);
  for (std::string line; std::getline(lines, line);) {
    const Json e = ParseJson(line).value_or(Json());
    types.push_back(StringOr(e, "type"));
    if (StringOr(e, "type") == "streaming" && StringOr(e, "agent") == "report") ++report_fragments;
  }
  ASSERT_FALSE(types.empty());
  EXPECT_EQ(types.front(), "started");
  EXPECT_EQ(types.back(), "complete");
  EXPECT_NE(std::find(types.begin(), types.end(), "search_complete"), types.end());
  EXPECT_GE(report_fragments, 1);  // the rules planner streams its report section by section
  EXPECT_EQ(IntegerOr((*shown)["run"], "events", -1), static_cast<int64_t>(types.size()));

  // A research run is resumed (research_crash_test.cc); one whose stored
  // inputs hold no question is refused before any work.
  AddRunningRun(store, "run_researchkilled0", "research");
  testing::ProcessResult refused =
      RunCommand({MEDREACT_BINARY, "runs", "resume", "run_researchkilled0", "--store", store});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("run 'run_researchkilled0' has no question stored"));
}


// `research --require-approval`: a search that waits ends the command with
// exit 3 and no report; `runs approve` in another process goes on with it
// until the research ends, its report the one a research without approval
// writes.
TEST(ResearchStoreTest, ASearchThatWaitsExitsThreeAndRunsApproveGoesOn) {
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  const testing::EnvList env = {{"MEDREACT_LLM_URL", ""}, {"HOME", dir.path()}, {"XDG_CACHE_HOME", dir.path()}};
  auto research = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {MEDREACT_BINARY, "research", "What is the evidence for Keytruda in cancer?",
                                     "--planner", "rules", "--results", "3", "--cache", dir.File("cache.sqlite"),
                                     "--replay", kSource + "/examples/research/keytruda.jsonl", "-q"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunCommand(argv, env);
  };
  testing::ProcessResult plain = research({"--no-store"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  testing::ProcessResult paused =
      research({"--store", store, "--require-approval", "network", "--approval-prompt", "never"});
  ASSERT_EQ(paused.exit_code, 3) << paused.err;
  EXPECT_EQ(paused.out, "");  // no report yet
  EXPECT_THAT(paused.err, HasSubstr("waits for a person's approval of "));
  Result<Json> runs = ParseJson(RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", store}).out);
  ASSERT_TRUE(runs.ok() && runs->size() == 1u);
  const std::string id = StringOr((*runs)[0], "id");
  EXPECT_EQ(StringOr((*runs)[0], "status"), "awaiting_approval");
  testing::ProcessResult shown = RunCommand({MEDREACT_BINARY, "runs", "show", id, "--store", store}, env);
  EXPECT_THAT(shown.out, HasSubstr("search_"));
  testing::ProcessResult approved;
  int decisions = 0;
  do {
    approved = RunCommand({MEDREACT_BINARY, "runs", "approve", id, "--store", store, "--approval-prompt", "never",
                           "--reviewer", "dr.a"},
                          env);
    ++decisions;
  } while (approved.exit_code == 3 && decisions < 20);
  ASSERT_EQ(approved.exit_code, 0) << approved.err;
  EXPECT_EQ(approved.out, plain.out);
  runs = ParseJson(RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", store}).out);
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(StringOr((*runs)[0], "status"), "finished");
}

}  // namespace
}  // namespace medreact
