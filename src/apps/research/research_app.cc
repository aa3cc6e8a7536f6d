// RunResearch (research_app.h): the manager's rounds on a StateGraph, one
// Agent run per agent turn, the breaks and the fallback synthesis.
#include "apps/research/research_app.h"

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
namespace {

using Type = ResearchEventType;

constexpr int kCheckpointVersion = 1;

Json EvidenceList(ResearchMemory& memory, const std::string& query, size_t n, const CancellationToken& cancel) {
  Json list = Json::array();
  for (const ScoredEvidence& s : memory.RankEvidence(query, n, cancel).items) {
    list.push_back(EvidenceContext(s.reference, s.evidence));
  }
  return list;
}

Json HypothesesJson(const ResearchMemory& memory) {
  Json list = Json::array();
  for (const Hypothesis& h : memory.GetHypotheses()) {
    list.push_back({{"drug", h.drug}, {"target", h.target}, {"pathway", h.pathway}, {"effect", h.effect},
                    {"confidence", h.confidence}, {"statement", h.statement}, {"evidence", h.evidence}});
  }
  return list;
}

Json Plain(const OrderedJson& j) { return Json::parse(DumpJson(j)); }

class Research {
 public:
  // `planner`: "model", "rules" or "rules (fallback)", for the checkpoints;
  // `model_failure`: why a fallback fell back.
  Research(std::string question, const ResearchConfig& config, std::shared_ptr<ResearchMemory> memory,
           ResearchOutcome& out, std::string planner, std::string model_failure = "")
      : question_(std::move(question)),
        config_(config),
        memory_(std::move(memory)),
        out_(out),
        planner_(std::move(planner)),
        model_failure_(std::move(model_failure)) {}

  // Runs the rounds with `model` (from `resume`'s next node when given: a
  // checkpoint, see ResearchConfig::resume_from). Returns why the model
  // never answered (the first agent run got no turn from it), or nullopt.
  std::optional<std::string> Run(std::shared_ptr<ChatModel> model, bool may_fall_back, const Json* resume = nullptr) {
    model_ = std::move(model);
    may_fall_back_ = may_fall_back;
    started_ = std::chrono::steady_clock::now();
    GraphRunOptions options{
        .max_steps = 2 * config_.max_rounds + 4, .cancel = config_.cancel, .trace_name = "research"};
    Json graph_state{{"next", "manager"}};
    if (resume) {
      if (Status s = RestoreState(*resume); !s.ok()) {
        out_.status = s.WithContext("research checkpoint");
        return std::nullopt;
      }
      const Json graph = resume->value("graph", Json::object());
      graph_state = graph.value("state", Json::object());
      options.start_node = StringOr(graph, "next", "manager");
      options.start_step = static_cast<int>(IntegerOr(graph, "steps", 0));
    }
    // A resumed research has what is left of its timeout (0: none).
    const Millis used(static_cast<int64_t>(elapsed_before_ms_));
    deadline_ = config_.timeout <= Millis(0) ? Deadline::Never()
                                             : Deadline::In(std::max(Millis(1), config_.timeout - used));
    sink_ = std::make_shared<ResearchEvidenceSink>();
    sink_->memory = memory_.get();
    sink_->max_records = config_.max_records_per_round;
    sink_->deadline = deadline_;
    Status setup = BuildTools();
    if (!setup.ok()) {
      out_.status = setup;
      return std::nullopt;
    }
    if (resume) {
      Emit(Type::kStarted, "", "Resuming research at " + options.start_node + " (round " + std::to_string(round_) +
                                   ", " + model_->protocol() + ")",
           {{"question", question_}, {"max_rounds", config_.max_rounds}, {"sources", config_.sources},
            {"resumed", true}, {"next", options.start_node}, {"steps", options.start_step}});
    } else {
      Emit(Type::kStarted, "", "Starting research (" + model_->protocol() + ")",
           {{"question", question_}, {"max_rounds", config_.max_rounds}, {"sources", config_.sources}});
    }
    Result<CompiledGraph> graph = BuildGraph();
    GraphRunResult ran;
    if (graph.ok()) {
      options.on_transition = [this](const GraphTransition& t) {
        Emit(Type::kProgress, "", t.node + " -> " + (t.next.empty() ? "(stop)" : t.next), ToJson(t));
      };
      if (config_.on_checkpoint) {
        options.on_checkpoint = [this](const Json& state, const std::string& next, int steps) {
          // A turn the cancellation cut short is not done: a resume runs it again.
          if (!config_.cancel.cancelled()) config_.on_checkpoint(Checkpoint(state, next, steps));
        };
      }
      ran = graph->Run(std::move(graph_state), options);
    }
    {
      std::lock_guard<std::mutex> lock(sink_->mu);
      sink_->closed = true;
      for (std::string& w : sink_->warnings) out_.errors.push_back(std::move(w));
    }
    if (never_answered_) return never_answered_why_;
    if (!graph.ok()) Stop("graph_error", "the orchestration could not be built: " + graph.status().message());
    if (graph.ok() && !ran.ok() && stop_reason_.empty()) {
      if (config_.cancel.cancelled()) {
        Stop("cancelled", "the research was cancelled.");
      } else {
        Stop("graph_error", "the orchestration stopped: " + ran.status.ToString());
      }
    }
    Finish();
    return std::nullopt;
  }

