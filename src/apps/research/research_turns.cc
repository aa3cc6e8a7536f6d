// ResearchRun (research_run.h): the agents the manager names, one Agent run
// per turn: search, judge, hypothesis and report.
#include "apps/research/research_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

#include "apps/common/app_runner.h"
#include "apps/common/planner_support.h"
#include "apps/research/research_planner.h"
#include "apps/research/research_prompts.h"
#include "apps/research/research_report.h"
#include "apps/research/research_search_tools.h"
#include "core/text_util.h"
#include "core/time_util.h"
#include "medreact/graph.h"
#include "medreact/run_state.h"
#include "medreact/tool.h"

namespace medreact {

void ResearchRun::SearchTurn() {
  Emit(Type::kSearching, "search", "Searching " + Join(config_.sources, ", "));
  std::vector<std::string> queries = std::move(pending_queries_);
  pending_queries_.clear();
  const int new_before = sink_->new_records, dup_before = sink_->duplicates;
  Json context = {{"question", question_}, {"instruction", instruction_}, {"queries", queries},
                  {"sources", config_.sources}, {"max_results", config_.results_per_search}};
  std::string prose = "Research question: " + question_ + "\nInstruction: " + instruction_;
  if (!queries.empty()) prose += "\nQueries suggested by the judge: " + Join(queries, "; ");
  // A turn that waited for approval goes on with the decisions.
  std::optional<RunState> paused;
  if (!pending_search_.is_null()) {
    Result<RunState> state = RunStateFromJson(pending_search_);
    pending_search_ = nullptr;
    if (!state.ok()) {
      Error("search", "the search turn that waited for approval could not be read: " + state.status().message());
      return;
    }
    paused = std::move(*state);
    for (const auto& [call, decision] : config_.approvals) paused->approvals.insert({call, decision});
  }
  std::optional<RunResult> run = RunAgent("search", SearchSystemPrompt(), search_tools_, kSubmitSearchTool,
                                          TaskMessage(prose, context), nullptr, false, paused ? &*paused : nullptr);
  // The records found, into the memory in the order of the calls.
  std::vector<std::string> calls;
  if (run) {
    for (const StepRecord& step : run->trace.steps) {
      for (const ToolCall& call : step.assistant.tool_calls) {
        Result<Json> args = ParseJson(call.arguments);
        if (args.ok()) calls.push_back(ResearchCallKey(call.name, *args));
      }
    }
  }
  const Json searches = run ? ResearchSearchCalls(*run, *sink_) : Json::array();  // before Flush: records per call
  sink_->Flush(calls);
  if (run && run->status == RunStatus::kAwaitingApproval && run->paused) {
    // The calls done are in the memory; the turn goes on after the decisions.
    paused_search_ = std::move(run->paused);
    Emit(Type::kProgress, "search",
         "Waiting for a person's approval of " + Join(paused_search_->awaiting_approval, ", "),
         {{"awaiting_approval", paused_search_->awaiting_approval}});
    return;
  }
  if (!run) return;
  // Every search that failed: an error event now, a line in the report later.
  int tool_errors = 0;
  for (const StepRecord& step : run->trace.steps) {
    for (const ToolResultRecord& r : step.tool_results) {
      if (r.name == kSubmitSearchTool) continue;
      ++search_calls_;
      if (r.ok) continue;
      ++tool_errors;
      FailedSearch failed{.round = round_, .tool = r.name, .source = ResearchSourceName(r.name), .error = r.error};
      for (const ToolCall& call : step.assistant.tool_calls) {
        if (call.id != r.tool_call_id) continue;
        Result<Json> args = ParseJson(call.arguments);
        if (args.ok() && args->is_object()) failed.query = StringOr(*args, "query");
      }
      Error("search", failed.source + " search \"" + Preview(failed.query, 120) + "\" failed: " + r.error,
            {{"tool", failed.tool}, {"source", failed.source}, {"query", failed.query}, {"error", failed.error}});
      failed_searches_.push_back(std::move(failed));
    }
  }
  int added = 0, dups = 0;
  {
    std::lock_guard<std::mutex> lock(sink_->mu);
    added = sink_->new_records - new_before;
    dups = sink_->duplicates - dup_before;
  }
  ++searches_;
  last_search_new_ = added;
  (void)memory_->IncrementIteration();
  Finished("search", std::to_string(added) + " new");
  Emit(Type::kSearchComplete, "search",
       "Found " + std::to_string(added) + " new record(s), " + std::to_string(dups) + " duplicate(s); " +
           std::to_string(memory_->evidence_count()) + " in memory" +
           (tool_errors ? "; " + std::to_string(tool_errors) + " search(es) failed" : ""),
       {{"new", added}, {"duplicates", dups}, {"total", memory_->evidence_count()}, {"tool_errors", tool_errors},
        {"searches", searches}});
  if (Result<SearchSummary> s = ReadSearchSummary(run->final_fields); s.ok()) {
    Emit(Type::kStreaming, "search", Preview(s->summary, 160), {{"text", s->summary}});
  }
}

void ResearchRun::JudgeTurn() {
  Emit(Type::kJudging, "judge", "Judging " + std::to_string(std::min(memory_->evidence_count(), config_.judge_evidence)) +
                                    " record(s)");
  Json evidence = EvidenceList(*memory_, question_, config_.judge_evidence, config_.cancel);
  Json context = {{"question", question_}, {"instruction", instruction_}, {"evidence", evidence}};
  std::string prose = "Research question: " + question_ + "\nInstruction: " + instruction_ +
                      "\nThe evidence (most relevant first, at most " + std::to_string(config_.judge_evidence) +
                      " records) is in the JSON below. Assess it and call submit_judgement.";
  std::optional<RunResult> run =
      RunAgent("judge", JudgeSystemPrompt(), judge_tools_, kSubmitJudgementTool, TaskMessage(prose, context));
  if (!run) return;
  Result<JudgeAssessment> j = ReadJudgement(run->final_fields);
  if (!j.ok()) {
    judgement_error_ = true;
    Error("judge", "no valid judgement after " + std::to_string(run->answers_checked) +
                       " answer check(s) (status " + RunStatusName(run->status) + "): " + j.status().message());
    Finished("judge", "error");
    return;
  }
  judgement_error_ = false;
  judgement_ = *j;
  judgement_fields_ = run->final_fields;
  if (!j->sufficient) pending_queries_ = j->next_search_queries;
  if (!j->override_note.empty()) out_.errors.push_back("judge: " + j->override_note);
  char line[200];
  std::snprintf(line, sizeof line, "%s (mechanism %d/10, clinical %d/10, confidence %.2f)",
                j->sufficient ? "SUFFICIENT" : "INSUFFICIENT", j->mechanism_score, j->clinical_evidence_score,
                j->confidence);
  Finished("judge", j->sufficient ? "sufficient" : "insufficient");
  Emit(Type::kJudgeComplete, "judge", line, Plain(ToJson(*j)));
}

void ResearchRun::HypothesisTurn() {
  Emit(Type::kHypothesizing, "hypothesis", "Generating hypotheses");
  hypothesis_ran_ = true;
  Json context = {{"question", question_},
                  {"instruction", instruction_},
                  {"evidence", EvidenceList(*memory_, question_, config_.judge_evidence, config_.cancel)},
                  {"judgement", judgement_ ? Plain(ToJson(*judgement_)) : Json(nullptr)}};
  std::string prose = "Research question: " + question_ + "\nInstruction: " + instruction_ +
                      "\nThe evidence and the last judgement are in the JSON below.";
  std::optional<RunResult> run = RunAgent("hypothesis", HypothesisSystemPrompt(), hypothesis_tools_,
                                          kSubmitHypothesesTool, TaskMessage(prose, context));
  if (!run) return;
  Result<HypothesisAssessment> a = ReadHypotheses(run->final_fields);
  if (!a.ok()) {
    Error("hypothesis", "no valid hypotheses: " + a.status().message());
    Finished("hypothesis", "error");
    return;
  }
  const std::vector<std::string> keys = memory_->EvidenceKeys();
  int added = 0;
  for (const HypothesisItem& item : a->hypotheses) {
    Hypothesis h{.drug = item.drug, .target = item.target, .pathway = item.pathway, .effect = item.effect,
                 .confidence = item.confidence, .statement = item.statement};
    for (const std::string& ref : item.evidence) {
      std::string_view v = TrimChars(ref, "[] ");
      int n = 0;
      if (!v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }) && v.size() < 7) {
        n = std::stoi(std::string(v));
      }
      if (n >= 1 && static_cast<size_t>(n) <= keys.size()) {
        h.evidence.push_back(keys[n - 1]);
      } else if (memory_->FindEvidence(ref)) {
        h.evidence.push_back(ref);
      } else {
        out_.errors.push_back("hypothesis: evidence '" + Preview(ref, 60) + "' is not in the memory; left out");
      }
    }
    if (Status s = memory_->AddHypothesis(std::move(h)); s.ok()) {
      ++added;
    } else {
      out_.errors.push_back("hypothesis: " + s.message());
    }
  }
  Finished("hypothesis", std::to_string(added) + " hypotheses");
  Emit(Type::kProgress, "hypothesis", std::to_string(added) + " hypothesis(es) stored", Plain(ToJson(*a)));
}

