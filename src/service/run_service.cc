// The run service. See run_service.h.
#include "service/run_service.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <utility>

#include "apps/common/approval_policy.h"
#include "core/printable.h"
#include "core/text_util.h"
#include "service/approval_view.h"
#include "service/cxr_runs.h"
#include "service/research_runs.h"
#include "service/run_images.h"
#include "store/run_recorder.h"

namespace medreact::service {

// A run in progress in this service: what Cancel stops.
struct RunService::Live {
  CancellationToken cancel;
};

namespace {

constexpr double kMinSeconds = 0.001;
constexpr double kMaxSeconds = 86'400.0 * 7;

Millis ToMillis(double seconds) { return Millis(static_cast<int64_t>(seconds * 1000.0)); }

// The calls of a paused state that still wait, in call order.
std::vector<std::string> Undecided(const RunState& state) {
  std::vector<std::string> out;
  for (const std::string& call : state.awaiting_approval) {
    if (!state.approvals.count(call)) out.push_back(call);
  }
  return out;
}

std::string Names(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& c : ids) out += (out.empty() ? "" : ", ") + PrintableLine(c);
  return out.empty() ? "none" : out;
}

// "call_a approved by dr.a at 2026-…" for the decisions already taken on
// `calls` (every call when empty): those a paused state holds, then those
// the run's approval events record (the turn went on). "" when none.
std::string EarlierDecisions(const RunStore& store, const std::string& run_id, const std::vector<std::string>& calls) {
  std::vector<std::string> seen, out;
  auto wanted = [&](const std::string& call) {
    return (calls.empty() || std::find(calls.begin(), calls.end(), call) != calls.end()) &&
           std::find(seen.begin(), seen.end(), call) == seen.end();
  };
  auto add = [&](const std::string& call, const std::string& decision, const std::string& who,
                 const std::string& at) {
    seen.push_back(call);
    out.push_back("call " + PrintableLine(call) + " " + decision + (who.empty() ? "" : " by " + PrintableLine(who)) +
                  (at.empty() ? "" : " at " + PrintableLine(at)));
  };
  if (Result<std::optional<RunState>> state = store.LatestState(run_id); state.ok() && state->has_value()) {
    for (const auto& [call, d] : (*state)->approvals) {
      if (wanted(call)) add(call, d.approved ? "approved" : "rejected", d.reviewer, d.decided_at);
    }
  }
  if (Result<std::vector<RunEvent>> events = store.Events(run_id); events.ok()) {
    for (const RunEvent& e : *events) {
      if (e.type != "approval" || !wanted(e.tool_call_id)) continue;
      Result<Json> line = ParseJson(e.json);
      if (!line.ok() || !line->is_object()) continue;
      const Json data = line->value("data", Json::object());
      const std::string decision = StringOr(data, "decision");
      if (decision.empty() || decision == "awaiting") continue;
      add(e.tool_call_id, decision, StringOr(data, "reviewer"), StringOr(data, "decided_at"));
    }
  }
  std::string text;
  for (const std::string& o : out) text += (text.empty() ? "" : "; ") + o;
  return text;
}

// A chat run's tools rebuilt from its inputs, with each tool's pack.
struct ChatParts {
  std::shared_ptr<ToolRegistry> tools;
  std::map<std::string, std::string> tool_packs;
};

Result<ChatParts> ChatTools(const ChatInputs& inputs, const std::function<void(const std::string&)>& warn) {
  ChatParts parts;
  PackContext context = inputs.context;
  context.on_warning = warn;
  Result<std::shared_ptr<ToolRegistry>> tools = medreact::ChatTools(inputs.packs, context, &parts.tool_packs);
  if (!tools.ok()) return tools.status();
  parts.tools = std::move(*tools);
  return parts;
}

// The approval rules of a run on its options: the predicate, and the inline
// approver when the front end has one.
Status ApplyRules(const std::vector<std::string>& rules, const ChatParts& parts, const RunHooks& hooks,
                  AgentOptions& options) {
  if (rules.empty()) return Status::OK();
  Result<std::function<bool(const ToolCall&, const ToolSpec&)>> needs =
      ApprovalPredicate(rules, *parts.tools, parts.tool_packs);
  if (!needs.ok()) return needs.status();
  options.needs_approval = std::move(*needs);
  options.approve = hooks.approve;
  return Status::OK();
}

}  // namespace

