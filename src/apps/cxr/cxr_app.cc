#include "apps/cxr/cxr_app.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <utility>

#include "apps/common/planner_support.h"
#include "apps/cxr/cxr_planner.h"
#include "core/data_dir.h"
#include "core/file_io.h"
#include "core/time_util.h"
#include "engine/agent_support.h"
#include "engine/thread_pool.h"
#include "engine/tool_turn.h"
#include "medreact/graph.h"
#include "medreact/run_state.h"
#include "medreact/tool_registry.h"

namespace medreact {
namespace {

using SteadyClock = std::chrono::steady_clock;

// An image part's URL in the graph's state: the image by id, resolved to the
// store's data URL only on the wire.
constexpr char kImageScheme[] = "medreact-image:";

std::string ImagesLine(const imaging::ImageStore& store, const CxrTurn& turn) {
  std::string out;
  for (const std::string& id : turn.image_ids) {
    auto image = store.Get(id);
    if (!image.ok()) continue;
    const imaging::StoredImage& s = **image;
    out += "\n- " + s.id + ": " + s.label + " (" + imaging::ImageFormatName(s.source_format) + ", " +
           std::to_string(s.original_width) + " x " + std::to_string(s.original_height) + " px";
    if (s.raster.width != s.original_width) {
      out += ", shown at " + std::to_string(s.raster.width) + " x " + std::to_string(s.raster.height) + " px";
    }
    out += ")";
  }
  if (!out.empty()) out = "\n\nImages (pass these ids to the tools; coordinates are in the shown pixels):" + out;
  if (!turn.image_errors.empty()) {
    out += "\n\nFiles that could not be read:";
    for (const auto& [path, why] : turn.image_errors) out += "\n- " + path + ": " + why;
  }
  return out;
}

class CxrRun {
 public:
  CxrRun(const CxrTurn& turn, const CxrConfig& config, const RunState* resume)
      : turn_(turn),
        config_(config),
        resume_(resume),
        store_(config.tools.store),
        pool_(std::max(1, config.max_parallel_tools)),
        deadline_(config.timeout.count() > 0 ? Deadline::In(config.timeout) : Deadline::Never()) {}

  CxrOutcome Run();

 private:
  // last_call: the fallback call without tools, asked to stop for `why`.
  Result<Json> Reason(const Json& state, const CancellationToken& cancel, bool last_call, const std::string& why = "");
  Result<Json> Act(const Json& state, const CancellationToken& cancel);
  std::vector<Message> Conversation(const Json& state) const;
  ModelRequest Request(const std::vector<Message>& conversation, bool with_tools) const;
  void Emit(Event e) const {
    LogEvent(trace_.run_id, e);
    if (config_.on_event) config_.on_event(e);
  }
  Json ResultJson(const std::vector<Message>& conversation, const CxrOutcome& out) const;
  // A new run's graph state (the history, then the question with its
  // images by id), its trace's input and run_started; checkpointed.
  Json FirstState();
  // config.on_checkpoint with the graph's state, the node it goes on with
  // and the graph's steps so far. next == "act": in the turn (its step's
  // record is the trace's last; `results` the calls done so far).
  void Checkpoint(const Json& state, const std::string& next, int graph_steps,
                  const std::map<size_t, ToolResultRecord>& results = {}) const;
  // The resumed run's graph state; sets what the run keeps beside it.
  // InvalidArgument when the checkpoint is not a cxr graph's.
  Result<Json> Restore(const RunState& state);
  // The approval rules on a turn's calls not done yet: decisions applied
  // (a rejection becomes the call's result, an edit its arguments); the
  // ids of those still waiting for a person.
  std::vector<std::string> Decide(std::vector<ToolCall>& calls, StepRecord& rec,
                                  std::map<size_t, ToolResultRecord>& finished);