void ResearchRun::ReportTurn() {
  Emit(Type::kSynthesizing, "report", "Writing the report");
  Json context = {{"question", question_},
                  {"instruction", instruction_},
                  {"evidence", EvidenceList(*memory_, question_, config_.judge_evidence, config_.cancel)},
                  {"judgement", judgement_ ? Plain(ToJson(*judgement_)) : Json(nullptr)},
                  {"hypotheses", HypothesesJson(*memory_)},
                  {"search_calls", search_calls_},
                  {"failed_searches", FailedSearchesJson()}};
  std::string prose = "Research question: " + question_ + "\nInstruction: " + instruction_ +
                      "\nThe evidence, the last judgement, the hypotheses and the searches that failed are in "
                      "the JSON below (the failed searches are listed in the report for you). Call "
                      "get_bibliography, then submit_report.";
  std::shared_ptr<ResearchMemory> memory = memory_;
  auto check = [memory](const std::string&, const Json& fields) {
    Result<ResearchReport> r = ReadReport(fields);
    if (!r.ok()) return AnswerCheck{false, r.status().message()};
    std::string feedback = CheckReportReferences(*r, memory->evidence_count());
    return feedback.empty() ? AnswerCheck{} : AnswerCheck{false, feedback};
  };
  std::optional<RunResult> run = RunAgent("report", ReportSystemPrompt(), report_tools_, kSubmitReportTool,
                                          TaskMessage(prose, context), check, /*stream=*/config_.stream_report);
  if (!run) return;
  Result<ResearchReport> r = ReadReport(run->final_fields);
  std::string problem = r.ok() ? CheckReportReferences(*r, memory_->evidence_count()) : r.status().message();
  if (!r.ok() || !problem.empty() || !run->answer_accepted) {
    if (problem.empty()) problem = run->answer_feedback;
    Error("report", "no valid report: " + problem);
    Finished("report", "error");
    Stop("report_failed", "the report agent did not produce a valid report (" + Preview(problem, 200) + ").");
    return;
  }
  report_ = *r;
  report_fields_ = run->final_fields;
  Finished("report", "written");
}