Json StoredModel(const ModelSettings& model) {
  return Json{{"url", UrlForStore(model.url)},
              {"name", model.name},
              {"provider", model.provider},
              {"protocol", model.protocol},
              {"request_timeout_s", model.request_timeout_s},
              {"max_retries", model.max_retries},
              {"context_size", model.context_size}};
}

ModelSettings ModelFromStored(const Json& stored, const std::string& api_key) {
  ModelSettings m;
  m.url = StringOr(stored, "url");
  m.name = StringOr(stored, "name");
  m.provider = StringOr(stored, "provider", m.provider);  // runs stored before it: openai
  m.protocol = StringOr(stored, "protocol", m.protocol);
  m.api_key = api_key;
  const double timeout = NumberOr(stored, "request_timeout_s", m.request_timeout_s);
  if (timeout >= kMinSeconds && timeout <= kMaxSeconds) m.request_timeout_s = timeout;
  m.max_retries = static_cast<int>(std::clamp<int64_t>(IntegerOr(stored, "max_retries", m.max_retries), 0, 20));
  const int64_t context = IntegerOr(stored, "context_size", 0);
  m.context_size = context >= 256 && context <= 10'000'000 ? static_cast<int>(context) : 0;
  return m;
}

RunService::RunService(std::shared_ptr<RunStore> store) : store_(std::move(store)) {}
RunService::~RunService() = default;

Status RunService::NeedStore() const {
  if (store_) return Status::OK();
  return Status::FailedPrecondition("no run store: runs are not recorded, so none can be shown, resumed or decided");
}

Result<std::shared_ptr<ChatModel>> RunService::BuildModel(const ModelSettings& settings,
                                                          const AppModelParts& app) const {
  std::string provider = settings.protocol;
  if (settings.provider != "openai") {
    Result<std::string> row = ProviderFor(settings.provider, settings.protocol);
    if (!row.ok()) return row.status();
    provider = std::move(*row);
  }
  ModelConfig config{.provider = provider,
                     .base_url = settings.url.empty() ? DefaultModelUrl(settings.provider) : settings.url,
                     .model = settings.name,
                     .api_key = settings.api_key,
                     .request_timeout = ToMillis(settings.request_timeout_s),
                     .max_retries = settings.max_retries,
                     .context_tokens = settings.context_size,
                     .context_cache = StoreContextCache(store_)};
  return medreact::BuildModel(config, app);
}

Result<std::unique_ptr<PreparedChat>> RunService::PrepareChat(ChatStart start, const RunHooks& hooks) const {
  if (IsBlank(start.inputs.message)) return Status::InvalidArgument("the message is empty");
  Result<std::vector<std::string>> rules = CheckApprovalRules(start.inputs.require_approval);
  if (!rules.ok()) return rules.status();
  Result<ChatParts> parts = ChatTools(start.inputs, hooks.warn);
  if (!parts.ok()) return parts.status();
  if (start.model.url.empty()) {
    return Status::InvalidArgument("no model server: set the model URL (llm_url) of an OpenAI-compatible server");
  }
  Result<std::shared_ptr<ChatModel>> model = BuildModel(start.model);
  if (!model.ok()) return model.status();
  if (!start.images.empty() && !(*model)->capabilities().images) {
    return Status::InvalidArgument(
        "model '" + (*model)->name() + "' (protocol " + (*model)->protocol() +
        ") cannot take images: images need a vision model on an OpenAI-compatible server with the native "
        "protocol (e.g. a LLaVA, Qwen-VL or MedGemma model in vLLM, llama-server with its multimodal projector "
        "(mmproj), "
        "or Ollama)");
  }
  auto prepared = std::make_unique<PreparedChat>();
  prepared->options = start.inputs.options;
  if (Status s = ApplyRules(*rules, *parts, hooks, prepared->options); !s.ok()) return s;
  if (prepared->options.needs_approval && !store_ && !prepared->options.approve) {
    return Status::FailedPrecondition(
        "calls that wait for approval need a run store to wait in (or an approver that decides them at once)");
  }
  start.inputs.require_approval = *rules;
  prepared->inputs = std::move(start.inputs);
  prepared->model = std::move(start.model);
  prepared->chat_model = std::move(*model);
  prepared->tools = std::move(parts->tools);
  prepared->images = std::move(start.images);
  prepared->history = std::move(start.history);
  return prepared;
}

