#include "apps/triage/triage_app.h"

#include <filesystem>
#include <utility>

#include "apps/common/app_runner.h"
#include "apps/common/planner_support.h"
#include "apps/triage/rules_planner.h"
#include "apps/triage/triage_policy.h"
#include "apps/triage/triage_prompts.h"
#include "tools/fhir/fhir_pack.h"
#include "tools/fhir/fhir_rest.h"

namespace medreact {
namespace {

// One investigation; `resume` (the model's run only) goes on from a checkpoint instead of starting.
RunResult Investigate(std::shared_ptr<ChatModel> model, std::shared_ptr<const FhirStore> store,
                      const std::string& findings, const TriageConfig& config, bool checkpointed,
                      const RunState* resume) {
  auto registry = std::make_shared<ToolRegistry>();
  AgentOptions options;
  options.agent_name = "triage";
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
  if (checkpointed) options.on_checkpoint = config.on_checkpoint;
  Agent agent(std::move(model), registry, options);
  return resume ? agent.Resume(*resume) : agent.Run({.message = findings});
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

namespace {

// RunTriage and ResumeTriage: `resume` null for a new triage.
TriageOutcome Triage(std::shared_ptr<const FhirStore> store, const TriageCase& case_, const TriageConfig& config,
                     const RunState* resume) {
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
          // Only the configured model's run is checkpointed and resumed; the rules planner starts afresh.
          const bool is_model = model && model == config.model;
          run = Investigate(std::move(model), store, case_.findings, config, is_model, is_model ? resume : nullptr);
          if (is_model) {
            out.model_run = *run;
            out.model_run->messages.clear();  // the store keeps the conversation from the checkpoints
          }
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

}  // namespace

RunResult TriageAsEndedRun(const TriageOutcome& outcome) {
  RunResult end;
  end.status = outcome.status;
  end.answer = DumpJson(outcome.result);
  if (Result<Json> fields = ParseJson(end.answer); fields.ok()) end.final_fields = std::move(*fields);
  end.answer_accepted = true;
  if (outcome.trace) end.trace = *outcome.trace;
  if (end.trace.run_id.empty()) end.trace.run_id = "run_" + MintToolCallId().substr(5, 16);
  end.steps = static_cast<int>(end.trace.steps.size());
  for (const StepRecord& step : end.trace.steps) end.tool_calls += static_cast<int>(step.tool_results.size());
  end.usage = end.trace.usage;
  return end;
}

TriageOutcome RunTriage(std::shared_ptr<const FhirStore> store, const TriageCase& case_, const TriageConfig& config) {
  return Triage(std::move(store), case_, config, nullptr);
}

TriageOutcome ResumeTriage(std::shared_ptr<const FhirStore> store, const TriageCase& case_, const TriageConfig& config,
                           const RunState& state) {
  return Triage(std::move(store), case_, config, &state);
}

namespace {

Status BadInputs(const std::string& field, const std::string& want) {
  return Status::InvalidArgument("triage run inputs: '" + field + "' must be " + want);
}

// A path made absolute lexically (the file may be gone when a resume reads
// it, which then fails naming it).
std::string AbsolutePath(const std::string& path) {
  if (path.empty() || IsFhirPatientUrl(path)) return path;  // a record on a FHIR server
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

// An integer field in [lo, hi]; absent: the fallback.
Result<int64_t> IntField(const Json& j, const char* key, int64_t fallback, int64_t lo, int64_t hi) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  std::optional<int64_t> v = ExactInteger(*it, lo, hi);
  if (!v) return BadInputs(key, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return *v;
}

// A string field; absent: "" (or an error when required).
Result<std::string> StringField(const Json& j, const char* key, bool required) {
  auto it = j.find(key);
  if (it == j.end()) {
    if (required) return BadInputs(key, "a string");
    return std::string();
  }
  if (!it->is_string()) return BadInputs(key, "a string");
  return it->get<std::string>();
}

}  // namespace

TriageInputs MakeTriageInputs(const std::string& fhir_path, const std::string& as_of, const TriageCase& case_,
                              const TriageConfig& config) {
  return TriageInputs{.fhir_path = AbsolutePath(fhir_path),
                      .record_source = fhir_path,
                      .findings = case_.findings,
                      .base_priority = case_.base_priority,
                      .as_of = as_of,
                      .max_steps = config.max_steps,
                      .timeout = config.timeout,
                      .tool_timeout = config.tool_timeout,
                      .temperature = config.temperature,
                      .max_tokens = config.max_tokens,
                      .fallback_to_rules = config.fallback_to_rules};
}

Json TriageInputsToJson(const TriageInputs& in) {
  Json j{{"fhir", AbsolutePath(in.fhir_path)},
         {"record_source", in.record_source},
         {"findings", in.findings},
         {"base_priority", in.base_priority ? Json(*in.base_priority) : Json()},
         {"as_of", in.as_of},
         {"max_steps", in.max_steps},
         {"timeout_ms", in.timeout.count()},
         {"tool_timeout_ms", in.tool_timeout.count()},
         {"temperature", in.temperature ? Json(*in.temperature) : Json()},
         {"max_tokens", in.max_tokens ? Json(*in.max_tokens) : Json()},
         {"fallback_to_rules", in.fallback_to_rules}};
  if (!in.worklist_dir.empty()) {
    j["worklist"] = Json{{"dir", AbsolutePath(in.worklist_dir)},
                         {"case", in.case_name},
                         {"out", AbsolutePath(in.out_dir)},
                         {"digest", in.digest}};
  }
  return j;
}

Result<TriageInputs> TriageInputsFromJson(const Json& j) {
  if (!j.is_object()) return BadInputs("(root)", "an object");
  TriageInputs in;
  Result<std::string> fhir = StringField(j, "fhir", true);
  if (!fhir.ok()) return fhir.status();
  if (fhir->empty()) return BadInputs("fhir", "the path of the patient's record, not empty");
  in.fhir_path = *fhir;
  Result<std::string> source = StringField(j, "record_source", false);
  if (!source.ok()) return source.status();
  in.record_source = source->empty() ? in.fhir_path : *source;
  Result<std::string> findings = StringField(j, "findings", true);
  if (!findings.ok()) return findings.status();
  if (findings->find_first_not_of(" \t\r\n") == std::string::npos) return BadInputs("findings", "non-blank text");
  in.findings = *findings;
  if (auto it = j.find("base_priority"); it != j.end() && !it->is_null()) {
    std::optional<int64_t> base = ExactInteger(*it, 1, 3);
    if (!base) return BadInputs("base_priority", "1, 2 or 3 (or null: from the findings)");
    in.base_priority = static_cast<int>(*base);
  }
  Result<std::string> as_of = StringField(j, "as_of", false);
  if (!as_of.ok()) return as_of.status();
  in.as_of = *as_of;
  Result<int64_t> max_steps = IntField(j, "max_steps", in.max_steps, 1, 1'000'000);
  Result<int64_t> timeout = IntField(j, "timeout_ms", in.timeout.count(), 0, INT64_MAX / 2);
  Result<int64_t> tool_timeout = IntField(j, "tool_timeout_ms", in.tool_timeout.count(), 0, INT64_MAX / 2);
  for (const auto* r : {&max_steps, &timeout, &tool_timeout}) {
    if (!r->ok()) return r->status();
  }
  in.max_steps = static_cast<int>(*max_steps);
  in.timeout = Millis(*timeout);
  in.tool_timeout = Millis(*tool_timeout);
  in.temperature.reset();
  if (auto t = j.find("temperature"); t != j.end() && !t->is_null()) {
    if (!t->is_number()) return BadInputs("temperature", "a number or null");
    in.temperature = t->get<double>();
  }
  if (auto t = j.find("max_tokens"); t != j.end() && !t->is_null()) {
    std::optional<int64_t> v = ExactInteger(*t, 1, INT32_MAX);
    if (!v) return BadInputs("max_tokens", "an integer in [1, " + std::to_string(INT32_MAX) + "] or null");
    in.max_tokens = static_cast<int>(*v);
  }
  if (auto f = j.find("fallback_to_rules"); f != j.end()) {
    if (!f->is_boolean()) return BadInputs("fallback_to_rules", "true or false");
    in.fallback_to_rules = f->get<bool>();
  }
  if (auto w = j.find("worklist"); w != j.end()) {
    if (!w->is_object()) return BadInputs("worklist", "an object {dir, case, out, digest}");
    Result<std::string> dir = StringField(*w, "dir", true);
    Result<std::string> name = StringField(*w, "case", true);
    Result<std::string> out = StringField(*w, "out", true);
    Result<std::string> digest = StringField(*w, "digest", true);
    for (const auto* r : {&dir, &name, &out, &digest}) {
      if (!r->ok()) return BadInputs("worklist", "an object {dir, case, out, digest} of strings");
    }
    in.worklist_dir = *dir;
    in.case_name = *name;
    in.out_dir = *out;
    in.digest = *digest;
  }
  return in;
}

TriageCase TriageCaseOf(const TriageInputs& inputs) {
  return TriageCase{.findings = inputs.findings, .base_priority = inputs.base_priority};
}

void ApplyTriageLimits(const TriageInputs& inputs, TriageConfig& config) {
  config.agent = true;
  config.max_steps = inputs.max_steps;
  config.timeout = inputs.timeout;
  config.tool_timeout = inputs.tool_timeout;
  config.temperature = inputs.temperature;
  config.max_tokens = inputs.max_tokens;
  config.fallback_to_rules = inputs.fallback_to_rules;
}

}  // namespace medreact
