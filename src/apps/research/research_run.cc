// ResearchRun (research_run.h): the rounds on the graph, the manager and
// its break conditions, events, and the end (the report or its fallback).
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

Json ResearchRun::EvidenceList(ResearchMemory& memory, const std::string& query, size_t n, const CancellationToken& cancel) {
  Json list = Json::array();
  for (const ScoredEvidence& s : memory.RankEvidence(query, n, cancel).items) {
    list.push_back(EvidenceContext(s.reference, s.evidence));
  }
  return list;
}

Json ResearchRun::HypothesesJson(const ResearchMemory& memory) {
  Json list = Json::array();
  for (const Hypothesis& h : memory.GetHypotheses()) {
    list.push_back({{"drug", h.drug}, {"target", h.target}, {"pathway", h.pathway}, {"effect", h.effect},
                    {"confidence", h.confidence}, {"statement", h.statement}, {"evidence", h.evidence}});
  }
  return list;
}

Json ResearchRun::Plain(const OrderedJson& j) { return Json::parse(DumpJson(j)); }

std::optional<std::string> ResearchRun::Run(std::shared_ptr<ChatModel> model, bool may_fall_back, const Json* resume) {
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

Status ResearchRun::BuildTools() {
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

Result<CompiledGraph> ResearchRun::BuildGraph() {
  StateGraph g;
  g.AddNode("manager", [this](const Json&, const CancellationToken&) { return Json{{"next", ManagerRound()}}; });
  g.AddNode("search", [this](const Json&, const CancellationToken&) { return Act(&ResearchRun::SearchTurn); });
  g.AddNode("judge", [this](const Json&, const CancellationToken&) { return Act(&ResearchRun::JudgeTurn); });
  g.AddNode("hypothesis", [this](const Json&, const CancellationToken&) { return Act(&ResearchRun::HypothesisTurn); });
  g.AddNode("report", [this](const Json&, const CancellationToken&) { return Act(&ResearchRun::ReportTurn); });
  g.SetEntryPoint("manager");
  g.AddConditionalEdges("manager", [](const Json& s) { return StringOr(s, "next", std::string(kEnd)); });
  for (const char* agent : {"search", "judge", "hypothesis", "report"}) {
    g.AddConditionalEdges(agent, [this](const Json&) { return never_answered_ ? std::string(kEnd) : "manager"; });
  }
  return g.Compile();
}

Result<Json> ResearchRun::Act(void (ResearchRun::*turn)()) {
  (this->*turn)();
  return Json(nullptr);
}

std::string ResearchRun::ManagerRound() {
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

std::string ResearchRun::BreakCondition(bool rounds) {
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

std::string ResearchRun::TimeoutText() const {
  char text[200];
  std::snprintf(text, sizeof text, "the research timeout (%.1f s) passed before the report agent ran.",
                static_cast<double>(config_.timeout.count()) / 1000.0);
  return text;
}

std::string ResearchRun::BudgetText() const {
  char text[200];
  std::snprintf(text, sizeof text, "the token budget (%lld tokens) was spent (%lld used) before the report agent ran.",
                static_cast<long long>(config_.token_budget), static_cast<long long>(out_.usage.total_tokens));
  return text;
}

std::string ResearchRun::Stop(const std::string& reason, const std::string& text) {
  if (stop_reason_.empty()) {
    stop_reason_ = reason;
    stop_text_ = text;
  }
  return std::string(kEnd);
}

void ResearchRun::Finished(const std::string& agent, const std::string& outcome) {
  last_speaker_ = agent;
  history_.push_back({{"round", round_}, {"speaker", agent}, {"outcome", outcome}});
}

void ResearchRun::Error(const std::string& agent, const std::string& message, Json data) {
  out_.errors.push_back(agent + ": " + message);
  Emit(Type::kError, agent, agent + ": " + Preview(message, 300), std::move(data));
}

void ResearchRun::Emit(Type type, const std::string& agent, std::string message, Json data) {
  std::lock_guard<std::mutex> lock(emit_mu_);
  ResearchEvent e{.type = type, .iteration = round_, .timestamp = UtcTimestampMillis(), .agent = agent,
                  .message = std::move(message), .data = std::move(data)};
  if (config_.on_event) config_.on_event(e);
  out_.events.push_back(std::move(e));
}

Json ResearchRun::FailedSearchesJson() const {
  Json list = Json::array();
  for (const FailedSearch& f : failed_searches_) {
    list.push_back({{"round", f.round}, {"tool", f.tool}, {"source", f.source}, {"query", f.query},
                    {"error", f.error}});
  }
  return list;
}

void ResearchRun::Finish() {
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

std::string ResearchRun::FailedSearchList() const {
  std::vector<std::string> items;
  for (const FailedSearch& f : failed_searches_) {
    items.push_back(f.source + " \"" + Preview(f.query, 80) + "\" (round " + std::to_string(f.round) + ")");
  }
  return Join(items, "; ");
}

}  // namespace medreact
