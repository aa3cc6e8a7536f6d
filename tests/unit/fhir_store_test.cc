// Tests for FhirStore: date and text helpers, Bundle/NDJSON loading, reference
// resolution, error messages for malformed files, partial damage, as_of, and
// every Synthea bundle in shared/data (skipped when that directory is absent).
#include "testing/fixtures.h"
#include "tools/fhir/fhir_store.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace medreact {
namespace {

using ::testing::HasSubstr;
using std::chrono::sys_days;

using testing::kSyntheaDir;

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

sys_days Day(int y, unsigned m, unsigned d) {
  return sys_days(std::chrono::year_month_day{std::chrono::year{y}, std::chrono::month{m}, std::chrono::day{d}});
}

Json SmallBundle() {
  return Json::parse(R"({
    "resourceType": "Bundle", "type": "collection",
    "entry": [
      {"fullUrl": "urn:uuid:p1", "resource": {"resourceType": "Patient", "id": "p1", "birthDate": "1950-05-01"}},
      {"fullUrl": "urn:uuid:m1", "resource": {"resourceType": "Medication", "id": "m1",
        "code": {"text": "Warfarin 5 MG"}}},
      {"fullUrl": "http://example.org/fhir/Encounter/e1", "resource": {"resourceType": "Encounter", "id": "e1",
        "period": {"start": "2024-06-01T08:00:00+02:00", "end": "2024-06-02T23:30:00-05:00"}}},
      {"resource": {"resourceType": "Observation", "id": "o1", "effectiveDateTime": "2024-05-20"}},
      {"resource": {"resourceType": "Claim", "id": "c1", "created": "2030-01-01"}}
    ]})");
}

TEST(FhirDateTest, ParsesDatesAndDateTimes) {
  using namespace std::chrono;
  EXPECT_EQ(ParseFhirInstant("2019-03-04"), sys_seconds(Day(2019, 3, 4)));
  EXPECT_EQ(ParseFhirInstant("2019"), sys_seconds(Day(2019, 1, 1)));
  EXPECT_EQ(ParseFhirInstant("2019-03"), sys_seconds(Day(2019, 3, 1)));
  EXPECT_EQ(ParseFhirInstant("2019-03-04T06:12:43Z"), sys_seconds(Day(2019, 3, 4)) + hours(6) + minutes(12) + seconds(43));
  // +02:00 is two hours ahead of UTC, so UTC is two hours earlier.
  EXPECT_EQ(ParseFhirInstant("2019-03-04T01:00:00.273+02:00"), sys_seconds(Day(2019, 3, 3)) + hours(23));
  EXPECT_EQ(ParseFhirInstant("2019-03-04T23:00:00-05:00"), sys_seconds(Day(2019, 3, 5)) + hours(4));
  // The written date is kept by ParseFhirDate even when UTC is another day.
  EXPECT_EQ(ParseFhirDate("2019-03-04T23:00:00-05:00"), Day(2019, 3, 4));
  for (const char* bad : {"", "19", "2019-13-01", "2019-02-30", "2019/03/04", "2019-03-04T25", "2019-03-04T10:00:00+2",
                          "yesterday"}) {
    EXPECT_FALSE(ParseFhirInstant(bad).has_value()) << bad;
  }
  EXPECT_EQ(FormatDate(Day(2020, 7, 4)), "2020-07-04");
  EXPECT_EQ(AgeInYears(Day(1950, 5, 1), Day(2024, 4, 30)), 73);
  EXPECT_EQ(AgeInYears(Day(1950, 5, 1), Day(2024, 5, 1)), 74);
}

TEST(FhirTextTest, NormalizeStripsZeroWidthAndCollapsesSpace) {
  EXPECT_EQ(NormalizeText("Hemoglobin [Mass/\u200Bvolume]  in\tBlood "), "hemoglobin [mass/volume] in blood");
  EXPECT_EQ(NormalizeText("\uFEFF Deep\u200C vein\u200D  THROMBOSIS\n"), "deep vein thrombosis");
  EXPECT_EQ(NormalizeText("a\u00A0b"), "a b");
  EXPECT_EQ(NormalizeText(""), "");
}

