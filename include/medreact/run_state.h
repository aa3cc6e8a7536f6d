// RunState: everything the agent loop needs to go on from where it stopped,
// as a value that serialises to JSON and back (the durable run store keeps
// these; Agent::Resume continues from one).
//
// A state is taken when the run starts and after every step (phase
// kBetweenSteps), and when a turn's tool calls start and after every finished
// tool call of a turn (phase kInTurn: the turn's assistant message, its step
// record so far, and the results that are in). Resuming re-runs only the
// calls of that turn that had not finished (those of a non-idempotent tool
// are not re-run: they get an "interrupted" error result), then goes on as
// the uninterrupted run would have: same messages, same step numbers, same
// budgets left, same loop-detector memory. Tool calls that had finished are
// never run twice.
//
// The state holds the conversation, so it holds patient data: store it as you
// would the trace (0600, never in logs).
#ifndef MEDREACT_RUN_STATE_H_
#define MEDREACT_RUN_STATE_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "medreact/json.h"
#include "medreact/message.h"
#include "medreact/status.h"
#include "medreact/trace.h"

namespace medreact {

// A person's decision on a tool call that waited for approval
// (AgentOptions::needs_approval): run it (as the model called it, or with
// the arguments the reviewer edited) or not (the reason reaches the model).
struct ApprovalDecision {
  bool approved = false;
  std::string arguments;  // approved: the reviewer's arguments (JSON text); "" = as the model called it
  std::string reason;     // rejected: why, shown to the model; may be empty
  std::string reviewer;   // who decided (the front end's identity for the person: an OS user, an account); may be empty
  std::string decided_at; // when (ISO 8601 UTC, to the millisecond); may be empty
};

struct RunState {
  static constexpr int kVersion = 1;

  enum class Phase {
    kBetweenSteps,  // `step` steps are complete; the next one starts a model call
    kInTurn,        // step `step` ran its model call; some of its tool calls have results
  };
  Phase phase = Phase::kBetweenSteps;

  std::vector<Message> messages;  // the full (unwindowed) conversation, system prompt first
  int step = 0;                   // steps begun (== completed when kBetweenSteps)
  int tool_calls = 0;             // tool calls run in completed turns
  Usage usage;
  double elapsed_ms = 0;          // wall clock used so far (the timeout counts on from here)

  // Loop detector: fingerprint → times seen, and the fingerprints already nudged.
  std::map<std::string, int> loop_counts;
  std::set<std::string> loop_nudged;

  // kInTurn: the assistant turn being acted on, its record so far (model
  // call, usage, notes), and the results in by call index.
  Message turn;
  StepRecord turn_record;
  std::map<size_t, ToolResultRecord> turn_results;
  // kInTurn, human approval: the ids of the turn's calls waiting for a
  // person's decision, in call order. While any wait, none of the turn's
  // calls has started (a resume re-runs nothing blindly). `approvals`: the
  // decisions taken so far, by call id; a resume applies them before the
  // turn's calls run.
  std::vector<std::string> awaiting_approval;
  std::map<std::string, ApprovalDecision> approvals;

  // How the last step ended, when it ended the run: "" (going on),
  // "answered", "model_failed" or "limit" (with the limit's status and reason).
  std::string outcome;
  std::string answer;
  Json final_fields;
  std::string model_error;
  std::string limit_status;
  std::string limit_reason;

  // The answer check (AgentOptions::check_answer): answers checked so far,
  // rejections, and the last verdict.
  int answers_checked = 0;
  int answer_rejections = 0;
  bool answer_accepted = true;
  std::string answer_feedback;

  RunTrace trace;  // steps so far, started_at, model, protocol, input

  // An app's own state beyond the agent loop's, null for the agent's runs.
  // The graph apps keep here where their graph goes on: cxr its graph
  // position ({"graph": {"next", "steps", "state"}}) and the images the run
  // read and made, by content hash ({"images": [...]}; service/cxr_runs.h);
  // research its round, ledgers, judgement and memory (service/research_runs.h).
  Json app;
};

Json ToJson(const RunState& state);
// ToJson without the conversation and the trace's steps (both empty arrays):
// for a store that keeps those as rows appended as they come, so a checkpoint
// writes what changed rather than the whole run. Put them back
// ("messages", "trace"."steps") before RunStateFromJson. Without
// `with_trace_input` the trace's input (the message, system prompt, tools and
// options: the same at every checkpoint of a run) is left out too: a store
// that keeps it once puts it back as "trace"."input".
Json RunStateHeaderToJson(const RunState& state, bool with_trace_input = true);
// The same JSON as DumpJson(RunStateHeaderToJson(state, with_trace_input)),
// written straight into a string without building a tree (the keys in
// another order): what a store writes at every checkpoint (run_state_text.cc;
// ~4,400 instructions a header in BM_WarmRunStored, callgrind).
std::string RunStateHeaderToJsonText(const RunState& state, bool with_trace_input = true);
// InvalidArgument naming the field when `json` is not a RunState of a known version.
Result<RunState> RunStateFromJson(const Json& json);

// The state's message and trace readers, for stores and tools that keep them.
Json MessageToStateJson(const Message& message);
Result<Message> MessageFromStateJson(const Json& json);
Result<RunTrace> RunTraceFromJson(const Json& json);
// One step of a trace, in the state's form (every field, for stores).
Json StepRecordToStateJson(const StepRecord& step);
Result<StepRecord> StepRecordFromStateJson(const Json& json);
// DumpJson of MessageToStateJson and StepRecordToStateJson, written the same
// way as RunStateHeaderToJsonText.
std::string MessageToStateJsonText(const Message& message);
std::string StepRecordToStateJsonText(const StepRecord& step);

}  // namespace medreact

#endif  // MEDREACT_RUN_STATE_H_