  const CxrTurn& turn_;
  const CxrConfig& config_;
  const RunState* resume_;  // null: a new run
  std::shared_ptr<imaging::ImageStore> store_;
  std::shared_ptr<ToolRegistry> registry_ = std::make_shared<ToolRegistry>();
  std::string system_prompt_;
  ThreadPool pool_;
  Deadline deadline_;
  uint64_t conversation_id_ = NextConversationId();
  RunTrace trace_;
  int model_turns_ = 0;
  bool model_answered_ = false;
  std::string model_error_;
  SteadyClock::time_point started_ = SteadyClock::now();
  int graph_steps_ = 0;                                // the graph's steps at its last checkpoint
  std::map<size_t, ToolResultRecord> resumed_results_;  // a resumed turn's calls already done
  std::map<std::string, ApprovalDecision> approvals_;   // decisions on the current turn's calls
  std::vector<std::string> awaiting_;                  // the calls that wait for a person: the run pauses
};

void CxrRun::Checkpoint(const Json& state, const std::string& next, int graph_steps,
                        const std::map<size_t, ToolResultRecord>& results) const {
  if (!config_.on_checkpoint) return;
  RunState s;
  s.messages.push_back(Message::System(system_prompt_));
  for (Message& m : Conversation(state)) s.messages.push_back(std::move(m));
  s.trace = trace_;
  s.step = static_cast<int>(trace_.steps.size());
  if (next == "act" && !trace_.steps.empty() && s.messages.size() > 1 && !s.messages.back().tool_calls.empty()) {
    // In the turn: its assistant message is the conversation's last, its
    // step record is not complete yet (the store keeps completed steps).
    s.phase = RunState::Phase::kInTurn;
    s.turn = s.messages.back();
    s.turn_record = s.trace.steps.back();
    s.trace.steps.pop_back();
    s.turn_results = results;
    s.approvals = approvals_;
    s.awaiting_approval = awaiting_;
  }
  s.usage = trace_.usage;
  s.elapsed_ms = MsSince(started_);
  Json rest = state.is_object() ? state : Json::object();
  rest.erase("messages");  // in s.messages
  s.app = Json{{"graph", {{"next", next}, {"steps", graph_steps}, {"state", std::move(rest)}}}};
  try {
    config_.on_checkpoint(s);
  } catch (...) {
    // A failing store must not break the run; the store reports its own errors.
  }
}

Result<Json> CxrRun::Restore(const RunState& state) {
  const Json graph = state.app.is_object() ? state.app.value("graph", Json()) : Json();
  if (!graph.is_object() || !graph["next"].is_string() || !graph["steps"].is_number_integer()) {
    return Status::InvalidArgument("the checkpoint is not a chest X-ray run's (no graph position in it)");
  }
  if (state.messages.empty() || state.messages.front().role != Role::kSystem) {
    return Status::InvalidArgument("the checkpoint's conversation does not start with the system prompt");
  }
  system_prompt_ = state.messages.front().content;
  trace_ = state.trace;
  graph_steps_ = static_cast<int>(graph["steps"].get<int64_t>());
  Json out = graph.value("state", Json::object());
  if (!out.is_object()) out = Json::object();
  model_turns_ = static_cast<int>(out.value("model_turns", 0));
  Json messages = Json::array();
  for (size_t i = 1; i < state.messages.size(); ++i) messages.push_back(MessageToStateJson(state.messages[i]));
  out["messages"] = std::move(messages);
  if (state.phase == RunState::Phase::kInTurn) {
    trace_.steps.push_back(state.turn_record);  // the step being acted on
    resumed_results_ = state.turn_results;
    approvals_ = state.approvals;
  }
  for (const StepRecord& step : trace_.steps) {
    model_answered_ = model_answered_ || !step.assistant.content.empty() || !step.assistant.tool_calls.empty();
  }
  // The time used before counts against the run's limit.
  started_ = SteadyClock::now() - std::chrono::duration_cast<SteadyClock::duration>(
                                      std::chrono::duration<double, std::milli>(state.elapsed_ms));
  if (config_.timeout.count() > 0) {
    const auto left = config_.timeout - Millis(static_cast<int64_t>(state.elapsed_ms));
    deadline_ = Deadline::In(std::max(left, Millis(1)));
  }
  return out;
}

std::vector<std::string> CxrRun::Decide(std::vector<ToolCall>& calls, StepRecord& rec,
                                        std::map<size_t, ToolResultRecord>& finished) {
  auto [waiting, decided] = SplitForApproval(calls, *registry_, finished, /*never_held=*/{}, config_.needs_approval,
                                             config_.approve, approvals_);
  if (!waiting.empty()) {  // nothing applied while a call still waits
    for (const ToolCall& call : calls) {
      if (std::find(waiting.begin(), waiting.end(), call.id) == waiting.end()) continue;
      Emit({.type = EventType::kApproval, .step = rec.index, .tool_name = call.name, .tool_call_id = call.id,
            .data = Json{{"decision", "awaiting"}}});
    }
    return waiting;
  }
  for (size_t i : decided) {
    ToolCall& call = calls[i];
    const ApprovalDecision& d = approvals_.at(call.id);
    const std::string who = d.reviewer.empty() ? "" : " by " + d.reviewer;
    Json data{{"decision", !d.approved ? "rejected" : d.arguments.empty() ? "approved" : "edited"}};
    if (!d.reviewer.empty()) data["reviewer"] = d.reviewer;
    if (!d.decided_at.empty()) data["decided_at"] = d.decided_at;
    if (!d.approved && !d.reason.empty()) data["reason"] = d.reason;
    Emit({.type = EventType::kApproval, .step = rec.index, .tool_name = call.name, .tool_call_id = call.id,
          .data = std::move(data)});
    if (!d.approved) {
      finished[i] = ToolResultRecord{.tool_call_id = call.id,
                                     .name = call.name,
                                     .ok = false,
                                     .error = "the reviewer did not approve this call" +
                                              (d.reason.empty() ? std::string() : ": " + d.reason)};
      rec.notes.push_back("call " + call.id + " (" + call.name + ") rejected" + who);
      continue;
    }
    rec.notes.push_back("call " + call.id + " (" + call.name + ") approved" + who +
                        (d.arguments.empty() ? "" : "; run with the reviewer's arguments, the model's were " +
                                                        call.arguments));
    if (!d.arguments.empty()) {
      call.arguments = d.arguments;
      if (i < rec.assistant.tool_calls.size()) rec.assistant.tool_calls[i].arguments = d.arguments;
    }
  }
  return waiting;
}

std::vector<Message> CxrRun::Conversation(const Json& state) const {
  std::vector<Message> out;
  for (const Json& m : state.value("messages", Json::array())) {
    if (Result<Message> message = MessageFromStateJson(m); message.ok()) out.push_back(std::move(*message));
  }
  return out;
}

ModelRequest CxrRun::Request(const std::vector<Message>& conversation, bool with_tools) const {
  ModelRequest request;
  request.messages.reserve(conversation.size() + 1);
  request.messages.push_back(Message::System(system_prompt_));
  for (const Message& m : conversation) {
    Message copy = m;
    for (ContentPart& part : copy.images) {
      if (part.kind != ContentPart::Kind::kImage || part.image_url.rfind(kImageScheme, 0) != 0) continue;
      if (auto image = store_->Get(part.image_url.substr(sizeof(kImageScheme) - 1)); image.ok()) {
        part.text = (*image)->id;  // not sent: names the image for planners and traces
        part.image_url = (*image)->data_url;
      }
    }
    request.messages.push_back(std::move(copy));
  }
  if (with_tools) {
    request.tools = registry_->SharedSpecs();
    request.tool_choice = "auto";
  }
  request.conversation_id = conversation_id_;
  request.stream = config_.stream;
  return request;
}

Result<Json> CxrRun::Reason(const Json& state, const CancellationToken& cancel, bool last_call,
                            const std::string& why) {
  const auto start = SteadyClock::now();
  std::vector<Message> conversation = Conversation(state);
  if (last_call) conversation.push_back(Message::User(FallbackPrompt(why)));
  ModelRequest request = Request(conversation, !last_call);
  if (last_call) request.conversation_id = 0;
  StepRecord rec;
  rec.index = static_cast<int>(trace_.steps.size()) + 1;
  rec.kind = last_call ? "fallback" : "step";
  Emit({.type = EventType::kModelRequest,
        .step = rec.index,
        .data = Json{{"messages", request.messages.size()}, {"tools", request.tools.size()}, {"fallback", last_call}}});
  ModelCallContext ctx{.deadline = deadline_, .cancel = cancel};
  if (config_.stream) {
    ctx.on_text_delta = [this, step = rec.index](std::string_view delta) {
      Emit({.type = EventType::kModelDelta, .step = step, .text = std::string(delta)});
    };
  }
  Result<ModelResponse> response = SafeComplete(*config_.model, request, ctx);
  rec.model_ms = MsSince(start);
  ++model_turns_;
  if (!response.ok()) {
    rec.model_error = response.status().ToString();
    rec.elapsed_ms = MsSince(start);
    trace_.steps.push_back(std::move(rec));
    model_error_ = response.status().ToString();
    Emit({.type = EventType::kError, .step = static_cast<int>(trace_.steps.size()), .text = model_error_});
    return response.status().WithContext("the model");
  }
  model_answered_ = true;
  trace_.usage += response->usage;
  rec.usage = response->usage;
  rec.assistant = response->message;
  rec.raw_text = response->raw_text;
  rec.finish_reason = response->finish_reason;
  rec.parse_error = response->parse_error;
  Message assistant = response->message;
  assistant.role = Role::kAssistant;
  if (last_call) assistant.tool_calls.clear();
  EnsureUniqueCallIds(assistant.tool_calls);
  Json calls = Json::array();
  for (const ToolCall& call : assistant.tool_calls) calls.push_back(ToJson(call));
  Emit({.type = EventType::kAssistantMessage,
        .step = rec.index,
        .text = assistant.content,
        .data = Json{{"tool_calls", std::move(calls)}, {"parse_error", response->parse_error}}});
  Json update = Json::array();
  if (last_call) update.push_back(MessageToStateJson(conversation.back()));
  update.push_back(MessageToStateJson(assistant));
  if (!response->parse_error.empty() && assistant.tool_calls.empty()) {
    // An unreadable reply: the model is told why and asked again (the edge
    // routes a trailing user message back to reason).
    update.push_back(MessageToStateJson(Message::User("Your last reply could not be read: " + response->parse_error +
                                                      ". Reply again, calling tools or answering.")));
  }
  rec.elapsed_ms = MsSince(start);
  if (assistant.tool_calls.empty()) {
    Emit({.type = EventType::kStepFinished,
          .step = rec.index,
          .elapsed_ms = rec.elapsed_ms,
          .data = Json{{"usage", ToJson(rec.usage)}}});
  }
  trace_.steps.push_back(std::move(rec));
  // The graph's checkpoint follows when the run goes on (on_checkpoint).
  return Json{{"messages", std::move(update)}, {"model_turns", model_turns_}};
}

Result<Json> CxrRun::Act(const Json& state, const CancellationToken& cancel) {
  const auto start = SteadyClock::now();
  std::vector<Message> conversation = Conversation(state);
  if (conversation.empty() || conversation.back().tool_calls.empty()) return Json(nullptr);
  StepRecord& rec = trace_.steps.back();
  // A resumed turn: the calls done before the stop are not run again.
  std::map<size_t, ToolResultRecord> finished = std::exchange(resumed_results_, {});
  std::vector<ToolCall> calls = conversation.back().tool_calls;
  awaiting_ = Decide(calls, rec, finished);
  if (!awaiting_.empty()) {
    Checkpoint(state, "act", graph_steps_, finished);  // paused: the decisions are taken elsewhere
    return Status::FailedPrecondition("tool calls wait for approval");
  }
  ToolTurnOptions options{.run_deadline = deadline_,
                          .tool_timeout = config_.tool_timeout,
                          .run_cancel = cancel,
                          .step = rec.index,
                          .finished = finished};
  // A checkpoint after every call that comes in: a call done is never run twice.
  std::map<size_t, ToolResultRecord> done_so_far = finished;
  options.on_result = [&](size_t index, const ToolResultRecord& record) {
    if (cancel.cancelled()) return;  // a "cancelled" result is not a call done
    done_so_far[index] = record;
    Checkpoint(state, "act", graph_steps_, done_so_far);
  };
  ToolTurnResult done = RunToolTurn(registry_, calls, options, pool_, [this](Event e) { Emit(std::move(e)); });
  if (cancel.cancelled()) {
    // Stopped in the turn: its last checkpoint has the calls that were done;
    // a resume runs the others.
    for (ToolResultRecord& r : done.records) rec.tool_results.push_back(std::move(r));
    return Status::Cancelled("cancelled during the tool calls");
  }
  approvals_.clear();
  Json update = Json::array();
  for (ToolResultRecord& r : done.records) {
    update.push_back(MessageToStateJson(Message::Tool(r.tool_call_id, r.name, r.ok ? r.content : "Error: " + r.error)));
    rec.tool_results.push_back(std::move(r));
  }
  rec.elapsed_ms += MsSince(start);
  Emit({.type = EventType::kStepFinished,
        .step = rec.index,
        .elapsed_ms = rec.elapsed_ms,
        .data = Json{{"usage", ToJson(rec.usage)}}});
  return Json{{"messages", std::move(update)}};  // the graph's checkpoint follows
}

// The conditional edge (seed 000 §6, step 2): does the last message request tools?
std::string Route(const Json& state) {
  const Json& messages = state["messages"];
  if (!messages.is_array() || messages.empty()) return std::string(kEnd);
  const Json& last = messages.back();
  if (last.value("role", std::string()) == "user") return "reason";  // a correction was appended
  if (last.contains("tool_calls") && last["tool_calls"].is_array() && !last["tool_calls"].empty()) return "act";
  return std::string(kEnd);
}

Json CxrRun::FirstState() {
  Json images = Json::array();
  for (const auto& image : store_->All()) images.push_back(image->Describe());
  Json offered = Json::array();
  for (const auto& t : imaging::ImagingToolsStatus(config_.tools)) {
    offered.push_back({{"tool", t.name}, {"offered", t.offered}, {"why", t.reason}});
  }
  trace_.input = Json{{"message", turn_.question},
                      {"images", images},
                      {"image_errors", Json::array()},
                      {"history_messages", turn_.history.size()},
                      {"system_prompt", system_prompt_},
                      {"tools", registry_->Names()},
                      {"tool_status", offered},
                      {"options", {{"max_steps", config_.max_steps}, {"timeout_ms", config_.timeout.count()}}}};
  for (const auto& [path, why] : turn_.image_errors)
    trace_.input["image_errors"].push_back({{"file", path}, {"error", why}});
  Emit({.type = EventType::kRunStarted,
        .data = Json{{"model", trace_.model},
                     {"protocol", trace_.protocol},
                     {"tools", registry_->Names()},
                     {"max_steps", config_.max_steps}}});

  // The memory (seed 000 §2.4): earlier turns, then this question with its images by id.
  Json messages = Json::array();
  for (const Message& m : turn_.history) {
    if (m.role != Role::kSystem) messages.push_back(MessageToStateJson(m));
  }
  Message user = Message::User(turn_.question + ImagesLine(*store_, turn_));
  for (const std::string& id : turn_.image_ids) {
    if (store_->Get(id).ok()) user.images.push_back({ContentPart::Kind::kImage, id, kImageScheme + id});
  }
  messages.push_back(MessageToStateJson(user));
  Json state{{"messages", std::move(messages)}};
  Checkpoint(state, "reason", 0);  // the run is recorded before its first model call
  return state;
}

CxrOutcome CxrRun::Run() {
  const auto start = SteadyClock::now();
  CxrOutcome out;
  trace_.run_id = "run_" + MintToolCallId().substr(5, 16);
  trace_.started_at = UtcTimestamp();
  trace_.model = config_.model ? config_.model->name() : "";
  trace_.protocol = config_.model ? config_.model->protocol() : "";

  Status setup = store_ ? imaging::RegisterImagingPack(*registry_, config_.tools)
                        : Status::InvalidArgument("the chest X-ray agent needs an image store");
  if (setup.ok() && !config_.model) setup = Status::InvalidArgument("the chest X-ray agent needs a model or planner");
  Json initial;  // the graph's state to run from
  if (setup.ok() && resume_) {
    Result<Json> restored = Restore(*resume_);  // the run's id, trace, prompt and conversation
    if (restored.ok()) {
      initial = std::move(*restored);
      trace_.model = config_.model->name();
      trace_.protocol = config_.model->protocol();
    } else {
      setup = restored.status();
    }
  } else if (setup.ok()) {
    if (config_.system_prompt.empty()) {
      Result<std::string> prompt = LoadCxrSystemPrompt("");
      if (prompt.ok()) {
        system_prompt_ = std::move(*prompt);
      } else {
        setup = prompt.status();
      }
    } else {
      system_prompt_ = config_.system_prompt;
    }
  }
  if (!setup.ok()) {
    out.error = setup.ToString();
    out.answer = "The chest X-ray agent could not start: " + out.error;
    trace_.status = RunStatusName(RunStatus::kError);
    trace_.answer = out.answer;
    trace_.error = out.error;
    out.trace = trace_;
    out.result = Json{{"question", turn_.question}, {"answer", out.answer}, {"status", "error"}, {"error", out.error}};
    return out;
  }

  std::string start_node;  // the entry, or where a resumed run goes on
  if (resume_) {
    start_node = resume_->app["graph"]["next"].get<std::string>();
    Emit({.type = EventType::kRunStarted,
          .data = Json{{"model", trace_.model},
                       {"protocol", trace_.protocol},
                       {"tools", registry_->Names()},
                       {"max_steps", config_.max_steps},
                       {"resumed_at_step", trace_.steps.size()},
                       {"resumed_at_node", start_node}}});
  } else {
    initial = FirstState();
  }

  StateGraph graph;
  graph.AddNode("reason", [this](const Json& s, const CancellationToken& c) { return Reason(s, c, false); });
  graph.AddNode("act", [this](const Json& s, const CancellationToken& c) { return Act(s, c); });
  graph.SetEntryPoint("reason");
  graph.AddConditionalEdges("reason", Route);
  graph.AddEdge("act", "reason");
  graph.SetReducer("messages", AppendReducer);
  Result<CompiledGraph> compiled = graph.Compile();
  GraphRunResult ran;
  if (!compiled.ok()) {
    ran.status = compiled.status();
    ran.state = initial;
  } else {
    // Each model turn is a reason node and at most one act node.
    ran = compiled->Run(initial,
                        {.max_steps = 2 * std::max(1, config_.max_steps),
                         .cancel = config_.cancel,
                         .on_transition =
                             [this](const GraphTransition& t) {
                               Emit({.type = EventType::kGraphTransition, .step = t.step, .data = ToJson(t)});
                             },
                         .start_node = start_node,
                         .start_step = graph_steps_,
                         .on_checkpoint =
                             [this](const Json& state, const std::string& next, int steps) {
                               graph_steps_ = steps;
                               Checkpoint(state, next, steps);
                             },
                         .trace_name = "cxr"});
  }
  Json state = std::move(ran.state);
  RunStatus status = RunStatus::kFinished;
  std::string why;
  if (!ran.ok()) {
    why = ran.status.ToString();
    if (!awaiting_.empty()) {
      status = RunStatus::kAwaitingApproval;
      why = "waiting for a person's approval of ";
      for (size_t i = 0; i < awaiting_.size(); ++i) why += (i ? ", " : "") + awaiting_[i];
    } else if (config_.cancel.cancelled()) {
      status = RunStatus::kError;
      why = "cancelled";
    } else if (deadline_.expired() || ran.status.code() == StatusCode::kTimeout) {
      status = RunStatus::kTimeout;  // checked first: a model call cut by the deadline is the timeout, not a model failure
      why = "the time limit of the run was reached";
    } else if (!model_error_.empty()) {
      status = RunStatus::kError;
    } else if (ran.status.code() == StatusCode::kResourceExhausted) {
      status = RunStatus::kMaxSteps;
      why = "the step limit (" + std::to_string(config_.max_steps) + " model turns) was reached";
    } else {
      status = RunStatus::kError;
    }
  }

  std::vector<Message> conversation = Conversation(state);
  std::string answer;
  if (ran.ok() && !conversation.empty() && conversation.back().role == Role::kAssistant) {
    answer = conversation.back().content;
  }
  if (status == RunStatus::kAwaitingApproval) {
    answer = "The run is paused: " + why + ".";  // the checkpoint keeps the turn; a decision goes on with it
  } else if (!ran.ok() && status != RunStatus::kError && !config_.cancel.cancelled()) {
    // A limit: one last call without tools for the best answer.
    Result<Json> last = Reason(state, config_.cancel, /*last_call=*/true, why);
    if (last.ok()) {
      for (const Json& m : (*last)["messages"]) state["messages"].push_back(m);
      conversation = Conversation(state);
      answer = conversation.back().content;
    }
  }
  if (answer.empty()) {
    // Nothing usable from a model: the offline summary from the tool results.
    answer = CxrOfflineSummary(conversation, config_.tools.finding_threshold,
                               why.empty() ? "the model gave an empty answer" : why);
  }

  out.status = status;
  out.answer = answer;
  out.error = status == RunStatus::kFinished ? "" : why;
  out.model_answered = model_answered_;
  out.messages = conversation;
  trace_.status = RunStatusName(status);
  trace_.answer = answer;
  trace_.error = out.error;
  trace_.elapsed_ms = MsSince(start);
  out.result = ResultJson(conversation, out);
  trace_.final_fields = out.result["findings"];
  Emit({.type = EventType::kRunFinished,
        .step = static_cast<int>(trace_.steps.size()),
        .text = answer,
        .elapsed_ms = trace_.elapsed_ms,
        .data = Json{{"status", RunStatusName(status)}, {"steps", trace_.steps.size()}}});
  out.trace = std::move(trace_);
  return out;
}

Json CxrRun::ResultJson(const std::vector<Message>& conversation, const CxrOutcome& out) const {
  Json images = Json::array();
  for (const auto& image : store_->All()) images.push_back(image->Describe());
  Json calls = Json::array();
  std::map<std::string, std::pair<std::string, std::string>> requested;  // id -> (tool, arguments)
  for (const Message& m : conversation) {
    for (const ToolCall& call : m.tool_calls) requested[call.id] = {call.name, call.arguments};
    if (m.role != Role::kTool) continue;
    ToolObservation seen = ReadToolObservation(m.content);
    Json call = {{"id", m.tool_call_id}, {"tool", m.name}, {"ok", seen.ok}};
    if (auto it = requested.find(m.tool_call_id); it != requested.end()) {
      Result<Json> args = ParseJson(it->second.second);
      call["arguments"] = args.ok() ? std::move(*args) : Json(it->second.second);
    }
    if (seen.ok) {
      call["result"] = std::move(seen.value);
    } else {
      call["error"] = seen.error;
    }
    calls.push_back(std::move(call));
  }
  Json tools = Json::array();
  for (const auto& t : imaging::ImagingToolsStatus(config_.tools)) {
    tools.push_back({{"tool", t.name}, {"offered", t.offered}, {"why", t.reason}});
  }
  Json findings = CxrFindings(conversation, config_.tools.finding_threshold);
  Json result = {{"question", turn_.question},
                 {"answer", out.answer},
                 {"status", RunStatusName(out.status)},
                 {"model", trace_.model},
                 {"protocol", trace_.protocol},
                 {"run_id", trace_.run_id},
                 {"images", std::move(images)},
                 {"tools", std::move(tools)},
                 {"tool_calls", std::move(calls)},
                 {"findings", findings["findings"]},
                 {"annotated_images", findings["annotated_images"]},
                 {"tool_errors", findings["tool_errors"]}};
  if (!out.error.empty()) result["error"] = out.error;
  Json errors = Json::array();
  for (const auto& [path, why] : turn_.image_errors) errors.push_back({{"file", path}, {"error", why}});
  if (!errors.empty()) result["image_errors"] = std::move(errors);
  return result;
}

}  // namespace

CxrOutcome RunCxr(const CxrTurn& turn, const CxrConfig& config) {
  CxrRun run(turn, config, nullptr);
  return run.Run();
}

CxrOutcome ResumeCxr(const CxrTurn& turn, const CxrConfig& config, const RunState& state) {
  CxrRun run(turn, config, &state);
  return run.Run();
}

Result<std::string> LoadCxrSystemPrompt(const std::string& path) {
  const std::string file = path.empty() ? DataPath("prompts/cxr_system.md") : path;
  Result<std::string> text = ReadUserFile(file, "system prompt", size_t{1} << 20);
  if (!text.ok()) return text.status();
  if (text->find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::InvalidArgument("system prompt file " + file + " is empty");
  }
  return text;
}

Json CxrFindings(const std::vector<Message>& messages, double threshold) {
  std::map<std::string, std::pair<std::string, Json>> requested;  // call id -> (tool, arguments)
  Json findings = Json::array();
  Json annotated = Json::array();
  Json errors = Json::array();
  for (const Message& m : messages) {
    for (const ToolCall& call : m.tool_calls) {
      Result<Json> args = ParseJson(call.arguments);
      requested[call.id] = {call.name, args.ok() && args->is_object() ? std::move(*args) : Json::object()};
    }
    if (m.role != Role::kTool) continue;
    ToolObservation seen = ReadToolObservation(m.content);
    if (!seen.ok) {
      errors.push_back({{"tool", m.name}, {"error", seen.error}});
      continue;
    }
    const Json& v = seen.value;
    const std::string image = v.value("image_id", std::string());
    if (m.name == "chest_xray_classifier") {
      for (const Json& p : v.value("probabilities", Json::array())) {
        const double probability = p.value("probability", 0.0);
        if (probability < threshold) continue;
        findings.push_back({{"finding", p.value("label", std::string())},
                            {"probability", probability},
                            {"image_id", image},
                            {"tool", m.name},
                            {"source", v.value("source", std::string())}});
      }
    } else if (m.name == "xray_phrase_grounding") {
      findings.push_back({{"finding", v.value("phrase", std::string())},
                          {"boxes", v.value("boxes", Json::array())},
                          {"image_id", image},
                          {"tool", m.name},
                          {"source", v.value("source", std::string())}});
    } else if (m.name == "chest_xray_segmentation" && v.contains("cardiothoracic_ratio")) {
      const Json& ctr = v["cardiothoracic_ratio"];
      findings.push_back({{"finding", "cardiothoracic ratio"},
                          {"value", ctr.value("value", 0.0)},
                          {"note", ctr.value("note", std::string())},
                          {"image_id", image},
                          {"tool", m.name},
                          {"source", v.value("source", std::string())}});
    } else if (m.name == "xray_vqa") {
      std::string question;
      if (auto it = requested.find(m.tool_call_id); it != requested.end()) {
        question = it->second.second.value("question", std::string());
      }
      findings.push_back({{"finding", v.value("answer", std::string())},
                          {"question", question},
                          {"confidence", v.value("confidence", std::string())},
                          {"image_ids", v.value("image_ids", Json::array())},
                          {"tool", m.name},
                          {"source", v.value("source", std::string())}});
    } else if (m.name == "chest_xray_report") {
      findings.push_back({{"finding", v.value("impression", std::string())},
                          {"report_findings", v.value("findings", std::string())},
                          {"image_id", image},
                          {"tool", m.name},
                          {"source", v.value("source", std::string())}});
    } else if (m.name == "image_visualizer") {
      annotated.push_back({{"image_id", image},
                           {"source_image_id", v.value("source_image_id", std::string())},
                           {"path", v.value("path", std::string())}});
    }
  }
  return {{"findings", std::move(findings)},
          {"annotated_images", std::move(annotated)},
          {"tool_errors", std::move(errors)}};
}

}  // namespace medreact
