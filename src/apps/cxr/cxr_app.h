// The chest X-ray agent (seed 000, MedRAX): a ReAct loop over the imaging
// toolbox, run as a graph (seed 000 §6).
//
//   reason ──(last message requests tools?)──► act ──► reason
//      └──────────────── no ─────────────────► __end__
//
// `reason` sends the system prompt, the conversation and the tools to the
// model and appends its turn; the conditional edge reads that turn: tool
// calls → `act`, an unreadable reply (a correction was appended) → `reason`
// again, else `__end__` (an answer, or a clarifying question for the user).
// `act` runs the turn's calls through the engine's tool turn (concurrently,
// each validated against its schema, one result per call in call order,
// errors and timeouts as observations) and appends the results. The state is
// the conversation as JSON (the run-state message form); images are in it by
// id (an image part's URL is "medreact-image:<id>") and `reason` puts the
// store's data URL, encoded once, in their place on the wire.
//
// Limits: max_steps model turns (the graph's own step limit is derived from
// it), the run's timeout and cancellation. When the graph stops before
// `__end__` (a limit, a model that failed) the run still ends with an answer:
// one last call without tools asks the model for its best answer from what the
// tools returned, and when there is no model to ask, the offline summary
// (cxr_planner.h) writes it from the tool results, saying so.
//
// The result JSON ("--out"): question, answer, status, planner, images (ids,
// sizes, origin, paths; never pixels), the tools offered and why others were
// not, every tool call with its result, the findings read from those results
// with the tool each came from, and the annotated images' paths.
//
// The run store (issue 14, issue 22): `on_checkpoint` gets the run's state
// when it starts, after every graph node the run goes on from (the graph's
// on_checkpoint: its state, the node to run next, its steps), and in a turn
// after every tool call that comes in. The state is a RunState: the
// conversation (system prompt first), the trace's completed steps, and in
// RunState::app {"graph": {"next", "steps", "state"}}; in a turn (next is
// "act") phase kInTurn with the turn's message, its step record and the
// results in so far. ResumeCxr goes on from such a state exactly: the
// calls done are not run again, the step numbers and the time used go on.
// The images are the caller's to restore (the run service keeps them by
// content hash, service/cxr_runs.h): the state names them by id.
//
// Approval (issue 22): with `needs_approval`, a call it selects waits for a
// person before it runs; `approve` may decide at once, else the run pauses
// (status kAwaitingApproval, the turn checkpointed with the waiting calls)
// and a resume with the decisions in the state (RunState::approvals) goes
// on: a rejected call's result is the reviewer's reason, an approved one
// runs (with the reviewer's arguments when edited).
#ifndef MEDREACT_APPS_CXR_CXR_APP_H_
#define MEDREACT_APPS_CXR_CXR_APP_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "medreact/agent.h"
#include "medreact/cancel.h"
#include "medreact/events.h"
#include "medreact/json.h"
#include "medreact/message.h"
#include "medreact/model.h"
#include "medreact/run_state.h"
#include "medreact/status.h"
#include "medreact/tool_spec.h"
#include "medreact/trace.h"
#include "tools/imaging/image_store.h"
#include "tools/imaging/imaging_pack.h"

namespace medreact {

// The question asked when the user gives none on the command line and no
// terminal is attached.
inline constexpr char kDefaultCxrQuestion[] =
    "Analyse this chest X-ray: what abnormalities are present, where are they, and how confident are you?";

struct CxrConfig {
  std::shared_ptr<ChatModel> model;  // the reasoning model, or the offline planner (MakeCxrPlanner)
  // The run's images and the toolbox's endpoints; the store is shared by
  // every turn of a conversation. REQUIRES: tools.store set.
  imaging::ImagingPackOptions tools;
  std::string system_prompt;     // Default: "" = LoadCxrSystemPrompt("")
  int max_steps = 12;            // model turns per question. Default: 12
  Millis timeout{0};             // whole run, per question; 0 = none. Default: 0
  Millis tool_timeout{120'000};  // one tool call. Default: 120 s
  int max_parallel_tools = 4;    // Default: 4
  bool stream = false;           // ask the model to stream. Default: false
  EventSink on_event;            // Default: none
  CancellationToken cancel;      // Default: a fresh token
  // The run's state at its start and after every completed step (the
  // conversation, system prompt first, and the trace so far), for the run
  // store. Default: none
  std::function<void(const RunState&)> on_checkpoint;
  // Which calls wait for a person (apps/common/approval_policy.h). Default: none
  std::function<bool(const ToolCall&, const ToolSpec&)> needs_approval;
  // Decides a waiting call at once; nullopt or empty: the run pauses.
  std::function<std::optional<ApprovalDecision>(const ToolCall&, const ToolSpec&)> approve;
};

struct CxrTurn {
  std::string question;
  // Earlier turns of this conversation (CxrOutcome::messages of the last
  // turn), system prompt excluded; empty for the first question.
  std::vector<Message> history;
  // Images whose parts go into this question's user message (the first
  // question: every image the user gave). Errors of files that could not
  // be read are told to the model in the same message.
  std::vector<std::string> image_ids;
  std::vector<std::pair<std::string, std::string>> image_errors;  // (path, why)
};

struct CxrOutcome {
  RunStatus status = RunStatus::kError;
  std::string answer;  // never empty
  std::string error;   // why the run did not finish normally
  Json result;         // the --out JSON (see above)
  RunTrace trace;
  std::vector<Message> messages;  // the conversation so far (system prompt excluded), for the next turn
  bool model_answered = false;    // false: no model turn was usable (unreachable, refused, ...)
};

// Runs one question. Never throws.
CxrOutcome RunCxr(const CxrTurn& turn, const CxrConfig& config);
// Goes on with a run from one of its checkpoints (see above), into the same
// run id; `turn` gives the question and the image errors of the run, the
// config its toolbox with the run's images restored under the same ids.
// A state that is not a cxr graph's ends the run with an error. Never throws.
CxrOutcome ResumeCxr(const CxrTurn& turn, const CxrConfig& config, const RunState& state);

// The system prompt: `path` when given, else data/prompts/cxr_system.md
// (DataPath). NotFound / InvalidArgument naming the file.
Result<std::string> LoadCxrSystemPrompt(const std::string& path);

// Reads the findings from a conversation's tool results, each with the tool
// and the image it came from: classifier labels at or above the threshold,
// grounding boxes, segmentation measurements (cardiothoracic ratio), VQA
// answers and report impressions. The same reading feeds --out and the
// offline summary.
Json CxrFindings(const std::vector<Message>& messages, double threshold);

}  // namespace medreact

#endif  // MEDREACT_APPS_CXR_CXR_APP_H_
