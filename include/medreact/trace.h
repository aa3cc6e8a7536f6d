// RunTrace: the complete record of one agent run (ARCHITECTURE.md contract).
//
// The trace holds everything needed to understand and replay a run: the input
// as given, every assistant turn with its tool calls, every tool result, usage,
// timings, nudges and the final status and answer. ToJson() writes the
// contract's field names: {"status","answer","steps":[{"assistant":{"content",
// "tool_calls":[{"id","name","arguments"}]},"tool_results":[{"tool_call_id",
// "name","ok","content"|"error"}],"usage","elapsed_ms"}],"model","protocol",
// "started_at","elapsed_ms"} plus extra fields. Value type; not thread-safe.
#ifndef MEDREACT_TRACE_H_
#define MEDREACT_TRACE_H_

#include <string>
#include <vector>

#include "medreact/json.h"
#include "medreact/message.h"
#include "medreact/status.h"

namespace medreact {

struct ToolResultRecord {
  std::string tool_call_id;
  std::string name;
  bool ok = true;
  std::string content;  // ok
  std::string error;    // !ok
  double elapsed_ms = 0;
};

struct StepRecord {
  int index = 0;                  // 1-based step number
  std::string kind = "step";      // "step" or "fallback"
  Message assistant;              // the model's turn (empty on model failure)
  std::string raw_text;           // text-protocol reply before parsing, if any
  std::string finish_reason;
  std::string parse_error;        // the reply was unusable; this was shown to the model
  std::string model_error;        // the model call failed
  std::vector<ToolResultRecord> tool_results;
  std::vector<std::string> notes; // nudges and limit notices added after this step
  Usage usage;
  int attempts = 0;
  double model_ms = 0;
  double elapsed_ms = 0;
};

struct RunTrace {
  std::string run_id;             // "run_" + 16 random alphanumerics; also in the logs
  std::string status;
  std::string answer;
  std::string error;
  Json final_fields;              // null when none
  std::string model;
  std::string protocol;
  std::string started_at;         // ISO 8601 UTC
  double elapsed_ms = 0;
  Usage usage;
  Json input = Json::object();    // message, images, history, system prompt, tools, options
  std::vector<StepRecord> steps;
};

// Ordered so the contract's fields come first in files.
OrderedJson ToJson(const RunTrace& trace);

// OK when `j` has the shape every ToJson trace has: an object with "status",
// "model", "started_at" (strings), "elapsed_ms" (a number) and "steps" (an
// array). Else InvalidArgument naming every field that is missing or of the
// wrong type ("missing status, model; elapsed_ms is null, not a number"), or
// what `j` is when it is no object. The steps' content is not checked (a
// reader shows a malformed step as absent).
Status CheckTraceShape(const Json& j);

// Writes pretty JSON atomically (temp file + rename), readable by the owner
// only (0600: a trace holds patient data). Creates no directories.
Status WriteTraceFile(const RunTrace& trace, const std::string& path);

// Writes text atomically (temp file in the same directory + rename), 0600.
Status WriteTextFile(const std::string& text, const std::string& path);

// Pretty JSON, atomically.
Status WriteJsonFile(const Json& value, const std::string& path);

}  // namespace medreact

#endif  // MEDREACT_TRACE_H_
