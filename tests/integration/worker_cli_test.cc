// The worklist as a queue (issue 28) with real processes: `medreact worker`
// processes take the cases `worklist DIR --store S --enqueue` put in, and
// `worklist DIR --store S --wait --out OUT` writes their results.
//
// WorkerKill: 3 workers on 30 cases (the example worklist's cases, repeated)
// with the scripted model server answering each of a case's 4 model calls
// after a fixed delay, so a case takes long enough for one worker to be
// killed (SIGKILL) in the middle of one: once its run holds a finished tool
// call. Then every case is done exactly once (one job done per case, one
// stored triage run per case, finished), no tool call that finished is run
// again (one tool_finished per call id in each run's stored events), and the
// killed case went on with the same run from its checkpoint: its job took a
// second attempt on the same run id, the events stored before the kill are
// still its first ones and more follow, and the model server saw at most one
// request more than 30 cases × 4 (the one the kill cut; starting the case
// over would have repeated every answered one). On SQLite and on PostgreSQL
// (skipped, saying why, when PostgreSQL or its run store is not there).
//
// WorkerCli.EnqueueWaitWritesWhatALocalRunWrites: the same DIR through the
// queue and through a local run gives the same files (but times and run ids).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "medreact/json.h"
#include "store/job_queue.h"
#include "store/pg_conn.h"
#include "store/run_store.h"
#include "testing/build_paths.h"
#include "testing/job_queue_backend.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::BackgroundCommand;
using testing::MockLlmProcess;
using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::TempDir;

constexpr int kModelCalls = 4;

// One reply per turn (by_turn: every case's conversation gets the same
// four), each after `delay_ms`.
std::string Script(int delay_ms) {
  const char* replies[] = {
      R"({"tool_calls": [{"id": "c1", "name": "check_medication_status", "arguments": "{\"medication_name\": \"anticoag\"}"}]})",
      R"({"tool_calls": [{"id": "c2", "name": "get_recent_labs", "arguments": "{\"category\": \"Coag\"}"}]})",
      R"({"tool_calls": [{"id": "c3", "name": "get_vital_signs", "arguments": "{}"}]})",
      R"({"tool_calls": [{"id": "c4", "name": "submit_assessment", "arguments": "{\"final_assessment\": \"Reviewed.\", \"risk_adjustment\": \"NONE\", \"critical_findings\": []}"}]})"};
  Json responses = Json::array();
  for (const char* r : replies) {
    responses.push_back({{"delay_ms", delay_ms}, {"message", *ParseJson(r)}});
  }
  return DumpJson(Json{{"select", "by_turn"}, {"responses", responses}});
}

// `n` case folders copied from the example worklist (its cases repeated).
std::vector<std::string> MakeCases(const std::string& dir, int n) {
  const fs::path examples = fs::path(MEDREACT_SOURCE_DIR) / "examples" / "worklist";
  std::vector<fs::path> sources;
  for (const auto& e : fs::directory_iterator(examples)) {
    if (e.is_directory()) sources.push_back(e.path());
  }
  std::sort(sources.begin(), sources.end());
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) {
    char prefix[8];
    std::snprintf(prefix, sizeof prefix, "%02d-", i);
    const std::string name = prefix + sources[i % sources.size()].filename().string();
    fs::copy(sources[i % sources.size()], fs::path(dir) / name, fs::copy_options::recursive);
    names.push_back(name);
  }
  return names;
}

// The owner id's pid ("host/pid/start/n"); 0 when it is not one.
pid_t OwnerPid(const std::string& owner) {
  std::stringstream ss(owner);
  std::string host, pid;
  std::getline(ss, host, '/');
  std::getline(ss, pid, '/');
  return static_cast<pid_t>(std::atol(pid.c_str()));
}

Result<std::unique_ptr<RunStore>> OpenStore(const std::string& store) {
  return RunStore::Open(store, {.create_if_missing = false, .read_only = !IsPostgresUrl(store)});
}

class WorkerKill : public ::testing::TestWithParam<std::string> {};

