// JSON at the edges: the one alias and the few helpers every module shares.
//
// medreact uses nlohmann::json (ordered variant where key order is user-visible,
// e.g. traces). Parsing helpers here never throw: they return Result.
//
// Every parse of text medreact did not write (files, model replies, server
// bodies, tool arguments) goes through ParseJson / ParseOrderedJson, which add
// two guards to RFC 8259: nesting deeper than kMaxJsonDepth is refused before
// the parser builds anything (nlohmann copies, compares and prints values
// recursively, so a value 100,000 levels deep would overflow the stack later),
// and a number beyond the range of a double (1e999) is a parse error, not an
// exception. Error messages give the position and what was wrong, never the
// text itself: the text may be a patient's record.
#ifndef MEDREACT_JSON_H_
#define MEDREACT_JSON_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "medreact/status.h"

namespace medreact {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// Deepest nesting of arrays and objects accepted from outside. FHIR resources
// nest about 10 deep and tool arguments a few levels; 256 leaves room for any
// real document while keeping recursion over a value far from the stack limit.
inline constexpr int kMaxJsonDepth = 256;

// Strict parse (RFC 8259) with the depth and number guards above. Error
// messages carry the line, column and byte offset, never the input's text.
Result<Json> ParseJson(std::string_view text);
Result<OrderedJson> ParseOrderedJson(std::string_view text);

// The byte offset at which `text` opens its (max_depth + 1)-th nested
// array or object, or nullopt when it never does. Strings are skipped, so
// brackets inside them do not count. Works on invalid JSON too (a scan, not a
// parse), which lets lenient parsers apply the same guard.
std::optional<size_t> JsonDepthExceededAt(std::string_view text, int max_depth = kMaxJsonDepth);

// Canonical text: keys sorted, no whitespace. Two equal JSON values give the
// same text, so it is usable as a key for loop detection and caches.
std::string CanonicalJson(const Json& value);

// dump() that never throws on invalid UTF-8 (replaces bad bytes with U+FFFD).
std::string DumpJson(const Json& value, int indent = -1);
std::string DumpJson(const OrderedJson& value, int indent = -1);

// A short, single-line preview of text for error messages (never logs whole
// notes). Control characters are shown escaped (\x1b), so a preview of a
// server's or a model's text cannot drive the terminal it is printed on.
std::string Preview(std::string_view text, size_t max_chars = 120);

// `text` whole, with control characters other than newline and tab shown
// escaped (\x1b): for printing text from files or servers on a terminal.
std::string Printable(std::string_view text);

// Typed reads of a value that came from outside: the field's value when it
// is present with the right type (and, for numbers, finite and in range),
// else the fallback. Never throws, whatever the JSON holds.
std::string StringOr(const Json& object, std::string_view key, std::string_view fallback = "");
double NumberOr(const Json& object, std::string_view key, double fallback);
int64_t IntegerOr(const Json& object, std::string_view key, int64_t fallback);
bool BoolOr(const Json& object, std::string_view key, bool fallback);

// A JSON number as an integer when it is one exactly representable in
// [lo, hi] (1, 1.0 and 1e0 qualify; 1.5, 1e300 and "1" do not).
std::optional<int64_t> ExactInteger(const Json& value, int64_t lo = INT64_MIN, int64_t hi = INT64_MAX);

}  // namespace medreact

#endif  // MEDREACT_JSON_H_
