// The multi-agent research app (seed 003; issue 12 items 3, 5, 6): a research
// question → a report with numbered references, by a team of agents around a
// shared ResearchMemory, led by a Magentic-style manager.
//
//   ResearchConfig config;                    // model null → the rules planner
//   config.literature.client.cache_path = "literature.sqlite";
//   ResearchOutcome out = RunResearch("Does pembrolizumab improve survival in melanoma?", config);
//   // out.report.markdown, out.result (JSON), out.trace (JSON), out.events
//
// Each agent is one Agent run on the engine with its own finishing tool
// (research_types.h): the manager (submit_ledger) each round, then the agent
// it names — search (the literature tools; every record goes to the memory
// through the pack's on_evidence hook when the turn ends, in the order of its
// calls, de-duplicated there, at most max_records_per_round of them, the
// de-duplication stopping at the research's deadline), judge (at most
// 30 records, seed 003; sufficiency recomputed by the seed's rule),
// hypothesis (into the memory) or report (get_bibliography from the memory;
// citations checked against it). The rounds run on a StateGraph (nodes
// manager, search, judge, hypothesis, report; the manager's ledger routes),
// each transition reported as a progress event.
//
// Break conditions (seed 003, "Break Conditions"): the report is written
// (after the judge's approval, or when the manager synthesises anyway); max
// rounds; the timeout (one deadline for every agent run); the token budget
// (usage summed over every agent run); cancellation. The manager counts
// stalls (a ledger saying no progress or a loop) and replans after
// `max_stalls` in a row. A search call that waits for approval pauses the
// research (config.needs_approval; stop reason "awaiting_approval"). Whenever the report agent did not run or failed, the
// report is written from the memory (FallbackReport) and says why. Either
// way the report names every search that failed (each also an `error`
// event as it happens) and numbers its references in order of first
// citation (research_report.h). The report agent's text streams as it is
// generated (`stream_report`). A
// configured model that never answers hands the whole research to the rules
// planner (RunWithFallback), and the outcome says so. Nothing throws.
//
// The run store (issue 14, 22): `on_agent_run` hears of every agent run as it
// ends (its round, its agent, its result), which the run service records as
// the research run's steps; `on_checkpoint` hands over, after every graph
// node, all a round needs to go on (the manager's ledgers, stall count,
// judgement, usage, the memory's content), and `resume_from` goes on from
// one: a node that was cut off runs again whole, none before it does. A
// resumed research's trace lists the agent runs before the resume without
// their traces (the run store's steps keep them).
#ifndef MEDREACT_APPS_RESEARCH_RESEARCH_APP_H_
#define MEDREACT_APPS_RESEARCH_RESEARCH_APP_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/research/research_events.h"
#include "apps/research/research_memory.h"
#include "apps/research/research_report.h"
#include "apps/research/research_types.h"
#include "medreact/agent.h"
#include "medreact/model.h"
#include "medreact/run_state.h"
#include "tools/literature/literature_pack.h"

