// Durable triage (issue 14) in process: TriageInputs to and from JSON (with
// its errors), ResumeTriage from every checkpoint of a model's investigation
// ending as the uninterrupted triage did (the rules fallback included), the
// checkpoint hook never seeing the rules planner, and the worklist's
// --resume without a store (finished, unchanged cases skipped from the
// output folder; a changed case, a changed setting or a damaged state file
// triaged again) and with one (every case's model run recorded).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "apps/triage/triage_app.h"
#include "apps/triage/worklist.h"
#include "store/run_store.h"
#include "testing/fake_model.h"
#include "testing/fhir_builders.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;

const char kPeFindings[] = "Filling defect in right pulmonary artery consistent with acute pulmonary embolism";

std::shared_ptr<const FhirStore> Store() {
  Result<FhirStore> store = FhirStore::FromJson(testing::PeOnWarfarinBundle(), "test bundle");
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_TRUE(store->SetAsOf("2025-06-13").ok());
  return std::make_shared<const FhirStore>(std::move(store).value());
}

// The seed's investigation, one reply per turn chosen by the number of
// assistant turns in the request (as the scripted server's "by_turn"), so a
// resumed run meets the reply of its next step.
constexpr int kTurns = 4;
std::shared_ptr<testing::FakeModel> ByTurnModel() {
  auto model = std::make_shared<testing::FakeModel>();
  model->SetDefault([](const ModelRequest& request, const ModelCallContext&) -> Result<ModelResponse> {
    int turn = 0;
    for (const Message& m : request.messages) turn += m.role == Role::kAssistant;
    const std::vector<std::pair<std::string, std::string>> calls[kTurns] = {
        {{"get_patient_manifest", "{}"}},
        {{"check_medication_status", R"({"medication_name": "anticoag"})"},
         {"get_recent_labs", R"({"category": "Coag"})"}},
        {{"get_recent_labs", R"({"category": "Renal"})"}},
        {{"submit_assessment", R"({"final_assessment": "Acute PE despite therapeutic warfarin (INR 2.3).",
            "risk_adjustment": "INCREASE", "critical_findings": ["Anticoagulation failure"]})"}}};
    if (turn >= kTurns) return Status::Internal("no reply scripted for turn " + std::to_string(turn));
    std::vector<ToolCall> tc;
    for (size_t i = 0; i < calls[turn].size(); ++i) {
      tc.push_back({"t" + std::to_string(turn) + "_" + std::to_string(i), calls[turn][i].first, calls[turn][i].second});
    }
    ModelResponse r;
    r.message = Message::Assistant("", std::move(tc));
    r.finish_reason = "tool_calls";
    return r;
  });
  return model;
}

TEST(TriageInputsTest, RoundTripAndPreciseErrors) {
  TriageConfig config;
  config.max_steps = 7;
  config.timeout = Millis(90'000);
  config.max_tokens = 512;
  TriageInputs in =
      MakeTriageInputs("relative/fhir.json", "2025-06-13", {.findings = kPeFindings, .base_priority = 2}, config);
  EXPECT_TRUE(std::filesystem::path(in.fhir_path).is_absolute());
  in.worklist_dir = "cases";
  in.case_name = "01-pe";
  in.out_dir = "results";
  in.digest = "00112233aabbccdd";
  const Json j = TriageInputsToJson(in);
  EXPECT_FALSE(j.contains("api_key"));
  Result<TriageInputs> back = TriageInputsFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->fhir_path, in.fhir_path);
  EXPECT_EQ(back->record_source, "relative/fhir.json");  // the result names the record as the user did
  EXPECT_EQ(back->findings, kPeFindings);
  EXPECT_EQ(back->base_priority, 2);
  EXPECT_EQ(back->as_of, "2025-06-13");
  EXPECT_EQ(back->max_steps, 7);
  EXPECT_EQ(back->timeout, Millis(90'000));
  EXPECT_EQ(back->temperature, 0.0);
  EXPECT_EQ(back->max_tokens, 512);
  EXPECT_EQ(back->case_name, "01-pe");
  EXPECT_EQ(back->digest, "00112233aabbccdd");
  EXPECT_TRUE(std::filesystem::path(back->worklist_dir).is_absolute());
  TriageConfig applied;
  ApplyTriageLimits(*back, applied);
  EXPECT_EQ(applied.max_steps, 7);
  EXPECT_EQ(applied.max_tokens, 512);
  EXPECT_EQ(TriageCaseOf(*back).base_priority, 2);

  auto error_of = [&j](const char* key, const Json& value) {
    Json bad = j;
    if (value.is_discarded()) {
      bad.erase(key);
    } else {
      bad[key] = value;
    }
    Result<TriageInputs> r = TriageInputsFromJson(bad);
    return r.ok() ? std::string("(accepted)") : r.status().message();
  };
  EXPECT_THAT(error_of("fhir", Json::value_t::discarded), HasSubstr("'fhir' must be a string"));
  EXPECT_THAT(error_of("findings", "  \n"), HasSubstr("'findings' must be non-blank text"));
  EXPECT_THAT(error_of("base_priority", 4), HasSubstr("'base_priority' must be 1, 2 or 3"));
  EXPECT_THAT(error_of("max_steps", 1e300), HasSubstr("'max_steps' must be an integer"));
  EXPECT_THAT(error_of("temperature", "hot"), HasSubstr("'temperature' must be a number"));
  EXPECT_THAT(error_of("worklist", Json{{"dir", 3}}), HasSubstr("'worklist' must be an object"));
  EXPECT_EQ(error_of("base_priority", nullptr), "(accepted)");  // null: from the findings
  EXPECT_THAT(TriageInputsFromJson(Json::array()).status().message(), HasSubstr("triage run inputs"));
}

TEST(ResumeTriageTest, FromEveryCheckpointTheResultIsTheUninterruptedOne) {
  std::vector<RunState> states;
  TriageConfig config;
  config.model = ByTurnModel();
  config.on_checkpoint = [&states](const RunState& s) { states.push_back(s); };
  const TriageCase triage_case{.findings = kPeFindings, .base_priority = 2};
  TriageOutcome whole = RunTriage(Store(), triage_case, config);
  ASSERT_EQ(whole.status, RunStatus::kFinished);
  ASSERT_TRUE(whole.model_run.has_value());
  EXPECT_EQ(whole.model_run->steps, kTurns);
  EXPECT_TRUE(whole.model_run->messages.empty());  // the store has them from the checkpoints
  EXPECT_EQ(whole.result["priority_level"], 1);
  ASSERT_GE(states.size(), static_cast<size_t>(kTurns + 2));

  for (size_t k = 0; k < states.size(); ++k) {
    SCOPED_TRACE("checkpoint " + std::to_string(k) + " (step " + std::to_string(states[k].step) + ")");
    auto model = ByTurnModel();
    TriageConfig again;
    again.model = model;
    int more = 0;
    again.on_checkpoint = [&more](const RunState&) { ++more; };
    TriageOutcome resumed = ResumeTriage(Store(), triage_case, again, states[k]);
    EXPECT_EQ(resumed.status, RunStatus::kFinished);
    EXPECT_EQ(resumed.result, whole.result);
    // Only the model calls the cut run had not made are made again.
    EXPECT_EQ(model->requests().size(), static_cast<size_t>(kTurns - states[k].step));
    if (states[k].outcome.empty()) {
      EXPECT_GT(more, 0);  // a run that had not ended goes on checkpointing
    }
    EXPECT_EQ(resumed.trace->run_id, whole.trace->run_id);
  }
}

TEST(ResumeTriageTest, AModelThatNeverAnsweredAfterTheResumeFallsBackToRulesUnrecorded) {
  std::vector<RunState> states;
  TriageConfig config;
  config.model = ByTurnModel();
  config.on_checkpoint = [&states](const RunState& s) { states.push_back(s); };
  ASSERT_EQ(RunTriage(Store(), {.findings = kPeFindings, .base_priority = 2}, config).status, RunStatus::kFinished);
  ASSERT_FALSE(states.empty());

  auto down = std::make_shared<testing::FakeModel>();
  down->SetDefault([](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> {
    return Status::Unavailable("connection refused (127.0.0.1:9)");
  });
  TriageConfig again;
  again.model = down;
  std::vector<std::string> checkpointed_protocols;
  again.on_checkpoint = [&](const RunState& s) { checkpointed_protocols.push_back(s.trace.protocol); };
  // Cut before the first model call: the resumed model never answers, so the rules planner decides.
  TriageOutcome resumed = ResumeTriage(Store(), {.findings = kPeFindings, .base_priority = 2}, again, states[0]);
  TriageOutcome fresh = RunTriage(Store(), {.findings = kPeFindings, .base_priority = 2}, TriageConfig{.model = down});
  EXPECT_TRUE(resumed.fell_back);
  EXPECT_EQ(resumed.result["planner"], "rules (fallback)");
  EXPECT_EQ(resumed.result, fresh.result);
  ASSERT_TRUE(resumed.model_run.has_value());
  EXPECT_EQ(resumed.model_run->status, RunStatus::kError);
  for (const std::string& p : checkpointed_protocols) EXPECT_NE(p, "rules");  // the planner's run is not recorded
}

// --- the worklist's --resume --------------------------------------------------------------

void WriteCase(const testing::TempDir& dir, const std::string& name, const std::string& findings) {
  std::filesystem::create_directories(dir.File(name));
  dir.Write(name + "/fhir.json", DumpJson(testing::PeOnWarfarinBundle()));
  dir.Write(name + "/findings.txt", findings);
  dir.Write(name + "/case.json", R"({"base_priority": 2, "as_of": "2025-06-13"})");
}

Json ReadJson(const std::string& path) { return ParseJson(testing::ReadFileOrEmpty(path)).value_or(Json()); }

TEST(WorklistResumeTest, FinishedUnchangedCasesAreSkippedAndChangedOnesTriagedAgain) {
  testing::TempDir cases;
  testing::TempDir out;
  WriteCase(cases, "a", kPeFindings);
  WriteCase(cases, "b", "Acute infarct in the left MCA territory.");
  WriteCase(cases, "c", "Simple renal cyst.");
  const std::vector<std::string> names = {"a", "b", "c"};
  WorklistOptions options;  // the rules planner, no store
  options.out_dir = out.File("results");
  WorklistReport first = RunWorklist(cases.path(), names, options);
  ASSERT_EQ(first.failed, 0u);
  const Json state = ReadJson(out.File("results/worklist.state.json"));
  ASSERT_TRUE(state["cases"].is_object()) << DumpJson(state);
  EXPECT_EQ(state["cases"].size(), 3u);
  const std::string a_result = testing::ReadFileOrEmpty(out.File("results/a.json"));

  // Changed findings of b: b is triaged again; a and c come from the folder.
  cases.Write("b/findings.txt", "Acute subdural hematoma with midline shift.");
  options.resume = true;
  std::vector<std::string> done_names;
  options.on_case_done = [&](const WorklistCaseResult& c, size_t, size_t) {
    if (!c.skipped) done_names.push_back(c.name);
  };
  WorklistReport second = RunWorklist(cases.path(), names, options);
  EXPECT_EQ(second.skipped, 2u);
  EXPECT_THAT(done_names, ::testing::ElementsAre("b"));
  EXPECT_EQ(testing::ReadFileOrEmpty(out.File("results/a.json")), a_result);
  const Json worklist = ReadJson(out.File("results/worklist.json"));
  EXPECT_EQ(worklist["counts"]["cases"], 3);
  EXPECT_EQ(worklist["counts"]["skipped"], 2);
  bool b_seen = false;
  for (const Json& c : worklist["cases"]) {
    EXPECT_EQ(c["skipped"], c["case"] != "b") << c["case"];
    if (c["case"] == "b") {
      b_seen = true;
      EXPECT_THAT(DumpJson(c["result"]), HasSubstr("subdural"));
    }
  }
  EXPECT_TRUE(b_seen);

  // A changed setting is a changed input: everything again.
  options.triage.max_steps = 9;
  done_names.clear();
  EXPECT_EQ(RunWorklist(cases.path(), names, options).skipped, 0u);
  EXPECT_EQ(done_names.size(), 3u);

  // A damaged state file vouches for nothing (and says so).
  out.Write("results/worklist.state.json", "{not json");
  std::vector<std::string> warnings;
  options.on_warning = [&warnings](const std::string& w) { warnings.push_back(w); };
  EXPECT_EQ(RunWorklist(cases.path(), names, options).skipped, 0u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("every case is triaged again"));
  // A result file gone from the folder is not taken on trust either.
  std::filesystem::remove(out.File("results/c.json"));
  EXPECT_EQ(RunWorklist(cases.path(), names, options).skipped, 2u);

  // Without --resume every case is triaged, as before.
  options.resume = false;
  EXPECT_EQ(RunWorklist(cases.path(), names, options).skipped, 0u);
}

TEST(WorklistResumeTest, EveryCaseModelRunIsRecordedWithTheWorklistInputs) {
  testing::TempDir cases;
  testing::TempDir out;
  WriteCase(cases, "a", kPeFindings);
  WriteCase(cases, "b", kPeFindings);
  Result<std::unique_ptr<RunStore>> store = RunStore::Open(out.File("runs.sqlite"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  WorklistOptions options;
  options.make_model = []() -> Result<std::shared_ptr<ChatModel>> { return std::shared_ptr<ChatModel>(ByTurnModel()); };
  options.store = std::shared_ptr<RunStore>(std::move(*store));
  options.model_identity = Json{{"url", "http://127.0.0.1:9/v1"}, {"name", "fake"}};
  options.out_dir = out.File("results");
  options.concurrency = 2;
  std::vector<std::string> events_of;
  std::mutex mu;
  options.on_case_event = [&](const std::string& name, const Event& e) {
    std::lock_guard<std::mutex> lock(mu);
    if (e.type == EventType::kRunFinished) events_of.push_back(name);
  };
  WorklistReport report = RunWorklist(cases.path(), {"a", "b"}, options);
  ASSERT_EQ(report.failed, 0u);
  EXPECT_THAT(events_of, ::testing::UnorderedElementsAre("a", "b"));
  Result<std::vector<RunRecord>> runs = options.store->List({.app = "triage"});
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  std::vector<std::string> recorded;
  for (const RunRecord& r : *runs) {
    EXPECT_EQ(r.status, "finished");
    EXPECT_EQ(r.steps, kTurns);
    EXPECT_EQ(r.model["name"], "fake");
    Result<TriageInputs> inputs = TriageInputsFromJson(r.inputs);
    ASSERT_TRUE(inputs.ok()) << inputs.status().ToString();
    EXPECT_EQ(inputs->digest, CaseDigest(cases.File(inputs->case_name), options));
    EXPECT_EQ(inputs->as_of, "2025-06-13");
    recorded.push_back(inputs->case_name);
  }
  EXPECT_THAT(recorded, ::testing::UnorderedElementsAre("a", "b"));
  // The model is part of the digest: another model, another input.
  WorklistOptions other = options;
  other.model_identity["name"] = "other";
  EXPECT_NE(CaseDigest(cases.File("a"), other), CaseDigest(cases.File("a"), options));
  EXPECT_EQ(CaseDigest(cases.File("missing"), options), "");
}

}  // namespace
}  // namespace medreact
