// The tolerant JSON reader on a peer's corpus of real LLM JSON breakage
// (tests/fixtures/json_repair/peer_cases.json: the cases of the Python library
// json_repair's test suite, each with the verdict of what a reader of the text
// sees). The one rule: never a silently wrong value. A case whose verdict is
// "refuse" must be refused; a case whose verdict is a value must give that
// value or be refused, never another value. The recorded class (agree,
// different-right, refused-...) is checked too, so the scores in
// docs/reliability.md stay true: a change that reads a refused case must
// update the fixture, and says so.
#include "medreact/json_repair.h"

#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>

#include "testing/build_paths.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

Json LoadCases() {
  const std::string path = MEDREACT_SOURCE_DIR + "/tests/fixtures/json_repair/peer_cases.json";
  Result<Json> doc = ParseJson(testing::ReadFileOrEmpty(path));
  if (!doc.ok()) return Json::array();
  return (*doc)["cases"];
}

TEST(JsonRepairPeerTest, NoSilentlyWrongValue) {
  const Json cases = LoadCases();
  ASSERT_GE(cases.size(), 200u) << "fixture missing or unreadable";
  std::map<std::string, int> tally;
  for (const Json& c : cases) {
    const std::string id = c.at("id").get<std::string>();
    const std::string input = c.at("input").get<std::string>();
    const bool refuse = c.at("verdict") == "refuse";
    Result<Json> got = ParseJsonLenient(input);
    std::string outcome;
    if (!got.ok()) {
      outcome = refuse ? "refused-ambiguous" : "refused-recoverable";
      EXPECT_EQ(got.status().code(), StatusCode::kParseError) << id;
    } else if (refuse) {
      outcome = "silently-wrong";
      ADD_FAILURE() << id << ": the verdict is refuse (" << c.value("why", "") << ") but the reader gave "
                    << DumpJson(*got) << "\n  input: " << Preview(input, 200);
    } else if (*got != c.at("expect")) {
      outcome = "silently-wrong";
      ADD_FAILURE() << id << ": the reader gave " << DumpJson(*got) << ", a reader of the text sees "
                    << DumpJson(c.at("expect")) << "\n  input: " << Preview(input, 200);
    } else if (c.at("peer").is_null()) {
      outcome = "right";  // a held-out case: the peer's output there depends on its options
    } else {
      const bool peer_same = c.at("peer").is_string() && !c.at("peer").get<std::string>().empty() &&
                             ParseJson(c.at("peer").get<std::string>()).ok() &&
                             *ParseJson(c.at("peer").get<std::string>()) == *got;
      outcome = peer_same ? "agree" : "different-right";
    }
    const std::string split = c.value("held_out", false) ? "held-out " : "built-on ";
    ++tally[split + outcome];
    if (c.at("class").is_string()) {
      EXPECT_EQ(outcome, c.at("class").get<std::string>())
          << id << ": the reader's outcome changed; update the fixture's class and docs/reliability.md";
    }
  }
  for (const auto& [name, count] : tally) std::cout << "  " << name << ": " << count << "\n";
  EXPECT_EQ(tally["built-on silently-wrong"] + tally["held-out silently-wrong"], 0);
}

}  // namespace
}  // namespace medreact
