// `medreact eval medagentbench` (src/eval/medagentbench_eval.h): scoring as
// MedAgentBench's refsol.py does, on development tasks only (task1_1,
// task1_2, task2_1, task2_2, task3_1, task8_1, task10_1..4,
// task10_13, task10_14); the
// held-out ids (every task whose number is a multiple of 5) are never used
// here (docs/clinical-validation.md). The loopback FHIR fixture serves the
// benchmark's 500 patients and HbA1c searchsets; a scripted model answers
// some tasks right and some wrong, and the score must say so.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "eval/medagentbench_eval.h"
#include "medreact/openai.h"
#include "mockllm/mock_server.h"
#include "testing/fhir_fixture_server.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using eval::MabTask;
using eval::MabTaskResult;
using eval::MabVerdict;
using mockllm::MockLlmServer;
using testing::FhirFixtureServer;

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::map<std::string, MabTask> Tasks() {
  std::map<std::string, MabTask> out;
  Result<std::vector<MabTask>> tasks = eval::ReadMabTasks(ReadText(testing::kMedAgentBenchDir + "/test_data_v2.json"));
  EXPECT_TRUE(tasks.ok());
  if (tasks.ok()) {
    for (MabTask& t : *tasks) out[t.id] = t;
  }
  return out;
}

class MedAgentBenchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.AddMedAgentBench());
    ASSERT_TRUE(server_.Start());
    api_.base_url = server_.base_url();
    tasks_ = Tasks();
    ASSERT_EQ(tasks_.size(), 300u);
  }

  // The verdict for `answer` (a final text) and `posts` on task `id`.
  MabTaskResult Score(const std::string& id, const std::string& answer, std::vector<RecordedPost> posts = {}) {
    MabTaskResult r;
    r.id = id;
    r.category = tasks_.at(id).category;
    r.answer = answer;
    r.parsed = eval::ParseFinishAnswer(answer);
    r.posts = std::move(posts);
    eval::ScoreMabTask(tasks_.at(id), api_, r);
    return r;
  }

  RecordedPost A1cOrder(const std::string& mrn) {
    return {server_.base_url() + "/ServiceRequest",
            {{"resourceType", "ServiceRequest"},
             {"code", {{"coding", {{{"system", "http://loinc.org"}, {"code", "4548-4"}, {"display", "HbA1c"}}}}}},
             {"authoredOn", "2023-11-13T10:15:00+00:00"},
             {"status", "active"},
             {"intent", "order"},
             {"priority", "stat"},
             {"subject", {{"reference", "Patient/" + mrn}}}}};
  }

  FhirFixtureServer server_{{.everything = false}};
  FhirApiOptions api_;
  std::map<std::string, MabTask> tasks_;
};

TEST_F(MedAgentBenchTest, ReadsTheTasksAndTheFunctions) {
  EXPECT_EQ(tasks_.at("task10_1").category, "task10");
  EXPECT_EQ(tasks_.at("task1_1").sol, Json::array({"S6534835"}));
  Result<std::vector<FhirApiFunction>> fns =
      FhirApiFunctions(ParseJson(ReadText(testing::kMedAgentBenchDir + "/funcs_v1.json")).value());
  ASSERT_TRUE(fns.ok()) << fns.status().ToString();
  std::vector<std::string> names;
  for (const auto& f : *fns) names.push_back(f.spec.name);
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("get_condition", "get_observation_labs", "get_observation_vitals",
                                                     "post_observation", "get_medicationrequest",
                                                     "post_medicationrequest", "get_procedure",
                                                     "post_servicerequest", "get_patient"));
  EXPECT_FALSE(eval::ReadMabTasks("{}").ok());
  EXPECT_FALSE(eval::ReadMabTasks(R"([{"id": "x"}])").ok());
}

