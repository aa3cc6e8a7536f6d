// `medreact serve` over a PostgreSQL run store: the runs API lists and shows
// what is stored, and the store-wide event stream (/v1/events) delivers
// events written by this server's store and by another store on the same
// database (another process, as a worker on another machine would be: the
// stream polls LastEventCursor for those), in cursor order, each once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "store/run_recorder.h"
#include "testing/postgres_server.h"
#include "testing/serve_fixture.h"

namespace medreact {
namespace {

using ::testing::ElementsAre;
using testing::ServeFixture;
using testing::SseEvent;
using testing::StateAt;

RunEvent Ev(int step) { return ToRunEvent({.type = EventType::kStepFinished, .step = step, .elapsed_ms = 2}); }

std::vector<std::string> Ids(const std::vector<SseEvent>& events) {
  std::vector<std::string> out;
  for (const SseEvent& e : events) {
    if (!e.id.empty()) out.push_back(e.id);
  }
  return out;
}

TEST(ServerPgTest, RunsAndTheEventStreamOnAPostgresStore) {
  MEDREACT_REQUIRE_POSTGRES(url);
  Result<std::unique_ptr<RunStore>> opened = RunStore::Open(url);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  testing::TempDir uploads;  // not the user's data folder (RunStoreFilesBase)
  ServeFixture srv({.upload_dir = uploads.File("uploads")}, std::shared_ptr<RunStore>(std::move(*opened)));
  EXPECT_EQ(srv.store_path(), url);
  RunState first = StateAt("run_a", 0);
  ASSERT_TRUE(srv.store()->CreateRun({.id = "run_a", .app = "chat", .inputs = Json{{"message", "hi"}}}, &first).ok());
  ASSERT_TRUE(srv.store()->SaveCheckpoint("run_a", StateAt("run_a", 1), {Ev(1), Ev(2)}).ok());

  Json runs = ServeFixture::JsonOf(srv.Get("/v1/runs"));
  ASSERT_EQ(runs["runs"].size(), 1u) << runs.dump();
  EXPECT_EQ(runs["runs"][0]["id"], "run_a");
  Json one = ServeFixture::JsonOf(srv.Get("/v1/runs/run_a"));
  EXPECT_EQ(one["run"]["status"], "running") << one.dump();

  // Another store on the same database writes while the stream is open.
  Result<std::unique_ptr<RunStore>> other = RunStore::Open(url);
  ASSERT_TRUE(other.ok());
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    RunState b0 = StateAt("run_b", 0);
    EXPECT_TRUE((*other)->CreateRun({.id = "run_b", .app = "chat"}, &b0).ok());
    EXPECT_TRUE((*other)->FinishRun("run_b", "finished", Json::object(), {}, {Ev(1)}).ok());
    EXPECT_TRUE(srv.store()->SaveCheckpoint("run_a", StateAt("run_a", 2), {Ev(3)}).ok());
  });
  std::vector<SseEvent> got = srv.ReadEvents(
      "/v1/events", {}, [](const std::vector<SseEvent>& g) { return Ids(g).size() >= 4; }, 15);
  writer.join();
  EXPECT_THAT(Ids(got), ElementsAre("1", "2", "3", "4"));
  std::vector<SseEvent> after = srv.ReadEvents(
      "/v1/events", {{"Last-Event-ID", "2"}}, [](const std::vector<SseEvent>& g) { return Ids(g).size() >= 2; }, 5);
  EXPECT_THAT(Ids(after), ElementsAre("3", "4"));
  std::vector<SseEvent> b = srv.ReadEvents(
      "/v1/runs/run_b/events", {}, [](const std::vector<SseEvent>& g) { return !g.empty() && g.back().event == "end"; },
      5);
  ASSERT_FALSE(b.empty());
  EXPECT_EQ(b.back().event, "end");
}

}  // namespace
}  // namespace medreact
