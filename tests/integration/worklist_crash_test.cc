// Durable worklists and triage runs (issue 14) end to end: a real
// `medreact worklist` over six example cases, driven by the scripted model
// server with latency (native calls of the FHIR tools, then
// submit_assessment), killed with SIGKILL at points spread over the list,
// then `medreact worklist --resume` into the same --out and store. For every
// kill point: every case is finished with the result of an uninterrupted run,
// no case the output folder vouched for at the kill is sent to the model
// again, a case cut mid-run makes only the model calls its checkpoint had not
// made (it resumed, it did not start over), no tool call that finished
// before the kill runs again, every case's stored run has all its steps, and
// the store passes integrity_check. Then the same for one `medreact triage`
// killed and taken on with `medreact runs resume`.
//
// The server picks its reply by the number of assistant turns in the request
// ("select": "by_turn"), so concurrent cases and resumed runs each meet their
// next step's reply. Kills are spread by the server's request count (an
// event, not a time) plus a small offset, so they land during model calls,
// between them and during tool calls. Timing decides only where a kill
// lands, never what is asserted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "testing/build_paths.h"
#include "apps/triage/triage_app.h"
#include "medreact/json.h"
#include "store/run_store.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using testing::BackgroundCommand;
using testing::MockLlmProcess;
using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::TempDir;

constexpr int kTurns = 3;  // model calls per case: manifest, medications + labs, submit
constexpr int kDelayMs = 60;
// Six example cases whose findings differ (each model request is told to its case by its task).
const char* const kCases[] = {"01-pe-on-warfarin",    "02-stroke-on-aspirin",  "03-tachycardia-on-metoprolol",
                              "06-bleed-on-apixaban", "07-routine-renal-cyst", "08-dvt-on-rivaroxaban"};
constexpr int kCaseCount = 6;

Json Call(const std::string& id, const std::string& name, const Json& args) {
  return {{"id", id}, {"name", name}, {"arguments", DumpJson(args)}};
}

std::string Script() {
  Json turns = Json::array();
  turns.push_back(Json::array({Call("call_1", "get_patient_manifest", Json::object())}));
  turns.push_back(Json::array({Call("call_2a", "check_medication_status", {{"medication_name", "anticoag"}}),
                               Call("call_2b", "get_recent_labs", {{"category", "Coag"}})}));
  turns.push_back(Json::array({Call("call_3", "submit_assessment",
                                    {{"final_assessment", "Reviewed the record against the findings."},
                                     {"risk_adjustment", "INCREASE"},
                                     {"critical_findings", {"Scripted finding"}}})}));
  Json responses = Json::array();
  for (const Json& calls : turns) {
    responses.push_back({{"delay_ms", kDelayMs}, {"message", {{"content", nullptr}, {"tool_calls", calls}}}});
  }
  return DumpJson(Json{{"select", "by_turn"}, {"responses", responses}});
}

// The example cases, copied so that the test owns them.
std::string CopyCases(const TempDir& dir) {
  const std::filesystem::path from = std::filesystem::path(MEDREACT_SOURCE_DIR) / "examples" / "worklist";
  const std::string to = dir.File("cases");
  for (const char* name : kCases) {
    std::filesystem::create_directories(to + "/" + name);
    std::filesystem::copy(from / name, to + "/" + name, std::filesystem::copy_options::recursive);
  }
  return to;
}

std::vector<Json> JsonLines(const std::string& text) {
  std::vector<Json> out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) {
    Result<Json> j = ParseJson(line);
    if (j.ok()) out.push_back(std::move(*j));  // a line cut by the kill is not an event
  }
  return out;
}

// (case, tool call id) of the events of `type`.
std::set<std::pair<std::string, std::string>> CaseCalls(const std::vector<Json>& events, const std::string& type) {
  std::set<std::pair<std::string, std::string>> ids;
  for (const Json& e : events) {
    if (StringOr(e, "type") == type) ids.insert({StringOr(e, "case"), StringOr(e, "tool_call_id")});
  }
  return ids;
}

