// The extraction app (apps/extract): the note patterns, the schema filler,
// call_medical_function, the offline planner on the shipped examples, and the
// validation-retry loop driven by a FakeModel.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "apps/extract/extract_app.h"
#include "apps/extract/extract_prompts.h"
#include "apps/extract/medical_functions.h"
#include "apps/extract/note_facts.h"
#include "apps/extract/schema_fill.h"
#include "testing/fake_model.h"

namespace medreact {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ReadSource(const std::string& relative) {
  std::ifstream in(std::string(MEDREACT_SOURCE_DIR) + "/" + relative);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Json Schema(const std::string& example) { return Json::parse(ReadSource("examples/extract/" + example + ".schema.json")); }

const Json kSimpleSchema = Json::parse(R"({
  "type": "object",
  "properties": {"malnutrition_present": {"type": "boolean"},
                 "severity": {"type": "string", "enum": ["none", "mild", "moderate", "severe"]}},
  "required": ["malnutrition_present", "severity"], "additionalProperties": false})");

// ---- NoteFacts ------------------------------------------------------------------

TEST(NoteFactsTest, PediatricExample) {
  NoteFacts f = ReadNoteFacts(ReadSource("examples/extract/pediatric-malnutrition.txt"));
  ASSERT_TRUE(f.age_months);
  EXPECT_DOUBLE_EQ(*f.age_months, 38);
  EXPECT_EQ(f.sex, "female");
  EXPECT_DOUBLE_EQ(f.weight_kg.value_or(0), 12.0);
  EXPECT_DOUBLE_EQ(f.height_cm.value_or(0), 94);
  ASSERT_EQ(f.percentiles.size(), 2u);
  EXPECT_EQ(f.percentiles[0].value, 3);
  EXPECT_EQ(f.percentiles[0].indicator, "bmi_for_age");
  EXPECT_EQ(f.percentiles[1].value, 40);
  EXPECT_EQ(f.percentiles[1].indicator, "height_for_age");
  EXPECT_TRUE(f.pediatric());
}

TEST(NoteFactsTest, AdultExample) {
  NoteFacts f = ReadNoteFacts(ReadSource("examples/extract/adult-weight-loss.txt"));
  EXPECT_DOUBLE_EQ(f.age_months.value_or(0), 68 * 12);
  EXPECT_EQ(f.sex, "male");
  EXPECT_DOUBLE_EQ(f.weight_kg.value_or(0), 64);  // "Weight today 64 kg", not the usual 74 kg
  EXPECT_DOUBLE_EQ(f.usual_weight_kg.value_or(0), 74);
  EXPECT_NEAR(f.weight_loss_percent.value_or(0), 13.51, 0.01);
  EXPECT_DOUBLE_EQ(f.weight_loss_months.value_or(0), 5);
  EXPECT_DOUBLE_EQ(f.intake_percent.value_or(0), 50);
  EXPECT_DOUBLE_EQ(f.intake_weeks.value_or(0), 3);
  EXPECT_TRUE(f.inflammation);
  EXPECT_FALSE(f.pediatric());
}

TEST(NoteFactsTest, UnitsZScoresAndUnicodeMinus) {
  NoteFacts f = ReadNoteFacts("9-month-old boy. Weight 7400 g, length 70.5 cm. Weight-for-length z-score \xE2\x88\x92" "2.4.");
  EXPECT_DOUBLE_EQ(f.age_months.value_or(0), 9);
  EXPECT_DOUBLE_EQ(f.weight_kg.value_or(0), 7.4);
  EXPECT_DOUBLE_EQ(f.height_cm.value_or(0), 70.5);
  EXPECT_EQ(f.stature_measure, "length");
  ASSERT_EQ(f.zscores.size(), 1u);
  EXPECT_DOUBLE_EQ(f.zscores[0].value, -2.4);
  EXPECT_EQ(f.zscores[0].indicator, "weight_for_length");

  NoteFacts lb = ReadNoteFacts("The patient weighs 150 lb and her height is 64 in. BMI 25.7.");
  EXPECT_NEAR(lb.weight_kg.value_or(0), 68.04, 0.01);
  EXPECT_NEAR(lb.height_cm.value_or(0), 162.56, 0.01);
  EXPECT_DOUBLE_EQ(lb.bmi.value_or(0), 25.7);
  EXPECT_EQ(lb.sex, "female");
  EXPECT_FALSE(lb.age_months);
}

TEST(NoteFactsTest, NothingToFind) {
  NoteFacts f = ReadNoteFacts("Seen today. Doing well.");
  EXPECT_FALSE(f.age_months);
  EXPECT_FALSE(f.weight_kg);
  EXPECT_TRUE(f.percentiles.empty());
  EXPECT_EQ(IndicatorNamedIn("the weight-for-length curve"), "weight_for_length");
  EXPECT_EQ(IndicatorNamedIn("nothing here"), "");
}

// ---- FillSchema -------------------------------------------------------------------

TEST(SchemaFillTest, MapsFindingsByFieldNamesAndEnums) {
  ExtractionFindings f;
  f.malnutrition = true;
  f.severity = "severe";
  f.summary = "Severe malnutrition by GLIM.";
  f.weight_loss_percent = 13.514;
  f.phenotypic = {"weight loss 13.5 %"};
  f.sources = {"adult-malnutrition-glim.md > Severity"};
  Json schema = Json::parse(R"json({"type": "object", "properties": {
      "malnutritionPresent": {"type": "boolean"},
      "glim_grade": {"type": "string", "enum": ["none", "stage 1 (moderate)", "stage 2 (severe)"]},
      "weight_loss_pct": {"type": "number"},
      "bmi": {"type": ["number", "null"]},
      "phenotypic_criteria": {"type": "array", "items": {"type": "string"}},
      "references": {"type": "array", "items": {"type": "string"}},
      "rationale": {"type": "string"},
      "favourite_colour": {"type": "string"},
      "ward": {"type": "integer"}},
    "required": ["bmi", "rationale", "favourite_colour", "ward"]})json");
  Json out = FillSchema(schema, f);
  EXPECT_EQ(out["malnutritionPresent"], true);
  EXPECT_EQ(out["glim_grade"], "stage 2 (severe)");
  EXPECT_DOUBLE_EQ(out["weight_loss_pct"].get<double>(), 13.5);
  EXPECT_TRUE(out["bmi"].is_null());  // required, unknown, nullable
  EXPECT_EQ(out["phenotypic_criteria"], Json::array({"weight loss 13.5 %"}));
  EXPECT_EQ(out["references"], Json::array({"adult-malnutrition-glim.md > Severity"}));
  EXPECT_EQ(out["rationale"], "Severe malnutrition by GLIM.");
  EXPECT_EQ(out["favourite_colour"], "not documented in the note");
  EXPECT_FALSE(out.contains("ward"));  // never invents a number: the validator will name it
}

