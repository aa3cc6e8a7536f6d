// The worklist view of the clinician's page (web/worklist.js) and the routes
// it added (src/server/api_worklists.cc):
// - GET /v1/worklists: this server's worklists, newest first, and the folders
//   of cases under the input roots (a folder counts the sub-folders holding
//   findings.txt; one without cases is not listed);
// - a worklist's cases carry the agent's risk adjustment and when each was
//   done (their waiting time), sorted by final priority;
// - GET /v1/runs/{id}/triage: the triage result the worklist wrote for its
//   case's run (final priority, adjustment, reason, needs_review), without
//   the record's path; 404 for a run that is no case of this server's worklists.
// Then the view in chromium (tests/node/page_worklist.mjs): a worklist submitted
// through the page with the scripted triage model, rows arriving in priority
// order, the case view with its facts linked to the trace, keyboard only,
// pause, cancel, announcements, axe-core, screenshots `worklist` and
// `worklist-case`; and on a server with a token and no model
// (tests/node/page_worklist_rules.mjs), the rules planner's worklists from the
// folder form and an upload, signed in by the session cookie.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "testing/build_paths.h"
#include "testing/page_script.h"
#include "testing/serve_fixture.h"
#include "testing/subprocess.h"

namespace medreact::server {
namespace {

using ::testing::HasSubstr;
using testing::ServeFixture;

Json Body(const httplib::Result& r) { return ServeFixture::JsonOf(r); }

void ExpectError(const httplib::Result& r, int status, const std::string& code, const std::string& message_part) {
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, status) << r->body;
  Json j = Body(r);
  ASSERT_TRUE(j.is_object() && j.contains("error")) << r->body;
  EXPECT_EQ(StringOr(j["error"], "code"), code) << r->body;
  EXPECT_THAT(StringOr(j["error"], "message"), HasSubstr(message_part)) << r->body;
}

// An input root with ct-today/ (two example cases), empty/ (no case) and a file.
std::string MakeRoot(testing::TempDir& tmp) {
  namespace fs = std::filesystem;
  const std::string root = tmp.File("root");
  const std::string examples = MEDREACT_SOURCE_DIR + "/examples/worklist/";
  fs::create_directories(root + "/ct-today");
  fs::create_directories(root + "/empty/not-a-case");
  fs::copy(examples + "01-pe-on-warfarin", root + "/ct-today/a-pe-on-warfarin", fs::copy_options::recursive);
  fs::copy(examples + "07-routine-renal-cyst", root + "/ct-today/b-renal-cyst", fs::copy_options::recursive);
  std::ofstream(root + "/notes.txt") << "not a folder\n";
  return root;
}

Json WaitForWorklist(ServeFixture& srv, const std::string& id) {
  Json w;
  for (int i = 0; i < 400; ++i) {
    w = Body(srv.Get("/v1/worklists/" + id))["worklist"];
    if (StringOr(w, "status") != "running") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return w;
}

TEST(ServerWorklistsListTest, ListsTheWorklistsAndTheFoldersOfCasesUnderTheInputRoots) {
  testing::TempDir tmp;
  const std::string root = MakeRoot(tmp);
  ServeFixture srv({.input_roots = {root}});
  Json listed = Body(srv.Get("/v1/worklists"));
  ASSERT_TRUE(listed.contains("folders")) << listed.dump();
  EXPECT_EQ(listed["worklists"], Json::array());
  ASSERT_EQ(listed["folders"].size(), 1u) << listed.dump();  // not the root, not empty/
  EXPECT_EQ(listed["folders"][0]["dir"], root + "/ct-today");
  EXPECT_EQ(listed["folders"][0]["cases"], 2);

  auto r = srv.Post("/v1/worklists", DumpJson(Json{{"dir", root + "/ct-today"}, {"concurrency", 1}}));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  const std::string id = StringOr(Body(r)["worklist"], "id");
  const Json w = WaitForWorklist(srv, id);
  ASSERT_EQ(w["status"], "finished") << w.dump();
  ASSERT_EQ(w["cases"].size(), 2u) << w.dump();
  // The rules planner: warfarin at a therapeutic INR with a PE is escalated (case.json's expected).
  EXPECT_EQ(w["cases"][0]["case"], "a-pe-on-warfarin");
  EXPECT_EQ(w["cases"][0]["priority_level"], 1);
  EXPECT_EQ(w["cases"][0]["risk_adjustment"], "INCREASE");
  EXPECT_EQ(w["cases"][1]["case"], "b-renal-cyst");
  EXPECT_EQ(w["cases"][1]["priority_level"], 3);
  EXPECT_EQ(w["cases"][1]["risk_adjustment"], "NONE");
  for (const Json& c : w["cases"]) {
    EXPECT_THAT(StringOr(c, "done_at"), ::testing::MatchesRegex("20[0-9-]+T[0-9:.]+Z")) << c.dump();
  }

  listed = Body(srv.Get("/v1/worklists"));
  ASSERT_EQ(listed["worklists"].size(), 1u) << listed.dump();
  EXPECT_EQ(listed["worklists"][0]["id"], id);
  EXPECT_EQ(listed["worklists"][0]["status"], "finished");
  EXPECT_EQ(listed["worklists"][0]["cases_done"], 2);
  EXPECT_FALSE(listed["worklists"][0].contains("cases"));

  // A case's triage result by its run.
  const std::string run_id = StringOr(w["cases"][0], "run_id");
  const Json t = Body(srv.Get("/v1/runs/" + run_id + "/triage"));
  EXPECT_EQ(t["run_id"], run_id);
  EXPECT_EQ(t["worklist_id"], id);
  EXPECT_EQ(t["case"], "a-pe-on-warfarin");
  EXPECT_EQ(t["result"]["priority_level"], 1);
  EXPECT_EQ(t["result"]["base_priority"], 2);
  EXPECT_EQ(t["result"]["agent_reasoning"]["risk_adjustment"], "INCREASE");
  EXPECT_THAT(StringOr(t["result"], "rationale"), HasSubstr("Risk adjustment INCREASE: final priority 1"));
  EXPECT_EQ(t["result"]["needs_review"], false);
  ASSERT_TRUE(t["result"]["record"].is_object()) << t.dump();
  EXPECT_FALSE(t["result"]["record"].contains("source")) << t.dump();  // no path of the server's
  EXPECT_THAT(t.dump(), Not(HasSubstr(root)));

  // Not a worklist's case: a triage started alone, an unknown run.
  const std::string dir = MEDREACT_SOURCE_DIR + "/examples/worklist/07-routine-renal-cyst";
  ServeFixture alone({.input_roots = {MEDREACT_SOURCE_DIR + "/examples"}});
  auto started = alone.Post("/v1/runs", DumpJson(Json{{"app", "triage"},
                                                      {"inputs", {{"fhir", dir + "/fhir.json"},
                                                                  {"findings", "Simple renal cyst."}}}}));
  ASSERT_TRUE(started);
  ASSERT_EQ(started->status, 201) << started->body;
  const std::string single = StringOr(Body(started)["run"], "id");
  for (int i = 0; i < 200 && StringOr(Body(alone.Get("/v1/runs/" + single))["run"], "status") == "running"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ExpectError(alone.Get("/v1/runs/" + single + "/triage"), 404, "not_found", "is not a case of a worklist");
  ExpectError(alone.Get("/v1/runs/run_nope/triage"), 404, "not_found", "run_nope");
  // Another server's worklist case is not this one's.
  ExpectError(srv.Get("/v1/runs/run_nope/triage"), 404, "not_found", "run_nope");
}

TEST(ServerWorklistsListTest, AServerWithoutInputRootsListsNoFolder) {
  ServeFixture srv;
  const Json listed = Body(srv.Get("/v1/worklists"));
  EXPECT_EQ(listed["folders"], Json::array()) << listed.dump();
  EXPECT_EQ(listed["worklists"], Json::array()) << listed.dump();
}

// The view in chromium with the scripted triage model (tests/node/page_worklist.mjs).
TEST(ServerPageWorklistTest, TheWorklistViewInChromium) {
  PAGE_SCRIPT_OR_SKIP(r, "page_worklist.mjs");
  EXPECT_PAGE_PASSED(r);
}

// A server with a token and no model (tests/node/page_worklist_rules.mjs):
// signed in by the cookie, a folder and an upload triaged by the rules
// planner end as their case.json expect.
TEST(ServerPageWorklistTest, SignedInTheRulesPlannersWorklistsEndAsTheirCasesExpect) {
  PAGE_SCRIPT_OR_SKIP(r, "page_worklist_rules.mjs");
  EXPECT_PAGE_PASSED(r);
}

}  // namespace
}  // namespace medreact::server
