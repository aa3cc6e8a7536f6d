// What every app run shares, for every front end (the CLI's commands now, the
// server next), so that none of them re-decides it:
//
//   RunReporter: the event log (JSON lines), progress for people (tool names
//     and timings only, never content), the model's text as it streams, and
//     the trace and result files, each path checked before the run starts;
//   RunWithFallback: the configured model first; when it never answered
//     (unreachable, refused, every call failed) and the run was not
//     cancelled, the app's deterministic planner instead, and why.
//
//   Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
//   config.on_event = (*reporter)->sink();
//   ... run the app ...
//   (*reporter)->WriteTrace(trace); (*reporter)->WriteResult(json_text);
#ifndef MEDREACT_APPS_COMMON_APP_RUNNER_H_
#define MEDREACT_APPS_COMMON_APP_RUNNER_H_

#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>

#include "medreact/cancel.h"
#include "medreact/events.h"
#include "medreact/model.h"
#include "medreact/status.h"
#include "medreact/trace.h"

namespace medreact {

class LineLog;  // core/file_io.h

struct RunOutputs {
  std::string trace_path;   // the run trace (JSON); "" = none
  std::string events_path;  // every event as a JSON line; "" = none
  std::string result_path;  // the app's result (JSON text); "" = none
  bool verbose = false;     // progress: tool names, timings, model errors
  bool stream = false;      // the model's text as it arrives
};

class RunReporter {
 public:
  // Checks every output path and writes nothing: call it before any slow or
  // failing step, so a typo costs nothing. InvalidArgument naming the path
  // and what it was for.
  static Status CheckPaths(const RunOutputs& outputs);
  // CheckPaths, then opens (creates) the event log: call it once the run is
  // about to start, so bad input never leaves an empty file behind.
  static Result<std::unique_ptr<RunReporter>> Open(RunOutputs outputs, std::ostream& progress);
  ~RunReporter();
  RunReporter(const RunReporter&) = delete;
  RunReporter& operator=(const RunReporter&) = delete;

  // The sink for AgentOptions::on_event (or an app config's); empty when
  // there is nothing to report. Valid while the reporter lives.
  EventSink sink();

  // Write the trace / the result when a path was given; OK otherwise.
  // WriteTrace, which every command calls after its run, also returns the
  // event log's first failed write (EventsStatus), so lost events are named
  // and the exit code says so.
  Status WriteTrace(const RunTrace& trace) const;
  Status WriteResult(const std::string& text) const;
  // OK, or the event log's first failed write (a full disk) and how many
  // lines are missing since.
  Status EventsStatus() const;

 private:
  RunReporter(RunOutputs outputs, std::ostream& progress, std::unique_ptr<LineLog> events);
  void OnEvent(const Event& event);

  RunOutputs outputs_;
  std::ostream& progress_;
  std::unique_ptr<LineLog> events_;  // null: no --events
  std::mutex mu_;
};

struct FallbackOutcome {
  std::string planner;        // "model", "rules" or "rules (fallback)"
  bool fell_back = false;
  std::string model_failure;  // why, when fell_back
};

// Runs `attempt` with `model`, or with `make_planner()` when `model` is null.
// `attempt` returns why the model never answered, or nullopt when it did
// (ModelNeverAnswered). Then, when `allow_fallback` and `cancel` was not
// cancelled, `attempt` runs again with the planner. The caller keeps what
// each attempt produced (the second replaces the first).
FallbackOutcome RunWithFallback(const std::shared_ptr<ChatModel>& model,
                                const std::function<std::shared_ptr<ChatModel>()>& make_planner, bool allow_fallback,
                                const CancellationToken& cancel,
                                const std::function<std::optional<std::string>(std::shared_ptr<ChatModel>)>& attempt);

}  // namespace medreact

#endif  // MEDREACT_APPS_COMMON_APP_RUNNER_H_
