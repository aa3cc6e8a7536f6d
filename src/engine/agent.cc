// The agent loop (seed 004): Run() → step() = think() + act(), with limits,
// loop detection and fallback synthesis. Tool execution for one turn lives in
// tool_turn.cc; this file is the driver and reads top-down.
#include "medreact/agent.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "engine/agent_loop.h"

namespace medreact {

const char kDefaultSystemPrompt[] =
    "You are a careful assistant that can call tools. Think step by step. Call a tool when it "
    "gives you information you need; call several tools in one turn when they are independent. "
    "Never invent tool results. When you have enough information, answer the user directly and "
    "concisely, and say what is uncertain.";

const char* RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kFinished: return "finished";
    case RunStatus::kMaxSteps: return "max_steps";
    case RunStatus::kStuck: return "stuck";
    case RunStatus::kTimeout: return "timeout";
    case RunStatus::kBudget: return "budget";
    case RunStatus::kError: return "error";
    case RunStatus::kAwaitingApproval: return "awaiting_approval";
  }
  return "error";
}


RunResult Agent::Run(const RunRequest& request) { return Once("Agent::Run", request, nullptr); }

RunResult Agent::Resume(const RunState& state) { return Once("Agent::Resume", {}, &state); }

RunResult Agent::Once(const char* entry, const RunRequest& request, const RunState* resume) {
  AgentState expected = AgentState::kIdle;
  if (!state_.compare_exchange_strong(expected, AgentState::kRunning)) {
    RunResult r;
    r.error = std::string(entry) + " called on an agent that is not idle (an Agent runs once)";
    r.answer = "No answer: " + r.error + ".";
    r.trace.status = RunStatusName(r.status);
    r.trace.answer = r.answer;
    r.trace.error = r.error;
    return r;
  }
  if (!options_.answer_tool.empty() && !answer_spec_) {  // a programming error in the app
    RunResult r;
    r.error = "the answer tool '" + options_.answer_tool + "' is not registered";
    r.answer = "No answer: " + r.error + ".";
    r.trace.status = RunStatusName(r.status);
    r.trace.answer = r.answer;
    r.trace.error = r.error;
    state_ = AgentState::kError;
    return r;
  }
  Loop loop(*this, request, resume ? resume->elapsed_ms : 0);
  RunResult result = loop.Run(resume);
  state_ = result.status == RunStatus::kError ? AgentState::kError : AgentState::kFinished;
  return result;
}

Agent::Agent(std::shared_ptr<ChatModel> model, std::shared_ptr<const ToolRegistry> tools,
             AgentOptions options)
    : model_(std::move(model)), tools_(std::move(tools)), options_(std::move(options)), cancel_(options_.cancel) {
  if (!tools_) tools_ = std::make_shared<const ToolRegistry>();
  if (options_.system_prompt.empty()) options_.system_prompt = kDefaultSystemPrompt;
  if (!options_.answer_tool.empty()) {
    for (const ToolSpec& spec : tools_->SharedSpecs()) {
      if (spec.name == options_.answer_tool) answer_spec_ = std::make_shared<const ToolSpec>(spec);
    }
    if (std::find(options_.finish_tools.begin(), options_.finish_tools.end(), options_.answer_tool) ==
        options_.finish_tools.end()) {
      options_.finish_tools.push_back(options_.answer_tool);
    }
  }
}

Agent::~Agent() = default;

