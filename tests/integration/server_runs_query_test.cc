// What the page's run inspector asks of `medreact serve` (src/server/
// api_runs.cc) over a real run store: the runs found by a part of their id
// (`q`, any case; never a search of the inputs), with the app and status
// filters and pages, bad values refused naming their field; a run shown with
// its stored events (`?events=1`, or those after a seq: `?events_after=N`),
// each in the shape of the stream's messages with its store-wide id, the
// same ids `GET /v1/events` sends.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "store/run_recorder.h"
#include "testing/serve_fixture.h"

namespace medreact::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ServeFixture;
using testing::SseEvent;

using testing::StateAt;

// A run stored with `n` step_finished events, ended with `status` ("" = still running).
void StoredRun(RunStore& store, const std::string& id, const std::string& app, int n, const std::string& status) {
  RunState first = StateAt(id, 0);
  ASSERT_TRUE(store.CreateRun({.id = id, .app = app, .inputs = Json{{"message", "hello"}}}, &first).ok());
  std::vector<RunEvent> events;
  for (int i = 1; i <= n; ++i) {
    RunEvent e = ToRunEvent({.type = EventType::kStepFinished, .step = i, .elapsed_ms = 2});
    e.at = "2026-11-27T10:00:0" + std::to_string(i) + ".000Z";  // the recorder's clock, here fixed
    events.push_back(std::move(e));
  }
  if (status.empty()) {
    ASSERT_TRUE(store.SaveCheckpoint(id, StateAt(id, 1), events).ok());
  } else {
    ASSERT_TRUE(store.FinishRun(id, status, Json{{"answer", "done"}}, {}, events).ok());
  }
}

std::vector<std::string> RunIds(const Json& page) {
  std::vector<std::string> out;
  for (const Json& r : page["runs"]) out.push_back(StringOr(r, "id"));
  std::sort(out.begin(), out.end());
  return out;
}

void ExpectBad(const httplib::Result& r, const std::string& field, const std::string& says) {
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  Json j = ServeFixture::JsonOf(r);
  EXPECT_EQ(StringOr(j["error"], "code"), "bad_request") << r->body;
  EXPECT_EQ(StringOr(j["error"], "field"), field) << r->body;
  EXPECT_THAT(StringOr(j["error"], "message"), HasSubstr(says)) << r->body;
}

TEST(ServerRunsQueryTest, RunsAreFoundByAPartOfTheirIdInAnyCaseWithTheFiltersAndPages) {
  ServeFixture srv;
  StoredRun(*srv.store(), "run_AbC1", "chat", 1, "finished");
  StoredRun(*srv.store(), "run_xyz2", "triage", 1, "finished");
  StoredRun(*srv.store(), "run_abd3", "chat", 1, "");
  StoredRun(*srv.store(), "run_zabc4", "chat", 1, "");
  EXPECT_THAT(RunIds(ServeFixture::JsonOf(srv.Get("/v1/runs?q=abc"))), ElementsAre("run_AbC1", "run_zabc4"));
  EXPECT_THAT(RunIds(ServeFixture::JsonOf(srv.Get("/v1/runs?q=ABC"))), ElementsAre("run_AbC1", "run_zabc4"));
  EXPECT_THAT(RunIds(ServeFixture::JsonOf(srv.Get("/v1/runs?q=xyz2"))), ElementsAre("run_xyz2"));
  EXPECT_THAT(RunIds(ServeFixture::JsonOf(srv.Get("/v1/runs?q=ab&app=chat&status=running"))),
              ElementsAre("run_abd3", "run_zabc4"));
  EXPECT_THAT(RunIds(ServeFixture::JsonOf(srv.Get("/v1/runs?q=abc&status=finished"))), ElementsAre("run_AbC1"));
  EXPECT_TRUE(ServeFixture::JsonOf(srv.Get("/v1/runs?q=nothing"))["runs"].empty());
  // An empty q is no filter; a search pages like the list.
  EXPECT_EQ(ServeFixture::JsonOf(srv.Get("/v1/runs?q="))["runs"].size(), 4u);
  Json first = ServeFixture::JsonOf(srv.Get("/v1/runs?q=run_&limit=3"));
  EXPECT_EQ(first["runs"].size(), 3u);
  EXPECT_EQ(first["next_offset"], 3);
  Json rest = ServeFixture::JsonOf(srv.Get("/v1/runs?q=run_&limit=3&offset=3"));
  EXPECT_EQ(rest["runs"].size(), 1u);
  EXPECT_TRUE(rest["next_offset"].is_null());
  // The inputs are not searched (they may hold patient data).
  EXPECT_TRUE(ServeFixture::JsonOf(srv.Get("/v1/runs?q=hello"))["runs"].empty());
}