TEST_F(MedAgentBenchTest, Task1IsTheSolutionAndNoPost) {
  EXPECT_EQ(Score("task1_1", "FINISH([\"S6534835\"])").verdict, MabVerdict::kCorrect);
  EXPECT_EQ(Score("task1_2", "The MRN is below.\nFINISH([\"S6426560\"])").verdict, MabVerdict::kCorrect);
  MabTaskResult wrong = Score("task1_1", "FINISH([\"S6426560\"])");
  EXPECT_EQ(wrong.verdict, MabVerdict::kWrong);
  EXPECT_THAT(wrong.reason, HasSubstr("!= expected"));
  EXPECT_EQ(Score("task1_1", "FINISH([\"S6534835\"])", {A1cOrder("S6534835")}).verdict, MabVerdict::kWrong);
  EXPECT_EQ(Score("task1_1", "S6534835").verdict, MabVerdict::kWrong);  // not a JSON list
}

TEST_F(MedAgentBenchTest, Task2IsTheAgeAtTheBenchmarksNow) {
  // S2874099 and S6538722 (birthDate in the snapshot): 60 and 80 at 2023-11-13.
  MabTaskResult r = Score("task2_1", "FINISH([60])");
  EXPECT_EQ(r.verdict, MabVerdict::kCorrect) << r.reason;
  EXPECT_EQ(r.expected, Json::array({60}));
  EXPECT_EQ(Score("task2_2", "FINISH([80])").verdict, MabVerdict::kCorrect);
  EXPECT_EQ(Score("task2_2", "FINISH([80.0])").verdict, MabVerdict::kCorrect);  // Python: 80 == 80.0
  EXPECT_EQ(Score("task2_2", "FINISH([81])").verdict, MabVerdict::kWrong);
  EXPECT_EQ(Score("task2_2", "FINISH([\"80\"])").verdict, MabVerdict::kWrong);
}

TEST_F(MedAgentBenchTest, Task10LastValueAndTheOrderRule) {
  // A recent value (2023-11-09): the answer, and no order.
  EXPECT_EQ(Score("task10_2", "FINISH([5.9, \"2023-11-09T03:05:00+00:00\"])").verdict, MabVerdict::kCorrect);
  EXPECT_EQ(Score("task10_2", "FINISH([])").verdict, MabVerdict::kCorrect);  // refsol accepts []
  EXPECT_EQ(Score("task10_4", "FINISH([5.4, \"2023-08-01T20:29:00+00:00\"])").verdict, MabVerdict::kCorrect);
  MabTaskResult ordered = Score("task10_2", "FINISH([5.9, \"2023-11-09T03:05:00+00:00\"])", {A1cOrder("S1635224")});
  EXPECT_EQ(ordered.verdict, MabVerdict::kWrong);
  EXPECT_THAT(ordered.reason, HasSubstr("no order was due"));
  // No value: [-1] and the order is due.
  EXPECT_EQ(Score("task10_1", "FINISH([-1])", {A1cOrder("S6227720")}).verdict, MabVerdict::kCorrect);
  MabTaskResult no_order = Score("task10_1", "FINISH([-1])");
  EXPECT_EQ(no_order.verdict, MabVerdict::kWrong);
  EXPECT_THAT(no_order.reason, HasSubstr("exactly one POST"));
  // An old value (2022-09-09): the value and the order.
  EXPECT_EQ(Score("task10_13", "FINISH([5.8, \"2022-09-09T15:33:00+00:00\"])", {A1cOrder("S6521727")}).verdict,
            MabVerdict::kCorrect);
  RecordedPost bad = A1cOrder("S6541609");
  bad.payload["priority"] = "routine";
  MabTaskResult routine = Score("task10_14", "FINISH([4.8, \"2022-05-18T22:03:00+00:00\"])", {bad});
  EXPECT_EQ(routine.verdict, MabVerdict::kWrong);
  EXPECT_THAT(routine.reason, HasSubstr("priority is not stat"));
  bad = A1cOrder("S6474456");
  bad.payload["subject"] = {{"reference", "Patient/S0000000"}};
  EXPECT_EQ(Score("task10_3", "FINISH([-1])", {bad}).verdict, MabVerdict::kWrong);
  // Wrong value, right order.
  EXPECT_EQ(Score("task10_13", "FINISH([5.9, \"2022-09-09T15:33:00+00:00\"])", {A1cOrder("S6521727")}).verdict,
            MabVerdict::kWrong);
}

