// RunRecorder: one agent run written to the run store — what an app plugs
// into AgentOptions::on_checkpoint, and the run's end.
//
//   RunRecorder recorder(store, {.app = "chat", .inputs = ..., .model = ...}, on_error);
//   options.on_checkpoint = recorder.Hook();
//   RunResult r = agent.Run(request);           // or agent.Resume(state)
//   recorder.Finish(r, interrupted);
//
// A new run is added to the store at its first checkpoint (the agent takes
// one before its first model call; the run's id is the trace's run_id), in
// the same transaction as that checkpoint; a resumed run (the record's id
// set, `resumed`) goes on writing into its row. A store that fails does not
// stop the run: the first failure is passed to `on_error` (a warning for the
// user), later ones are dropped, and Finish returns it. Not thread-safe
// beyond what the agent needs (its checkpoints come from one thread).
#ifndef MEDREACT_STORE_RUN_RECORDER_H_
#define MEDREACT_STORE_RUN_RECORDER_H_

#include <functional>
#include <memory>
#include <string>

#include "medreact/agent.h"
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

  // Records the run's end: its status (`interrupted` when the user stopped
  // it — it may be resumed), the result and the final trace's steps.
  // Returns the first error the store gave during the run, if any.
  Status Finish(const RunResult& result, bool interrupted);

  // The run's id: "" until the first checkpoint of a new run.
  const std::string& run_id() const { return run_.id; }

 private:
  void Save(const RunState& state);
  void Failed(const Status& status);

  std::shared_ptr<RunStore> store_;
  RunRecord run_;
  std::function<void(const std::string&)> on_error_;
  bool stored_ = false;  // the run's row exists
  Status first_error_;
};

// The status a run's row gets when it ends: the run's status name, or
// "interrupted".
std::string StoredRunStatus(const RunResult& result, bool interrupted);

// The result column: status, answer, error, final fields, counts, usage.
Json StoredRunResult(const RunResult& result, bool interrupted);

}  // namespace medreact

#endif  // MEDREACT_STORE_RUN_RECORDER_H_
