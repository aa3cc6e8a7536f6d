// `medreact worker --store STORE [model flags]`: takes triage jobs from the
// store's job queue (issue 28: `worklist DIR --store STORE --enqueue` puts a
// worklist's cases in) and triages them as a local worklist does, each
// model investigation recorded in the same store — so a worker killed
// mid-case leaves a checkpoint and the job, once its lease expired (at once
// when the worker was on this machine), is resumed from it by another.
// Several workers, on one machine (a SQLite store) or many (PostgreSQL),
// share the queue. SIGTERM or Ctrl-C: the cases under way stop (resumable),
// their jobs are given back, and the worker exits. --once: one job, then
// exit; --until-empty: exit when no job is queued or running anywhere.
// Progress on stderr, one line per job: its case and outcome, never record
// content.
#include <iostream>

#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/setting_flags.h"
#include "cli/store_flags.h"
#include "cli/triage_flags.h"
#include "core/printable.h"
#include "service/worklist_queue.h"
#include "store/job_queue.h"

namespace medreact::cli {
namespace {

struct WorkerFlags {
  TriageFlags triage;
  std::string store;
  int concurrency = 1;
  double lease_s = 60;
  int max_attempts = 3;
  double backoff_s = 2;
  bool once = false;
  bool until_empty = false;
  bool quiet = false;
};

int RunWorkerCommand(const WorkerFlags& flags) {
  auto fail = [](const std::string& message) {
    std::cerr << "medreact worker: " << WithFlagNames(message) << "\n";
    return kExitBadInput;
  };
  auto warn = [](const std::string& w) {
    std::cerr << "medreact worker: " << PrintableLine(WithFlagNames(w)) << "\n";
  };
  if (flags.lease_s < 1) return fail("--lease must be at least 1 second");
  service::TriageSettings settings = TriageSettingsOf(flags.triage);
  // Every case a stored run, whoever plans it (the rules planner too), as in
  // the server's own worklists: the page and `runs show` find it by its job.
  settings.record_always = true;
  Result<std::shared_ptr<RunStore>> store = OpenStoreForRun({.path = flags.store}, warn);
  if (!store.ok()) return fail(store.status().message());
  if (!*store) return fail("the run store '" + flags.store + "' cannot be opened");
  const JobQueueOptions queue_options{
      .max_attempts = flags.max_attempts,
      .backoff_base = std::chrono::milliseconds(static_cast<int64_t>(flags.backoff_s * 1000))};
  Result<std::unique_ptr<JobQueue>> queue = OpenJobQueue(flags.store, queue_options);
  if (!queue.ok()) return fail(queue.status().message());
  service::RunService runs(*store);
  service::WorkerOptions options{
      .concurrency = flags.concurrency,
      .lease = std::chrono::milliseconds(static_cast<int64_t>(flags.lease_s * 1000)),
      .once = flags.once,
      .until_empty = flags.until_empty,
      .stop = InstallInterruptHandlers(),
      .warn = warn,
  };
  if (!flags.quiet) {
    options.on_job_end = [](const Job& job, const std::string& outcome) {
      std::cerr << "medreact worker: job " << job.id << " (" << PrintableLine(job.case_name) << ", attempt "
                << job.attempts << "): " << outcome << "\n";
    };
  }
  service::WorkerReport report = service::RunWorker(runs, **queue, settings, options);
  if (!report.error.ok()) {
    std::cerr << "medreact worker: " << WithFlagNames(report.error.message()) << "\n";
    return ExitCodeAfterInterrupt(kExitRunFailed);
  }
  if (!flags.quiet) {
    std::cerr << "medreact worker: " << report.done << " done, " << report.failed << " failed, " << report.released
              << " given back, " << report.lost << " taken over\n";
  }
  return ExitCodeAfterInterrupt(kExitOk);
}

}  // namespace

void AddWorkerCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<WorkerFlags>();
  CLI::App* cmd = app.add_subcommand(
      "worker", "take worklist cases from the store's job queue (worklist DIR --store STORE --enqueue) and triage them");
  AddTriageFlags(cmd, &flags->triage);
  cmd->add_option("--store", flags->store, "the run store holding the queue: a SQLite file or a postgres:// URL")
      ->required();
  cmd->add_option("--concurrency", flags->concurrency, "jobs worked on at once (default 1)")->check(CLI::Range(1, 64));
  cmd->add_option("--lease", flags->lease_s, "seconds a job is held without a heartbeat (default 60)");
  cmd->add_option("--max-attempts", flags->max_attempts, "attempts before a failing job is dead (default 3)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--backoff", flags->backoff_s, "seconds before a failed job's first retry; doubled each time (default 2)")
      ->check(CLI::Range(0.0, 86400.0));
  cmd->add_flag("--once", flags->once, "work on one job, then exit");
  cmd->add_flag("--until-empty", flags->until_empty, "exit once no job is queued or running");
  cmd->add_flag("-q,--quiet", flags->quiet, "no progress on stderr");
  cmd->callback([flags, exit_code] { *exit_code = RunWorkerCommand(*flags); });
}

}  // namespace medreact::cli
