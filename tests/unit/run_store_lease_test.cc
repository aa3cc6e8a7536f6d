// RunStore leases (issue 22): one process runs a run at a time. Claiming a
// run held by a live owner is refused naming it; a lease that expired, or
// whose owner's process is gone, is taken over; a writer whose lease was
// taken over is fenced off. Also: an `error` end keeps its checkpoint, the
// events' wall-clock time, the context-size cache and the URL policy.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "store/run_recorder.h"
#include "store/run_store.h"
#include "testing/store_backends.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

class RunStoreLeaseTest : public testing::StoreBackendTest {};
MEDREACT_STORE_BACKENDS(RunStoreLeaseTest);

using ::testing::HasSubstr;
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
  }
  return s;
}

std::unique_ptr<RunStore> OpenAs(const std::string& path, const std::string& owner,
                                 std::chrono::milliseconds ttl = 60'000ms) {
  Result<std::unique_ptr<RunStore>> store = RunStore::Open(path, {.owner = owner, .lease_ttl = ttl});
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(*store) : nullptr;
}

TEST_P(RunStoreLeaseTest, ASecondClaimOfALiveRunIsRefusedNamingItsHolder) {
  const std::string path = Store();
  // Owners on another machine: only their lease says whether they live.
  auto a = OpenAs(path, "ward-a/100/5/1");
  auto b = OpenAs(path, "ward-b/200/7/1");
  ASSERT_TRUE(a && b);
  RunState first = StateAt("run_x", 0);
  ASSERT_TRUE(a->CreateRun({.id = "run_x", .app = "chat"}, &first).ok());
  Result<RunRecord> run = b->Get("run_x");
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->owner, "ward-a/100/5/1");
  EXPECT_FALSE(run->lease_until.empty());

  Status refused = b->ClaimRun("run_x");
  EXPECT_EQ(refused.code(), StatusCode::kUnavailable) << refused.ToString();
  EXPECT_THAT(refused.message(), HasSubstr("process 100 on ward-a"));
  EXPECT_THAT(refused.message(), HasSubstr("run_x"));
  // The refused store cannot write into the run either.
  EXPECT_THAT(b->SaveCheckpoint("run_x", StateAt("run_x", 1)).message(), HasSubstr("process 100 on ward-a"));
  // Its holder goes on.
  EXPECT_TRUE(a->SaveCheckpoint("run_x", StateAt("run_x", 1)).ok());
  EXPECT_TRUE(a->ClaimRun("run_x").ok());  // its own: fine
  EXPECT_EQ(b->ClaimRun("nope").code(), StatusCode::kNotFound);
}

TEST_P(RunStoreLeaseTest, AnExpiredLeaseIsTakenOverAndTheOldHolderIsFencedOff) {
  const std::string path = Store();
  // No heartbeat for the first (ttl 0 still gives a lease of 1 ms): it
  // stands for a process that hangs, or whose machine went away.
  auto slow = OpenAs(path, "ward-a/100/5/1", 0ms);
  auto other = OpenAs(path, "ward-b/200/7/1");
  ASSERT_TRUE(slow && other);
  RunState first = StateAt("run_y", 0);
  ASSERT_TRUE(slow->CreateRun({.id = "run_y", .app = "chat"}, &first).ok());
  std::this_thread::sleep_for(5ms);
  ASSERT_TRUE(other->ClaimRun("run_y").ok());
  EXPECT_EQ(other->Get("run_y").value().owner, "ward-b/200/7/1");
  // The old holder wakes up: its checkpoint and its end are refused.
  Status fenced = slow->SaveCheckpoint("run_y", StateAt("run_y", 1));
  EXPECT_EQ(fenced.code(), StatusCode::kFailedPrecondition) << fenced.ToString();
  EXPECT_THAT(fenced.message(), HasSubstr("taken over"));
  EXPECT_FALSE(slow->FinishRun("run_y", "finished", Json::object(), {}).ok());
  EXPECT_TRUE(other->SaveCheckpoint("run_y", StateAt("run_y", 1)).ok());
  EXPECT_EQ(other->LatestState("run_y").value()->step, 1);
  EXPECT_EQ(other->Get("run_y").value().status, "running");
}

