// `medreact worklist DIR`: triage every case folder of DIR concurrently, write
// one result (and trace) per case plus worklist.json sorted by final
// priority, and print a table. Progress goes to stderr: one updating line on
// a terminal, one line per case otherwise; it names cases, never record content.
//
// Durable worklists (issue 14, worklist.h): each case's model investigation
// is recorded in the run store (--store, MEDREACT_STORE or the default;
// --no-store: not recorded). With --resume, a run into the same --out skips
// the cases worklist.state.json says finished with the same inputs (files,
// planner, model, limits), triages changed ones again, and takes a case whose
// run was cut (killed, interrupted) on from its stored checkpoint; with
// --no-store it still skips finished cases, and cut ones start over. Without
// --resume every case is triaged, as before. --events FILE writes every
// case's events as JSON lines, each with its "case".
//
// Through a job queue (issue 28, service/worklist_queue.h): --enqueue puts
// DIR's cases in the --store's queue as one batch and prints its id (nothing
// runs here: `medreact worker` processes take them); --wait waits for DIR's
// newest batch (or --batch ID) and writes its results into --out as a local
// run does, its dead cases listed as failed (exit 1).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "apps/triage/worklist.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/setting_flags.h"
#include "cli/store_flags.h"
#include "cli/triage_flags.h"
#include "core/file_io.h"
#include "core/printable.h"
#include "service/triage_runs.h"
#include "service/worklist_queue.h"
#include "store/job_queue.h"

