// The server's event hub (src/server/event_hub.h) over a real run store: a
// stream replays what its client missed, then follows new commits exactly
// once each; a stream over many runs by the store-wide cursor; the end of a
// run ends its stream; other processes' commits are found by polling; the
// store's migration to version 4 gives every event a position that a pruned
// newest run does not hand out again.
#include "server/event_hub.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "store/run_recorder.h"
#include "testing/subprocess.h"

namespace medreact::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

RunState StateAt(const std::string& run_id, int step) {
  RunState s;
  s.messages = {Message::System("You are helpful."), Message::User("add things up")};
  s.trace.run_id = run_id;
  s.step = step;
  return s;
}

RunEvent Ev(int step) {
  return ToRunEvent({.type = EventType::kStepFinished, .step = step, .elapsed_ms = 1.5});
}

// What a subscriber received, thread-safe.
struct Got {
  std::mutex mu;
  std::vector<std::pair<std::string, int64_t>> events;  // (run, seq)
  std::vector<int64_t> cursors;
  std::string ended;
  Subscription For(std::vector<std::string> runs, int64_t after, bool by_seq, std::string app = "") {
    return {.runs = std::move(runs),
            .app = std::move(app),
            .after = after,
            .by_seq = by_seq,
            .deliver =
                [this](const StoreEvent& e) {
                  std::lock_guard<std::mutex> lock(mu);
                  events.emplace_back(e.run_id, e.event.seq);
                  cursors.push_back(e.cursor);
                  return true;
                },
            .heartbeat = [] { return true; },
            .ended =
                [this](const std::string& status) {
                  std::lock_guard<std::mutex> lock(mu);
                  ended = status;
                }};
  }
  size_t Count() {
    std::lock_guard<std::mutex> lock(mu);
    return events.size();
  }
  bool WaitFor(size_t n) {
    for (int i = 0; i < 500; ++i) {
      if (Count() >= n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  std::vector<int64_t> Seqs() {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<int64_t> out;
    for (auto& [r, s] : events) out.push_back(s);
    return out;
  }
};

std::shared_ptr<RunStore> OpenStore(const std::string& path) {
  auto store = RunStore::Open(path);
  EXPECT_TRUE(store.ok()) << store.status().message();
  return std::shared_ptr<RunStore>(std::move(*store));
}

TEST(ServerEventHubTest, ReplaysWhatWasMissedThenFollowsEachEventOnce) {
  testing::TempDir dir;
  auto store = OpenStore(dir.File("runs.sqlite"));
  RunState first = StateAt("run_a", 0);
  ASSERT_TRUE(store->CreateRun({.id = "run_a", .app = "chat"}, &first).ok());
  ASSERT_TRUE(store->SaveCheckpoint("run_a", StateAt("run_a", 1), {Ev(1), Ev(1), Ev(1)}).ok());
  EventHub hub(store, {.poll_interval_s = 5});  // only this process's commits wake it here
  ASSERT_TRUE(hub.Start().ok());
  Got got;
  auto sub = hub.Subscribe(got.For({"run_a"}, /*after=*/1, /*by_seq=*/true));
  ASSERT_TRUE(got.WaitFor(2));
  ASSERT_TRUE(store->SaveCheckpoint("run_a", StateAt("run_a", 2), {Ev(2), Ev(2)}).ok());
  ASSERT_TRUE(got.WaitFor(4));
  ASSERT_TRUE(store->FinishRun("run_a", "finished", Json{{"answer", "3"}}, {}, {Ev(3)}).ok());
  ASSERT_TRUE(got.WaitFor(5));
  for (int i = 0; i < 200 && got.ended.empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_THAT(got.Seqs(), ElementsAre(2, 3, 4, 5, 6));
  EXPECT_EQ(got.ended, "finished");
}

TEST(ServerEventHubTest, AStreamOfAnEndedRunReplaysAndEnds) {
  testing::TempDir dir;
  auto store = OpenStore(dir.File("runs.sqlite"));
  RunState first = StateAt("run_b", 0);
  ASSERT_TRUE(store->CreateRun({.id = "run_b", .app = "triage"}, &first).ok());
  ASSERT_TRUE(store->FinishRun("run_b", "finished", Json::object(), {}, {Ev(1), Ev(2)}).ok());
  EventHub hub(store);
  ASSERT_TRUE(hub.Start().ok());
  Got got;
  auto sub = hub.Subscribe(got.For({"run_b"}, 0, true));
  ASSERT_TRUE(got.WaitFor(2));
  for (int i = 0; i < 200 && got.ended.empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(got.ended, "finished");
  EXPECT_THAT(got.Seqs(), ElementsAre(1, 2));
}

TEST(ServerEventHubTest, AStreamOverManyRunsUsesTheStoreWideCursorAndTheAppFilter) {
  testing::TempDir dir;
  auto store = OpenStore(dir.File("runs.sqlite"));
  for (const char* id : {"r1", "r2", "r3"}) {
    RunState s = StateAt(id, 0);
    ASSERT_TRUE(store->CreateRun({.id = id, .app = std::string(id) == "r3" ? "research" : "triage"}, &s).ok());
  }
  ASSERT_TRUE(store->SaveCheckpoint("r1", StateAt("r1", 1), {Ev(1)}).ok());
  ASSERT_TRUE(store->SaveCheckpoint("r3", StateAt("r3", 1), {Ev(1)}).ok());
  ASSERT_TRUE(store->SaveCheckpoint("r2", StateAt("r2", 1), {Ev(1), Ev(1)}).ok());
  EventHub hub(store, {.poll_interval_s = 5});
  ASSERT_TRUE(hub.Start().ok());
  Got all, triage;
  auto a = hub.Subscribe(all.For({}, 0, false));
  auto t = hub.Subscribe(triage.For({}, 0, false, "triage"));
  ASSERT_TRUE(all.WaitFor(4));
  ASSERT_TRUE(triage.WaitFor(3));
  ASSERT_TRUE(store->SaveCheckpoint("r3", StateAt("r3", 2), {Ev(2)}).ok());
  ASSERT_TRUE(store->SaveCheckpoint("r1", StateAt("r1", 2), {Ev(2)}).ok());
  ASSERT_TRUE(all.WaitFor(6));
  ASSERT_TRUE(triage.WaitFor(4));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(all.cursors, (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(triage.cursors, (std::vector<int64_t>{1, 3, 4, 6}));
  // A reconnect after cursor 4 gets exactly 5 and 6.
  Got again;
  auto b = hub.Subscribe(again.For({}, 4, false));
  ASSERT_TRUE(again.WaitFor(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(again.cursors, (std::vector<int64_t>{5, 6}));
}

TEST(ServerEventHubTest, CommitsOfAnotherStoreObjectAreFoundByPolling) {
  testing::TempDir dir;
  const std::string path = dir.File("runs.sqlite");
  auto store = OpenStore(path);
  auto other = OpenStore(path);  // as another process would write
  RunState s = StateAt("run_c", 0);
  ASSERT_TRUE(other->CreateRun({.id = "run_c", .app = "chat"}, &s).ok());
  EventHub hub(store, {.poll_interval_s = 0.05});
  ASSERT_TRUE(hub.Start().ok());
  Got got;
  auto sub = hub.Subscribe(got.For({"run_c"}, 0, true));
  ASSERT_TRUE(other->SaveCheckpoint("run_c", StateAt("run_c", 1), {Ev(1), Ev(1)}).ok());
  ASSERT_TRUE(got.WaitFor(2));
  EXPECT_THAT(got.Seqs(), ElementsAre(1, 2));
}

TEST(ServerEventHubTest, ADroppedSubscriberGetsNothingMore) {
  testing::TempDir dir;
  auto store = OpenStore(dir.File("runs.sqlite"));
  RunState s = StateAt("run_d", 0);
  ASSERT_TRUE(store->CreateRun({.id = "run_d", .app = "chat"}, &s).ok());
  EventHub hub(store, {.poll_interval_s = 5});
  ASSERT_TRUE(hub.Start().ok());
  Got got;
  auto sub = hub.Subscribe(got.For({"run_d"}, 0, true));
  ASSERT_TRUE(store->SaveCheckpoint("run_d", StateAt("run_d", 1), {Ev(1)}).ok());
  ASSERT_TRUE(got.WaitFor(1));
  sub.reset();
  ASSERT_TRUE(store->SaveCheckpoint("run_d", StateAt("run_d", 2), {Ev(2)}).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(got.Count(), 1u);
  for (int i = 0; i < 100 && hub.subscribers() != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(hub.subscribers(), 0);
}

TEST(ServerEventHubTest, PositionsOfAPrunedNewestRunAreNotHandedOutAgain) {
  testing::TempDir dir;
  auto store = OpenStore(dir.File("runs.sqlite"));
  RunState s = StateAt("old", 0);
  ASSERT_TRUE(store->CreateRun({.id = "old", .app = "chat"}, &s).ok());
  ASSERT_TRUE(store->FinishRun("old", "finished", Json::object(), {}, {Ev(1), Ev(2)}).ok());
  ASSERT_EQ(*store->LastEventCursor(), 2);
  ASSERT_TRUE(store->Prune({.statuses = {"finished"}}).ok());
  EXPECT_EQ(*store->LastEventCursor(), 0);
  RunState t = StateAt("new", 0);
  ASSERT_TRUE(store->CreateRun({.id = "new", .app = "chat"}, &t).ok());
  ASSERT_TRUE(store->SaveCheckpoint("new", StateAt("new", 1), {Ev(1)}).ok());
  Result<std::vector<StoreEvent>> after = store->EventsSince(2);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 1u);  // a client that had seen position 2 still gets the new run's event
  EXPECT_EQ(after->front().cursor, 3);
}

TEST(ServerEventHubTest, SseMessagesCarryIdTypeAndTheStoredEvent) {
  StoreEvent e{.cursor = 9, .run_id = "run_x", .app = "chat"};
  e.event = ToRunEvent({.type = EventType::kToolStarted, .step = 2, .tool_name = "calc", .tool_call_id = "c1"});
  e.event.seq = 4;
  e.event.at = "2026-11-27T00:00:00.000Z";
  const std::string m = SseMessage(e, 4);
  EXPECT_THAT(m, HasSubstr("id: 4\nevent: tool_started\ndata: {\"run_id\":\"run_x\",\"seq\":4,\"app\":\"chat\","
                           "\"at\":\"2026-11-27T00:00:00.000Z\",\"step\":2,\"tool_call_id\":\"c1\","
                           "\"tool_name\":\"calc\",\"type\":\"tool_started\"}\n\n"));
  EXPECT_EQ(m.substr(m.size() - 2), "\n\n");
  EXPECT_EQ(std::count(m.begin(), m.end(), '\n'), 4);  // id, event, data, blank
}

}  // namespace
}  // namespace medreact::server