std::optional<RunResult> ResearchRun::RunAgent(const std::string& agent, std::string system_prompt,
                                  std::shared_ptr<const ToolRegistry> tools, const char* answer_tool,
                                  const std::string& task,
                                  std::function<AnswerCheck(const std::string&, const Json&)> check,
                                  bool stream, const RunState* resume) {
  if (!BreakCondition(/*rounds=*/false).empty()) return std::nullopt;
  AgentOptions options;
  options.agent_name = "research";
  options.system_prompt = std::move(system_prompt);
  options.max_steps = config_.max_steps_per_agent;
  options.timeout = deadline_.is_never() ? Millis(0) : std::max(Millis(1), deadline_.remaining());
  options.token_budget = config_.token_budget > 0 ? config_.token_budget - out_.usage.total_tokens : 0;
  options.tool_timeout = config_.tool_timeout;
  options.temperature = config_.temperature;
  options.answer_tool = answer_tool;
  options.max_answer_retries = config_.answer_retries;
  options.check_answer = std::move(check);
  options.on_event = config_.on_agent_event;
  if (stream && model_->capabilities().streaming) {
    options.stream = true;
    options.on_event = [this, agent, forward = config_.on_agent_event](const Event& e) {
      if (e.type == EventType::kModelDelta && !e.text.empty()) {
        Emit(Type::kStreaming, agent, Preview(e.text, 160), {{"text", e.text}});
      }
      if (forward) forward(e);
    };
  }
  options.cancel = config_.cancel;
  if (agent == "search") {  // the searches reach the literature services: the approval rules
    options.needs_approval = config_.needs_approval;
    options.approve = config_.approve;
  }
  Agent a(model_, std::move(tools), options);
  RunResult run = resume ? a.Resume(*resume) : a.Run({.message = task});
  // A resumed turn's usage includes what it used before its pause (counted then).
  Usage used = run.usage;
  if (resume) {
    used.prompt_tokens -= resume->usage.prompt_tokens;
    used.completion_tokens -= resume->usage.completion_tokens;
    used.total_tokens -= resume->usage.total_tokens;
  }
  out_.usage += used;
  if (run.status == RunStatus::kAwaitingApproval) {  // recorded once the turn ends
    answered_once_ = true;
    return run;
  }
  agent_runs_.push_back({{"round", round_}, {"agent", agent}, {"status", RunStatusName(run.status)},
                         {"answer_accepted", run.answer_accepted}, {"trace", Plain(ToJson(run.trace))}});
  if (config_.on_agent_run) config_.on_agent_run(round_, agent, run);
  if (may_fall_back_ && !answered_once_ && ModelNeverAnswered(run) && !config_.cancel.cancelled()) {
    never_answered_ = true;
    never_answered_why_ = run.error.empty() ? run.trace.error : run.error;
    return std::nullopt;
  }
  answered_once_ = true;
  if (run.status != RunStatus::kFinished && run.status != RunStatus::kBudget) {
    out_.errors.push_back(agent + ": run ended " + std::string(RunStatusName(run.status)) + ": " +
                          Preview(run.error, 200));
  }
  return run;
}

}  // namespace medreact