Result<RunOutcome> RunService::StartChat(ChatStart start, const RunHooks& hooks) {
  Result<std::unique_ptr<PreparedChat>> prepared = PrepareChat(std::move(start), hooks);
  if (!prepared.ok()) return prepared.status();
  return RunPrepared(std::move(*prepared), hooks);
}

Result<RunOutcome> RunService::RunPrepared(std::unique_ptr<PreparedChat> prepared, const RunHooks& hooks) {
  if (!prepared) return Status::InvalidArgument("no prepared run");
  AgentOptions options = prepared->options;
  options.approve = hooks.approve ? hooks.approve : options.approve;
  options.cancel = hooks.cancel;
  std::unique_ptr<RunRecorder> recorder;
  if (store_) {
    recorder = std::make_unique<RunRecorder>(
        store_,
        RunRecord{.app = "chat", .inputs = ChatInputsToJson(prepared->inputs), .model = StoredModel(prepared->model)},
        hooks.warn);
    options.on_checkpoint = recorder->Hook();
    options.on_event = recorder->Events(hooks.on_event);  // the store's copy, then the front end's
  } else {
    options.on_event = hooks.on_event;
  }
  // The run's id is known at its first checkpoint (taken before the first
  // model call): from then on Cancel finds it.
  auto live = std::make_shared<Live>();
  live->cancel = hooks.cancel;
  std::string live_id;
  bool started = false;  // hooks.on_started called
  options.on_checkpoint = [this, live, &live_id, &started, &hooks, &recorder,
                           hook = std::move(options.on_checkpoint)](const RunState& s) {
    if (live_id.empty() && !s.trace.run_id.empty()) {
      live_id = s.trace.run_id;
      std::lock_guard<std::mutex> lock(mu_);
      live_[live_id] = live;
    }
    if (hook) hook(s);
    if (!started && recorder && !recorder->run_id().empty()) {
      started = true;
      if (hooks.on_started) hooks.on_started(recorder->run_id());
    }
  };
  RunResult result =
      RunChat(prepared->chat_model, prepared->tools,
              RunRequest{.message = prepared->inputs.message,
                         .images = std::move(prepared->images),
                         .history = std::move(prepared->history)},
              options);
  if (!live_id.empty()) {
    std::lock_guard<std::mutex> lock(mu_);
    live_.erase(live_id);
  }
  RunOutcome out;
  out.run_id = result.trace.run_id;
  const bool interrupted = hooks.cancel.cancelled() && result.status == RunStatus::kError;
  out.status = StoredRunStatus(result, interrupted);
  if (recorder) {
    recorder->Finish(result, interrupted);  // a failure was reported as it happened
    out.stored = !recorder->run_id().empty();
    if (out.stored && !started && hooks.on_started) hooks.on_started(recorder->run_id());
  }
  out.result = std::move(result);
  return out;
}

Result<RunRecord> RunService::PrepareResume(const std::string& run_id) {
  if (Status s = NeedStore(); !s.ok()) return s;
  Result<RunRecord> run = store_->Get(run_id);
  if (!run.ok()) return run.status();
  const AppRow* app = FindApp(run->app);
  if (!app) {
    return Status::InvalidArgument("run '" + run_id + "' is of an app this medreact does not know ('" +
                                   PrintableLine(run->app) + "')");
  }
  if (run->status == "awaiting_approval") {
    return Status::FailedPrecondition("run '" + run_id +
                                      "' is waiting for approval of tool calls: decide them (approve or reject) "
                                      "and it goes on");
  }
  if (run->status != "running" && run->status != "interrupted" && run->status != "error") {
    return Status::FailedPrecondition("run '" + run_id + "' ended with status '" + PrintableLine(run->status) +
                                      "'; there is nothing to resume");
  }
  if (!app->resumable) {
    return Status::FailedPrecondition("run '" + run_id + "' is a " + app->name + " run, which cannot be resumed: " +
                                      app->not_resumable_why);
  }
  // One process runs a run at a time: refused while its holder is alive.
  if (Status s = store_->ClaimRun(run_id); !s.ok()) return s;
  if (run->status == "error") {
    Result<std::optional<RunState>> state = store_->LatestState(run_id);
    if (!state.ok()) return state.status();
    if (!state->has_value()) {
      store_->ReleaseRun(run_id);
      return Status::FailedPrecondition("run '" + run_id +
                                        "' ended in error before its first checkpoint; there is nothing to resume "
                                        "(start it again)");
    }
  }
  return run;
}

