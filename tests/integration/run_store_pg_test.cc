// The run store on PostgreSQL: what only that backend has (the behaviour
// tests run on both backends: store_backends.h). A wrong URL, a database
// without a store, a newer schema, a read-only store, a lost connection,
// and two stores (two owners) writing one database at once: fencing, and
// EventsSince in commit order under concurrent writers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "store/pg_conn.h"
#include "store/pg_schema.h"
#include "store/run_store.h"
#include "testing/postgres_server.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

RunState StateAt(const std::string& run_id, int step) {
  RunState s;
  s.messages = {Message::System("sys"), Message::User("add")};
  s.trace.run_id = run_id;
  s.step = step;
  for (int i = 1; i <= step; ++i) {
    StepRecord rec;
    rec.index = i;
    rec.assistant = Message::Assistant("step " + std::to_string(i), {});
    s.trace.steps.push_back(rec);
    s.messages.push_back(Message::Assistant("step " + std::to_string(i), {}));
  }
  return s;
}

RunEvent Ev(const std::string& type, int64_t step) {
  return {.type = type, .step = step, .json = R"({"type":")" + type + R"("})"};
}

TEST(RunStorePgTest, AWrongUrlIsUnavailableNamingItWithoutThePassword) {
  auto store = RunStore::Open("postgres://ann:topsecret@127.0.0.1:1/runs", {.busy_timeout = 2s});
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(store.status().message(), HasSubstr("postgres://ann:***@127.0.0.1:1/runs"));
  EXPECT_THAT(store.status().message(), Not(HasSubstr("topsecret")));
}

TEST(RunStorePgTest, AMissingDatabaseIsNamedAndAnEmptyOneIsNoStoreToRead) {
  MEDREACT_REQUIRE_POSTGRES(url);
  const std::string missing = url + "_none";
  auto none = RunStore::Open(missing);
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("_none"));
  EXPECT_THAT(none.status().message(), HasSubstr("does not exist"));
  auto read = RunStore::Open(url, {.create_if_missing = false, .read_only = true});
  EXPECT_EQ(read.status().code(), StatusCode::kNotFound) << read.status().ToString();
  auto conn = PgConnection::Connect(url);
  ASSERT_TRUE(conn.ok());
  EXPECT_EQ(*ReadPgSchemaVersion(**conn), 0);  // nothing written by the read
}

TEST(RunStorePgTest, ANewerSchemaIsRefused) {
  MEDREACT_REQUIRE_POSTGRES(url);
  ASSERT_TRUE(RunStore::Open(url).ok());
  auto conn = PgConnection::Connect(url);
  ASSERT_TRUE(conn.ok());
  ASSERT_TRUE((*conn)->Exec("INSERT INTO medreact_schema(version) VALUES (99)").ok());
  auto store = RunStore::Open(url);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("newer medreact (schema version 99"));
}

TEST(RunStorePgTest, AReadOnlyStoreReadsAndRefusesEveryWrite) {
  MEDREACT_REQUIRE_POSTGRES(url);
  {
    auto w = RunStore::Open(url);
    ASSERT_TRUE(w.ok());
    RunState s = StateAt("run_r", 2);
    ASSERT_TRUE((*w)->CreateRun({.id = "run_r", .app = "chat"}, &s).ok());
  }
  auto r = RunStore::Open(url, {.create_if_missing = false, .read_only = true});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->List().value().size(), 1u);
  EXPECT_EQ((*r)->LatestState("run_r").value()->step, 2);
  Status write = (*r)->CreateRun({.id = "run_s", .app = "chat"});
  EXPECT_FALSE(write.ok());
  EXPECT_THAT(write.message(), HasSubstr("read-only"));
  EXPECT_EQ((*r)->path(), url);
}

TEST(RunStorePgTest, ALostConnectionIsReconnectedOnceAndAServerGoneIsUnavailable) {
  MEDREACT_REQUIRE_POSTGRES(url);
  std::string why;
  auto* server = testing::PostgresServer::Shared(&why);
  ASSERT_NE(server, nullptr);
  auto store = RunStore::Open(url);
  ASSERT_TRUE(store.ok());
  RunState s = StateAt("run_c", 0);
  ASSERT_TRUE((*store)->CreateRun({.id = "run_c", .app = "chat"}, &s).ok());
  ASSERT_TRUE(server->TerminateConnections(&why)) << why;
  // The next call finds the connection gone, reconnects and goes on.
  Status saved = (*store)->SaveCheckpoint("run_c", StateAt("run_c", 1), {Ev("step_finished", 1)});
  ASSERT_TRUE(saved.ok()) << saved.ToString();
  EXPECT_EQ((*store)->Get("run_c").value().steps, 1);
  // The server stopped: Unavailable naming it, no crash; back when it is.
  server->Stop();
  Status down = (*store)->SaveCheckpoint("run_c", StateAt("run_c", 2));
  EXPECT_EQ(down.code(), StatusCode::kUnavailable) << down.ToString();
  EXPECT_THAT(down.message(), HasSubstr(server->Url("")));
  ASSERT_TRUE(server->Restart(&why)) << why;
  Status again = (*store)->SaveCheckpoint("run_c", StateAt("run_c", 2));
  ASSERT_TRUE(again.ok()) << again.ToString();
  EXPECT_EQ((*store)->Get("run_c").value().steps, 2);
  EXPECT_TRUE((*store)->IntegrityCheck().ok());
}

