// The approval routes as a reviewer's page reads them (`medreact serve` on
// loopback, a real store, the scripted model): GET /v1/approvals lists every
// waiting call over the paused runs, each with the tool's parameter schema,
// the run's app, its subject (the patient its record names, or why there is
// none) and its approval rules; a decision's answer says who decided what
// and when; a decision stored but not yet applied (one of two calls) is
// listed as decided with its reviewer; an edit goes on with the reviewer's
// arguments; a second decision is 409 and the first stays.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "testing/build_paths.h"
#include "testing/scripted_server.h"
#include "testing/serve_fixture.h"

namespace medreact::server {
namespace {

using ::testing::HasSubstr;
using testing::ServeFixture;

const std::string kCase = MEDREACT_SOURCE_DIR + "/examples/worklist/01-pe-on-warfarin";

Json Body(const httplib::Result& r) { return ServeFixture::JsonOf(r); }

Json Call(const std::string& id, const std::string& expression) {
  return {{"id", id}, {"name", "calculator"}, {"arguments", Json{{"expression", expression}}}};
}

// Every conversation: turn 0 calls the calculator (two calls when
// `two_calls`), turn 1 answers.
Json Script(bool two_calls) {
  Json calls = two_calls ? Json::array({Call("c1", "2+2"), Call("c2", "3+3")}) : Json::array({Call("c1", "2+2")});
  return {{"select", "by_turn"},
          {"responses", Json::array({Json{{"message", {{"content", nullptr}, {"tool_calls", calls}}}},
                                     Json{{"message", {{"content", "Done."}}}}})}};
}

std::string StartChat(ServeFixture& srv, Json inputs) {
  inputs["require_approval"] = {"all"};
  inputs["packs"] = {"util"};
  auto r = srv.Post("/v1/runs", DumpJson(Json{{"app", "chat"}, {"inputs", inputs}}));
  EXPECT_TRUE(r);
  EXPECT_EQ(r->status, 201) << r->body;
  return StringOr(Body(r)["run"], "id");
}

// Polls the run until its status is `want` (or 20 s pass); the last status.
std::string WaitFor(ServeFixture& srv, const std::string& id, const std::string& want) {
  std::string status;
  for (int i = 0; i < 400; ++i) {
    status = StringOr(Body(srv.Get("/v1/runs/" + id))["run"], "status");
    if (status == want) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return status;
}

const Json* RunIn(const Json& all, const std::string& id) {
  for (const Json& r : all["runs"]) {
    if (StringOr(r, "run_id") == id) return &r;
  }
  return nullptr;
}

TEST(ServerApprovalsTest, TheWaitingCallsComeWithTheToolsSchemaTheAppTheSubjectAndTheRules) {
  testing::ScriptedServer model(Script(false));
  ServeFixture srv({.input_roots = {MEDREACT_SOURCE_DIR + "/examples"},
                    .model = {.url = model.url(), .name = "mock", .max_retries = 0}});
  const std::string with_record = StartChat(srv, {{"message", "What is 2+2 for this patient?"},
                                                  {"fhir", kCase + "/fhir.json"}});
  const std::string without = StartChat(srv, {{"message", "What is 2+2?"}});
  ASSERT_EQ(WaitFor(srv, with_record, "awaiting_approval"), "awaiting_approval");
  ASSERT_EQ(WaitFor(srv, without, "awaiting_approval"), "awaiting_approval");

  auto r = srv.Get("/v1/approvals");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  Json all = Body(r);
  EXPECT_EQ(all["waiting_calls"], 2) << all.dump();
  EXPECT_EQ(all["truncated"], false);
  const Json* a = RunIn(all, with_record);
  const Json* b = RunIn(all, without);
  ASSERT_TRUE(a && b) << all.dump();
  EXPECT_EQ((*a)["app"], "chat");
  EXPECT_EQ((*a)["status"], "awaiting_approval");
  EXPECT_EQ((*a)["rules"], Json({"all"}));
  ASSERT_EQ((*a)["waiting"].size(), 1u);
  const Json& call = (*a)["waiting"][0];
  EXPECT_EQ(call["call_id"], "c1");
  EXPECT_EQ(call["tool"], "calculator");
  EXPECT_EQ(call["arguments"], Json({{"expression", "2+2"}}));
  EXPECT_TRUE(call["step"].is_number_integer()) << call.dump();
  // The calculator's own schema, as the registry has it.
  EXPECT_EQ(call["parameters"]["required"], Json({"expression"}));
  EXPECT_EQ(call["parameters"]["additionalProperties"], false);
  EXPECT_EQ(call["parameters"]["properties"]["expression"]["type"], "string");
  // The subject: the record's patient; the other run has none and says so.
  const Json& patient = (*a)["subject"]["patient"];
  EXPECT_EQ(patient["name"], "Ines Fictitious-Example");
  EXPECT_EQ(patient["birth_date"], "1956-03-14");
  EXPECT_EQ(patient["gender"], "female");
  EXPECT_EQ(patient["identifier"], "DEMO-0001");
  EXPECT_EQ((*a)["subject"]["text"], "Ines Fictitious-Example, female, born 1956-03-14 (identifier DEMO-0001)");
  EXPECT_TRUE((*b)["subject"]["patient"].is_null());
  EXPECT_EQ((*b)["subject"]["text"], "No patient record given to this run; its question: \"What is 2+2?\".");
  EXPECT_EQ((*b)["decided"], Json::array());

  // The one-run route gives the same entry.
  Json one = Body(srv.Get("/v1/runs/" + with_record + "/approvals"));
  EXPECT_EQ(one["waiting"], (*a)["waiting"]);
  EXPECT_EQ(one["subject"], (*a)["subject"]);

  // A decided run leaves the list; its decision is listed with who and when.
  auto ok = srv.Post("/v1/runs/" + without + "/approvals/c1", R"({"decision":"approve","reviewer":"dr.a"})");
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->status, 200) << ok->body;
  Json answer = Body(ok);
  ASSERT_EQ(answer["decisions"].size(), 1u) << answer.dump();
  EXPECT_EQ(answer["decisions"][0]["call_id"], "c1");
  EXPECT_EQ(answer["decisions"][0]["decision"], "approved");
  EXPECT_EQ(answer["decisions"][0]["reviewer"], "dr.a");
  const std::string at = StringOr(answer["decisions"][0], "decided_at");
  EXPECT_FALSE(at.empty());
  EXPECT_EQ(answer["continuing"], true);
  Json after = Body(srv.Get("/v1/approvals"));
  EXPECT_EQ(RunIn(after, without), nullptr) << after.dump();
  EXPECT_NE(RunIn(after, with_record), nullptr);
  ASSERT_EQ(WaitFor(srv, without, "finished"), "finished");
  Json decided = Body(srv.Get("/v1/runs/" + without + "/approvals"))["decided"];
  ASSERT_EQ(decided.size(), 1u) << decided.dump();
  EXPECT_EQ(decided[0]["reviewer"], "dr.a");
  EXPECT_EQ(decided[0]["decided_at"], at);
  EXPECT_EQ(decided[0]["tool"], "calculator");
}

TEST(ServerApprovalsTest, ADecisionStoredButNotAppliedIsListedAsDecidedAndAnEditGoesOnWithTheReviewersArguments) {
  testing::ScriptedServer model(Script(true));
  ServeFixture srv({.model = {.url = model.url(), .name = "mock", .max_retries = 0}});
  const std::string id = StartChat(srv, {{"message", "Two sums."}});
  ASSERT_EQ(WaitFor(srv, id, "awaiting_approval"), "awaiting_approval");
  const std::string route = "/v1/runs/" + id + "/approvals/";
  auto first = srv.Post(route + "c1", R"({"decision":"reject","reason":"not needed","reviewer":"dr.b"})");
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  EXPECT_EQ(Body(first)["continuing"], false);
  EXPECT_EQ(Body(first)["decisions"][0]["decision"], "rejected");
  EXPECT_EQ(Body(first)["decisions"][0]["reason"], "not needed");

  // One call decided, one waiting: the run stays paused and lists both.
  Json one = Body(srv.Get("/v1/runs/" + id + "/approvals"));
  ASSERT_EQ(one["waiting"].size(), 1u) << one.dump();
  EXPECT_EQ(one["waiting"][0]["call_id"], "c2");
  ASSERT_EQ(one["decided"].size(), 1u) << one.dump();
  EXPECT_EQ(one["decided"][0]["call_id"], "c1");
  EXPECT_EQ(one["decided"][0]["tool"], "calculator");
  EXPECT_EQ(one["decided"][0]["decision"], "rejected");
  EXPECT_EQ(one["decided"][0]["reviewer"], "dr.b");
  EXPECT_EQ(one["decided"][0]["reason"], "not needed");

  // The stored decision is an event at once (the run does not go on yet):
  // a live follower sees who decided, before any other call is decided.
  std::vector<testing::SseEvent> seen = srv.ReadEvents("/v1/runs/" + id + "/events", {}, [](const auto& g) {
    return std::any_of(g.begin(), g.end(), [](const testing::SseEvent& e) {
      return e.event == "approval" && e.data.find("\"rejected\"") != std::string::npos;
    });
  }, 10);
  auto recorded = std::find_if(seen.begin(), seen.end(), [](const testing::SseEvent& e) {
    return e.event == "approval" && e.data.find("\"rejected\"") != std::string::npos;
  });
  ASSERT_NE(recorded, seen.end());
  Json event = ParseJson(recorded->data).value();
  EXPECT_EQ(event["tool_call_id"], "c1");
  EXPECT_EQ(event["tool_name"], "calculator");
  EXPECT_EQ(event["data"]["reviewer"], "dr.b");
  EXPECT_EQ(event["data"]["reason"], "not needed");
  EXPECT_EQ(event["data"]["recorded"], true);
  EXPECT_EQ(event["data"]["decided_at"], Body(first)["decisions"][0]["decided_at"]);

  // A second decision on c1 is refused, naming the first.
  auto again = srv.Post(route + "c1", R"({"decision":"approve","reviewer":"dr.c"})");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 409) << again->body;
  EXPECT_THAT(again->body, HasSubstr("dr.b"));