 private:
  Status BuildTools() {
    Result<std::shared_ptr<ToolRegistry>> search = ResearchSearchTools(config_, sink_);
    if (!search.ok()) return search.status();
    search_tools_ = *search;
    auto only = [](const char* tool) -> Result<std::shared_ptr<ToolRegistry>> {
      auto r = std::make_shared<ToolRegistry>();
      if (Status s = RegisterResearchFinishingTools(*r, {tool}); !s.ok()) return s;
      return r;
    };
    for (auto [slot, tool] : {std::pair{&manager_tools_, kSubmitLedgerTool}, std::pair{&judge_tools_, kSubmitJudgementTool},
                              std::pair{&hypothesis_tools_, kSubmitHypothesesTool}}) {
      Result<std::shared_ptr<ToolRegistry>> r = only(tool);
      if (!r.ok()) return r.status();
      *slot = *r;
    }
    report_tools_ = std::make_shared<ToolRegistry>();
    std::shared_ptr<ResearchMemory> memory = memory_;
    Status s = report_tools_->Register(MakeFunctionTool(
        ToolSpec{"get_bibliography",
                 "The numbered reference list of every record the research has gathered, as \"[n] citation. url\" "
                 "lines; cite records in the report as [n].",
                 Json{{"type", "object"}, {"properties", Json::object()}, {"additionalProperties", false}}},
        [memory](const Json&, const ToolContext&) {
          const std::string b = memory->Bibliography();
          return ToolResult::Ok(b.empty() ? "No evidence has been gathered yet." : b);
        }));
    if (!s.ok()) return s;
    return RegisterResearchFinishingTools(*report_tools_, {kSubmitReportTool});
  }

  Result<CompiledGraph> BuildGraph() {
    StateGraph g;
    g.AddNode("manager", [this](const Json&, const CancellationToken&) { return Json{{"next", ManagerRound()}}; });
    g.AddNode("search", [this](const Json&, const CancellationToken&) { return Act(&Research::SearchTurn); });
    g.AddNode("judge", [this](const Json&, const CancellationToken&) { return Act(&Research::JudgeTurn); });
    g.AddNode("hypothesis", [this](const Json&, const CancellationToken&) { return Act(&Research::HypothesisTurn); });
    g.AddNode("report", [this](const Json&, const CancellationToken&) { return Act(&Research::ReportTurn); });
    g.SetEntryPoint("manager");
    g.AddConditionalEdges("manager", [](const Json& s) { return StringOr(s, "next", std::string(kEnd)); });
    for (const char* agent : {"search", "judge", "hypothesis", "report"}) {
      g.AddConditionalEdges(agent, [this](const Json&) { return never_answered_ ? std::string(kEnd) : "manager"; });
    }
    return g.Compile();
  }

  Result<Json> Act(void (Research::*turn)()) {
    (this->*turn)();
    return Json(nullptr);
  }

  // --- the manager ------------------------------------------------------