TEST(FhirStoreTest, IndexesBundleByTypeAndReference) {
  Result<FhirStore> store = FhirStore::FromJson(SmallBundle(), "small");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(store->patient_id(), "p1");
  ASSERT_NE(store->patient(), nullptr);
  EXPECT_EQ(store->OfType("Encounter").size(), 1u);
  EXPECT_TRUE(store->OfType("Procedure").empty());
  EXPECT_EQ(store->ResourceCounts(),
            (std::map<std::string, size_t>{{"Patient", 1}, {"Medication", 1}, {"Encounter", 1}, {"Observation", 1},
                                           {"Claim", 1}}));
  ASSERT_NE(store->Resolve("urn:uuid:m1"), nullptr);
  EXPECT_EQ((*store->Resolve("urn:uuid:m1"))["id"], "m1");
  EXPECT_EQ((*store->Resolve("Medication/m1"))["id"], "m1");
  EXPECT_EQ((*store->Resolve("Encounter/e1"))["id"], "e1");
  EXPECT_EQ((*store->Resolve("http://example.org/fhir/Encounter/e1"))["id"], "e1");
  EXPECT_EQ((*store->Resolve("https://other.org/base/Observation/o1/_history/3"))["id"], "o1");
  EXPECT_EQ(store->Resolve("Medication/nope"), nullptr);
  EXPECT_EQ(store->Resolve("#contained"), nullptr);
  EXPECT_EQ(store->Resolve(""), nullptr);
  EXPECT_TRUE(store->warnings().empty());
}

TEST(FhirStoreTest, AsOfDefaultsToLatestClinicalDateAndCanBeConfigured) {
  Result<FhirStore> store = FhirStore::FromJson(SmallBundle(), "small");
  ASSERT_TRUE(store.ok());
  // The Encounter's end (the date as written), not the Claim's 2030 date.
  EXPECT_EQ(store->as_of_date(), "2024-06-02");
  EXPECT_EQ(store->as_of_source(), "latest clinical date in record");
  ASSERT_TRUE(store->SetAsOf("2025-01-15").ok());
  EXPECT_EQ(store->as_of(), Day(2025, 1, 15));
  EXPECT_EQ(store->as_of_source(), "configured");
  Status bad = store->SetAsOf("15/01/2025");
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("15/01/2025"));
}

TEST(FhirStoreTest, SingleResourceAndOtherBundleTypes) {
  Result<FhirStore> one = FhirStore::FromJson(Json{{"resourceType", "Patient"}, {"id", "solo"}});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->patient_id(), "solo");
  EXPECT_THAT(one->as_of_source(), HasSubstr("no clinical date"));
  for (const char* type : {"transaction", "batch", "searchset"}) {
    Json bundle = {{"resourceType", "Bundle"},
                   {"type", type},
                   {"entry", {{{"resource", {{"resourceType", "Patient"}, {"id", "x"}}}}}}};
    Result<FhirStore> store = FhirStore::FromJson(bundle);
    ASSERT_TRUE(store.ok()) << type;
    EXPECT_EQ(store->patient_id(), "x");
    EXPECT_TRUE(store->warnings().empty()) << type;
  }
}

TEST(FhirStoreTest, BrokenEntriesAreSkippedAndReported) {
  Json bundle = SmallBundle();
  bundle["entry"].push_back(42);
  bundle["entry"].push_back({{"fullUrl", "urn:uuid:z"}});
  bundle["entry"].push_back({{"resource", {{"id", "no-type"}}}});
  Result<FhirStore> store = FhirStore::FromJson(bundle, "damaged.json");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_EQ(store->warnings().size(), 3u);
  EXPECT_EQ(store->warnings()[0], "entry 5 skipped: not a JSON object");
  EXPECT_EQ(store->warnings()[1], "entry 6 skipped: no resource");
  EXPECT_EQ(store->warnings()[2], "entry 7 skipped: resource has no resourceType");
  EXPECT_EQ(store->resources().size(), 5u);
  EXPECT_EQ(store->patient_id(), "p1");
}

TEST(FhirStoreTest, MalformedFilesAreClearErrors) {
  const std::string not_json = WriteTemp("fhir_not_json.json", "{\"resourceType\": \"Bundle\", ");
  Result<FhirStore> a = FhirStore::LoadFile(not_json);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kParseError);
  EXPECT_THAT(a.status().message(), HasSubstr(not_json));
  EXPECT_THAT(a.status().message(), HasSubstr("not JSON"));
  EXPECT_THAT(a.status().message(), HasSubstr("byte"));

  const std::string no_type = WriteTemp("fhir_no_type.json", R"({"entry": []})");
  Result<FhirStore> b = FhirStore::LoadFile(no_type);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(b.status().message(), HasSubstr(no_type));
  EXPECT_THAT(b.status().message(), HasSubstr("no resourceType"));

  Result<FhirStore> c = FhirStore::LoadFile(WriteTemp("fhir_array.json", "[1, 2]"));
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("not a JSON object"));

  Result<FhirStore> d = FhirStore::FromJson(Json{{"resourceType", "bundle"}}, "lower.json");
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("'bundle' is not a FHIR resource type"));

  Result<FhirStore> e = FhirStore::LoadFile(::testing::TempDir() + "/does_not_exist.json");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(e.status().message(), HasSubstr("does_not_exist.json"));
}

