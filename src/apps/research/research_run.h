// ResearchRun: one research (RunResearch, research_app.h) — the manager's
// rounds on a StateGraph, one Agent run per agent turn, the break
// conditions, the checkpoints and the report (the agent's or the fallback
// synthesis). Internal to the research app, in three files of one shape:
// research_run.cc (the rounds, the manager, the end), research_turns.cc (the
// search, judge, hypothesis and report agents) and research_checkpoint.cc (a
// round's state out to a checkpoint and back).
//
// One research runs on one thread; events may also come from a model's
// streaming thread, so Emit takes a lock. `config` and `out` are the caller's
// and outlive the run.
#ifndef MEDREACT_APPS_RESEARCH_RESEARCH_RUN_H_
#define MEDREACT_APPS_RESEARCH_RESEARCH_RUN_H_

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "apps/research/research_app.h"
#include "apps/research/research_search_tools.h"
#include "medreact/graph.h"
#include "medreact/run_state.h"
#include "medreact/tool.h"

namespace medreact {

// The version a research checkpoint is written in and must be to resume.
constexpr int kResearchCheckpointVersion = 1;

class ResearchRun {
 public:
  using Type = ResearchEventType;

  // An ordered JSON value as a plain one.
  static Json Plain(const OrderedJson& j);

  // `planner`: "model", "rules" or "rules (fallback)", for the checkpoints;
  // `model_failure`: why a fallback fell back.
  ResearchRun(std::string question, const ResearchConfig& config, std::shared_ptr<ResearchMemory> memory,
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
  std::optional<std::string> Run(std::shared_ptr<ChatModel> model, bool may_fall_back, const Json* resume = nullptr);

  // For the result and the trace, once the run ended.
  Json judgement_json() const { return judgement_ ? Plain(ToJson(*judgement_)) : Json(nullptr); }
  Json ledgers() const { return ledgers_; }
  Json agent_runs() const { return agent_runs_; }

 private:
  // The `n` records of the memory that rank best for `query`, as agent context.
  static Json EvidenceList(ResearchMemory& memory, const std::string& query, size_t n,
                           const CancellationToken& cancel);
  // The memory's hypotheses as agent context.
  static Json HypothesesJson(const ResearchMemory& memory);

  // --- the rounds ------------------------------------------------------------


  Status BuildTools();

  Result<CompiledGraph> BuildGraph();

  Result<Json> Act(void (ResearchRun::*turn)());

  // --- the manager ------------------------------------------------------

  // One round: the break checks, then the manager's ledger; returns the node
  // that runs next (or kEnd).
  std::string ManagerRound();

  // The break condition that holds now ("" when none), recorded as the stop.
  // `rounds`: count the rounds too (not when an agent of the last round starts).
  std::string BreakCondition(bool rounds = true);

  std::string TimeoutText() const;

  std::string BudgetText() const;

  std::string Stop(const std::string& reason, const std::string& text);

  // --- checkpoints --------------------------------------------------------

  // What a round needs to go on (ResearchConfig::on_checkpoint).
  Json Checkpoint(const Json& graph_state, const std::string& next, int steps) const;

  // The round state of a checkpoint back (the memory is restored by RunResearch).
  Status RestoreState(const Json& checkpoint);

  // --- the agents -------------------------------------------------------

  void SearchTurn();

  void JudgeTurn();

  void HypothesisTurn();

  void ReportTurn();

  // One agent run within the research's deadline and token budget; nullopt
  // when no time or tokens were left to start it, or the model never answered.
  // `stream`: ask the model to stream (when it can) and hand its text, as it
  // is generated, to the research's events as `streaming` events.
  std::optional<RunResult> RunAgent(const std::string& agent, std::string system_prompt,
                                    std::shared_ptr<const ToolRegistry> tools, const char* answer_tool,
                                    const std::string& task,
                                    std::function<AnswerCheck(const std::string&, const Json&)> check = nullptr,
                                    bool stream = false, const RunState* resume = nullptr);

  void Finished(const std::string& agent, const std::string& outcome);

  void Error(const std::string& agent, const std::string& message, Json data = nullptr);

  // Events come from this thread, and streamed text from the model call the
  // agent makes on it; the lock keeps the order whole should a model stream
  // from another thread.
  void Emit(Type type, const std::string& agent, std::string message, Json data = nullptr);

  Json FailedSearchesJson() const;

  // The report (the agent's, or the fallback's), the result and the trace.
  void Finish();

  // "PubMed \"keytruda\" (round 1); ..." for the structured report's limitations.
  std::string FailedSearchList() const;

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

}  // namespace medreact

#endif  // MEDREACT_APPS_RESEARCH_RESEARCH_RUN_H_
