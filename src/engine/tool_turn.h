// One turn's tool calls: run them concurrently on the pool, wait with
// per-call deadlines, and return exactly one result per call, in call order
// (invariants 1 and 4).
//
// A call that does not finish by its deadline (the earlier of the run's
// deadline and now + tool_timeout) gets a timeout error result and its
// cancellation token is set; the worker thread is abandoned, never waited
// for. A cancelled run gives the unfinished calls a "cancelled" record (and
// ToolTurnResult::cut; no on_result for them). Calls
// beyond `calls_allowed` (the tool-call budget) are not run and get an error
// result saying so; calls of `uncounted` tools are neither limited nor
// counted. Events are emitted from the calling thread only.
// tool_started carries the call's arguments as its text (for UIs; a logging
// sink must not write it) and their size in data. Each call run gets a span
// `execute_tool <tool>` (INTERNAL; gen_ai.tool.name, gen_ai.tool.call.id;
// an ERROR status naming the kind of failure, never its text; the arguments
// only with MEDREACT_LOG_PHI=1), started and ended on the calling thread.
#ifndef MEDREACT_ENGINE_TOOL_TURN_H_
#define MEDREACT_ENGINE_TOOL_TURN_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/otel.h"
#include "engine/thread_pool.h"
#include "medreact/events.h"
#include "medreact/run_state.h"
#include "medreact/tool_registry.h"
#include "medreact/trace.h"

namespace medreact {

struct ToolTurnOptions {
  Deadline run_deadline = Deadline::Never();
  Millis tool_timeout{60'000};
  CancellationToken run_cancel;
  int step = 0;
  int calls_allowed = -1;  // -1 = unlimited
  // Tools outside the budget (the run's finishing tools): a call of one is
  // always run and not counted in calls_run. Default: none
  std::vector<std::string> uncounted;
  // Results already in (a resumed turn), by call index: those calls are not
  // run again; their records are returned as they are.
  std::map<size_t, ToolResultRecord> finished;
  // Called on the calling thread as each call's result comes in (not for
  // `finished` ones), with its index, before that call's tool_finished event:
  // the agent's checkpoint after every tool call.
  std::function<void(size_t index, const ToolResultRecord& record)> on_result;
  // The span the turn's tool spans (`execute_tool <tool>`, core/otel.h) are
  // children of: the agent's step. The workers run each call with its own
  // span as their current context (an MCP client's traceparent). Default:
  // invalid (the calling thread's current context)
  otel::SpanContext trace_parent;
};

struct ToolTurnResult {
  std::vector<ToolResultRecord> records;  // one per call, in call order
  int calls_run = 0;
  // The run was cancelled while calls were in flight: those got a
  // "cancelled" record here, but on_result was not called for them (they
  // have no result to keep; a resume runs them again).
  bool cut = false;
};

// Which calls of a turn wait for a person (AgentOptions::needs_approval and
// every graph app's equivalent): the calls not in `finished`, of a known
// tool not named in `never_held` (a finishing tool), that `needs_approval`
// holds (a predicate that throws holds the call). `approve`, when set, is
// asked for each held call not yet in `approvals` and its answer stored
// there. Returns the held calls still undecided (ids, in call order) and
// the decided ones (indices): nothing is applied here, so a paused turn is
// stored as the model made it.
struct ApprovalSplit {
  std::vector<std::string> waiting;
  std::vector<size_t> decided;
};
ApprovalSplit SplitForApproval(
    const std::vector<ToolCall>& calls, const ToolRegistry& tools,
    const std::map<size_t, ToolResultRecord>& finished, const std::vector<std::string>& never_held,
    const std::function<bool(const ToolCall&, const ToolSpec&)>& needs_approval,
    const std::function<std::optional<ApprovalDecision>(const ToolCall&, const ToolSpec&)>& approve,
    std::map<std::string, ApprovalDecision>& approvals);

// The registry is shared with the workers: an abandoned call may outlive the turn.
ToolTurnResult RunToolTurn(std::shared_ptr<const ToolRegistry> registry, const std::vector<ToolCall>& calls,
                           const ToolTurnOptions& options, ThreadPool& pool,
                           const std::function<void(Event)>& emit);

}  // namespace medreact

#endif  // MEDREACT_ENGINE_TOOL_TURN_H_
