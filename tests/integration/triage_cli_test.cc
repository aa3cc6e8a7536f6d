// `medreact triage` and `medreact worklist` as a user runs them: exit codes,
// the result JSON on stdout and in --out, the trace, bad input, the rules
// planner with no server, a model through medreact-mock-llm, and a worklist
// with a corrupt case. The triage runs go twice (issue 28): --fhir FILE and
// --fhir-url BASE --patient ID against the loopback FHIR fixture server.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "medreact/json.h"
#include "testing/fhir_builders.h"
#include "testing/record_via.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::TempDir;
using ::testing::HasSubstr;

const char kFindings[] = "Filling defect in right pulmonary artery consistent with acute pulmonary embolism";

std::string WritePeBundle(const TempDir& dir) {
  dir.Write("fhir.json", DumpJson(testing::PeOnWarfarinBundle()));
  return dir.File("fhir.json");
}

class TriageCliRecordTest : public ::testing::TestWithParam<testing::RecordVia> {
 protected:
  // medreact triage <record flags> <rest>.
  std::vector<std::string> Triage(const TempDir& dir, const std::vector<std::string>& rest) {
    std::vector<std::string> argv = {MEDREACT_BINARY, "triage"};
    for (const std::string& a : record_.Args(testing::PeOnWarfarinBundle(), dir)) argv.push_back(a);
    argv.insert(argv.end(), rest.begin(), rest.end());
    return argv;
  }
  testing::RecordServer record_{GetParam()};
};

TEST_P(TriageCliRecordTest, RulesPlannerWithNoServer) {
  TempDir dir;
  auto r = RunCommand(Triage(dir, {"--findings", kFindings, "--base-priority", "2", "--out", dir.File("result.json"),
                                   "--trace", dir.File("trace.json"), "-v"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Result<Json> result = ParseJson(r.out);
  ASSERT_TRUE(result.ok()) << r.out;
  EXPECT_EQ((*result)["priority_level"], 1);
  EXPECT_EQ((*result)["base_priority"], 2);
  EXPECT_EQ((*result)["planner"], "rules");
  EXPECT_EQ((*result)["agent_reasoning"]["risk_adjustment"], "INCREASE");
  EXPECT_EQ(ReadFileOrEmpty(dir.File("result.json")), r.out);
  Result<Json> trace = ParseJson(ReadFileOrEmpty(dir.File("trace.json")));
  ASSERT_TRUE(trace.ok());
  EXPECT_EQ((*trace)["protocol"], "rules");
  EXPECT_EQ((*trace)["input"]["message"], kFindings);
  // Progress names tools, never record content.
  EXPECT_THAT(r.err, HasSubstr("check_medication_status ok"));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("Warfarin")));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("pulmonary")));
}

TEST_P(TriageCliRecordTest, FindingsFromAFileAndNoAgent) {
  TempDir dir;
  dir.Write("findings.txt", "Mild degenerative changes of the lumbar spine.\n");
  auto r = RunCommand(Triage(dir, {"--findings-file", dir.File("findings.txt"), "--no-agent"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Result<Json> result = ParseJson(r.out);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)["priority_level"], 3);
  EXPECT_EQ((*result)["planner"], "none");
  EXPECT_EQ((*result)["visual_findings"], "Mild degenerative changes of the lumbar spine.");
}

TEST(TriageCliTest, BadInputExitsTwoAndWritesNothing) {
  TempDir dir;
  const std::string fhir = WritePeBundle(dir);
  dir.Write("broken.json", R"({"resourceType": "Bundle", "entry": [)");
  dir.Write("empty.txt", " \n");
  const std::string out = dir.File("out.json");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--fhir", fhir}, "exactly one of --findings"},
      {{"--fhir", fhir, "--findings", "PE", "--findings-file", dir.File("empty.txt")}, "exactly one of --findings"},
      {{"--fhir", fhir, "--findings-file", dir.File("empty.txt")}, "findings (--findings or --findings-file) are empty"},
      {{"--fhir", fhir, "--findings-file", dir.File("missing.txt")}, "does not exist"},
      {{"--fhir", dir.File("broken.json"), "--findings", "PE"}, "broken.json"},
      {{"--fhir", dir.File("missing.json"), "--findings", "PE"}, "missing.json"},
      {{"--fhir", fhir, "--findings", "PE", "--as-of", "last week"}, "--as-of"},
      {{"--fhir", fhir, "--findings", "PE", "--base-priority", "4"}, "base-priority"},
      {{"--fhir", fhir, "--findings", "PE", "--planner", "model"}, "needs a model server"},
      {{"--fhir", fhir, "--findings", "PE", "--llm-url", "ftp://x"},
       "the model URL (--llm-url or MEDREACT_LLM_URL) must start with"},
      {{"--findings", "PE"}, "--fhir"},
      {{"--fhir", fhir, "--fhir-url", "http://127.0.0.1:9/fhir", "--patient", "p", "--findings", "PE"}, "not both"},
      {{"--fhir-url", "http://127.0.0.1:9/fhir", "--findings", "PE"}, "--fhir-url and --patient go together"},
      {{"--fhir-url", "ftp://h/fhir", "--patient", "p", "--findings", "PE"}, "http:// or https://"},
      {{"--fhir", fhir, "--fhir-client-id", "c", "--findings", "PE"}, "go with --fhir-url"},
      {{"--fhir-url", "http://127.0.0.1:9/fhir", "--patient", "p", "--findings", "PE"}, "CapabilityStatement"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {MEDREACT_BINARY, "triage", "--out", out};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    auto r = RunCommand(argv);
    SCOPED_TRACE(c.message);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.message));
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

TEST_P(TriageCliRecordTest, ModelThroughTheMockServer) {
  const char* script = R"({"responses": [
    {"message": {"tool_calls": [{"id": "c1", "name": "check_medication_status", "arguments": "{\"medication_name\": \"anticoag\"}"}]}},
    {"message": {"tool_calls": [{"id": "c2", "name": "get_recent_labs", "arguments": "{\"category\": \"Coag\"}"}]}},
    {"message": {"tool_calls": [{"id": "c3", "name": "get_vital_signs", "arguments": "{}"}]}},
    {"message": {"tool_calls": [{"id": "c4", "name": "submit_assessment", "arguments": "{\"final_assessment\": \"PE on warfarin, INR 2.3.\", \"risk_adjustment\": \"INCREASE\", \"critical_findings\": [\"Anticoagulation failure\"]}"}]}}
  ]})";
  testing::MockLlmProcess mock(script);
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  auto r = RunCommand(Triage(dir, {"--findings", kFindings, "--base-priority", "2"}),
                      {{"MEDREACT_LLM_URL", mock.base_url()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Result<Json> result = ParseJson(r.out);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)["planner"], "model");
  EXPECT_EQ((*result)["priority_level"], 1);
  EXPECT_EQ((*result)["agent_reasoning"]["final_assessment"], "PE on warfarin, INR 2.3.");
  EXPECT_EQ(mock.request_lines().size(), 4u);
}