namespace medreact {

struct ResearchConfig {
  // Every agent's model; null = the rules planner (research_planner.h). Default: null
  std::shared_ptr<ChatModel> model;
  bool fallback_to_rules = true;  // a model that never answered → the rules planner. Default: true
  int max_rounds = 5;             // manager rounds (seed 003 "Max manager rounds"). Default: 5
  Millis timeout{600'000};        // the whole research (seed 003 "Timeout"). Default: 600 s
  int64_t token_budget = 50'000;  // over every agent run; 0 = none (seed 003 "~50K"). Default: 50,000
  int max_stalls = 3;             // stalls before a replan (seed 003 "Max stall count"). Default: 3
  // Sources searched: "pubmed", "trials", "preprints". Default: all three
  std::vector<std::string> sources = {"pubmed", "trials", "preprints"};
  int results_per_search = 5;     // max_results the rules planner asks for. Default: 5
  // Records one search turn (one round) hands the memory, in the order of its
  // calls; the rest are left out and named in the report ("Records left
  // out") and in `errors`. Three sources at the tools' limit of 50, twice
  // over. Default: 300
  size_t max_records_per_round = 300;
  size_t judge_evidence = 30;     // records shown to the judge (seed 003). Default: 30
  int max_steps_per_agent = 8;    // model turns of one agent run. Default: 8
  int answer_retries = 2;         // invalid finishing calls sent back per run. Default: 2
  Millis tool_timeout{60'000};    // one tool call. Default: 60 s
  std::optional<double> temperature = 0.0;  // Default: 0
  // The literature tools (client options: online, cache; getenv). on_evidence
  // is the app's. Default: offline, default cache
  LiteraturePackOptions literature;
  std::string memory_path;        // the memory's SQLite file; "" = in memory. Default: ""
  ResearchMemoryOptions memory;   // Default: lexical de-duplication
  // Research events, on the calling thread (streamed text: on the thread of
  // the model call, which for the bundled models is the calling thread). Default: none
  ResearchEventSink on_event;
  // The report agent's text as it is generated, as `streaming` events (data
  // {"text": fragment}): the agent run asks the model to stream when the
  // model can (ModelCapabilities::streaming; the rules planner hands its
  // report over section by section). Default: true
  bool stream_report = true;
  EventSink on_agent_event;       // every sub-agent's engine events. Default: none
  CancellationToken cancel;       // Default: a fresh token
  // Every agent run as it ends, on the calling thread: the manager round,
  // the agent ("manager", "search", "judge", "hypothesis", "report") and its
  // result (trace included). Default: none
  std::function<void(int round, const std::string& agent, const RunResult& run)> on_agent_run;
  // A checkpoint after every graph node whose run goes on (an agent's turn
  // done, the next node chosen), on the calling thread: the graph's state,
  // the next node and the steps run; the manager's round, ledgers, history,
  // stall and replan counts, the judgement and the report (as the agents
  // submitted them), the searches made and failed, the errors, the token
  // usage and the time used; the planner; and the memory's whole content
  // (ResearchMemory::Snapshot). A JSON object; it must not throw. Default: none
  std::function<void(const Json& checkpoint)> on_checkpoint;
  // Resume: a checkpoint on_checkpoint gave; the research goes on from its
  // next node (nothing before it runs again), with the memory made to hold
  // the checkpoint's content (a memory file's later records are dropped),
  // the planner it had (a model when it had one: `model` must be set; no
  // fallback any more), and what is left of the timeout. Default: null (a new research)
  Json resume_from;
  // Approval (issue 22): which search calls wait for a person (the rules of
  // apps/common/approval_policy.h over the search agent's tools; the run
  // service builds it from the stored rules). A call that waits pauses the
  // research: the search turn is kept as the agent left it (its state in the
  // checkpoint, the graph's next node `search`), the outcome's stop_reason
  // is "awaiting_approval" with `paused`, and no report is written. `approve`
  // may decide at once (a terminal prompt). Default: nothing waits
  std::function<bool(const ToolCall&, const ToolSpec&)> needs_approval;
  std::function<std::optional<ApprovalDecision>(const ToolCall&, const ToolSpec&)> approve;
  // With resume_from of a paused research: the decisions on its waiting calls
  // (RunState::approvals); the search turn goes on with them (a rejected
  // call's result is the reviewer's reason, a failed search in the report).
  std::map<std::string, ApprovalDecision> approvals;
};

struct ResearchOutcome {
  // Setup failed (the memory file refused, tools not registered): nothing
  // ran, the message says why. OK otherwise, whatever the research did.
  Status status;
  ResearchReport report;
  bool report_from_agent = false;  // false: fallback synthesis wrote it
  // "judge_approved" / "report_written" (the report agent finished), or the
  // break condition: "max_rounds", "timeout", "token_budget", "cancelled",
  // "manager_failed", "report_failed", "graph_error".
  std::string stop_reason;
  std::string fallback_reason;     // one sentence, when !report_from_agent
  int rounds = 0;
  Usage usage;                     // summed over every agent run
  size_t evidence_count = 0;
  std::string planner;             // "model", "rules" or "rules (fallback)"
  bool fell_back = false;
  std::string model_failure;
  std::vector<std::string> errors;  // what failed on the way (judge errors, tool errors...)
  // Every search that returned an error, in order; the report names each.
  std::vector<FailedSearch> failed_searches;
  // The report's references: reference_numbers[k-1] is the memory's
  // (bibliography) number of reference [k], in order of first citation;
  // uncited_numbers follow (listed by a fallback report, not cited).
  std::vector<int> reference_numbers;
  std::vector<int> uncited_numbers;
  std::vector<ResearchEvent> events;
  // {"question","planner","stop_reason",...,"events","ledgers","agent_runs":
  //  [{"round","agent","status","trace"}],"report"}
  Json trace;
  // The structured ResearchReport and the run's facts (for --out).
  OrderedJson result;
  // stop_reason "awaiting_approval": the search agent's paused turn (its
  // RunState::awaiting_approval names the calls that wait).
  std::optional<RunState> paused;
};

// REQUIRES: question not blank.
ResearchOutcome RunResearch(const std::string& question, const ResearchConfig& config);

}  // namespace medreact

#endif  // MEDREACT_APPS_RESEARCH_RESEARCH_APP_H_
