#include "apps/common/planner_support.h"

#include <algorithm>
#include <utility>

namespace medreact {

ToolObservation ReadToolObservation(const std::string& content) {
  ToolObservation obs;
  if (content.rfind("Error:", 0) == 0) {
    obs.error = content.substr(content.size() > 6 && content[6] == ' ' ? 7 : 6);
  } else if (Result<Json> parsed = ParseJson(content); parsed.ok()) {
    obs.ok = true;
    obs.value = std::move(parsed).value();
  } else {
    obs.error = "unparseable result: " + Preview(content);
  }
  return obs;
}

bool ModelNeverAnswered(const RunResult& run) {
  if (run.status == RunStatus::kFinished || run.trace.steps.empty()) return false;
  return std::all_of(run.trace.steps.begin(), run.trace.steps.end(),
                     [](const StepRecord& step) { return !step.model_error.empty(); });
}

}  // namespace medreact