RunResult Agent::Loop::Run(const RunState* resume) {
  // A new run records its input and builds the first messages; a resumed one
  // loads them, and first finishes what its last step left (a turn's calls,
  // or the outcome that ended the run).
  const otel::ScopedContext trace_scope(StartRunSpan());
  std::optional<StepOutcome> pending;
  if (resume) {
    pending = Restore(*resume);
  } else {
    Start();
  }
  RunStatus status = RunStatus::kFinished;
  std::string reason;
  bool model_failed = false;
  for (;;) {
    StepOutcome outcome;
    if (pending) {
      outcome = *pending;
      pending.reset();
    } else {
      if (agent_.cancel_.cancelled()) {         // a caller asked us to stop
        status = RunStatus::kError, reason = "the run was cancelled", model_failed = true;
        break;
      }
      if (step_ >= options_.max_steps) {        // seed 004: while current_step < max_steps
        status = RunStatus::kMaxSteps;
        reason = "the step limit (" + std::to_string(options_.max_steps) + ") was reached";
        break;
      }
      if (deadline_.expired()) {                // wall-clock limit
        status = RunStatus::kTimeout;
        reason = "the time limit (" + std::to_string(options_.timeout.count()) + " ms) was reached";
        break;
      }
      ++step_;
      outcome = TracedStep();                   // think() + act()
    }
    if (outcome == StepOutcome::kContinue) continue;
    if (outcome == StepOutcome::kAnswered) break;
    if (outcome == StepOutcome::kCut) {
      status = RunStatus::kError, reason = "the run was cancelled", model_failed = true;
      break;
    }
    if (outcome == StepOutcome::kAwaitingApproval) {  // a pause, not an end: nothing to conclude
      status = RunStatus::kAwaitingApproval;
      reason = awaiting_reason_;
      break;
    }
    if (outcome == StepOutcome::kModelFailed) {
      // A model that timed out against the run's deadline is a timeout; any
      // other failure (unreachable, refused) is an error. No synthesis either way:
      // the model is the thing that failed.
      status = OutOfTime() ? RunStatus::kTimeout : RunStatus::kError;
      reason = "the model call failed: " + model_error_;
      model_failed = true;
      break;
    }
    status = limit_status_;                   // stuck or budget, decided inside Step()
    reason = limit_reason_;
    break;
  }
  if (status == RunStatus::kAwaitingApproval) {
    answer_ = "Paused: " + reason + ".";
  } else if (status != RunStatus::kFinished) {
    Conclude(status, reason, options_.fallback_synthesis && !model_failed);
  }

  RunResult result;
  result.status = status;
  result.answer = answer_;
  result.error = status == RunStatus::kFinished ? "" : reason;
  result.final_fields = final_fields_;
  result.steps = step_;
  result.tool_calls = tool_calls_made_;
  result.usage = usage_;
  trace_.status = RunStatusName(status);
  trace_.answer = answer_;
  trace_.error = result.error;
  trace_.final_fields = final_fields_;
  trace_.usage = usage_;
  trace_.elapsed_ms = MsSince(started_);
  // Emitted before the trace moves into the result: Emit logs with the trace's run id.
  Emit({.type = EventType::kRunFinished, .step = step_, .text = result.answer,
        .elapsed_ms = trace_.elapsed_ms,
        .data = Json{{"status", RunStatusName(status)}, {"steps", step_}}});
  EndRunSpan(status);
  result.trace = std::move(trace_);
  result.messages = std::move(messages_);
  result.answers_checked = answers_checked_;
  result.answer_accepted = answer_accepted_;
  result.answer_feedback = answer_feedback_;
  result.paused = std::move(paused_);
  return result;
}

void Agent::Loop::Start() {
  trace_.run_id = "run_" + MintToolCallId().substr(5, 16);
  trace_.started_at = UtcTimestamp();
  trace_.model = agent_.model_->name();
  trace_.protocol = agent_.model_->protocol();

  Json images = Json::array();
  for (const auto& part : request_.images) {
    // A data URL is the image itself: the trace names it by its size, never its pixels.
    const std::string& url = part.image_url;
    const size_t comma = url.find(',');
    images.push_back(url.rfind("data:", 0) == 0 && comma != std::string::npos
                         ? url.substr(0, comma) + " (" + std::to_string(url.size() - comma - 1) + " bytes)"
                         : url);
  }
  Json history = Json::array();
  for (const auto& m : request_.history) history.push_back(ToJson(m));
  trace_.input = Json{{"message", request_.message},
                      {"images", std::move(images)},
                      {"history", std::move(history)},
                      {"system_prompt", options_.system_prompt},
                      {"tools", agent_.tools_->Names()},
                      {"options", OptionsJson(options_)}};

  messages_.push_back(Message::System(options_.system_prompt));
  for (const auto& m : request_.history) {
    if (m.role != Role::kSystem) messages_.push_back(m);
  }
  Message user = Message::User(request_.message);
  user.images = request_.images;
  messages_.push_back(std::move(user));

  // A checkpoint before anything is asked: a store knows the run (its id,
  // its input) from the start, and a run stopped during its first model call
  // resumes from here. Before run_started, so an event log that shows the
  // start implies the checkpoint was taken.
  Checkpoint(StepOutcome::kContinue);
  Emit({.type = EventType::kRunStarted,
        .data = Json{{"model", trace_.model},
                     {"protocol", trace_.protocol},
                     {"tools", agent_.tools_->Names()},
                     {"max_steps", options_.max_steps}}});
}