  // The edit is checked against the schema, then stored and applied.
  auto bad = srv.Post(route + "c2", R"({"decision":"edit","reviewer":"dr.b","arguments":{"expression":""}})");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400) << bad->body;
  EXPECT_EQ(StringOr(Body(bad)["error"], "field"), "arguments");
  auto edit = srv.Post(route + "c2", R"({"decision":"edit","reviewer":"dr.b","arguments":{"expression":"6*7"}})");
  ASSERT_TRUE(edit);
  ASSERT_EQ(edit->status, 200) << edit->body;
  EXPECT_EQ(Body(edit)["decisions"][0]["decision"], "edited");
  EXPECT_EQ(Body(edit)["decisions"][0]["arguments"], Json({{"expression", "6*7"}}));
  EXPECT_EQ(Body(edit)["continuing"], true);
  std::vector<testing::SseEvent> events = srv.ReadEvents("/v1/runs/" + id + "/events", {}, [](const auto& g) {
    return !g.empty() && g.back().event == "end";
  });
  bool edit_recorded = false;
  for (const testing::SseEvent& e : events) {
    if (e.event != "approval") continue;
    Json j = ParseJson(e.data).value();
    if (j["tool_call_id"] == "c2" && j["data"]["recorded"] == true) {
      edit_recorded = true;
      EXPECT_EQ(j["data"]["decision"], "edited");
      EXPECT_EQ(j["data"]["arguments"], Json({{"expression", "6*7"}}));
    }
  }
  EXPECT_TRUE(edit_recorded);
  ASSERT_EQ(WaitFor(srv, id, "finished"), "finished");
  // The model's next turn got the edited call's result.
  std::vector<Json> chats;
  for (const Json& req : model.server->requests()) {
    if (StringOr(req, "path") == "/v1/chat/completions") chats.push_back(req);
  }
  ASSERT_EQ(chats.size(), 2u);
  const std::string second = DumpJson(chats[1]["body"]["messages"]);
  EXPECT_THAT(second, HasSubstr("6*7"));
  EXPECT_THAT(second, HasSubstr("42"));
  Json decided = Body(srv.Get("/v1/runs/" + id + "/approvals"))["decided"];
  ASSERT_EQ(decided.size(), 2u) << decided.dump();
  EXPECT_EQ(decided[1]["call_id"], "c2");
  EXPECT_EQ(decided[1]["decision"], "edited");
  EXPECT_EQ(decided[1]["reviewer"], "dr.b");
}

TEST(ServerApprovalsTest, TheListIsEmptyWithoutPausedRunsAndNeedsTheToken) {
  ServeFixture srv({.token = "approvals-token-0123456789"});
  Json empty = Body(srv.Get("/v1/approvals"));
  EXPECT_EQ(empty["runs"], Json::array());
  EXPECT_EQ(empty["waiting_calls"], 0);
  httplib::Client plain("127.0.0.1", srv.port());
  auto refused = plain.Get("/v1/approvals");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
}

}  // namespace
}  // namespace medreact::server