TEST_P(WorkerKill, ThreeWorkersThirtyCasesOneKilledMidCase) {
  auto backend = testing::MakeJobQueueBackend(GetParam());
  if (!backend->available()) GTEST_SKIP() << backend->skip_reason();
  const std::string store = backend->store();
  TempDir dir;
  const std::string cases_dir = dir.File("cases");
  fs::create_directories(cases_dir);
  const std::vector<std::string> names = MakeCases(cases_dir, 30);
  MockLlmProcess mock(Script(150));
  ASSERT_TRUE(mock.ok());

  auto enqueued = RunCommand({MEDREACT_BINARY, "worklist", cases_dir, "--store", store, "--enqueue"});
  ASSERT_EQ(enqueued.exit_code, 0) << enqueued.err;
  std::string batch = enqueued.out;
  while (!batch.empty() && batch.back() == '\n') batch.pop_back();
  ASSERT_EQ(batch.rfind("b-", 0), 0u) << enqueued.out;
  {
    Result<std::unique_ptr<RunStore>> probe = OpenStore(store);
    if (!probe.ok()) GTEST_SKIP() << "the run store cannot be opened at " << store << ": " << probe.status().message();
  }

  std::vector<std::unique_ptr<BackgroundCommand>> workers;
  for (int i = 0; i < 3; ++i) {
    workers.push_back(std::make_unique<BackgroundCommand>(std::vector<std::string>{
        MEDREACT_BINARY, "worker", "--store", store, "--llm-url", mock.base_url(), "--until-empty", "--lease", "30"}));
  }

  // A running case whose run holds a finished tool call: its worker is killed.
  Result<std::unique_ptr<JobQueue>> queue = backend->Open({});
  ASSERT_TRUE(queue.ok()) << queue.status().message();
  std::string killed_case, killed_run;
  std::vector<RunEvent> before;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (killed_case.empty() && std::chrono::steady_clock::now() < give_up) {
    Result<std::vector<Job>> jobs = (*queue)->ListBatch(batch);
    ASSERT_TRUE(jobs.ok()) << jobs.status().message();
    Result<std::unique_ptr<RunStore>> reader = OpenStore(store);
    ASSERT_TRUE(reader.ok()) << reader.status().message();
    for (const Job& j : *jobs) {
      if (j.state != "running" || j.run_id.empty()) continue;
      Result<std::vector<RunEvent>> events = (*reader)->Events(j.run_id);
      if (!events.ok()) continue;
      bool tool_done = false;
      for (const RunEvent& e : *events) tool_done = tool_done || e.type == "tool_finished";
      const pid_t pid = OwnerPid(j.owner);
      auto worker = std::find_if(workers.begin(), workers.end(), [&](const auto& w) { return w->pid() == pid; });
      if (!tool_done || worker == workers.end()) continue;
      (*worker)->Signal(SIGKILL);
      (*worker)->Wait();
      killed_case = j.case_name;
      killed_run = j.run_id;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_FALSE(killed_case.empty()) << "no worker was caught mid-case";
  {
    Result<std::unique_ptr<RunStore>> reader = OpenStore(store);
    ASSERT_TRUE(reader.ok());
    Result<std::vector<RunEvent>> events = (*reader)->Events(killed_run);
    ASSERT_TRUE(events.ok());
    before = *events;  // what the killed worker committed
    Result<RunRecord> run = (*reader)->Get(killed_run);
    ASSERT_TRUE(run.ok());
    EXPECT_GE(run->checkpoints, 1);
  }

  for (auto& w : workers) {
    if (w->pid() <= 0) continue;
    testing::ProcessResult r = w->Wait(std::chrono::seconds(120));
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }

  // Every case done exactly once.
  Result<std::vector<Job>> jobs = (*queue)->ListBatch(batch);
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 30u);
  std::map<std::string, std::string> run_of;  // case → its job's run
  for (const Job& j : *jobs) {
    EXPECT_EQ(j.state, "done") << j.case_name << ": " << j.last_error;
    run_of[j.case_name] = j.run_id;
    if (j.case_name == killed_case) {
      EXPECT_EQ(j.attempts, 2);
      EXPECT_EQ(j.run_id, killed_run);  // the same run, resumed
      Result<Json> result = ParseJson(j.result);
      ASSERT_TRUE(result.ok());
      EXPECT_EQ((*result)["resumed"], true);
    } else {
      EXPECT_EQ(j.attempts, 1) << j.case_name;
    }
  }
  Result<std::unique_ptr<RunStore>> reader = OpenStore(store);
  ASSERT_TRUE(reader.ok());
  Result<std::vector<RunRecord>> runs = (*reader)->List({.app = "triage"});
  ASSERT_TRUE(runs.ok());
  std::map<std::string, int> runs_per_case;
  for (const RunRecord& r : *runs) {
    const std::string name = StringOr(r.inputs.value("worklist", Json::object()), "case");
    ++runs_per_case[name];
    EXPECT_EQ(r.status, "finished") << name;
    EXPECT_EQ(run_of[name], r.id) << name;
    // No finished tool call ran twice.
    Result<std::vector<RunEvent>> events = (*reader)->Events(r.id);
    ASSERT_TRUE(events.ok());
    std::map<std::string, int> finished;
    for (const RunEvent& e : *events) {
      if (e.type == "tool_finished") ++finished[e.tool_call_id];
    }
    EXPECT_EQ(finished.size(), static_cast<size_t>(kModelCalls)) << name;  // c1..c4
    for (const auto& [id, n] : finished) EXPECT_EQ(n, 1) << name << " " << id;
  }
  EXPECT_EQ(runs_per_case.size(), 30u);
  for (const auto& [name, n] : runs_per_case) EXPECT_EQ(n, 1) << name;

  // The killed case went on from its checkpoint: its first events kept, more after them.
  Result<std::vector<RunEvent>> after = (*reader)->Events(killed_run);
  ASSERT_TRUE(after.ok());
  ASSERT_GT(after->size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ((*after)[i].seq, before[i].seq);
    EXPECT_EQ((*after)[i].type, before[i].type);
    EXPECT_EQ((*after)[i].tool_call_id, before[i].tool_call_id);
  }
  EXPECT_LE(mock.request_lines().size(), 30u * kModelCalls + 1);

  // And the batch's results.
  auto waited = RunCommand({MEDREACT_BINARY, "worklist", cases_dir, "--store", store, "--wait", "--out",
                            dir.File("out"), "--json"});
  EXPECT_EQ(waited.exit_code, 0) << waited.err;
  Result<Json> report = ParseJson(waited.out);
  ASSERT_TRUE(report.ok()) << waited.out;
  EXPECT_EQ((*report)["counts"]["triaged"], 30);
  EXPECT_EQ((*report)["counts"]["failed"], 0);
}

INSTANTIATE_TEST_SUITE_P(Worker, WorkerKill, ::testing::ValuesIn(testing::JobQueueBackendNames()),
                         [](const auto& info) { return info.param; });

// SIGTERM: the worker stops its case (stored `interrupted`, resumable),
// gives the job back without counting the attempt and exits 143; the next
// worker goes on with the same run.
TEST(WorkerCli, SigtermGivesTheJobBackAndTheNextWorkerResumesItsRun) {
  TempDir dir;
  const std::string cases_dir = dir.File("cases");
  fs::create_directories(cases_dir);
  MakeCases(cases_dir, 1);
  MockLlmProcess mock(Script(400));
  ASSERT_TRUE(mock.ok());
  const std::string store = dir.File("queue.sqlite");
  auto enqueued = RunCommand({MEDREACT_BINARY, "worklist", cases_dir, "--store", store, "--enqueue"});
  ASSERT_EQ(enqueued.exit_code, 0) << enqueued.err;
  std::string batch = enqueued.out.substr(0, enqueued.out.find('\n'));
  Result<std::unique_ptr<JobQueue>> queue = OpenJobQueue(store);
  ASSERT_TRUE(queue.ok());

  BackgroundCommand worker({MEDREACT_BINARY, "worker", "--store", store, "--llm-url", mock.base_url()});
  std::string run_id;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (run_id.empty() && std::chrono::steady_clock::now() < give_up) {
    Result<std::vector<Job>> jobs = (*queue)->ListBatch(batch);
    ASSERT_TRUE(jobs.ok());
    if ((*jobs)[0].state == "running") run_id = (*jobs)[0].run_id;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_FALSE(run_id.empty());
  worker.Signal(SIGTERM);
  testing::ProcessResult stopped = worker.Wait();
  EXPECT_EQ(stopped.exit_code, 143) << stopped.err;
  EXPECT_THAT(stopped.err, HasSubstr("released"));
  Result<std::vector<Job>> jobs = (*queue)->ListBatch(batch);
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ((*jobs)[0].state, "queued");
  EXPECT_EQ((*jobs)[0].attempts, 0);
  EXPECT_EQ((*jobs)[0].run_id, run_id);
  {
    Result<std::unique_ptr<RunStore>> reader = OpenStore(store);
    ASSERT_TRUE(reader.ok());
    EXPECT_EQ((*reader)->Get(run_id).value_or(RunRecord{}).status, "interrupted");
  }

  auto next = RunCommand({MEDREACT_BINARY, "worker", "--store", store, "--llm-url", mock.base_url(), "--once"});
  EXPECT_EQ(next.exit_code, 0) << next.err;
  jobs = (*queue)->ListBatch(batch);
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ((*jobs)[0].state, "done");
  EXPECT_EQ((*jobs)[0].run_id, run_id);
  Result<Json> result = ParseJson((*jobs)[0].result);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)["resumed"], true);
  Result<std::unique_ptr<RunStore>> reader = OpenStore(store);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->Get(run_id).value_or(RunRecord{}).status, "finished");
}