  // One round: the break checks, then the manager's ledger; returns the node
  // that runs next (or kEnd).
  std::string ManagerRound() {
    if (paused_search_) return Stop("awaiting_approval", "the research waits for a person's approval of a search.");
    if (report_) return Stop(judgement_ && judgement_->sufficient ? "judge_approved" : "report_written", "");
    if (std::string why = BreakCondition(); !why.empty()) return why;
    ++round_;
    out_.rounds = round_;
    Emit(Type::kThinking, "manager", "Round " + std::to_string(round_) + ": the manager decides");
    Json context = {{"question", question_},
                    {"round", round_},
                    {"max_rounds", config_.max_rounds},
                    {"evidence_count", memory_->evidence_count()},
                    {"last_speaker", last_speaker_},
                    {"searches", searches_},
                    {"last_search_new", last_search_new_},
                    {"judgement", judgement_ ? Plain(ToJson(*judgement_)) : Json(nullptr)},
                    {"judgement_error", judgement_error_},
                    {"hypotheses", memory_->GetHypotheses().size()},
                    {"hypothesis_ran", hypothesis_ran_},
                    {"report_done", false},
                    {"stall_count", stall_count_},
                    {"replans", replans_},
                    {"sources", config_.sources},
                    {"history", history_}};
    std::string prose = "Research question: " + question_ + "\nRound " + std::to_string(round_) + " of " +
                        std::to_string(config_.max_rounds) + ". Evidence gathered: " +
                        std::to_string(memory_->evidence_count()) + " record(s). Last speaker: " +
                        (last_speaker_.empty() ? "none" : last_speaker_) + ".";
    if (replans_ > 0) {
      prose += "\nREPLAN: earlier rounds stalled; the plan is now to synthesise what is known (hypothesis, then "
               "report) unless one more search is clearly needed.";
    }
    prose += "\nSubmit the progress ledger with submit_ledger.";
    std::optional<RunResult> run = RunAgent("manager", ManagerSystemPrompt(), manager_tools_, kSubmitLedgerTool,
                                            TaskMessage(prose, context));
    if (!run) return std::string(kEnd);
    Result<ProgressLedger> ledger = ReadLedger(run->final_fields);
    if (!ledger.ok()) {
      // Cut by the research's deadline or budget (each run is given what is left of them).
      if (std::string why = BreakCondition(/*rounds=*/false); !why.empty()) return why;
      if (run->status == RunStatus::kTimeout) return Stop("timeout", TimeoutText());
      if (run->status == RunStatus::kBudget) return Stop("token_budget", BudgetText());
      Error("manager", "no valid progress ledger: " + ledger.status().message());
      ledgers_.push_back({{"round", round_}, {"error", ledger.status().message()}});
      return Stop("manager_failed", "the manager produced no valid progress ledger (" +
                                        Preview(ledger.status().message(), 200) + ").");
    }
    // Magentic-One's stall counting: no progress or a loop counts one; a good round takes one off.
    const bool stalled = !ledger->is_progress_being_made || ledger->is_in_loop;
    stall_count_ = stalled ? stall_count_ + 1 : std::max(0, stall_count_ - 1);
    bool replan = false;
    if (stall_count_ >= config_.max_stalls) {
      replan = true;
      ++replans_;
      stall_count_ = 0;
      Emit(Type::kProgress, "manager",
           "Replanning after " + std::to_string(config_.max_stalls) + " stalled rounds (replan " +
               std::to_string(replans_) + ")",
           {{"replans", replans_}});
    }
    ledgers_.push_back({{"round", round_}, {"ledger", Plain(ToJson(*ledger))}, {"stall_count", stall_count_},
                        {"replanned", replan}});
    instruction_ = ledger->instruction;
    if (replan) {
      history_.push_back({{"round", round_}, {"speaker", "manager"}, {"outcome", "replanned"}});
      last_speaker_ = "manager";
      return "manager";
    }
    if (searches_ == 0 && ledger->next_speaker != "search") {
      // No report (nor judgement, nor hypothesis) before a search: one on nothing is no research (issue 23).
      Emit(Type::kProgress, "manager", "Nothing searched yet: the search agent runs before the " + ledger->next_speaker);
      instruction_ = "Search the literature for: " + question_;
      return "search";
    }
    if (ledger->is_request_satisfied && !report_) {
      Emit(Type::kProgress, "manager", "The manager says the request is satisfied; the report is written next");
      return "report";
    }
    return ledger->next_speaker;
  }

