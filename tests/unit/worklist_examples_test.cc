// The example worklist (examples/worklist/) checked end to end: every case
// folder's FHIR bundle is loaded with FhirStore, its findings go through the
// keyword base priority and the rules planner driven by the real Agent and
// fhir pack, and the triage result must match the case's `expected`
// {priority_level, risk_adjustment, rule}. Also checks the case files'
// shape, that the hand-made bundles load without warnings and hold the FHIR
// fields the examples promise, and that Synthea-derived bundles are verbatim
// copies of tests/fixtures/synthea.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "apps/triage/rules_planner.h"
#include "apps/triage/triage_policy.h"
#include "medreact/agent.h"
#include "testing/fhir_fixture_server.h"
#include "testing/fixtures.h"
#include "testing/triage_drive.h"
#include "testing/record_via.h"
#include "tools/fhir/fhir_pack.h"
#include "tools/fhir/fhir_rest.h"
#include "tools/fhir/fhir_store.h"

namespace medreact {
namespace {

namespace fs = std::filesystem;

const std::string kWorklistDir = MEDREACT_SOURCE_DIR + "/examples/worklist";

// Every case folder of the example worklist, sorted by name.
std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kWorklistDir, ec)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string Trimmed(const std::string& text) {
  const size_t b = text.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const size_t e = text.find_last_not_of(" \t\r\n");
  return text.substr(b, e - b + 1);
}

// The fixture `bundle` is a byte-for-byte copy of, or "" when none.
std::string SyntheaSource(const std::string& bundle) {
  for (const fs::path& fixture : testing::SyntheaBundles()) {
    if (fs::file_size(fixture) == bundle.size() && ReadText(fixture) == bundle) return fixture.filename().string();
  }
  return "";
}

bool IsDate(const std::string& text) {
  return text.size() == 10 && ParseFhirDate(text).has_value();
}

bool HasCoding(const Json& concept_json, const std::string& system) {
  if (!concept_json.is_object() || !concept_json.contains("coding") || !concept_json["coding"].is_array()) return false;
  return std::any_of(concept_json["coding"].begin(), concept_json["coding"].end(), [&](const Json& coding) {
    return StringField(coding, "system") == system && !StringField(coding, "code").empty();
  });
}

// The shape promised for hand-made bundles: a named, dated patient that every
// subject reference resolves to; coded, dated medication orders; LOINC-coded
// quantity observations with UCUM units.
void CheckHandMadeBundle(const FhirStore& store) {
  const Json* patient = store.patient();
  ASSERT_NE(patient, nullptr) << "no Patient";
  EXPECT_FALSE(store.patient_id().empty());
  EXPECT_TRUE(patient->contains("name")) << "Patient without a name";
  EXPECT_FALSE(StringField(*patient, "gender").empty()) << "Patient without gender";
  EXPECT_TRUE(IsDate(StringField(*patient, "birthDate"))) << "Patient without birthDate";
  EXPECT_EQ(store.Resolve("urn:uuid:" + store.patient_id()), patient);
  for (const Json& resource : store.resources()) {
    const std::string type = StringField(resource, "resourceType");
    SCOPED_TRACE(type + "/" + StringField(resource, "id"));
    if (type == "Patient") continue;
    const std::string subject = StringField(resource.value("subject", Json::object()), "reference");
    EXPECT_EQ(subject.rfind("urn:uuid:", 0), 0u) << "subject not a urn:uuid reference: " << subject;
    EXPECT_EQ(store.Resolve(subject), patient) << "subject does not resolve to the patient: " << subject;
    if (type == "MedicationRequest") {
      EXPECT_FALSE(StringField(resource, "status").empty());
      EXPECT_EQ(StringField(resource, "intent"), "order");
      EXPECT_TRUE(IsDate(StringField(resource, "authoredOn")));
      ASSERT_TRUE(resource.contains("medicationCodeableConcept"));
      EXPECT_FALSE(ConceptText(resource["medicationCodeableConcept"]).empty());
    } else if (type == "Observation") {
      EXPECT_EQ(StringField(resource, "status"), "final");
      EXPECT_TRUE(HasCoding(resource.value("code", Json::object()), "http://loinc.org"));
      EXPECT_TRUE(ParseFhirInstant(StringField(resource, "effectiveDateTime")).has_value());
      const Json quantity = resource.value("valueQuantity", Json::object());
      EXPECT_TRUE(quantity.contains("value") && quantity["value"].is_number());
      EXPECT_EQ(StringField(quantity, "system"), "http://unitsofmeasure.org");
      EXPECT_FALSE(StringField(quantity, "code").empty());
    }
  }
}

TEST(WorklistExamplesTest, HasTheRequiredCases) {
  const std::vector<std::string> names = CaseNames();
  EXPECT_GE(names.size(), 10u) << "examples/worklist should hold at least 10 case folders";
  int synthea = 0;
  for (const std::string& name : names) {
    // Short kebab-case with a two-digit prefix: "01-pe-on-warfarin".
    EXPECT_TRUE(name.size() > 3 && std::isdigit(static_cast<unsigned char>(name[0])) &&
                std::isdigit(static_cast<unsigned char>(name[1])) && name[2] == '-')
        << name;
    EXPECT_TRUE(std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    })) << name;
    if (name.find("synthea") != std::string::npos) ++synthea;
  }
  EXPECT_GE(synthea, 3) << "at least three Synthea-derived cases";
  EXPECT_TRUE(fs::exists(fs::path(kWorklistDir) / "NOTICE"));
  EXPECT_TRUE(fs::exists(fs::path(kWorklistDir) / "README.md"));
}

