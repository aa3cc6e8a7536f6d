// What a store remembers of the runs it writes (issue 22: a checkpoint of a
// run this store holds without a break reads no row count back and leaves
// the run's row alone when nothing in it changed). It must forget a run
// another store wrote in between: after a takeover and a release the first
// store's next checkpoint cuts the rows the other added and its events go
// on after the other's, and the run's row still shows each status change.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "store/run_store.h"
#include "testing/store_backends.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

class RunStoreWrittenTest : public testing::StoreBackendTest {};
MEDREACT_STORE_BACKENDS(RunStoreWrittenTest);

using namespace std::chrono_literals;

RunState StateWith(const std::string& run_id, int steps, int extra_messages) {
  RunState s;
  s.messages = {Message::System("sys"), Message::User("add")};
  for (int i = 0; i < extra_messages; ++i) s.messages.push_back(Message::Assistant("m" + std::to_string(i)));
  s.trace.run_id = run_id;
  s.step = steps;
  for (int i = 1; i <= steps; ++i) {
    StepRecord rec;
    rec.index = i;
    rec.assistant = Message::Assistant("step " + std::to_string(i), {});
    s.trace.steps.push_back(rec);
  }
  return s;
}

std::vector<RunEvent> Events(const std::string& type, int n) {
  std::vector<RunEvent> out;
  for (int i = 0; i < n; ++i) out.push_back({.type = type, .json = "{\"type\":\"" + type + "\"}"});
  return out;
}

std::unique_ptr<RunStore> OpenAs(const std::string& path, const std::string& owner, std::chrono::milliseconds ttl) {
  Result<std::unique_ptr<RunStore>> store = RunStore::Open(path, {.owner = owner, .lease_ttl = ttl});
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(*store) : nullptr;
}

TEST_P(RunStoreWrittenTest, ARunWrittenByAnotherStoreInBetweenIsReadAgain) {
  const std::string path = Store();
  auto a = OpenAs(path, "ward-a/100/5/1", 0ms);  // a 1 ms lease, no heartbeat
  auto b = OpenAs(path, "ward-b/200/7/1", 60'000ms);
  ASSERT_TRUE(a && b);
  RunState first = StateWith("run_w", 0, 0);
  ASSERT_TRUE(a->CreateRun({.id = "run_w", .app = "chat"}, &first).ok());
  ASSERT_TRUE(a->SaveCheckpoint("run_w", StateWith("run_w", 1, 1), Events("a", 2)).ok());
  ASSERT_TRUE(a->SaveCheckpoint("run_w", StateWith("run_w", 1, 1), Events("a", 1), "awaiting_approval").ok());
  EXPECT_EQ(a->Get("run_w").value().status, "awaiting_approval");  // a status change is written at once

  // b takes the run over (a's lease ran out), writes more, and gives it back.
  std::this_thread::sleep_for(5ms);
  ASSERT_TRUE(b->ClaimRun("run_w").ok());
  ASSERT_TRUE(b->SaveCheckpoint("run_w", StateWith("run_w", 3, 4), Events("b", 2)).ok());
  ASSERT_TRUE(b->ReleaseRun("run_w").ok());

  // a goes on with a shorter state: the rows b added past it are cut, the
  // events continue after b's.
  ASSERT_TRUE(a->SaveCheckpoint("run_w", StateWith("run_w", 2, 2), Events("a", 1)).ok());
  Result<std::optional<RunState>> latest = a->LatestState("run_w");
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  ASSERT_TRUE(latest->has_value());
  EXPECT_EQ((*latest)->messages.size(), 4u);
  EXPECT_EQ((*latest)->trace.steps.size(), 2u);
  EXPECT_EQ(a->Steps("run_w").value().size(), 2u);
  Result<std::vector<RunEvent>> events = a->Events("run_w");
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 6u);
  for (size_t i = 0; i < events->size(); ++i) EXPECT_EQ((*events)[i].seq, static_cast<int64_t>(i + 1));
  EXPECT_EQ((*events)[5].type, "a");
  RunRecord run = a->Get("run_w").value();
  EXPECT_EQ(run.status, "running");
  EXPECT_EQ(run.owner, "ward-a/100/5/1");
  EXPECT_EQ(run.checkpoints, 5);

  // The end writes only the steps that differ; those it drops go.
  StepRecord fallback;
  fallback.index = 2;
  fallback.kind = "fallback";
  std::vector<StepRecord> steps = StateWith("run_w", 1, 0).trace.steps;
  steps.push_back(fallback);
  ASSERT_TRUE(a->FinishRun("run_w", "finished", Json::object(), steps).ok());
  Result<std::vector<StepRecord>> stored = a->Steps("run_w");
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 2u);
  EXPECT_EQ((*stored)[0].assistant.content, "step 1");
  EXPECT_EQ((*stored)[1].kind, "fallback");
  EXPECT_EQ(a->Get("run_w").value().status, "finished");
}

}  // namespace
}  // namespace medreact
