// RunExtraction (extract_app.h): attempts of one conversation until the
// answer validates or the budgets are spent.
#include "apps/extract/extract_app.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>

#include "apps/common/app_runner.h"
#include "apps/common/planner_support.h"
#include "apps/extract/extract_prompts.h"
#include "apps/extract/medical_functions.h"
#include "medreact/json_schema.h"
#include "tools/rag/corpus_files.h"
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
  // `resume`: go on with the run from this checkpoint of it (the answers it
  // checked already in attempts(), see RebuildAttempts).
  void Run(std::shared_ptr<ChatModel> model, bool may_fall_back, ExtractionOutcome& out,
           const RunState* resume = nullptr) {
    AgentOptions options;
    options.agent_name = "extract";
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
    if (first_run_) options.on_checkpoint = config_.on_checkpoint;  // the first run only (KeepRunResult)
    options.max_answer_retries = config_.max_validation_retries;
    options.answer_tool = kSubmitExtractionTool;
    options.check_answer = [this](const std::string& answer, const Json&) {
      Attempt a = Check(answer);
      attempts_.push_back(a);
      if (a.answer && a.problems.empty()) return AnswerCheck{};
      return AnswerCheck{false, a.answer ? ValidationFeedback(a.problems) : NoJsonFeedback(a.parse_error)};
    };
    Agent agent(model, tools_, options);
    RunResult run = resume ? agent.Resume(*resume) : agent.Run({.message = ExtractionTaskMessage(task_)});
    if (first_run_) *first_run_ = run;
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

  // The answers a run checked before `state` (its completed steps), as the
  // answer check saw them, in order: a reply without tool calls is checked
  // as its text; a turn's first submit_extraction call that succeeded, or
  // that the check sent back (its error is the check's feedback), as the
  // tool's result (the `json` argument, pretty-printed). The count must be
  // the state's `answers_checked`, else FailedPrecondition.
  Status RebuildAttempts(const RunState& state) {
    attempts_.clear();
    for (const StepRecord& step : state.trace.steps) {
      if (step.kind != "step" || !step.parse_error.empty() || !step.model_error.empty()) continue;
      const Message& turn = step.assistant;
      if (turn.tool_calls.empty()) {
        attempts_.push_back(Check(turn.content));
        continue;
      }
      for (size_t i = 0; i < turn.tool_calls.size() && i < step.tool_results.size(); ++i) {
        const ToolCall& call = turn.tool_calls[i];
        const ToolResultRecord& r = step.tool_results[i];
        if (call.name != kSubmitExtractionTool) continue;
        Result<Json> args = ParseJson(call.arguments);
        if (!args.ok() || !args->is_object() || !args->contains("json")) continue;
        Attempt a = Check(DumpJson((*args)["json"], 2));
        const std::string feedback = a.answer ? ValidationFeedback(a.problems) : NoJsonFeedback(a.parse_error);
        if (r.ok || r.error == feedback) {
          attempts_.push_back(std::move(a));
          break;  // the engine checks one finishing call per turn
        }
      }
    }
    if (static_cast<int>(attempts_.size()) != state.answers_checked) {
      return Status::FailedPrecondition("the checkpoint's steps hold " + std::to_string(attempts_.size()) +
                                        " checked answer(s) where the run checked " +
                                        std::to_string(state.answers_checked) +
                                        ": it is not an extraction this medreact can go on with");
    }
    return Status::OK();
  }

  // The first run: checkpointed (config.on_checkpoint), and its result as it
  // ended copied to `into`.
  void KeepRunResult(RunResult* into) { first_run_ = into; }

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
  RunResult* first_run_ = nullptr;
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

// RunExtraction and ResumeExtraction: `resume` continues the first run.
Result<ExtractionOutcome> Extract(const ExtractionTask& task, const ExtractionConfig& config, const RunState* resume) {
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
  if (resume) {  // read the checked answers again before anything runs
    Extraction probe(task, config, *tools, *schema);
    if (Status s = probe.RebuildAttempts(*resume); !s.ok()) return s;
  }
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
        const RunState* from = first ? resume : nullptr;
        if (from) (void)extraction->RebuildAttempts(*from);  // checked above
        if (first) extraction->KeepRunResult(&out.first_run);
        extraction->Run(std::move(model), first && config.model && config.fallback_to_rules, out, from);
        return extraction->never_answered() ? std::optional<std::string>(out.trace.error) : std::nullopt;
      });
  const std::string& planner = who.planner;
  out.fell_back = who.fell_back;
  out.model_failure = who.model_failure;
  out.result = BuildResult(*extraction, planner, out.fell_back, out.model_failure, out);
  return out;
}