// A file's JSON without what differs between two runs of the same input: times and run ids.
Json Normalised(const std::string& path) {
  Result<Json> j = ParseJson(ReadFileOrEmpty(path));
  if (!j.ok()) return Json("unreadable: " + path);
  std::function<void(Json&)> strip = [&](Json& v) {
    if (v.is_object()) {
      for (auto it = v.begin(); it != v.end();) {
        const std::string& k = it.key();
        const bool timing = k.size() > 3 && k.compare(k.size() - 3, 3, "_ms") == 0;
        if (timing || k == "run_id" || k == "started_at") {
          it = v.erase(it);
        } else {
          strip(*it);
          ++it;
        }
      }
    } else if (v.is_array()) {
      for (Json& e : v) strip(e);
    }
  };
  strip(*j);
  return *j;
}

TEST(WorkerCli, EnqueueWaitWritesWhatALocalRunWrites) {
  TempDir dir;
  const std::string cases_dir = dir.File("cases");
  fs::create_directories(cases_dir);
  MakeCases(cases_dir, 4);
  // A broken case: reported the same way (failed), never retried forever.
  fs::create_directories(fs::path(cases_dir) / "99-broken");
  MockLlmProcess mock(Script(0));
  ASSERT_TRUE(mock.ok());
  const std::string store = dir.File("queue.sqlite");

  auto local = RunCommand({MEDREACT_BINARY, "worklist", cases_dir, "--out", dir.File("local"), "--store",
                           dir.File("local.sqlite"), "--llm-url", mock.base_url(), "-q"});
  EXPECT_EQ(local.exit_code, 1) << local.err;  // the broken case
  auto enqueued = RunCommand({MEDREACT_BINARY, "worklist", cases_dir, "--store", store, "--enqueue"});
  ASSERT_EQ(enqueued.exit_code, 0) << enqueued.err;
  auto worker = RunCommand({MEDREACT_BINARY, "worker", "--store", store, "--llm-url", mock.base_url(),
                            "--until-empty", "--backoff", "0", "--max-attempts", "2"});
  ASSERT_EQ(worker.exit_code, 0) << worker.err;
  EXPECT_THAT(worker.err, HasSubstr("4 done, 2 failed"));
  auto waited = RunCommand({MEDREACT_BINARY, "worklist", cases_dir, "--store", store, "--wait", "--out",
                            dir.File("queued")});
  EXPECT_EQ(waited.exit_code, 1) << waited.err;  // the dead job
  EXPECT_THAT(waited.err, HasSubstr("case 99-broken is dead after 2 attempt(s): no fhir.json or fhir.ndjson"));

  std::set<std::string> local_files, queued_files;
  for (const auto& e : fs::directory_iterator(dir.File("local"))) local_files.insert(e.path().filename().string());
  for (const auto& e : fs::directory_iterator(dir.File("queued"))) queued_files.insert(e.path().filename().string());
  EXPECT_EQ(queued_files, local_files);
  EXPECT_EQ(local_files.size(), 4u * 2 + 2);  // <case>.json and .trace.json, worklist.json, worklist.state.json
  for (const std::string& f : local_files) {
    Json a = Normalised(dir.File("local/" + f)), b = Normalised(dir.File("queued/" + f));
    if (f == "worklist.json") {  // a dead job's error names its attempts
      ASSERT_EQ(b["failed"].size(), 1u);
      EXPECT_THAT(b["failed"][0]["error"].get<std::string>(), HasSubstr(a["failed"][0]["error"].get<std::string>()));
      a.erase("failed");
      b.erase("failed");
    }
    EXPECT_EQ(a, b) << f;
  }

  // Waiting for a folder that has no batch, or an unknown batch: a clear error.
  auto none = RunCommand({MEDREACT_BINARY, "worklist", dir.File("local"), "--store", store, "--wait", "--out",
                          dir.File("x")});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_THAT(none.err, HasSubstr("no batch of"));
  auto unknown = RunCommand({MEDREACT_BINARY, "worklist", cases_dir, "--store", store, "--wait", "--batch", "b-0",
                             "--out", dir.File("x")});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("no batch 'b-0'"));
}

}  // namespace
}  // namespace medreact
