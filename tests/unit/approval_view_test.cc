// service/approval_view.h: whom a paused run is about (its record's
// patient, said without guessing when there is none or it cannot be read),
// why its calls wait, and the words for stored decisions.
#include "service/approval_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/subprocess.h"

namespace medreact::service {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Json Bundle(const Json& patient) {
  return {{"resourceType", "Bundle"},
          {"type", "collection"},
          {"entry", Json::array({Json{{"resource", patient}},
                                 Json{{"resource", {{"resourceType", "Observation"}, {"id", "o1"}, {"status", "final"}}}}})}};
}

RunRecord ChatWith(const std::string& fhir, const std::string& message = "Any question?") {
  return {.id = "run_x", .app = "chat", .inputs = Json{{"message", message}, {"packs", {"util"}}, {"fhir", fhir}}};
}

TEST(ApprovalViewTest, ThePatientIsTheRecordsOfficialNameSexBirthDateAndFirstIdentifier) {
  testing::TempDir dir;
  dir.Write("p.json", DumpJson(Bundle({{"resourceType", "Patient"},
                                       {"id", "p1"},
                                       {"name", Json::array({Json{{"use", "nickname"}, {"given", {"Bo"}}},
                                                             Json{{"use", "official"}, {"family", "Lind"},
                                                                  {"given", {"Anna", "Maria"}}}})},
                                       {"gender", "female"},
                                       {"birthDate", "1970-02-03"},
                                       {"identifier", Json::array({Json{{"system", "x"}}, Json{{"value", "MRN-7"}}})}})));
  RunSubject s = SubjectOfRun(ChatWith(dir.File("p.json")));
  ASSERT_TRUE(s.has_patient);
  EXPECT_EQ(s.text, "Anna Maria Lind, female, born 1970-02-03 (identifier MRN-7)");
  EXPECT_EQ(s.patient["id"], "p1");
  EXPECT_EQ(s.patient["name"], "Anna Maria Lind");
  EXPECT_EQ(RunSubjectJson(s)["patient"]["identifier"], "MRN-7");
}

TEST(ApprovalViewTest, APatientWithoutNameOrIdentifierIsSaidSoAndNothingIsMadeUp) {
  testing::TempDir dir;
  dir.Write("p.json", DumpJson(Bundle({{"resourceType", "Patient"}, {"id", "p9"}, {"name", "not a list"}})));
  RunSubject s = SubjectOfRun(ChatWith(dir.File("p.json")));
  ASSERT_TRUE(s.has_patient);
  EXPECT_EQ(s.text, "Unnamed patient (identifier p9)");
  EXPECT_EQ(s.patient["name"], "");
  EXPECT_EQ(s.patient["birth_date"], "");
}

TEST(ApprovalViewTest, NoRecordAMissingRecordAndARecordWithoutPatientAreEachSaid) {
  testing::TempDir dir;
  RunSubject gone = SubjectOfRun(ChatWith(dir.File("moved.json")));
  EXPECT_FALSE(gone.has_patient);
  EXPECT_TRUE(RunSubjectJson(gone)["patient"].is_null());
  EXPECT_THAT(gone.text, HasSubstr("cannot be read any more"));
  EXPECT_THAT(gone.text, Not(HasSubstr(dir.path())));  // no path in the text
  dir.Write("obs.json", DumpJson(Json{{"resourceType", "Observation"}, {"id", "o1"}, {"status", "final"}}));
  EXPECT_EQ(SubjectOfRun(ChatWith(dir.File("obs.json"))).text,
            "The run's record names no patient (it has no Patient resource).");
  RunRecord chat{.app = "chat", .inputs = Json{{"message", "What is 2+2?"}, {"packs", {"util"}}}};
  EXPECT_EQ(SubjectOfRun(chat).text, "No patient record given to this run; its question: \"What is 2+2?\".");
  RunRecord research{.app = "research", .inputs = Json{{"message", "Apixaban in CKD?"}}};
  EXPECT_EQ(SubjectOfRun(research).text, "No patient: a literature question (\"Apixaban in CKD?\").");
  // A long question is cut on a character boundary, its control characters made printable.
  const std::string longer = std::string(150, 'a') + "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\nrest";
  const std::string text = SubjectOfRun(RunRecord{.app = "cxr", .inputs = Json{{"message", longer}}}).text;
  EXPECT_THAT(text, HasSubstr("...\".")) << text;
  EXPECT_THAT(text, Not(HasSubstr("\n")));
  EXPECT_TRUE(ParseJson(DumpJson(Json(text))).ok());  // still valid UTF-8
}

TEST(ApprovalViewTest, TheRulesAndTheDecisionWordsComeFromWhatIsStored) {
  EXPECT_EQ(ApprovalRulesOf(RunRecord{.inputs = Json{{"require_approval", {"tool:calculator", 7, "network"}}}}),
            (std::vector<std::string>{"tool:calculator", "network"}));
  EXPECT_TRUE(ApprovalRulesOf(RunRecord{.inputs = Json{{"require_approval", "all"}}}).empty());
  EXPECT_EQ(DecisionWord({.approved = true}), "approved");
  EXPECT_EQ(DecisionWord({.approved = true, .arguments = R"({"a":1})"}), "edited");
  EXPECT_EQ(DecisionWord({.approved = false, .reason = "no"}), "rejected");
  Json j = TakenDecisionJson({.call_id = "c1", .decision = "edited", .reviewer = "dr.a", .arguments = R"({"a":1})"});
  EXPECT_EQ(j["arguments"], Json({{"a", 1}}));
  EXPECT_FALSE(j.contains("reason"));
}

TEST(ApprovalViewTest, AnAppWhoseCallsNeverWaitHasNoDecisionTools) {
  RunService service(nullptr);
  Result<std::shared_ptr<ToolRegistry>> tools = DecisionTools(service, RunRecord{.id = "r", .app = "triage"});
  ASSERT_FALSE(tools.ok());
  EXPECT_EQ(tools.status().code(), StatusCode::kFailedPrecondition);
  Result<std::shared_ptr<ToolRegistry>> chat =
      DecisionTools(service, RunRecord{.id = "r", .app = "chat", .inputs = Json{{"message", "m"}, {"packs", {"util"}}}});
  ASSERT_TRUE(chat.ok()) << chat.status().ToString();
  EXPECT_NE((*chat)->Find("calculator"), nullptr);
}

}  // namespace
}  // namespace medreact::service