Agent::Loop::StepOutcome Agent::Loop::Step() {
  const auto step_start = SteadyClock::now();
  StepRecord rec;
  rec.index = step_;
  if (!retry_note_.empty()) rec.notes.push_back(std::exchange(retry_note_, std::string()));
  if (step_ > 1 && !options_.next_step_prompt.empty()) {
    messages_.push_back(Message::User(options_.next_step_prompt));
  }

  // think(): one model call with the tools offered.
  ModelRequest request = BuildRequest(/*with_tools=*/true);
  Json request_data{{"messages", request.messages.size()}, {"tools", request.tools.size()}, {"fallback", false}};
  if (!offer_sel_.all) {  // the tools did not all fit the window: which were offered, and why
    rec.notes.push_back(offer_sel_.Summary());
    request_data["tool_selection"] = Json{{"total", offer_sel_.total}, {"budget", offer_sel_.budget},
                                          {"tokens", offer_sel_.tokens}};
  }
  Emit({.type = EventType::kModelRequest, .step = step_, .data = std::move(request_data)});
  const auto model_start = SteadyClock::now();
  Result<ModelResponse> response = SafeComplete(*agent_.model_, request, CallContext(deadline_, step_));
  ReturnHistory(request);
  rec.model_ms = MsSince(model_start);
  if (!response.ok()) {
    model_error_ = response.status().ToString();
    rec.model_error = model_error_;
    Emit({.type = EventType::kError, .step = step_, .text = model_error_});
    rec.elapsed_ms = MsSince(step_start);
    trace_.steps.push_back(std::move(rec));
    Checkpoint(StepOutcome::kModelFailed);
    return StepOutcome::kModelFailed;
  }
  RecordResponse(*response, rec);
  if (Log().should_log(spdlog::level::debug)) {
    Log().debug("run {} step {}: model call took {:.1f} ms, {} attempt(s), {} tokens, finish_reason {}",
                  trace_.run_id, step_, rec.model_ms, rec.attempts, rec.usage.total_tokens,
                  rec.finish_reason.empty() ? "(none)" : rec.finish_reason);
  }

  Message assistant = std::move(response->message);
  assistant.role = Role::kAssistant;
  EnsureUniqueCallIds(assistant.tool_calls);
  rec.assistant = assistant;
  {
    Json calls = Json::array();
    for (const auto& c : assistant.tool_calls) calls.push_back(ToJson(c));
    Emit({.type = EventType::kAssistantMessage, .step = step_, .text = assistant.content,
          .data = Json{{"tool_calls", std::move(calls)}, {"parse_error", rec.parse_error}}});
  }

  if (!rec.parse_error.empty()) {
    // Bad model output is an observation (invariant 2): the model sees what
    // was wrong and tries again. Its unusable text stays in the history so it
    // can see what it wrote; calls it did not make are not invented.
    if (!assistant.content.empty()) messages_.push_back(Message::Assistant(assistant.content));
    messages_.push_back(Message::User("Error: your last reply could not be used. " + rec.parse_error));
    rec.notes.push_back("parse error shown to the model");
    StepOutcome outcome = AfterTools(assistant, rec);
    return EndStep(std::move(rec), step_start, outcome);
  }
  if (!assistant.has_tool_calls()) {
    // No tool call: the model has answered (seed 000, step 2), unless the
    // answer check sends it back.
    std::string feedback;
    Json fields = response->final_fields;
    bool taken = TakeAnswer(assistant.content, fields, &feedback);
    if (taken && agent_.answer_spec_) taken = TakeAnswerBlock(assistant.content, &fields, &feedback);
    messages_.push_back(assistant);
    if (taken) {
      answer_ = assistant.content;
      final_fields_ = std::move(fields);
      return EndStep(std::move(rec), step_start, StepOutcome::kAnswered);
    }
    messages_.push_back(Message::User(feedback));
    rec.notes.push_back("answer sent back by the answer check");
    return EndStep(std::move(rec), step_start, AfterTools(assistant, rec));
  }
  messages_.push_back(assistant);
  // A checkpoint before the turn's calls start: a run stopped while they run
  // resumes this turn (the same calls, not a new model reply), and knows
  // which calls were in flight (those without a result).
  if (options_.on_checkpoint) CheckpointInTurn(assistant, rec, step_start, {});
  return Act(assistant, std::move(rec), step_start, {});
}

