// Agent: the ReAct loop (seed 004) — think, act, observe, until an answer.
//
//   Agent agent(model, tools, options);
//   RunResult r = agent.Run({.message = "What is 17 * 23?"});
//   // r.status, r.answer, r.trace
//
// Run() moves IDLE → RUNNING and loops step() = think() (one model call) then
// act() (the turn's tool calls, concurrently on a bounded pool, results in call
// order) until the model answers without calling a tool, a finishing tool
// (`final_answer`, `terminate`, `terminate_and_answer`, or an app's own) is called, or a limit is hit:
// max steps, wall-clock timeout, token budget, tool-call budget, or a loop
// (the same call or text repeated → one nudge, then `stuck`). On a limit the
// agent makes one last call without tools for the best answer from what it has
// (fallback synthesis), unless the model itself failed. Every run ends with a
// status, a non-empty answer and a full trace; Run() never throws.
//
// One Agent runs once (Run() on a non-IDLE agent returns an `error` result).
// Cancel() may be called from any thread. The model and registry are shared
// and must outlive nothing in particular (held by shared_ptr).
#ifndef MEDREACT_AGENT_H_
#define MEDREACT_AGENT_H_

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "medreact/cancel.h"
#include "medreact/events.h"
#include "medreact/message.h"
#include "medreact/model.h"
#include "medreact/run_state.h"
#include "medreact/tool_registry.h"
#include "medreact/trace.h"