// Two owners on one database: the second cannot take a live run; once the
// first's lease expired it does, and the first is fenced off from then on.
TEST(RunStorePgTest, TwoOwnersFencingAndTakeover) {
  MEDREACT_REQUIRE_POSTGRES(url);
  auto a = RunStore::Open(url, {.owner = "ward-a/100/5/1", .lease_ttl = 300ms});
  auto b = RunStore::Open(url, {.owner = "ward-b/200/7/1", .lease_ttl = 60'000ms});
  ASSERT_TRUE(a.ok() && b.ok());
  RunState first = StateAt("run_f", 0);
  ASSERT_TRUE((*a)->CreateRun({.id = "run_f", .app = "chat"}, &first).ok());
  Status refused = (*b)->ClaimRun("run_f");
  EXPECT_EQ(refused.code(), StatusCode::kUnavailable);
  EXPECT_THAT(refused.message(), HasSubstr("ward-a"));
  // A store whose lease runs out (no heartbeat) is taken over by b and
  // fenced off from then on.
  auto c = RunStore::Open(url, {.owner = "ward-c/300/9/1", .lease_ttl = 0ms});  // 1 ms lease, no heartbeat
  ASSERT_TRUE(c.ok());
  RunState cf = StateAt("run_g", 0);
  ASSERT_TRUE((*c)->CreateRun({.id = "run_g", .app = "chat"}, &cf).ok());
  std::this_thread::sleep_for(20ms);
  ASSERT_TRUE((*b)->ClaimRun("run_g").ok());
  Status fenced = (*c)->SaveCheckpoint("run_g", StateAt("run_g", 1), {Ev("step_finished", 1)});
  EXPECT_EQ(fenced.code(), StatusCode::kFailedPrecondition) << fenced.ToString();
  EXPECT_THAT(fenced.message(), HasSubstr("ward-b"));
  EXPECT_FALSE((*c)->FinishRun("run_g", "finished", Json::object(), {}).ok());
  EXPECT_FALSE((*c)->AppendEvents("run_g", {Ev("x", 1)}).ok());
  ASSERT_TRUE((*b)->SaveCheckpoint("run_g", StateAt("run_g", 1), {Ev("step_finished", 1)}).ok());
  EXPECT_EQ((*b)->Events("run_g").value().size(), 1u);  // c's refused event is not there
  EXPECT_EQ((*b)->Get("run_g").value().owner, "ward-b/200/7/1");
}

// Many writers on many connections at once while a follower reads
// EventsSince: the follower never sees a cursor below one it already read
// come in later, and in the end it has read every event exactly once.
TEST(RunStorePgTest, EventsSinceFollowsCommitOrderUnderConcurrentWriters) {
  MEDREACT_REQUIRE_POSTGRES(url);
  constexpr int kWriters = 4, kCheckpoints = 25, kPerCheckpoint = 3;
  std::vector<std::unique_ptr<RunStore>> stores;
  for (int i = 0; i < kWriters; ++i) {
    auto s = RunStore::Open(url);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    stores.push_back(std::move(*s));
  }
  auto reader = RunStore::Open(url);
  ASSERT_TRUE(reader.ok());
  std::atomic<int> failures{0};
  std::atomic<bool> done{false};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      const std::string id = "run_w" + std::to_string(w);
      RunState s0 = StateAt(id, 0);
      if (!stores[w]->CreateRun({.id = id, .app = "chat"}, &s0).ok()) ++failures;
      for (int c = 1; c <= kCheckpoints; ++c) {
        std::vector<RunEvent> events;
        for (int e = 0; e < kPerCheckpoint; ++e) events.push_back(Ev("step_finished", c));
        if (!stores[w]->SaveCheckpoint(id, StateAt(id, c % 4), events).ok()) ++failures;
      }
    });
  }
  std::vector<int64_t> seen;
  int64_t cursor = 0;
  bool went_back = false;
  auto follow = [&] {
    Result<std::vector<StoreEvent>> got = (*reader)->EventsSince(cursor, {.limit = 50});
    if (!got.ok()) {
      ++failures;
      return;
    }
    for (const StoreEvent& e : *got) {
      if (e.cursor <= cursor) went_back = true;
      cursor = e.cursor;
      seen.push_back(e.cursor);
    }
  };
  std::thread follower([&] {
    while (!done) follow();
  });
  for (auto& t : writers) t.join();
  done = true;
  follower.join();
  for (int i = 0; i < 20; ++i) follow();  // the rest
  EXPECT_EQ(failures.load(), 0);
  EXPECT_FALSE(went_back);
  const size_t total = static_cast<size_t>(kWriters * kCheckpoints * kPerCheckpoint);
  EXPECT_EQ(seen.size(), total);
  EXPECT_EQ(std::set<int64_t>(seen.begin(), seen.end()).size(), total);  // none twice, none missed
  // Every stored event was seen: nothing committed below a cursor already passed.
  int64_t stored = 0;
  for (int w = 0; w < kWriters; ++w) stored += (*reader)->Get("run_w" + std::to_string(w)).value().events;
  EXPECT_EQ(stored, static_cast<int64_t>(total));
  EXPECT_EQ((*reader)->LastEventCursor().value(), seen.back());
}

}  // namespace
}  // namespace medreact
