// Agent::Loop: one run of the agent loop (seed 004), internal to the engine.
// agent.cc drives it (Run, Start, Step, the answer, the end, the model
// request, events and spans); agent_checkpoint.cc holds what a run writes
// to its checkpoints and reads back on a resume (Snapshot, Checkpoint,
// Restore). One Loop per run, on the run's thread.
#ifndef MEDREACT_ENGINE_AGENT_LOOP_H_
#define MEDREACT_ENGINE_AGENT_LOOP_H_

#include <algorithm>
#include <chrono>
#include <ctime>
#include <mutex>
#include <set>
#include <utility>

#include "core/log.h"
#include "core/otel.h"
#include "core/time_util.h"
#include "engine/agent_support.h"
#include "engine/loop_detector.h"
#include "engine/thread_pool.h"
#include "engine/tool_turn.h"
#include "engine/tool_selection.h"
#include "llm/context_fit.h"
#include "llm/window.h"
#include "medreact/agent.h"
#include "medreact/text_protocol.h"

namespace medreact {

class Agent::Loop {
 public:
  // `used_ms`: time already spent by the run being resumed (0 for a new run).
  Loop(Agent& agent, const RunRequest& request, double used_ms = 0)
      : agent_(agent),
        options_(agent.options_),
        request_(request),
        hard_deadline_(options_.timeout > Millis(0) ? Deadline::In(Remaining(options_.timeout, used_ms))
                                                    : Deadline::Never()),
        deadline_(WorkingDeadline(options_, used_ms)),
        started_(SteadyClock::now() - std::chrono::duration_cast<SteadyClock::duration>(
                                          std::chrono::duration<double, std::milli>(used_ms))),
        pool_(std::max(1, options_.max_parallel_tools)),
        loop_detector_(options_.stuck_threshold) {}

  // `resume`: the checkpoint to go on from; null for a new run.
  RunResult Run(const RunState* resume);

 private:
  // kAwaitingApproval: the turn paused before its calls, some waiting for a
  // person (AgentOptions::needs_approval); the step is not finished.
  // kCut: the run was cancelled while the step's calls were in flight; the
  // step does not end (its last checkpoint, inside the turn, is where a
  // resume goes on, running the cut calls again).
  enum class StepOutcome { kContinue, kAnswered, kModelFailed, kLimit, kAwaitingApproval, kCut };

