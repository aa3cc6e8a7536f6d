// Guards for JsonSchema (json_schema.h), kept apart from the valijson glue.
//
// valijson 1.0 follows "$ref" by plain recursion with no cycle check (its own
// source says "TODO: Need to detect degenerate circular references"), grows
// its resolution scope by appending every relative "id" it meets, compiles and
// validates by recursion (one group of C++ frames per subschema), and matches
// "pattern" and the date/time formats with std::regex, whose executor recurses
// about once per input character. Left alone, {"$ref": "#"}, a loop of $refs,
// {"allOf": [{"$ref": "#"}]}, a relative "id" on a recursive path, a schema
// thousands of levels deep, a value thousands of levels deep against a
// recursive schema, or a 20,000-character string against "pattern" each
// overflow the stack and kill the process. So:
//
// JsonSchema::Compile() first (CheckSchemaShape, GuardSchema) walks the
// schema as valijson will (the subschemas reachable from the root through the
// draft-7 keywords and "$ref") and refuses, naming
// the place: a document deeper than kMaxDocumentDepth or larger than
// kMaxDocumentValues; a "$ref" that is not a string, points to another
// document (never fetched), is not a JSON pointer, or points nowhere or at
// something that is not a schema; a loop that applies schemas to the same
// value without ever stepping into it (through $ref, allOf/anyOf/oneOf, not,
// if/then/else, dependencies: validating would never end); a path through the
// subschemas longer than kMaxSchemaDepth (schemas that refer to each other
// count once each: a sound bound for any traversal); a "pattern" or
// patternProperties key longer than kMaxPatternChars. valijson then parses a
// copy in which every "$ref" is rewritten to its canonical pointer and every
// "id" is dropped: with local references only, ids change nothing but
// valijson's cache keys, and without them each subschema is parsed at most
// twice.
//
// The limits were set from measurements of this valijson build: about 2.7 KB
// of stack per subschema level when compiling and 0.8 KB per nested check when
// validating, so the worst case allowed stays under 1 MB of stack (about 3 MB
// with AddressSanitizer), well inside a default 8 MB thread.
//
// JsonSchema::Validate() (GuardValue) refuses values nested deeper than
// kMaxValueDepth. For a recursive schema, or one with patterns or
// regex-checked formats, it also walks the (value, subschema) pairs valijson
// may visit (over-approximated: every branch of a combinator, every
// patternProperties entry) and refuses when the deepest chain exceeds
// kMaxValidationDepth or a string (or property name) longer than
// kMaxMatchedChars would meet a regex.
//
// Pure functions over immutable inputs: thread-safe.
#ifndef MEDREACT_ENGINE_JSON_SCHEMA_GUARD_H_
#define MEDREACT_ENGINE_JSON_SCHEMA_GUARD_H_

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "medreact/json.h"
#include "medreact/json_schema.h"
#include "medreact/status.h"

namespace medreact {

inline constexpr int kMaxDocumentDepth = 256;           // JSON nesting of the schema document
inline constexpr size_t kMaxDocumentValues = 100'000;   // JSON values in the schema document
inline constexpr int kMaxSchemaDepth = 128;             // subschemas along any path, $ref followed
inline constexpr size_t kMaxPatternChars = 1000;        // a "pattern" or a patternProperties key
inline constexpr int kMaxValueDepth = 256;              // JSON nesting of a validated value
inline constexpr int kMaxValidationDepth = 1000;        // nested (value, subschema) checks
inline constexpr size_t kMaxValidationPairs = 200'000;  // distinct (value, subschema) checks walked
inline constexpr size_t kMaxMatchedChars = 1000;        // a string checked against a regex

// One subschema valijson will parse, and where it leads.
struct SchemaNode {
  const Json* json = nullptr;
  std::string pointer;  // RFC 6901, "" for the root
  int ref = -1;         // the target when this node is a "$ref" (its other keywords are ignored)
  std::vector<int> same;                // applied to the same value: allOf/anyOf/oneOf, not, if/then/else, dependencies
  std::map<std::string, int> properties;
  std::vector<int> pattern_properties;  // each applied to every member (over-approximation)
  int additional_properties = -1;
  int items = -1;                       // "items" as one schema
  std::vector<int> tuple;               // "items" as an array
  int additional_items = -1;
  int contains = -1;
  int property_names = -1;
  bool matches_strings = false;  // "pattern", or a format valijson checks with std::regex
  bool matches_keys = false;     // "patternProperties": keys are matched with std::regex
};

struct SchemaGraph {
  std::vector<SchemaNode> nodes;  // [0] is the root
  bool recursive = false;         // some subschema can reach itself
  bool regex = false;             // some subschema matches strings or keys with std::regex
};

// The schema as valijson will see it.
struct GuardedSchema {
  SchemaGraph graph;  // nodes point into the document given to GuardSchema
  Json parsed;        // what valijson parses: every "$ref" canonical, every "id" dropped
};

// Size and depth of the document, without recursion: call it before copying
// the document (a copy recurses). InvalidArgument naming the problem.
Status CheckSchemaShape(const Json& document);

// Every other Compile() check, then the document valijson parses.
// REQUIRES: CheckSchemaShape(document).ok(); `document` outlives the result.
Result<GuardedSchema> GuardSchema(const Json& document);

// Empty when valijson may validate `value` against the schema of `graph`;
// otherwise the problems to report instead.
std::vector<SchemaProblem> GuardValue(const SchemaGraph& graph, const Json& value);

// Resolves a local "$ref" (`ref`, found at pointer `at`) in `root` as valijson
// 1.0 does, refusing what valijson would read differently from the standard or
// not at all (another document, a plain-name fragment, empty segments, bad ~
// or % escapes, a target that is missing or not a schema). Returns the target
// and its canonical RFC 6901 pointer.
Result<std::pair<const Json*, std::string>> ResolveLocalRef(const Json& root, const std::string& ref,
                                                            const std::string& at);

}  // namespace medreact

#endif  // MEDREACT_ENGINE_JSON_SCHEMA_GUARD_H_