  // The break condition that holds now ("" when none), recorded as the stop.
  // `rounds`: count the rounds too (not when an agent of the last round starts).
  std::string BreakCondition(bool rounds = true) {
    char text[200];
    if (config_.cancel.cancelled()) return Stop("cancelled", "the research was cancelled.");
    if (rounds && round_ >= config_.max_rounds) {
      std::snprintf(text, sizeof text, "the manager used all %d rounds before the report agent ran.", config_.max_rounds);
      return Stop("max_rounds", text);
    }
    if (deadline_.expired()) return Stop("timeout", TimeoutText());
    if (config_.token_budget > 0 && out_.usage.total_tokens >= config_.token_budget) {
      return Stop("token_budget", BudgetText());
    }
    return "";
  }

  std::string TimeoutText() const {
    char text[200];
    std::snprintf(text, sizeof text, "the research timeout (%.1f s) passed before the report agent ran.",
                  static_cast<double>(config_.timeout.count()) / 1000.0);
    return text;
  }

  std::string BudgetText() const {
    char text[200];
    std::snprintf(text, sizeof text, "the token budget (%lld tokens) was spent (%lld used) before the report agent ran.",
                  static_cast<long long>(config_.token_budget), static_cast<long long>(out_.usage.total_tokens));
    return text;
  }

  std::string Stop(const std::string& reason, const std::string& text) {
    if (stop_reason_.empty()) {
      stop_reason_ = reason;
      stop_text_ = text;
    }
    return std::string(kEnd);
  }

  // --- checkpoints --------------------------------------------------------

  // What a round needs to go on (ResearchConfig::on_checkpoint).
  Json Checkpoint(const Json& graph_state, const std::string& next, int steps) const {
    Json runs = Json::array();  // without their traces: the run store's steps keep them
    for (const Json& r : agent_runs_) {
      Json copy = r;
      copy.erase("trace");
      runs.push_back(std::move(copy));
    }
    const double elapsed = elapsed_before_ms_ + std::chrono::duration<double, std::milli>(
                                                    std::chrono::steady_clock::now() - started_)
                                                    .count();
    Json research = {{"round", round_}, {"last_speaker", last_speaker_}, {"instruction", instruction_},
                     {"searches", searches_}, {"last_search_new", last_search_new_},
                     {"judgement", judgement_fields_}, {"judgement_error", judgement_error_},
                     {"pending_queries", pending_queries_}, {"hypothesis_ran", hypothesis_ran_},
                     {"report", report_fields_}, {"search_calls", search_calls_},
                     {"failed_searches", FailedSearchesJson()}, {"stall_count", stall_count_},
                     {"replans", replans_}, {"history", history_}, {"ledgers", ledgers_}, {"agent_runs", runs},
                     {"stop_reason", stop_reason_}, {"stop_text", stop_text_}, {"answered_once", answered_once_},
                     {"usage", ToJson(out_.usage)}, {"errors", out_.errors}, {"elapsed_ms", elapsed}};
    // A search turn that waits for approval runs again (goes on) first.
    if (paused_search_) research["pending_search"] = ToJson(*paused_search_);
    return {{"version", kCheckpointVersion},
            {"planner", planner_},
            {"model_failure", model_failure_},
            {"graph",
             {{"state", graph_state},
              {"next", paused_search_ ? "search" : next},
              {"steps", paused_search_ ? steps - 1 : steps}}},
            {"research", std::move(research)},
            {"memory", memory_->Snapshot()}};
  }