namespace medreact::cli {
namespace {

struct WorklistFlags {
  TriageFlags triage;
  std::string dir;
  int concurrency = 4;
  std::string out_dir = "worklist-results";
  bool json = false;
  bool quiet = false;
  bool resume = false;
  std::string events_path;
  StoreFlags store;
  bool enqueue = false;  // --enqueue: put the cases in the store's job queue
  bool wait = false;     // --wait: wait for the batch and write its results
  std::string batch;     // --batch: the batch to wait for ("" = DIR's newest)
  double wait_timeout_s = 0;  // --wait-timeout; 0 = no limit
};

// The table (or worklist.json) and the exit code of a finished report.
int PrintReport(const WorklistFlags& flags, const WorklistReport& report) {
  if (flags.json) {
    std::cout << Printable(DumpJson(WorklistJson(report), 2)) << "\n";
  } else {
    std::cout << "Worklist " << flags.dir << ": " << report.cases.size() << " cases, "
              << report.cases.size() - report.failed << " triaged, " << report.failed << " failed";
    if (flags.resume) std::cout << " (" << report.skipped << " finished earlier, " << report.resumed << " resumed)";
    std::cout << "; planner " << report.planner << "; " << static_cast<long long>(report.elapsed_ms) << " ms\n\n"
              << RenderWorklistTable(report);  // each field escaped as one line
    if (!flags.out_dir.empty() && report.write_error.empty()) {
      std::cout << "\nResults: " << flags.out_dir << "/worklist.json (and one <case>.json per case)\n";
    }
  }
  int exit_code = kExitOk;
  if (!report.write_error.empty()) {
    std::cerr << "medreact worklist: " << report.write_error << "\n";
    exit_code = kExitRunFailed;
  }
  if (report.failed > 0 || report.not_finished > 0) {
    std::cerr << "medreact worklist: " << report.failed << " case(s) failed, " << report.not_finished
              << " investigation(s) ended on a limit or error\n";
    exit_code = kExitRunFailed;
  }
  size_t fell_back = 0;
  for (const WorklistCaseResult& c : report.cases) fell_back += c.ok && c.fell_back;
  if (fell_back > 0 && flags.triage.require_model) {
    std::cerr << "medreact worklist: the model never answered for " << fell_back
              << " case(s); the rules planner decided them (--require-model)\n";
    exit_code = kExitRunFailed;
  }
  return exit_code;
}

// --enqueue and/or --wait: the worklist through the store's job queue
// (`medreact worker` runs the cases). --enqueue prints the batch id;
// --wait writes the batch's results into --out as a local run does.
int RunQueuedWorklist(const WorklistFlags& flags) {
  auto fail = [](const std::string& message) {
    std::cerr << "medreact worklist: " << WithFlagNames(message) << "\n";
    return kExitBadInput;
  };
  if (flags.store.path.empty()) return fail("--enqueue and --wait need --store (a SQLite file or a postgres:// URL)");
  if (flags.store.no_store) return fail("give either --store or --no-store, not both");
  if (flags.resume) return fail("--resume is for a local run; a queued worklist resumes its cases by itself");
  if (!flags.events_path.empty()) return fail("--events is for a local run (a worker's runs are in the store)");
  if (flags.wait && flags.out_dir.empty()) return fail("--wait needs --out");
  Result<std::unique_ptr<JobQueue>> queue = OpenJobQueue(flags.store.path);
  if (!queue.ok()) return fail(queue.status().message());
  std::string batch = flags.batch;
  if (flags.enqueue) {
    if (!batch.empty()) return fail("--batch names a batch to wait for; --enqueue makes a new one");
    Result<std::string> id = service::EnqueueWorklist(**queue, flags.dir, flags.out_dir);
    if (!id.ok()) return fail(id.status().message());
    batch = *id;
    if (!flags.wait) {
      std::cout << batch << "\n";
      return kExitOk;
    }
    if (!flags.quiet) std::cerr << "medreact worklist: batch " << batch << " enqueued\n";
  }
  if (batch.empty()) {
    Result<BatchInfo> latest = (*queue)->LatestBatch(service::WorklistBatchLabel(flags.dir));
    if (!latest.ok()) return fail(latest.status().message() + " (enqueue it with --enqueue, or name it with --batch)");
    batch = latest->id;
  }
  const auto start = std::chrono::steady_clock::now();
  Result<std::vector<Job>> jobs = (*queue)->WaitBatch(
      batch, std::chrono::milliseconds(static_cast<int64_t>(flags.wait_timeout_s * 1000)),
      std::chrono::milliseconds(200), InstallInterruptHandlers());
  if (!jobs.ok()) {
    std::cerr << "medreact worklist: " << WithFlagNames(jobs.status().message()) << "\n";
    return ExitCodeAfterInterrupt(jobs.status().code() == StatusCode::kNotFound ? kExitBadInput : kExitRunFailed);
  }
  const double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  WorklistReport report = service::CollectWorklist(*jobs, flags.out_dir, elapsed);
  size_t dead = 0;
  for (const Job& j : *jobs) {
    if (j.state != "dead") continue;
    ++dead;
    std::cerr << "medreact worklist: case " << PrintableLine(j.case_name) << " is dead after " << j.attempts
              << " attempt(s): " << PrintableLine(j.last_error) << "\n";
  }
  const int exit_code = PrintReport(flags, report);
  return ExitCodeAfterInterrupt(dead > 0 ? kExitRunFailed : exit_code);
}

// --events: every case's events as JSON lines, each with its case's name.
void WriteCaseEvent(LineLog& log, const std::string& name, const Event& e) {
  Json line = ToJson(e);
  line["case"] = name;
  log.Write(DumpJson(line));
}

int RunWorklistCommand(const WorklistFlags& flags) {
  auto fail = [](const std::string& message) {
    std::cerr << "medreact worklist: " << WithFlagNames(message) << "\n";
    return kExitBadInput;
  };
  if (flags.enqueue || flags.wait) return RunQueuedWorklist(flags);
  if (!flags.batch.empty()) return fail("--batch goes with --wait");
  if (!flags.events_path.empty()) {
    if (Status s = CheckOutputPath(flags.events_path, "--events"); !s.ok()) return fail(s.message());
  }
  auto warn = [](const std::string& w) {
    std::cerr << "medreact worklist: " << PrintableLine(WithFlagNames(w)) << "\n";
  };
  const service::TriageSettings settings = TriageSettingsOf(flags.triage);
  // Only a model's investigations are recorded (triage_app.h).
  Result<std::shared_ptr<RunStore>> store = std::shared_ptr<RunStore>();
  if (service::TriageIsRecorded(settings)) {
    store = OpenStoreForRun(flags.store, warn);
  } else if (flags.store.no_store && !flags.store.path.empty()) {
    store = Status::InvalidArgument("give either --store or --no-store, not both");
  }
  if (!store.ok()) return fail(store.status().message());
  service::RunService runs(*store);
  // Every check (the cases, the output folder, the planner and its model) before any case runs.
  Result<std::unique_ptr<service::PreparedWorklist>> prepared = service::PrepareWorklist(
      runs, {.dir = flags.dir, .out_dir = flags.out_dir, .concurrency = flags.concurrency, .resume = flags.resume,
             .settings = settings});
  if (!prepared.ok()) return fail(prepared.status().message());
  std::shared_ptr<LineLog> events;
  if (!flags.events_path.empty()) {  // last: nothing can be refused any more
    Result<std::unique_ptr<LineLog>> log = LineLog::Open(flags.events_path, "--events");
    if (!log.ok()) return fail(log.status().message());
    events = std::move(*log);
  }
  WorklistOptions& options = (*prepared)->options;
  if (events) {
    options.on_case_event = [events](const std::string& name, const Event& e) { WriteCaseEvent(*events, name, e); };
  }
  const bool terminal = isatty(STDERR_FILENO) != 0;
  if (!flags.quiet) {
    options.on_case_done = [terminal](const WorklistCaseResult& c, size_t done, size_t total) {
      std::string what = c.ok ? "priority " + std::to_string(c.result.value("priority_level", 0)) : "FAILED";
      if (c.fell_back) what += " (rules fallback)";
      if (c.skipped) what += " (finished earlier)";
      if (c.resumed) what += " (resumed)";
      const std::string line =
          "[" + std::to_string(done) + "/" + std::to_string(total) + "] " + PrintableLine(c.name) + ": " + what;
      if (terminal) {
        std::cerr << "\r\033[K" << line << (done == total ? "\n" : "") << std::flush;
      } else {
        std::cerr << line << "\n";
      }
    };
  }

  WorklistReport report =
      service::RunWorklistPrepared(runs, std::move(*prepared), {.cancel = InstallInterruptHandlers(), .warn = warn});
  int exit_code = PrintReport(flags, report);
  if (events) {
    if (Status s = events->status(); !s.ok()) {
      std::cerr << "medreact worklist: " << s.message() << "\n";
      exit_code = kExitRunFailed;
    }
  }
  return ExitCodeAfterInterrupt(exit_code);
}

}  // namespace

void AddWorklistCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<WorklistFlags>();
  CLI::App* cmd = app.add_subcommand(
      "worklist", "triage every case folder (fhir.json + findings.txt [+ case.json]) of DIR, sorted by priority");
  AddTriageFlags(cmd, &flags->triage);
  cmd->add_option("dir", flags->dir, "the worklist directory: one sub-folder per case")->required();
  cmd->add_option("--concurrency", flags->concurrency, "cases triaged at once")->check(CLI::Range(1, 64));
  cmd->add_option("--out", flags->out_dir, "where results go (created; default ./worklist-results)");
  cmd->add_flag("--json", flags->json, "print worklist.json instead of the table");
  cmd->add_flag("-q,--quiet", flags->quiet, "no progress on stderr");
  cmd->add_flag("--resume", flags->resume,
                "go on with an earlier run into the same --out: skip the cases it finished with the same inputs, "
                "resume the ones it was cut in (from the run store) and triage the rest");
  cmd->add_option("--events", flags->events_path,
                  "write every case's events as JSON lines (with \"case\") to this file");
  AddStoreFlags(cmd, &flags->store);
  cmd->add_flag("--enqueue", flags->enqueue,
                "put the cases in the --store's job queue for `medreact worker` and print the batch id (nothing "
                "runs here)");
  cmd->add_flag("--wait", flags->wait,
                "wait for the --store's batch of DIR (or --batch) and write its results into --out as a local run "
                "does");
  cmd->add_option("--batch", flags->batch, "with --wait: the batch to wait for (default: DIR's newest)");
  cmd->add_option("--wait-timeout", flags->wait_timeout_s, "with --wait: give up after this many seconds (0: never)")
      ->check(CLI::Range(0.0, 1e9));
  cmd->callback([flags, exit_code] { *exit_code = RunWorklistCommand(*flags); });
}

}  // namespace medreact::cli
