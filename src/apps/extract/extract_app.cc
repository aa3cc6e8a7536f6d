// RunExtraction (extract_app.h): attempts of one conversation until the
// answer validates or the budgets are spent.
#include "apps/extract/extract_app.h"

#include <algorithm>
#include <set>
#include <utility>

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
    if (Status s = RegisterRagTools(*registry, config.rag, config.extras); !s.ok()) return s;
  }
  auto functions = MedicalFunctions::Create();
  if (!functions.ok()) return functions.status();
  if (Status s = RegisterCallMedicalFunction(*registry, *functions); !s.ok()) return s;
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

  // Runs the attempts with `model`; fills `out` except the planner label.
  // `may_fall_back`: stop after a first run in which the model never answered.
  void Run(std::shared_ptr<ChatModel> model, bool may_fall_back, ExtractionOutcome& out) {
    const ToolCalling tool_calling = model->capabilities().tool_calling;
    std::string message = ExtractionTaskMessage(task_);
    std::vector<Message> history;
    int turns_left = config_.max_iterations;
    int calls_left = config_.tool_call_budget;
    const auto deadline = std::chrono::steady_clock::now() + config_.timeout;
    for (int attempt = 0; attempt <= config_.max_validation_retries && turns_left > 0; ++attempt) {
      AgentOptions options;
      options.system_prompt = ExtractionSystemPrompt(tool_calling);
      options.max_steps = turns_left;
      // 0 would mean "unlimited" to the agent: a spent budget still allows one call in a retry.
      options.tool_call_budget = std::max(calls_left, 1);
      options.timeout = std::max(Millis(1), std::chrono::duration_cast<Millis>(deadline - std::chrono::steady_clock::now()));
      options.tool_timeout = config_.tool_timeout;
      options.temperature = config_.temperature;
      options.max_tokens = config_.max_tokens;
      options.stream = config_.stream;
      options.on_event = config_.on_event;
      options.cancel = config_.cancel;
      Agent agent(model, tools_, options);
      RunResult run = agent.Run({.message = message, .history = history});
      turns_left -= run.steps;
      calls_left -= run.tool_calls;
      const bool never_answered = ModelNeverAnswered(run);
      Merge(run, out);  // moves the steps out of `run`
      if (attempt == 0 && may_fall_back && never_answered && !config_.cancel.cancelled()) {
        never_answered_ = true;
        return;
      }
      Attempt a = Check(run.answer);
      attempts_.push_back(a);
      if (a.answer && a.problems.empty()) break;
      if (run.status == RunStatus::kError || run.status == RunStatus::kTimeout || config_.cancel.cancelled()) break;
      message = a.answer ? ValidationFeedback(a.problems) : NoJsonFeedback(a.parse_error);
      history = std::move(run.messages);
    }
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

  // Appends a run's steps to the outcome's trace (numbered on) and records what it did.
  void Merge(RunResult& run, ExtractionOutcome& out) {
    RunTrace& trace = out.trace;
    const int offset = static_cast<int>(trace.steps.size());
    if (!merged_) {
      trace = run.trace;
      trace.steps.clear();
      trace.usage = Usage{};
      trace.elapsed_ms = 0;
      merged_ = true;
    }
    for (StepRecord& step : run.trace.steps) {
      step.index += offset;
      for (const ToolResultRecord& r : step.tool_results) {
        tools_used_.insert(r.name);
        if (!r.ok) errors_.push_back(r.name + ": " + Preview(r.error, 300));
      }
      if (!step.model_error.empty()) errors_.push_back("model: " + step.model_error);
      trace.steps.push_back(std::move(step));
    }
    trace.status = run.trace.status;
    trace.answer = run.trace.answer;
    trace.error = run.trace.error;
    trace.final_fields = run.trace.final_fields;
    trace.usage += run.trace.usage;
    trace.elapsed_ms += run.trace.elapsed_ms;
    iterations_ += run.steps;
    tool_calls_ += run.tool_calls;
    out.status = run.status;
    if (run.final_fields.is_object() && run.final_fields.contains("plan_notes")) {
      for (const Json& n : run.final_fields["plan_notes"]) {
        if (n.is_string()) notes_.push_back(n.get<std::string>());
      }
    }
    if (!run.error.empty()) errors_.push_back(run.error);
  }

  const ExtractionTask& task_;
  const ExtractionConfig& config_;
  std::shared_ptr<const ToolRegistry> tools_;
  const JsonSchema& schema_;
  bool merged_ = false;
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
  if (fell_back) errors.insert(errors.begin(), "model unreachable, the offline planner extracted instead: " + model_failure);
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
  std::shared_ptr<ChatModel> model = config.model ? config.model : MakeExtractionRulesPlanner(task);
  std::string planner = config.model ? "model" : "rules";
  auto extraction = std::make_unique<Extraction>(task, config, *tools, *schema);
  extraction->Run(model, config.model && config.fallback_to_rules, out);
  if (extraction->never_answered()) {
    out.fell_back = true;
    out.model_failure = out.trace.error;
    out.model_trace = std::move(out.trace);
    out.trace = RunTrace{};
    out.status = RunStatus::kFinished;
    std::shared_ptr<ChatModel> rules = MakeExtractionRulesPlanner(task);
    extraction = std::make_unique<Extraction>(task, config, *tools, *schema);
    extraction->Run(rules, false, out);
    planner = "rules (fallback)";
  }
  out.result = BuildResult(*extraction, planner, out.fell_back, out.model_failure, out);
  return out;
}

}  // namespace medreact