// The case each recorded model request belongs to (its task is the case's findings), from index `from` on.
std::map<std::string, int> RequestsPerCase(const MockLlmProcess& mock, size_t from,
                                           const std::map<std::string, std::string>& case_of_findings) {
  std::map<std::string, int> counts;
  std::vector<std::string> lines = mock.request_lines();
  for (size_t i = from; i < lines.size(); ++i) {
    Result<Json> request = ParseJson(lines[i]);
    if (!request.ok()) continue;
    const Json& messages = (*request)["body"]["messages"];
    if (!messages.is_array() || messages.size() < 2) continue;
    auto it = case_of_findings.find(StringOr(messages[1], "content"));
    ++counts[it == case_of_findings.end() ? "(unknown)" : it->second];
  }
  return counts;
}

// The worklist case a stored run belongs to ("" for none).
std::string CaseOf(const RunRecord& r) {
  auto it = r.inputs.find("worklist");
  return it == r.inputs.end() ? "" : StringOr(*it, "case");
}

bool WaitForRequests(const MockLlmProcess& mock, size_t count, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (mock.request_lines().size() >= count) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

std::vector<std::string> WorklistArgs(const MockLlmProcess& mock, const std::string& cases, const std::string& out,
                                      const std::string& store, const std::string& events, bool resume) {
  std::vector<std::string> args = {MEDREACT_BINARY, "worklist",  cases,       "--out",         out,
                                   "--store",       store,       "--llm-url", mock.base_url(), "--model",
                                   "mock",          "--planner", "model",     "--concurrency", "2",
                                   "--events",      events,      "--json"};
  if (resume) args.push_back("--resume");
  return args;
}

// case → its <case>.json
std::map<std::string, Json> Results(const std::string& out) {
  std::map<std::string, Json> results;
  for (const char* name : kCases) {
    results[name] = ParseJson(ReadFileOrEmpty(out + "/" + name + ".json")).value_or(Json());
  }
  return results;
}

TEST(WorklistCrashTest, KilledAtAnyPointResumeFinishesEveryCaseLosingNothingAndRunningNothingTwice) {
  MockLlmProcess mock(Script());
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string cases = CopyCases(dir);
  std::map<std::string, std::string> case_of_findings;
  for (const char* name : kCases) {
    std::string findings = ReadFileOrEmpty(cases + "/" + name + "/findings.txt");
    while (!findings.empty() && std::isspace(static_cast<unsigned char>(findings.back()))) findings.pop_back();
    case_of_findings[findings] = name;
  }
  ASSERT_EQ(case_of_findings.size(), static_cast<size_t>(kCaseCount));

  // The uninterrupted run every resumed one must equal.
  testing::ProcessResult whole = RunCommand(
      WorklistArgs(mock, cases, dir.File("whole"), dir.File("whole.sqlite"), dir.File("whole.jsonl"), false));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const std::map<std::string, Json> expected = Results(dir.File("whole"));
  for (const auto& [name, result] : expected) {
    ASSERT_TRUE(result.is_object()) << name;
    EXPECT_EQ(result["planner"], "model");
    EXPECT_EQ(result["agent_reasoning"]["iterations"], kTurns);
  }

  constexpr int kKillPoints = 12;
  constexpr size_t kRequests = kTurns * kCaseCount;
  int resumed_runs = 0, finished_before_kill = 0, steps_lost = 0, duplicate_calls = 0, retriaged = 0, restarted = 0,
      skipped = 0, in_flight_rerun = 0;
  for (int k = 0; k < kKillPoints; ++k) {
    // Spread over the list: after the (k+1)-th share of the model requests, plus 0, 1/2 or 1 reply delay.
    const size_t at = 1 + k * (kRequests - 1) / kKillPoints;
    const auto offset = std::chrono::milliseconds((k % 3) * kDelayMs / 2);
    SCOPED_TRACE("kill point " + std::to_string(k) + ": request " + std::to_string(at) + " + " +
                 std::to_string(offset.count()) + " ms");
    const std::string out = dir.File("out" + std::to_string(k));
    const std::string store = dir.File("runs" + std::to_string(k) + ".sqlite");
    const std::string first_events = dir.File("first" + std::to_string(k) + ".jsonl");
    const std::string second_events = dir.File("second" + std::to_string(k) + ".jsonl");
    const size_t base = mock.request_lines().size();
    BackgroundCommand worklist(WorklistArgs(mock, cases, out, store, first_events, false));
    ASSERT_TRUE(WaitForRequests(mock, base + at, std::chrono::seconds(30)));
    std::this_thread::sleep_for(offset);
    worklist.Signal(SIGKILL);
    testing::ProcessResult killed = worklist.Wait();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a request cut by the kill is logged by now
    if (killed.exit_code == 0) {  // the machine was slow and the kill came after the end
      ++finished_before_kill;
      continue;
    }
    EXPECT_EQ(killed.term_signal, SIGKILL);

    // What the folder vouched for, and the runs cut, at the kill.
    std::set<std::string> vouched;
    const Json state = ParseJson(ReadFileOrEmpty(out + "/worklist.state.json")).value_or(Json());
    if (state.contains("cases")) {
      for (auto it = state["cases"].begin(); it != state["cases"].end(); ++it) vouched.insert(it.key());
    }
    std::map<std::string, int> cut_at_step;  // case → steps begun at its last checkpoint
    {
      Result<std::unique_ptr<RunStore>> s = RunStore::Open(store, {.create_if_missing = false});
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      EXPECT_TRUE((*s)->IntegrityCheck().ok()) << (*s)->IntegrityCheck().ToString();
      for (const RunRecord& r : (*s)->List({.app = "triage"}).value_or(std::vector<RunRecord>())) {
        const std::string name = CaseOf(r);
        if (r.status != "running" || vouched.count(name)) continue;
        Result<std::optional<RunState>> latest = (*s)->LatestState(r.id);
        ASSERT_TRUE(latest.ok() && latest->has_value());
        cut_at_step[name] = (*latest)->step;
      }
    }
    const size_t before_resume = mock.request_lines().size();
    testing::ProcessResult again = RunCommand(WorklistArgs(mock, cases, out, store, second_events, true));
    ASSERT_EQ(again.exit_code, 0) << again.err;
    Result<Json> report = ParseJson(again.out);
    ASSERT_TRUE(report.ok()) << again.out;
    EXPECT_EQ((*report)["counts"]["cases"], kCaseCount);
    EXPECT_EQ((*report)["counts"]["failed"], 0);
    EXPECT_EQ((*report)["counts"]["skipped"], vouched.size());
    EXPECT_EQ((*report)["counts"]["resumed"], cut_at_step.size());
    skipped += static_cast<int>(vouched.size());
    resumed_runs += static_cast<int>(cut_at_step.size());

    // Every case finished, with the uninterrupted run's result, in its file and in worklist.json.
    EXPECT_EQ(Results(out), expected);
    for (const Json& c : (*report)["cases"]) EXPECT_EQ(c["result"], expected.at(StringOr(c, "case"))) << c["case"];

    // The model was asked only what was left: nothing for a vouched case, the rest of a cut one.
    const std::map<std::string, int> asked = RequestsPerCase(mock, before_resume, case_of_findings);
    EXPECT_EQ(asked.count("(unknown)"), 0u);
    for (const char* name : kCases) {
      const int n = asked.count(name) ? asked.at(name) : 0;
      if (vouched.count(name)) {
        retriaged += n;
        EXPECT_EQ(n, 0) << name << " was finished at the kill and was triaged again";
      } else if (cut_at_step.count(name)) {
        restarted += n != kTurns - cut_at_step.at(name);
        EXPECT_EQ(n, kTurns - cut_at_step.at(name)) << name << " was cut after step " << cut_at_step.at(name);
      } else {
        EXPECT_EQ(n, kTurns) << name << " had not started at the kill";
      }
    }

    // No tool call that finished before the kill ran again.
    const std::vector<Json> first = JsonLines(ReadFileOrEmpty(first_events));
    const std::vector<Json> second = JsonLines(ReadFileOrEmpty(second_events));
    const auto finished = CaseCalls(first, "tool_finished");
    const auto started_first = CaseCalls(first, "tool_started");
    for (const auto& call : CaseCalls(second, "tool_started")) {
      if (finished.count(call)) {
        ++duplicate_calls;
        ADD_FAILURE() << "tool call " << call.second << " of " << call.first
                      << " finished before the kill and ran again";
      } else if (started_first.count(call)) {
        ++in_flight_rerun;  // in flight at the kill: the FHIR tools are read-only (idempotent), so it runs again
      }
    }

    // Every case's run is stored whole, once; the file is whole.
    Result<std::unique_ptr<RunStore>> s = RunStore::Open(store, {.create_if_missing = false});
    ASSERT_TRUE(s.ok());
    EXPECT_TRUE((*s)->IntegrityCheck().ok());
    std::map<std::string, int> runs_of;
    for (const RunRecord& r : (*s)->List({.app = "triage"}).value_or(std::vector<RunRecord>())) {
      const std::string name = CaseOf(r);
      ++runs_of[name];
      if (r.status == "running" && vouched.count(name)) continue;  // killed between its files and its end record
      EXPECT_EQ(r.status, "finished") << name;
      Result<std::vector<StepRecord>> steps = (*s)->Steps(r.id);
      ASSERT_TRUE(steps.ok());
      steps_lost += std::max(0, kTurns - static_cast<int>(steps->size()));
      EXPECT_EQ(steps->size(), static_cast<size_t>(kTurns)) << name;
    }
    for (const char* name : kCases) EXPECT_EQ(runs_of[name], 1) << name;
  }
  // The figures docs/reliability.md quotes.
  std::cout << "[worklist-crash] kill points " << kKillPoints << ", finished before the kill " << finished_before_kill
            << ", cases skipped as finished " << skipped << ", cut runs resumed " << resumed_runs << ", steps lost "
            << steps_lost << ", duplicate calls " << duplicate_calls << ", finished cases re-triaged " << retriaged
            << ", cut runs restarted " << restarted << ", in-flight idempotent calls re-run " << in_flight_rerun
            << "\n";
  EXPECT_EQ(steps_lost, 0);
  EXPECT_EQ(duplicate_calls, 0);
  EXPECT_EQ(retriaged, 0);
  EXPECT_EQ(restarted, 0);
  EXPECT_GE(resumed_runs, kKillPoints / 2);
}

TEST(WorklistCrashTest, AKilledTriageResumesThroughRunsResumeToTheSameResult) {
  MockLlmProcess mock(Script());
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string cases = CopyCases(dir);
  const std::string folder = cases + "/01-pe-on-warfarin";
  auto args = [&](const std::string& store, const std::string& events) {
    return std::vector<std::string>{MEDREACT_BINARY,
                                    "triage",
                                    "--fhir",
                                    folder + "/fhir.json",
                                    "--findings-file",
                                    folder + "/findings.txt",
                                    "--base-priority",
                                    "2",
                                    "--llm-url",
                                    mock.base_url(),
                                    "--model",
                                    "mock",
                                    "--store",
                                    store,
                                    "--trace",
                                    events + ".trace",
                                    "-v"};
  };
  testing::ProcessResult whole = RunCommand(args(dir.File("whole.sqlite"), dir.File("whole")));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  Result<Json> expected = ParseJson(whole.out);
  ASSERT_TRUE(expected.ok()) << whole.out;
  EXPECT_EQ((*expected)["planner"], "model");

  constexpr int kKillPoints = 4;
  int resumed = 0, steps_lost = 0;
  for (int k = 0; k < kKillPoints; ++k) {
    SCOPED_TRACE("kill point " + std::to_string(k));
    const std::string store = dir.File("triage" + std::to_string(k) + ".sqlite");
    const size_t base = mock.request_lines().size();
    BackgroundCommand triage(args(store, dir.File("t" + std::to_string(k))));
    ASSERT_TRUE(WaitForRequests(mock, base + 1 + k * kTurns / kKillPoints, std::chrono::seconds(30)));
    std::this_thread::sleep_for(std::chrono::milliseconds((k % 2) * kDelayMs));
    triage.Signal(SIGKILL);
    if (triage.Wait().exit_code == 0) continue;  // the kill came after the end
    testing::ProcessResult list = RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", store});
    Result<Json> runs = ParseJson(list.out);
    if (!runs.ok() || runs->empty()) continue;  // killed before the first checkpoint: nothing to resume
    ASSERT_EQ(runs->size(), 1u);
    EXPECT_EQ(StringOr((*runs)[0], "app"), "triage");
    if (StringOr((*runs)[0], "status") == "finished") continue;  // killed while printing: nothing to resume
    const std::string id = StringOr((*runs)[0], "id");
    testing::ProcessResult again = RunCommand({MEDREACT_BINARY, "runs", "resume", id, "--store", store});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    Result<Json> result = ParseJson(again.out);
    ASSERT_TRUE(result.ok()) << again.out;
    EXPECT_EQ(*result, *expected);
    ++resumed;
    Result<std::unique_ptr<RunStore>> s = RunStore::Open(store, {.create_if_missing = false});
    ASSERT_TRUE(s.ok());
    EXPECT_TRUE((*s)->IntegrityCheck().ok());
    EXPECT_EQ((*s)->Get(id)->status, "finished");
    const size_t steps = (*s)->Steps(id)->size();
    steps_lost += std::max(0, kTurns - static_cast<int>(steps));
  }
  std::cout << "[triage-crash] kill points " << kKillPoints << ", resumed " << resumed << ", steps lost " << steps_lost
            << "\n";
  EXPECT_EQ(steps_lost, 0);
  EXPECT_GE(resumed, 1);

  // A worklist's case is left to the worklist; the rules planner is not recorded.
  testing::ProcessResult rules =
      RunCommand({MEDREACT_BINARY, "triage", "--fhir", folder + "/fhir.json", "--findings-file",
                  folder + "/findings.txt", "--store", dir.File("rules.sqlite")});
  ASSERT_EQ(rules.exit_code, 0) << rules.err;
  EXPECT_FALSE(std::filesystem::exists(dir.File("rules.sqlite")));
}

TEST(WorklistCrashTest, RunsResumeLeavesAWorklistCaseToTheWorklist) {
  MockLlmProcess mock(Script());
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string cases = CopyCases(dir);
  const std::string store = dir.File("runs.sqlite");
  const size_t base = mock.request_lines().size();
  BackgroundCommand worklist(WorklistArgs(mock, cases, dir.File("out"), store, dir.File("events.jsonl"), false));
  ASSERT_TRUE(WaitForRequests(mock, base + 2, std::chrono::seconds(30)));
  worklist.Signal(SIGKILL);
  if (worklist.Wait().exit_code == 0) GTEST_SKIP() << "the worklist ended before the kill";
  Result<Json> runs =
      ParseJson(RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--status", "running", "--store", store}).out);
  ASSERT_TRUE(runs.ok() && !runs->empty());
  testing::ProcessResult refused =
      RunCommand({MEDREACT_BINARY, "runs", "resume", StringOr((*runs)[0], "id"), "--store", store});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, ::testing::HasSubstr("--resume"));
  EXPECT_THAT(refused.err, ::testing::HasSubstr("of the worklist"));
}

}  // namespace
}  // namespace medreact