Result<RunOutcome> RunService::Resume(const std::string& run_id, const ResumeSpec& spec, const RunHooks& hooks) {
  Result<RunRecord> run = PrepareResume(run_id);
  if (!run.ok()) return run.status();
  if (run->app != "chat") {
    store_->ReleaseRun(run_id);
    return Status::FailedPrecondition("run '" + run_id + "' is a " + PrintableLine(run->app) +
                                 " run: its resume is assembled by the front end (service/app_table.h)");
  }
  return Continue(run_id, spec, hooks);
}

Result<RunOutcome> RunService::Continue(const std::string& run_id, const ResumeSpec& spec, const RunHooks& hooks) {
  if (Status s = NeedStore(); !s.ok()) return s;
  Result<RunRecord> run = store_->Get(run_id);
  if (!run.ok()) return run.status();
  if (run->app != "chat") {
    return Status::FailedPrecondition("run '" + run_id + "' is a " + PrintableLine(run->app) +
                                 " run: its resume is assembled by the front end (service/app_table.h)");
  }
  if (Status s = store_->ClaimRun(run_id); !s.ok()) return s;
  Result<std::optional<RunState>> state = store_->LatestState(run_id);
  if (!state.ok()) return state.status();
  if (!state->has_value()) {
    return Status::FailedPrecondition("run '" + run_id + "' has no checkpoint to go on from");
  }
  if (!Undecided(**state).empty()) {
    return Status::FailedPrecondition("run '" + run_id + "' still waits for a decision on " +
                                      Names(Undecided(**state)));
  }
  Result<ChatInputs> inputs = ChatInputsFromJson(run->inputs);
  if (!inputs.ok()) return Status::InvalidArgument("run '" + run_id + "': " + inputs.status().message());
  return RunChatFrom(*run, *inputs, spec, hooks, **state);
}

Result<RunOutcome> RunService::RunChatFrom(const RunRecord& run, const ChatInputs& inputs, const ResumeSpec& spec,
                                           const RunHooks& hooks, const RunState& state) {
  Result<ChatParts> parts = ChatTools(inputs, hooks.warn);
  if (!parts.ok()) return parts.status();
  // The model: the spec's when it names one, else the stored one.
  const ModelSettings settings = spec.model.url.empty() ? ModelFromStored(run.model, spec.model.api_key) : spec.model;
  if (settings.url.empty()) {
    return Status::InvalidArgument("run '" + run.id + "' has no model URL stored; give the model URL (llm_url)");
  }
  Result<std::shared_ptr<ChatModel>> model = BuildModel(settings);
  if (!model.ok()) return model.status();
  AgentOptions options = inputs.options;
  if (Status s = ApplyRules(inputs.require_approval, *parts, hooks, options); !s.ok()) {
    return Status::InvalidArgument("run '" + run.id + "': " + s.message());
  }
  options.stream = options.stream || spec.stream;
  options.cancel = hooks.cancel;
  RunRecorder recorder(store_, run, hooks.warn, /*resumed=*/true);
  options.on_checkpoint = recorder.Hook();
  options.on_event = recorder.Events(hooks.on_event);
  auto live = std::make_shared<Live>();
  live->cancel = hooks.cancel;
  {
    std::lock_guard<std::mutex> lock(mu_);
    live_[run.id] = live;
  }
  if (hooks.on_started) hooks.on_started(run.id);
  RunResult result = ResumeChat(*model, parts->tools, state, options);
  {
    std::lock_guard<std::mutex> lock(mu_);
    live_.erase(run.id);
  }
  const bool interrupted = hooks.cancel.cancelled() && result.status == RunStatus::kError;
  recorder.Finish(result, interrupted);
  RunOutcome out{.run_id = run.id, .status = StoredRunStatus(result, interrupted), .stored = true};
  out.result = std::move(result);
  return out;
}

