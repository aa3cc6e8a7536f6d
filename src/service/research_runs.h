// Research runs in the run service (issue 22): a research (apps/research)
// started, recorded and resumed here, under every front end (`medreact
// research` and `medreact runs resume` now), which keeps its flags, its
// files and its printing.
//
//   RunService service(store);
//   Result<std::unique_ptr<PreparedResearch>> p = PrepareResearch(service, {.question = q, .planner = "rules"});
//   ResearchRun r = RunPreparedResearch(service, std::move(*p), {.on_event = sink});
//   // killed: a new process goes on from the last checkpoint
//   Result<RunRecord> run = service.PrepareResume(r.run_id);         // status, app table, lease
//   Result<std::unique_ptr<PreparedResearch>> again = PrepareResearchResume(service, r.run_id, {});
//   ResearchRun done = RunPreparedResearch(service, std::move(*again), hooks);
//
// Prepare does every check before any work: the question, the sources, the
// planner and the model, the replay file (imported into the cache as its
// last act, when everything else passed); for a resume the stored inputs,
// the checkpoint and the model. Messages name settings (`sources`,
// `llm_url`), never a front end's flag.
//
// What is recorded: one row (the question, the options, the planner, the
// cache, memory and output paths), one step per agent run (the agent, its
// round, its tool calls and their results, its answer), the research events
// (the report's streamed fragments joined into pieces of at least 240
// characters), and at every graph checkpoint (after each agent's turn) the
// research's checkpoint (ResearchConfig::on_checkpoint: round, ledgers,
// stall count, judgement, usage, the memory's content, the next node) in the
// run state's `app`, in the same transaction as the steps and events up to
// it. An agent's start and each piece of the report are written at once (a
// page following the run sees the agent at work and the report as it is
// written); a resume that runs a cut turn again may store its start twice. A kill loses at most the
// agent turn under way, which a resume runs again; a completed turn (a
// search, a judgement) is never run twice. A cancelled research ends
// `interrupted` and may be resumed.
//
// Approval: the rules (ResearchStart::require_approval, stored with the
// inputs) apply to the search agent's calls. A search that waits pauses the
// research (awaiting_approval): the run state's turn and awaiting_approval
// are the search agent's paused turn, so RunService::Show lists the calls
// and RunService::Decide stores the decisions; PrepareResearchResume then
// goes on with them (the search turn first, from where it paused).
#ifndef MEDREACT_SERVICE_RESEARCH_RUNS_H_
#define MEDREACT_SERVICE_RESEARCH_RUNS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/research/research_app.h"
#include "service/run_service.h"

namespace medreact::service {

// A research run to start, as a front end gives it.
struct ResearchStart {
  std::string question;
  std::string planner = "auto";  // auto | model | rules (planner)
  ModelSettings model;           // used when the planner is a model
  int max_rounds = 5;
  double timeout_s = 600;
  int64_t token_budget = 50'000;  // 0 = none
  std::vector<std::string> sources = {"pubmed", "trials", "preprints"};
  int results = 5;               // records per search the rules planner asks for
  bool online = false;           // reach the literature services (online)
  std::string cache_path;        // the literature cache; "" = the default one
  std::string replay_path;       // recorded responses imported into cache_path first (needs cache_path)
  std::string memory_path;       // the research memory's file; "" = in memory
  // The front end's output files, stored with the run (made absolute) so
  // that a resume writes them again; the service writes neither.
  std::string out_path;
  std::string report_path;
  // Which searches wait for a person (apps/common/approval_policy.h: all,
  // network, pack:literature, tool:NAME over the search tools of `sources`).
  std::vector<std::string> require_approval;
};

// A front end's hooks into one research run.
struct ResearchHooks {
  ResearchEventSink on_event;  // every research event (after the store's copy); may be empty
  CancellationToken cancel;    // stops it (as RunService::Cancel does): the run ends `interrupted`, resumable
  std::function<void(const std::string&)> warn;  // the store failed mid-run
  // Decides a waiting search inline (a terminal prompt); empty or nullopt:
  // the research pauses (awaiting_approval) until RunService::Decide.
  std::function<std::optional<ApprovalDecision>(const ToolCall&, const ToolSpec&)> approve;
  // Called once as soon as the run's row is in the store (before the first
  // agent runs; a resumed run at its start). Never without a store. May be empty.
  std::function<void(const std::string& run_id)> on_started;
};

// A research checked and assembled, ready to run (or go on).
struct PreparedResearch {
  RunRecord run;         // new: app, inputs, model (the id comes with the first checkpoint); resumed: the stored run
  bool resumed = false;
  std::string question;
  ResearchConfig config;  // everything but the hooks
  RunState state;         // resumed: the last checkpoint (its app null: none was taken yet)
  int imported = 0;       // recorded responses imported into the cache (replay)
  std::string out_path;   // as stored (absolute), for the front end
  std::string report_path;
};

struct ResearchRun {
  std::string run_id;    // "" when not recorded
  std::string status;    // as stored: finished, max_steps, timeout, budget, interrupted, awaiting_approval, error
  bool stored = false;
  ResearchOutcome outcome;
};

// Every check of a new research run before any work (see the top).
Result<std::unique_ptr<PreparedResearch>> PrepareResearch(const RunService& service, const ResearchStart& start);

// A stored research run (after RunService::PrepareResume: status, app
// table, lease): its inputs, its last checkpoint and its model (the spec's
// when it names a URL, else the stored one; none for a rules planner).
Result<std::unique_ptr<PreparedResearch>> PrepareResearchResume(const RunService& service, const std::string& run_id,
                                                                const ResumeSpec& spec);

// Runs (or goes on with) a prepared research, recording it when the service
// has a store.
ResearchRun RunPreparedResearch(RunService& service, std::unique_ptr<PreparedResearch> prepared,
                                const ResearchHooks& hooks);

// The search tools a stored research run offers (from its stored sources),
// for RunService::Decide to check a reviewer's edited arguments against.
Result<std::shared_ptr<ToolRegistry>> ResearchDecisionTools(const RunRecord& run);

// The status a research's row ends with: finished when the report agent
// wrote the report, else its break condition as the engine's status.
std::string ResearchRunStatus(const ResearchOutcome& outcome);

}  // namespace medreact::service

#endif  // MEDREACT_SERVICE_RESEARCH_RUNS_H_