TEST(FhirStoreTest, NdjsonSkipsBadLines) {
  const std::string text =
      "{\"resourceType\": \"Patient\", \"id\": \"n1\"}\n"
      "{not json\n"
      "\n"
      "{\"id\": \"x\"}\r\n"
      "{\"resourceType\": \"Observation\", \"id\": \"o\", \"effectiveDateTime\": \"2021-02-03T10:00:00Z\"}\n";
  Result<FhirStore> store = FhirStore::FromNdjson(text, "x.ndjson");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(store->patient_id(), "n1");
  EXPECT_EQ(store->resources().size(), 2u);
  ASSERT_EQ(store->warnings().size(), 2u);
  EXPECT_THAT(store->warnings()[0], HasSubstr("line 2 skipped"));
  EXPECT_THAT(store->warnings()[1], HasSubstr("line 4 skipped: no resourceType"));
  EXPECT_EQ(store->as_of_date(), "2021-02-03");
  EXPECT_NE(store->Resolve("Observation/o"), nullptr);

  // Through LoadFile: by extension, and by content when the extension is .json.
  Result<FhirStore> by_name = FhirStore::LoadFile(WriteTemp("fhir_lines.ndjson", text));
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ(by_name->resources().size(), 2u);
  Result<FhirStore> by_content = FhirStore::LoadFile(WriteTemp("fhir_lines.json", text));
  ASSERT_TRUE(by_content.ok()) << by_content.status().ToString();
  EXPECT_EQ(by_content->resources().size(), 2u);

  Result<FhirStore> none = FhirStore::FromNdjson("garbage\nmore garbage\n", "g.ndjson");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("g.ndjson"));
  EXPECT_THAT(none.status().message(), HasSubstr("none of its 2 lines"));
}

// --- Every Synthea bundle ---------------------------------------------------

TEST(FhirSyntheaStoreTest, EveryBundleLoadsWithCountsMatchingAPlainCount) {
  namespace fs = std::filesystem;
  const auto paths = testing::SyntheaBundles();
  ASSERT_EQ(paths.size(), 10u) << "the Synthea fixtures are missing from " << kSyntheaDir;
  for (const fs::path& path : paths) {
    SCOPED_TRACE(path.filename().string());
    Result<FhirStore> store = FhirStore::LoadFile(path.string());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    EXPECT_TRUE(store->warnings().empty());
    EXPECT_FALSE(store->patient_id().empty());
    EXPECT_EQ(store->as_of_source(), "latest clinical date in record");

    // A plain count of entries by type, independent of the store.
    std::ifstream in(path);
    const Json bundle = Json::parse(in);
    std::map<std::string, size_t> expected;
    for (const Json& entry : bundle["entry"]) ++expected[entry["resource"]["resourceType"].get<std::string>()];
    EXPECT_EQ(store->ResourceCounts(), expected);
    EXPECT_EQ(store->resources().size(), bundle["entry"].size());
    EXPECT_EQ(expected["Patient"], 1u);
    EXPECT_EQ((*store->patient())["id"], store->patient_id());
    // Synthea references are urn:uuid: they resolve, e.g. each Observation's subject.
    for (const Json* obs : store->OfType("Observation")) {
      const Json* subject = store->Resolve((*obs)["subject"]["reference"].get<std::string>());
      ASSERT_NE(subject, nullptr);
      EXPECT_EQ((*subject)["resourceType"], "Patient");
    }
  }
}

TEST(FhirSyntheaStoreTest, EuraTreutelByHand) {
  const std::string path = std::string(kSyntheaDir) + "/Eura_Treutel_8a12e2bb-ecc5-43e9-8de2-bfd019911f7f.json";
  if (!std::filesystem::exists(path)) FAIL() << "no " << path;
  Result<FhirStore> store = FhirStore::LoadFile(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(store->patient_id(), "ebd50853-8a52-423a-8f6d-cb6dda740a1a");
  // Looked up by hand: the latest clinical date is a Procedure's
  // performedPeriod.end, 2020-10-20T06:27:43+00:00.
  EXPECT_EQ(store->as_of_date(), "2020-10-20");
  EXPECT_EQ(store->OfType("MedicationRequest").size(), 16u);
  EXPECT_EQ(store->OfType("Observation").size(), 389u);
}

}  // namespace
}  // namespace medreact