// task3 and task8 are judged by their one POST alone (refsol.py reads no
// record for them), the answer is not read.
TEST_F(MedAgentBenchTest, Task3AndTask8AreJudgedByTheirPost) {
  const Json bp = {{"resourceType", "Observation"},
                   {"category", {{{"coding", {{{"system", "http://hl7.org/fhir/observation-category"},
                                              {"code", "vital-signs"}, {"display", "Vital Signs"}}}}}}},
                   {"code", {{"text", "BP"}}},
                   {"effectiveDateTime", "2023-11-13T10:15:00+00:00"},
                   {"status", "final"},
                   {"valueString", "118/77 mmHg"},
                   {"subject", {{"reference", "Patient/S2380121"}}}};
  const std::string observation = server_.base_url() + "/Observation";
  EXPECT_EQ(Score("task3_1", "FINISH([])", {{observation, bp}}).verdict, MabVerdict::kCorrect);
  EXPECT_EQ(Score("task3_1", "anything", {{observation, bp}}).verdict, MabVerdict::kCorrect);
  EXPECT_EQ(Score("task3_1", "FINISH([])").verdict, MabVerdict::kWrong);  // nothing recorded
  EXPECT_EQ(Score("task3_1", "FINISH([])", {{observation, bp}, {observation, bp}}).verdict, MabVerdict::kWrong);
  Json changed = bp;
  changed["valueString"] = "118/77";
  EXPECT_THAT(Score("task3_1", "FINISH([])", {{observation, changed}}).reason, HasSubstr("valueString"));
  changed = bp;
  changed["code"] = {{"text", "BP"}, {"coding", Json::array()}};
  EXPECT_EQ(Score("task3_1", "FINISH([])", {{observation, changed}}).verdict, MabVerdict::kWrong);
  changed = bp;
  changed["subject"] = {{"reference", "Patient/S0000000"}};
  EXPECT_EQ(Score("task3_1", "FINISH([])", {{observation, changed}}).verdict, MabVerdict::kWrong);
  EXPECT_EQ(Score("task3_1", "FINISH([])", {{server_.base_url() + "/ServiceRequest", bp}}).verdict,
            MabVerdict::kWrong);

  const std::string sbar =
      "Situation: acute left knee injury, Background: radiology report indicates ACL tear. Assessment: ACL tear "
      "grade II. Recommendation: request for Orthopedic service to evaluate and provide management recommendations.";
  Json referral = {{"resourceType", "ServiceRequest"},
                   {"code", {{"coding", {{{"system", "http://snomed.info/sct"}, {"code", "306181000000106"}}}}}},
                   {"authoredOn", "2023-11-13T10:15:00+00:00"},
                   {"status", "active"},
                   {"intent", "order"},
                   {"priority", "stat"},
                   {"note", {{"text", "Referral. " + sbar}}},
                   {"subject", {{"reference", "Patient/S2016972"}}}};
  const std::string service = server_.base_url() + "/ServiceRequest";
  MabTaskResult ok = Score("task8_1", "FINISH([])", {{service, referral}});
  EXPECT_EQ(ok.verdict, MabVerdict::kCorrect) << ok.reason;
  referral["note"]["text"] = "Orthopedic referral for ACL tear.";
  EXPECT_THAT(Score("task8_1", "FINISH([])", {{service, referral}}).reason, HasSubstr("note.text"));
  referral["note"]["text"] = sbar;
  referral["authoredOn"] = "2023-11-13";
  EXPECT_THAT(Score("task8_1", "FINISH([])", {{service, referral}}).reason, HasSubstr("authoredOn"));
}

TEST_F(MedAgentBenchTest, OtherCategoriesAreNotScorableOffline) {
  for (const char* id : {"task4_1", "task5_1", "task6_1", "task7_1", "task9_1"}) {
    MabTaskResult r = Score(id, "FINISH([1])");
    EXPECT_EQ(r.verdict, MabVerdict::kNotScorable) << id;
  }
  EXPECT_STREQ(eval::MabVerdictName(MabVerdict::kNotScorable), "not scorable offline (records not available)");
}

Json Call(const std::string& id, const std::string& name, const Json& args) {
  return {{"message", {{"content", nullptr},
                       {"tool_calls", Json::array({{{"id", id}, {"name", name}, {"arguments", DumpJson(args)}}})}}}};
}
Json Text(const std::string& text) { return {{"message", {{"content", text}}}}; }

