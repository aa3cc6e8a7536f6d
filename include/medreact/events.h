// Typed events a run emits while it works, for progress displays, streaming
// front ends and logs.
//
// The sink is called synchronously, never concurrently (the agent serialises
// calls with a mutex even when tools run in parallel), possibly from a worker
// thread. It must be quick and must not call back into the Agent. Events carry
// tool names, ids, sizes and timings; text fields (deltas, messages, tool
// output) are there for UIs — a logging sink must not write them unless the
// user asked for content logging (privacy by default).
#ifndef MEDREACT_EVENTS_H_
#define MEDREACT_EVENTS_H_

#include <functional>
#include <string>

#include "medreact/json.h"

namespace medreact {

enum class EventType {
  kRunStarted,        // data: {"model","protocol","tools":[...],"max_steps","resumed_at_step"} (the last on Resume)
  kModelRequest,      // step, data: {"messages": n, "tools": n, "fallback": bool}
  kModelDelta,        // step, text: streamed text fragment
  kAssistantMessage,  // step, text: content, data: {"tool_calls": [...], "parse_error"}
  kToolStarted,       // step, tool_name, tool_call_id, text: the arguments (JSON text), data: {"arguments_bytes": n}
  kToolFinished,      // step, tool_name, tool_call_id, ok, elapsed_ms, text: observation
  kStepFinished,      // step, elapsed_ms, data: {"usage": {...}}
  kRunFinished,       // step, elapsed_ms, text: answer, data: {"status", "steps"}
  kError,             // text: message (model failure, nudges are not errors)
  kGraphTransition,   // step: the graph step, data: GraphTransition JSON (graph.h) — graph-run apps only
  kApproval,          // step, tool_name, tool_call_id, data: {"decision": "awaiting"|"approved"|"edited"|
                      // "rejected"}, and once decided "reviewer", "decided_at" and a rejection's "reason"
};

const char* EventTypeName(EventType type);  // "run_started", "model_request", ...

struct Event {
  EventType type = EventType::kRunStarted;
  int step = 0;
  std::string text;
  std::string tool_name;
  std::string tool_call_id;
  bool ok = true;
  double elapsed_ms = 0;
  Json data;
};

using EventSink = std::function<void(const Event&)>;

// {"type": "...", "step": n, ...} — for JSON-lines output.
Json ToJson(const Event& event);
// DumpJson(ToJson(event)), byte for byte, written without building the tree
// (the run store keeps every event's line; run_state_text.cc).
std::string EventJsonLine(const Event& event);

}  // namespace medreact

#endif  // MEDREACT_EVENTS_H_