Agent::Loop::StepOutcome Agent::Loop::Act(Message assistant, StepRecord rec, SteadyClock::time_point step_start,
                                          std::map<size_t, ToolResultRecord> finished) {
  // Human approval first: nothing of the turn runs while a call waits.
  if (options_.needs_approval) {
    awaiting_ = DecideApprovals(assistant, rec, finished);
    if (!awaiting_.empty()) {
      awaiting_reason_ = "waiting for approval of " + std::to_string(awaiting_.size()) + " tool call(s): ";
      for (size_t i = 0; i < assistant.tool_calls.size(); ++i) {
        const ToolCall& call = assistant.tool_calls[i];
        if (std::find(awaiting_.begin(), awaiting_.end(), call.id) == awaiting_.end()) continue;
        awaiting_reason_ += (awaiting_reason_.back() == ' ' ? "" : ", ") + call.name + " (" + call.id + ")";
        Emit({.type = EventType::kApproval, .step = step_, .tool_name = call.name, .tool_call_id = call.id,
              .data = Json{{"decision", "awaiting"}}});
      }
      // The pause is a checkpoint, and the result carries it too: the
      // caller resumes from it with the decisions.
      paused_ = InTurnState(assistant, rec, step_start, finished);
      if (options_.on_checkpoint) {
        try {
          options_.on_checkpoint(*paused_);
        } catch (...) {
        }
      }
      return StepOutcome::kAwaitingApproval;
    }
    if (!approvals_.empty()) {
      // Decided: from here the calls may be in flight, so a stop now must
      // not replay the decisions as if nothing had started.
      approvals_.clear();
      if (options_.on_checkpoint) CheckpointInTurn(assistant, rec, step_start, finished);
    }
  }
  // act(): run the turn's calls; one result message per call, in order.
  ToolTurnOptions turn{.run_deadline = deadline_, .tool_timeout = options_.tool_timeout,
                       .run_cancel = agent_.cancel_, .step = step_,
                       .calls_allowed = options_.tool_call_budget > 0
                                            ? std::max(0, options_.tool_call_budget - tool_calls_made_)
                                            : -1,
                       .uncounted = options_.finish_tools};
  if (options_.on_checkpoint) {
    turn.on_result = [&](size_t index, const ToolResultRecord& record) {
      finished[index] = record;
      CheckpointInTurn(assistant, rec, step_start, finished);
    };
  }
  turn.finished = finished;
  turn.trace_parent = otel::CurrentContext();  // the step's span: the pool's threads have no current one
  ToolTurnResult done = RunToolTurn(offer_.registry(), assistant.tool_calls, turn, pool_,
                                    [this](Event e) { Emit(std::move(e)); });
  tool_calls_made_ += done.calls_run;
  rec.tool_results = std::move(done.records);
  if (done.cut) {
    // Stopped while calls were in flight: the step does not end and no
    // checkpoint takes it (the last one, inside the turn, holds the calls
    // that finished). The trace shows it as it was cut; a store keeps its
    // completed steps only up to the checkpoint, so a resume redoes it.
    rec.notes.push_back("cut short by the run's stop: a resume runs the unfinished calls again");
    rec.elapsed_ms = MsSince(step_start);
    trace_.steps.push_back(std::move(rec));
    return StepOutcome::kCut;
  }
  // A successful finishing tool ends the run with its answer, unless the
  // answer check turns its result into the error the model sees.
  for (size_t i = 0; i < assistant.tool_calls.size(); ++i) {
    const ToolCall& call = assistant.tool_calls[i];
    ToolResultRecord& r = rec.tool_results[i];
    if (!r.ok || std::find(options_.finish_tools.begin(), options_.finish_tools.end(), call.name) ==
                     options_.finish_tools.end()) {
      continue;
    }
    Json args = ParseJson(call.arguments).value_or(Json::object());
    std::string answer = args.contains("answer") && args["answer"].is_string() ? args["answer"].get<std::string>()
                                                                               : r.content;
    std::string feedback;
    if (!TakeAnswer(answer, args, &feedback)) {
      r.ok = false;
      r.content.clear();
      r.error = feedback;
      rec.notes.push_back("answer sent back by the answer check");
      break;
    }
    answer_ = std::move(answer);
    final_fields_ = std::move(args);
    break;
  }
  for (const ToolResultRecord& r : rec.tool_results) {
    messages_.push_back(Message::Tool(r.tool_call_id, r.name, r.ok ? r.content : "Error: " + r.error));
  }
  StepOutcome outcome = answer_.empty() ? AfterTools(assistant, rec) : StepOutcome::kAnswered;
  return EndStep(std::move(rec), step_start, outcome);
}