TEST_F(MedAgentBenchTest, ScriptedModelRightAndWrongIsScoredSo) {
  // task1_1 right (searches, then the MRN); task2_1 wrong (61, not 60);
  // task10_1 right (searches, orders the test, answers [-1]); task10_2 wrong
  // (orders a test that was not due); task4_1 not scorable and not run.
  Json script = {{"responses",
                  {Call("a", "get_patient", {{"given", "Peter"}, {"family", "Stafford"}, {"birthdate", "1932-12-29"}}),
                   Text("FINISH([\"S6534835\"])"),
                   Call("b", "get_patient", {{"identifier", "S2874099"}}),
                   Text("FINISH([61])"),
                   Call("c", "get_observation_labs", {{"patient", "S6227720"}, {"code", "A1C"}}),
                   Call("d", "post_servicerequest", A1cOrder("S6227720").payload),
                   Text("FINISH([-1])"),
                   Call("e", "get_observation_labs", {{"patient", "S1635224"}, {"code", "A1C"}}),
                   Call("f", "post_servicerequest", A1cOrder("S1635224").payload),
                   Text("FINISH([5.9, \"2023-11-09T03:05:00+00:00\"])")}}};
  MockLlmServer model_server(*MockLlmServer::ParseScript(script));
  ASSERT_TRUE(model_server.Start().ok());
  OpenAIOptions model_options;
  model_options.base_url = model_server.base_url();
  model_options.model = "mock";
  model_options.max_retries = 0;

  eval::MabRunOptions options;
  options.model = MakeOpenAIModel(model_options);
  options.api = api_;
  options.functions = *FhirApiFunctions(ParseJson(ReadText(testing::kMedAgentBenchDir + "/funcs_v1.json")).value());
  std::vector<MabTask> run = {tasks_.at("task1_1"), tasks_.at("task2_1"), tasks_.at("task10_1"),
                              tasks_.at("task10_2"), tasks_.at("task4_1")};
  eval::MabReport report = eval::RunMedAgentBench(run, options);
  ASSERT_EQ(report.results.size(), 5u);
  EXPECT_EQ(report.results[0].verdict, MabVerdict::kCorrect) << report.results[0].reason;
  EXPECT_EQ(report.results[1].verdict, MabVerdict::kWrong);
  EXPECT_EQ(report.results[1].expected, Json::array({60}));
  EXPECT_EQ(report.results[2].verdict, MabVerdict::kCorrect) << report.results[2].reason;
  EXPECT_EQ(report.results[3].verdict, MabVerdict::kWrong);
  EXPECT_THAT(report.results[3].reason, HasSubstr("no order was due"));
  EXPECT_EQ(report.results[4].verdict, MabVerdict::kNotScorable);
  EXPECT_EQ(report.correct, 2);
  EXPECT_EQ(report.scored, 4);
  EXPECT_EQ(report.not_scorable, 1);
  EXPECT_DOUBLE_EQ(report.ScoredAccuracy(), 0.5);
  EXPECT_THAT(report.Table(), HasSubstr("overall: 2/4 scored tasks correct (50.00 %); 1 not scorable offline"));
  // The agent's GETs reached the FHIR server; its POSTs were recorded, not sent.
  int gets = 0, posts = 0;
  for (const auto& r : server_.requests()) {
    if (r.method == "POST") ++posts;
    if (r.path == "/fhir/Patient" || r.path == "/fhir/Observation") ++gets;
  }
  EXPECT_EQ(posts, 0);
  EXPECT_GE(gets, 4);
  EXPECT_EQ(report.results[2].posts.size(), 1u);
  EXPECT_EQ(model_server.requests().size(), 10u);
  // The tool result the model read for task1_1 held the patient.
  EXPECT_THAT(DumpJson(model_server.requests()[1]["body"]["messages"].back()), HasSubstr("S6534835"));
}