Result<DecideOutcome> RunService::Decide(const std::string& run_id, const std::vector<CallDecision>& decisions,
                                         const Reviewer& reviewer) {
  if (Status s = NeedStore(); !s.ok()) return s;
  // The calls these decisions name (none: every call still waiting), for
  // the message a decision that came too late gets.
  std::vector<std::string> named;
  for (const CallDecision& d : decisions) {
    if (!d.call_id.empty()) named.push_back(d.call_id);
  }
  if (std::any_of(decisions.begin(), decisions.end(), [](const CallDecision& d) { return d.call_id.empty(); })) {
    named.clear();
  }
  // Compare-and-set: the run is taken (its lease) first, then read; a
  // decision that finds it decided, going on or ended says by whom and when.
  auto too_late = [&](const std::string& status) {
    const std::string earlier = EarlierDecisions(*store_, run_id, named);
    return Status::FailedPrecondition("run '" + run_id + "' is not waiting for approval (its status is '" +
                                      PrintableLine(status) + "')" +
                                      (earlier.empty() ? "" : ": already decided: " + earlier));
  };
  Result<RunRecord> run = store_->Get(run_id);
  if (!run.ok()) return run.status();
  if (run->status != "awaiting_approval") return too_late(run->status);
  const AppRow* app = FindApp(run->app);
  if (!app || !app->waits_for_approval) {
    return Status::FailedPrecondition("a '" + PrintableLine(run->app) + "' run never waits for approval");
  }
  if (Status s = store_->ClaimRun(run_id); !s.ok()) {
    // Another process holds it: deciding it now, or running it on after a decision.
    const std::string earlier = EarlierDecisions(*store_, run_id, named);
    if (s.code() != StatusCode::kUnavailable || earlier.empty()) return s;
    return Status::FailedPrecondition("run '" + run_id + "' was already decided: " + earlier + " (" + s.message() +
                                      ")");
  }
  run = store_->Get(run_id);  // as it stands now that it is ours
  if (!run.ok()) {
    store_->ReleaseRun(run_id);
    return run.status();
  }
  if (run->status != "awaiting_approval") {
    store_->ReleaseRun(run_id);
    return too_late(run->status);
  }
  Result<std::optional<RunState>> stored = store_->LatestState(run_id);
  if (!stored.ok()) {
    store_->ReleaseRun(run_id);  // every refusal gives the run back for the next decider
    return stored.status();
  }
  if (!stored->has_value() || (*stored)->awaiting_approval.empty()) {
    store_->ReleaseRun(run_id);
    return Status::FailedPrecondition("run '" + run_id + "' has no stored calls waiting for approval");
  }
  RunState state = std::move(**stored);
  const std::vector<std::string> waiting = Undecided(state);
  Result<ChatInputs> inputs = ChatInputs();
  if (run->app == "chat") inputs = ChatInputsFromJson(run->inputs);  // cxr: cxr_runs.h; research: research_runs.h
  if (!inputs.ok()) {
    store_->ReleaseRun(run_id);
    return Status::InvalidArgument("run '" + run_id + "': " + inputs.status().message());
  }
  std::shared_ptr<ToolRegistry> tools;  // built only when arguments are edited
  const std::string now = StoreTimestampMillis(std::chrono::system_clock::now());
  DecideOutcome out;
  auto fail = [&](Status s) {
    store_->ReleaseRun(run_id);
    return s;
  };
  for (const CallDecision& d : decisions) {
    std::vector<std::string> targets = waiting;
    if (!d.call_id.empty()) {
      if (state.approvals.count(d.call_id)) {
        return fail(Status::FailedPrecondition("call '" + PrintableLine(d.call_id) + "' of run '" + run_id +
                                               "' was already decided: " +
                                               EarlierDecisions(*store_, run_id, {d.call_id})));
      }
      if (std::find(waiting.begin(), waiting.end(), d.call_id) == waiting.end()) {
        return fail(Status::InvalidArgument("run '" + run_id + "' has no undecided call '" + PrintableLine(d.call_id) +
                                            "' (waiting: " + Names(waiting) + ")"));
      }
      targets = {d.call_id};
    } else {
      std::erase_if(targets, [&](const std::string& c) { return state.approvals.count(c) > 0; });
    }
    if (!d.arguments.empty() && targets.size() != 1) {
      return fail(Status::InvalidArgument("edited arguments (arguments) are for one call: name it (call_id); waiting: " +
                                          Names(waiting)));
    }
    for (const std::string& call_id : targets) {
      ApprovalDecision decision{.approved = d.approve,
                                .reason = d.approve ? "" : d.reason,
                                .reviewer = reviewer.identity,
                                .decided_at = now};
      if (!d.arguments.empty()) {
        if (!tools) {
          Result<std::shared_ptr<ToolRegistry>> offered = DecisionTools(*this, *run);
          if (!offered.ok()) return fail(offered.status());
          tools = std::move(*offered);
        }
        auto call = std::find_if(state.turn.tool_calls.begin(), state.turn.tool_calls.end(),
                                 [&](const ToolCall& c) { return c.id == call_id; });
        const std::string tool = call == state.turn.tool_calls.end() ? "" : call->name;
        Result<Json> valid = tools->ValidateArguments(tool, d.arguments);
        if (!valid.ok()) {
          return fail(Status::InvalidArgument("the edited arguments (arguments) for " + PrintableLine(tool) + ": " +
                                              valid.status().message()));
        }
        decision.arguments = DumpJson(*valid);
      }
      state.approvals[call_id] = decision;
      out.decided.push_back(call_id);
      out.decisions[call_id] = decision;
    }
  }
  out.waiting = Undecided(state);
  // Each decision is an `approval` event of its own as it is stored
  // ("recorded": true; an edit with its arguments), so a live follower (another tab, a stream) sees it
  // also when other calls still wait and the run does not go on yet; the
  // run emits its own when it applies them.
  std::vector<RunEvent> recorded;
  for (const std::string& call_id : out.decided) {
    const ApprovalDecision& a = out.decisions[call_id];
    auto call = std::find_if(state.turn.tool_calls.begin(), state.turn.tool_calls.end(),
                             [&](const ToolCall& c) { return c.id == call_id; });
    Json data{{"decision", DecisionWord(a)}, {"reviewer", a.reviewer}, {"decided_at", a.decided_at}, {"recorded", true}};
    if (!a.approved && !a.reason.empty()) data["reason"] = a.reason;
    if (Result<Json> edited = ParseJson(a.arguments); !a.arguments.empty() && edited.ok()) data["arguments"] = *edited;
    RunEvent e = ToRunEvent({.type = EventType::kApproval,
                             .step = state.step,
                             .tool_name = call == state.turn.tool_calls.end() ? "" : call->name,
                             .tool_call_id = call_id,
                             .data = std::move(data)});
    e.at = now;
    recorded.push_back(std::move(e));
  }
  // The decisions are stored before anything runs: a crash from here on
  // goes on with them.
  if (Status s = store_->SaveCheckpoint(run_id, state, recorded, out.waiting.empty() ? "running" : "awaiting_approval");
      !s.ok()) {
    return fail(s);
  }
  if (!out.waiting.empty()) store_->ReleaseRun(run_id);  // still paused: free for the next reviewer
  return out;
}

