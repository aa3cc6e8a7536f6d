// The job queue (job_queue.h) against each backend: SQLite (the run store's
// file) and PostgreSQL (a real server started by the test harness; skipped
// with its reason when it cannot start). Claims are exclusive under
// concurrent claimers with connections of their own, an expired lease is
// taken over (and the late worker's writes refused), a heartbeat keeps a job,
// a failure is retried after its backoff and is dead after max_attempts, a
// job keeps its run id across attempts, and a batch can be waited for. The
// SQLite tables arrive as schema version 5, from every earlier version.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/job_queue.h"
#include "store/pg_conn.h"
#include "store/pg_schema.h"
#include "store/run_store.h"
#include "store/run_store_db.h"
#include "testing/job_queue_backend.h"
#include "testing/postgres_server.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using std::chrono::milliseconds;

std::vector<JobSpec> Cases(int n) {
  std::vector<JobSpec> out;
  for (int i = 0; i < n; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "case%02d", i);
    out.push_back({name, Json{{"i", i}}});
  }
  return out;
}

class JobQueueTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    backend_ = testing::MakeJobQueueBackend(GetParam());
    if (!backend_->available()) GTEST_SKIP() << backend_->skip_reason();
  }
  std::unique_ptr<JobQueue> Open(JobQueueOptions options = {}) {
    Result<std::unique_ptr<JobQueue>> q = backend_->Open(options);
    EXPECT_TRUE(q.ok()) << q.status().message();
    return q.ok() ? std::move(*q) : nullptr;
  }
  std::unique_ptr<testing::JobQueueBackend> backend_;
};

