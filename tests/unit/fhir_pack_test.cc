// Tests for the fhir tool pack through the ToolRegistry (schemas included):
// hand-made bundles for the seed's PE example, stopped orders,
// medicationReference, zero-width text, lookback windows and errors, plus
// every Synthea bundle in shared/data (skipped when that directory is absent).
#include "testing/fhir_builders.h"
#include "testing/fixtures.h"
#include "tools/fhir/fhir_pack.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tools/fhir/fhir_codes.h"

namespace medreact {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using testing::kSyntheaDir;

using testing::Entry;
using testing::MedicationRequest;
using testing::Observation;

// The seed's PE example: warfarin active, INR 2.3 (therapeutic range 2-3),
// plus a stopped aspirin, Medication resources referenced both ways, a
// zero-width display, and labs inside and outside the default window.
Json PeBundle() {
  Json inr = Observation("inr", "6301-6", "INR in Platelet poor plasma by Coagulation assay", 2.3, "{INR}",
                         "2025-06-10T09:00:00+00:00");
  inr["referenceRange"] = {{{"low", {{"value", 2.0}}}, {"high", {{"value", 3.0}}}}};
  Json creat = Observation("cr", "2160-0", "Creatinine", 1.9, "mg/dL", "2025-02-01");  // 130 days before as_of
  creat["interpretation"] = {{{"coding", {{{"code", "H"}}}}}};
  Json troponin = Observation("trop", "", "Troponin\u200B I, high sensitivity", 52, "ng/L", "2025-06-09");
  troponin["code"] = {{"text", "Troponin\u200B I, high sensitivity"}};  // no LOINC: display fallback
  Json warfarin = MedicationRequest("mr-warf", "Warfarin 5mg", "active", "2025-01-15");
  warfarin["dosageInstruction"] = {{{"text", "5mg daily"}}};
  Json aspirin = MedicationRequest("mr-asa", "Aspirin 81 MG Oral Tablet", "stopped", "2020-03-01");
  aspirin["dispenseRequest"] = {{"validityPeriod", {{"start", "2020-03-01"}, {"end", "2021-03-01"}}}};
  Json apixaban_by_urn = {{"resourceType", "MedicationRequest"}, {"id", "mr-apix"}, {"status", "completed"},
                          {"medicationReference", {{"reference", "urn:uuid:med-apix"}}},
                          {"authoredOn", "2019-01-01"},
                          {"dosageInstruction", {{{"timing", {{"repeat", {{"frequency", 2}, {"period", 1},
                                                                          {"periodUnit", "d"}}}}},
                                                  {"doseAndRate", {{{"doseQuantity", {{"value", 5},
                                                                                       {"unit", "mg"}}}}}}}}}};
  Json metoprolol_by_id = {{"resourceType", "MedicationRequest"}, {"id", "mr-meto"}, {"status", "active"},
                           {"medicationReference", {{"reference", "Medication/med-meto"}}},
                           {"authoredOn", "2024-11-01"}};
  Json bp = {{"resourceType", "Observation"}, {"id", "bp"}, {"status", "final"},
             {"code", {{"coding", {{{"system", "http://loinc.org"}, {"code", "85354-9"}}}}}},
             {"effectiveDateTime", "2025-06-12"},
             {"component",
              {{{"code", {{"coding", {{{"system", "http://loinc.org"}, {"code", "8480-6"}}}}}},
                {"valueQuantity", {{"value", 142}, {"unit", "mm[Hg]"}}}},
               {{"code", {{"coding", {{{"system", "http://loinc.org"}, {"code", "8462-4"}}}}}},
                {"valueQuantity", {{"value", 91}, {"unit", "mm[Hg]"}}}}}}};
  Json hr = Observation("hr", "8867-4", "Heart rate", 118, "/min", "2025-06-12");
  Json weight = Observation("wt", "29463-7", "Body Weight", 80, "kg", "2024-01-01");  // outside 30 days
  Json condition = {{"resourceType", "Condition"}, {"id", "c-pe"},
                    {"clinicalStatus", {{"coding", {{{"code", "active"}}}}}},
                    {"code", {{"coding", {{{"system", "http://snomed.info/sct"}, {"code", "59282003"},
                                          {"display", "Pulmonary embolism"}}}},
                              {"text", "Pulmonary embolism"}}},
                    {"onsetDateTime", "2025-06-01"}};
  Json dvt = {{"resourceType", "Condition"}, {"id", "c-dvt"},
              {"clinicalStatus", {{"coding", {{{"code", "resolved"}}}}}},
              {"code", {{"text", "Deep vein thrombo\u200Bsis of lower extremity"}}},
              {"onsetDateTime", "2023-02-01"}, {"abatementDateTime", "2023-08-01"}};
  Json allergy = {{"resourceType", "AllergyIntolerance"}, {"id", "al"}, {"type", "allergy"},
                  {"criticality", "high"}, {"code", {{"text", "Iodinated contrast media"}}},
                  {"reaction", {{{"manifestation", {{{"text", "Urticaria"}}}}}}}};
  Json study = {{"resourceType", "ImagingStudy"}, {"id", "img"}, {"status", "available"},
                {"started", "2025-06-13T10:00:00Z"},
                {"series", {{{"modality", {{"code", "CT"}}}, {"bodySite", {{"display", "Chest"}}}}}}};
  Json bundle = {{"resourceType", "Bundle"}, {"type", "collection"}, {"entry", Json::array()}};
  for (Json resource : {Json{{"resourceType", "Patient"}, {"id", "pat"}, {"gender", "male"},
                             {"birthDate", "1958-03-20"}},
                        Json{{"resourceType", "Medication"}, {"id", "med-apix"},
                             {"code", {{"coding", {{{"system", "http://www.nlm.nih.gov/research/umls/rxnorm"},
                                                    {"code", "1364445"}, {"display", "apixaban 5 MG Oral Tablet"}}}}}}},
                        Json{{"resourceType", "Medication"}, {"id", "med-meto"}, {"code", {{"text", "Metoprolol tartrate 25 MG"}}}},
                        inr, creat, troponin, warfarin, aspirin, apixaban_by_urn, metoprolol_by_id, bp, hr, weight,
                        condition, dvt, allergy, study}) {
    bundle["entry"].push_back(Entry(std::move(resource)));
  }
  return bundle;
}

class FhirPackTest : public ::testing::Test {
 protected:
  void Load(const Json& bundle, const std::string& as_of = "") {
    Result<FhirStore> store = FhirStore::FromJson(bundle, "test bundle");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    if (!as_of.empty()) {
      ASSERT_TRUE(store->SetAsOf(as_of).ok());
    }
    registry_ = std::make_unique<ToolRegistry>();
    ASSERT_TRUE(RegisterFhirPack(*registry_, std::make_shared<const FhirStore>(std::move(store).value())).ok());
  }

