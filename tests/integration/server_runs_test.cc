// Runs through `medreact serve` (POST /v1/runs, approvals, cancel) on
// loopback, over a real store and the scripted model and imaging server:
// a triage from a file under an input root and from an upload, every bad
// body refused with its field and nothing stored, a chat paused for
// approval decided once (the second decision 409, who and when kept) and
// finished, an edit refused by the tool's schema, and a cancel while a
// tool hangs that stops the run within 2 s with nothing after it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "mockllm/mock_server.h"
#include "testing/build_paths.h"
#include "testing/scripted_server.h"
#include "testing/serve_fixture.h"

namespace medreact::server {
namespace {

using ::testing::HasSubstr;
using testing::ServeFixture;
using testing::SseEvent;

const std::string kCase = MEDREACT_SOURCE_DIR + "/examples/worklist/01-pe-on-warfarin";

Json Body(const httplib::Result& r) { return ServeFixture::JsonOf(r); }

void ExpectError(const httplib::Result& r, int status, const std::string& code, const std::string& field = "") {
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, status) << r->body;
  Json j = Body(r);
  ASSERT_TRUE(j.is_object() && j.contains("error")) << r->body;
  EXPECT_EQ(StringOr(j["error"], "code"), code) << r->body;
  if (!field.empty()) {
    EXPECT_EQ(StringOr(j["error"], "field"), field) << r->body;
  }
}

std::string Findings() { return testing::ReadFileOrEmpty(kCase + "/findings.txt"); }

// Polls the run until its status is not `from` (or 20 s pass).
Json WaitWhile(ServeFixture& srv, const std::string& id, const std::string& from) {
  Json run;
  for (int i = 0; i < 400; ++i) {
    run = Body(srv.Get("/v1/runs/" + id));
    if (StringOr(run["run"], "status") != from) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return run;
}

TEST(ServerRunsTest, ATriageStartsFromAFileUnderAnInputRootAndFromAnUpload) {
  ServeFixture srv({.input_roots = {MEDREACT_SOURCE_DIR + "/examples"}});
  auto r = srv.Post("/v1/runs", DumpJson(Json{{"app", "triage"},
                                               {"inputs", {{"fhir", kCase + "/fhir.json"}, {"findings", Findings()}}}}));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  const std::string id = StringOr(Body(r)["run"], "id");
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(r->get_header_value("location"), "/v1/runs/" + id);
  Json done = WaitWhile(srv, id, "running");
  EXPECT_EQ(done["run"]["status"], "finished");
  EXPECT_EQ(done["run"]["app"], "triage");
  // Its stream replays every stored event and ends with the run.
  std::vector<SseEvent> events = srv.ReadEvents("/v1/runs/" + id + "/events", {}, [](const auto& g) {
    return !g.empty() && g.back().event == "end";
  });
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.front().event, "run_started");
  EXPECT_EQ(events.back().event, "end");

  // The same record uploaded (multipart): the same answer, from the upload folder.
  httplib::Client c("127.0.0.1", srv.port());
  httplib::MultipartFormDataItems form = {
      {"app", "triage", "", ""},
      {"inputs", DumpJson(Json{{"fhir", "upload:record"}, {"findings", Findings()}}), "", "application/json"},
      {"record", testing::ReadFileOrEmpty(kCase + "/fhir.json"), "../../etc/fhir.json", "application/fhir+json"}};
  auto up = c.Post("/v1/runs", form);
  ASSERT_TRUE(up);
  ASSERT_EQ(up->status, 201) << up->body;
  const std::string id2 = StringOr(Body(up)["run"], "id");
  Json second = WaitWhile(srv, id2, "running");
  EXPECT_EQ(second["run"]["status"], "finished");
  const std::string kept = StringOr(second["run"]["inputs"], "fhir");
  EXPECT_EQ(kept.rfind(srv.store_path() + ".uploads/", 0), 0u) << kept;  // the name made safe, inside the folder
  EXPECT_THAT(kept, HasSubstr("fhir.json"));
  EXPECT_EQ(kept.find(".."), std::string::npos);
  // The triage's contract is the run's final fields: PE on warfarin is P1.
  EXPECT_EQ(done["run"]["result"]["final_fields"]["priority_level"], 1) << done.dump();
  EXPECT_EQ(second["run"]["result"]["final_fields"]["priority_level"], 1) << second.dump();
}

TEST(ServerRunsTest, BadBodiesAreRefusedWithTheirFieldAndNothingIsStored) {
  testing::TempDir outside;
  outside.Write("fhir.json", testing::ReadFileOrEmpty(kCase + "/fhir.json"));
  testing::TempDir root;
  std::filesystem::create_symlink(outside.File("fhir.json"), root.File("link.json"));
  ServeFixture srv({.input_roots = {root.path()}, .max_body_bytes = 64 * 1024});
  auto post = [&](const std::string& body, const std::string& type = "application/json") {
    return srv.Post("/v1/runs", body, type);
  };
  ExpectError(post("{not json"), 400, "bad_request", "body");
  ExpectError(post("[1,2]"), 400, "bad_request", "body");
  ExpectError(post(R"({"app":"triage","inputs":{}})", "text/plain"), 400, "bad_request", "content-type");
  ExpectError(post(R"({"app":7})"), 400, "bad_request", "app");
  ExpectError(post(R"({"app":"nope","inputs":{}})"), 400, "bad_request", "app");
  ExpectError(post(R"({"app":"triage","inputs":{},"extra":1})"), 400, "bad_request", "extra");
  ExpectError(post(DumpJson(Json{{"app", "triage"}, {"inputs", {{"fhir", root.File("link.json")}, {"findings", 5}}}})),
              400, "bad_request", "inputs.findings");
  ExpectError(post(DumpJson(Json{{"app", "triage"}, {"inputs", {{"fhir", "/etc/passwd"}, {"findings", "PE"}}}})), 400,
              "bad_request", "inputs.fhir");
  // A link inside the root that points out of it is outside.
  ExpectError(post(DumpJson(Json{{"app", "triage"},
                                 {"inputs", {{"fhir", root.File("link.json")}, {"findings", "PE"}}}})),
              400, "bad_request", "inputs.fhir");
  ExpectError(post(DumpJson(Json{{"app", "triage"},
                                 {"inputs", {{"fhir", root.path() + "/../x/fhir.json"}, {"findings", "PE"}}}})),
              400, "bad_request", "inputs.fhir");
  ExpectError(post(DumpJson(Json{{"app", "triage"}, {"inputs", {{"fhir", "upload:rec"}, {"findings", "PE"}}}})), 400,
              "bad_request", "inputs.fhir");
  // An upload over the body limit: 413 before anything is read.
  httplib::Client c("127.0.0.1", srv.port());
  auto big = c.Post("/v1/runs", httplib::MultipartFormDataItems{{"app", "triage", "", ""},
                                                                  {"rec", std::string(200 * 1024, 'x'), "f.json", ""}});
  ExpectError(big, 413, "too_large");
  EXPECT_EQ(Body(srv.Get("/v1/runs"))["runs"].size(), 0u);
}

Json CalcCall(const std::string& id, const std::string& expression) {
  return {{"message", {{"content", nullptr},
                       {"tool_calls", Json::array({{{"id", id}, {"name", "calculator"},
                                                    {"arguments", Json{{"expression", expression}}}}})}}}};
}

TEST(ServerRunsTest, AChatPausedForApprovalIsDecidedOnceAndFinishes) {
  testing::ScriptedServer model(
      Json{{"responses", Json::array({CalcCall("c1", "2+2"), Json{{"message", {{"content", "It is 4."}}}}})}});
  ServeFixture srv({.model = {.url = model.url(), .name = "mock", .max_retries = 0}});
  auto r = srv.Post("/v1/runs", DumpJson(Json{{"app", "chat"},
                                               {"inputs", {{"message", "What is 2+2?"},
                                                           {"packs", {"util"}},
                                                           {"require_approval", {"all"}}}}}));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  const std::string id = StringOr(Body(r)["run"], "id");
  Json paused = WaitWhile(srv, id, "running");
  ASSERT_EQ(paused["run"]["status"], "awaiting_approval") << paused.dump();
  Json approvals = Body(srv.Get("/v1/runs/" + id + "/approvals"));
  ASSERT_EQ(approvals["waiting"].size(), 1u) << approvals.dump();
  EXPECT_EQ(approvals["waiting"][0]["call_id"], "c1");
  EXPECT_EQ(approvals["waiting"][0]["tool"], "calculator");
  EXPECT_EQ(approvals["waiting"][0]["arguments"]["expression"], "2+2");

  const std::string route = "/v1/runs/" + id + "/approvals/c1";
  ExpectError(srv.Post(route, R"({"decision":"approve"})"), 400, "bad_request", "reviewer");
  ExpectError(srv.Post(route, R"({"decision":"maybe","reviewer":"dr.a"})"), 400, "bad_request", "decision");
  ExpectError(srv.Post(route, R"({"decision":"reject","reviewer":"dr.a"})"), 400, "bad_request", "reason");
  ExpectError(srv.Post(route, R"({"decision":"edit","reviewer":"dr.a","arguments":{"expr":"1"}})"), 400,
              "bad_request", "arguments");  // the tool's schema refuses it
  ExpectError(srv.Post("/v1/runs/" + id + "/approvals/c9", R"({"decision":"approve","reviewer":"dr.a"})"), 400,
              "bad_request");
  auto ok = srv.Post(route, R"({"decision":"approve","reviewer":"dr.a"})");
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->status, 200) << ok->body;
  EXPECT_EQ(Body(ok)["continuing"], true);
  auto again = srv.Post(route, R"({"decision":"reject","reason":"no","reviewer":"dr.b"})");
  ExpectError(again, 409, "conflict");
  EXPECT_THAT(again->body, HasSubstr("dr.a"));
  Json done = WaitWhile(srv, id, "running");
  for (int i = 0; i < 100 && StringOr(done["run"], "status") == "awaiting_approval"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    done = WaitWhile(srv, id, "running");
  }
  EXPECT_EQ(done["run"]["status"], "finished") << done.dump();
  Json decided = Body(srv.Get("/v1/runs/" + id + "/approvals"));
  ASSERT_EQ(decided["decided"].size(), 1u) << decided.dump();
  EXPECT_EQ(decided["decided"][0]["reviewer"], "dr.a");
  EXPECT_EQ(decided["decided"][0]["decision"], "approved");
  EXPECT_FALSE(StringOr(decided["decided"][0], "decided_at").empty());
}

