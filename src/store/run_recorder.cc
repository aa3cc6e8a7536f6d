// A run's checkpoints and end, into the run store. See run_recorder.h.
#include "store/run_recorder.h"

#include <atomic>

#include <utility>

namespace medreact {

RunRecorder::RunRecorder(std::shared_ptr<RunStore> store, RunRecord run,
                         std::function<void(const std::string&)> on_error, bool resumed)
    : store_(std::move(store)), run_(std::move(run)), on_error_(std::move(on_error)), stored_(resumed) {}

std::function<void(const RunState&)> RunRecorder::Hook() {
  return [this](const RunState& state) { Save(state); };
}

EventSink RunRecorder::Events(EventSink next) {
  return [this, next = std::move(next)](const Event& event) {
    Keep(event);
    if (next) next(event);
  };
}

void RunRecorder::Keep(const Event& event) {
  if (!store_ || event.type == EventType::kModelDelta) return;
  RunEvent e = ToRunEvent(event);
  e.at = StoreTimestampMillis(std::chrono::system_clock::now());
  {
    std::lock_guard<std::mutex> lock(events_mu_);
    events_.push_back(std::move(e));
  }
  if (event.type == EventType::kModelRequest || event.type == EventType::kToolStarted) Flush();
}

void RunRecorder::Flush() {
  std::lock_guard<std::mutex> write(write_mu_);
  if (!stored_ || !first_error_.ok()) return;  // before the first checkpoint they wait for it
  std::vector<RunEvent> events = TakeEvents();
  if (events.empty()) return;
  if (Status s = store_->AppendEvents(run_.id, events); !s.ok()) Failed(s);
}

void RunRecorder::KeepEvent(RunEvent event, bool write_now) {
  if (!store_) return;
  if (event.at.empty()) event.at = StoreTimestampMillis(std::chrono::system_clock::now());
  {
    std::lock_guard<std::mutex> lock(events_mu_);
    events_.push_back(std::move(event));
  }
  if (write_now) Flush();
}

std::vector<RunEvent> RunRecorder::TakeEvents() {
  std::lock_guard<std::mutex> lock(events_mu_);
  return std::exchange(events_, {});
}

void RunRecorder::Save(const RunState& state) {
  if (!store_) return;
  std::lock_guard<std::mutex> write(write_mu_);
  if (!stored_) {
    run_.id = state.trace.run_id;
    run_.status = "running";
    Status s = store_->CreateRun(run_, &state);
    if (!s.ok()) return Failed(s);
    stored_ = true;
    // Events before the run's first checkpoint (none from the agent, which
    // takes it first) wait for the next one.
    return;
  }
  // Events that fail to be written are dropped with the checkpoint: the
  // failure was reported, and a store that fails is not retried per event.
  if (Status s = store_->SaveCheckpoint(run_.id, state, TakeEvents()); !s.ok()) Failed(s);
}

namespace {
std::atomic<int> g_failures{0};  // recorders of this process that met a store failure
}  // namespace

int RunRecorder::FailuresInProcess() { return g_failures.load(); }

void RunRecorder::Failed(const Status& status) {
  if (!first_error_.ok()) return;
  first_error_ = status;
  g_failures.fetch_add(1);
  if (on_error_) on_error_(status.message() + " (the run goes on without its checkpoints)");
}

Status RunRecorder::Finish(const RunResult& result, bool interrupted) {
  if (!store_) return Status::OK();
  std::lock_guard<std::mutex> write(write_mu_);
  if (!stored_) {
    // No checkpoint was taken (an agent that stopped before starting): the
    // run is added as it ended, so it is not silently missing.
    run_.id = result.trace.run_id;
    if (run_.id.empty()) return first_error_;
    run_.status = "running";
    if (Status s = store_->CreateRun(run_); !s.ok()) {
      Failed(s);
      return first_error_;
    }
    stored_ = true;
  }
  if (Status s = store_->FinishRun(run_.id, StoredRunStatus(result, interrupted), StoredRunResult(result, interrupted),
                                   result.trace.steps, TakeEvents());
      !s.ok()) {
    Failed(s);
  }
  return first_error_;
}

RunEvent ToRunEvent(const Event& event) {
  return {.type = EventTypeName(event.type),
          .step = event.step,
          .tool_call_id = event.tool_call_id,
          .elapsed_ms = event.elapsed_ms,
          .json = EventJsonLine(event)};
}

std::string StoredRunStatus(const RunResult& result, bool interrupted) {
  return interrupted ? "interrupted" : RunStatusName(result.status);
}

Json StoredRunResult(const RunResult& result, bool interrupted) {
  Json j{{"status", StoredRunStatus(result, interrupted)},
         {"answer", result.answer},
         {"steps", result.steps},
         {"tool_calls", result.tool_calls},
         {"usage", ToJson(result.usage)},
         {"elapsed_ms", result.trace.elapsed_ms}};
  if (!result.error.empty()) j["error"] = result.error;
  if (!result.final_fields.is_null()) j["final_fields"] = result.final_fields;
  if (!result.answer_accepted) j["answer_accepted"] = false;
  return j;
}

}  // namespace medreact