TEST_F(MedAgentBenchTest, CommandWithoutAModelSaysWhatItCannotAnswer) {
  testing::TempDir dir;
  auto r = testing::RunCommand({MEDREACT_BINARY, "eval", "medagentbench", "--tasks",
                                testing::kMedAgentBenchDir + "/test_data_v2.json", "--funcs",
                                testing::kMedAgentBenchDir + "/funcs_v1.json", "--fhir-url", server_.base_url(),
                                "--out", dir.File("out.json"), "-q"},
                               {{"MEDREACT_LLM_URL", ""}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("no model"));
  EXPECT_THAT(r.out, HasSubstr("overall: 0/0 scored tasks correct (0.00 %); 150 not scorable offline (records not "
                               "available); 150 not run"));
  Result<Json> out = ParseJson(testing::ReadFileOrEmpty(dir.File("out.json")));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)["categories"]["task10"]["not_run"], 30);
  EXPECT_EQ((*out)["categories"]["task5"]["not_scorable"], 30);
  // Bad input: exit 2 and a precise message.
  auto bad = testing::RunCommand({MEDREACT_BINARY, "eval", "medagentbench", "--tasks",
                                  testing::kMedAgentBenchDir + "/test_data_v2.json", "--funcs",
                                  testing::kMedAgentBenchDir + "/funcs_v1.json", "--fhir-url", server_.base_url(),
                                  "--ids", "task1_1,task99_1"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("no task task99_1"));
}

// Scored last (docs/clinical-validation.md): the held-out ids (every task
// number that is a multiple of 5: 30 tasks of task1, 2, 3, 8 and 10), with
// answers from an independent Python implementation of refsol's rules
// (bench/medagentbench_reference.py → holdout_reference.json). A scripted
// model gives those answers (and the HbA1c order where it is due): all must
// score correct; the same answers made wrong must all score wrong.
TEST_F(MedAgentBenchTest, HeldOutIdsAgreeWithAnIndependentReference) {
  Result<Json> reference = ParseJson(ReadText(testing::kMedAgentBenchDir + "/holdout_reference.json"));
  ASSERT_TRUE(reference.ok());
  ASSERT_EQ(reference->size(), 30u);
  for (bool right : {true, false}) {
    SCOPED_TRACE(right ? "right answers" : "wrong answers");
    Json responses = Json::array();
    std::vector<MabTask> run;
    for (const Json& ref : *reference) {
      const std::string id = ref["id"];
      run.push_back(tasks_.at(id));
      Json answer = ref["answer"];
      bool order = ref["order"];
      if (!right) {
        if (run.back().category == "task1") answer = Json::array({"S0000000"});
        if (run.back().category == "task2") answer = Json::array({answer[0].get<int>() + 1});
        if (run.back().category == "task10") {
          if (order) order = false;  // the order that was due is missing
          else answer[0] = answer[0].get<double>() + 0.1;
        }
      }
      if (ref.contains("post")) {
        Json post = ref["post"];
        if (!right) post["status"] = post["resourceType"] == "Observation" ? "preliminary" : "draft";
        responses.push_back(Call("p-" + id, post["resourceType"] == "Observation" ? "post_observation"
                                                                                : "post_servicerequest",
                                 post));
      }
      if (order) responses.push_back(Call("o-" + id, "post_servicerequest", A1cOrder(ref["mrn"]).payload));
      responses.push_back(Text("FINISH(" + DumpJson(answer) + ")"));
    }
    MockLlmServer model_server(*MockLlmServer::ParseScript(Json{{"responses", responses}}));
    ASSERT_TRUE(model_server.Start().ok());
    OpenAIOptions model_options;
    model_options.base_url = model_server.base_url();
    model_options.model = "mock";
    model_options.max_retries = 0;
    eval::MabRunOptions options;
    options.model = MakeOpenAIModel(model_options);
    options.api = api_;
    options.functions = *FhirApiFunctions(ParseJson(ReadText(testing::kMedAgentBenchDir + "/funcs_v1.json")).value());
    eval::MabReport report = eval::RunMedAgentBench(run, options);
    EXPECT_EQ(report.scored, 30);
    EXPECT_EQ(report.correct, right ? 30 : 0) << report.Table();
    for (const MabTaskResult& r : report.results) {
      EXPECT_EQ(r.verdict, right ? MabVerdict::kCorrect : MabVerdict::kWrong) << r.id << ": " << r.reason;
    }
  }
}

}  // namespace
}  // namespace medreact