TEST_P(TriageCliRecordTest, UnreachableModelFallsBackAndSaysSo) {
  TempDir dir;
  auto r = RunCommand(Triage(dir, {"--findings", kFindings, "--base-priority", "2", "--llm-url",
                                   "http://127.0.0.1:9/v1", "--max-retries", "0"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("the rules planner decided instead"));
  Result<Json> result = ParseJson(r.out);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)["planner"], "rules (fallback)");
  EXPECT_EQ((*result)["priority_level"], 1);
}

TEST(TriageCliTest, WorklistWithACorruptCase) {
  TempDir dir;
  const std::string bundle = DumpJson(testing::PeOnWarfarinBundle());
  auto add = [&dir](const std::string& name, const std::string& fhir, const std::string& findings) {
    std::filesystem::create_directories(dir.File("cases/" + name));
    dir.Write("cases/" + name + "/fhir.json", fhir);
    dir.Write("cases/" + name + "/findings.txt", findings);
  };
  add("01-routine", bundle, "Simple cyst in the left kidney.");
  add("02-pe", bundle, kFindings);
  add("03-corrupt", "{\"resourceType\": \"Bundle\", \"entry\": [{\"resource\": ", "Acute stroke.");
  dir.Write("cases/02-pe/case.json", R"({"base_priority": 2, "as_of": "2025-06-13"})");
  auto r = RunCommand({MEDREACT_BINARY, "worklist", dir.File("cases"), "--out", dir.File("results"),
                       "--concurrency", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // one case failed; the others were triaged
  EXPECT_THAT(r.out, HasSubstr("3 cases, 2 triaged, 1 failed; planner rules"));
  EXPECT_THAT(r.out, HasSubstr("2 HIGH RISK → 1 CRITICAL"));
  EXPECT_THAT(r.out, HasSubstr("03-corrupt: "));
  EXPECT_THAT(r.err, HasSubstr("[3/3]"));
  EXPECT_THAT(r.err, HasSubstr("1 case(s) failed"));
  Result<Json> worklist = ParseJson(ReadFileOrEmpty(dir.File("results/worklist.json")));
  ASSERT_TRUE(worklist.ok());
  EXPECT_EQ((*worklist)["cases"][0]["case"], "02-pe");
  EXPECT_EQ((*worklist)["cases"][1]["case"], "01-routine");
  EXPECT_EQ((*worklist)["failed"][0]["case"], "03-corrupt");
  EXPECT_TRUE(std::filesystem::exists(dir.File("results/02-pe.json")));

  // An output folder inside the worklist is not taken for a case.
  r = RunCommand({MEDREACT_BINARY, "worklist", dir.File("cases"), "--out", dir.File("cases/results"), "--json",
                  "-q"});
  EXPECT_EQ(r.exit_code, 1);
  Result<Json> printed = ParseJson(r.out);
  ASSERT_TRUE(printed.ok()) << r.out;
  EXPECT_EQ((*printed)["counts"]["cases"], 3);
  EXPECT_EQ(r.err.find("[1/3]"), std::string::npos);  // -q: no progress

  r = RunCommand({MEDREACT_BINARY, "worklist", dir.File("nowhere")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("is not a directory"));
}

INSTANTIATE_TEST_SUITE_P(Record, TriageCliRecordTest, testing::kRecordVias, testing::RecordViaName);

}  // namespace
}  // namespace medreact