Agent::Loop::StepOutcome Agent::Loop::EndStep(StepRecord rec, SteadyClock::time_point step_start,
                                              StepOutcome outcome) {
  rec.elapsed_ms = MsSince(step_start);
  const double elapsed_ms = rec.elapsed_ms;
  const Usage usage = rec.usage;
  trace_.steps.push_back(std::move(rec));
  // Checkpoint first: a step reported finished is one a store has kept.
  Checkpoint(outcome);
  Emit({.type = EventType::kStepFinished, .step = step_, .elapsed_ms = elapsed_ms,
        .data = Json{{"usage", ToJson(usage)}}});
  return outcome;
}

bool Agent::Loop::TakeAnswer(const std::string& answer, const Json& fields, std::string* feedback) {
  if (!options_.check_answer) {  // nothing to check: this answer stands (an earlier refusal no longer does)
    answer_accepted_ = true;
    answer_feedback_.clear();
    return true;
  }
  ++answers_checked_;
  AnswerCheck check;
  try {
    check = options_.check_answer(answer, fields);
  } catch (const std::exception& e) {
    check = {false, std::string("the answer check failed: ") + Preview(e.what(), 200)};
  }
  answer_accepted_ = check.accepted;
  answer_feedback_ = check.accepted ? "" : check.feedback;
  if (check.accepted) return true;
  // Another try only while one is allowed and a step and time remain for it.
  if (!MayRetryAnswer()) return true;
  ++answer_rejections_;
  *feedback = check.feedback.empty() ? "Error: the answer was not accepted; check it and answer again."
                                     : check.feedback;
  return false;
}

bool Agent::Loop::TakeAnswerBlock(const std::string& text, Json* fields, std::string* feedback) {
  const ToolSpec& tool = *agent_.answer_spec_;
  *fields = ReadFinalBlock(text, tool);
  Result<Json> valid = agent_.tools_->ValidateArguments(tool.name, DumpJson(*fields));
  if (valid.ok()) {
    *fields = std::move(valid).value();
    return true;
  }
  answer_accepted_ = false;
  answer_feedback_ = "the answer is not valid " + tool.name + " arguments: " + valid.status().message();
  if (!MayRetryAnswer()) return true;
  ++answer_rejections_;
  *feedback = "Error: your answer could not be read as the arguments of " + tool.name + ": " +
              valid.status().message() + ". Finish by calling " + tool.name + " with all its required arguments.";
  return false;
}


// After a turn that did not answer: loop detection, then the budgets.
Agent::Loop::StepOutcome Agent::Loop::AfterTools(const Message& assistant, StepRecord& rec) {
  std::string what;
  switch (loop_detector_.Observe(assistant, &what)) {
    case LoopDetector::Verdict::kOk:
      break;
    case LoopDetector::Verdict::kNudge:
      messages_.push_back(Message::User(LoopNudgeMessage(what, options_.stuck_threshold)));
      rec.notes.push_back("loop nudge: repeated " + what);
      break;
    case LoopDetector::Verdict::kStuck:
      rec.notes.push_back("stuck: repeated " + what + " after a nudge");
      return Limit(RunStatus::kStuck, "the agent kept repeating " + what);
  }
  if (options_.token_budget > 0 && usage_.total_tokens >= options_.token_budget) {
    return Limit(RunStatus::kBudget, "the token budget (" + std::to_string(options_.token_budget) +
                                         ") was used up");
  }
  if (options_.tool_call_budget > 0 && tool_calls_made_ >= options_.tool_call_budget) {
    return Limit(RunStatus::kBudget, "the tool-call budget (" +
                                         std::to_string(options_.tool_call_budget) + ") was used up");
  }
  return StepOutcome::kContinue;
}