  ToolResult Raw(const std::string& tool, const Json& args) {
    return registry_->Execute(ToolCall{"call-1", tool, args.dump()}, ToolContext{});
  }

  Json Call(const std::string& tool, const Json& args = Json::object()) {
    ToolResult result = Raw(tool, args);
    EXPECT_TRUE(result.ok) << tool << ": " << result.error;
    Result<Json> parsed = ParseJson(result.content);
    EXPECT_TRUE(parsed.ok()) << result.content;
    return parsed.value_or(Json());
  }

  std::unique_ptr<ToolRegistry> registry_;
};

TEST_F(FhirPackTest, RegistersEveryToolOnceWithStrictSchemas) {
  Load(PeBundle());
  EXPECT_EQ(registry_->Names(), FhirPackToolNames());
  for (const ToolSpec& spec : registry_->Specs()) {
    EXPECT_EQ(spec.parameters["additionalProperties"], false) << spec.name;
    EXPECT_GT(spec.description.size(), 150u) << spec.name;
  }
  EXPECT_EQ(RegisterFhirPack(*registry_, nullptr).code(), StatusCode::kInvalidArgument);
  Result<FhirStore> store = FhirStore::FromJson(PeBundle());
  ASSERT_TRUE(store.ok());
  Status again = RegisterFhirPack(*registry_, std::make_shared<const FhirStore>(std::move(store).value()));
  EXPECT_THAT(again.message(), HasSubstr("already registered"));
  // Unknown arguments are rejected by the schema.
  EXPECT_FALSE(Raw("get_patient_manifest", {{"patient", "x"}}).ok);
  EXPECT_FALSE(Raw("get_recent_labs", Json::object()).ok);
}

TEST_F(FhirPackTest, ManifestReportsDemographicsCountsCategoriesAndAsOf) {
  Load(PeBundle());
  Json manifest = Call("get_patient_manifest");
  EXPECT_EQ(manifest["patient_id"], "pat");
  EXPECT_EQ(manifest["demographics"]["gender"], "male");
  EXPECT_EQ(manifest["demographics"]["birth_date"], "1958-03-20");
  EXPECT_EQ(manifest["as_of"], "2025-06-13");  // the ImagingStudy's start
  EXPECT_EQ(manifest["as_of_source"], "latest clinical date in record");
  EXPECT_EQ(manifest["demographics"]["age"], 67);
  EXPECT_EQ(manifest["resource_counts"]["MedicationRequest"], 4);
  EXPECT_EQ(manifest["resource_counts"]["Observation"], 6);
  EXPECT_EQ(manifest["available_lab_categories"], Json({"Cardiac", "Coag", "Renal"}));

  Load(PeBundle(), "2030-01-01");
  manifest = Call("get_patient_manifest");
  EXPECT_EQ(manifest["as_of"], "2030-01-01");
  EXPECT_EQ(manifest["as_of_source"], "configured");
  EXPECT_EQ(manifest["demographics"]["age"], 71);
}

TEST_F(FhirPackTest, SeedPeExampleWarfarinActiveWithTherapeuticInr) {
  Load(PeBundle());
  Json meds = Call("check_medication_status", {{"medication_name", "anticoag"}});
  EXPECT_EQ(meds["query"], "anticoag");
  EXPECT_EQ(meds["class"], "anticoag");
  EXPECT_THAT(meds["expanded_to"].get<std::vector<std::string>>(), ::testing::Contains("warfarin"));
  EXPECT_EQ(meds["found"], true);
  EXPECT_EQ(meds["is_currently_active"], true);
  ASSERT_EQ(meds["medications"].size(), 2u);  // warfarin (2025) then apixaban (2019), newest first
  EXPECT_EQ(meds["medications"][0]["name"], "Warfarin 5mg");
  EXPECT_EQ(meds["medications"][0]["status"], "active");
  EXPECT_EQ(meds["medications"][0]["start_date"], "2025-01-15");
  EXPECT_EQ(meds["medications"][0]["dosage"], "5mg daily");

  Json labs = Call("get_recent_labs", {{"category", "Coag"}});
  EXPECT_EQ(labs["category"], "Coag");
  EXPECT_EQ(labs["lookback_days"], 90);
  ASSERT_EQ(labs["values"].size(), 1u);
  EXPECT_EQ(labs["values"][0],
            Json({{"name", "INR"}, {"loinc", "6301-6"}, {"value", 2.3}, {"unit", "{INR}"}, {"date", "2025-06-10"},
                  {"flag", "normal"}}));
  // Aliases reach the same class; case does not matter.
  for (const char* alias : {"anticoagulants", "Blood Thinner", "ANTICOAGULANT"}) {
    EXPECT_EQ(Call("check_medication_status", {{"medication_name", alias}})["class"], "anticoag") << alias;
  }
  EXPECT_EQ(Call("get_recent_labs", {{"category", "coag"}})["category"], "Coag");
}

TEST_F(FhirPackTest, StoppedAspirinIsFoundButNotActive) {
  Load(PeBundle());
  Json meds = Call("check_medication_status", {{"medication_name", "antiplatelet"}});
  EXPECT_EQ(meds["found"], true);
  EXPECT_EQ(meds["is_currently_active"], false);
  ASSERT_EQ(meds["medications"].size(), 1u);
  EXPECT_EQ(meds["medications"][0]["status"], "stopped");
  EXPECT_EQ(meds["medications"][0]["end_date"], "2021-03-01");
  EXPECT_THAT(meds["note"].get<std::string>(), HasSubstr("none has status 'active'"));
  Json none = Call("check_medication_status", {{"medication_name", "insulin"}});
  EXPECT_EQ(none["found"], false);
  EXPECT_EQ(none["is_currently_active"], false);
}

TEST_F(FhirPackTest, MedicationReferenceResolvesByUrnAndById) {
  Load(PeBundle());
  Json apixaban = Call("check_medication_status", {{"medication_name", "apixaban"}});
  ASSERT_EQ(apixaban["medications"].size(), 1u);
  EXPECT_EQ(apixaban["medications"][0]["name"], "apixaban 5 MG Oral Tablet");
  EXPECT_EQ(apixaban["medications"][0]["rxnorm"], "1364445");
  EXPECT_EQ(apixaban["medications"][0]["status"], "completed");
  EXPECT_EQ(apixaban["medications"][0]["dosage"], "5 mg, 2 time(s) per 1 d");
  EXPECT_EQ(apixaban["is_currently_active"], false);
  Json beta = Call("check_medication_status", {{"medication_name", "beta-blocker"}});
  EXPECT_EQ(beta["class"], "beta");
  ASSERT_EQ(beta["medications"].size(), 1u);
  EXPECT_EQ(beta["medications"][0]["name"], "Metoprolol tartrate 25 MG");
  EXPECT_EQ(beta["is_currently_active"], true);
}

TEST_F(FhirPackTest, HistorySearchIsPartialCaseInsensitiveAndZeroWidthSafe) {
  Load(PeBundle());
  Json result = Call("search_clinical_history", {{"query", "THROMBOSIS"}});
  EXPECT_EQ(result["match_count"], 1);
  ASSERT_EQ(result["conditions"].size(), 1u);
  EXPECT_EQ(result["conditions"][0]["status"], "resolved");
  EXPECT_EQ(result["conditions"][0]["onset_date"], "2023-02-01");
  EXPECT_EQ(result["conditions"][0]["abatement_date"], "2023-08-01");
  Json embol = Call("search_clinical_history", {{"query", "embol"}});
  ASSERT_EQ(embol["match_count"], 1);
  EXPECT_EQ(embol["conditions"][0], Json({{"display", "Pulmonary embolism"}, {"code", "59282003"},
                                          {"status", "active"}, {"onset_date", "2025-06-01"},
                                          {"abatement_date", nullptr}}));
  EXPECT_EQ(embol["truncated"], false);
  Json none = Call("search_clinical_history", {{"query", "malignan"}});
  EXPECT_EQ(none["match_count"], 0);
  EXPECT_THAT(none["note"].get<std::string>(), HasSubstr("shorter partial term"));
}

TEST_F(FhirPackTest, LabDisplayFallbackWindowsAndUnknownCategory) {
  Load(PeBundle());
  Json cardiac = Call("get_recent_labs", {{"category", "Cardiac"}});
  ASSERT_EQ(cardiac["values"].size(), 1u);
  EXPECT_EQ(cardiac["values"][0]["name"], "Troponin I");  // zero-width space in "Troponin\u200B I"
  EXPECT_EQ(cardiac["values"][0]["loinc"], nullptr);
  EXPECT_EQ(cardiac["values"][0]["flag"], "unknown");
  // Creatinine 1.9 (H) is 132 days before as_of: outside the default window.
  Json renal = Call("get_recent_labs", {{"category", "Renal"}});
  EXPECT_TRUE(renal["values"].empty());
  EXPECT_THAT(renal["note"].get<std::string>(), HasSubstr("No Renal labs in the 90 days up to 2025-06-13"));
  EXPECT_EQ(renal["latest_outside_window"]["value"], 1.9);
  EXPECT_EQ(renal["latest_outside_window"]["flag"], "high");
  EXPECT_EQ(renal["latest_outside_window"]["days_before_as_of"], 132);
  Json wide = Call("get_recent_labs", {{"category", "Renal"}, {"lookback_days", 132}});
  ASSERT_EQ(wide["values"].size(), 1u);
  EXPECT_FALSE(wide.contains("latest_outside_window"));
  EXPECT_TRUE(Call("get_recent_labs", {{"category", "Renal"}, {"lookback_days", 131}})["values"].empty());
  // A configured as_of before a lab hides it: it has not happened yet.
  Load(PeBundle(), "2025-06-09");
  EXPECT_TRUE(Call("get_recent_labs", {{"category", "Coag"}})["values"].empty());

  ToolResult unknown = Raw("get_recent_labs", {{"category", "Thyroid"}});
  ASSERT_FALSE(unknown.ok);
  EXPECT_EQ(unknown.error,
            "Unknown lab category 'Thyroid'. Valid categories: Cardiac, Coag, Renal, CBC, Metabolic, Hepatic, Lipids, "
            "Diabetes.");
  Json lipids = Call("get_recent_labs", {{"category", "Lipids"}});
  EXPECT_THAT(lipids["note"].get<std::string>(), HasSubstr("holds none at all"));
}

TEST_F(FhirPackTest, VitalSignsReadPanelComponentsAndWindows) {
  Load(PeBundle());
  Json vitals = Call("get_vital_signs");
  EXPECT_EQ(vitals["lookback_days"], 30);
  EXPECT_EQ(vitals["vitals"]["systolic_bp"], Json({{"value", 142}, {"unit", "mm[Hg]"}, {"date", "2025-06-12"}}));
  EXPECT_EQ(vitals["vitals"]["diastolic_bp"]["value"], 91);
  EXPECT_EQ(vitals["vitals"]["heart_rate"]["value"], 118);
  EXPECT_EQ(vitals["vitals"]["body_weight"], nullptr);
  EXPECT_EQ(vitals["latest_outside_window"]["body_weight"]["date"], "2024-01-01");
  EXPECT_THAT(vitals["not_in_window"].get<std::vector<std::string>>(), ::testing::Contains("body_weight"));
  Json year = Call("get_vital_signs", {{"lookback_days", 600}});
  EXPECT_EQ(year["vitals"]["body_weight"]["value"], 80);
}

TEST_F(FhirPackTest, AllergiesAndImaging) {
  Load(PeBundle());
  Json all = Call("check_allergies");
  ASSERT_EQ(all["match_count"], 1);
  EXPECT_EQ(all["allergies"][0]["substance"], "Iodinated contrast media");
  EXPECT_EQ(all["allergies"][0]["criticality"], "high");
  EXPECT_EQ(all["allergies"][0]["reactions"], Json({"Urticaria"}));
  EXPECT_EQ(Call("check_allergies", {{"substance", "CONTRAST"}})["match_count"], 1);
  EXPECT_EQ(Call("check_allergies", {{"substance", "penicillin"}})["match_count"], 0);
  Json imaging = Call("get_imaging_history");
  ASSERT_EQ(imaging["count"], 1);
  EXPECT_EQ(imaging["studies"][0]["date"], "2025-06-13");
  EXPECT_EQ(imaging["studies"][0]["modalities"], Json({"CT"}));
  EXPECT_EQ(imaging["studies"][0]["body_sites"], Json({"Chest"}));
}

TEST_F(FhirPackTest, ConcurrentCallsGiveTheSameAnswers) {
  Load(PeBundle());
  const std::string expected = Raw("get_recent_labs", {{"category", "Coag"}}).content;
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        if (Raw("get_recent_labs", {{"category", "Coag"}}).content != expected) ++mismatches;
        if (!Raw("check_medication_status", {{"medication_name", "anticoag"}}).ok) ++mismatches;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(FhirCodesTest, ClassifiesByLoincFirstThenDisplay) {
  auto by_code = ClassifyLab(Json::parse(R"({"coding": [{"system": "http://loinc.org", "code": "38483-4",
                                               "display": "Creatinine"}]})"));
  ASSERT_TRUE(by_code.has_value());
  EXPECT_STREQ(by_code->category->name, "Renal");
  EXPECT_TRUE(by_code->by_code);
  // HbA1c is Diabetes by code even though its display says hemoglobin.
  auto a1c = ClassifyLab(Json::parse(R"({"coding": [{"system": "http://loinc.org", "code": "4548-4",
                                           "display": "Hemoglobin A1c/Hemoglobin.total in Blood"}]})"));
  EXPECT_STREQ(a1c->category->name, "Diabetes");
  auto a1c_text = ClassifyLab(Json{{"text", "Hemoglobin A1c"}});
  EXPECT_STREQ(a1c_text->category->name, "Diabetes");
  EXPECT_FALSE(ClassifyLab(Json{{"text", "Glucose [Presence] in Urine"}}).has_value());
  EXPECT_FALSE(ClassifyLab(Json{{"text", "Tobacco smoking status"}}).has_value());
  EXPECT_STREQ(ClassifyLab(Json{{"text", "NT-proBNP"}})->name.c_str(), "NT-proBNP");
  EXPECT_STREQ(ClassifyLab(Json{{"text", "BNP"}})->name.c_str(), "BNP");
  // Every LOINC code appears in one category only.
  std::map<std::string, int> seen;
  for (const LabCategory& category : LabCategories()) {
    for (const LabCode& code : category.codes) EXPECT_EQ(++seen[code.loinc], 1) << code.loinc;
  }
  MedicationQuery statin = ExpandMedicationQuery("statins");
  EXPECT_TRUE(MatchesMedication(statin, "Simvistatin 10 MG", {}));  // Synthea's spelling
  EXPECT_TRUE(MatchesMedication(ExpandMedicationQuery("anticoag"), "some product", {"11289"}));
  EXPECT_THAT(ExpandMedicationQuery(" Warfarin ").ingredients, ElementsAre("warfarin"));
}