TEST_P(JobQueueTest, EnqueueListsTheBatchQueued) {
  auto q = Open();
  ASSERT_TRUE(q);
  Result<std::string> batch = q->Enqueue("/some/worklist", Cases(3));
  ASSERT_TRUE(batch.ok()) << batch.status().message();
  EXPECT_EQ(batch->rfind("b-", 0), 0u);
  Result<std::vector<Job>> jobs = q->ListBatch(*batch);
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 3u);
  EXPECT_EQ((*jobs)[1].case_name, "case01");
  EXPECT_EQ((*jobs)[1].inputs, (Json{{"i", 1}}));
  EXPECT_EQ((*jobs)[1].state, "queued");
  EXPECT_EQ((*jobs)[1].attempts, 0);
  Result<BatchInfo> info = q->LatestBatch("/some/worklist");
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_EQ(info->id, *batch);
  EXPECT_EQ(info->jobs, 3);
  EXPECT_EQ(info->queued, 3);
  EXPECT_FALSE(info->finished());
  EXPECT_EQ(q->Pending().value_or(-1), 3);
  EXPECT_EQ(q->Batch("b-nope").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(q->LatestBatch("/other").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(q->Enqueue("x", {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(q->Enqueue("x", {{"a", {}}, {"a", {}}}).status().code(), StatusCode::kInvalidArgument);
}

TEST_P(JobQueueTest, ConcurrentClaimersNeverShareAJob) {
  auto setup = Open();
  ASSERT_TRUE(setup);
  Result<std::string> batch = setup->Enqueue("w", Cases(40));
  ASSERT_TRUE(batch.ok()) << batch.status().message();
  constexpr int kClaimers = 4;
  std::vector<std::vector<std::string>> got(kClaimers);
  std::vector<std::string> errors(kClaimers);
  std::vector<std::thread> threads;
  for (int t = 0; t < kClaimers; ++t) {
    threads.emplace_back([&, t] {
      auto q = backend_->Open({});  // a connection of its own, as a worker process has
      if (!q.ok()) {
        errors[t] = q.status().message();
        return;
      }
      const std::string owner = "worker-" + std::to_string(t);
      for (;;) {
        Result<std::optional<Job>> job = (*q)->Claim(owner, milliseconds(60'000));
        if (!job.ok()) {
          errors[t] = job.status().message();
          return;
        }
        if (!job->has_value()) return;
        got[t].push_back((*job)->case_name);
        if (Status s = (*q)->Complete((*job)->id, owner, "{}", ""); !s.ok()) {
          errors[t] = s.message();
          return;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  std::multiset<std::string> all;
  for (int t = 0; t < kClaimers; ++t) {
    EXPECT_EQ(errors[t], "") << "claimer " << t;
    all.insert(got[t].begin(), got[t].end());
  }
  EXPECT_EQ(all.size(), 40u);
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), 40u);  // none twice
  Result<BatchInfo> info = setup->Batch(*batch);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->done, 40);
  EXPECT_TRUE(info->finished());
}

TEST_P(JobQueueTest, ExpiredLeaseIsTakenOverAndTheLateWorkerFenced) {
  auto q = Open();
  ASSERT_TRUE(q);
  ASSERT_TRUE(q->Enqueue("w", Cases(1)).ok());
  Result<std::optional<Job>> first = q->Claim("w1", milliseconds(1));
  ASSERT_TRUE(first.ok() && first->has_value());
  ASSERT_TRUE(q->SetRunId((*first)->id, "w1", "run_abc").ok());
  std::this_thread::sleep_for(milliseconds(20));
  Result<std::optional<Job>> second = q->Claim("w2", milliseconds(60'000));
  ASSERT_TRUE(second.ok()) << second.status().message();
  ASSERT_TRUE(second->has_value());
  EXPECT_EQ((*second)->id, (*first)->id);
  EXPECT_EQ((*second)->owner, "w2");
  EXPECT_EQ((*second)->attempts, 2);
  EXPECT_EQ((*second)->run_id, "run_abc");  // the takeover goes on with the first attempt's run
  EXPECT_EQ(q->Heartbeat((*first)->id, "w1", milliseconds(60'000)).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(q->Complete((*first)->id, "w1", "{\"late\":true}", "").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(q->Fail((*first)->id, "w1", "late").status().code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(q->Complete((*second)->id, "w2", "{\"ok\":true}", "run_abc").ok());
  Result<std::vector<Job>> jobs = q->ListBatch((*first)->batch_id);
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ((*jobs)[0].state, "done");
  EXPECT_EQ((*jobs)[0].result, "{\"ok\":true}");
  EXPECT_EQ((*jobs)[0].owner, "");
}

TEST_P(JobQueueTest, HeartbeatKeepsTheJob) {
  auto q = Open();
  ASSERT_TRUE(q);
  ASSERT_TRUE(q->Enqueue("w", Cases(1)).ok());
  Result<std::optional<Job>> job = q->Claim("w1", milliseconds(1));
  ASSERT_TRUE(job.ok() && job->has_value());
  ASSERT_TRUE(q->Heartbeat((*job)->id, "w1", milliseconds(600'000)).ok());
  std::this_thread::sleep_for(milliseconds(20));  // past the first lease, not the renewed one
  Result<std::optional<Job>> other = q->Claim("w2", milliseconds(60'000));
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value());
  Result<std::vector<Job>> jobs = q->ListBatch((*job)->batch_id);
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ((*jobs)[0].owner, "w1");
  EXPECT_GT((*jobs)[0].lease_until, (*job)->lease_until + 500'000);
}

TEST_P(JobQueueTest, FailureIsRetriedAfterItsBackoff) {
  auto q = Open({.max_attempts = 3, .backoff_base = milliseconds(3'600'000), .backoff_max = milliseconds(7'200'000)});
  ASSERT_TRUE(q);
  ASSERT_TRUE(q->Enqueue("w", Cases(1)).ok());
  Result<std::optional<Job>> job = q->Claim("w1", milliseconds(60'000));
  ASSERT_TRUE(job.ok() && job->has_value());
  const auto before = std::chrono::duration_cast<milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  Result<std::string> state = q->Fail((*job)->id, "w1", "model server down");
  ASSERT_TRUE(state.ok()) << state.status().message();
  EXPECT_EQ(*state, "queued");
  Result<std::vector<Job>> jobs = q->ListBatch((*job)->batch_id);
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ((*jobs)[0].last_error, "model server down");
  EXPECT_GE((*jobs)[0].available_at, before + 3'600'000);  // backoff × 2^0
  Result<std::optional<Job>> again = q->Claim("w2", milliseconds(60'000));
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->has_value());  // not before its backoff

  // Exponential, capped.
  JobQueueOptions o{.backoff_base = milliseconds(1000), .backoff_max = milliseconds(5000)};
  EXPECT_EQ(JobQueue::Backoff(o, 1), milliseconds(1000));
  EXPECT_EQ(JobQueue::Backoff(o, 2), milliseconds(2000));
  EXPECT_EQ(JobQueue::Backoff(o, 3), milliseconds(4000));
  EXPECT_EQ(JobQueue::Backoff(o, 4), milliseconds(5000));
  EXPECT_EQ(JobQueue::Backoff(o, 60), milliseconds(5000));
}

TEST_P(JobQueueTest, DeadAfterMaxAttemptsWithItsLastError) {
  auto q = Open({.max_attempts = 2, .backoff_base = milliseconds(0)});
  ASSERT_TRUE(q);
  Result<std::string> batch = q->Enqueue("w", Cases(1));
  ASSERT_TRUE(batch.ok());
  for (int attempt = 1; attempt <= 2; ++attempt) {
    Result<std::optional<Job>> job = q->Claim("w1", milliseconds(60'000));
    ASSERT_TRUE(job.ok() && job->has_value()) << "attempt " << attempt;
    EXPECT_EQ((*job)->attempts, attempt);
    Result<std::string> state = q->Fail((*job)->id, "w1", "error " + std::to_string(attempt));
    ASSERT_TRUE(state.ok());
    EXPECT_EQ(*state, attempt == 2 ? "dead" : "queued");
  }
  Result<std::optional<Job>> none = q->Claim("w1", milliseconds(60'000));
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  Result<std::vector<Job>> jobs = q->ListBatch(*batch);
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ((*jobs)[0].state, "dead");
  EXPECT_EQ((*jobs)[0].last_error, "error 2");
  Result<BatchInfo> info = q->Batch(*batch);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->dead, 1);
  EXPECT_TRUE(info->finished());
  EXPECT_EQ(q->Pending().value_or(-1), 0);
}

TEST_P(JobQueueTest, AJobThatLosesEveryWorkerEndsDead) {
  auto q = Open({.max_attempts = 2});
  ASSERT_TRUE(q);
  Result<std::string> batch = q->Enqueue("w", Cases(1));
  ASSERT_TRUE(batch.ok());
  ASSERT_TRUE(q->Claim("w1", milliseconds(1)).value_or(std::nullopt).has_value());
  std::this_thread::sleep_for(milliseconds(10));
  ASSERT_TRUE(q->Claim("w2", milliseconds(1)).value_or(std::nullopt).has_value());  // attempt 2
  std::this_thread::sleep_for(milliseconds(10));
  Result<std::optional<Job>> third = q->Claim("w3", milliseconds(60'000));
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third->has_value());
  Result<std::vector<Job>> jobs = q->ListBatch(*batch);
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ((*jobs)[0].state, "dead");
  EXPECT_NE((*jobs)[0].last_error.find("worker stopped"), std::string::npos) << (*jobs)[0].last_error;
}

TEST_P(JobQueueTest, ReleaseGivesTheJobBackWithoutCountingTheAttempt) {
  auto q = Open();
  ASSERT_TRUE(q);
  ASSERT_TRUE(q->Enqueue("w", Cases(1)).ok());
  Result<std::optional<Job>> job = q->Claim("w1", milliseconds(60'000));
  ASSERT_TRUE(job.ok() && job->has_value());
  ASSERT_TRUE(q->Release((*job)->id, "w1").ok());
  Result<std::optional<Job>> again = q->Claim("w2", milliseconds(60'000));
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_EQ((*again)->attempts, 1);
}

TEST_P(JobQueueTest, WaitBatchReturnsOnceEveryJobEnded) {
  auto q = Open({.max_attempts = 1});
  ASSERT_TRUE(q);
  Result<std::string> batch = q->Enqueue("w", Cases(3));
  ASSERT_TRUE(batch.ok());
  Result<std::vector<Job>> early = q->WaitBatch(*batch, milliseconds(50), milliseconds(5));
  EXPECT_EQ(early.status().code(), StatusCode::kTimeout);
  EXPECT_NE(early.status().message().find("3 queued"), std::string::npos) << early.status().message();
  std::thread worker([&] {
    auto own = backend_->Open({.max_attempts = 1});
    if (!own.ok()) return;
    for (int i = 0;; ++i) {
      Result<std::optional<Job>> job = (*own)->Claim("w", milliseconds(60'000));
      if (!job.ok() || !job->has_value()) return;
      std::this_thread::sleep_for(milliseconds(20));
      if (i == 1) {
        (void)(*own)->Fail((*job)->id, "w", "broken case");
      } else {
        (void)(*own)->Complete((*job)->id, "w", "{\"n\":" + std::to_string(i) + "}", "run_" + std::to_string(i));
      }
    }
  });
  Result<std::vector<Job>> jobs = q->WaitBatch(*batch, milliseconds(0), milliseconds(5));
  worker.join();
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 3u);
  std::map<std::string, int> states;
  for (const Job& j : *jobs) ++states[j.state];
  EXPECT_EQ(states["done"], 2);
  EXPECT_EQ(states["dead"], 1);
  EXPECT_EQ((*jobs)[0].run_id, "run_0");
}

INSTANTIATE_TEST_SUITE_P(JobQueue, JobQueueTest, ::testing::ValuesIn(testing::JobQueueBackendNames()),
                         [](const auto& info) { return info.param; });

// The queue's tables arrive as schema version 5 from each earlier version,
// the runs already stored kept.
TEST(JobQueueSqliteMigration, FromEveryEarlierVersion) {
  for (int from = 1; from < RunStore::kSchemaVersion; ++from) {
    SCOPED_TRACE("from version " + std::to_string(from));
    testing::TempDir dir;
    const std::string path = dir.File("runs.sqlite");
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    for (const auto& m : run_store_detail::kMigrations) {
      if (m.version > from) break;
      ASSERT_EQ(sqlite3_exec(db, m.sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    }
    const std::string set = "PRAGMA user_version = " + std::to_string(from) +
                            "; PRAGMA application_id = " + std::to_string(run_store_detail::kApplicationId) +
                            "; INSERT INTO runs(id, app, inputs, model, status, created_at, updated_at) "
                            "VALUES ('run_old', 'triage', '{}', '{}', 'finished', '2026-01-01T00:00:00Z', "
                            "'2026-01-01T00:00:00Z');";
    ASSERT_EQ(sqlite3_exec(db, set.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);

    Result<std::unique_ptr<JobQueue>> q = OpenSqliteJobQueue(path);
    ASSERT_TRUE(q.ok()) << q.status().message();
    Result<std::string> batch = (*q)->Enqueue("w", Cases(2));
    ASSERT_TRUE(batch.ok()) << batch.status().message();
    EXPECT_EQ((*q)->Batch(*batch).value_or(BatchInfo{}).jobs, 2);
    Result<std::unique_ptr<RunStore>> store = RunStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status().message();
    Result<RunRecord> old = (*store)->Get("run_old");
    ASSERT_TRUE(old.ok()) << old.status().message();
    EXPECT_EQ(old->status, "finished");
    sqlite3* check = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &check), SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(check, "PRAGMA user_version", -1, &s, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(s, 0), RunStore::kSchemaVersion);
    sqlite3_finalize(s);
    sqlite3_close(check);
  }
}

// The PostgreSQL tables arrive as schema version 2 on a database at
// version 1 (the run store's tables only), its rows kept.
TEST(JobQueuePgMigration, FromVersion1) {
  MEDREACT_REQUIRE_POSTGRES(url);
  {
    Result<std::unique_ptr<PgConnection>> conn = PgConnection::Connect(url);
    ASSERT_TRUE(conn.ok()) << conn.status().message();
    ASSERT_TRUE(ApplyPgSchema(**conn, 1).ok());
    ASSERT_EQ(ReadPgSchemaVersion(**conn).value_or(-1), 1);
    ASSERT_TRUE((*conn)
                    ->Exec("INSERT INTO runs(id, app, inputs, model, status, created_at, updated_at) VALUES "
                           "('run_old', 'triage', '{}', '{}', 'finished', '2026-01-01T00:00:00Z', "
                           "'2026-01-01T00:00:00Z')")
                    .ok());
  }
  Result<std::unique_ptr<JobQueue>> q = OpenPgJobQueue(url);
  ASSERT_TRUE(q.ok()) << q.status().message();
  Result<std::string> batch = (*q)->Enqueue("w", Cases(2));
  ASSERT_TRUE(batch.ok()) << batch.status().message();
  EXPECT_EQ((*q)->Batch(*batch).value_or(BatchInfo{}).jobs, 2);
  Result<std::unique_ptr<PgConnection>> conn = PgConnection::Connect(url);
  ASSERT_TRUE(conn.ok());
  EXPECT_EQ(ReadPgSchemaVersion(**conn).value_or(-1), 2);
  Result<PgRows> old = (*conn)->Exec("SELECT status FROM runs WHERE id = 'run_old'");
  ASSERT_TRUE(old.ok());
  ASSERT_EQ(old->size(), 1);
  EXPECT_EQ(old->Text(0, 0), "finished");
}

}  // namespace
}  // namespace medreact