Status BadInputs(const std::string& field, const std::string& want) {
  return Status::InvalidArgument("extract run inputs: '" + field + "' must be " + want);
}

Result<int64_t> IntField(const Json& j, const char* key, int64_t fallback, int64_t lo, int64_t hi) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  std::optional<int64_t> v = ExactInteger(*it, lo, hi);
  if (!v) {
    return BadInputs(key, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return *v;
}

}  // namespace

ExtractionOutcome RunExtraction(const ExtractionTask& task, const ExtractionConfig& config) {
  return *Extract(task, config, nullptr);  // only a resume can fail before running
}

Result<ExtractionOutcome> ResumeExtraction(const ExtractionTask& task, const ExtractionConfig& config,
                                           const RunState& state) {
  return Extract(task, config, &state);
}

std::string TextDigest(std::string_view text) {
  char out[32];
  std::snprintf(out, sizeof(out), "fnv1a64:%016llx", static_cast<unsigned long long>(Fnv1a64Value(text)));
  return out;
}

Json ExtractionInputsToJson(const ExtractionInputs& in) {
  return Json{{"note", in.note_path},
              {"note_digest", in.note_digest},
              {"schema", in.schema_path},
              {"schema_digest", in.schema_digest},
              {"label", in.label},
              {"corpus", in.corpus_dir},
              {"rag_db", in.rag_db},
              {"extras", in.extras_path},
              {"out", in.out_path},
              {"planner", in.planner},
              {"require_model", in.require_model},
              {"options",
               {{"max_iterations", in.max_iterations},
                {"tool_call_budget", in.tool_call_budget},
                {"max_validation_retries", in.max_validation_retries},
                {"timeout_ms", in.timeout.count()}}}};
}

Result<ExtractionInputs> ExtractionInputsFromJson(const Json& j) {
  if (!j.is_object()) return BadInputs("(root)", "an object");
  ExtractionInputs in;
  for (auto [key, field] :
       {std::pair{"note", &in.note_path}, std::pair{"note_digest", &in.note_digest},
        std::pair{"schema", &in.schema_path}, std::pair{"schema_digest", &in.schema_digest},
        std::pair{"label", &in.label}, std::pair{"corpus", &in.corpus_dir}, std::pair{"rag_db", &in.rag_db},
        std::pair{"extras", &in.extras_path}, std::pair{"out", &in.out_path}, std::pair{"planner", &in.planner}}) {
    auto it = j.find(key);
    if (it == j.end()) continue;
    if (!it->is_string()) return BadInputs(key, "a string");
    *field = it->get<std::string>();
  }
  if (in.planner != "model" && in.planner != "rules") return BadInputs("planner", "\"model\" or \"rules\"");
  in.require_model = BoolOr(j, "require_model", false);
  static const Json kNone = Json::object();
  auto found = j.find("options");
  const Json& o = found != j.end() && found->is_object() ? *found : kNone;
  Result<int64_t> iterations = IntField(o, "max_iterations", in.max_iterations, 1, 1'000'000);
  Result<int64_t> calls = IntField(o, "tool_call_budget", in.tool_call_budget, 1, 1'000'000);
  Result<int64_t> retries = IntField(o, "max_validation_retries", in.max_validation_retries, 0, 1000);
  Result<int64_t> timeout = IntField(o, "timeout_ms", in.timeout.count(), 0, INT64_MAX / 2);
  for (const auto* r : {&iterations, &calls, &retries, &timeout}) {
    if (!r->ok()) return r->status();
  }
  in.max_iterations = static_cast<int>(*iterations);
  in.tool_call_budget = static_cast<int>(*calls);
  in.max_validation_retries = static_cast<int>(*retries);
  in.timeout = Millis(*timeout);
  return in;
}

}  // namespace medreact
