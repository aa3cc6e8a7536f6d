// Extraction end to end through real sockets: RunExtraction + the
// OpenAI-compatible client + the scripted model server on 127.0.0.1, over
// the shipped pediatric example with the shipped guideline corpus (indexed
// into a temporary database) and hints. Native tool calling and the text
// protocol each run a retrieve → compute → interpret investigation; the
// native run's first answer does not validate and is corrected. Then the
// `medreact extract` binary, offline and on bad input.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "apps/extract/extract_app.h"
#include "apps/extract/extract_prompts.h"
#include "medreact/openai.h"
#include "medreact/text_protocol.h"
#include "mockllm/mock_server.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using mockllm::MockLlmServer;
using ::testing::HasSubstr;

const std::string kSource = MEDREACT_SOURCE_DIR;

Json Call(const std::string& id, const std::string& name, const Json& args) {
  return {{"id", id}, {"name", name}, {"arguments", DumpJson(args)}};
}
Json Turn(Json call) { return {{"message", {{"content", nullptr}, {"tool_calls", Json::array({std::move(call)})}}}}; }
Json Text(const std::string& text) { return {{"message", {{"content", text}}}}; }

const Json kGrowth = {{"function_name", "growth_zscore"},
                      {"parameters",
                       {{"reference", "cdc"}, {"indicator", "bmi_for_age"}, {"sex", "female"}, {"age_months", 38},
                        {"value", 13.58}}}};
const Json kInterpret = {{"function_name", "interpret_zscore_malnutrition"},
                         {"parameters", {{"z", -2.11}, {"indicator", "bmi_for_age"}, {"age_months", 38}}}};

std::string Answer(const std::string& severity) {
  Json a = {{"malnutrition_present", true},
            {"severity", severity},
            {"anthropometrics",
             {{{"indicator", "bmi_for_age"}, {"z_score", -2.11}, {"percentile", 1.7},
               {"interpretation", "moderate malnutrition (ASPEN/AND 2014)"}}}},
            {"evidence_summary", "BMI-for-age z -2.11 at 38 months (CDC 2000): moderate malnutrition."},
            {"guideline_sources", {"pediatric-malnutrition-aspen-and.md"}}};
  return DumpJson(a);
}

Json NativeScript() {
  return {{"responses",
           {Turn(Call("call_1", "query_rag", {{"query", "ASPEN pediatric malnutrition BMI-for-age z-score"},
                                              {"purpose", "severity bands"}})),
            Turn(Call("call_2", "call_medical_function", kGrowth)),
            Turn(Call("call_3", "call_medical_function", kInterpret)),
            Text(Answer("Moderate")),  // not in the enum: sent back
            Text(Answer("moderate"))}}};
}

Json TextScript() {
  return {{"responses",
           {Text("THOUGHT: Need ASPEN criteria first.\nTOOL_CALL: {\"tool\": \"query_rag\", \"arguments\": "
                 "{\"query\": \"ASPEN pediatric malnutrition z-score\"}}"),
            Text("THOUGHT: Compute BMI-for-age.\nTOOL_CALL: ```json\n" +
                 DumpJson(Json{{"tool", "call_medical_function"}, {"arguments", kGrowth}}) + "\n```"),
            Text("THOUGHT: Interpret it.\nTOOL_CALL: " +
                 DumpJson(Json{{"tool", "call_medical_function"}, {"arguments", kInterpret}})),
            Text("THOUGHT: Enough to answer.\nFINAL_JSON: " + Answer("moderate"))}}};
}

std::shared_ptr<ChatModel> Client(const MockLlmServer& server, bool text) {
  OpenAIOptions options;
  options.base_url = server.base_url();
  options.model = "mock";
  options.max_retries = 0;
  std::unique_ptr<ChatModel> model = MakeOpenAIModel(options);
  if (text) return MakeTextProtocolModel(std::move(model));
  return model;
}

class ExtractE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto index = RagIndex::Open(kSource + "/data/guidelines", {.db_path = dir_.File("rag.sqlite")});
    ASSERT_TRUE(index.ok()) << index.status().ToString();
    config_.rag = std::make_shared<RagIndex>(std::move(*index));
    task_.note = testing::ReadFileOrEmpty(kSource + "/examples/extract/pediatric-malnutrition.txt");
    task_.schema = Json::parse(testing::ReadFileOrEmpty(kSource + "/examples/extract/pediatric-malnutrition.schema.json"));
  }

  testing::TempDir dir_;
  ExtractionConfig config_;
  ExtractionTask task_;
};

