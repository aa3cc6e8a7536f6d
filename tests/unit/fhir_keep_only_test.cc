// FhirStore::LoadFile(path, FhirPackResourceTypes()), as the worklist loads
// its cases (the other types reduced to stubs while parsing, then KeepOnly):
// every fhir tool gives the same result as over the whole record, on every
// Synthea bundle shipped with the tests, and what was computed from the whole
// record (counts, as-of date, references, warnings) survives.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "testing/fixtures.h"
#include "tools/fhir/fhir_codes.h"
#include "tools/fhir/fhir_pack.h"

namespace medreact {
namespace {

// One call of every tool, with the arguments a triage run uses and more.
std::vector<ToolCall> EveryToolCall() {
  std::vector<ToolCall> calls = {{"c", "get_patient_manifest", "{}"},
                                 {"c", "get_vital_signs", "{}"},
                                 {"c", "get_vital_signs", R"({"lookback_days": 3650})"},
                                 {"c", "check_allergies", "{}"},
                                 {"c", "get_imaging_history", "{}"}};
  for (const char* query : {"diab", "hypert", "fibril", "thrombo", "infarct", "sinusitis"}) {
    calls.push_back({"c", "search_clinical_history", Json{{"query", query}}.dump()});
  }
  for (const std::string& category : LabCategoryNames()) {
    calls.push_back({"c", "get_recent_labs", Json{{"category", category}, {"lookback_days", 36500}}.dump()});
    calls.push_back({"c", "get_recent_labs", Json{{"category", category}}.dump()});
  }
  for (const char* drug : {"anticoagulants", "warfarin", "statins", "insulin", "aspirin", "beta blockers",
                           "antiplatelets", "amlodipine"}) {
    calls.push_back({"c", "check_medication_status", Json{{"medication_name", drug}}.dump()});
  }
  return calls;
}

TEST(FhirKeepOnlyTest, ToolsGiveTheSameResultsOnEverySyntheaBundle) {
  const auto bundles = testing::SyntheaBundles();
  ASSERT_FALSE(bundles.empty()) << "no Synthea fixtures in " << testing::kSyntheaDir;
  for (const auto& path : bundles) {
    SCOPED_TRACE(path.filename().string());
    Result<FhirStore> whole = FhirStore::LoadFile(path.string());
    Result<FhirStore> kept = FhirStore::LoadFile(path.string(), FhirPackResourceTypes());
    ASSERT_TRUE(whole.ok() && kept.ok());
    EXPECT_LT(kept->resources().size(), whole->resources().size());
    EXPECT_EQ(kept->ResourceCounts(), whole->ResourceCounts());
    EXPECT_EQ(kept->as_of_date(), whole->as_of_date());
    EXPECT_EQ(kept->patient_id(), whole->patient_id());
    EXPECT_EQ(kept->warnings(), whole->warnings());
    ASSERT_NE(kept->patient(), nullptr);
    EXPECT_EQ(*kept->patient(), *whole->patient());
    EXPECT_EQ(kept->Resolve("urn:uuid:" + kept->patient_id()), kept->patient());
    for (const Json* observation : kept->OfType("Observation")) {
      EXPECT_EQ(kept->Resolve("Observation/" + StringField(*observation, "id")), observation);
    }
    EXPECT_TRUE(kept->OfType("Claim").empty());

    ToolRegistry whole_tools, kept_tools;
    ASSERT_TRUE(RegisterFhirPack(whole_tools, std::make_shared<const FhirStore>(std::move(*whole))).ok());
    ASSERT_TRUE(RegisterFhirPack(kept_tools, std::make_shared<const FhirStore>(std::move(*kept))).ok());
    const std::vector<ToolCall> calls = EveryToolCall();
    size_t answered = 0;
    for (const ToolCall& call : calls) {
      SCOPED_TRACE(call.name + " " + call.arguments);
      const ToolResult expected = whole_tools.Execute(call, ToolContext{});
      const ToolResult got = kept_tools.Execute(call, ToolContext{});
      EXPECT_EQ(got.ok, expected.ok);
      EXPECT_EQ(got.content, expected.content);
      EXPECT_EQ(got.error, expected.error);
      if (expected.ok) ++answered;
    }
    EXPECT_EQ(answered, calls.size()) << "a call the tools refused compares nothing";
  }
}

TEST(FhirKeepOnlyTest, DroppedResourcesNoLongerResolve) {
  Json bundle = {{"resourceType", "Bundle"}, {"type", "collection"}, {"entry", Json::array({
      {{"fullUrl", "urn:uuid:p1"}, {"resource", {{"resourceType", "Patient"}, {"id", "p1"}}}},
      {{"resource", {{"resourceType", "Encounter"}, {"id", "e1"}, {"period", {{"start", "2030-01-01"}}}}}},
      {{"resource", {{"resourceType", "Condition"}, {"id", "c1"}, {"recordedDate", "2020-05-01"}}}}})}};
  Result<FhirStore> store = FhirStore::FromJson(std::move(bundle), "test");
  ASSERT_TRUE(store.ok());
  store->KeepOnly({"Patient", "Condition"});
  EXPECT_EQ(store->resources().size(), 2u);
  EXPECT_EQ(store->Resolve("Encounter/e1"), nullptr);
  EXPECT_EQ(StringField(*store->Resolve("Condition/c1"), "id"), "c1");
  EXPECT_EQ(StringField(*store->patient(), "id"), "p1");
  EXPECT_EQ(store->ResourceCounts().at("Encounter"), 1u);
  EXPECT_EQ(store->as_of_date(), "2030-01-01");  // from the dropped encounter, as before
}

TEST(FhirKeepOnlyTest, FilteredLoadOfNdjsonAndOfASingleResource) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("medreact-keep-only-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string ndjson = (dir / "r.ndjson").string();
  std::ofstream(ndjson) << R"({"resourceType": "Patient", "id": "p1"})" << "\n"
                        << R"({"resourceType": "Claim", "id": "x", "created": "2031-02-03"})" << "\n";
  Result<FhirStore> store = FhirStore::LoadFile(ndjson, {"Patient"});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(store->resources().size(), 1u);
  EXPECT_EQ(store->ResourceCounts().at("Claim"), 1u);
  // A document that is one resource is kept whole, whatever it holds.
  const std::string single = (dir / "one.json").string();
  std::ofstream(single) << R"({"resourceType": "List", "id": "l1",
                               "entry": [{"resource": {"resourceType": "Claim", "total": 5}}]})";
  Result<FhirStore> list = FhirStore::LoadFile(single, {"List"});
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->resources().size(), 1u);
  EXPECT_EQ(list->resources()[0]["entry"][0]["resource"], Json({{"resourceType", "Claim"}, {"total", 5}}));
  // Errors are the unfiltered load's, word for word.
  const std::string broken = (dir / "broken.json").string();
  std::ofstream(broken) << R"({"resourceType": "Bundle", "entry": [)";
  Result<FhirStore> filtered = FhirStore::LoadFile(broken, {"Patient"});
  Result<FhirStore> unfiltered = FhirStore::LoadFile(broken);
  ASSERT_FALSE(filtered.ok());
  EXPECT_EQ(filtered.status().ToString(), unfiltered.status().ToString());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace medreact
