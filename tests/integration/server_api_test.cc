// `medreact serve`'s routes on loopback (src/server/api.h) over a real run
// store: the token (missing, wrong, right; /healthz open), CORS (an allowed
// origin, its preflight, any other origin refused), the Host check of a
// loopback server without a token, the one error shape, runs listed with
// filters and pages, a run shown, its events replayed from Last-Event-ID and
// ended, the many-runs stream with its store-wide ids, artifacts with their
// content type, the rate limit, and /metrics.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/server.h"
#include "service/run_images.h"
#include "store/run_recorder.h"
#include "testing/serve_fixture.h"

namespace medreact::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ServeFixture;
using testing::SseEvent;

const std::string kToken = "s3cret-token-0123456789";

using testing::StateAt;

RunEvent Ev(int step) { return ToRunEvent({.type = EventType::kStepFinished, .step = step, .elapsed_ms = 2}); }

// A run stored with `n` events, ended with `status` ("" = still running).
void StoredRun(RunStore& store, const std::string& id, const std::string& app, int n, const std::string& status) {
  RunState first = StateAt(id, 0);
  ASSERT_TRUE(store.CreateRun({.id = id, .app = app, .inputs = Json{{"message", "hello"}}}, &first).ok());
  std::vector<RunEvent> events;
  for (int i = 1; i <= n; ++i) events.push_back(Ev(i));
  if (status.empty()) {
    ASSERT_TRUE(store.SaveCheckpoint(id, StateAt(id, 1), events).ok());
  } else {
    ASSERT_TRUE(store.FinishRun(id, status, Json{{"answer", "done"}}, {}, events).ok());
  }
}

std::vector<std::string> Ids(const std::vector<SseEvent>& events) {
  std::vector<std::string> out;
  for (const SseEvent& e : events) {
    if (!e.id.empty()) out.push_back(e.id);
  }
  return out;
}

void ExpectError(const httplib::Result& r, int status, const std::string& code, const std::string& field = "") {
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, status) << r->body;
  Json j = ServeFixture::JsonOf(r);
  ASSERT_TRUE(j.is_object() && j.contains("error")) << r->body;
  EXPECT_EQ(StringOr(j["error"], "code"), code) << r->body;
  EXPECT_FALSE(StringOr(j["error"], "message").empty());
  if (!field.empty()) {
    EXPECT_EQ(StringOr(j["error"], "field"), field) << r->body;
  }
}

TEST(ServerApiTest, EveryRouteButTheProbesNeedsTheToken) {
  ServeFixture srv({.token = kToken});
  httplib::Client c("127.0.0.1", srv.port());
  auto health = c.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  auto ready = c.Get("/readyz");  // probes carry no token either
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  for (const char* path : {"/v1/runs", "/metrics", "/v1/apps", "/v1/runs/x/events"}) {
    auto none = c.Get(path);
    ExpectError(none, 401, "unauthorized");
    EXPECT_EQ(none->get_header_value("www-authenticate"), "Bearer");
    auto wrong = c.Get(path, {{"Authorization", "Bearer " + kToken + "x"}});
    ExpectError(wrong, 401, "unauthorized");
    auto shorter = c.Get(path, {{"Authorization", "Bearer s3cret"}});
    ExpectError(shorter, 401, "unauthorized");
  }
  auto ok = srv.Get("/v1/runs");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  ExpectError(c.Post("/v1/runs", "{}", "application/json"), 401, "unauthorized");
}

TEST(ServerApiTest, NoTokenOffLoopbackIsRefusedBeforeBinding) {
  ServeOptions o{.host = "0.0.0.0", .port = 0};
  Status s = CheckServeOptions(o);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("not loopback: a token is required"));
  o.token = "short";
  EXPECT_THAT(CheckServeOptions(o).message(), HasSubstr("at least 16 characters"));
  o.token = kToken;
  EXPECT_TRUE(CheckServeOptions(o).ok());
  EXPECT_EQ(CheckServeOptions({.input_roots = {"relative/dir"}}).code(), StatusCode::kInvalidArgument);
}

