#include "service/worklist_queue.h"

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

namespace medreact::service {
namespace {

namespace fs = std::filesystem;

// The lease's heartbeat for one job, on a thread of its own; it also passes
// the worker's stop on to the job's case.
class JobHeartbeat {
 public:
  JobHeartbeat(JobQueue& queue, const Job& job, const std::string& owner, const WorkerOptions& options,
               CancellationToken job_cancel)
      : thread_([this, &queue, id = job.id, owner, &options, job_cancel] {
          const auto period = std::max(std::chrono::milliseconds(10), options.lease / 3);
          auto next = std::chrono::steady_clock::now() + period;
          std::unique_lock<std::mutex> lock(mu_);
          while (!finished_) {
            cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return finished_; });
            if (finished_) break;
            if (options.stop.cancelled() && !stopped_) {
              stopped_ = true;
              job_cancel.Cancel();  // the case ends `interrupted`, its checkpoint kept
            }
            if (std::chrono::steady_clock::now() < next) continue;
            next = std::chrono::steady_clock::now() + period;
            lock.unlock();
            const Status s = queue.Heartbeat(id, owner, options.lease);
            lock.lock();
            if (s.code() == StatusCode::kFailedPrecondition) {
              lost_ = true;  // taken over: this attempt's work is not wanted any more
              job_cancel.Cancel();
              break;
            }
          }
        }) {}
  ~JobHeartbeat() { Finish(); }
  void Finish() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      finished_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  bool lost() const { return lost_; }
  bool stopped() const { return stopped_; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool finished_ = false;  // guarded by mu_
  bool lost_ = false;      // read after Finish
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace

std::string WorklistBatchLabel(const std::string& dir) {
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(dir), ec);
  if (ec) abs = fs::absolute(dir).lexically_normal();
  std::string label = abs.string();
  while (label.size() > 1 && label.back() == '/') label.pop_back();
  return label;
}

Result<std::string> EnqueueWorklist(JobQueue& queue, const std::string& dir, const std::string& skip) {
  Result<std::vector<std::string>> cases = ListWorklistCases(dir, skip);
  if (!cases.ok()) return cases.status();
  const std::string label = WorklistBatchLabel(dir);
  std::vector<JobSpec> jobs;
  for (const std::string& name : *cases) jobs.push_back({name, Json{{"worklist", label}}});
  return queue.Enqueue(label, jobs);
}

WorkerReport RunWorker(RunService& service, JobQueue& queue, const TriageSettings& settings,
                       const WorkerOptions& options) {
  WorkerReport report;
  std::mutex mu;  // report, on_job_end, warn
  auto warn = [&](const std::string& w) {
    std::lock_guard<std::mutex> lock(mu);
    if (options.warn) options.warn(w);
  };
  Result<TriagePlan> plan = PlanTriage(service, settings);
  if (!plan.ok()) {
    report.error = plan.status();
    return report;
  }
  const std::string owner = service.store() ? service.store()->owner() : NewRunOwnerId();
  std::atomic<bool> quit{false};
  std::atomic<int> claimed{0};

  auto end = [&](const Job& job, const std::string& outcome) {
    std::lock_guard<std::mutex> lock(mu);
    if (outcome == "done") ++report.done;
    if (outcome == "failed" || outcome == "dead") ++report.failed;
    if (outcome == "released") ++report.released;
    if (outcome == "lost") ++report.lost;
    if (options.on_job_end) options.on_job_end(job, outcome);
  };
  auto queue_failed = [&](const Status& s) {
    std::lock_guard<std::mutex> lock(mu);
    if (report.error.ok()) report.error = s;
    quit = true;
  };

  auto work_on = [&](const Job& job) {
    const std::string dir = StringOr(job.inputs, "worklist");
    CancellationToken job_cancel;
    WorklistOptions o;
    o.concurrency = 1;
    o.make_model = plan->make_model;
    o.triage = plan->config;
    o.triage.cancel = job_cancel;
    if (plan->make_model) {
      o.store = service.store();
      o.model_identity = plan->stored_model;
    }
    if (settings.record_always && service.store()) {
      o.store = service.store();
      o.record_always = true;
    }
    o.on_warning = warn;
    if (!job.run_id.empty()) o.resume_runs[job.case_name] = job.run_id;
    o.on_run_stored = [&](const std::string&, const std::string& run_id) {
      if (run_id == job.run_id) return;
      if (Status s = queue.SetRunId(job.id, owner, run_id); !s.ok()) {
        warn("job " + std::to_string(job.id) + ": its run id was not kept (" + s.message() + ")");
      }
    };
    std::string digest;
    WorklistReport ran;
    bool lost = false, stopped = false;
    {
      JobHeartbeat heartbeat(queue, job, owner, options, job_cancel);
      if (dir.empty()) {
        ran.cases.push_back({.name = job.case_name, .error = "the job names no worklist folder"});
      } else {
        digest = CaseDigest((fs::path(dir) / job.case_name).string(), o);
        ran = RunWorklist(dir, {job.case_name}, o);
      }
      heartbeat.Finish();
      lost = heartbeat.lost();
      stopped = heartbeat.stopped();
    }
    const WorklistCaseResult& c = ran.cases.at(0);
    if (lost) {
      end(job, "lost");
      return;
    }
    if (stopped || (options.stop.cancelled() && !c.ok)) {
      if (Status s = queue.Release(job.id, owner); !s.ok()) warn("job " + std::to_string(job.id) + ": " + s.message());
      end(job, "released");
      return;
    }
    if (c.ok) {
      const std::string run_id = c.trace ? c.trace->run_id : std::string();
      Status s = queue.Complete(job.id, owner, DumpJson(WorklistCaseToJson(c, ran.planner, digest)), run_id);
      if (s.code() == StatusCode::kFailedPrecondition) {
        end(job, "lost");
      } else if (!s.ok()) {
        queue_failed(s);
      } else {
        end(job, "done");
      }
      return;
    }
    Result<std::string> state = queue.Fail(job.id, owner, c.error);
    if (state.status().code() == StatusCode::kFailedPrecondition) {
      end(job, "lost");
    } else if (!state.ok()) {
      queue_failed(state.status());
    } else {
      end(job, *state == "dead" ? "dead" : "failed");
    }
  };

  auto loop = [&] {
    while (!quit && !options.stop.cancelled()) {
      if (options.once && claimed.load() >= 1) return;
      Result<std::optional<Job>> job = queue.Claim(owner, options.lease);
      if (!job.ok()) {
        queue_failed(job.status());
        return;
      }
      if (!job->has_value()) {
        if (options.once) return;
        if (options.until_empty) {
          Result<int64_t> pending = queue.Pending();
          if (!pending.ok()) {
            queue_failed(pending.status());
            return;
          }
          if (*pending == 0) return;
        }
        options.stop.WaitFor(options.poll);
        continue;
      }
      ++claimed;
      try {
        work_on(**job);
      } catch (const std::exception& e) {  // a bug must cost one job, never the worker
        (void)queue.Fail((*job)->id, owner, std::string("internal error: ") + e.what());
      }
    }
  };
  const int threads = std::clamp(options.once ? 1 : options.concurrency, 1, 64);
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(loop);
  loop();
  for (auto& t : pool) t.join();
  return report;
}

WorklistReport CollectWorklist(const std::vector<Job>& jobs, const std::string& out_dir, double elapsed_ms) {
  std::vector<FinishedCase> cases;
  for (const Job& job : jobs) {
    if (job.state == "done") {
      Result<OrderedJson> parsed = ParseOrderedJson(job.result);
      Result<FinishedCase> c = parsed.ok() ? WorklistCaseFromJson(*parsed) : Result<FinishedCase>(parsed.status());
      if (c.ok() && c->result.name == job.case_name) {
        cases.push_back(std::move(*c));
      } else {
        cases.push_back(FailedCase(job.case_name, "its worker's result cannot be read (" +
                                                      (c.ok() ? std::string("another case's") : c.status().message()) +
                                                      ")"));
      }
    } else if (job.state == "dead") {
      cases.push_back(FailedCase(job.case_name, "dead after " + std::to_string(job.attempts) +
                                                    " attempt(s): " + job.last_error));
    } else {
      cases.push_back(FailedCase(job.case_name, "not finished (" + job.state + ")"));
    }
  }
  return FinishWorklist(out_dir, std::move(cases), elapsed_ms);
}

}  // namespace medreact::service