TEST_F(ExtractE2ETest, NativeToolCallingWithOneCorrection) {
  MockLlmServer server(*MockLlmServer::ParseScript(NativeScript()));
  ASSERT_TRUE(server.Start().ok());
  config_.model = Client(server, false);
  ExtractionOutcome out = RunExtraction(task_, config_);
  ASSERT_TRUE(out.valid) << DumpJson(out.result, 2);
  EXPECT_EQ(out.result["planner"], "model");
  EXPECT_EQ(out.result["attempts"], 2);
  EXPECT_EQ(out.result["extraction"]["severity"], "moderate");
  EXPECT_EQ(out.result["agent"]["iterations"], 5);
  EXPECT_EQ(out.result["agent"]["tool_calls"], 3);

  std::vector<Json> requests = server.requests();
  ASSERT_EQ(requests.size(), 5u);
  std::vector<std::string> tools;
  for (const Json& t : requests[0]["body"]["tools"]) tools.push_back(t["function"]["name"]);
  EXPECT_THAT(tools, ::testing::ElementsAre("query_rag", "call_medical_function", "submit_extraction"));
  EXPECT_THAT(requests[0]["body"]["messages"][1]["content"].get<std::string>(), HasSubstr("CLINICAL TEXT:"));
  // The guideline passages, the z-score and the band went back as tool messages ...
  EXPECT_THAT(requests[1]["body"]["messages"].back()["content"].get<std::string>(), HasSubstr("pediatric-malnutrition"));
  EXPECT_THAT(requests[2]["body"]["messages"].back()["content"].get<std::string>(), HasSubstr("\"z\":-2.1"));
  EXPECT_THAT(requests[3]["body"]["messages"].back()["content"].get<std::string>(), HasSubstr("moderate malnutrition"));
  // ... and the invalid answer came back with its problem.
  const Json& last = requests[4]["body"]["messages"].back();
  EXPECT_EQ(last["role"], "user");
  EXPECT_THAT(last["content"].get<std::string>(), HasSubstr("/severity: must be one of"));
  EXPECT_EQ(out.trace.steps.size(), 5u);
}

TEST_F(ExtractE2ETest, TextProtocol) {
  MockLlmServer server(*MockLlmServer::ParseScript(TextScript()));
  ASSERT_TRUE(server.Start().ok());
  config_.model = Client(server, true);
  ExtractionOutcome out = RunExtraction(task_, config_);
  ASSERT_TRUE(out.valid) << DumpJson(out.result, 2);
  EXPECT_EQ(out.result["attempts"], 1);
  EXPECT_EQ(out.result["agent"]["tool_calls"], 3);
  std::vector<Json> requests = server.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_FALSE(requests[0]["body"].contains("tools"));
  EXPECT_THAT(requests[0]["body"]["messages"][0]["content"].get<std::string>(), HasSubstr("FINAL_JSON"));
  EXPECT_THAT(requests[3]["body"]["messages"].back()["content"].get<std::string>(), HasSubstr("moderate malnutrition"));
}

TEST(ExtractCliTest, OfflineExamplesValidate) {
  testing::TempDir dir;
  for (const std::string name : {"pediatric-malnutrition", "adult-weight-loss", "negative-well-child"}) {
    auto r = testing::RunCommand({MEDREACT_BINARY, "extract", "--note", kSource + "/examples/extract/" + name + ".txt",
                                  "--schema", kSource + "/examples/extract/" + name + ".schema.json", "--corpus",
                                  kSource + "/data/guidelines", "--rag-db", dir.File("rag.sqlite"), "--extras",
                                  kSource + "/data/guidelines/extras.json", "--out", dir.File(name + ".json"),
                                  "--trace", dir.File(name + ".trace.json")});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    auto result = ParseJson(testing::ReadFileOrEmpty(dir.File(name + ".json")));
    ASSERT_TRUE(result.ok()) << name;
    EXPECT_EQ((*result)["valid"], true) << name;
    EXPECT_EQ((*result)["planner"], "rules");
    auto trace = ParseJson(testing::ReadFileOrEmpty(dir.File(name + ".trace.json")));
    ASSERT_TRUE(trace.ok());
    EXPECT_EQ((*trace)["status"], "finished");
    EXPECT_GE((*trace)["steps"].size(), 2u);
  }
}

TEST(ExtractCliTest, BadInputIsExitTwoWithAMessage) {
  testing::TempDir dir;
  dir.Write("note.txt", "A 5-year-old boy.");
  dir.Write("bad.json", "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"strnig\"}}}");
  dir.Write("notjson.json", "{type: object");
  const std::string note = dir.File("note.txt");
  auto missing = testing::RunCommand({MEDREACT_BINARY, "extract", "--note", dir.File("nope.txt"), "--schema", dir.File("bad.json")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("nope.txt"));
  auto notjson = testing::RunCommand({MEDREACT_BINARY, "extract", "--note", note, "--schema", dir.File("notjson.json")});
  EXPECT_EQ(notjson.exit_code, 2);
  EXPECT_THAT(notjson.err, HasSubstr("is not JSON"));
  auto bad = testing::RunCommand({MEDREACT_BINARY, "extract", "--note", note, "--schema", dir.File("bad.json")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("not a usable JSON Schema"));
}

}  // namespace
}  // namespace medreact
