#include "engine/tool_turn.h"

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "core/log.h"

namespace medreact {
namespace {

struct CallSlot {
  ToolCall call;
  ToolContext ctx;
  ToolResult result;
  bool done = false;
  bool reported = false;
  bool reused = false;  // from ToolTurnOptions::finished: not run, not reported again
  bool cut = false;     // given up on because the run was cancelled: not a result to keep
  bool timed_out = false;
  SteadyClock::time_point started;
  double elapsed_ms = 0;
};

// Shared with the workers, which may outlive the turn when a tool hangs.
struct TurnState {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<CallSlot> slots;
};

ToolResultRecord RecordOf(const CallSlot& slot) {
  ToolResultRecord r;
  r.tool_call_id = slot.call.id;
  r.name = slot.call.name;
  r.ok = slot.result.ok;
  r.content = slot.result.content;
  r.error = slot.result.error;
  r.elapsed_ms = slot.elapsed_ms;
  return r;
}

double MsBetween(SteadyClock::time_point a, SteadyClock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// The span of one call run (GenAI semantic conventions, execute_tool).
otel::Span StartToolSpan(const ToolCall& call, const otel::SpanContext& parent) {
  otel::Span span = otel::StartSpan("execute_tool " + call.name, otel::SpanKind::kInternal, parent);
  if (!span.active()) return span;
  span.Set("gen_ai.operation.name", "execute_tool");
  span.Set("gen_ai.tool.name", call.name);
  span.Set("gen_ai.tool.call.id", call.id);
  span.Set("gen_ai.tool.type", "function");
  if (LogPhi()) span.Set("gen_ai.tool.call.arguments", call.arguments);  // content only when asked for
  return span;
}

// Its outcome: a failure's kind, never its text (a tool's error may quote the record).
void EndToolSpan(otel::Span& span, const CallSlot& slot) {
  if (!span.active()) return;
  if (!slot.result.ok) {
    if (slot.cut) {
      span.SetError("cancelled", "the run was cancelled");
    } else if (slot.timed_out) {
      span.SetError("timeout", "the tool did not finish within its time limit");
    } else {
      span.SetError("tool_error", "the tool returned an error");
    }
  }
  span.End();
}

}  // namespace

ToolTurnResult RunToolTurn(std::shared_ptr<const ToolRegistry> registry, const std::vector<ToolCall>& calls,
                           const ToolTurnOptions& options, ThreadPool& pool,
                           const std::function<void(Event)>& emit) {
  auto state = std::make_shared<TurnState>();
  state->slots.resize(calls.size());
  std::vector<otel::Span> spans(calls.size());  // on this thread only
  const otel::SpanContext parent = options.trace_parent.valid() ? options.trace_parent : otel::CurrentContext();
  ToolTurnResult out;
  const auto now = SteadyClock::now();

  for (size_t i = 0; i < calls.size(); ++i) {
    CallSlot& slot = state->slots[i];
    slot.call = calls[i];
    slot.started = now;
    const bool counted = std::find(options.uncounted.begin(), options.uncounted.end(), calls[i].name) ==
                         options.uncounted.end();
    if (counted && options.calls_allowed >= 0 && out.calls_run >= options.calls_allowed) {
      slot.result = ToolResult::Error("The tool-call budget for this run is used up; '" + calls[i].name +
                                      "' was not run. Give your final answer from what you know.");
      slot.done = true;
      continue;
    }
    if (counted) ++out.calls_run;
    if (auto done = options.finished.find(i); done != options.finished.end()) {
      const ToolResultRecord& r = done->second;
      slot.result = r.ok ? ToolResult::Ok(r.content) : ToolResult::Error(r.error);
      slot.elapsed_ms = r.elapsed_ms;
      slot.done = slot.reported = slot.reused = true;
      continue;
    }
    slot.ctx.deadline = Deadline::Earliest(options.run_deadline, Deadline::In(options.tool_timeout));
    spans[i] = StartToolSpan(calls[i], parent);
    emit({.type = EventType::kToolStarted, .step = options.step, .text = calls[i].arguments,
          .tool_name = calls[i].name, .tool_call_id = calls[i].id,
          .data = Json{{"arguments_bytes", calls[i].arguments.size()}}});
  }
  // Submit after the loop above so that slot setup never races with workers.
  for (size_t i = 0; i < calls.size(); ++i) {
    if (state->slots[i].done) continue;
    pool.Submit([state, i, registry, call = calls[i], ctx = state->slots[i].ctx,
                 trace = spans[i].active() ? spans[i].context() : parent] {
      ToolResult result;
      {
        const otel::ScopedContext scope(trace);  // what the tool calls out to continues the call's span
        result = registry->Execute(call, ctx);
      }
      std::lock_guard<std::mutex> lock(state->mu);
      CallSlot& slot = state->slots[i];
      if (slot.done) return;  // already given up on (timeout or cancel)
      slot.result = std::move(result);
      slot.done = true;
      slot.elapsed_ms = MsBetween(slot.started, SteadyClock::now());
      state->cv.notify_all();
    });
  }

  std::unique_lock<std::mutex> lock(state->mu);
  std::vector<size_t> finished_now;
  for (;;) {
    bool all_done = true;
    finished_now.clear();
    SteadyClock::time_point next_deadline = SteadyClock::now() + std::chrono::milliseconds(50);
    const bool cancelled = options.run_cancel.cancelled();
    for (size_t i = 0; i < state->slots.size(); ++i) {
      CallSlot& slot = state->slots[i];
      if (!slot.done) {
        if (cancelled || slot.ctx.deadline.expired()) {
          slot.ctx.cancel.Cancel();
          slot.elapsed_ms = MsBetween(slot.started, SteadyClock::now());
          slot.result = ToolResult::Error(
              cancelled ? "The tool '" + slot.call.name + "' was cancelled because the run was cancelled."
                        : "The tool '" + slot.call.name + "' did not finish within its time limit (" +
                              std::to_string(static_cast<long long>(slot.elapsed_ms)) +
                              " ms) and was abandoned. Try again with a narrower request or go on without it.");
          slot.done = true;
          slot.cut = cancelled;
          slot.timed_out = !cancelled;
        } else {
          all_done = false;
          next_deadline = std::min(next_deadline, slot.ctx.deadline.at());
        }
      }
      if (slot.done && !slot.reported) {
        slot.reported = true;
        finished_now.push_back(i);
      }
    }
    if (!finished_now.empty()) {
      // A done slot is never written again (workers check `done`), so it is
      // read without the lock while the sink and the checkpoint do their work.
      lock.unlock();
      for (size_t i : finished_now) {
        const CallSlot& slot = state->slots[i];
        // The checkpoint first: a call reported finished is one a store has
        // kept. A call the run's stop cut short is no result: the checkpoint
        // leaves it out, so a resume runs it again.
        EndToolSpan(spans[i], slot);
        if (options.on_result && !slot.cut) options.on_result(i, RecordOf(slot));
        emit({.type = EventType::kToolFinished, .step = options.step, .text = slot.result.ObservationText(),
              .tool_name = slot.call.name, .tool_call_id = slot.call.id, .ok = slot.result.ok,
              .elapsed_ms = slot.elapsed_ms});
      }
      lock.lock();
      continue;  // look again: more may have finished meanwhile
    }
    if (all_done) break;
    state->cv.wait_until(lock, next_deadline);
  }

  out.records.reserve(calls.size());
  for (const CallSlot& slot : state->slots) {
    out.records.push_back(RecordOf(slot));
    out.cut = out.cut || slot.cut;
  }
  return out;
}

ApprovalSplit SplitForApproval(
    const std::vector<ToolCall>& calls, const ToolRegistry& tools,
    const std::map<size_t, ToolResultRecord>& finished, const std::vector<std::string>& never_held,
    const std::function<bool(const ToolCall&, const ToolSpec&)>& needs_approval,
    const std::function<std::optional<ApprovalDecision>(const ToolCall&, const ToolSpec&)>& approve,
    std::map<std::string, ApprovalDecision>& approvals) {
  ApprovalSplit out;
  if (!needs_approval) return out;
  for (size_t i = 0; i < calls.size(); ++i) {
    const ToolCall& call = calls[i];
    if (finished.count(i)) continue;
    if (std::find(never_held.begin(), never_held.end(), call.name) != never_held.end()) continue;
    const Tool* tool = tools.Find(call.name);
    if (!tool) continue;  // an unknown tool fails as usual
    bool needs = true;
    try {
      needs = needs_approval(call, tool->spec());
    } catch (...) {
    }
    if (!needs) continue;
    if (!approvals.count(call.id) && approve) {
      std::optional<ApprovalDecision> d;
      try {
        d = approve(call, tool->spec());
      } catch (...) {
      }
      if (d) approvals.emplace(call.id, *d);
    }
    if (approvals.count(call.id)) {
      out.decided.push_back(i);
    } else {
      out.waiting.push_back(call.id);
    }
  }
  return out;
}

}  // namespace medreact
