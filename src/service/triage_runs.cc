// Triage runs in the run service. See triage_runs.h.
#include "service/triage_runs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <utility>

#include "core/printable.h"
#include "core/text_util.h"
#include "store/run_recorder.h"
#include "tools/fhir/fhir_rest.h"

namespace medreact::service {
namespace {

// As the CLI's --timeout: a fraction of a millisecond is a whole one, never 0.
Millis CeilMillis(double seconds) { return Millis(static_cast<int64_t>(std::ceil(seconds * 1000.0))); }

Status CheckLimits(const TriageSettings& s) {
  if (s.max_steps < 1 || s.max_steps > 100) {
    return Status::InvalidArgument("the model turns per investigation (max_steps) must be 1..100, got " +
                                   std::to_string(s.max_steps));
  }
  for (const auto& [value, name] : {std::pair{s.timeout_s, "timeout"}, std::pair{s.tool_timeout_s, "tool_timeout"}}) {
    if (!(value > 0) || value > 86'400.0 * 7) {
      return Status::InvalidArgument(std::string("the seconds (") + name + ") must be above 0 and at most a week");
    }
  }
  return Status::OK();
}

}  // namespace

bool TriageIsRecorded(const TriageSettings& settings) {
  if (settings.record_always) return true;
  if (!settings.agent) return false;
  Result<std::string> provider = ResolveProvider(settings.planner, settings.model.protocol,
                                                 !settings.model.url.empty(), /*app_has_planner=*/true);
  return provider.ok() && *provider != "rules";
}

Result<TriagePlan> PlanTriage(const RunService& service, const TriageSettings& settings) {
  if (Status s = CheckLimits(settings); !s.ok()) return s;
  TriagePlan plan;
  plan.config.agent = settings.agent;
  plan.config.max_steps = settings.max_steps;
  plan.config.timeout = CeilMillis(settings.timeout_s);
  plan.config.tool_timeout = CeilMillis(settings.tool_timeout_s);
  if (!settings.agent) return plan;
  Result<std::string> provider = ResolveProvider(settings.planner, settings.model.protocol,
                                                 !settings.model.url.empty(), /*app_has_planner=*/true);
  if (!provider.ok()) return provider.status();
  if (*provider == "rules") return plan;  // a config without a model: the rules planner
  // Built once here, so that a bad URL or protocol is refused before any
  // case runs rather than failing each case.
  if (Result<std::shared_ptr<ChatModel>> probe = service.BuildModel(settings.model); !probe.ok()) {
    return probe.status();
  }
  const ModelSettings model = settings.model;
  plan.make_model = [&service, model] { return service.BuildModel(model); };
  plan.stored_model = StoredModel(settings.model);
  return plan;
}

Result<std::unique_ptr<PreparedTriage>> PrepareTriage(const RunService& service, TriageStart start) {
  while (!start.findings.empty() && (start.findings.back() == '\n' || start.findings.back() == '\r')) {
    start.findings.pop_back();
  }
  if (IsBlank(start.findings)) return Status::InvalidArgument("the imaging findings (findings) are empty");
  if (start.base_priority && (*start.base_priority < 1 || *start.base_priority > 3)) {
    return Status::InvalidArgument("the base priority (base_priority) must be 1, 2 or 3, got " +
                                   std::to_string(*start.base_priority));
  }
  Result<TriagePlan> plan = PlanTriage(service, start.settings);
  if (!plan.ok()) return plan.status();
  Result<FhirStore> record = LoadFhirRecord(start.fhir_path);
  if (!record.ok()) return record.status();
  if (!start.as_of.empty()) {
    if (Status s = record->SetAsOf(start.as_of); !s.ok()) return s.WithContext("the as-of date (as_of)");
  }
  auto prepared = std::make_unique<PreparedTriage>();
  prepared->config = plan->config;
  prepared->record_always = start.settings.record_always;
  prepared->run.model = Json{{"name", start.settings.agent ? "triage-rules-planner" : "none"}, {"protocol", "rules"}};
  if (plan->make_model) {
    Result<std::shared_ptr<ChatModel>> model = plan->make_model();
    if (!model.ok()) return model.status();
    prepared->config.model = std::move(*model);
    prepared->run.model = plan->stored_model;
  }
  const TriageCase triage_case{.findings = start.findings, .base_priority = start.base_priority};
  prepared->inputs = MakeTriageInputs(start.fhir_path, start.as_of, triage_case, prepared->config);
  prepared->run.app = "triage";
  prepared->run.inputs = TriageInputsToJson(prepared->inputs);
  prepared->record = std::make_shared<const FhirStore>(std::move(record).value());
  return prepared;
}

Result<std::unique_ptr<PreparedTriage>> PrepareTriageResume(const RunService& service, const std::string& run_id,
                                                            const ResumeSpec& spec) {
  const std::shared_ptr<RunStore>& store = service.store();
  if (!store) return Status::FailedPrecondition("no run store: runs are not recorded, so none can be resumed");
  auto prepared = std::make_unique<PreparedTriage>();
  Result<RunRecord> run = store->Get(run_id);
  if (!run.ok()) return run.status();
  if (run->app != "triage") return Status::InvalidArgument("run '" + run_id + "' is not a triage run");
  prepared->run = std::move(*run);
  Result<TriageInputs> inputs = TriageInputsFromJson(prepared->run.inputs);
  if (!inputs.ok()) return Status::InvalidArgument("run '" + run_id + "': " + inputs.status().message());
  prepared->inputs = std::move(*inputs);
  if (!prepared->inputs.worklist_dir.empty()) {
    return Status::FailedPrecondition("run '" + run_id + "' is case '" + PrintableLine(prepared->inputs.case_name) +
                                      "' of the worklist '" + PrintableLine(prepared->inputs.worklist_dir) +
                                      "'; that worklist's resume goes on with it and writes its result there");
  }
  Result<std::optional<RunState>> state = store->LatestState(run_id);
  if (!state.ok()) return state.status();
  if (!state->has_value()) return Status::FailedPrecondition("run '" + run_id + "' has no checkpoint to resume from");
  prepared->state = std::move(**state);
  // The model: the spec's when it names one, else the stored one.
  const ModelSettings settings =
      spec.model.url.empty() ? ModelFromStored(prepared->run.model, spec.model.api_key) : spec.model;
  if (settings.url.empty()) {
    return Status::InvalidArgument("run '" + run_id + "' has no model URL stored; give the model URL (llm_url)");
  }
  Result<FhirStore> record = LoadFhirRecord(prepared->inputs.fhir_path);
  if (!record.ok()) return Status::InvalidArgument("run '" + run_id + "': " + record.status().message());
  if (!prepared->inputs.as_of.empty()) {
    if (Status s = record->SetAsOf(prepared->inputs.as_of); !s.ok()) {
      return Status::InvalidArgument("run '" + run_id + "': as_of: " + s.message());
    }
  }
  prepared->record = std::make_shared<const FhirStore>(std::move(record).value());
  Result<std::shared_ptr<ChatModel>> model = service.BuildModel(settings);
  if (!model.ok()) return model.status();
  ApplyTriageLimits(prepared->inputs, prepared->config);
  prepared->config.model = std::move(*model);
  prepared->config.stream = spec.stream;
  return prepared;
}

TriageRan RunTriagePrepared(RunService& service, std::unique_ptr<PreparedTriage> prepared, const RunHooks& hooks) {
  TriageConfig config = prepared->config;
  config.cancel = hooks.cancel;
  const bool resumed = prepared->state.has_value();
  // Only a model's investigation is recorded (see the header), or any with record_always.
  std::unique_ptr<RunRecorder> recorder;
  if (service.store() && ((config.model && config.agent) || prepared->record_always)) {
    recorder = std::make_unique<RunRecorder>(service.store(), prepared->run, hooks.warn, resumed);
  }
  // Cancel finds the run from its id: a resumed run's now, a new one's at its first checkpoint.
  std::shared_ptr<void> tracked = resumed ? service.TrackRun(prepared->run.id, hooks.cancel) : nullptr;
  bool started = false;  // hooks.on_started called
  if (resumed && recorder && hooks.on_started) {
    started = true;
    hooks.on_started(prepared->run.id);
  }
  config.on_checkpoint = [&, hook = recorder ? recorder->Hook() : nullptr](const RunState& s) {
    if (!tracked && !s.trace.run_id.empty()) tracked = service.TrackRun(s.trace.run_id, hooks.cancel);
    if (hook) hook(s);
    if (!started && recorder && !recorder->run_id().empty()) {
      started = true;
      if (hooks.on_started) hooks.on_started(recorder->run_id());
    }
  };
  config.on_event = recorder ? recorder->Events(hooks.on_event) : hooks.on_event;

  TriageRan out;
  out.outcome = resumed ? ResumeTriage(prepared->record, TriageCaseOf(prepared->inputs), config, *prepared->state)
                        : RunTriage(prepared->record, TriageCaseOf(prepared->inputs), config);
  tracked.reset();
  out.status = RunStatusName(out.outcome.status);
  if (recorder && out.outcome.model_run) {
    const bool interrupted = hooks.cancel.cancelled() && out.outcome.model_run->status == RunStatus::kError;
    recorder->Finish(*out.outcome.model_run, interrupted);  // a failure was reported as it happened
    out.status = StoredRunStatus(*out.outcome.model_run, interrupted);
    out.run_id = recorder->run_id();
    out.stored = !out.run_id.empty();
  } else if (recorder) {
    // The rules planner's run, or the base priority alone (record_always):
    // stored as it ended, the result as its final fields.
    RunResult end = TriageAsEndedRun(out.outcome);
    const bool interrupted = hooks.cancel.cancelled() && end.status == RunStatus::kError;
    recorder->Finish(end, interrupted);
    out.status = StoredRunStatus(end, interrupted);
    out.run_id = recorder->run_id();
    out.stored = !out.run_id.empty();
  }
  if (out.stored && !started && hooks.on_started) hooks.on_started(out.run_id);
  // A resume read the record from its absolute path; the result names it as the triage did.
  if (resumed) out.outcome.result["record"]["source"] = prepared->inputs.record_source;
  return out;
}

Result<std::unique_ptr<PreparedWorklist>> PrepareWorklist(const RunService& service, WorklistStart start) {
  if (start.concurrency < 1 || start.concurrency > 64) {
    return Status::InvalidArgument("the cases at once (concurrency) must be 1..64, got " +
                                   std::to_string(start.concurrency));
  }
  if (start.resume && start.out_dir.empty()) {
    return Status::InvalidArgument("a resumed worklist needs its output folder (out_dir): the folder of the earlier "
                                   "run");
  }
  Result<std::vector<std::string>> cases = ListWorklistCases(start.dir, start.out_dir);
  if (!cases.ok()) return cases.status();
  Result<TriagePlan> plan = PlanTriage(service, start.settings);
  if (!plan.ok()) return plan.status();
  if (!start.out_dir.empty()) {  // checked before any case runs
    struct stat st {};
    if (::stat(start.out_dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
      return Status::InvalidArgument("the output folder (out_dir) '" + start.out_dir + "' exists and is not a folder");
    }
    std::error_code ec;
    std::filesystem::create_directories(start.out_dir, ec);
    if (ec || ::access(start.out_dir.c_str(), W_OK) != 0) {
      return Status::InvalidArgument("cannot write to the output folder (out_dir) '" + start.out_dir + "'" +
                                     (ec ? ": " + ec.message() : ""));
    }
  }
  auto prepared = std::make_unique<PreparedWorklist>();
  prepared->dir = std::move(start.dir);
  prepared->cases = std::move(*cases);
  WorklistOptions& options = prepared->options;
  options.concurrency = start.concurrency;
  options.resume = start.resume;
  options.out_dir = std::move(start.out_dir);
  options.make_model = plan->make_model;
  options.triage = plan->config;
  if (plan->make_model) {
    options.store = service.store();  // a model's investigations are recorded
    options.model_identity = plan->stored_model;
  }
  if (start.settings.record_always && service.store()) {
    options.store = service.store();  // and with record_always every case (the server)
    options.record_always = true;
  }
  return prepared;
}

WorklistReport RunWorklistPrepared(RunService& service, std::unique_ptr<PreparedWorklist> prepared,
                                   const RunHooks& hooks) {
  (void)service;  // the store and the models were taken when it was prepared
  WorklistOptions options = std::move(prepared->options);
  options.triage.cancel = hooks.cancel;
  options.triage.on_event = hooks.on_event;
  options.on_warning = hooks.warn;
  return RunWorklist(prepared->dir, prepared->cases, options);
}

}  // namespace medreact::service