// ---- call_medical_function ----------------------------------------------------------

TEST(MedicalFunctionsTest, DispatchesAndExplainsBadCalls) {
  auto functions = MedicalFunctions::Create();
  ASSERT_TRUE(functions.ok()) << functions.status().ToString();
  EXPECT_EQ((*functions)->Names().front(), "growth_zscore");
  EXPECT_GE((*functions)->Names().size(), 59u);
  EXPECT_THAT((*functions)->Catalogue(), HasSubstr("percentile_to_zscore(percentile)"));
  ToolRegistry registry;
  ASSERT_TRUE(RegisterCallMedicalFunction(registry, *functions).ok());
  ToolResult ok = registry.Execute(
      {.id = "1", .name = "call_medical_function",
       .arguments = R"({"function_name": "percentile_to_zscore", "parameters": {"percentile": 3}})"},
      {});
  ASSERT_TRUE(ok.ok) << ok.error;
  EXPECT_NEAR(ParseJson(ok.content)->at("z").get<double>(), -1.8808, 1e-3);
  ToolResult bad = registry.Execute(
      {.id = "2", .name = "call_medical_function",
       .arguments = R"({"function_name": "growth_zscore", "parameters": {"reference": "who"}})"},
      {});
  ASSERT_FALSE(bad.ok);
  EXPECT_THAT(bad.error, HasSubstr("growth_zscore"));
  EXPECT_THAT(bad.error, HasSubstr("Parameters of growth_zscore"));
  ToolResult unknown = registry.Execute(
      {.id = "3", .name = "call_medical_function", .arguments = R"({"function_name": "zscore", "parameters": {}})"}, {});
  EXPECT_FALSE(unknown.ok);
}

// ---- The offline planner on the examples --------------------------------------------