// --- Every Synthea bundle ---------------------------------------------------

std::string SyntheaPath(const std::string& name) { return std::string(kSyntheaDir) + "/" + name; }

TEST_F(FhirPackTest, SyntheaEveryBundleManifestMatchesAPlainCount) {
  namespace fs = std::filesystem;
  const auto paths = testing::SyntheaBundles();
  ASSERT_EQ(paths.size(), 10u) << "the Synthea fixtures are missing from " << kSyntheaDir;
  for (const fs::path& path : paths) {
    SCOPED_TRACE(path.filename().string());
    std::ifstream in(path);
    const Json bundle = Json::parse(in);
    Json expected = Json::object();
    std::string patient_id;
    for (const Json& entry : bundle["entry"]) {
      const std::string type = entry["resource"]["resourceType"];
      expected[type] = expected.value(type, 0) + 1;
      if (type == "Patient") patient_id = entry["resource"]["id"];
    }
    Load(bundle);
    Json manifest = Call("get_patient_manifest");
    EXPECT_EQ(manifest["patient_id"], patient_id);
    EXPECT_EQ(manifest["resource_counts"], expected);
    EXPECT_TRUE(manifest["demographics"]["age"].is_number_integer());
    // Every tool answers on real data without an error.
    for (const std::string& category : LabCategoryNames()) Call("get_recent_labs", {{"category", category}});
    Call("search_clinical_history", {{"query", "a"}});
    Call("check_medication_status", {{"medication_name", "anticoag"}});
    Call("get_vital_signs");
    Call("check_allergies");
    Call("get_imaging_history");
  }
}

