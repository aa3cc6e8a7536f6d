#include "service/run_json.h"

#include "medreact/run_state.h"

namespace medreact::service {

Json RunRecordJson(const RunRecord& r, bool brief) {
  Json j{{"id", r.id},
         {"app", r.app},
         {"status", r.status},
         {"steps", r.steps},
         {"checkpoints", r.checkpoints},
         {"created_at", r.created_at},
         {"updated_at", r.updated_at},
         {"model", r.model},
         {"events", r.events}};
  if (!brief) j["inputs"] = r.inputs;
  j["result"] = r.result;
  if (!r.owner.empty()) {
    j["lease"] = Json{{"owner", r.owner}, {"holder", DescribeRunOwner(r.owner)}, {"until", r.lease_until}};
  }
  return j;
}

Json RunViewJson(const RunView& view) {
  Json steps = Json::array();
  for (const StepRecord& s : view.steps) steps.push_back(StepRecordToStateJson(s));
  Json out{{"run", RunRecordJson(view.run)}, {"steps", std::move(steps)}};
  if (view.run.status == "awaiting_approval") {
    Json calls = Json::array();
    for (const ToolCall& c : view.waiting) {
      calls.push_back(Json{{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
    }
    out["awaiting_approval"] = std::move(calls);
  }
  return out;
}

}  // namespace medreact::service
