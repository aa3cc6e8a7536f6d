// What the apps' deterministic planners and their fallback logic share:
// reading a tool message back as an observation, and telling a run in which
// the model never answered (so that a planner may decide instead).
#ifndef MEDREACT_APPS_COMMON_PLANNER_SUPPORT_H_
#define MEDREACT_APPS_COMMON_PLANNER_SUPPORT_H_

#include <string>

#include "medreact/agent.h"
#include "medreact/json.h"

namespace medreact {

struct ToolObservation {
  bool ok = false;
  Json value;         // the result's JSON, when ok
  std::string error;  // the error text (without "Error: "), when not ok
};

// A tool message's content as the planner reads it: "Error: ..." → error;
// JSON → value; anything else → an "unparseable result" error.
ToolObservation ReadToolObservation(const std::string& content);

// True when no step produced a usable turn: every model call failed
// (unreachable, refused, 5xx after retries, timeouts). Such a run says nothing
// about the patient or the note.
bool ModelNeverAnswered(const RunResult& run);

}  // namespace medreact

#endif  // MEDREACT_APPS_COMMON_PLANNER_SUPPORT_H_