  void Start();
  // Loads a checkpoint; returns how its last step ended (for kInTurn: after
  // finishing that turn's calls).
  StepOutcome Restore(const RunState& state);
  // The calls of a resumed turn that were in flight when the run stopped
  // (no result in `finished`) and whose tool is not idempotent: each gets an
  // error result saying it was interrupted, instead of running again.
  void InterruptedCalls(const Message& turn, StepRecord& rec, std::map<size_t, ToolResultRecord>& finished) const;
  StepOutcome Step();
  // act(): the turn's calls (those in `finished` are not run again), then
  // the finishing-tool check, loop detection and budgets; records the step.
  StepOutcome Act(Message assistant, StepRecord rec, SteadyClock::time_point step_start,
                  std::map<size_t, ToolResultRecord> finished);
  // Human approval, before any of the turn's calls runs: decides (from the
  // stored decisions or AgentOptions::approve) each call that needs it.
  // Returns the ids of the calls still waiting (then nothing is applied);
  // else applies the decisions (a rejection becomes the call's result in
  // `finished`; edited arguments replace the call's in `assistant` and the
  // conversation) and returns none.
  std::vector<std::string> DecideApprovals(Message& assistant, StepRecord& rec,
                                           std::map<size_t, ToolResultRecord>& finished);
  // Records a finished step in the trace, emits step_finished and checkpoints.
  StepOutcome EndStep(StepRecord rec, SteadyClock::time_point step_start, StepOutcome outcome);
  StepOutcome AfterTools(const Message& assistant, StepRecord& rec);
  // The answer check: true when `answer` ends the run (accepted, or no retry
  // left); false when it goes back to the model with `*feedback`.
  bool TakeAnswer(const std::string& answer, const Json& fields, std::string* feedback);
  // A plain-text answer read as the answer tool's arguments (ReadFinalBlock)
  // into `*fields` and validated: true when it ends the run (valid, or no
  // retry left: then as read, answer_accepted_ false); false when it goes
  // back to the model with `*feedback`.
  bool TakeAnswerBlock(const std::string& text, Json* fields, std::string* feedback);
  // Another answer may be asked for: a retry is left, and a step and time for it.
  bool MayRetryAnswer() const {
    return answer_rejections_ < options_.max_answer_retries && step_ < options_.max_steps && !OutOfTime() &&
           !agent_.cancel_.cancelled();
  }
  // The loop's state for a checkpoint, in ckpt_ (brought up to date, not
  // rebuilt: see ckpt_). Valid until the next Snapshot or InTurnState.
  const RunState& Snapshot(RunState::Phase phase, StepOutcome outcome);
  void Checkpoint(StepOutcome outcome);
  void CheckpointInTurn(const Message& turn, const StepRecord& rec, SteadyClock::time_point step_start,
                        const std::map<size_t, ToolResultRecord>& results);
  const RunState& InTurnState(const Message& turn, const StepRecord& rec, SteadyClock::time_point step_start,
                              const std::map<size_t, ToolResultRecord>& results);
  void Conclude(RunStatus status, const std::string& reason, bool synthesize);
  void Synthesize(const std::string& reason);
  // The request for the next model call. Without windowing the history is
  // lent to it, not copied (copying the whole history on every call was the
  // largest term growing with the square of a run's length): call
  // ReturnHistory(request) as soon as the model has answered.
  // With tools, they are chosen for the model's window (ToolOffer); the choice
  // is left in offer_sel_ for the step's notes and its model_request event.
  ModelRequest BuildRequest(bool with_tools);
  void ReturnHistory(ModelRequest& request);
  // Adds the reply's usage to the run and copies its metadata into the step.
  void RecordResponse(const ModelResponse& response, StepRecord& rec);
  ModelCallContext CallContext(Deadline deadline, int step);
  void Emit(Event event);
  // Traces: the run's span `invoke_agent <name>` and the context the loop's
  // thread runs in (the run's span; with tracing off, the trace the run
  // continues, if any, so model requests still carry it on).
  otel::SpanContext StartRunSpan();
  void EndRunSpan(RunStatus status);
  // One step's span (INTERNAL `step`), current on the loop's thread while it
  // runs: the step's model call and tool calls are its children.
  StepOutcome TracedStep();
  // The run's deadline has passed, or so little is left that a model call
  // cut at it (the client stops its last attempt just before) counts as a
  // timeout rather than as a model failure.
  bool OutOfTime() const {
    static constexpr Millis kDeadlineSlack{100};
    return !deadline_.is_never() && deadline_.remaining() <= kDeadlineSlack;
  }
  StepOutcome Limit(RunStatus status, std::string reason) {
    limit_status_ = status;
    limit_reason_ = std::move(reason);
    return StepOutcome::kLimit;
  }

  Agent& agent_;
  const AgentOptions& options_;
  const RunRequest& request_;
  const Deadline hard_deadline_;  // the run's end: no call outlives it
  const Deadline deadline_;       // the loop's end: earlier, leaving the fallback its share
  SteadyClock::time_point started_;
  ThreadPool pool_;
  LoopDetector loop_detector_;
  std::mutex event_mu_;

  std::vector<Message> messages_;
  ToolOffer offer_{agent_.tools_, options_.finish_tools};  // the tools each request offers
  ToolSelection offer_sel_;                                // the last request's choice
  RunTrace trace_;
  int step_ = 0;
  int tool_calls_made_ = 0;
  Usage usage_;
  std::string answer_;
  int answers_checked_ = 0;
  int answer_rejections_ = 0;
  bool answer_accepted_ = true;
  std::string answer_feedback_;
  Json final_fields_;
  std::string model_error_;
  const uint64_t conversation_id_ = NextConversationId();  // ModelRequest::conversation_id
  RunStatus limit_status_ = RunStatus::kError;
  std::string limit_reason_;
  // Human approval of the current turn: decisions by call id, calls waiting.
  std::map<std::string, ApprovalDecision> approvals_;
  std::vector<std::string> awaiting_;
  std::string awaiting_reason_;
  std::optional<RunState> paused_;  // the state a pause for approval left
  std::string retry_note_;          // a resumed model failure: a note for the retried step
  // The state the checkpoints hand out, brought up to date by appending:
  // the conversation and the trace's steps only grow at their end, so
  // copying them whole for each of a step's four or more checkpoints made a
  // checkpoint's cost grow with the run's length. An edit in place (the
  // reviewer's arguments) sets ckpt_resync_ for one whole copy.
  RunState ckpt_;
  bool ckpt_resync_ = false;
  // Traces (core/otel.h): the run's span, inactive when tracing is off.
  otel::Span run_span_;
};

}  // namespace medreact

#endif  // MEDREACT_ENGINE_AGENT_LOOP_H_