Result<RunService::Pruned> RunService::Prune(const PruneFilter& filter) {
  if (Status s = NeedStore(); !s.ok()) return s;
  Pruned out;
  Result<std::vector<std::string>> runs = store_->Prune(filter);
  if (!runs.ok()) return runs.status();
  out.runs = std::move(*runs);
  namespace fs = std::filesystem;
  const fs::path folder = RunImageFolder::ForStore(store_->path());
  std::error_code ec;
  const auto grace = fs::file_time_type::clock::now() - std::chrono::minutes(kImageGraceMinutes);
  if (fs::is_directory(folder, ec)) {
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
      const std::string name = entry.path().filename().string();
      // Only the folder's own files: 64 lowercase hex digits, regular, old enough.
      if (name.size() != 64 || name.find_first_not_of("0123456789abcdef") != std::string::npos) continue;
      if (!entry.is_regular_file(ec) || entry.last_write_time(ec) > grace || ec) continue;
      Result<bool> named = store_->CheckpointsMention(name);
      if (!named.ok()) return named.status();
      if (*named) continue;
      named = store_->ResultsMention(name);  // an ended cxr run's images (a later run may continue it)
      if (!named.ok()) return named.status();
      if (*named) continue;
      if (!filter.dry_run && !fs::remove(entry.path(), ec) && ec) {
        return Status::Unavailable("removing " + entry.path().string() + " from the run folder: " + ec.message());
      }
      out.images.push_back(name);
    }
    if (ec) return Status::Unavailable("reading the run folder " + folder.string() + ": " + ec.message());
  }
  // The server's uploads: "<32 hex>-<name>", named by the inputs of the runs that read them.
  const fs::path uploads = UploadFolderForStore(store_->path());
  if (!fs::is_directory(uploads, ec)) return out;
  for (const fs::directory_entry& entry : fs::directory_iterator(uploads, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 34 || name[32] != '-' || name.find_first_not_of("0123456789abcdef") < 32) continue;
    if (!entry.is_regular_file(ec) || entry.last_write_time(ec) > grace || ec) continue;
    Result<bool> named = store_->InputsMention(name);
    if (!named.ok()) return named.status();
    if (*named) continue;
    if (!filter.dry_run && !fs::remove(entry.path(), ec) && ec) {
      return Status::Unavailable("removing " + entry.path().string() + " from the upload folder: " + ec.message());
    }
    out.uploads.push_back(name);
  }
  if (ec) return Status::Unavailable("reading the upload folder " + uploads.string() + ": " + ec.message());
  return out;
}