TEST(ServerApiTest, CorsOnlyForConfiguredOriginsAndOthersAreRefused) {
  ServeFixture srv({.cors_origins = {"http://page.example:3000"}});
  auto allowed = srv.Get("/v1/runs", {{"Origin", "http://page.example:3000"}});
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->status, 200);
  EXPECT_EQ(allowed->get_header_value("access-control-allow-origin"), "http://page.example:3000");
  httplib::Client c("127.0.0.1", srv.port());
  auto pre = c.Options("/v1/runs", {{"Origin", "http://page.example:3000"},
                                    {"Access-Control-Request-Method", "POST"}});
  ASSERT_TRUE(pre);
  EXPECT_EQ(pre->status, 204);
  EXPECT_THAT(pre->get_header_value("access-control-allow-headers"), HasSubstr("authorization"));
  // An SDK's own headers are allowed for a configured origin; the run id is readable.
  auto sdk = c.Options("/v1/chat/completions", {{"Origin", "http://page.example:3000"},
                                                {"Access-Control-Request-Method", "POST"},
                                                {"Access-Control-Request-Headers", "authorization, x-stainless-os"}});
  ASSERT_TRUE(sdk);
  EXPECT_EQ(sdk->get_header_value("access-control-allow-headers"), "authorization, x-stainless-os");
  EXPECT_THAT(allowed->get_header_value("access-control-expose-headers"), HasSubstr("x-medreact-run-id"));
  // Another site's page may not start or read anything, even on loopback.
  ExpectError(srv.Post("/v1/runs", "{}", "text/plain", {{"Origin", "http://evil.example"}}), 403, "forbidden");
  ExpectError(srv.Get("/v1/runs", {{"Origin", "http://evil.example"}}), 403, "forbidden");
  // Its own origin (the page the server serves) is fine.
  auto same = srv.Get("/v1/runs", {{"Origin", "http://127.0.0.1:" + std::to_string(srv.port())}});
  ASSERT_TRUE(same);
  EXPECT_EQ(same->status, 200);
}

TEST(ServerApiTest, ALoopbackServerWithoutATokenAnswersOnlyToItsOwnNames) {
  ServeFixture srv;
  ExpectError(srv.Get("/v1/runs", {{"Host", "attacker.example:8080"}}), 403, "forbidden");
  auto own = srv.Get("/v1/runs", {{"Host", "localhost:" + std::to_string(srv.port())}});
  ASSERT_TRUE(own);
  EXPECT_EQ(own->status, 200);
}

TEST(ServerApiTest, UnknownRoutesMethodsAndRunsGetTheErrorShape) {
  ServeFixture srv;
  ExpectError(srv.Get("/v2/whatever"), 404, "not_found");
  ExpectError(srv.Post("/v1/runs/abc", "{}"), 405, "method_not_allowed");
  ExpectError(srv.Get("/v1/runs/run_missing"), 404, "not_found");
  ExpectError(srv.Get("/v1/runs/run_missing/events"), 404, "not_found");
  ExpectError(srv.Get("/v1/runs?limit=0"), 400, "bad_request", "limit");
  ExpectError(srv.Get("/v1/runs?limit=abc"), 400, "bad_request", "limit");
  ExpectError(srv.Get("/v1/runs?app=nope"), 400, "bad_request", "app");
  ExpectError(srv.Get("/v1/runs/x/events", {{"Last-Event-ID", "abc"}}), 400, "bad_request", "last-event-id");
  ExpectError(srv.Get("/v1/artifacts/not-a-hash"), 400, "bad_request");
  ExpectError(srv.Get("/v1/artifacts/" + std::string(64, 'a')), 404, "not_found");
}