ExtractionConfig OfflineConfig() {
  ExtractionConfig config;
  auto extras = ExtrasFile::Load(std::string(MEDREACT_SOURCE_DIR) + "/data/guidelines/extras.json");
  EXPECT_TRUE(extras.ok());
  config.extras = std::make_shared<const ExtrasFile>(std::move(*extras));
  return config;
}

TEST(ExtractionPlannerTest, PediatricExampleIsModerate) {
  ExtractionTask task{ReadSource("examples/extract/pediatric-malnutrition.txt"), Schema("pediatric-malnutrition"), ""};
  ExtractionOutcome out = RunExtraction(task, OfflineConfig());
  ASSERT_TRUE(out.valid) << DumpJson(out.result, 2);
  EXPECT_EQ(out.result["planner"], "rules");
  const auto& e = out.result["extraction"];
  EXPECT_EQ(e["malnutrition_present"], true);
  EXPECT_EQ(e["severity"], "moderate");  // BMI-for-age z -2.11 from 12.0 kg / 94 cm at 38 months (CDC 2000)
  bool computed = false;
  for (const auto& a : e["anthropometrics"]) {
    if (a["indicator"] == "bmi_for_age" && std::abs(a["z_score"].get<double>() + 2.11) < 0.01) computed = true;
  }
  EXPECT_TRUE(computed) << DumpJson(e, 2);
  // The headline names the z-score that sets the severity (the stated 3rd percentile, z -1.88, is only mild).
  EXPECT_EQ(e["evidence_summary"].get<std::string>().rfind(
                "Moderate malnutrition by ASPEN/AND 2014, from BMI-for-age z = -2.11 (computed from the measurements",
                0),
            0u)
      << e["evidence_summary"];
  EXPECT_THAT(e["evidence_summary"].get<std::string>(),
              ::testing::HasSubstr("ASPEN/AND 2014: z -2 to -2.9 is moderate)"));
  EXPECT_THAT(out.result["agent"]["tools_used"], ::testing::Contains("call_medical_function"));
  // retrieve + compute, interpret, answer
  EXPECT_EQ(out.result["agent"]["iterations"], 3);
}

TEST(ExtractionPlannerTest, AdultExampleIsGlimStage2) {
  ExtractionTask task{ReadSource("examples/extract/adult-weight-loss.txt"), Schema("adult-weight-loss"), ""};
  ExtractionOutcome out = RunExtraction(task, OfflineConfig());
  ASSERT_TRUE(out.valid) << DumpJson(out.result, 2);
  const auto& e = out.result["extraction"];
  EXPECT_EQ(e["malnutrition_present"], true);
  EXPECT_EQ(e["glim_severity"], "stage 2 (severe)");  // 13.5 % in 5 months > 10 % within 6 months
  EXPECT_DOUBLE_EQ(e["weight_loss_percent"].get<double>(), 13.5);
  EXPECT_NEAR(e["bmi"].get<double>(), 21.6, 0.05);  // 64 / 1.72^2, via body_mass_index
  EXPECT_EQ(e["etiologic_criteria"].size(), 2u);
}

TEST(ExtractionPlannerTest, NegativeExampleHasNoMalnutrition) {
  ExtractionTask task{ReadSource("examples/extract/negative-well-child.txt"), Schema("negative-well-child"), ""};
  ExtractionOutcome out = RunExtraction(task, OfflineConfig());
  ASSERT_TRUE(out.valid) << DumpJson(out.result, 2);
  EXPECT_EQ(out.result["extraction"]["malnutrition_present"], false);
  EXPECT_EQ(out.result["extraction"]["severity"], "none");
}

// ---- The validation-retry loop ----------------------------------------------------

TEST(ExtractionLoopTest, InvalidAnswerGoesBackWithTheProblemsThenValidates) {
  auto model = std::make_shared<testing::FakeModel>();
  model->PushCalls({{"call_medical_function", R"({"function_name": "percentile_to_zscore", "parameters": {"percentile": 3}})"}});
  model->PushText(R"({"malnutrition_present": "yes", "severity": "Mild"})");
  model->PushText("```json\n{\"malnutrition_present\": true, \"severity\": \"mild\"}\n```");
  ExtractionConfig config;
  config.model = model;
  ExtractionOutcome out = RunExtraction({"BMI-for-age at the 3rd percentile.", kSimpleSchema, ""}, config);
  ASSERT_TRUE(out.valid) << DumpJson(out.result, 2);
  EXPECT_EQ(out.result["attempts"], 2);
  EXPECT_EQ(out.result["extraction"]["severity"], "mild");
  EXPECT_EQ(out.result["agent"]["iterations"], 3);
  std::vector<ModelRequest> requests = model->requests();
  ASSERT_EQ(requests.size(), 3u);
  const std::string feedback = requests[2].messages.back().content;
  EXPECT_THAT(feedback, HasSubstr("/malnutrition_present: expected boolean"));
  EXPECT_THAT(feedback, HasSubstr("/severity: must be one of"));
  EXPECT_TRUE(model->history_errors().empty());
  EXPECT_EQ(out.trace.steps.size(), 3u);
  EXPECT_EQ(out.trace.steps[2].index, 3);
}