namespace medreact {

// kAwaitingApproval: not an end but a pause; the run stopped before a tool
// call that needs a person's approval (AgentOptions::needs_approval) and
// goes on with Agent::Resume once it is decided.
enum class RunStatus { kFinished, kMaxSteps, kStuck, kTimeout, kBudget, kError, kAwaitingApproval };
const char* RunStatusName(RunStatus status);  // "finished", "max_steps", ..., "awaiting_approval"

enum class AgentState { kIdle, kRunning, kFinished, kError };

// What an answer check (AgentOptions::check_answer) says of an answer.
struct AnswerCheck {
  bool accepted = true;
  std::string feedback;  // when not accepted: what is wrong, shown to the model as is
};

struct AgentOptions {
  // System prompt; the first message of every request. Default: a generic
  // tool-using assistant prompt (kDefaultSystemPrompt).
  std::string system_prompt;
  // Added as a user message before every model call after the first, as in
  // seed 004's next_step_prompt. Default: "" (none).
  std::string next_step_prompt;
  int max_steps = 20;                // model turns before `max_steps`. Default: 20
  // Wall clock for the whole run, fallback synthesis included: every model
  // call and tool call is cut at it. When fallback synthesis is on, the loop
  // itself stops earlier, leaving the final call min(fallback_timeout,
  // timeout / 4). 0 = none. Default: 0
  Millis timeout{0};
  int64_t token_budget = 0;          // total tokens (from usage); 0 = unlimited. Default: 0
  // Tool calls in the run; 0 = unlimited. Calls of the finishing tools
  // (finish_tools, answer_tool) are outside it: always run, never counted
  // here nor in RunResult::tool_calls. Default: 0
  int tool_call_budget = 0;
  int max_parallel_tools = 4;        // bounded pool size for one turn's calls. Default: 4
  Millis tool_timeout{60'000};       // per tool call. Default: 60 s
  int stuck_threshold = 3;           // repeats before the nudge; one more → `stuck`. Default: 3
  // Tools whose successful call ends the run; the answer is their "answer"
  // argument if present, else their result. Default: final_answer, terminate.
  std::vector<std::string> finish_tools = {"final_answer", "terminate", "terminate_and_answer"};
  // The app's finishing tool (a registered tool, e.g. triage's
  // `submit_assessment`): its arguments are the run's structured answer.
  // It ends the run like the finish_tools. Models without native tool
  // calling give their final block as a call of it (the text protocol, the
  // rules planners); a plain-text answer is read as its arguments by the
  // same reader (ReadFinalBlock) and validated against its schema: an
  // answer that does not validate goes back to the model with the problems
  // (counted with the answer check's retries, see check_answer), and after
  // the last retry ends the run as read, RunResult::answer_accepted false.
  // RunResult::final_fields holds the validated arguments. Default: "" (none)
  std::string answer_tool;
  bool fallback_synthesis = true;    // one last tool-less call on a limit. Default: true
  Millis fallback_timeout{60'000};   // deadline for that call (within `timeout`). Default: 60 s
  std::string tool_choice = "auto";  // sent when tools are offered. Default: "auto"
  bool stream = false;               // ask the model to stream (SSE). Default: false
  std::optional<double> temperature; // Default: unset (server default)
  std::optional<int> max_tokens;     // per model turn. Default: unset
  // Windowing: at most this many messages after the system prompt and the
  // task are sent; never separates a tool call from its results. 0 = all.
  size_t max_history_messages = 0;
  EventSink on_event;                // Default: none
  // Checks every answer before the run accepts it: a plain-text answer, or
  // the arguments of a successful finishing tool. A rejected answer goes back
  // to the model with the feedback (a user turn after a text answer, the
  // finishing tool's error result after a call) and the run goes on, at most
  // `max_answer_retries` times and only while steps and time remain; after
  // that the last answer ends the run with RunResult::answer_accepted false.
  // (Extraction validates its JSON against the user's schema here, so its
  // corrections are steps of one run, one trace.) Default: none.
  std::function<AnswerCheck(const std::string& answer, const Json& final_fields)> check_answer;
  int max_answer_retries = 2;        // Default: 2
  // The checkpoint port: called with the loop's whole state when the run
  // starts (step 0, before the first model call), when a model reply's tool
  // calls are about to run, after every finished tool call (before its
  // tool_finished event) and after every step (before step_finished), on the
  // thread running the loop; a durable store saves it and Agent::Resume()
  // goes on from it. Building the state copies the conversation, so leave it
  // empty unless you keep them. Default: none.
  std::function<void(const RunState&)> on_checkpoint;
  // Human approval: a call for which this returns true (a network tool, one
  // with side effects; the CLI builds it from --require-approval) does not
  // run until a person decides. Finishing tools never wait. Before any of a
  // turn's calls runs, each that needs approval is decided by `approve`, or,
  // when that is unset or returns nullopt ("decide later"), the run pauses:
  // a checkpoint whose RunState::awaiting_approval lists the waiting calls,
  // then a RunResult with status kAwaitingApproval. Resume() of that state
  // with the decisions in RunState::approvals goes on (still undecided
  // calls pause it again). A rejected call is not run: its result is an
  // error telling the model the reviewer refused it, with the reason. An
  // approved call runs with the reviewer's edited arguments when given (the
  // conversation then shows those; the step's notes keep the model's). The
  // time a run waits is not counted against `timeout`. A throwing predicate
  // counts as "needs approval". Default: none (nothing waits).
  std::function<bool(const ToolCall& call, const ToolSpec& spec)> needs_approval;
  // Decides a waiting call at once (an interactive terminal: yes, no, edit),
  // on the loop's thread; nullopt leaves it waiting (the run pauses). A
  // throwing callback counts as nullopt. Default: none (every waiting call pauses the run).
  std::function<std::optional<ApprovalDecision>(const ToolCall& call, const ToolSpec& spec)> approve;
  // Cancelling this token (from any thread, or from a signal handler: it is
  // one lock-free atomic store) stops the run as Agent::Cancel() does; one
  // token may be shared by many runs (a worklist, a process). Default: a
  // fresh token.
  CancellationToken cancel;
  // Names the run in traces (OpenTelemetry, README "Tracing with
  // OpenTelemetry"): the run's span is `invoke_agent <agent_name>` with
  // gen_ai.agent.name. Default: "" ("medreact")
  std::string agent_name;
  // A W3C traceparent the run's trace continues (a server request's
  // `traceparent` header); ignored when malformed. Default: "" (the calling
  // thread's current span, else a new trace)
  std::string traceparent;
};

extern const char kDefaultSystemPrompt[];

// Registers the built-in finishing tools: `final_answer` {answer} ends the run
// with that answer; `terminate` {reason, answer?} ends it too; and seed 004's
// `terminate_and_answer` {answer, confidence: high|medium|low, reasoning}
// ends it with the answer, the other two kept in RunResult::final_fields. A model that answers in plain text needs neither; they are for
// models and apps that prefer an explicit end.
Status RegisterFinishTools(ToolRegistry& registry);

struct RunRequest {
  std::string message;               // the user's request (the task)
  std::vector<ContentPart> images;   // optional image parts for multimodal models
  std::vector<Message> history;      // earlier turns of the conversation, if any
};

struct RunResult {
  RunStatus status = RunStatus::kError;
  std::string answer;                // never empty
  std::string error;                 // why the run did not finish normally, if it did not
  Json final_fields;                 // finishing tool's arguments or text-protocol fields
  int steps = 0;
  int tool_calls = 0;                // calls run, the finishing call not counted
  Usage usage;
  RunTrace trace;
  std::vector<Message> messages;     // the whole conversation, for a next turn
  // The answer check, when one is set: answers checked, whether the last
  // was accepted, and its feedback when it was not.
  int answers_checked = 0;
  bool answer_accepted = true;
  std::string answer_feedback;
  // status kAwaitingApproval: the state to resume from (RunState::
  // awaiting_approval names the waiting calls; put the decisions in its
  // `approvals`). The same state went to AgentOptions::on_checkpoint.
  std::optional<RunState> paused;
};

class Agent {
 public:
  Agent(std::shared_ptr<ChatModel> model, std::shared_ptr<const ToolRegistry> tools,
        AgentOptions options = {});
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // REQUIRES: state() == kIdle (otherwise returns an `error` result).
  RunResult Run(const RunRequest& request);

  // Goes on from a checkpoint (AgentOptions::on_checkpoint) of a run made
  // with the same tools and options: ends as that run would have ended
  // uninterrupted. The time already used counts against `timeout`. A call
  // that was in flight at the checkpoint (a turn's call without a result) is
  // run again when its tool is idempotent (ToolSpec::idempotent); otherwise
  // it is not, and its result is an error telling the model the call was
  // interrupted and may or may not have taken effect. A state paused for
  // approval goes on with the decisions in its `approvals` (none of its
  // turn's calls had started, so none counts as interrupted).
  // REQUIRES: state() == kIdle.
  RunResult Resume(const RunState& state);

  void Cancel() { cancel_.Cancel(); }
  AgentState state() const { return state_.load(); }

 private:
  class Loop;
  // Run and Resume: one run per Agent. `resume` null for a new run.
  RunResult Once(const char* entry, const RunRequest& request, const RunState* resume);
  std::shared_ptr<ChatModel> model_;
  std::shared_ptr<const ToolRegistry> tools_;
  AgentOptions options_;
  std::shared_ptr<const ToolSpec> answer_spec_;  // options_.answer_tool's spec, when registered
  CancellationToken cancel_;
  std::atomic<AgentState> state_{AgentState::kIdle};
};

}  // namespace medreact

#endif  // MEDREACT_AGENT_H_
