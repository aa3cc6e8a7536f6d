// The agent loop's helpers that other loops share (the chest X-ray graph runs
// the same model call, call-id rule and logging): see agent_support.h.
#include "engine/agent_support.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "core/log.h"

namespace medreact {

double MsSince(SteadyClock::time_point t) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - t).count();
}

std::string FallbackPrompt(const std::string& reason) {
  return "You must stop now: " + reason +
         ". Do not call any tool. Using only the information gathered so far in this "
         "conversation, give your best final answer, and say plainly what is uncertain or "
         "could not be checked.";
}

// Gives every call an id, unique within the turn: the next request must pair
// each tool message with exactly one call (invariant 1).
void EnsureUniqueCallIds(std::vector<ToolCall>& calls) {
  std::set<std::string> seen;
  for (auto& call : calls) {
    if (call.id.empty() || !seen.insert(call.id).second) {
      call.id = MintToolCallId();
      seen.insert(call.id);
    }
  }
}

// A run's deadline with `used` of its timeout already spent (a resumed run);
// never less than 1 ms, which Deadline::In would read as "no limit".
Millis Remaining(Millis timeout, double used_ms) {
  return std::max(Millis(1), timeout - Millis(static_cast<int64_t>(used_ms)));
}

// The loop stops at this deadline; the time from it to the run's own end is
// kept for fallback synthesis, so the final call is bounded by the run's
// timeout too (min(fallback_timeout, timeout / 4); all of it without fallback).
Deadline WorkingDeadline(const AgentOptions& o, double used_ms) {
  if (o.timeout <= Millis(0)) return Deadline::Never();
  if (!o.fallback_synthesis) return Deadline::In(Remaining(o.timeout, used_ms));
  const Millis reserve = std::min(o.fallback_timeout, o.timeout / 4);
  return Deadline::In(Remaining(o.timeout - reserve, used_ms));
}

RunStatus RunStatusFromName(const std::string& name) {
  for (RunStatus s : {RunStatus::kFinished, RunStatus::kMaxSteps, RunStatus::kStuck, RunStatus::kTimeout,
                      RunStatus::kBudget, RunStatus::kAwaitingApproval}) {
    if (name == RunStatusName(s)) return s;
  }
  return RunStatus::kError;
}

// Model adapters are ours and do not throw, but a bug in one (or in a
// caller's ChatModel) must end one call, not the process: invariant 2.
Result<ModelResponse> SafeComplete(ChatModel& model, const ModelRequest& request, const ModelCallContext& ctx) {
  try {
    return model.Complete(request, ctx);
  } catch (const std::exception& e) {
    return Status::Internal(std::string("the model adapter failed: ") + Preview(e.what(), 200));
  } catch (...) {
    return Status::Internal("the model adapter failed with an unknown exception");
  }
}

// One log line per event (core/log.h): ids, names, counts, sizes, timings;
// text only as LogContent (its size, unless MEDREACT_LOG_PHI=1).
void LogEvent(const std::string& run, const Event& e) {
  switch (e.type) {
    case EventType::kRunStarted:
      Log().info("run {} started: model {} ({}), {} tools, max {} steps{}", run, StringOr(e.data, "model"),
                   StringOr(e.data, "protocol"), e.data.value("tools", Json::array()).size(),
                   IntegerOr(e.data, "max_steps", 0),
                   e.data.contains("resumed_at_step")
                       ? ", resumed after step " + std::to_string(IntegerOr(e.data, "resumed_at_step", 0))
                       : "");
      break;
    case EventType::kModelRequest:
      if (!Log().should_log(spdlog::level::debug)) break;
      Log().debug("run {} step {}: model call with {} messages, {} tools{}", run, e.step,
                    IntegerOr(e.data, "messages", 0), IntegerOr(e.data, "tools", 0),
                    BoolOr(e.data, "fallback", false) ? " (fallback synthesis)" : "");
      break;
    case EventType::kAssistantMessage:
      if (!Log().should_log(spdlog::level::debug)) break;
      Log().debug("run {} step {}: model replied with {} tool call(s), text {}{}", run, e.step,
                    e.data.value("tool_calls", Json::array()).size(), LogContent(e.text),
                    StringOr(e.data, "parse_error").empty()
                        ? ""
                        : ", unusable: " + LogContent(StringOr(e.data, "parse_error")));
      break;
    case EventType::kToolStarted:
      if (!Log().should_log(spdlog::level::debug)) break;
      Log().debug("run {} step {}: tool {} ({}) started, arguments {}", run, e.step, e.tool_name,
                    e.tool_call_id, LogContent(e.text));
      break;
    case EventType::kToolFinished:
      if (!Log().should_log(spdlog::level::debug)) break;
      Log().debug("run {} step {}: tool {} ({}) {} in {:.1f} ms, result {}", run, e.step, e.tool_name,
                    e.tool_call_id, e.ok ? "ok" : "failed", e.elapsed_ms, LogContent(e.text));
      break;
    case EventType::kStepFinished:
      if (!Log().should_log(spdlog::level::debug)) break;
      Log().debug("run {} step {} done in {:.1f} ms, {} tokens", run, e.step, e.elapsed_ms,
                    IntegerOr(e.data.value("usage", Json::object()), "total_tokens", 0));
      break;
    case EventType::kRunFinished:
      Log().info("run {} finished: {} after {} steps in {:.1f} ms, answer {}", run, StringOr(e.data, "status"),
                   IntegerOr(e.data, "steps", 0), e.elapsed_ms, LogContent(e.text));
      break;
    case EventType::kError:
      Log().warn("run {} step {}: {}", run, e.step, e.text);
      break;
    case EventType::kGraphTransition:
      if (!Log().should_log(spdlog::level::debug)) break;
      Log().debug("run {} graph: {} -> {} in {:.1f} ms", run, StringOr(e.data, "node"), StringOr(e.data, "next"),
                  e.data.value("elapsed_ms", 0.0));
      break;
    case EventType::kApproval:
      Log().info("run {} step {}: tool {} ({}) {}", run, e.step, e.tool_name, e.tool_call_id,
                 StringOr(e.data, "decision") == "awaiting" ? "awaits approval"
                                                            : StringOr(e.data, "decision") + " by the reviewer");
      break;
    case EventType::kModelDelta:
      break;  // one per token: too many to log
  }
}

Json OptionsJson(const AgentOptions& o) {
  Json j{{"max_steps", o.max_steps},
         {"timeout_ms", o.timeout.count()},
         {"token_budget", o.token_budget},
         {"tool_call_budget", o.tool_call_budget},
         {"max_parallel_tools", o.max_parallel_tools},
         {"tool_timeout_ms", o.tool_timeout.count()},
         {"stuck_threshold", o.stuck_threshold},
         {"finish_tools", o.finish_tools},
         {"answer_tool", o.answer_tool},
         {"fallback_synthesis", o.fallback_synthesis},
         {"stream", o.stream},
         {"max_history_messages", o.max_history_messages}};
  if (o.temperature) j["temperature"] = *o.temperature;
  if (o.max_tokens) j["max_tokens"] = *o.max_tokens;
  return j;
}

}  // namespace medreact
