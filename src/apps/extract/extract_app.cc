// RunExtraction (extract_app.h): attempts of one conversation until the
// answer validates or the budgets are spent.
#include "apps/extract/extract_app.h"

#include <algorithm>
#include <set>
#include <utility>

#include "apps/common/app_runner.h"
#include "apps/common/planner_support.h"
#include "apps/extract/extract_prompts.h"
#include "apps/extract/medical_functions.h"
#include "medreact/json_schema.h"
#include "tools/rag/rag_pack.h"

namespace medreact {
namespace {

Result<std::shared_ptr<ToolRegistry>> BuildTools(const ExtractionConfig& config) {
  auto registry = std::make_shared<ToolRegistry>();
  if (config.rag || config.extras) {
    if (Status s = RegisterRagPack(*registry, config.rag, config.extras); !s.ok()) return s;
  }
  auto functions = MedicalFunctions::Create();
  if (!functions.ok()) return functions.status();
  if (Status s = RegisterCallMedicalFunction(*registry, *functions); !s.ok()) return s;
  if (Status s = RegisterSubmitExtraction(*registry); !s.ok()) return s;
  return registry;
}

struct Attempt {
  std::optional<Json> answer;           // the parsed JSON, when the reply had one
  std::vector<SchemaProblem> problems;  // empty = valid
  std::string parse_error;              // no JSON in the reply
};

class Extraction {
 public:
  Extraction(const ExtractionTask& task, const ExtractionConfig& config, std::shared_ptr<const ToolRegistry> tools,
             const JsonSchema& schema)
      : task_(task), config_(config), tools_(std::move(tools)), schema_(schema) {}

  // One agent run with `model`: the answer check validates every answer
  // against the schema and sends a failing one back with its problems (at
  // most max_validation_retries times), so the corrections are steps of the
  // same run and the same trace. Fills `out` except the planner label.
  // `may_fall_back`: stop when the model never answered, for the caller to
  // hand the task to the planner.
  void Run(std::shared_ptr<ChatModel> model, bool may_fall_back, ExtractionOutcome& out) {
    AgentOptions options;
    options.system_prompt = ExtractionSystemPrompt(model->capabilities().tool_calling);
    options.max_steps = config_.max_iterations;
    options.tool_call_budget = config_.tool_call_budget;
    options.timeout = config_.timeout;
    options.tool_timeout = config_.tool_timeout;
    options.temperature = config_.temperature;
    options.max_tokens = config_.max_tokens;
    options.stream = config_.stream;
    options.on_event = config_.on_event;
    options.cancel = config_.cancel;
    options.max_answer_retries = config_.max_validation_retries;
    options.answer_tool = kSubmitExtractionTool;
    options.check_answer = [this](const std::string& answer, const Json&) {
      Attempt a = Check(answer);
      attempts_.push_back(a);
      if (a.answer && a.problems.empty()) return AnswerCheck{};
      return AnswerCheck{false, a.answer ? ValidationFeedback(a.problems) : NoJsonFeedback(a.parse_error)};
    };
    Agent agent(model, tools_, options);
    RunResult run = agent.Run({.message = ExtractionTaskMessage(task_)});
    if (may_fall_back && ModelNeverAnswered(run) && !config_.cancel.cancelled()) {
      never_answered_ = true;
      attempts_.clear();
      Record(run, out);
      return;
    }
    // An answer the check did not see (fallback synthesis after a limit, or
    // the engine's own "no final answer" text) is checked here, as the last attempt.
    if (run.status != RunStatus::kFinished) attempts_.push_back(Check(run.answer));
    Record(run, out);
  }

  bool never_answered() const { return never_answered_; }
  const std::vector<Attempt>& attempts() const { return attempts_; }
  const std::set<std::string>& tools_used() const { return tools_used_; }
  const std::vector<std::string>& errors() const { return errors_; }
  int iterations() const { return iterations_; }
  int tool_calls() const { return tool_calls_; }
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  Attempt Check(const std::string& answer) const {
    Attempt a;
    Result<Json> parsed = ParseExtractionAnswer(answer);
    if (!parsed.ok()) {
      a.parse_error = parsed.status().message();
      return a;
    }
    a.problems = schema_.Validate(*parsed);
    a.answer = std::move(parsed).value();
    return a;
  }