TEST(ServerApiTest, RunsAreListedWithFiltersAndPagesAndShownWithTheirHolder) {
  ServeFixture srv;
  StoredRun(*srv.store(), "run_1", "chat", 2, "finished");
  StoredRun(*srv.store(), "run_2", "triage", 1, "finished");
  StoredRun(*srv.store(), "run_3", "chat", 3, "");
  auto all = srv.Get("/v1/runs?limit=2");
  Json page = ServeFixture::JsonOf(all);
  ASSERT_EQ(page["runs"].size(), 2u) << all->body;
  EXPECT_EQ(page["next_offset"], 2);
  EXPECT_FALSE(page["runs"][0].contains("inputs"));  // a list stays short
  Json rest = ServeFixture::JsonOf(srv.Get("/v1/runs?limit=2&offset=2"));
  ASSERT_EQ(rest["runs"].size(), 1u);
  EXPECT_TRUE(rest["next_offset"].is_null());
  Json chats = ServeFixture::JsonOf(srv.Get("/v1/runs?app=chat&status=finished"));
  ASSERT_EQ(chats["runs"].size(), 1u);
  EXPECT_EQ(chats["runs"][0]["id"], "run_1");

  Json shown = ServeFixture::JsonOf(srv.Get("/v1/runs/run_3"));
  EXPECT_EQ(shown["run"]["status"], "running");
  EXPECT_EQ(shown["run"]["inputs"]["message"], "hello");
  // Held by the store that created it (this process): who holds it is shown.
  EXPECT_THAT(StringOr(shown["run"]["lease"], "holder"), HasSubstr("process"));
  EXPECT_EQ(shown["run"]["executing_here"], false);
}

TEST(ServerApiTest, ARunsEventsReplayFromLastEventIdAndTheStreamEndsWithTheRun) {
  ServeFixture srv;
  StoredRun(*srv.store(), "run_e", "chat", 5, "");
  auto has = [](size_t n) { return [n](const std::vector<SseEvent>& got) { return got.size() >= n; }; };
  // From the start: 1..5 with their ids and types.
  std::vector<SseEvent> first = srv.ReadEvents("/v1/runs/run_e/events", {}, has(5), 5);
  EXPECT_THAT(Ids(first), ElementsAre("1", "2", "3", "4", "5"));
  EXPECT_EQ(first[0].event, "step_finished");
  Result<Json> data = ParseJson(first[2].data);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ((*data)["run_id"], "run_e");
  EXPECT_EQ((*data)["seq"], 3);
  // A reconnect after 3 (header, then query): exactly 4 and 5, then the new
  // ones as they are stored, then the end.
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_TRUE(srv.store()->SaveCheckpoint("run_e", StateAt("run_e", 2), {Ev(6)}).ok());
    ASSERT_TRUE(srv.store()->FinishRun("run_e", "finished", Json::object(), {}, {Ev(7)}).ok());
  });
  std::vector<SseEvent> again = srv.ReadEvents("/v1/runs/run_e/events", {{"Last-Event-ID", "3"}},
                                               [](const std::vector<SseEvent>& g) {
                                                 return !g.empty() && g.back().event == "end";
                                               });
  writer.join();
  EXPECT_THAT(Ids(again), ElementsAre("4", "5", "6", "7"));
  ASSERT_FALSE(again.empty());
  EXPECT_EQ(again.back().event, "end");
  EXPECT_THAT(again.back().data, HasSubstr("\"status\":\"finished\""));
  std::vector<SseEvent> since = srv.ReadEvents("/v1/runs/run_e/events?since=6", {}, has(2));
  EXPECT_THAT(Ids(since), ElementsAre("7"));
}

TEST(ServerApiTest, OneStreamFollowsManyRunsWithStoreWideIds) {
  ServeFixture srv;
  StoredRun(*srv.store(), "run_a", "triage", 2, "");
  StoredRun(*srv.store(), "run_b", "chat", 1, "");
  StoredRun(*srv.store(), "run_c", "triage", 1, "finished");
  auto has = [](size_t n) { return [n](const std::vector<SseEvent>& got) { return got.size() >= n; }; };
  std::vector<SseEvent> triage = srv.ReadEvents("/v1/events?app=triage", {}, has(3), 5);
  EXPECT_THAT(Ids(triage), ElementsAre("1", "2", "4"));
  std::vector<SseEvent> two = srv.ReadEvents("/v1/events?runs=run_b,run_c", {}, has(2), 5);
  EXPECT_THAT(Ids(two), ElementsAre("3", "4"));
  std::vector<SseEvent> after = srv.ReadEvents("/v1/events", {{"Last-Event-ID", "2"}}, has(2), 5);
  EXPECT_THAT(Ids(after), ElementsAre("3", "4"));
}