TEST(ServerRunsTest, ACancelWhileAToolHangsStopsTheRunWithinTwoSecondsAndNothingRunsAfter) {
  Json script{{"select", "by_turn"},
              {"responses", Json::array({Json{{"message",
                                               {{"content", nullptr},
                                                {"tool_calls", Json::array({{{"id", "cls1"},
                                                                             {"name", "chest_xray_classifier"},
                                                                             {"arguments", {{"image_id", "img1"}}}}})}}}},
                                         Json{{"message", {{"content", "never reached"}}}}})},
              {"routes", {{"/classify", {{"responses", Json::array({Json{{"hang_ms", 30000}, {"status", 200},
                                                                           {"json", Json::object()}}})}}}}}};
  Result<mockllm::MockScript> parsed = mockllm::MockLlmServer::ParseScript(script);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  mockllm::MockLlmServer mock(*parsed);
  ASSERT_TRUE(mock.Start().ok());
  const std::string root = "http://127.0.0.1:" + std::to_string(mock.port());
  ServeFixture srv({.input_roots = {MEDREACT_SOURCE_DIR + "/tests/fixtures/dicom"},
                    .model = {.url = mock.base_url(), .name = "mock", .max_retries = 0},
                    .classifier_url = root + "/classify"});
  auto r = srv.Post("/v1/runs", DumpJson(Json{{"app", "cxr"},
                                               {"inputs", {{"question", "Is the heart enlarged?"},
                                                           {"planner", "model"},
                                                           {"images", {MEDREACT_SOURCE_DIR +
                                                                       "/tests/fixtures/dicom/CR-MONO1-10-chest.dcm"}}}}}));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  const std::string id = StringOr(Body(r)["run"], "id");
  // Wait until the classifier call is under way (its start is stored at
  // once, not with the next checkpoint: the stream shows a tool that runs).
  const auto posted = std::chrono::steady_clock::now();
  std::vector<SseEvent> seen = srv.ReadEvents("/v1/runs/" + id + "/events", {}, [](const auto& g) {
    return std::any_of(g.begin(), g.end(), [](const SseEvent& e) { return e.event == "tool_started"; });
  });
  ASSERT_TRUE(std::any_of(seen.begin(), seen.end(), [](const SseEvent& e) { return e.event == "tool_started"; }));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - posted).count(), 10.0);
  const size_t model_calls = mock.requests().size();
  const auto asked = std::chrono::steady_clock::now();
  auto cancel = srv.Post("/v1/runs/" + id + "/cancel", "");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 202) << cancel->body;
  Json ended = WaitWhile(srv, id, "running");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
  EXPECT_EQ(ended["run"]["status"], "interrupted") << ended.dump();
  EXPECT_LT(took, 2.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // Nothing after the cancel: no model call, no further tool.
  size_t chat_after = 0;
  const auto requests = mock.requests();
  for (size_t i = model_calls; i < requests.size(); ++i) {
    if (StringOr(requests[i], "path") == "/v1/chat/completions") ++chat_after;
  }
  EXPECT_EQ(chat_after, 0u);
  ExpectError(srv.Post("/v1/runs/" + id + "/cancel", ""), 409, "conflict");
  mock.Stop();
}

}  // namespace
}  // namespace medreact::server