  // The round state of a checkpoint back (the memory is restored by RunResearch).
  Status RestoreState(const Json& checkpoint) {
    const Json& r = checkpoint.value("research", Json());
    if (!r.is_object()) return Status::InvalidArgument("no research state");
    auto strings = [](const Json& j) {
      std::vector<std::string> out;
      if (j.is_array()) {
        for (const Json& v : j) {
          if (v.is_string()) out.push_back(v.get<std::string>());
        }
      }
      return out;
    };
    auto integer = [&r](const char* key) { return static_cast<int>(IntegerOr(r, key, 0)); };
    round_ = integer("round");
    out_.rounds = round_;
    last_speaker_ = StringOr(r, "last_speaker");
    instruction_ = StringOr(r, "instruction");
    searches_ = integer("searches");
    last_search_new_ = integer("last_search_new");
    judgement_fields_ = r.value("judgement", Json());
    if (!judgement_fields_.is_null()) {
      Result<JudgeAssessment> j = ReadJudgement(judgement_fields_);
      if (!j.ok()) return j.status().WithContext("the judgement");
      judgement_ = *j;
    }
    judgement_error_ = BoolOr(r, "judgement_error", false);
    pending_queries_ = strings(r.value("pending_queries", Json()));
    hypothesis_ran_ = BoolOr(r, "hypothesis_ran", false);
    report_fields_ = r.value("report", Json());
    if (!report_fields_.is_null()) {
      Result<ResearchReport> rep = ReadReport(report_fields_);
      if (!rep.ok()) return rep.status().WithContext("the report");
      report_ = *rep;
    }
    search_calls_ = integer("search_calls");
    for (const Json& f : r.value("failed_searches", Json::array())) {
      failed_searches_.push_back({.round = static_cast<int>(IntegerOr(f, "round", 0)), .tool = StringOr(f, "tool"),
                                  .source = StringOr(f, "source"), .query = StringOr(f, "query"),
                                  .error = StringOr(f, "error")});
    }
    stall_count_ = integer("stall_count");
    replans_ = integer("replans");
    history_ = r.value("history", Json::array());
    ledgers_ = r.value("ledgers", Json::array());
    agent_runs_ = r.value("agent_runs", Json::array());
    stop_reason_ = StringOr(r, "stop_reason");
    stop_text_ = StringOr(r, "stop_text");
    answered_once_ = BoolOr(r, "answered_once", false);
    const Json& usage = r.value("usage", Json::object());
    out_.usage = Usage{.prompt_tokens = IntegerOr(usage, "prompt_tokens", 0),
                       .completion_tokens = IntegerOr(usage, "completion_tokens", 0),
                       .total_tokens = IntegerOr(usage, "total_tokens", 0)};
    out_.errors = strings(r.value("errors", Json()));
    elapsed_before_ms_ = r.value("elapsed_ms", 0.0);
    pending_search_ = r.value("pending_search", Json());
    return Status::OK();
  }

  // --- the agents -------------------------------------------------------