TEST_P(RunStoreLeaseTest, TheHeartbeatKeepsALeaseAliveBetweenCheckpoints) {
  const std::string path = Store();
  auto holder = OpenAs(path, "ward-a/100/5/1", 600ms);  // renewed every 200 ms
  auto other = OpenAs(path, "ward-b/200/7/1");
  ASSERT_TRUE(holder && other);
  ASSERT_TRUE(holder->CreateRun({.id = "run_h", .app = "chat"}).ok());
  // A long tool call: no checkpoint for many lease lengths.
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(600ms);
    EXPECT_EQ(other->ClaimRun("run_h").code(), StatusCode::kUnavailable) << "after " << (i + 1) * 600 << " ms";
  }
  ASSERT_TRUE(holder->FinishRun("run_h", "finished", Json::object(), {}).ok());
  EXPECT_EQ(holder->Get("run_h").value().owner, "");  // the end gives the lease back
  EXPECT_TRUE(other->ClaimRun("run_h").ok());
}

TEST_P(RunStoreLeaseTest, AClosedStoreGivesItsRunsBack) {
  const std::string path = Store();
  auto other = OpenAs(path, "ward-b/200/7/1");
  {
    auto first = OpenAs(path, "ward-a/100/5/1");
    ASSERT_TRUE(first && other);
    ASSERT_TRUE(first->CreateRun({.id = "run_c", .app = "chat"}).ok());
    EXPECT_FALSE(other->ClaimRun("run_c").ok());
  }
  EXPECT_EQ(other->Get("run_c").value().owner, "");
  EXPECT_TRUE(other->ClaimRun("run_c").ok());
}

TEST_P(RunStoreLeaseTest, ARunWhoseProcessOnThisMachineDiedIsTakenOverAtOnce) {
  const std::string path = Store();
  // A child process creates the run and dies without a word (_exit: no
  // destructor gives the lease back), as kill -9 would leave it.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Result<std::unique_ptr<RunStore>> store = RunStore::Open(path);
    const bool ok = store.ok() && (*store)->CreateRun({.id = "run_k", .app = "chat"}).ok();
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  Result<std::unique_ptr<RunStore>> store = RunStore::Open(path);
  ASSERT_TRUE(store.ok());
  Result<RunRecord> run = (*store)->Get("run_k");
  ASSERT_TRUE(run.ok());
  EXPECT_THAT(run->owner, HasSubstr("/" + std::to_string(child) + "/"));
  EXPECT_TRUE(RunOwnerGone(run->owner));
  EXPECT_TRUE((*store)->ClaimRun("run_k").ok());  // its lease has a minute to go, its process none
  // A live owner on this machine is not gone: this process's open store.
  EXPECT_FALSE(RunOwnerGone((*store)->owner()));
  EXPECT_FALSE(RunOwnerGone("another-host/1/1/1"));
  EXPECT_FALSE(RunOwnerGone("not an owner"));
}

TEST_P(RunStoreLeaseTest, AnErrorEndKeepsItsCheckpointForAResume) {
  auto store = OpenAs(Store(), "");
  ASSERT_TRUE(store);
  RunState first = StateAt("run_e", 0);
  ASSERT_TRUE(store->CreateRun({.id = "run_e", .app = "chat"}, &first).ok());
  ASSERT_TRUE(store->SaveCheckpoint("run_e", StateAt("run_e", 2)).ok());
  ASSERT_TRUE(store->FinishRun("run_e", "error", Json{{"error", "model down"}}, StateAt("run_e", 2).trace.steps).ok());
  Result<std::optional<RunState>> kept = store->LatestState("run_e");
  ASSERT_TRUE(kept.ok() && kept->has_value());
  EXPECT_EQ((*kept)->step, 2);
  // A finished run still drops it.
  ASSERT_TRUE(store->CreateRun({.id = "run_f", .app = "chat"}, &first).ok());
  ASSERT_TRUE(store->FinishRun("run_f", "finished", Json::object(), {}).ok());
  EXPECT_FALSE(store->LatestState("run_f").value().has_value());
}