void Agent::Loop::Conclude(RunStatus status, const std::string& reason, bool synthesize) {
  if (!trace_.steps.empty()) trace_.steps.back().notes.push_back("run stopped: " + reason);
  if (synthesize) Synthesize(reason);
  if (answer_.empty()) {
    // Invariant 3: every run ends with an answer, even when no model could give one.
    std::string tools;
    for (const auto& s : trace_.steps) {
      for (const auto& r : s.tool_results) {
        tools += (tools.empty() ? "" : ", ") + r.name + (r.ok ? " (ok)" : " (error)");
      }
    }
    answer_ = "No final answer: the run stopped with status '" + std::string(RunStatusName(status)) +
              "' because " + reason + "." +
              (tools.empty() ? " No tool was run." : " Tools run: " + tools + ".");
  }
}

// Fallback synthesis: one call without tools for the best answer so far.
void Agent::Loop::Synthesize(const std::string& reason) {
  const auto start = SteadyClock::now();
  messages_.push_back(Message::User(FallbackPrompt(reason)));
  StepRecord rec;
  rec.index = step_ + 1;
  rec.kind = "fallback";
  ModelRequest request = BuildRequest(/*with_tools=*/false);
  Emit({.type = EventType::kModelRequest, .step = rec.index,
        .data = Json{{"messages", request.messages.size()}, {"tools", 0}, {"fallback", true}}});
  const Deadline deadline = Deadline::Earliest(hard_deadline_, Deadline::In(options_.fallback_timeout));
  Result<ModelResponse> response = SafeComplete(*agent_.model_, request, CallContext(deadline, rec.index));
  ReturnHistory(request);
  rec.model_ms = MsSince(start);
  if (!response.ok()) {
    rec.model_error = response.status().ToString();
  } else {
    RecordResponse(*response, rec);
    // Calls made despite "no tools" are recorded but never run or sent back.
    rec.assistant = response->message;
    std::string text = response->message.content;
    if (!response->parse_error.empty() && !response->raw_text.empty()) text = response->raw_text;
    if (!text.empty()) {
      answer_ = text;
      final_fields_ = response->final_fields;
      if (agent_.answer_spec_) {
        // The last word is not sent back: read as the answer tool's
        // arguments, kept as read, and marked when they do not validate.
        final_fields_ = ReadFinalBlock(text, *agent_.answer_spec_);
        Result<Json> valid = agent_.tools_->ValidateArguments(agent_.answer_spec_->name, DumpJson(final_fields_));
        if (valid.ok()) {
          final_fields_ = std::move(valid).value();
        } else {
          answer_accepted_ = false;
          answer_feedback_ = "the answer is not valid " + agent_.answer_spec_->name +
                             " arguments: " + valid.status().message();
        }
      }
      messages_.push_back(Message::Assistant(text));
    }
  }
  rec.elapsed_ms = MsSince(start);
  trace_.steps.push_back(std::move(rec));
}

void Agent::Loop::RecordResponse(const ModelResponse& response, StepRecord& rec) {
  usage_ += response.usage;
  rec.usage = response.usage;
  rec.finish_reason = response.finish_reason;
  rec.raw_text = response.raw_text;
  rec.parse_error = response.parse_error;
  rec.attempts = response.attempts;
}

ModelRequest Agent::Loop::BuildRequest(bool with_tools) {
  ModelRequest request;
  if (options_.max_history_messages == 0) {
    request.messages = std::move(messages_);  // nothing reads messages_ until ReturnHistory
    request.conversation_id = conversation_id_;  // messages_ only grows at its end
  } else {
    request.messages = WindowMessages(messages_, options_.max_history_messages);
  }
  request.max_tokens = options_.max_tokens;
  offer_sel_ = ToolSelection();
  if (with_tools) {
    const int64_t window = ModelContextWindow(*agent_.model_, {.deadline = deadline_, .cancel = agent_.cancel_});
    offer_sel_ = window > 0 ? offer_.Select(request.messages, window, ReplyReserve(request, window)) : ToolSelection();
    request.tools = offer_sel_.all ? agent_.tools_->SharedSpecs() : ToolSpecList(offer_sel_.specs);
  }
  request.answer_tool = agent_.answer_spec_;
  if (!request.tools.empty()) request.tool_choice = options_.tool_choice;
  request.temperature = options_.temperature;
  request.stream = options_.stream;
  return request;
}

