// Tolerant JSON for small models' output (seed 001's json_repair, generalised).
//
// Models without native tool calling write JSON inside prose, in code fences,
// with Python literals (True/False/None), single quotes, trailing commas,
// comments, unquoted keys, or cut off mid-object. These functions recover the
// intended value when it can be recovered unambiguously, and say why not
// otherwise. Pure functions; thread-safe; no exceptions escape.
#ifndef MEDREACT_JSON_REPAIR_H_
#define MEDREACT_JSON_REPAIR_H_

#include <string>
#include <string_view>

#include "medreact/json.h"
#include "medreact/status.h"

namespace medreact {

// Removes markdown code fences (at the top level of the reply, not inside a
// JSON value) and surrounding prose; returns the first balanced (or, if
// truncated, the trailing unbalanced) JSON object/array text.
// Returns "" when no '{' or '[' is present.
std::string StripJsonDecoration(std::string_view text);

// Rewrites near-JSON into JSON: Python literals outside strings, single-quoted
// strings, trailing commas, // and /* */ comments, unquoted object keys, raw
// newlines inside strings, and closes unterminated strings/brackets.
std::string RepairJson(std::string_view text);

// Progressive strategy: strict parse → strip decoration → repair → parse.
// Never a silently wrong value: input with two readings (JSON continuing after
// the value closed, several values, an unpaired quote, a key with no value, a
// key given two different values) is refused, "could not read JSON without
// guessing: <why>". The error names what was tried and previews the text.
Result<Json> ParseJsonLenient(std::string_view text);

}  // namespace medreact

#endif  // MEDREACT_JSON_REPAIR_H_
