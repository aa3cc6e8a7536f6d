// Extraction runs in the run service (seed 002): a clinical note and a JSON
// Schema → a JSON object that validates, started, recorded and resumed the
// same way for every front end (the CLI's `extract` and `runs resume` now;
// the server next).
//
//   RunService service(store);
//   Result<std::unique_ptr<PreparedExtract>> p = PrepareExtract(service, {.note = text, .schema_text = s});
//   Result<ExtractRan> r = RunExtractPrepared(service, std::move(*p), hooks);   // r->outcome.result
//
// The note and the schema are given as text (a front end reads them: a
// file, an upload); their paths and digests are stored, so a resume reads
// them again and refuses a file that changed since the run started.
#ifndef MEDREACT_SERVICE_EXTRACT_RUNS_H_
#define MEDREACT_SERVICE_EXTRACT_RUNS_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/extract/extract_app.h"
#include "service/run_service.h"

namespace medreact::service {

struct ExtractStart {
  std::string note;         // the clinical note's text
  std::string note_path;    // where it came from (made absolute for the store); "" or "-": not a file,
                            // so the run cannot be resumed
  std::string schema_text;  // the JSON Schema's text
  std::string schema_path;  // as note_path
  std::string label;        // context from the requester, e.g. an expected diagnosis (not proof)
  std::string corpus_dir;   // guideline documents for query_rag; "" = none
  std::string rag_db;       // where the corpus index lives; "" = the default
  std::string extras_path;  // a hints file for query_extras; "" = none
  std::string out_path;     // where the front end writes the result (stored: a resume writes it again)
  std::string planner = "auto";  // model | rules | auto (the model when its URL is set)
  bool require_model = false;    // stored: a rules fallback is a failure for the front end
  int max_iterations = 20;       // model turns over the whole extraction (1..200)
  int tool_call_budget = 40;     // tool calls over the whole extraction (1..1000)
  int max_validation_retries = 2;  // answers sent back for correction (0..10)
  double timeout_s = 600;        // the whole extraction
  ModelSettings model;
};

// An extraction checked and assembled, ready to run: a new one
// (PrepareExtract: `run.id` empty, no state) or a stored one to go on with
// (PrepareExtractResume).
struct PreparedExtract {
  RunRecord run;
  ExtractionInputs inputs;
  std::string note;
  Json schema;
  ExtractionConfig config;        // limits, model, corpus, hints; no hooks
  std::optional<RunState> state;  // a resume's last checkpoint
  std::vector<std::string> warnings;  // about the inputs (the corpus's files), for the person
};

struct ExtractRan {
  ExtractionOutcome outcome;
  std::string run_id;  // "" when not recorded
  std::string status;  // as stored (finished, interrupted, error, ...)
  bool stored = false;
};

// Every check before any work: the note (not blank), the schema (a JSON
// object that compiles), the limits, the corpus (opened, indexed), the hints
// file, the planner and its model.
Result<std::unique_ptr<PreparedExtract>> PrepareExtract(const RunService& service, ExtractStart start);
// A stored extraction (after RunService::PrepareResume): the note and schema
// read again from their stored paths (refused when their digest changed),
// the corpus, the hints, the model (the spec's, else the stored one) and the
// checkpoint, before any work.
Result<std::unique_ptr<PreparedExtract>> PrepareExtractResume(const RunService& service, const std::string& run_id,
                                                              const ResumeSpec& spec);
// Runs a prepared extraction (new or resumed), recording it when the service
// has a store: the first agent run's steps, and as result the extraction's
// JSON (answer and final_fields) with its validity. FailedPrecondition (nothing
// run) when a resume's checkpoint does not fit the extraction.
Result<ExtractRan> RunExtractPrepared(RunService& service, std::unique_ptr<PreparedExtract> prepared,
                                      const RunHooks& hooks);

}  // namespace medreact::service

#endif  // MEDREACT_SERVICE_EXTRACT_RUNS_H_
