// `medreact runs resume` for extract, cxr and research runs. See runs_resume_apps.h.
#include "cli/runs_resume_apps.h"

#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/cli_io.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/setting_flags.h"
#include "cli/store_flags.h"
#include "core/file_io.h"
#include "medreact/json_schema.h"
#include "medreact/message.h"

namespace medreact::cli {
namespace {

constexpr char kWho[] = "medreact runs";

int Fail(const std::string& message) {
  std::cerr << kWho << ": " << WithFlagNames(message) << "\n";
  return kExitBadInput;
}

// The file a stored extraction read, read again and checked against its digest.
Result<std::string> ReadAgain(const std::string& run_id, const std::string& path, const std::string& digest,
                              const char* what, size_t max_bytes) {
  if (path.empty() || path == "-") {
    return Status::FailedPrecondition("run '" + run_id + "' read its " + what +
                                      " from standard input, which cannot be read again; run 'medreact extract' "
                                      "again");
  }
  Result<std::string> text = ReadInputFile(path, what, max_bytes);
  if (!text.ok()) {
    return Status::FailedPrecondition("run '" + run_id + "': cannot read its " + what +
                                      " again: " + text.status().message());
  }
  if (TextDigest(*text) != digest) {
    return Status::FailedPrecondition("run '" + run_id + "': the " + what + " '" + path +
                                      "' changed since the run started, so its checkpoint does not belong to it; "
                                      "put the original back or run 'medreact extract' again");
  }
  return text;
}

int ResumeExtract(const std::shared_ptr<RunStore>& store, const RunRecord& run, const AppResumeFlags& flags) {
  const std::string& id = run.id;
  Result<ExtractionInputs> in = ExtractionInputsFromJson(run.inputs);
  if (!in.ok()) return Fail("run '" + id + "': " + in.status().message());
  Result<std::string> note = ReadAgain(id, in->note_path, in->note_digest, "note", kMaxTextInputBytes);
  if (!note.ok()) return Fail(note.status().message());
  Result<std::string> schema_text = ReadAgain(id, in->schema_path, in->schema_digest, "schema", kMaxJsonConfigBytes);
  if (!schema_text.ok()) return Fail(schema_text.status().message());
  Result<Json> schema = ParseJson(*schema_text);
  if (!schema.ok() || !schema->is_object() || !JsonSchema::Compile(*schema).ok()) {
    return Fail("run '" + id + "': the schema '" + in->schema_path + "' is not a usable JSON Schema");
  }
  const RunOutputs outputs{.trace_path = flags.trace_path,
                           .events_path = flags.events_path,
                           .result_path = in->out_path,
                           .verbose = flags.verbose,
                           .stream = flags.stream};
  if (Status s = RunReporter::CheckPaths(outputs); !s.ok()) return Fail(s.message());

  ExtractionConfig config;
  config.max_iterations = in->max_iterations;
  config.tool_call_budget = in->tool_call_budget;
  config.max_validation_retries = in->max_validation_retries;
  config.timeout = in->timeout;
  config.stream = flags.stream;
  if (!in->corpus_dir.empty()) {
    Result<RagIndex> index = RagIndex::Open(in->corpus_dir, {.db_path = in->rag_db});
    if (!index.ok()) return Fail("run '" + id + "': its corpus: " + index.status().message());
    config.rag = std::make_shared<RagIndex>(std::move(*index));
  }
  if (!in->extras_path.empty()) {
    Result<ExtrasFile> extras = ExtrasFile::Load(in->extras_path);
    if (!extras.ok()) return Fail("run '" + id + "': its hints file: " + extras.status().message());
    config.extras = std::make_shared<const ExtrasFile>(std::move(*extras));
  }
  if (in->planner == "model") {
    const ModelFlags model_flags =
        HasModel(flags.model) ? flags.model : ModelFlagsFromStored(run.model, flags.model.api_key);
    if (!HasModel(model_flags)) return Fail("run '" + id + "' has no model URL stored; give --llm-url");
    Result<std::shared_ptr<ChatModel>> model = MakeModel(model_flags, {});
    if (!model.ok()) return Fail(model.status().message());
    config.model = *model;
  }
  Result<std::optional<RunState>> state = store->LatestState(id);
  if (!state.ok()) return Fail(state.status().message());
  if (!state->has_value()) return Fail("run '" + id + "' has no checkpoint to resume from");

  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
  if (!reporter.ok()) return Fail(reporter.status().message());
  config.on_event = (*reporter)->sink();
  config.cancel = InstallInterruptHandlers();
  std::unique_ptr<RunRecorder> recorder = MakeRunRecorder(store, run, std::cerr, kWho, /*resumed=*/true);
  config.on_checkpoint = recorder->Hook();
  config.on_event = recorder->Events(std::move(config.on_event));

  Result<ExtractionOutcome> outcome =
      ResumeExtraction({.note = *note, .schema = *schema, .label = in->label}, config, **state);
  if (!outcome.ok()) return Fail("run '" + id + "': " + outcome.status().message());
  FinishRecordedExtraction(recorder.get(), *outcome, std::cerr, kWho);
  return ExitCodeAfterInterrupt(ReportExtraction(*outcome, **reporter, in->require_model, kWho));
}

}  // namespace

int ResumeAppRun(const std::shared_ptr<RunStore>& store, const RunRecord& run, const AppResumeFlags& flags) {
  if (run.app == "extract") return ResumeExtract(store, run, flags);
  return Fail("resuming a '" + Printable(run.app) + "' run is not supported here");
}

void FinishRecordedExtraction(RunRecorder* recorder, const ExtractionOutcome& outcome, std::ostream& err,
                              const std::string& who) {
  if (!recorder) return;
  RunResult end = outcome.first_run;  // its trace: the recorded run's steps
  end.status = outcome.status;
  end.answer = DumpJson(outcome.result);
  end.final_fields = Json::parse(end.answer);
  end.answer_accepted = outcome.valid;
  if (outcome.fell_back) end.error = "the model never answered; the offline planner extracted instead";
  FinishRecordedRun(recorder, end, err, who);
}

std::string AbsoluteInputPath(const std::string& path) {
  if (path.empty() || path == "-") return path;
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

std::string NewRunId() { return "run_" + MintToolCallId().substr(5, 16); }

int ReportExtraction(const ExtractionOutcome& outcome, const RunReporter& reporter, bool require_model,
                     const std::string& who) {
  if (outcome.fell_back) {
    std::cerr << who << ": the model never answered (" << outcome.model_failure
              << "); the offline planner extracted instead\n";
  }
  int exit_code = outcome.valid ? kExitOk : kExitRunFailed;
  if (outcome.fell_back && require_model) exit_code = kExitRunFailed;
  if (Status s = reporter.WriteTrace(outcome.trace); !s.ok()) {
    std::cerr << who << ": " << s.message() << "\n";
    exit_code = kExitRunFailed;
  }
  const std::string text = DumpJson(outcome.result, 2) + "\n";
  if (Status s = reporter.WriteResult(text); !s.ok()) {
    std::cerr << who << ": " << s.message() << "\n";
    exit_code = kExitRunFailed;
  }
  std::cout << text;
  if (!outcome.valid) {
    std::cerr << who
              << ": the answer does not validate against the schema; the best partial result "
                 "and its problems are in 'validation_errors'\n";
  }
  return exit_code;
}

}  // namespace medreact::cli