TEST_F(FhirPackTest, SyntheaEuraTreutelValuesLookedUpByHand) {
  const std::string path = SyntheaPath("Eura_Treutel_8a12e2bb-ecc5-43e9-8de2-bfd019911f7f.json");
  if (!std::filesystem::exists(path)) FAIL() << "no " << path;
  std::ifstream in(path);
  Load(Json::parse(in));
  Json manifest = Call("get_patient_manifest");
  EXPECT_EQ(manifest["demographics"]["age"], 85);  // born 1935-01-15, as_of 2020-10-20
  EXPECT_EQ(manifest["as_of"], "2020-10-20");
  EXPECT_EQ(manifest["available_lab_categories"],
            Json({"Renal", "CBC", "Metabolic", "Hepatic", "Lipids", "Diabetes"}));
  // MedicationRequest 855332 "Warfarin Sodium 5 MG Oral Tablet", active, authoredOn 2014-06-10.
  Json warfarin = Call("check_medication_status", {{"medication_name", "anticoag"}});
  EXPECT_EQ(warfarin["is_currently_active"], true);
  ASSERT_EQ(warfarin["medications"].size(), 1u);
  EXPECT_EQ(warfarin["medications"][0]["name"], "Warfarin Sodium 5 MG Oral Tablet");
  EXPECT_EQ(warfarin["medications"][0]["rxnorm"], "855332");
  EXPECT_EQ(warfarin["medications"][0]["start_date"], "2014-06-10");
  // "Simvistatin 10 MG": 10 orders, the 2020-06-11 one active.
  Json statin = Call("check_medication_status", {{"medication_name", "statin"}});
  EXPECT_EQ(statin["medications"].size(), 10u);
  EXPECT_EQ(statin["medications"][0]["start_date"], "2020-06-11");
  EXPECT_EQ(statin["medications"][0]["status"], "active");
  EXPECT_EQ(statin["medications"][1]["status"], "stopped");
  // Latest creatinine (38483-4): 0.48307362750883603 mg/dL on 2020-07-14, 98 days before as_of.
  Json renal = Call("get_recent_labs", {{"category", "Renal"}});
  EXPECT_TRUE(renal["values"].empty());
  EXPECT_EQ(renal["latest_outside_window"]["date"], "2020-07-14");
  EXPECT_EQ(renal["latest_outside_window"]["days_before_as_of"], 98);
  Json wide = Call("get_recent_labs", {{"category", "Renal"}, {"lookback_days", 98}});
  bool saw_creatinine = false;
  for (const Json& value : wide["values"]) {
    if (value["loinc"] != "38483-4") continue;
    saw_creatinine = true;
    EXPECT_EQ(value["value"], 0.4831);
    EXPECT_EQ(value["unit"], "mg/dL");
    EXPECT_EQ(value["date"], "2020-07-14");
  }
  EXPECT_TRUE(saw_creatinine);
  // HbA1c 4548-4: 6.2364499024801665 % on 2020-07-14.
  Json a1c = Call("get_recent_labs", {{"category", "Diabetes"}, {"lookback_days", 365}});
  ASSERT_FALSE(a1c["values"].empty());
  EXPECT_EQ(a1c["values"][0]["value"], 6.236);
  // Blood pressure panel 55284-4 of 2020-07-14: 111.19 / 85.84 mm[Hg].
  Json vitals = Call("get_vital_signs", {{"lookback_days", 365}});
  EXPECT_EQ(vitals["vitals"]["systolic_bp"]["value"], 111.2);
  EXPECT_EQ(vitals["vitals"]["diastolic_bp"]["value"], 85.84);
  EXPECT_EQ(vitals["vitals"]["systolic_bp"]["date"], "2020-07-14");
  Json afib = Call("search_clinical_history", {{"query", "fibrillation"}});
  ASSERT_EQ(afib["match_count"], 1);
  EXPECT_EQ(afib["conditions"][0]["onset_date"], "2014-06-10");
  EXPECT_EQ(Call("check_allergies", {{"substance", "pollen"}})["match_count"], 1);
}

