// JSON at the edges: the one alias and the few helpers every module shares.
//
// medreact uses nlohmann::json (ordered variant where key order is user-visible,
// e.g. traces). Parsing helpers here never throw: they return Result.
#ifndef MEDREACT_JSON_H_
#define MEDREACT_JSON_H_

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "medreact/status.h"

namespace medreact {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// Strict parse (RFC 8259). Error messages carry the byte offset.
Result<Json> ParseJson(std::string_view text);

// Canonical text: keys sorted, no whitespace. Two equal JSON values give the
// same text, so it is usable as a key for loop detection and caches.
std::string CanonicalJson(const Json& value);

// dump() that never throws on invalid UTF-8 (replaces bad bytes with U+FFFD).
std::string DumpJson(const Json& value, int indent = -1);
std::string DumpJson(const OrderedJson& value, int indent = -1);

// A short, single-line preview of text for error messages (never logs whole notes).
std::string Preview(std::string_view text, size_t max_chars = 120);

}  // namespace medreact

#endif  // MEDREACT_JSON_H_
