// Research runs in the run service. See research_runs.h.
#include "service/research_runs.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <utility>

#include "apps/common/approval_policy.h"
#include "apps/research/research_search_tools.h"
#include "apps/research/research_types.h"
#include "core/file_io.h"
#include "core/printable.h"
#include "core/text_util.h"
#include "core/time_util.h"
#include "medreact/model_factory.h"
#include "medreact/trace.h"
#include "store/run_recorder.h"
#include "tools/literature/literature_recording.h"

namespace medreact::service {
namespace {

constexpr double kMaxTimeoutS = 7 * 24 * 3600.0;

// A path as given, made absolute (lexically: the file may be gone by the
// time a resume reads it, which then fails naming it); "" stays "".
std::string AbsolutePath(const std::string& path) {
  if (path.empty()) return path;
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

// The research run in the run store: one row, one step per agent run, the
// research's checkpoint in the run state's app. A step is written with
// the checkpoint after its node (one transaction), never alone: a kill
// between an agent run's end and its node's checkpoint loses both, and the
// resume runs that turn again.
class ResearchRecording {
 public:
  ResearchRecording(std::unique_ptr<RunRecorder> recorder, const PreparedResearch& prepared)
      : recorder_(std::move(recorder)), started_(std::chrono::steady_clock::now()) {
    if (!recorder_) return;
    if (prepared.resumed) {
      state_ = prepared.state;
      // A paused search goes on now: its turn and decisions live in the research's checkpoint.
      state_.awaiting_approval.clear();
      state_.approvals.clear();
      state_.turn = Message();
      base_elapsed_ms_ = state_.elapsed_ms;
      checkpointed_steps_ = state_.trace.steps.size();
      return;
    }
    state_.messages.push_back(Message::User(prepared.question));
    state_.trace.run_id = "run_" + MintToolCallId().substr(5, 16);
    state_.trace.started_at = UtcTimestamp();
    state_.trace.input = Json{{"message", prepared.question}};
    recorder_->Hook()(state_);  // the row exists before the first agent runs
  }

  const std::string& run_id() const { return state_.trace.run_id; }

  // An agent run that ended: its answer, its tool calls and their results
  // (every step's, in order), and a note saying which agent of which round.
  // Kept for the next checkpoint.
  void AgentRun(int round, const std::string& agent, const RunResult& run) {
    if (!recorder_) return;
    StepRecord step;
    step.index = static_cast<int>(state_.trace.steps.size()) + 1;
    step.assistant = Message::Assistant(run.answer);
    for (const StepRecord& s : run.trace.steps) {
      const size_t n = std::min(s.assistant.tool_calls.size(), s.tool_results.size());
      for (size_t i = 0; i < n; ++i) {
        step.assistant.tool_calls.push_back(s.assistant.tool_calls[i]);
        step.tool_results.push_back(s.tool_results[i]);
      }
    }
    step.notes.push_back("round " + std::to_string(round) + ": the " + agent + " agent (run " + run.trace.run_id +
                         ") ended '" + RunStatusName(run.status) + "' after " + std::to_string(run.steps) +
                         " step(s) and " + std::to_string(run.tool_calls) + " tool call(s)" +
                         (run.error.empty() ? "" : ": " + Preview(run.error, 200)));
    step.usage = run.usage;
    step.elapsed_ms = run.trace.elapsed_ms;
    state_.tool_calls += static_cast<int>(step.tool_results.size());
    state_.trace.steps.push_back(std::move(step));
    state_.step = static_cast<int>(state_.trace.steps.size());
    state_.usage += run.usage;
    state_.trace.usage = state_.usage;
  }

  // The research's checkpoint after a node: stored with the steps and
  // events since the last one.
  void Checkpoint(const Json& checkpoint) {
    if (!recorder_) return;
    state_.app = checkpoint;
    state_.elapsed_ms = Elapsed();
    recorder_->Hook()(state_);
    checkpointed_steps_ = state_.trace.steps.size();
  }

  // A research event for the store, as the --events line. An agent's start
  // (a wait of unknown length) is written at once, so whoever follows the
  // run from the store sees the agent at work, not only its end. The report
  // agent's streamed fragments are joined into pieces of at least
  // kReportPiece characters, each written at once (a page renders the report
  // as it is written, without a write per fragment); what is left goes before
  // the next event.
  void Event(const ResearchEvent& e) {
    if (!recorder_) return;
    if (e.type == ResearchEventType::kStreaming && e.agent == "report") {
      if (draft_.empty()) draft_start_ = e;
      draft_ += StringOr(e.data, "text");
      if (draft_.size() >= kReportPiece) KeepDraft(/*write_now=*/true);
      return;
    }
    KeepDraft(/*write_now=*/false);
    using T = ResearchEventType;
    const bool starts_wait = e.type == T::kThinking || e.type == T::kSearching || e.type == T::kJudging ||
                             e.type == T::kHypothesizing || e.type == T::kSynthesizing;
    Keep(e, starts_wait);
  }

  // The research's end: ResearchRunStatus, the report as answer and the
  // result JSON as final fields; a cancelled research ends `interrupted`
  // (resumable from its last checkpoint). Returns the stored status.
  std::string Finish(const ResearchOutcome& out) {
    if (!recorder_) return "";
    KeepDraft(/*write_now=*/false);
    if (!out.status.ok()) {
      // No `complete` comes: whoever follows the run's events learns its end
      // from this one (stored with the result).
      Keep({.type = ResearchEventType::kError, .iteration = out.rounds, .timestamp = UtcTimestampMillis(),
            .message = "The research failed: " + Preview(out.status.message(), 300)},
           /*write_now=*/false);
    }
    RunResult end;
    const std::string status = ResearchRunStatus(out);
    end.status = status == "finished"            ? RunStatus::kFinished
                 : status == "max_steps"         ? RunStatus::kMaxSteps
                 : status == "timeout"           ? RunStatus::kTimeout
                 : status == "budget"            ? RunStatus::kBudget
                 : status == "awaiting_approval" ? RunStatus::kAwaitingApproval
                                                 : RunStatus::kError;
    if (out.paused) {
      // The search agent's paused turn, for Show and Decide (the research's
      // checkpoint, already stored, holds it whole).
      state_.phase = RunState::Phase::kInTurn;
      state_.turn = out.paused->turn;
      state_.awaiting_approval = out.paused->awaiting_approval;
      state_.approvals = out.paused->approvals;
      state_.elapsed_ms = Elapsed();
      recorder_->Hook()(state_);
      end.error = "waiting for a person's approval of " + Join(out.paused->awaiting_approval, ", ");
    }
    end.answer = out.report.markdown;
    if (!out.status.ok()) {
      end.error = out.status.message();
    } else if (!out.report_from_agent && !out.paused) {
      end.error = "fallback synthesis (" + out.stop_reason + "): " + out.fallback_reason;
    }
    if (out.status.ok()) end.final_fields = Json::parse(DumpJson(out.result));
    state_.elapsed_ms = Elapsed();
    const bool interrupted = out.status.ok() && out.stop_reason == "cancelled";
    if (interrupted) {
      // The turn the cancellation cut short runs again on resume: its step is not kept.
      state_.trace.steps.resize(std::min(state_.trace.steps.size(), checkpointed_steps_));
    }
    end.trace = state_.trace;
    end.steps = static_cast<int>(state_.trace.steps.size());
    end.tool_calls = state_.tool_calls;
    end.usage = out.usage;
    recorder_->Finish(end, interrupted);
    return StoredRunStatus(end, interrupted);
  }

 private:
  double Elapsed() const {
    return base_elapsed_ms_ +
           std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_).count();
  }

  void Keep(const ResearchEvent& e, bool write_now) {
    recorder_->KeepEvent({.type = ResearchEventTypeName(e.type),
                          .step = static_cast<int64_t>(state_.trace.steps.size()),
                          .at = e.timestamp,
                          .json = DumpJson(ToJson(e))},
                         write_now);
  }

  // The report text streamed since the last piece, as one `streaming` event
  // (the first fragment's round and time).
  void KeepDraft(bool write_now) {
    if (draft_.empty()) return;
    ResearchEvent piece = draft_start_;
    piece.message = Preview(draft_, 160);
    piece.data = Json{{"text", std::move(draft_)}};
    draft_.clear();
    Keep(piece, write_now);
  }

  static constexpr size_t kReportPiece = 240;  // characters of report text per stored event
  std::unique_ptr<RunRecorder> recorder_;
  std::chrono::steady_clock::time_point started_;
  std::string draft_;           // report text not stored yet
  ResearchEvent draft_start_;   // its first fragment
  double base_elapsed_ms_ = 0;
  RunState state_;
  size_t checkpointed_steps_ = 0;  // steps stored with the last checkpoint
};

// The settings every research shares (new or resumed) from its stored inputs.
Status ApplyInputs(const Json& inputs, ResearchConfig& config) {
  const Json& options = inputs.value("options", Json::object());
  config.max_rounds = static_cast<int>(std::clamp<int64_t>(IntegerOr(options, "max_rounds", 5), 1, 100));
  const double timeout = NumberOr(options, "timeout_s", 600);
  if (!(timeout >= 0 && timeout <= kMaxTimeoutS)) return Status::InvalidArgument("timeout_s out of range");
  config.timeout = Millis(static_cast<int64_t>(std::ceil(timeout * 1000.0)));  // as the front ends round
  config.token_budget = std::clamp<int64_t>(IntegerOr(options, "token_budget", 50'000), 0, 1'000'000'000);
  config.sources.clear();
  for (const Json& s : inputs.value("sources", Json::array())) {
    if (!s.is_string()) return Status::InvalidArgument("sources: not a list of names");
    config.sources.push_back(s.get<std::string>());
  }
  config.results_per_search = static_cast<int>(std::clamp<int64_t>(IntegerOr(inputs, "results", 5), 1, 100));
  config.literature.client.online = BoolOr(inputs, "online", false);
  config.literature.client.cache_path = StringOr(inputs, "cache");
  config.memory_path = StringOr(inputs, "memory");
  // The approval rules over the search agent's tools (each in the literature pack).
  config.needs_approval = nullptr;
  std::vector<std::string> rules;
  for (const Json& r : inputs.value("require_approval", Json::array())) {
    if (!r.is_string()) return Status::InvalidArgument("require_approval: not a list of rules");
    rules.push_back(r.get<std::string>());
  }
  if (rules.empty()) return Status::OK();
  Result<std::vector<std::string>> checked = CheckApprovalRules(rules);
  if (!checked.ok()) return checked.status();
  Result<std::shared_ptr<ToolRegistry>> tools = ResearchSearchTools(config, std::make_shared<ResearchEvidenceSink>());
  if (!tools.ok()) return tools.status();
  std::map<std::string, std::string> packs;
  for (const std::string& name : (*tools)->Names()) {
    if (name != kSubmitSearchTool) packs[name] = "literature";
  }
  Result<std::function<bool(const ToolCall&, const ToolSpec&)>> needs = ApprovalPredicate(*checked, **tools, packs);
  if (!needs.ok()) return needs.status();
  config.needs_approval = std::move(*needs);
  return Status::OK();
}

}  // namespace

std::string ResearchRunStatus(const ResearchOutcome& out) {
  if (!out.status.ok()) return "error";
  const std::string& stop = out.stop_reason;
  if (stop == "judge_approved" || stop == "report_written") return "finished";
  if (stop == "max_rounds") return "max_steps";
  if (stop == "timeout") return "timeout";
  if (stop == "token_budget") return "budget";
  if (stop == "cancelled") return "interrupted";
  if (stop == "awaiting_approval") return "awaiting_approval";
  return "error";
}

Result<std::shared_ptr<ToolRegistry>> ResearchDecisionTools(const RunRecord& run) {
  ResearchConfig config;
  if (Status s = ApplyInputs(run.inputs, config); !s.ok()) {
    return Status::InvalidArgument("run '" + run.id + "': " + s.message());
  }
  return ResearchSearchTools(config, std::make_shared<ResearchEvidenceSink>());
}

Result<std::unique_ptr<PreparedResearch>> PrepareResearch(const RunService& service, const ResearchStart& start) {
  if (IsBlank(start.question)) return Status::InvalidArgument("the question is empty");
  std::vector<std::string> sources;
  for (const std::string& s : start.sources) {
    if (s != "pubmed" && s != "trials" && s != "preprints") {
      return Status::InvalidArgument("the sources (sources): unknown source '" + PrintableLine(s) +
                                     "' (pubmed, trials, preprints)");
    }
    if (std::find(sources.begin(), sources.end(), s) == sources.end()) sources.push_back(s);
  }
  if (sources.empty()) {
    return Status::InvalidArgument("the sources (sources): name at least one of pubmed, trials, preprints");
  }
  if (start.max_rounds < 1 || start.max_rounds > 100) {
    return Status::InvalidArgument("the rounds (max_rounds) must be between 1 and 100");
  }
  if (!(start.timeout_s >= 0 && start.timeout_s <= kMaxTimeoutS)) {
    return Status::InvalidArgument("the timeout (timeout_s) must be between 0 and a week");
  }
  if (start.token_budget < 0) return Status::InvalidArgument("the token budget (token_budget) must not be negative");
  // The literature tools' schema allows 1..50 records per search: more made
  // every rules-planner search fail its argument check (a report on 0 records).
  if (start.results < 1 || start.results > 50) {
    return Status::InvalidArgument("the records per search (results) must be between 1 and 50 (the literature "
                                   "tools' limit)");
  }
  if (!start.replay_path.empty() && start.cache_path.empty()) {
    return Status::InvalidArgument("a recording (replay_path) is imported into a literature cache the user names "
                                   "(cache_path), never silently into the default one");
  }
  // The databases it keeps: a device or a FIFO there is refused before any work.
  if (!start.cache_path.empty()) {
    if (Status s = CheckRegularOrNew(start.cache_path, "literature cache (cache_path)"); !s.ok()) return s;
  }
  if (!start.memory_path.empty()) {
    if (Status s = CheckRegularOrNew(start.memory_path, "research memory (memory_path)"); !s.ok()) return s;
  }
  Result<std::string> provider =
      ResolveProvider(start.planner, start.model.protocol, !start.model.url.empty(), /*app_has_planner=*/true);
  if (!provider.ok()) return provider.status();

  auto prepared = std::make_unique<PreparedResearch>();
  prepared->question = Trim(start.question);
  prepared->out_path = AbsolutePath(start.out_path);
  prepared->report_path = AbsolutePath(start.report_path);
  const bool rules = *provider == "rules";
  const Json inputs = {{"message", prepared->question},
                       {"planner", rules ? "rules" : "model"},
                       {"sources", sources},
                       {"results", start.results},
                       {"online", start.online},
                       {"cache", AbsolutePath(start.cache_path)},
                       {"memory", AbsolutePath(start.memory_path)},
                       {"out", prepared->out_path},
                       {"report", prepared->report_path},
                       {"require_approval", start.require_approval},
                       {"options",
                        {{"max_rounds", start.max_rounds},
                         {"timeout_s", start.timeout_s},
                         {"token_budget", start.token_budget}}}};
  if (Status s = ApplyInputs(inputs, prepared->config); !s.ok()) {
    return inputs["require_approval"].empty() ? s : s.WithContext("the approval rules (require_approval)");
  }
  if (!rules) {
    Result<std::shared_ptr<ChatModel>> model = service.BuildModel(start.model);
    if (!model.ok()) return model.status();
    prepared->config.model = *model;
  }
  prepared->run = RunRecord{.app = "research",
                            .inputs = inputs,
                            .model = rules ? Json{{"name", "research-rules-planner"}, {"protocol", "rules"}}
                                           : StoredModel(start.model)};
  // The first work, once every check passed.
  if (!start.replay_path.empty()) {
    Result<int> imported = ImportLiteratureRecording(start.replay_path, start.cache_path);
    if (!imported.ok()) {
      return Status::InvalidArgument("the recording (replay_path): " + imported.status().message());
    }
    prepared->imported = *imported;
  }
  return prepared;
}

Result<std::unique_ptr<PreparedResearch>> PrepareResearchResume(const RunService& service, const std::string& run_id,
                                                                const ResumeSpec& spec) {
  if (!service.store()) return Status::FailedPrecondition("resuming a run needs a run store (store)");
  Result<RunRecord> run = service.store()->Get(run_id);
  if (!run.ok()) return run.status();
  if (run->app != "research") return Status::InvalidArgument("run '" + run_id + "' is not a research run");
  auto prepared = std::make_unique<PreparedResearch>();
  prepared->run = std::move(*run);
  prepared->resumed = true;
  const Json& inputs = prepared->run.inputs;
  prepared->question = StringOr(inputs, "message");
  if (IsBlank(prepared->question)) return Status::InvalidArgument("run '" + run_id + "' has no question stored");
  if (Status s = ApplyInputs(inputs, prepared->config); !s.ok()) {
    return Status::InvalidArgument("run '" + run_id + "': " + s.message());
  }
  prepared->out_path = StringOr(inputs, "out");
  prepared->report_path = StringOr(inputs, "report");
  Result<std::optional<RunState>> state = service.store()->LatestState(run_id);
  if (!state.ok()) return state.status();
  if (!state->has_value()) return Status::FailedPrecondition("run '" + run_id + "' has no checkpoint to resume from");
  prepared->state = std::move(**state);
  for (const std::string& call : prepared->state.awaiting_approval) {
    if (!prepared->state.approvals.count(call)) {
      return Status::FailedPrecondition("run '" + run_id + "' still waits for a decision on " + Printable(call));
    }
  }
  prepared->config.approvals = prepared->state.approvals;
  // Before its first graph checkpoint a research starts again (in the same row).
  const Json& checkpoint = prepared->state.app;
  prepared->config.resume_from = checkpoint;
  const std::string planner = checkpoint.is_null() ? StringOr(inputs, "planner", "rules")
                                                   : StringOr(checkpoint, "planner", "rules");
  if (planner == "model") {
    const ModelSettings settings =
        spec.model.url.empty() ? ModelFromStored(prepared->run.model, spec.model.api_key) : spec.model;
    if (settings.url.empty()) {
      return Status::InvalidArgument("run '" + run_id + "' has no model URL stored; give the model URL (llm_url)");
    }
    Result<std::shared_ptr<ChatModel>> model = service.BuildModel(settings);
    if (!model.ok()) return model.status();
    prepared->config.model = *model;
  }
  return prepared;
}

ResearchRun RunPreparedResearch(RunService& service, std::unique_ptr<PreparedResearch> prepared,
                                const ResearchHooks& hooks) {
  ResearchConfig& config = prepared->config;
  config.cancel = hooks.cancel;
  config.approve = hooks.approve;
  if (config.needs_approval && !service.store() && !hooks.approve) {
    ResearchRun refused;
    refused.status = "error";
    refused.outcome.status = Status::FailedPrecondition(
        "searches that wait for approval need a run store to wait in (or an approver that decides them at once)");
    return refused;
  }
  std::unique_ptr<RunRecorder> recorder;
  if (service.store()) {
    recorder = std::make_unique<RunRecorder>(service.store(), prepared->run, hooks.warn, prepared->resumed);
  }
  ResearchRecording recording(std::move(recorder), *prepared);
  // RunService::Cancel stops it (it ends interrupted).
  std::shared_ptr<void> tracked =
      recording.run_id().empty() ? nullptr : service.TrackRun(recording.run_id(), hooks.cancel);
  if (service.store() && hooks.on_started) {
    hooks.on_started(prepared->resumed ? prepared->run.id : recording.run_id());
  }
  config.on_event = [&recording, &hooks](const ResearchEvent& e) {
    recording.Event(e);  // the store's copy first
    if (hooks.on_event) hooks.on_event(e);
  };
  config.on_agent_run = [&recording](int round, const std::string& agent, const RunResult& run) {
    recording.AgentRun(round, agent, run);
  };
  config.on_checkpoint = [&recording](const Json& checkpoint) { recording.Checkpoint(checkpoint); };
  ResearchRun out;
  out.outcome = RunResearch(prepared->question, config);
  out.status = recording.Finish(out.outcome);
  out.stored = service.store() != nullptr;
  out.run_id = out.stored ? recording.run_id() : "";
  if (!out.stored) out.status = ResearchRunStatus(out.outcome);
  return out;
}

}  // namespace medreact::service