// Each case twice (issue 28): its fhir.json read as a file, and served by the
// loopback FHIR fixture and read over REST.
class WorklistExampleTest : public ::testing::TestWithParam<std::tuple<std::string, testing::RecordVia>> {};

TEST_P(WorklistExampleTest, RulesPlannerGivesTheExpectedPriority) {
  const std::string name = std::get<0>(GetParam());
  const testing::RecordVia via = std::get<1>(GetParam());
  SCOPED_TRACE("case " + name);
  const fs::path dir = fs::path(kWorklistDir) / name;

  // case.json: only the documented keys.
  Result<Json> parsed_case = ParseJson(ReadText(dir / "case.json"));
  ASSERT_TRUE(parsed_case.ok()) << parsed_case.status().ToString();
  const Json spec = *parsed_case;
  ASSERT_TRUE(spec.is_object());
  for (auto it = spec.begin(); it != spec.end(); ++it) {
    EXPECT_TRUE(it.key() == "description" || it.key() == "base_priority" || it.key() == "as_of" ||
                it.key() == "expected")
        << "unknown key " << it.key();
  }
  ASSERT_TRUE(spec.contains("description") && spec["description"].is_string());
  const std::string description = spec["description"].get<std::string>();
  EXPECT_FALSE(Trimmed(description).empty());
  EXPECT_EQ(description.find('\n'), std::string::npos) << "description must be one line";
  ASSERT_TRUE(spec.contains("expected") && spec["expected"].is_object());
  const Json& expected = spec["expected"];
  ASSERT_EQ(expected.size(), 3u) << expected.dump();
  ASSERT_TRUE(expected.contains("priority_level") && expected["priority_level"].is_number_integer());
  ASSERT_TRUE(expected.contains("risk_adjustment") && expected["risk_adjustment"].is_string());
  ASSERT_TRUE(expected.contains("rule") && expected["rule"].is_string());

  // fhir.json: hand-made bundles load cleanly; Synthea ones are verbatim copies.
  const std::string bundle_text = ReadText(dir / "fhir.json");
  const std::string synthea_source = SyntheaSource(bundle_text);
  if (name.find("synthea") != std::string::npos) {
    EXPECT_FALSE(synthea_source.empty()) << "a synthea case must hold a verbatim fixture bundle";
  }
  testing::FhirFixtureServer server({.everything = true});
  Result<FhirStore> store = FhirStore::LoadFile((dir / "fhir.json").string());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  if (via == testing::RecordVia::kRest) {
    server.AddBundle(ParseJson(bundle_text).value());
    ASSERT_TRUE(server.Start());
    const size_t file_resources = store->resources().size();
    store = ReadFhirPatient(server.base_url(), store->patient_id(), {});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    EXPECT_EQ(store->resources().size(), file_resources);
  }
  if (synthea_source.empty()) {
    EXPECT_TRUE(store->warnings().empty()) << store->warnings().front();
    EXPECT_LE(bundle_text.size(), 16u * 1024) << "hand-made bundles stay small";
    CheckHandMadeBundle(*store);
  }
  if (spec.contains("as_of")) {
    ASSERT_TRUE(spec["as_of"].is_string());
    ASSERT_TRUE(IsDate(spec["as_of"].get<std::string>())) << spec["as_of"];
    ASSERT_TRUE(store->SetAsOf(spec["as_of"].get<std::string>()).ok());
  }
  const std::string patient_id = store->patient_id();
  EXPECT_FALSE(patient_id.empty());

  // findings.txt and the base priority.
  const std::string findings = Trimmed(ReadText(dir / "findings.txt"));
  ASSERT_FALSE(findings.empty());
  std::string why;
  int base = 0;
  if (spec.contains("base_priority")) {
    ASSERT_TRUE(spec["base_priority"].is_number_integer());
    base = spec["base_priority"].get<int>();
    ASSERT_GE(base, 1);
    ASSERT_LE(base, 3);
    why = "base priority given by the case";
  } else {
    base = BasePriorityFromFindings(findings, &why);
  }
  // The case file agrees with itself: expected = base adjusted.
  EXPECT_EQ(ApplyRiskAdjustment(base, expected["risk_adjustment"].get<std::string>()),
            expected["priority_level"].get<int>())
      << "expected priority_level is not base " << base << " adjusted by " << expected["risk_adjustment"];

  // The rules planner through the real Agent and fhir pack.
  auto registry = std::make_shared<ToolRegistry>();
  ASSERT_TRUE(RegisterFhirPack(*registry, std::make_shared<const FhirStore>(std::move(store).value())).ok());
  std::shared_ptr<ChatModel> planner = MakeTriageRulesPlanner();
  AgentOptions options;
  options.max_steps = 8;
  testing::AddTriageFinish(*registry, options);
  Agent agent(planner, registry, options);
  RunResult run = agent.Run({.message = findings});
  ASSERT_EQ(run.status, RunStatus::kFinished) << run.error;
  EXPECT_LE(run.steps, 8);

  const Json result = BuildTriageResult(patient_id, findings, base, why, &run);
  SCOPED_TRACE("assessment: " + run.answer);
  EXPECT_EQ(result["base_priority"], base);
  EXPECT_EQ(result["priority_level"], expected["priority_level"]);
  EXPECT_EQ(result["agent_reasoning"]["risk_adjustment"], expected["risk_adjustment"]);
  EXPECT_EQ(run.final_fields.value("rule", Json()), expected["rule"]);
  EXPECT_EQ(result["agent_reasoning"]["errors"], nullptr) << result["agent_reasoning"]["errors"].dump();
}

std::string CaseTestName(const ::testing::TestParamInfo<std::tuple<std::string, testing::RecordVia>>& info) {
  std::string out;
  for (char c : std::get<0>(info.param)) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out + (std::get<1>(info.param) == testing::RecordVia::kFile ? "" : "_Rest");
}

INSTANTIATE_TEST_SUITE_P(Worklist, WorklistExampleTest,
                         ::testing::Combine(::testing::ValuesIn(CaseNames()), testing::kRecordVias), CaseTestName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(WorklistExampleTest);

}  // namespace
}  // namespace medreact