  // Takes the run's trace and records what it did.
  void Record(RunResult& run, ExtractionOutcome& out) {
    for (const StepRecord& step : run.trace.steps) {
      for (const ToolResultRecord& r : step.tool_results) {
        tools_used_.insert(r.name);
        if (!r.ok) errors_.push_back(r.name + ": " + Preview(r.error, 300));
      }
      if (!step.model_error.empty()) errors_.push_back("model: " + step.model_error);
    }
    iterations_ = run.steps;
    tool_calls_ = run.tool_calls;
    out.status = run.status;
    if (run.final_fields.is_object() && run.final_fields.contains("notes") && run.final_fields["notes"].is_array()) {
      for (const Json& n : run.final_fields["notes"]) {
        if (n.is_string()) notes_.push_back(n.get<std::string>());
      }
    }
    if (!run.error.empty()) errors_.push_back(run.error);
    out.trace = std::move(run.trace);
  }

  const ExtractionTask& task_;
  const ExtractionConfig& config_;
  std::shared_ptr<const ToolRegistry> tools_;
  const JsonSchema& schema_;
  bool never_answered_ = false;
  std::vector<Attempt> attempts_;
  std::set<std::string> tools_used_;
  std::vector<std::string> errors_;
  std::vector<std::string> notes_;
  int iterations_ = 0;
  int tool_calls_ = 0;
};

OrderedJson ProblemsJson(const std::vector<SchemaProblem>& problems) {
  OrderedJson out = OrderedJson::array();
  for (const SchemaProblem& p : problems) out.push_back({{"pointer", p.pointer}, {"problem", p.text}});
  return out;
}

OrderedJson BuildResult(const Extraction& e, const std::string& planner, bool fell_back,
                        const std::string& model_failure, ExtractionOutcome& out) {
  // The best answer: the last one that parsed (a later correction beats an earlier try).
  const Attempt* best = nullptr;
  for (const Attempt& a : e.attempts()) {
    if (a.answer) best = &a;
  }
  OrderedJson result;
  out.valid = best && best->problems.empty();
  result["valid"] = out.valid;
  result["extraction"] = best ? OrderedJson::parse(DumpJson(*best->answer)) : OrderedJson(nullptr);
  OrderedJson problems = best ? ProblemsJson(best->problems) : OrderedJson::array();
  if (!best) {
    const std::string why = e.attempts().empty() ? "the run ended before an answer" : e.attempts().back().parse_error;
    problems.push_back({{"pointer", "(root)"}, {"problem", "no JSON answer: " + why}});
  }
  result["validation_errors"] = std::move(problems);
  result["planner"] = planner;
  result["attempts"] = e.attempts().size();
  std::vector<std::string> errors = e.errors();
  if (fell_back) errors.insert(errors.begin(), "the model never answered, the offline planner extracted instead: " + model_failure);
  result["agent"] = {{"status", RunStatusName(out.status)},
                     {"iterations", e.iterations()},
                     {"tool_calls", e.tool_calls()},
                     {"tools_used", std::vector<std::string>(e.tools_used().begin(), e.tools_used().end())},
                     {"errors", errors}};
  if (!e.notes().empty()) result["notes"] = e.notes();
  return result;
}

}  // namespace

ExtractionOutcome RunExtraction(const ExtractionTask& task, const ExtractionConfig& config) {
  ExtractionOutcome out;
  Result<JsonSchema> schema = JsonSchema::Compile(task.schema);
  Result<std::shared_ptr<ToolRegistry>> tools = BuildTools(config);
  if (!schema.ok() || !tools.ok()) {  // callers validate the schema; the tools' specs are fixed
    out.status = RunStatus::kError;
    const std::string why = !schema.ok() ? "the schema does not compile: " + schema.status().message()
                                         : "cannot register the tools: " + tools.status().message();
    out.result = {{"valid", false}, {"extraction", nullptr},
                  {"validation_errors", OrderedJson::array({{{"pointer", "(root)"}, {"problem", why}}})},
                  {"planner", "none"}, {"attempts", 0}};
    return out;
  }
  std::unique_ptr<Extraction> extraction;
  const FallbackOutcome who = RunWithFallback(
      config.model, [&] { return MakeExtractionRulesPlanner(task); }, config.fallback_to_rules, config.cancel,
      [&](std::shared_ptr<ChatModel> model) -> std::optional<std::string> {
        const bool first = extraction == nullptr;
        if (!first) {  // the planner after a model that never answered: keep the model's run aside
          out.model_trace = std::move(out.trace);
          out.trace = RunTrace{};
          out.status = RunStatus::kFinished;
        }
        extraction = std::make_unique<Extraction>(task, config, *tools, *schema);
        extraction->Run(std::move(model), first && config.model && config.fallback_to_rules, out);
        return extraction->never_answered() ? std::optional<std::string>(out.trace.error) : std::nullopt;
      });
  const std::string& planner = who.planner;
  out.fell_back = who.fell_back;
  out.model_failure = who.model_failure;
  out.result = BuildResult(*extraction, planner, out.fell_back, out.model_failure, out);
  return out;
}

}  // namespace medreact