TEST_F(FhirPackTest, SyntheaStoppedHeparinAndActiveClopidogrel) {
  const std::string jordan = SyntheaPath("Jordan_Cruickshank_5de38439-d320-46d3-854d-3c098e88de4c.json");
  const std::string parker = SyntheaPath("Parker_Casper_6d0c6969-6843-47e1-9921-d9bf11b1df31.json");
  if (!std::filesystem::exists(jordan) || !std::filesystem::exists(parker)) FAIL() << "no Synthea data";
  std::ifstream jordan_in(jordan);
  Load(Json::parse(jordan_in));
  // "heparin sodium, porcine" (314659), status stopped, authoredOn 2017-06-24.
  Json heparin = Call("check_medication_status", {{"medication_name", "heparin"}});
  EXPECT_EQ(heparin["found"], true);
  EXPECT_EQ(heparin["is_currently_active"], false);
  EXPECT_EQ(heparin["medications"][0]["status"], "stopped");
  EXPECT_EQ(heparin["medications"][0]["start_date"], "2017-06-24");
  std::ifstream parker_in(parker);
  Load(Json::parse(parker_in));
  // "Clopidogrel 75 MG Oral Tablet" (309362), active since 2016-08-11.
  Json clopidogrel = Call("check_medication_status", {{"medication_name", "antiplatelet"}});
  EXPECT_EQ(clopidogrel["is_currently_active"], true);
  EXPECT_EQ(clopidogrel["medications"][0]["rxnorm"], "309362");
  EXPECT_EQ(Call("get_patient_manifest")["demographics"]["deceased_date"], "2021-02-21");
  // Five ImagingStudy resources; the oldest (2015-10-20) is DX of the arm, titled "Image of arm".
  Json imaging = Call("get_imaging_history");
  ASSERT_EQ(imaging["count"], 5);
  EXPECT_EQ(imaging["studies"][0]["date"], "2021-02-19");
  EXPECT_EQ(imaging["studies"][4]["date"], "2015-10-20");
  EXPECT_EQ(imaging["studies"][4]["description"], "Image of arm");
  EXPECT_EQ(imaging["studies"][4]["modalities"], Json({"DX"}));
}

}  // namespace
}  // namespace medreact