TEST(ExtractionLoopTest, RetriesAreBoundedAndTheBestPartialIsReturned) {
  auto model = std::make_shared<testing::FakeModel>();
  model->PushText("I think the child is malnourished.");  // no JSON: sent back
  model->PushText(R"({"malnutrition_present": true})");  // missing severity
  model->PushText(R"({"malnutrition_present": true, "severity": "grave"})");
  ExtractionConfig config;
  config.model = model;
  config.max_validation_retries = 2;
  ExtractionOutcome out = RunExtraction({"note", kSimpleSchema, ""}, config);
  EXPECT_FALSE(out.valid);
  EXPECT_EQ(out.result["attempts"], 3);
  EXPECT_EQ(model->requests().size(), 3u);
  EXPECT_THAT(model->requests()[1].messages.back().content, HasSubstr("did not contain the JSON answer"));
  EXPECT_EQ(out.result["extraction"]["severity"], "grave");  // the last answer that parsed
  ASSERT_EQ(out.result["validation_errors"].size(), 1u);
  EXPECT_EQ(out.result["validation_errors"][0]["pointer"], "/severity");
}

TEST(ExtractionLoopTest, IterationBudgetSpansAttempts) {
  auto model = std::make_shared<testing::FakeModel>();
  model->SetDefault([](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> {
    ModelResponse r;
    r.message = Message::Assistant(R"({"malnutrition_present": 1})");
    return r;
  });
  ExtractionConfig config;
  config.model = model;
  config.max_iterations = 2;
  config.max_validation_retries = 5;
  ExtractionOutcome out = RunExtraction({"note", kSimpleSchema, ""}, config);
  EXPECT_FALSE(out.valid);
  EXPECT_EQ(model->requests().size(), 2u);
  EXPECT_EQ(out.result["attempts"], 2);
}

TEST(ExtractionLoopTest, UnreachableModelFallsBackToThePlanner) {
  auto model = std::make_shared<testing::FakeModel>();
  model->SetDefault([](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> {
    return Status::Unavailable("connection refused");
  });
  ExtractionConfig config;
  config.model = model;
  ExtractionOutcome out = RunExtraction({"A 68-year-old man, weight 64 kg, height 172 cm.", kSimpleSchema, ""}, config);
  EXPECT_TRUE(out.fell_back);
  EXPECT_TRUE(out.valid) << DumpJson(out.result, 2);
  EXPECT_EQ(out.result["planner"], "rules (fallback)");
  EXPECT_THAT(out.result["agent"]["errors"][0].get<std::string>(), HasSubstr("connection refused"));
  ASSERT_TRUE(out.model_trace);
  EXPECT_EQ(out.result["extraction"]["severity"], "none");
}

TEST(ExtractionPromptsTest, TaskMessageAndAnswerParsing) {
  const std::string message = ExtractionTaskMessage({"the note", kSimpleSchema, "moderate malnutrition"});
  EXPECT_THAT(message, HasSubstr("LABEL (context from the requester): moderate malnutrition"));
  EXPECT_THAT(message, HasSubstr("CLINICAL TEXT:\nthe note"));
  EXPECT_THAT(message, HasSubstr("\"severity\""));
  EXPECT_THAT(ExtractionSystemPrompt(ToolCalling::kTextProtocol), HasSubstr("FINAL_JSON:"));
  EXPECT_THAT(ExtractionSystemPrompt(ToolCalling::kNative), HasSubstr("JSON object only"));
  EXPECT_TRUE(ParseExtractionAnswer("Here it is: {'a': True,}").ok());
  EXPECT_FALSE(ParseExtractionAnswer("[1, 2]").ok());
  EXPECT_FALSE(ParseExtractionAnswer("no json").ok());
}

}  // namespace
}  // namespace medreact