Status RunService::Cancel(const std::string& run_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(run_id);
  if (it == live_.end()) return Status::NotFound("run '" + run_id + "' is not running in this process");
  it->second->cancel.Cancel();
  return Status::OK();
}

std::shared_ptr<void> RunService::TrackRun(const std::string& run_id, const CancellationToken& cancel) {
  auto live = std::make_shared<Live>();
  live->cancel = cancel;
  {
    std::lock_guard<std::mutex> lock(mu_);
    live_[run_id] = live;
  }
  return std::shared_ptr<void>(live.get(), [this, run_id, live](void*) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(run_id);
    if (it != live_.end() && it->second == live) live_.erase(it);
  });
}

Result<RunView> RunService::Show(const std::string& run_id) const {
  if (Status s = NeedStore(); !s.ok()) return s;
  RunView view;
  Result<RunRecord> run = store_->Get(run_id);
  if (!run.ok()) return run.status();
  view.run = std::move(*run);
  Result<std::vector<StepRecord>> steps = store_->Steps(run_id);
  if (!steps.ok()) return steps.status();
  view.steps = std::move(*steps);
  if (view.run.status == "awaiting_approval") {
    Result<std::optional<RunState>> state = store_->LatestState(run_id);
    if (!state.ok()) return state.status();
    if (state->has_value()) {
      const RunState& st = **state;
      view.waiting_step = st.step;
      const std::vector<std::string> waiting = Undecided(st);
      for (const ToolCall& c : st.turn.tool_calls) {
        if (std::find(waiting.begin(), waiting.end(), c.id) != waiting.end()) view.waiting.push_back(c);
      }
    }
  }
  return view;
}

Result<std::vector<RunRecord>> RunService::List(const RunFilter& filter) const {
  if (Status s = NeedStore(); !s.ok()) return s;
  return store_->List(filter);
}

Result<std::vector<RunEvent>> RunService::Events(const std::string& run_id, int64_t after_seq) const {
  if (Status s = NeedStore(); !s.ok()) return s;
  if (Result<RunRecord> run = store_->Get(run_id); !run.ok()) return run.status();
  Result<std::vector<RunEvent>> events = store_->Events(run_id);
  if (!events.ok()) return events.status();
  std::erase_if(*events, [after_seq](const RunEvent& e) { return e.seq <= after_seq; });
  return events;
}

}  // namespace medreact::service
