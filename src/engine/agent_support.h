// Helpers of the agent loop (engine/agent.cc) that other loops built on the
// engine share, so that every loop calls models, names tool calls and logs the
// same way: the chest X-ray graph (apps/cxr) runs its own reason/act nodes.
#ifndef MEDREACT_ENGINE_AGENT_SUPPORT_H_
#define MEDREACT_ENGINE_AGENT_SUPPORT_H_

#include <string>
#include <vector>

#include "medreact/agent.h"
#include "medreact/cancel.h"
#include "medreact/events.h"
#include "medreact/json.h"
#include "medreact/message.h"
#include "medreact/model.h"

namespace medreact {

// Milliseconds from `t` to now.
double MsSince(SteadyClock::time_point t);

// The user turn of fallback synthesis: stop for `reason`, answer from what is known.
std::string FallbackPrompt(const std::string& reason);

// Gives every call an id, unique within the turn: the next request must pair
// each tool message with exactly one call (invariant 1).
void EnsureUniqueCallIds(std::vector<ToolCall>& calls);

// A run's time left of `timeout` with `used_ms` spent; at least 1 ms.
Millis Remaining(Millis timeout, double used_ms);

// The loop's own deadline (the run's, less fallback synthesis' reserve).
Deadline WorkingDeadline(const AgentOptions& o, double used_ms);

// RunStatusName's inverse; kError for anything else.
RunStatus RunStatusFromName(const std::string& name);

// model.Complete, with an exception from a (buggy) adapter turned into an
// Internal status (invariant 2: a model never takes the process down).
Result<ModelResponse> SafeComplete(ChatModel& model, const ModelRequest& request, const ModelCallContext& ctx);

// One log line per event (core/log.h): ids, names, counts, sizes, timings;
// text only as LogContent (its size, unless MEDREACT_LOG_PHI=1).
void LogEvent(const std::string& run, const Event& e);

// The options as the trace records them.
Json OptionsJson(const AgentOptions& o);

}  // namespace medreact

#endif  // MEDREACT_ENGINE_AGENT_SUPPORT_H_