TEST_P(RunStoreLeaseTest, EventsCarryTheirWallClockTime) {
  auto store = OpenAs(Store(), "");
  ASSERT_TRUE(store);
  RunRecorder recorder(std::shared_ptr<RunStore>(std::move(store)), {.app = "chat"}, nullptr);
  auto hook = recorder.Hook();
  EventSink sink = recorder.Events(nullptr);
  const std::string before = StoreTimestampMillis(std::chrono::system_clock::now());
  hook(StateAt("run_t", 0));
  sink({.type = EventType::kStepFinished, .step = 1});
  hook(StateAt("run_t", 1));
  const std::string after = StoreTimestampMillis(std::chrono::system_clock::now());
  Result<std::unique_ptr<RunStore>> reader = RunStore::Open(Store());
  ASSERT_TRUE(reader.ok());
  Result<std::vector<RunEvent>> events = (*reader)->Events("run_t");
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].seq, 1);
  EXPECT_EQ((*events)[0].at.size(), std::string("2026-11-25T03:04:05.123Z").size()) << (*events)[0].at;
  EXPECT_GE((*events)[0].at, before);  // ISO 8601 sorts as text
  EXPECT_LE((*events)[0].at, after);
}

TEST_P(RunStoreLeaseTest, TheContextSizeCacheKeepsWhatAServerSaidWithoutItsCredentials) {
  const std::string path = Store();
  auto store = std::shared_ptr<RunStore>(OpenAs(path, ""));
  ASSERT_TRUE(store);
  std::shared_ptr<ContextSizeCache> cache = StoreContextCache(store);
  EXPECT_EQ(cache->Get("http://127.0.0.1:8080/v1", "m"), std::nullopt);
  cache->Put("http://user:secret@127.0.0.1:8080/v1?api_key=sk-1", "m", 4096);
  cache->Put("http://127.0.0.1:9090/v1", "m", 0);  // a server that does not say
  EXPECT_EQ(cache->Get("http://127.0.0.1:8080/v1", "m"), std::optional<int64_t>(4096));
  EXPECT_EQ(cache->Get("http://127.0.0.1:8080/v1", "other"), std::nullopt);
  EXPECT_EQ(cache->Get("http://127.0.0.1:9090/v1", "m"), std::optional<int64_t>(0));
  EXPECT_EQ(StoreContextCache(nullptr), nullptr);
  store.reset();
  const std::string bytes = testing::ReadFileOrEmpty(path) + testing::ReadFileOrEmpty(path + "-wal");
  EXPECT_EQ(bytes.find("secret"), std::string::npos);
  EXPECT_EQ(bytes.find("sk-1"), std::string::npos);
}

TEST(RunStoreUrlTest, UrlsAreStoredWithoutUserInfoQueryOrFragment) {
  EXPECT_EQ(UrlForStore("http://user:pw@host:8000/v1?api_key=k#frag"), "http://host:8000/v1");
  EXPECT_EQ(UrlForStore("https://host/v1/"), "https://host/v1/");
  EXPECT_EQ(UrlForStore("http://host?key=1"), "http://host");
  EXPECT_EQ(UrlForStore("http://a@b@host/x"), "http://host/x");
  EXPECT_EQ(UrlForStore(""), "");
  EXPECT_EQ(StoreTimestampMillis(std::chrono::system_clock::time_point(std::chrono::milliseconds(1'764'212'645'007))),
            "2025-11-27T03:04:05.007Z");
}

}  // namespace
}  // namespace medreact
