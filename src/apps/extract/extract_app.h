// The agentic extraction app (seed 002): a clinical note + the user's JSON
// Schema → a JSON object that validates, filled by a continuous loop of
// reasoning and tool calls (query_rag, call_medical_function, query_extras).
//
//   ExtractionConfig config;               // model null → the offline planner
//   config.rag = index; config.extras = hints;   // optional
//   ExtractionOutcome out = RunExtraction({.note = text, .schema = schema}, config);
//
// The loop: one Agent run, whose answer check (AgentOptions::check_answer)
// validates each answer's JSON against the schema; a non-validating (or
// missing) answer goes back to the model with the problems listed, as a step
// of the same run, at most `max_validation_retries` times; then the best
// answer (the last one that parsed) is returned with its problems. Model
// turns (`max_iterations`) and tool calls (`tool_call_budget`) are the run's
// budgets, corrections included. When a configured model never answers
// (unreachable, refused), the offline planner extracts instead and the
// result says so. The trace is the run's: every attempt's steps.
//
// Durable runs (issue 14): `on_checkpoint` records the agent run as it goes
// (the run store), and ResumeExtraction goes on with a recorded run from its
// last checkpoint: the answers checked before it are read again from its
// steps, so the result is the one the uninterrupted run would have given.
#ifndef MEDREACT_APPS_EXTRACT_EXTRACT_APP_H_
#define MEDREACT_APPS_EXTRACT_EXTRACT_APP_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "apps/extract/extract_planner.h"
#include "medreact/agent.h"
#include "medreact/json.h"
#include "medreact/model.h"
#include "medreact/run_state.h"
#include "tools/rag/extras.h"
#include "tools/rag/rag_index.h"

namespace medreact {

struct ExtractionConfig {
  // The model; null = the offline planner.
  std::shared_ptr<ChatModel> model;
  std::shared_ptr<RagIndex> rag;             // query_rag offered when set. Default: none
  std::shared_ptr<const ExtrasFile> extras;  // query_extras offered when set. Default: none
  bool fallback_to_rules = true;   // model never answered → offline planner. Default: true
  int max_iterations = 20;         // model turns over the whole extraction (seed 002). Default: 20
  int tool_call_budget = 40;       // tool calls over the whole extraction. Default: 40
  int max_validation_retries = 2;  // answers sent back for correction. Default: 2
  Millis timeout{600'000};         // the whole extraction. Default: 10 min
  Millis tool_timeout{30'000};     // Default: 30 s
  std::optional<double> temperature = 0.0;
  std::optional<int> max_tokens;
  bool stream = false;
  EventSink on_event;
  // Stops the extraction when cancelled (Ctrl-C); a cancelled run is never
  // handed to the offline planner. Default: a fresh token.
  CancellationToken cancel;
  // The agent run's checkpoints (AgentOptions::on_checkpoint), for the run
  // store. Only the first run: the offline planner standing in for a model
  // that never answered is a run of its own, not checkpointed. Default: none
  std::function<void(const RunState&)> on_checkpoint;
};

struct ExtractionOutcome {
  // {"valid", "extraction", "validation_errors": [{"pointer", "problem"}],
  //  "planner", "attempts", "agent": {"status", "iterations", "tool_calls",
  //  "tools_used", "errors"}, "notes"}
  OrderedJson result;
  bool valid = false;
  RunStatus status = RunStatus::kFinished;  // the last run's status
  bool fell_back = false;
  std::string model_failure;
  RunTrace trace;                           // every attempt's steps, in order
  std::optional<RunTrace> model_trace;      // the failed model run, when fell_back
  // The first agent run (the one `on_checkpoint` saw) as it ended, trace
  // included: what the run store records as the run's end.
  RunResult first_run;
};

// REQUIRES: task.note not blank; task.schema an object (callers check the
// schema compiles and report bad input).
ExtractionOutcome RunExtraction(const ExtractionTask& task, const ExtractionConfig& config);

// Goes on with the first agent run of an extraction from `state` (a
// checkpoint of it, Agent::Resume), with the same task and a config built as
// the run's was (model, corpus, hints, limits); ends as RunExtraction would
// have, falling back to the offline planner likewise. FailedPrecondition when
// the answers checked before the checkpoint cannot be read again from its
// steps (a state from another app or version).
Result<ExtractionOutcome> ResumeExtraction(const ExtractionTask& task, const ExtractionConfig& config,
                                           const RunState& state);

// What rebuilds an extraction for `medreact runs resume` (the run store's
// inputs, issue 14): the note's and schema's paths (absolute) with a digest
// of their text, so a resume refuses files that changed; the label, corpus,
// hints and --out paths; who extracts; the limits. The model is stored
// apart; no API key is here.
struct ExtractionInputs {
  std::string note_path;      // absolute; "" = read from standard input (cannot be resumed)
  std::string note_digest;    // TextDigest of the note
  std::string schema_path;    // absolute; "" = standard input
  std::string schema_digest;  // TextDigest of the schema file's text
  std::string label;
  std::string corpus_dir;         // absolute; "" = none
  std::string rag_db;             // absolute; "" = the default
  std::string extras_path;        // absolute; "" = none
  std::string out_path;           // --out, absolute; "" = none (a resume writes it again)
  std::string planner = "model";  // "model" or "rules"
  bool require_model = false;
  int max_iterations = 20;
  int tool_call_budget = 40;
  int max_validation_retries = 2;
  Millis timeout{600'000};
};
Json ExtractionInputsToJson(const ExtractionInputs& inputs);
// InvalidArgument naming the field when `json` is not an extraction's inputs.
Result<ExtractionInputs> ExtractionInputsFromJson(const Json& json);
// "fnv1a64:<16 hex>" of `text`: notices a file that changed between a run and
// its resume (not a cryptographic check).
std::string TextDigest(std::string_view text);

}  // namespace medreact

#endif  // MEDREACT_APPS_EXTRACT_EXTRACT_APP_H_
