// The run service's triage, worklist and extract runs (service/triage_runs.h,
// service/extract_runs.h), in process, against the scripted model server on
// loopback and a real SQLite store: every check before any work (nothing
// recorded when one fails), a triage whose model server went down recorded
// as `error` with its events and resumed once the server is back (no tool
// run twice, a second holder refused meanwhile), an extraction stopped
// midway (Cancel) and resumed to the uninterrupted run's result, a changed
// note refused, and a worklist prepared and run through the service.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <set>

#include "testing/build_paths.h"
#include "mockllm/mock_server.h"
#include "testing/scripted_server.h"
#include "service/extract_runs.h"
#include "service/run_service.h"
#include "service/triage_runs.h"
#include "store/run_store.h"
#include "testing/fhir_builders.h"
#include "testing/subprocess.h"

namespace medreact::service {
namespace {

using ::testing::HasSubstr;
using mockllm::MockLlmServer;

const char kFindings[] = "Filling defect in right pulmonary artery consistent with acute pulmonary embolism";

struct Server : testing::ScriptedServer {
  using ScriptedServer::ScriptedServer;
  ModelSettings model() const { return {.url = url(), .name = "mock", .max_retries = 0}; }
};

Json Turn(const std::string& id, const std::string& name, const Json& args) {
  return {{"message",
           {{"content", nullptr},
            {"tool_calls", Json::array({{{"id", id}, {"name", name}, {"arguments", DumpJson(args)}}})}}}};
}

// Seed 001's investigation: manifest → anticoagulants → coagulation labs → submit.
Json Investigation() {
  return Json::array({Turn("call_1", "get_patient_manifest", Json::object()),
                      Turn("call_2", "check_medication_status", {{"medication_name", "anticoag"}}),
                      Turn("call_3", "get_recent_labs", {{"category", "Coag"}}),
                      Turn("call_4", "submit_assessment",
                           {{"final_assessment", "Acute PE despite therapeutic anticoagulation (INR 2.3)."},
                            {"risk_adjustment", "INCREASE"},
                            {"critical_findings", {"Anticoagulation failure"}}})});
}

std::shared_ptr<RunStore> Store(const std::string& path, RunStoreOptions options = {}) {
  Result<std::unique_ptr<RunStore>> store = RunStore::Open(path, options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::shared_ptr<RunStore>(std::move(*store)) : nullptr;
}

// How many stored tool_finished events name `tool`.
int Finished(const std::vector<RunEvent>& events, const std::string& tool) {
  int n = 0;
  for (const RunEvent& e : events) {
    n += e.type == "tool_finished" && e.json.find("\"" + tool + "\"") != std::string::npos;
  }
  return n;
}

int CountType(const std::vector<RunEvent>& events, const std::string& type) {
  int n = 0;
  for (const RunEvent& e : events) n += e.type == type;
  return n;
}

TEST(AppRunsServiceTest, ATriageIsCheckedBeforeAnyWorkAndNothingIsRecordedWhenACheckFails) {
  testing::TempDir dir;
  dir.Write("pe.json", DumpJson(testing::PeOnWarfarinBundle()));
  RunService service(Store(dir.File("runs.sqlite")));
  const TriageSettings rules{.planner = "rules"};
  auto error_of = [&](TriageStart start) { return PrepareTriage(service, std::move(start)).status().message(); };
  EXPECT_THAT(error_of({.fhir_path = dir.File("pe.json"), .findings = " \n", .settings = rules}),
              HasSubstr("findings (findings) are empty"));
  EXPECT_THAT(error_of({.fhir_path = dir.File("pe.json"), .findings = kFindings, .base_priority = 4,
                        .settings = rules}),
              HasSubstr("(base_priority) must be 1, 2 or 3"));
  EXPECT_THAT(error_of({.fhir_path = dir.File("none.json"), .findings = kFindings, .settings = rules}),
              HasSubstr("none.json"));
  EXPECT_THAT(error_of({.fhir_path = dir.File("pe.json"), .findings = kFindings, .as_of = "13/06/2025",
                        .settings = rules}),
              HasSubstr("(as_of)"));
  EXPECT_THAT(error_of({.fhir_path = dir.File("pe.json"), .findings = kFindings,
                        .settings = {.planner = "model"}}),
              HasSubstr("(llm_url)"));
  EXPECT_THAT(error_of({.fhir_path = dir.File("pe.json"), .findings = kFindings,
                        .settings = {.planner = "model", .model = {.url = "ftp://x"}}}),
              HasSubstr("http"));
  EXPECT_THAT(error_of({.fhir_path = dir.File("pe.json"), .findings = kFindings,
                        .settings = {.planner = "rules", .max_steps = 0}}),
              HasSubstr("(max_steps)"));
  EXPECT_TRUE(service.List().value().empty());

  // The rules planner decides without a model, and is not recorded.
  EXPECT_FALSE(TriageIsRecorded(rules));
  EXPECT_FALSE(TriageIsRecorded({.agent = false, .model = {.url = "http://127.0.0.1:1/v1"}}));
  EXPECT_TRUE(TriageIsRecorded({.model = {.url = "http://127.0.0.1:1/v1"}}));
  Result<std::unique_ptr<PreparedTriage>> prepared =
      PrepareTriage(service, {.fhir_path = dir.File("pe.json"), .findings = kFindings + std::string("\n"),
                              .as_of = "2025-06-13", .settings = rules});
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  const TriageRan ran = RunTriagePrepared(service, std::move(*prepared), {});
  EXPECT_EQ(ran.status, "finished");
  EXPECT_FALSE(ran.stored);
  EXPECT_EQ(ran.outcome.result.value("priority_level", 0), 1);
  EXPECT_TRUE(service.List().value().empty());
}

TEST(AppRunsServiceTest, ATriageWhoseModelWentDownResumesOnceItIsBackWithoutRunningAToolTwice) {
  testing::TempDir dir;
  dir.Write("pe.json", DumpJson(testing::PeOnWarfarinBundle()));
  const std::string path = dir.File("runs.sqlite");
  RunService service(Store(path));
  Json first = Investigation();
  first[1] = Json{{"status", 503}, {"body", {{"error", {{"message", "down"}}}}}};
  Server down(Json{{"select", "by_turn"}, {"responses", first}});
  Result<std::unique_ptr<PreparedTriage>> prepared =
      PrepareTriage(service, {.fhir_path = dir.File("pe.json"), .findings = kFindings, .as_of = "2025-06-13",
                              .settings = {.planner = "model", .model = down.model()}});
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  std::vector<std::string> seen;
  const TriageRan failed =
      RunTriagePrepared(service, std::move(*prepared), {.on_event = [&](const Event& e) {
                          seen.push_back(EventTypeName(e.type));
                        }});
  ASSERT_TRUE(failed.stored);
  EXPECT_EQ(failed.status, "error");
  EXPECT_EQ(failed.outcome.status, RunStatus::kError);  // the result says what the model found before
  const std::string id = failed.run_id;
  Result<std::vector<RunEvent>> events = service.Events(id);
  ASSERT_TRUE(events.ok());
  EXPECT_EQ(events->front().type, "run_started");
  EXPECT_EQ(Finished(*events, "get_patient_manifest"), 1);
  EXPECT_GE(CountType(*events, "error"), 1);
  EXPECT_FALSE(seen.empty());

  // Back: resumed from its checkpoint, while another holder is refused.
  Server back(Json{{"select", "by_turn"}, {"responses", Investigation()}});
  ASSERT_TRUE(service.PrepareResume(id).ok());
  RunService other(Store(path, {.owner = "near-host/8/8/1"}));
  EXPECT_EQ(other.PrepareResume(id).status().code(), StatusCode::kUnavailable);
  Result<std::unique_ptr<PreparedTriage>> again = PrepareTriageResume(service, id, {.model = back.model()});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  const TriageRan done = RunTriagePrepared(service, std::move(*again), {});
  EXPECT_EQ(done.status, "finished");
  EXPECT_EQ(done.run_id, id);
  EXPECT_FALSE(done.outcome.fell_back);
  EXPECT_EQ(done.outcome.result.value("priority_level", 0), 1);
  EXPECT_EQ(done.outcome.result["record"]["source"], dir.File("pe.json"));
  EXPECT_EQ(back.server->requests().size(), 3u);  // the three turns after the manifest
  events = service.Events(id);
  ASSERT_TRUE(events.ok());
  EXPECT_EQ(Finished(*events, "get_patient_manifest"), 1);  // not run again
  EXPECT_EQ(Finished(*events, "get_recent_labs"), 1);
  EXPECT_EQ(events->back().type, "run_finished");
  for (size_t i = 0; i < events->size(); ++i) EXPECT_EQ((*events)[i].seq, static_cast<int64_t>(i + 1));
  EXPECT_EQ(service.Show(id).value().run.owner, "");  // the end gave the lease back
  EXPECT_THAT(service.PrepareResume(id).status().message(), HasSubstr("nothing to resume"));
  EXPECT_TRUE(service.store()->IntegrityCheck().ok());
}

TEST(AppRunsServiceTest, AnExtractionStoppedMidwayResumesToTheUninterruptedResult) {
  testing::TempDir dir;
  const std::string examples = MEDREACT_SOURCE_DIR + "/examples/extract/";
  dir.Write("note.txt", testing::ReadFileOrEmpty(examples + "pediatric-malnutrition.txt"));
  dir.Write("schema.json", testing::ReadFileOrEmpty(examples + "pediatric-malnutrition.schema.json"));
  auto start = [&] {
    return ExtractStart{.note = testing::ReadFileOrEmpty(dir.File("note.txt")),
                        .note_path = dir.File("note.txt"),
                        .schema_text = testing::ReadFileOrEmpty(dir.File("schema.json")),
                        .schema_path = dir.File("schema.json"),
                        .planner = "rules"};
  };
  // The checks.
  RunService service(Store(dir.File("runs.sqlite")));
  ExtractStart blank = start();
  blank.note = "  ";
  EXPECT_THAT(PrepareExtract(service, blank).status().message(), HasSubstr("(note_path) is empty"));
  ExtractStart bad = start();
  bad.schema_text = "{\"type\": 3}";
  EXPECT_THAT(PrepareExtract(service, bad).status().message(), HasSubstr("not a usable JSON Schema"));
  ExtractStart no_model = start();
  no_model.planner = "model";
  EXPECT_THAT(PrepareExtract(service, no_model).status().message(), HasSubstr("(llm_url)"));
  EXPECT_TRUE(service.List().value().empty());

  // The whole run, unstored.
  RunService unstored(nullptr);
  Result<std::unique_ptr<PreparedExtract>> whole_prepared = PrepareExtract(unstored, start());
  ASSERT_TRUE(whole_prepared.ok()) << whole_prepared.status().ToString();
  int whole_tools = 0;  // calls that finished well
  Result<ExtractRan> whole = RunExtractPrepared(unstored, std::move(*whole_prepared), {.on_event = [&](const Event& e) {
                                                  whole_tools += e.type == EventType::kToolFinished && e.ok;
                                                }});
  ASSERT_TRUE(whole.ok());
  ASSERT_TRUE(whole->outcome.valid);
  ASSERT_GE(whole_tools, 2);

  // Stopped after its first tool call.
  Result<std::unique_ptr<PreparedExtract>> prepared = PrepareExtract(service, start());
  ASSERT_TRUE(prepared.ok());
  CancellationToken cancel;
  Result<ExtractRan> cut = RunExtractPrepared(service, std::move(*prepared),
                                              {.on_event = [&](const Event& e) {
                                                 if (e.type == EventType::kToolFinished) cancel.Cancel();
                                               },
                                               .cancel = cancel});
  ASSERT_TRUE(cut.ok());
  ASSERT_TRUE(cut->stored);
  EXPECT_EQ(cut->status, "interrupted");
  const std::string id = cut->run_id;

  // A changed note is refused; put back, the run goes on to the same result.
  dir.Write("note.txt", "Another child entirely.");
  ASSERT_TRUE(service.PrepareResume(id).ok());
  EXPECT_THAT(PrepareExtractResume(service, id, {}).status().message(), HasSubstr("changed since the run started"));
  dir.Write("note.txt", testing::ReadFileOrEmpty(examples + "pediatric-malnutrition.txt"));
  Result<std::unique_ptr<PreparedExtract>> again = PrepareExtractResume(service, id, {});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  Result<ExtractRan> done = RunExtractPrepared(service, std::move(*again), {});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->status, "finished");
  EXPECT_EQ(done->outcome.result["extraction"], whole->outcome.result["extraction"]);
  Result<std::vector<RunEvent>> events = service.Events(id);
  ASSERT_TRUE(events.ok());
  // Every call finished well once: none run twice, none lost. (A call the
  // stop cut short, if a parallel one was, ends not ok and runs again.)
  std::set<std::string> finished;
  int finished_ok = 0;
  for (const RunEvent& e : *events) {
    if (e.type != "tool_finished") continue;
    const Json j = Json::parse(e.json);
    if (!j.value("ok", false)) continue;
    ++finished_ok;
    EXPECT_TRUE(finished.insert(StringOr(j, "tool_call_id")).second) << "finished twice: " << e.json;
  }
  EXPECT_EQ(finished_ok, whole_tools);
  EXPECT_TRUE(service.store()->IntegrityCheck().ok());
}

TEST(AppRunsServiceTest, AWorklistIsCheckedThenRunThroughTheService) {
  testing::TempDir dir;
  RunService service(nullptr);
  const std::string examples = MEDREACT_SOURCE_DIR + "/examples/worklist";
  const TriageSettings rules{.planner = "rules"};
  EXPECT_THAT(PrepareWorklist(service, {.dir = examples, .concurrency = 0, .settings = rules}).status().message(),
              HasSubstr("(concurrency)"));
  EXPECT_THAT(PrepareWorklist(service, {.dir = examples, .resume = true, .settings = rules}).status().message(),
              HasSubstr("(out_dir)"));
  dir.Write("file", "x");
  EXPECT_THAT(PrepareWorklist(service, {.dir = examples, .out_dir = dir.File("file"), .settings = rules})
                  .status()
                  .message(),
              HasSubstr("is not a folder"));
  EXPECT_THAT(PrepareWorklist(service, {.dir = dir.File("none"), .settings = rules}).status().message(),
              HasSubstr("none"));

  Result<std::unique_ptr<PreparedWorklist>> prepared =
      PrepareWorklist(service, {.dir = examples, .out_dir = dir.File("out"), .concurrency = 2, .settings = rules});
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  std::atomic<int> events{0};
  const WorklistReport report = RunWorklistPrepared(service, std::move(*prepared), {.on_event = [&](const Event&) {
                                                      ++events;
                                                    }});
  EXPECT_EQ(report.failed, 0u);
  EXPECT_EQ(report.cases.size(), 14u);
  EXPECT_EQ(report.planner, "rules");
  EXPECT_GT(events.load(), 0);
  EXPECT_FALSE(testing::ReadFileOrEmpty(dir.File("out/worklist.json")).empty());
}

}  // namespace
}  // namespace medreact::service
