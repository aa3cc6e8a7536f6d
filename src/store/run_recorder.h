// RunRecorder: one agent run written to the run store — what an app plugs
// into AgentOptions::on_checkpoint, and the run's end.
//
//   RunRecorder recorder(store, {.app = "chat", .inputs = ..., .model = ...}, on_error);
//   options.on_checkpoint = recorder.Hook();
//   options.on_event = recorder.Events(std::move(options.on_event));  // the app's own sink after
//   RunResult r = agent.Run(request);           // or agent.Resume(state)
//   recorder.Finish(r, interrupted);
//
// A new run is added to the store at its first checkpoint (the agent takes
// one before its first model call; the run's id is the trace's run_id), in
// the same transaction as that checkpoint; a resumed run (the record's id
// set, `resumed`) goes on writing into its row. A store that fails does not
// stop the run: the first failure is passed to `on_error` (a warning for the
// user), later ones are dropped, and Finish returns it.
//
// Events (Events()) are kept in memory and written with the next checkpoint
// or the end, in the same transaction: no commit, let alone an fsync, per
// event. Two events start a wait of unknown length — a model request and a
// tool's start — and are written at once with those before them (their own
// small transaction), so that whoever follows the run from the store (the
// server's event streams) sees a tool under way while it runs, not when it
// ends. A killed process loses the events after its last checkpoint, never
// one before it. `model_delta` events are not kept (streamed fragments of a
// text the step holds whole).
//
// Thread-safety: what the agent needs: checkpoints come from one thread at a
// time, events possibly from a tool's worker thread (the buffer is locked).
#ifndef MEDREACT_STORE_RUN_RECORDER_H_
#define MEDREACT_STORE_RUN_RECORDER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "medreact/agent.h"
#include "medreact/events.h"
#include "medreact/run_state.h"
#include "store/run_store.h"

namespace medreact {

class RunRecorder {
 public:
  // `run`: app, inputs and model of a new run (its id comes from the first
  // checkpoint); with `resumed`, the stored run to go on with (id set).
  RunRecorder(std::shared_ptr<RunStore> store, RunRecord run, std::function<void(const std::string&)> on_error,
              bool resumed = false);

  // For AgentOptions::on_checkpoint. Valid while the recorder lives.
  std::function<void(const RunState&)> Hook();
  // For AgentOptions::on_event: keeps the event for the store, then passes
  // it to `next` (the app's own sink; may be empty). Valid while the
  // recorder lives.
  EventSink Events(EventSink next);

  // Keeps an event an app made itself (not an engine Event: research's
  // ResearchEvents), already in its stored form, for the next write; its
  // `at` is set when empty. With `write_now` (the event starts a wait of
  // unknown length, or carries text a reader follows as it comes) it is
  // written at once with those before it, as a model request is. Thread-safe.
  void KeepEvent(RunEvent event, bool write_now = false);

  // Records the run's end: its status (`interrupted` when the user stopped
  // it — it may be resumed), the result and the final trace's steps.
  // Returns the first error the store gave during the run, if any.
  Status Finish(const RunResult& result, bool interrupted);

  // How many recorders of this process met a store failure (each counts
  // its first): a front end's exit status says the record is incomplete
  // (the CLI: exit 1 for a run that would otherwise exit 0).
  static int FailuresInProcess();

  // The run's id: "" until the first checkpoint of a new run.
  const std::string& run_id() const { return run_.id; }

 private:
  void Save(const RunState& state);
  void Failed(const Status& status);
  void Keep(const Event& event);
  void Flush();  // the buffered events now (a wait starts)
  std::vector<RunEvent> TakeEvents();

  std::shared_ptr<RunStore> store_;
  RunRecord run_;
  std::function<void(const std::string&)> on_error_;
  std::atomic<bool> stored_{false};  // the run's row exists
  Status first_error_;
  // Held across taking the buffered events and writing them, so that writes
  // from two threads (a checkpoint, a flush at a tool's start) keep the
  // events' order. Taken before events_mu_.
  std::mutex write_mu_;
  std::mutex events_mu_;
  std::vector<RunEvent> events_;  // since the last write; guarded by events_mu_
};

// The stored form of an event: its type, step, call id, elapsed time and
// its `--events` line.
RunEvent ToRunEvent(const Event& event);

// The status a run's row gets when it ends: the run's status name, or
// "interrupted".
std::string StoredRunStatus(const RunResult& result, bool interrupted);

// The result column: status, answer, error, final fields, counts, usage.
Json StoredRunResult(const RunResult& result, bool interrupted);

}  // namespace medreact

#endif  // MEDREACT_STORE_RUN_RECORDER_H_
