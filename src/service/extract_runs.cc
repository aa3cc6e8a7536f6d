// Extraction runs in the run service. See extract_runs.h.
#include "service/extract_runs.h"

#include <cmath>
#include <utility>

#include "core/file_io.h"
#include "core/text_util.h"
#include "medreact/json_schema.h"
#include "store/run_recorder.h"

namespace medreact::service {
namespace {

// The schema's text as a JSON Schema object that compiles; `where` names it.
Result<Json> ParseSchema(const std::string& text, const std::string& where) {
  Result<Json> schema = ParseJson(text);
  if (!schema.ok()) return Status::InvalidArgument(where + " is not JSON: " + schema.status().message());
  if (!schema->is_object()) return Status::InvalidArgument(where + " must hold a JSON Schema object");
  if (Result<JsonSchema> compiled = JsonSchema::Compile(*schema); !compiled.ok()) {
    return Status::InvalidArgument(where + " is not a usable JSON Schema: " + compiled.status().message());
  }
  return schema;
}

// The corpus and the hints file of `inputs` on `config`; the corpus's
// warnings (files it could not index) into `warnings`.
Status OpenHelpers(const ExtractionInputs& inputs, ExtractionConfig& config, std::vector<std::string>* warnings) {
  if (!inputs.corpus_dir.empty()) {
    Result<RagIndex> index = RagIndex::Open(inputs.corpus_dir, {.db_path = inputs.rag_db});
    if (!index.ok()) return index.status().WithContext("the corpus (corpus_dir)");
    for (const std::string& w : index->last_update().warnings) warnings->push_back("the corpus (corpus_dir): " + w);
    config.rag = std::make_shared<RagIndex>(std::move(*index));
  }
  if (!inputs.extras_path.empty()) {
    Result<ExtrasFile> extras = ExtrasFile::Load(inputs.extras_path);
    if (!extras.ok()) return extras.status().WithContext("the hints file (extras_path)");
    config.extras = std::make_shared<const ExtrasFile>(std::move(*extras));
  }
  return Status::OK();
}

void ApplyLimits(const ExtractionInputs& inputs, ExtractionConfig& config) {
  config.max_iterations = inputs.max_iterations;
  config.tool_call_budget = inputs.tool_call_budget;
  config.max_validation_retries = inputs.max_validation_retries;
  config.timeout = inputs.timeout;
}

// A file a stored extraction read, read again and checked against its digest.
Result<std::string> ReadAgain(const std::string& run_id, const std::string& path, const std::string& digest,
                              const char* what, size_t max_bytes) {
  if (path.empty() || path == "-") {
    return Status::FailedPrecondition("run '" + run_id + "' was given its " + what +
                                      " as text (standard input, or a request's body), which is not kept, so it "
                                      "cannot be read again; start the extraction again");
  }
  Result<std::string> text = ReadUserFile(path, what, max_bytes);
  if (!text.ok()) {
    return Status::FailedPrecondition("run '" + run_id + "': cannot read its " + what +
                                      " again: " + text.status().message());
  }
  if (TextDigest(*text) != digest) {
    return Status::FailedPrecondition("run '" + run_id + "': the " + what + " '" + path +
                                      "' changed since the run started, so its checkpoint does not belong to it; "
                                      "put the original back or start the extraction again");
  }
  return text;
}

Status CheckRange(int value, int low, int high, const char* what) {
  if (value >= low && value <= high) return Status::OK();
  return Status::InvalidArgument(std::string(what) + " must be " + std::to_string(low) + ".." +
                                 std::to_string(high) + ", got " + std::to_string(value));
}

}  // namespace

Result<std::unique_ptr<PreparedExtract>> PrepareExtract(const RunService& service, ExtractStart start) {
  if (IsBlank(start.note)) return Status::InvalidArgument("the note (note_path) is empty");
  Result<Json> schema = ParseSchema(start.schema_text, "the schema (schema_path)");
  if (!schema.ok()) return schema.status();
  if (Status s = CheckRange(start.max_iterations, 1, 200, "the model turns (max_iterations)"); !s.ok()) return s;
  if (Status s = CheckRange(start.tool_call_budget, 1, 1000, "the tool calls (tool_call_budget)"); !s.ok()) return s;
  if (Status s = CheckRange(start.max_validation_retries, 0, 10, "the corrections (max_validation_retries)");
      !s.ok()) {
    return s;
  }
  if (!(start.timeout_s > 0) || start.timeout_s > 86'400.0 * 7) {
    return Status::InvalidArgument("the seconds for the extraction (timeout) must be above 0 and at most a week");
  }
  Result<std::string> provider = ResolveProvider(start.planner, start.model.protocol, !start.model.url.empty(),
                                                 /*app_has_planner=*/true);
  if (!provider.ok()) return provider.status();

  auto prepared = std::make_unique<PreparedExtract>();
  ExtractionInputs& in = prepared->inputs;
  in.note_path = start.note_path == "-" ? "" : AbsoluteInputPath(start.note_path);
  in.note_digest = TextDigest(start.note);
  in.schema_path = start.schema_path == "-" ? "" : AbsoluteInputPath(start.schema_path);
  in.schema_digest = TextDigest(start.schema_text);
  in.label = start.label;
  in.corpus_dir = AbsoluteInputPath(start.corpus_dir);
  in.rag_db = AbsoluteInputPath(start.rag_db);
  in.extras_path = AbsoluteInputPath(start.extras_path);
  in.out_path = AbsoluteInputPath(start.out_path);
  in.planner = *provider == "rules" ? "rules" : "model";
  in.require_model = start.require_model;
  in.max_iterations = start.max_iterations;
  in.tool_call_budget = start.tool_call_budget;
  in.max_validation_retries = start.max_validation_retries;
  in.timeout = Millis(static_cast<int64_t>(std::ceil(start.timeout_s * 1000.0)));
  ApplyLimits(in, prepared->config);
  if (Status s = OpenHelpers(in, prepared->config, &prepared->warnings); !s.ok()) return s;
  prepared->run.app = "extract";
  prepared->run.model = Json{{"name", "extraction-rules-planner"}, {"protocol", "rules"}};
  if (in.planner == "model") {
    Result<std::shared_ptr<ChatModel>> model = service.BuildModel(start.model);
    if (!model.ok()) return model.status();
    prepared->config.model = std::move(*model);
    prepared->run.model = StoredModel(start.model);
  }
  prepared->run.inputs = ExtractionInputsToJson(in);
  prepared->note = std::move(start.note);
  prepared->schema = std::move(*schema);
  return prepared;
}

Result<std::unique_ptr<PreparedExtract>> PrepareExtractResume(const RunService& service, const std::string& run_id,
                                                              const ResumeSpec& spec) {
  const std::shared_ptr<RunStore>& store = service.store();
  if (!store) return Status::FailedPrecondition("no run store: runs are not recorded, so none can be resumed");
  Result<RunRecord> run = store->Get(run_id);
  if (!run.ok()) return run.status();
  if (run->app != "extract") return Status::InvalidArgument("run '" + run_id + "' is not an extract run");
  auto prepared = std::make_unique<PreparedExtract>();
  prepared->run = std::move(*run);
  Result<ExtractionInputs> in = ExtractionInputsFromJson(prepared->run.inputs);
  if (!in.ok()) return Status::InvalidArgument("run '" + run_id + "': " + in.status().message());
  prepared->inputs = std::move(*in);
  const ExtractionInputs& inputs = prepared->inputs;
  Result<std::string> note = ReadAgain(run_id, inputs.note_path, inputs.note_digest, "note", kMaxTextInputBytes);
  if (!note.ok()) return note.status();
  Result<std::string> schema_text =
      ReadAgain(run_id, inputs.schema_path, inputs.schema_digest, "schema", kMaxJsonConfigBytes);
  if (!schema_text.ok()) return schema_text.status();
  Result<Json> schema = ParseSchema(*schema_text, "the schema '" + inputs.schema_path + "'");
  if (!schema.ok()) return Status::InvalidArgument("run '" + run_id + "': " + schema.status().message());
  ApplyLimits(inputs, prepared->config);
  prepared->config.stream = spec.stream;
  if (Status s = OpenHelpers(inputs, prepared->config, &prepared->warnings); !s.ok()) {
    return Status::InvalidArgument("run '" + run_id + "': " + s.message());
  }
  if (inputs.planner == "model") {
    const ModelSettings settings =
        spec.model.url.empty() ? ModelFromStored(prepared->run.model, spec.model.api_key) : spec.model;
    if (settings.url.empty()) {
      return Status::InvalidArgument("run '" + run_id + "' has no model URL stored; give the model URL (llm_url)");
    }
    Result<std::shared_ptr<ChatModel>> model = service.BuildModel(settings);
    if (!model.ok()) return model.status();
    prepared->config.model = std::move(*model);
  }
  Result<std::optional<RunState>> state = store->LatestState(run_id);
  if (!state.ok()) return state.status();
  if (!state->has_value()) return Status::FailedPrecondition("run '" + run_id + "' has no checkpoint to resume from");
  prepared->state = std::move(**state);
  prepared->note = std::move(*note);
  prepared->schema = std::move(*schema);
  return prepared;
}

Result<ExtractRan> RunExtractPrepared(RunService& service, std::unique_ptr<PreparedExtract> prepared,
                                      const RunHooks& hooks) {
  ExtractionConfig config = prepared->config;
  config.cancel = hooks.cancel;
  const bool resumed = prepared->state.has_value();
  std::unique_ptr<RunRecorder> recorder;
  if (service.store()) recorder = std::make_unique<RunRecorder>(service.store(), prepared->run, hooks.warn, resumed);
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
  const ExtractionTask request{.note = prepared->note, .schema = prepared->schema, .label = prepared->inputs.label};

  ExtractRan out;
  if (resumed) {
    Result<ExtractionOutcome> outcome = ResumeExtraction(request, config, *prepared->state);
    if (!outcome.ok()) {  // nothing ran: the checkpoint does not fit; the run stays resumable
      return Status::FailedPrecondition("run '" + prepared->run.id + "': " + outcome.status().message());
    }
    out.outcome = std::move(*outcome);
  } else {
    out.outcome = RunExtraction(request, config);
  }
  tracked.reset();
  out.status = RunStatusName(out.outcome.status);
  if (recorder) {
    RunResult end = out.outcome.first_run;  // its trace: the recorded run's steps
    end.status = out.outcome.status;
    end.answer = DumpJson(out.outcome.result);
    end.final_fields = out.outcome.result;
    end.answer_accepted = out.outcome.valid;
    if (out.outcome.fell_back) end.error = "the model never answered; the offline planner extracted instead";
    const bool interrupted = hooks.cancel.cancelled() && end.status == RunStatus::kError;
    recorder->Finish(end, interrupted);
    out.status = StoredRunStatus(end, interrupted);
    out.run_id = recorder->run_id();
    out.stored = !out.run_id.empty();
    if (out.stored && !started && hooks.on_started) hooks.on_started(out.run_id);
  }
  return out;
}

}  // namespace medreact::service