TEST(ServerRunsQueryTest, ABadSearchOrStatusIsRefusedNamingItsField) {
  ServeFixture srv;
  ExpectBad(srv.Get("/v1/runs?q=a%20b"), "q", "part of a run id");
  ExpectBad(srv.Get("/v1/runs?q=%27%20OR%201"), "q", "part of a run id");
  ExpectBad(srv.Get("/v1/runs?q=" + std::string(65, 'a')), "q", "at most 64");
  ExpectBad(srv.Get("/v1/runs?status=done"), "status", "no status 'done'");
  ExpectBad(srv.Get("/v1/runs?status=finished%27"), "status", "finished, max_steps");
  ASSERT_TRUE(srv.Get("/v1/runs?q=" + std::string(64, 'a')));
  EXPECT_EQ(srv.Get("/v1/runs?q=" + std::string(64, 'a'))->status, 200);
  EXPECT_EQ(srv.Get("/v1/runs?status=awaiting_approval")->status, 200);
}

TEST(ServerRunsQueryTest, ARunIsShownWithItsEventsInTheStreamsShapeAndItsStoreWideIds) {
  ServeFixture srv;
  StoredRun(*srv.store(), "run_other", "triage", 2, "finished");
  StoredRun(*srv.store(), "run_ev", "chat", 3, "finished");
  // Without the parameter, no events (the show stays short).
  EXPECT_FALSE(ServeFixture::JsonOf(srv.Get("/v1/runs/run_ev")).contains("events"));
  EXPECT_FALSE(ServeFixture::JsonOf(srv.Get("/v1/runs/run_ev?events=0")).contains("events"));

  Json shown = ServeFixture::JsonOf(srv.Get("/v1/runs/run_ev?events=1"));
  EXPECT_EQ(shown["run"]["status"], "finished");
  ASSERT_EQ(shown["events"].size(), 3u) << shown.dump();
  std::vector<int64_t> seqs, ids;
  for (const Json& e : shown["events"]) {
    EXPECT_EQ(e["run_id"], "run_ev");
    EXPECT_EQ(e["app"], "chat");
    EXPECT_EQ(e["type"], "step_finished");
    EXPECT_EQ(StringOr(e, "at"), "2026-11-27T10:00:0" + std::to_string(seqs.size() + 1) + ".000Z") << e.dump();
    seqs.push_back(e["seq"].get<int64_t>());
    ids.push_back(e["id"].get<int64_t>());
  }
  EXPECT_THAT(seqs, ElementsAre(1, 2, 3));
  EXPECT_THAT(ids, ElementsAre(3, 4, 5));  // after run_other's two
  EXPECT_EQ(shown["events"][1]["step"], 2);

  // The ids are the tab stream's: GET /v1/events sends the same.
  std::vector<SseEvent> streamed = srv.ReadEvents(
      "/v1/events?runs=run_ev", {}, [](const std::vector<SseEvent>& got) { return got.size() >= 3; }, 5);
  ASSERT_EQ(streamed.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(streamed[i].id, std::to_string(ids[i]));
    Result<Json> data = ParseJson(streamed[i].data);
    ASSERT_TRUE(data.ok());
    EXPECT_EQ((*data)["seq"], seqs[i]);
    EXPECT_EQ((*data)["at"], shown["events"][i]["at"]);
  }

  Json after = ServeFixture::JsonOf(srv.Get("/v1/runs/run_ev?events_after=2"));
  ASSERT_EQ(after["events"].size(), 1u);
  EXPECT_EQ(after["events"][0]["seq"], 3);
  EXPECT_TRUE(ServeFixture::JsonOf(srv.Get("/v1/runs/run_ev?events_after=3"))["events"].empty());

  ExpectBad(srv.Get("/v1/runs/run_ev?events=yes"), "events", "events must be 1");
  ExpectBad(srv.Get("/v1/runs/run_ev?events_after=-1"), "events_after", "non-negative integer");
  ExpectBad(srv.Get("/v1/runs/run_ev?events_after=x"), "events_after", "non-negative integer");
  auto missing = srv.Get("/v1/runs/run_missing?events=1");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

}  // namespace
}  // namespace medreact::server