TEST(ServerApiTest, IdleStreamsGetHeartbeatCommentsAndARetry) {
  ServeFixture srv({.heartbeat_s = 0.2, .sse_retry_ms = 1500});
  StoredRun(*srv.store(), "run_h", "chat", 1, "");
  httplib::Client c("127.0.0.1", srv.port());
  c.set_read_timeout(5, 0);
  std::string text;
  c.Get("/v1/runs/run_h/events", [&](const char* data, size_t n) {
    text.append(data, n);
    return text.find(": keep-alive\n\n") == std::string::npos;
  });
  EXPECT_EQ(text.rfind("retry: 1500\n\n", 0), 0u) << text;
  EXPECT_THAT(text, HasSubstr("id: 1\n"));
  EXPECT_THAT(text, HasSubstr(": keep-alive\n\n"));
}

TEST(ServerApiTest, TheAppsListTheirInputsAsJsonSchemas) {
  ServeFixture srv;
  Json apps = ServeFixture::JsonOf(srv.Get("/v1/apps"))["apps"];
  ASSERT_TRUE(apps.is_array());
  bool triage = false;
  for (const Json& a : apps) {
    if (a["name"] != "triage") continue;
    triage = true;
    EXPECT_EQ(a["inputs"]["type"], "object");
    EXPECT_TRUE(a["inputs"]["properties"].contains("findings")) << a.dump();
  }
  EXPECT_TRUE(triage);
}

TEST(ServerApiTest, ArtifactsAreServedWithTheirContentType) {
  ServeFixture srv;
  service::RunImageFolder folder(service::RunImageFolder::ForStore(srv.store_path()));
  const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + "rest-of-a-png";
  Result<std::string> hash = folder.Put(png);
  ASSERT_TRUE(hash.ok());
  auto r = srv.Get("/v1/artifacts/" + *hash);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("content-type"), "image/png");
  EXPECT_EQ(r->body, png);
}

TEST(ServerApiTest, AClientOverItsRateGets429WithRetryAfter) {
  ServeFixture srv({.rate_per_second = 1, .rate_burst = 3});
  int ok = 0;
  for (int i = 0; i < 5; ++i) {
    auto r = srv.Get("/v1/runs");
    if (r && r->status == 200) ++ok;
  }
  EXPECT_EQ(ok, 3);
  auto last = srv.Get("/v1/runs");
  ExpectError(last, 429, "rate_limited");
  EXPECT_FALSE(last->get_header_value("retry-after").empty());
  auto health = srv.Get("/healthz");  // never limited
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

TEST(ServerApiTest, MetricsCountRunsByAppAndStatusAndRequestsByRoute) {
  ServeFixture srv;
  StoredRun(*srv.store(), "run_m1", "chat", 1, "finished");
  StoredRun(*srv.store(), "run_m2", "chat", 1, "finished");
  StoredRun(*srv.store(), "run_m3", "triage", 1, "error");
  srv.Get("/v1/runs");
  auto m = srv.Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->get_header_value("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_THAT(m->body, HasSubstr("medreact_runs{app=\"chat\",status=\"finished\"} 2\n"));
  EXPECT_THAT(m->body, HasSubstr("medreact_runs{app=\"triage\",status=\"error\"} 1\n"));
  EXPECT_THAT(m->body, HasSubstr("medreact_http_requests_total{route=\"/v1/runs\",code=\"200\"} 1\n"));
  EXPECT_THAT(m->body, HasSubstr("medreact_open_streams 0\n"));
}

}  // namespace
}  // namespace medreact::server
