#include "apps/triage/triage_app.h"

#include <utility>

#include "apps/common/app_runner.h"
#include "apps/common/planner_support.h"
#include "apps/triage/rules_planner.h"
#include "apps/triage/triage_policy.h"
#include "apps/triage/triage_prompts.h"
#include "tools/fhir/fhir_pack.h"

namespace medreact {
namespace {

RunResult Investigate(std::shared_ptr<ChatModel> model, std::shared_ptr<const FhirStore> store,
                      const std::string& findings, const TriageConfig& config) {
  auto registry = std::make_shared<ToolRegistry>();
  AgentOptions options;
  const ToolCalling tool_calling = model->capabilities().tool_calling;
  Status registered = RegisterFhirPack(*registry, std::move(store));
  if (registered.ok()) registered = RegisterSubmitAssessment(*registry);
  // Every protocol finishes through submit_assessment: the assessment is its validated arguments.
  options.answer_tool = kSubmitAssessmentTool;
  options.finish_tools = {kSubmitAssessmentTool};
  if (!registered.ok()) {  // a programming error: the pack's specs are fixed
    RunResult failed;
    failed.status = RunStatus::kError;
    failed.error = "cannot register the triage tools: " + registered.message();
    failed.answer = "No assessment: " + failed.error + ".";
    return failed;
  }
  options.system_prompt = TriageSystemPrompt(tool_calling, registry->Specs());
  options.max_steps = config.max_steps;
  options.timeout = config.timeout;
  options.tool_timeout = config.tool_timeout;
  options.temperature = config.temperature;
  options.max_tokens = config.max_tokens;
  options.stream = config.stream;
  options.on_event = config.on_event;
  options.cancel = config.cancel;
  Agent agent(std::move(model), registry, options);
  return agent.Run({.message = findings});
}

OrderedJson RecordInfo(const FhirStore& store) {
  OrderedJson warnings = OrderedJson::array();
  for (const std::string& w : store.warnings()) warnings.push_back(w);
  return OrderedJson{{"source", store.source()},
                     {"as_of", store.as_of_date()},
                     {"as_of_source", store.as_of_source()},
                     {"warnings", warnings}};
}

}  // namespace

std::string PlannerLabel(const TriageConfig& config) {
  if (!config.agent) return "none";
  return config.model ? "model" : "rules";
}

TriageOutcome RunTriage(std::shared_ptr<const FhirStore> store, const TriageCase& case_,
                        const TriageConfig& config) {
  TriageOutcome out;
  std::string why;
  int base = case_.base_priority.value_or(0);
  if (case_.base_priority) {
    why = "set by the caller";
  } else {
    base = BasePriorityFromFindings(case_.findings, &why);
  }
  const std::string patient_id = store->patient_id();
  std::string planner = PlannerLabel(config);

  std::optional<RunResult> run;
  if (config.agent) {
    out.agent_ran = true;
    const FallbackOutcome who = RunWithFallback(
        config.model, [] { return MakeTriageRulesPlanner(); }, config.fallback_to_rules, config.cancel,
        [&](std::shared_ptr<ChatModel> model) -> std::optional<std::string> {
          if (run) out.model_trace = std::move(run->trace);  // a second attempt: the failed model run is kept
          run = Investigate(std::move(model), store, case_.findings, config);
          return ModelNeverAnswered(*run) ? std::optional<std::string>(run->error) : std::nullopt;
        });
    planner = who.planner;
    out.fell_back = who.fell_back;
    out.model_failure = who.model_failure;
  }

  out.result = BuildTriageResult(patient_id, case_.findings, base, why, run ? &*run : nullptr);
  if (out.fell_back) {
    OrderedJson& errors = out.result["agent_reasoning"]["errors"];
    if (errors.is_null()) errors = OrderedJson::array();
    errors.insert(errors.begin(), "the model never answered, the rules planner decided instead: " + out.model_failure);
  }
  out.result["planner"] = planner;
  out.result["record"] = RecordInfo(*store);
  if (run) {
    out.status = run->status;
    out.trace = std::move(run->trace);
  }
  return out;
}

}  // namespace medreact
