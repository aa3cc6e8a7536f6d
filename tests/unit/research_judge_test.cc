// The judge's assessment: brand and generic drug names as one term
// (drug_names.h, RxNorm pairs), the rules judge's reasoning and details, and
// seed 003's JudgeAssessment fields (details, mechanism_reasoning,
// clinical_reasoning) parsed from a model's reply and shown in its JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "apps/research/drug_names.h"
#include "apps/research/research_planner.h"
#include "apps/research/research_types.h"
#include "core/text_util.h"
#include "medreact/tool.h"

namespace medreact {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(ResearchDrugNamesTest, BrandAndIngredientAreOneTermBothWays) {
  // RxNorm brand (BN) → ingredient (IN) pairs.
  EXPECT_EQ(IngredientOfBrand("Keytruda"), "pembrolizumab");
  EXPECT_EQ(IngredientOfBrand("OPDIVO"), "nivolumab");
  EXPECT_EQ(IngredientOfBrand("coumadin"), "warfarin");
  EXPECT_EQ(IngredientOfBrand("Eliquis"), "apixaban");
  EXPECT_EQ(IngredientOfBrand("pembrolizumab"), "");  // an ingredient is no brand
  EXPECT_EQ(IngredientOfBrand("cancer"), "");
  EXPECT_THAT(DrugNameVariants("Keytruda"), ElementsAre("keytruda", "pembrolizumab"));
  EXPECT_THAT(DrugNameVariants("pembrolizumab"), ElementsAre("pembrolizumab", "keytruda"));
  // Two brands of one ingredient: each brand reaches the other through it.
  EXPECT_THAT(DrugNameVariants("warfarin"), ElementsAre("warfarin", "coumadin", "jantoven"));
  EXPECT_THAT(DrugNameVariants("Jantoven"), ElementsAre("jantoven", "warfarin", "coumadin"));
  EXPECT_THAT(DrugNameVariants("melanoma"), ElementsAre("melanoma"));
}

TEST(ResearchDrugNamesTest, TheTableIsLowerCaseAndEachBrandNamesOneIngredient) {
  std::set<std::string> brands;
  for (const BrandIngredient& row : BrandIngredientTable()) {
    const std::string brand = row.brand, ingredient = row.ingredient;
    EXPECT_EQ(brand, AsciiLower(brand));
    EXPECT_EQ(ingredient, AsciiLower(ingredient));
    EXPECT_NE(brand, ingredient);
    EXPECT_TRUE(brands.insert(brand).second) << brand << " listed twice";
    EXPECT_EQ(IngredientOfBrand(ingredient), "") << ingredient << " is also listed as a brand";
  }
  EXPECT_GE(brands.size(), 20u);
}

Json Record(int ref, const std::string& title, const std::string& abstract, const std::string& source,
            const std::string& type) {
  return {{"ref", ref}, {"id", "X" + std::to_string(ref)}, {"type", type}, {"source", source},
          {"title", title}, {"abstract", abstract}};
}

TEST(ResearchJudgeTest, ARecordNamingTheGenericCountsForAQuestionNamingTheBrand) {
  const Json evidence = Json::array(
      {Record(1, "Abexinostat in Combination With Pembrolizumab in Patients With Advanced Solid Tumor Malignancies",
              "Monoclonal antibodies, such as pembrolizumab, may interfere with tumour growth.", "clinicaltrials",
              "clinical-trial"),
       Record(2, "Telomere length and pancreatic cancer risk", "A cohort study.", "pubmed", "journal-article")});
  const JudgeAssessment j = RulesJudgement("What is the evidence for Keytruda?", evidence);
  EXPECT_THAT(j.details.relevant_evidence, ElementsAre("[1]"));
  EXPECT_EQ(j.details.evidence_assessed, 2);
  EXPECT_THAT(j.details.study_designs, ElementsAre("1 trial registration (design, no results) (1 point each)"));
  EXPECT_THAT(j.details.gaps, Contains("only trial registrations: designs, no published results"));
  EXPECT_EQ(j.clinical_evidence_score, 1);  // a registration is a design, not a result
  EXPECT_EQ(j.mechanism_score, 2);          // "antibod" in record 1
  EXPECT_THAT(j.clinical_reasoning, HasSubstr("1 of 2 record(s) name keytruda or pembrolizumab"));
  EXPECT_THAT(j.mechanism_reasoning, HasSubstr("[1]"));
  EXPECT_THAT(j.mechanism_reasoning, HasSubstr("not a reading of the mechanism"));
  EXPECT_FALSE(j.sufficient);

  // The other way round: a question naming the generic, a record naming the brand.
  const JudgeAssessment back = RulesJudgement(
      "Does pembrolizumab help?",
      Json::array(
          {Record(7, "Keytruda in melanoma: a randomized trial", "", "pubmed", "randomized-controlled-trial")}));
  EXPECT_THAT(back.details.relevant_evidence, ElementsAre("[7]"));
  EXPECT_EQ(back.clinical_evidence_score, 3);

  // Nothing names the drug: nothing counted, and the gap says so.
  const JudgeAssessment none = RulesJudgement("What is the evidence for Opdivo?", evidence);
  EXPECT_THAT(none.details.relevant_evidence, IsEmpty());
  EXPECT_THAT(none.details.gaps, Contains("no gathered record names opdivo or nivolumab"));
}

Json ModelJudgement() {
  return {{"details",
           {{"evidence_assessed", 12},
            {"relevant_evidence", {"[2]", "NCT03590054"}},
            {"study_designs", {"2 phase 3 RCTs"}},
            {"gaps", {"no overall survival data"}}}},
          {"mechanism_score", 7},
          {"mechanism_reasoning", "PD-1 blockade is described in [2]."},
          {"clinical_evidence_score", 6},
          {"clinical_reasoning", "Two randomized trials report response rates."},
          {"confidence", 0.75},
          {"sufficient", true},
          {"recommendation", "synthesize"},
          {"next_search_queries", Json::array()},
          {"reasoning", "Randomized evidence and a clear mechanism."}};
}

TEST(ResearchJudgeTest, TheSeedsAssessmentFieldsAreParsedAndShown) {
  Result<JudgeAssessment> j = ReadJudgement(ModelJudgement());
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  EXPECT_EQ(j->details.evidence_assessed, 12);
  EXPECT_THAT(j->details.relevant_evidence, ElementsAre("[2]", "NCT03590054"));
  EXPECT_THAT(j->details.study_designs, ElementsAre("2 phase 3 RCTs"));
  EXPECT_THAT(j->details.gaps, ElementsAre("no overall survival data"));
  EXPECT_EQ(j->mechanism_reasoning, "PD-1 blockade is described in [2].");
  EXPECT_EQ(j->clinical_reasoning, "Two randomized trials report response rates.");
  const Json shown = Json::parse(DumpJson(ToJson(*j)));
  EXPECT_EQ(shown["details"]["relevant_evidence"], Json({"[2]", "NCT03590054"}));
  EXPECT_EQ(shown["mechanism_reasoning"], "PD-1 blockade is described in [2].");
  EXPECT_EQ(shown["clinical_reasoning"], "Two randomized trials report response rates.");
}

TEST(ResearchJudgeTest, TheFinishingToolRefusesAJudgementWithoutTheSeedsFields) {
  ToolRegistry registry;
  ASSERT_TRUE(RegisterResearchFinishingTools(registry, {kSubmitJudgementTool}).ok());
  auto call = [&](const Json& args) {
    return registry.Execute({.id = "c", .name = kSubmitJudgementTool, .arguments = DumpJson(args)}, {});
  };
  EXPECT_TRUE(call(ModelJudgement()).ok);
  for (const char* field : {"details", "mechanism_reasoning", "clinical_reasoning"}) {
    Json missing = ModelJudgement();
    missing.erase(field);
    ToolResult refused = call(missing);
    EXPECT_FALSE(refused.ok) << field;
    EXPECT_THAT(refused.error, HasSubstr(field));
  }
  Json short_reason = ModelJudgement();
  short_reason["clinical_reasoning"] = "RCTs";  // seed 003: at least 10 characters
  EXPECT_FALSE(call(short_reason).ok);
  Json bad_details = ModelJudgement();
  bad_details["details"].erase("relevant_evidence");
  EXPECT_FALSE(call(bad_details).ok);
  // The rules judge's own judgement passes its tool's validation.
  Json rules = Json::parse(DumpJson(ToJson(RulesJudgement("Keytruda?", Json::array()))));
  rules.erase("override_note");
  EXPECT_TRUE(call(rules).ok) << call(rules).error;
}

}  // namespace
}  // namespace medreact
