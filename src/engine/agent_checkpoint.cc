// Agent::Loop (agent_loop.h): what a run writes to its checkpoints
// (Snapshot, Checkpoint) and how a resume reads one back (Restore: the
// conversation, the step records, a pause for approval and the decisions
// taken on it).
#include <utility>
#include <vector>

#include "engine/agent_loop.h"

namespace medreact {
namespace {

// " (dr.a, 2026-11-27T10:00:00.000Z)" for a decision's note; "" when neither is known.
std::string Who(const ApprovalDecision& d) {
  if (d.reviewer.empty() && d.decided_at.empty()) return "";
  if (d.reviewer.empty() || d.decided_at.empty()) return " (" + d.reviewer + d.decided_at + ")";
  return " (" + d.reviewer + ", " + d.decided_at + ")";
}

// Appends to `to` what `from` has past its end; copies it whole when `to`
// is longer (a list cut back) or `whole`.
template <typename T>
void CatchUp(std::vector<T>& to, const std::vector<T>& from, bool whole) {
  if (whole || to.size() > from.size()) {
    to = from;
    return;
  }
  to.insert(to.end(), from.begin() + static_cast<std::ptrdiff_t>(to.size()), from.end());
}

}  // namespace

const RunState& Agent::Loop::Snapshot(RunState::Phase phase, StepOutcome outcome) {
  RunState& s = ckpt_;
  s.phase = phase;
  CatchUp(s.messages, messages_, ckpt_resync_);
  {
    // The trace's header, copied without its steps; then the steps caught up.
    std::vector<StepRecord> kept = std::move(s.trace.steps);
    std::vector<StepRecord> own = std::move(trace_.steps);
    s.trace = trace_;
    trace_.steps = std::move(own);
    s.trace.steps = std::move(kept);
    CatchUp(s.trace.steps, trace_.steps, ckpt_resync_);
  }
  ckpt_resync_ = false;
  s.turn = Message();
  s.turn_record = StepRecord();
  s.turn_results.clear();
  s.awaiting_approval.clear();
  s.approvals.clear();
  s.outcome.clear();
  s.limit_status.clear();
  s.limit_reason.clear();
  s.step = step_;
  s.tool_calls = tool_calls_made_;
  s.usage = usage_;
  s.elapsed_ms = MsSince(started_);
  s.loop_counts = loop_detector_.counts();
  s.loop_nudged = loop_detector_.nudged();
  switch (outcome) {
    case StepOutcome::kContinue: break;
    case StepOutcome::kAnswered: s.outcome = "answered"; break;
    case StepOutcome::kModelFailed: s.outcome = "model_failed"; break;
    case StepOutcome::kLimit: s.outcome = "limit"; break;
    case StepOutcome::kAwaitingApproval: break;  // taken by InTurnState
    case StepOutcome::kCut: break;               // never checkpointed: the step did not end
  }
  s.answer = answer_;
  s.final_fields = final_fields_;
  s.model_error = model_error_;
  if (outcome == StepOutcome::kLimit) {
    s.limit_status = RunStatusName(limit_status_);
    s.limit_reason = limit_reason_;
  }
  s.answers_checked = answers_checked_;
  s.answer_rejections = answer_rejections_;
  s.answer_accepted = answer_accepted_;
  s.answer_feedback = answer_feedback_;
  return s;
}

void Agent::Loop::Checkpoint(StepOutcome outcome) {
  if (!options_.on_checkpoint) return;
  try {
    options_.on_checkpoint(Snapshot(RunState::Phase::kBetweenSteps, outcome));
  } catch (...) {
    // A failing store must not break the run; the store reports its own errors.
  }
}

void Agent::Loop::CheckpointInTurn(const Message& turn, const StepRecord& rec, SteadyClock::time_point step_start,
                                   const std::map<size_t, ToolResultRecord>& results) {
  const RunState& s = InTurnState(turn, rec, step_start, results);
  try {
    options_.on_checkpoint(s);
  } catch (...) {
  }
}

const RunState& Agent::Loop::InTurnState(const Message& turn, const StepRecord& rec,
                                         SteadyClock::time_point step_start,
                                         const std::map<size_t, ToolResultRecord>& results) {
  RunState& s = ckpt_;
  Snapshot(RunState::Phase::kInTurn, StepOutcome::kContinue);
  s.turn = turn;
  s.turn_record = rec;
  s.turn_record.elapsed_ms = MsSince(step_start);
  s.turn_results = results;
  s.awaiting_approval = awaiting_;
  s.approvals = approvals_;
  return s;
}

Agent::Loop::StepOutcome Agent::Loop::Restore(const RunState& state) {
  messages_ = state.messages;
  trace_ = state.trace;
  step_ = state.step;
  tool_calls_made_ = state.tool_calls;
  usage_ = state.usage;
  loop_detector_.Restore(state.loop_counts, state.loop_nudged);
  answer_ = state.answer;
  final_fields_ = state.final_fields;
  model_error_ = state.model_error;
  answers_checked_ = state.answers_checked;
  answer_rejections_ = state.answer_rejections;
  answer_accepted_ = state.answer_accepted;
  answer_feedback_ = state.answer_feedback;
  // A run that stopped because its model failed (unreachable, refused) is
  // resumed to try that step again: the model server may be back. The
  // failed attempt leaves the trace and becomes a note of the retried step;
  // the step's prompt, if the loop added one, is not added twice.
  const bool retry = state.phase == RunState::Phase::kBetweenSteps && state.outcome == "model_failed";
  if (retry) {
    if (!trace_.steps.empty() && trace_.steps.back().index == step_ && trace_.steps.back().assistant.content.empty() &&
        trace_.steps.back().assistant.tool_calls.empty()) {
      retry_note_ = "the model call of step " + std::to_string(step_) + " failed (" +
                    trace_.steps.back().model_error + "); the run was resumed and it was asked again";
      trace_.steps.pop_back();
    }
    if (step_ > 1 && !options_.next_step_prompt.empty() && !messages_.empty() &&
        messages_.back().role == Role::kUser && messages_.back().content == options_.next_step_prompt) {
      messages_.pop_back();
    }
    step_ = std::max(0, step_ - 1);
    model_error_.clear();
  }
  Emit({.type = EventType::kRunStarted,
        .data = Json{{"model", trace_.model},
                     {"protocol", trace_.protocol},
                     {"tools", agent_.tools_->Names()},
                     {"max_steps", options_.max_steps},
                     {"resumed_at_step", step_}}});
  if (retry) return StepOutcome::kContinue;
  if (state.phase == RunState::Phase::kInTurn) {
    // The turn's assistant message is already in `messages`; its results are not.
    const auto step_start = SteadyClock::now() - std::chrono::duration_cast<SteadyClock::duration>(
                                                     std::chrono::duration<double, std::milli>(
                                                         state.turn_record.elapsed_ms));
    StepRecord rec = state.turn_record;
    std::map<size_t, ToolResultRecord> finished = state.turn_results;
    approvals_ = state.approvals;
    // A turn paused for approval had started none of its calls; otherwise
    // those without a result were in flight.
    if (state.awaiting_approval.empty()) InterruptedCalls(state.turn, rec, finished);
    return Act(state.turn, std::move(rec), step_start, std::move(finished));
  }
  if (state.outcome == "answered") return StepOutcome::kAnswered;
  if (state.outcome == "model_failed") return StepOutcome::kModelFailed;
  if (state.outcome == "limit") return Limit(RunStatusFromName(state.limit_status), state.limit_reason);
  return StepOutcome::kContinue;
}

void Agent::Loop::InterruptedCalls(const Message& turn, StepRecord& rec,
                                   std::map<size_t, ToolResultRecord>& finished) const {
  for (size_t i = 0; i < turn.tool_calls.size(); ++i) {
    const ToolCall& call = turn.tool_calls[i];
    if (finished.count(i)) continue;
    const Tool* tool = agent_.tools_->Find(call.name);
    if (!tool || tool->spec().idempotent) continue;  // safe to run again (an unknown tool fails anyway)
    finished[i] = ToolResultRecord{
        .tool_call_id = call.id,
        .name = call.name,
        .ok = false,
        .error = "this call was interrupted when the run stopped; it may or may not have taken effect — "
                 "check before calling it again"};
    rec.notes.push_back("call " + call.id + " (" + call.name +
                        ") was in flight when the run stopped; not run again (the tool is not idempotent)");
  }
}

std::vector<std::string> Agent::Loop::DecideApprovals(Message& assistant, StepRecord& rec,
                                                      std::map<size_t, ToolResultRecord>& finished) {
  // First every decision (asking `approve` for those not stored); nothing is
  // applied while a call still waits, so a paused turn is stored as the
  // model made it, with the decisions taken so far beside it.
  auto [waiting, decided] = SplitForApproval(assistant.tool_calls, *agent_.tools_, finished, options_.finish_tools,
                                             options_.needs_approval, options_.approve, approvals_);
  if (!waiting.empty()) return waiting;

  for (size_t i : decided) {
    ToolCall& call = assistant.tool_calls[i];
    const ApprovalDecision& d = approvals_.at(call.id);
    const char* verdict = "approved";
    if (!d.approved) {
      verdict = "rejected";
      finished[i] = ToolResultRecord{
          .tool_call_id = call.id,
          .name = call.name,
          .ok = false,
          .error = "the reviewer did not approve this call, so it was not run" +
                   (d.reason.empty() ? std::string(".") : ": " + d.reason)};
      rec.notes.push_back("call " + call.id + " (" + call.name + ") rejected by the reviewer" + Who(d));
    } else if (!d.arguments.empty() && d.arguments != call.arguments) {
      verdict = "edited";
      rec.notes.push_back("call " + call.id + " (" + call.name + ") run with the reviewer's arguments" + Who(d) +
                          "; the model's were " + call.arguments);
      call.arguments = d.arguments;
      if (i < rec.assistant.tool_calls.size()) rec.assistant.tool_calls[i].arguments = d.arguments;
      // The conversation shows what ran: the turn is the last assistant message.
      ckpt_resync_ = true;  // an edit in place: the next checkpoint copies the conversation whole
      for (auto m = messages_.rbegin(); m != messages_.rend(); ++m) {
        if (m->role != Role::kAssistant) continue;
        if (i < m->tool_calls.size() && m->tool_calls[i].id == call.id) m->tool_calls[i].arguments = d.arguments;
        break;
      }
    } else {
      rec.notes.push_back("call " + call.id + " (" + call.name + ") approved by the reviewer" + Who(d));
    }
    Json data{{"decision", verdict}};
    if (!d.reviewer.empty()) data["reviewer"] = d.reviewer;
    if (!d.decided_at.empty()) data["decided_at"] = d.decided_at;
    if (!d.approved && !d.reason.empty()) data["reason"] = d.reason;
    Emit({.type = EventType::kApproval, .step = step_, .tool_name = call.name, .tool_call_id = call.id,
          .data = std::move(data)});
  }
  return {};
}

}  // namespace medreact