namespace medreact::server {
namespace {

TEST(ServerWorklistsTest, AFolderUnderARootAndUploadedCasesAreTriagedAndSortedByPriority) {
  ServeFixture srv({.input_roots = {MEDREACT_SOURCE_DIR + "/examples"}});
  auto r = srv.Post("/v1/worklists", DumpJson(Json{{"dir", MEDREACT_SOURCE_DIR + "/examples/worklist"},
                                                    {"concurrency", 2}}));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  const std::string id = StringOr(Body(r)["worklist"], "id");
  ASSERT_EQ(r->get_header_value("location"), "/v1/worklists/" + id);
  Json w;
  for (int i = 0; i < 400; ++i) {
    w = Body(srv.Get("/v1/worklists/" + id))["worklist"];
    if (StringOr(w, "status") != "running") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(w["status"], "finished") << w.dump();
  EXPECT_EQ(w["cases_total"], 14);
  ASSERT_EQ(w["cases"].size(), 14u) << w.dump();
  int64_t last = 0;
  for (const Json& c : w["cases"]) {
    const int64_t p = IntegerOr(c, "priority_level", 99);
    EXPECT_GE(p, last) << w.dump();  // priority 1 first
    last = p;
    EXPECT_FALSE(StringOr(c, "run_id").empty()) << c.dump();  // every case a stored run
  }
  EXPECT_EQ(w["cases"][0]["priority_level"], 1);

  // Uploaded cases: one case, two files.
  httplib::Client c("127.0.0.1", srv.port());
  const std::string dir = MEDREACT_SOURCE_DIR + "/examples/worklist/02-stroke-on-aspirin";
  auto up = c.Post("/v1/worklists", httplib::MultipartFormDataItems{
                                        {"p1/fhir.json", testing::ReadFileOrEmpty(dir + "/fhir.json"), "fhir.json", ""},
                                        {"p1/findings.txt", testing::ReadFileOrEmpty(dir + "/findings.txt"),
                                         "findings.txt", ""}});
  ASSERT_TRUE(up);
  ASSERT_EQ(up->status, 201) << up->body;
  const std::string id2 = StringOr(Body(up)["worklist"], "id");
  for (int i = 0; i < 400; ++i) {
    w = Body(srv.Get("/v1/worklists/" + id2))["worklist"];
    if (StringOr(w, "status") != "running") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(w["cases"].size(), 1u) << w.dump();
  EXPECT_EQ(w["cases"][0]["case"], "p1");
  // Bad ones.
  ExpectError(srv.Post("/v1/worklists", DumpJson(Json{{"dir", "/etc"}})), 400, "bad_request", "dir");
  ExpectError(srv.Post("/v1/worklists", DumpJson(Json{{"dir", MEDREACT_SOURCE_DIR + "/examples"}, {"x", 1}})), 400,
              "bad_request", "x");
  auto bad = c.Post("/v1/worklists", httplib::MultipartFormDataItems{{"../p1/fhir.json", "{}", "f", ""}});
  ExpectError(bad, 400, "bad_request", "../p1/fhir.json");
  ExpectError(srv.Get("/v1/worklists/wl_nope"), 404, "not_found");
}

TEST(ServerWorklistsTest, ACancelStopsAWorklistAndTheRestIsNotTriaged) {
  // A model that takes 2 s per answer: the first case is under way when the cancel comes.
  testing::ScriptedServer model(Json{{"on_exhausted", "repeat_last"},
                                     {"responses", Json::array({Json{{"delay_ms", 2000},
                                                                     {"message", {{"content", "thinking"}}}}})}});
  ServeFixture srv({.input_roots = {MEDREACT_SOURCE_DIR + "/examples"},
                    .model = {.url = model.url(), .name = "mock", .max_retries = 0}});
  auto r = srv.Post("/v1/worklists", DumpJson(Json{{"dir", MEDREACT_SOURCE_DIR + "/examples/worklist"},
                                                    {"concurrency", 1}}));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  const std::string id = StringOr(Body(r)["worklist"], "id");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto cancel = srv.Post("/v1/worklists/" + id + "/cancel", "");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 202) << cancel->body;
  Json w;
  for (int i = 0; i < 200; ++i) {
    w = Body(srv.Get("/v1/worklists/" + id))["worklist"];
    if (StringOr(w, "status") != "running") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(w["status"], "interrupted") << w.dump();
  EXPECT_LT(IntegerOr(w, "cases_done", 99), 14) << w.dump();
  ExpectError(srv.Post("/v1/worklists/" + id + "/cancel", ""), 409, "conflict");
  ExpectError(srv.Post("/v1/worklists/wl_0000000000000000/cancel", ""), 404, "not_found");
}

TEST(ServerStopTest, RunsCutByAStopAreGoneOnWithAtTheNextStart) {
  // A chat whose second model turn waits long: the stop cuts it mid-run.
  Json script{{"select", "by_turn"},
              {"responses", Json::array({CalcCall("c1", "2+2"),
                                         Json{{"delay_ms", 3000}, {"message", {{"content", "It is 4."}}}}})}};
  testing::ScriptedServer model(script);
  testing::TempDir dir;
  Result<std::unique_ptr<RunStore>> opened = RunStore::Open(dir.File("runs.sqlite"));
  ASSERT_TRUE(opened.ok());
  std::shared_ptr<RunStore> store(std::move(*opened));
  std::string id;
  {
    ServeFixture srv({.model = {.url = model.url(), .name = "mock", .max_retries = 0}}, store);
    auto r = srv.Post("/v1/runs", DumpJson(Json{{"app", "chat"},
                                                 {"inputs", {{"message", "What is 2+2?"}, {"packs", {"util"}}}}}));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 201) << r->body;
    id = StringOr(Body(r)["run"], "id");
    srv.ReadEvents("/v1/runs/" + id + "/events", {}, [](const auto& g) {
      return std::count_if(g.begin(), g.end(), [](const SseEvent& e) { return e.event == "model_request"; }) >= 2;
    });
  }  // the server stops: the run ends interrupted
  EXPECT_EQ(store->Get(id).value().status, "interrupted");
  ServeFixture again({.model = {.url = model.url(), .name = "mock", .max_retries = 0}}, store);
  EXPECT_EQ(again.server().taken_over(), std::vector<std::string>{id});
  Json done;
  for (int i = 0; i < 400; ++i) {
    done = Body(again.Get("/v1/runs/" + id));
    if (StringOr(done["run"], "status") == "finished") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(done["run"]["status"], "finished") << done.dump();
  EXPECT_THAT(DumpJson(done["run"]["result"]), HasSubstr("It is 4."));
  // A run a person cancelled is not taken over, but may be resumed.
  ExpectError(again.Post("/v1/runs/" + id + "/resume", ""), 409, "conflict");  // finished
}

}  // namespace
}  // namespace medreact::server