void Agent::Loop::ReturnHistory(ModelRequest& request) {
  if (options_.max_history_messages == 0) messages_ = std::move(request.messages);
}

ModelCallContext Agent::Loop::CallContext(Deadline deadline, int step) {
  ModelCallContext ctx;
  ctx.deadline = deadline;
  ctx.cancel = agent_.cancel_;
  ctx.traceparent = otel::CurrentTraceparent();  // the step's span (the run's, for the fallback call)
  if (options_.on_event) {
    ctx.on_text_delta = [this, step](std::string_view delta) {
      Emit({.type = EventType::kModelDelta, .step = step, .text = std::string(delta)});
    };
  }
  return ctx;
}

void Agent::Loop::Emit(Event event) {
  LogEvent(trace_.run_id, event);
  if (!options_.on_event) return;
  std::lock_guard<std::mutex> lock(event_mu_);
  try {
    options_.on_event(event);
  } catch (...) {
    // A faulty sink must not break the run.
  }
}

otel::SpanContext Agent::Loop::StartRunSpan() {
  otel::SpanContext remote;
  if (!options_.traceparent.empty()) {
    if (std::optional<otel::SpanContext> parsed = otel::ParseTraceparent(options_.traceparent)) remote = *parsed;
  }
  const std::string name = options_.agent_name.empty() ? "medreact" : options_.agent_name;
  run_span_ = otel::StartSpan("invoke_agent " + name, otel::SpanKind::kInternal, remote);
  if (!run_span_.active()) return remote.valid() ? remote : otel::CurrentContext();
  run_span_.Set("gen_ai.operation.name", "invoke_agent");
  run_span_.Set("gen_ai.agent.name", name);
  run_span_.Set("gen_ai.request.model", agent_.model_->name());
  run_span_.Set("medreact.model.protocol", agent_.model_->protocol());
  return run_span_.context();
}

void Agent::Loop::EndRunSpan(RunStatus status) {
  if (!run_span_.active()) return;
  run_span_.Set("medreact.run.id", trace_.run_id);
  run_span_.Set("medreact.run.status", RunStatusName(status));
  run_span_.Set("medreact.run.steps", step_);
  run_span_.Set("medreact.run.tool_calls", tool_calls_made_);
  run_span_.Set("gen_ai.usage.input_tokens", usage_.prompt_tokens);
  run_span_.Set("gen_ai.usage.output_tokens", usage_.completion_tokens);
  // Its reason is not the description: it may quote a server's error text.
  if (status == RunStatus::kError || status == RunStatus::kTimeout) {
    run_span_.SetError(RunStatusName(status), std::string("the run ended with status ") + RunStatusName(status));
  }
  run_span_.End();
}

Agent::Loop::StepOutcome Agent::Loop::TracedStep() {
  otel::Span span = otel::StartSpan("step", otel::SpanKind::kInternal);
  if (!span.active()) return Step();
  span.Set("medreact.step.index", step_);
  StepOutcome outcome;
  {
    const otel::ScopedContext scope(span.context());
    outcome = Step();
  }
  const char* name = "continue";
  switch (outcome) {
    case StepOutcome::kContinue: break;
    case StepOutcome::kAnswered: name = "answered"; break;
    case StepOutcome::kModelFailed: name = "model_failed"; break;
    case StepOutcome::kLimit: name = "limit"; break;
    case StepOutcome::kAwaitingApproval: name = "awaiting_approval"; break;
    case StepOutcome::kCut: name = "cut"; break;
  }
  span.Set("medreact.step.outcome", name);
  if (outcome == StepOutcome::kModelFailed) span.SetError("model_failed", "the step's model call failed");
  return outcome;
}

}  // namespace medreact
