// The logging rule (core/log.h) on a real record: a triage of a Synthea
// patient, logged at debug level, names runs, steps, tools, timings and sizes
// and nothing about the patient; with content logging asked for
// (MEDREACT_LOG_PHI=1) the tool results appear.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <spdlog/sinks/ostream_sink.h>

#include <sstream>

#include "testing/build_paths.h"
#include "apps/triage/triage_app.h"
#include "core/log.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kBundle[] = "tests/fixtures/synthea/Eura_Treutel_8a12e2bb-ecc5-43e9-8de2-bfd019911f7f.json";
constexpr char kFindings[] = "Filling defect in the right lower lobe pulmonary artery, acute pulmonary embolism.";

// Everything that identifies the patient: the Patient resource's id, names,
// birth date, address lines, city, postal code and phone numbers.
std::vector<std::string> Identifiers(const Json& bundle) {
  std::vector<std::string> out;
  for (const Json& entry : bundle["entry"]) {
    const Json& r = entry["resource"];
    if (r.value("resourceType", "") != "Patient") continue;
    out.push_back(r["id"]);
    out.push_back(r["birthDate"]);
    for (const Json& name : r["name"]) {
      out.push_back(name["family"]);
      for (const Json& given : name["given"]) out.push_back(given);
    }
    for (const Json& address : r.value("address", Json::array())) {
      for (const Json& line : address.value("line", Json::array())) out.push_back(line);
      out.push_back(address.value("city", ""));
      out.push_back(address.value("postalCode", ""));
    }
    for (const Json& telecom : r.value("telecom", Json::array())) out.push_back(telecom.value("value", ""));
  }
  std::erase_if(out, [](const std::string& s) { return s.size() < 3; });
  return out;
}

class LogRedactionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sink_ = std::make_shared<spdlog::sinks::ostream_sink_mt>(log_);
    SetLogSink(sink_);
    level_ = Log().level();
    Log().set_level(spdlog::level::debug);
  }
  void TearDown() override {
    SetLogPhi(false);
    Log().set_level(level_);
    SetLogSink(nullptr);
  }
  std::string Triage() {
    Result<FhirStore> store = FhirStore::LoadFile(std::string(MEDREACT_SOURCE_DIR) + "/" + kBundle);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    TriageConfig config;  // no model: the rules planner drives the same loop and tools
    TriageOutcome out =
        RunTriage(std::make_shared<const FhirStore>(std::move(*store)), {.findings = kFindings}, config);
    EXPECT_TRUE(out.agent_ran);
    return log_.str();
  }

  std::ostringstream log_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
  spdlog::level::level_enum level_ = spdlog::level::warn;
};

TEST_F(LogRedactionTest, DebugLogsSayWhatHappenedAndNothingAboutThePatient) {
  const std::string log = Triage();
  // What happened: the run, its steps, its tools, with ids and timings.
  EXPECT_THAT(log, HasSubstr("[medreact] [info] run run_"));
  EXPECT_THAT(log, HasSubstr("started: model rules-planner (rules)"));
  EXPECT_THAT(log, HasSubstr("tool get_patient_manifest ("));
  EXPECT_THAT(log, HasSubstr("tool check_medication_status ("));
  EXPECT_THAT(log, HasSubstr(" ms, result <"));
  EXPECT_THAT(log, HasSubstr("finished: finished after"));
  // Nothing about the patient: no identifier, no findings, no arguments, no results.
  const Json bundle = *ParseJson(testing::ReadFileOrEmpty(std::string(MEDREACT_SOURCE_DIR) + "/" + kBundle));
  const std::vector<std::string> ids = Identifiers(bundle);
  ASSERT_GE(ids.size(), 4u);
  for (const std::string& id : ids) EXPECT_THAT(log, Not(HasSubstr(id))) << "identifier in the log: " << id;
  EXPECT_THAT(log, Not(HasSubstr("pulmonary")));
  EXPECT_THAT(log, Not(HasSubstr("anticoag")));   // an argument of check_medication_status
  EXPECT_THAT(log, Not(HasSubstr("\"found\"")));  // a result's JSON
}

TEST_F(LogRedactionTest, ContentIsLoggedOnlyWhenAskedFor) {
  SetLogPhi(true);
  const std::string log = Triage();
  EXPECT_THAT(log, HasSubstr("arguments {\"medication_name\""));
  EXPECT_THAT(log, HasSubstr("result {"));
}

TEST(LogConfigTest, TheEnvironmentPicksTheLevelAndABadValueSaysSo) {
  std::ostringstream out;
  SetLogSink(std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
  const spdlog::level::level_enum before = Log().level();
  setenv("MEDREACT_LOG_LEVEL", "info", 1);
  ConfigureLoggingFromEnvironment();
  EXPECT_EQ(Log().level(), spdlog::level::info);
  setenv("MEDREACT_LOG_LEVEL", "chatty", 1);
  ConfigureLoggingFromEnvironment();
  EXPECT_EQ(Log().level(), spdlog::level::warn);
  EXPECT_THAT(out.str(), HasSubstr("MEDREACT_LOG_LEVEL='chatty' is not a level"));
  unsetenv("MEDREACT_LOG_LEVEL");
  Log().set_level(before);
  SetLogSink(nullptr);
}

}  // namespace
}  // namespace medreact
