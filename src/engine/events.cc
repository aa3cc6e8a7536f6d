#include "medreact/events.h"

namespace medreact {

const char* EventTypeName(EventType type) {
  switch (type) {
    case EventType::kRunStarted: return "run_started";
    case EventType::kModelRequest: return "model_request";
    case EventType::kModelDelta: return "model_delta";
    case EventType::kAssistantMessage: return "assistant_message";
    case EventType::kToolStarted: return "tool_started";
    case EventType::kToolFinished: return "tool_finished";
    case EventType::kStepFinished: return "step_finished";
    case EventType::kRunFinished: return "run_finished";
    case EventType::kError: return "error";
    case EventType::kGraphTransition: return "graph_transition";
    case EventType::kApproval: return "approval";
  }
  return "unknown";
}

Json ToJson(const Event& event) {
  Json j{{"type", EventTypeName(event.type)}, {"step", event.step}};
  if (!event.text.empty()) j["text"] = event.text;
  if (!event.tool_name.empty()) j["tool_name"] = event.tool_name;
  if (!event.tool_call_id.empty()) j["tool_call_id"] = event.tool_call_id;
  if (event.type == EventType::kToolFinished) j["ok"] = event.ok;
  if (event.elapsed_ms > 0) j["elapsed_ms"] = event.elapsed_ms;
  if (!event.data.is_null()) j["data"] = event.data;
  return j;
}

}  // namespace medreact