  void SearchTurn() {
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

  void JudgeTurn() {
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

  void HypothesisTurn() {
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

  void ReportTurn() {
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

  // One agent run within the research's deadline and token budget; nullopt
  // when no time or tokens were left to start it, or the model never answered.
  // `stream`: ask the model to stream (when it can) and hand its text, as it
  // is generated, to the research's events as `streaming` events.
  std::optional<RunResult> RunAgent(const std::string& agent, std::string system_prompt,
                                    std::shared_ptr<const ToolRegistry> tools, const char* answer_tool,
                                    const std::string& task,
                                    std::function<AnswerCheck(const std::string&, const Json&)> check = nullptr,
                                    bool stream = false, const RunState* resume = nullptr) {
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

  void Finished(const std::string& agent, const std::string& outcome) {
    last_speaker_ = agent;
    history_.push_back({{"round", round_}, {"speaker", agent}, {"outcome", outcome}});
  }

  void Error(const std::string& agent, const std::string& message, Json data = nullptr) {
    out_.errors.push_back(agent + ": " + message);
    Emit(Type::kError, agent, agent + ": " + Preview(message, 300), std::move(data));
  }

  // Events come from this thread, and streamed text from the model call the
  // agent makes on it; the lock keeps the order whole should a model stream
  // from another thread.
  void Emit(Type type, const std::string& agent, std::string message, Json data = nullptr) {
    std::lock_guard<std::mutex> lock(emit_mu_);
    ResearchEvent e{.type = type, .iteration = round_, .timestamp = UtcTimestampMillis(), .agent = agent,
                    .message = std::move(message), .data = std::move(data)};
    if (config_.on_event) config_.on_event(e);
    out_.events.push_back(std::move(e));
  }

  Json FailedSearchesJson() const {
    Json list = Json::array();
    for (const FailedSearch& f : failed_searches_) {
      list.push_back({{"round", f.round}, {"tool", f.tool}, {"source", f.source}, {"query", f.query},
                      {"error", f.error}});
    }
    return list;
  }

  // The report (the agent's, or the fallback's), the result and the trace.
  void Finish() {
    if (paused_search_) {
      out_.stop_reason = stop_reason_;
      out_.paused = paused_search_;
      out_.failed_searches = failed_searches_;
      out_.evidence_count = memory_->evidence_count();
      Emit(Type::kProgress, "", "Research paused: a search waits for a person's approval",
           {{"stop_reason", stop_reason_}, {"awaiting_approval", paused_search_->awaiting_approval}});
      return;
    }
    if (!report_) {
      if (stop_reason_.empty() || stop_reason_ == "judge_approved" || stop_reason_ == "report_written") {
        stop_reason_ = "manager_ended";
        stop_text_ = "the manager ended the research before the report agent ran.";
      }
      Emit(Type::kSynthesizing, "", "Fallback synthesis from memory (" + stop_reason_ + ")");
      const std::string bibliography = memory_->Bibliography();
      out_.report = FallbackReport({.question = question_, .reason = stop_reason_, .reason_text = stop_text_,
                                    .context_summary = memory_->GetContextSummary(), .bibliography = bibliography,
                                    .judgement = judgement_ ? &*judgement_ : nullptr, .rounds = round_});
      out_.report_from_agent = false;
      out_.fallback_reason = stop_text_;
    } else {
      out_.report = *report_;
      out_.report_from_agent = true;
    }
    // Every failed search named; references numbered in order of first citation.
    out_.report.markdown = WithFailedSearches(out_.report.markdown, failed_searches_);
    // Records found but not kept (the cap per round, the deadline), named too.
    std::vector<std::string> left_out;
    {
      std::lock_guard<std::mutex> lock(sink_->mu);
      left_out = sink_->left_out;
    }
    out_.report.markdown = WithLeftOutRecords(out_.report.markdown, left_out);
    for (const std::string& note : left_out) out_.report.limitations.push_back(note);
    if (!failed_searches_.empty()) {
      out_.report.limitations.push_back(std::to_string(failed_searches_.size()) + " of " +
                                        std::to_string(search_calls_) + " search(es) failed: " +
                                        FailedSearchList());
    }
    VancouverReport numbered =
        NumberInCitationOrder(out_.report, memory_->Bibliography(), /*list_uncited=*/!out_.report_from_agent);
    out_.report = std::move(numbered.report);
    out_.reference_numbers = std::move(numbered.bibliography_numbers);
    out_.uncited_numbers = std::move(numbered.uncited_numbers);
    out_.failed_searches = failed_searches_;
    out_.stop_reason = stop_reason_;
    out_.evidence_count = memory_->evidence_count();
    Emit(Type::kComplete, "", "Research complete: " + stop_reason_ + ", " + std::to_string(round_) + " round(s), " +
                                  std::to_string(out_.evidence_count) + " record(s)" +
                                  (failed_searches_.empty() ? "" : ", " + std::to_string(failed_searches_.size()) +
                                                                       " failed search(es)"),
         {{"stop_reason", stop_reason_},
          {"iterations", round_},
          {"report_from_agent", out_.report_from_agent},
          {"failed_searches", failed_searches_.size()},
          {"report", out_.report.markdown}});
  }

  // "PubMed \"keytruda\" (round 1); ..." for the structured report's limitations.
  std::string FailedSearchList() const {
    std::vector<std::string> items;
    for (const FailedSearch& f : failed_searches_) {
      items.push_back(f.source + " \"" + Preview(f.query, 80) + "\" (round " + std::to_string(f.round) + ")");
    }
    return Join(items, "; ");
  }

 public:
  Json judgement_json() const { return judgement_ ? Plain(ToJson(*judgement_)) : Json(nullptr); }
  Json ledgers() const { return ledgers_; }
  Json agent_runs() const { return agent_runs_; }

 private:
  std::string question_;
  const ResearchConfig& config_;
  std::shared_ptr<ResearchMemory> memory_;
  ResearchOutcome& out_;
  std::string planner_;
  std::string model_failure_;
  std::chrono::steady_clock::time_point started_;
  double elapsed_before_ms_ = 0;  // a resumed research's time before the resume
  std::shared_ptr<ChatModel> model_;
  bool may_fall_back_ = false;
  bool answered_once_ = false;
  bool never_answered_ = false;
  std::string never_answered_why_;
  Deadline deadline_ = Deadline::Never();
  std::shared_ptr<ResearchEvidenceSink> sink_;
  Json pending_search_;                   // a resumed checkpoint's paused search turn (RunState JSON)
  std::optional<RunState> paused_search_;  // the search turn that waits for approval now
  std::shared_ptr<ToolRegistry> manager_tools_, search_tools_, judge_tools_, hypothesis_tools_, report_tools_;

  int round_ = 0;
  std::string last_speaker_;
  std::string instruction_;
  int searches_ = 0;
  int last_search_new_ = 0;
  std::optional<JudgeAssessment> judgement_;
  Json judgement_fields_;  // as the judge submitted it (a checkpoint keeps these)
  bool judgement_error_ = false;
  std::vector<std::string> pending_queries_;
  bool hypothesis_ran_ = false;
  std::optional<ResearchReport> report_;
  Json report_fields_;  // as the report agent submitted it
  int search_calls_ = 0;                     // literature tool calls, answered or not
  std::vector<FailedSearch> failed_searches_;
  std::mutex emit_mu_;
  int stall_count_ = 0;
  int replans_ = 0;
  Json history_ = Json::array();
  Json ledgers_ = Json::array();
  Json agent_runs_ = Json::array();
  std::string stop_reason_;
  std::string stop_text_;
};

OrderedJson BuildResult(const std::string& question, const ResearchOutcome& out, const Json& judgement,
                        const ResearchMemory& memory) {
  OrderedJson r;
  r["question"] = question;
  r["report"] = ToJson(out.report);
  r["report_from_agent"] = out.report_from_agent;
  r["stop_reason"] = out.stop_reason;
  if (!out.report_from_agent) r["fallback_reason"] = out.fallback_reason;
  r["rounds"] = out.rounds;
  r["evidence_count"] = out.evidence_count;
  r["judgement"] = OrderedJson::parse(DumpJson(judgement));
  OrderedJson hypotheses = OrderedJson::array();
  for (const Hypothesis& h : memory.GetHypotheses()) {
    hypotheses.push_back({{"drug", h.drug}, {"target", h.target}, {"pathway", h.pathway}, {"effect", h.effect},
                          {"confidence", h.confidence}, {"statement", h.statement}, {"evidence", h.evidence}});
  }
  r["hypotheses"] = std::move(hypotheses);
  // The report's references in its numbering (order of first citation), and
  // every gathered record in the memory's (storage order) with the number it
  // is cited as, if any.
  const std::vector<Evidence> all = memory.GetAllEvidence();
  std::map<int, int> cited_as;  // memory number → report number
  OrderedJson references = OrderedJson::array();
  int k = 0;
  for (const std::vector<int>* list : {&out.reference_numbers, &out.uncited_numbers}) {
    for (int m : *list) {
      cited_as[m] = ++k;
      if (m < 1 || static_cast<size_t>(m) > all.size()) continue;
      const Evidence& e = all[m - 1];
      references.push_back({{"ref", k}, {"memory_ref", m}, {"cited", list == &out.reference_numbers},
                            {"id", e.id}, {"other_ids", e.other_ids}, {"url", e.url}, {"title", e.title},
                            {"type", e.type}, {"source", EvidenceSourceName(e.source)}, {"year", e.year}});
    }
  }
  r["references"] = std::move(references);
  OrderedJson evidence = OrderedJson::array();
  int n = 0;
  for (const Evidence& e : all) {
    ++n;
    auto it = cited_as.find(n);
    const OrderedJson ref = it == cited_as.end() ? OrderedJson(nullptr) : OrderedJson(it->second);
    evidence.push_back({{"memory_ref", n}, {"ref", ref}, {"id", e.id}, {"url", e.url}, {"title", e.title},
                        {"type", e.type}, {"source", EvidenceSourceName(e.source)}, {"year", e.year}});
  }
  r["evidence"] = std::move(evidence);
  OrderedJson failed = OrderedJson::array();
  for (const FailedSearch& f : out.failed_searches) {
    failed.push_back({{"round", f.round}, {"tool", f.tool}, {"source", f.source}, {"query", f.query},
                      {"error", f.error}});
  }
  r["failed_searches"] = std::move(failed);
  r["planner"] = out.planner;
  if (out.fell_back) r["model_failure"] = out.model_failure;
  r["usage"] = OrderedJson::parse(DumpJson(ToJson(out.usage)));
  r["errors"] = out.errors;
  return r;
}

}  // namespace

ResearchOutcome RunResearch(const std::string& question, const ResearchConfig& config) {
  ResearchOutcome out;
  Result<ResearchMemory> opened = ResearchMemory::Open(config.memory_path, question, config.memory);
  if (!opened.ok()) {
    out.status = opened.status().WithContext("research memory");
    return out;
  }
  auto memory = std::make_shared<ResearchMemory>(std::move(opened).value());
  std::unique_ptr<Research> research;
  if (!config.resume_from.is_null()) {
    // A checkpoint: its memory, its planner, its round state; no fallback now.
    const Json& checkpoint = config.resume_from;
    if (!checkpoint.is_object() || IntegerOr(checkpoint, "version", 0) != kCheckpointVersion) {
      out.status = Status::InvalidArgument("research checkpoint: not one of version " +
                                           std::to_string(kCheckpointVersion));
      return out;
    }
    if (Status s = memory->Restore(checkpoint.value("memory", Json())); !s.ok()) {
      out.status = s.WithContext("research memory");
      return out;
    }
    out.planner = StringOr(checkpoint, "planner", "rules");
    out.fell_back = out.planner == "rules (fallback)";
    out.model_failure = StringOr(checkpoint, "model_failure");
    std::shared_ptr<ChatModel> model = config.model;
    if (out.planner != "model") {
      model = std::shared_ptr<ChatModel>(MakeResearchRulesPlanner());
    } else if (!model) {
      out.status = Status::InvalidArgument("the research ran with a model; resuming it needs one");
      return out;
    }
    const std::string planner = out.planner, failure = out.model_failure;
    research = std::make_unique<Research>(question, config, memory, out, planner, failure);
    research->Run(std::move(model), /*may_fall_back=*/false, &checkpoint);
    if (!out.status.ok()) return out;
    out.planner = planner;
    out.fell_back = planner == "rules (fallback)";
    out.model_failure = failure;
    if (out.fell_back) {
      out.errors.insert(out.errors.begin(),
                        "the model never answered, the rules planner researched instead: " + failure);
    }
  } else {
    std::string never_answered;
    const FallbackOutcome who = RunWithFallback(
        config.model, [] { return std::shared_ptr<ChatModel>(MakeResearchRulesPlanner()); },
        config.fallback_to_rules, config.cancel, [&](std::shared_ptr<ChatModel> model) -> std::optional<std::string> {
          const bool first = research == nullptr;
          std::vector<ResearchEvent> earlier = std::move(out.events);
          std::vector<std::string> errors = std::move(out.errors);
          out = ResearchOutcome{};
          out.events = std::move(earlier);
          out.errors = std::move(errors);
          const std::string planner = !first ? "rules (fallback)" : config.model ? "model" : "rules";
          research = std::make_unique<Research>(question, config, memory, out, planner, never_answered);
          std::optional<std::string> why =
              research->Run(std::move(model), first && config.model && config.fallback_to_rules);
          if (why) never_answered = *why;
          return why;
        });
    out.planner = who.planner;
    out.fell_back = who.fell_back;
    out.model_failure = who.model_failure;
    if (who.fell_back) {
      out.errors.insert(out.errors.begin(),
                        "the model never answered, the rules planner researched instead: " + who.model_failure);
    }
  }
  if (!out.status.ok()) return out;
  const Json judgement = research->judgement_json();
  out.result = BuildResult(question, out, judgement, *memory);
  Json events = Json::array();
  for (const ResearchEvent& e : out.events) events.push_back(ToJson(e));
  out.trace = {{"question", question},
               {"planner", out.planner},
               {"stop_reason", out.stop_reason},
               {"report_from_agent", out.report_from_agent},
               {"fallback_reason", out.fallback_reason},
               {"rounds", out.rounds},
               {"usage", ToJson(out.usage)},
               {"errors", out.errors},
               {"events", std::move(events)},
               {"ledgers", research->ledgers()},
               {"agent_runs", research->agent_runs()},
               {"report", Plain(ToJson(out.report))}};
  return out;
}

}  // namespace medreact
