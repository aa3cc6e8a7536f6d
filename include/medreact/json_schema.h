// JsonSchema: a JSON Schema compiled once, then used to validate many
// values, with problems reported as "<JSON pointer>: <problem>" items a model
// (or a person) can act on without reading the schema: expected vs received
// type, the allowed enum values, every unexpected property, numeric bounds.
//
// Backed by valijson (Debian's libvalijson-dev; drafts 4, 6 and 7). valijson
// throws on bad schemas and compiles "pattern" regexes lazily; Compile()
// catches the first and compiles every regex up front, so a bad schema fails
// at Compile() and never at Validate(). A compiled schema is immutable:
// Validate() may run on many threads at once (each call builds its own
// valijson Validator, whose regex cache is mutable).
//
// Hostile schemas and values never hang or crash it (json_schema.cc, "Guards"):
// Compile() refuses, with InvalidArgument naming the place, a "$ref" to
// another document (nothing is ever fetched), a "$ref" that points nowhere or
// is not a JSON pointer, $ref cycles and any loop that applies schemas to the
// same value without stepping into it ({"allOf": [{"$ref": "#"}]}), schemas
// nested deeper than 256 JSON levels or holding more than 100,000 JSON values,
// paths through more than 128 subschemas ($ref followed), and patterns longer
// than 1,000 characters. Recursion through properties/items (a tree schema) is
// fine. Validate() reports, instead of validating, values nested deeper than
// 256 levels, values whose check against a recursive schema would go more
// than 1,000 subschemas deep, and strings (or member names) longer than 1,000
// characters that a "pattern", patternProperties or date/time "format" would
// have to match.
#ifndef MEDREACT_JSON_SCHEMA_H_
#define MEDREACT_JSON_SCHEMA_H_

#include <memory>
#include <string>
#include <vector>

#include "medreact/json.h"
#include "medreact/status.h"

namespace medreact {

struct SchemaProblem {
  std::string pointer;  // RFC 6901 pointer into the value, "(root)" for the whole
  std::string text;     // e.g. "expected integer, got string \"12\""
};

class JsonSchema {
 public:
  // InvalidArgument when `schema` is not a usable JSON Schema (says why).
  static Result<JsonSchema> Compile(const Json& schema);

  // Empty when `value` conforms. Summary errors that only repeat a deeper one
  // are dropped; duplicates are removed; order follows valijson's.
  std::vector<SchemaProblem> Validate(const Json& value) const;

  const Json& document() const;

 private:
  struct Impl;
  explicit JsonSchema(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

// "a: x; b: y; ... and 3 more", at most `max_listed` items and about
// `max_chars` characters; "" when `problems` is empty.
std::string JoinSchemaProblems(const std::vector<SchemaProblem>& problems, size_t max_listed = 8,
                               size_t max_chars = 1200);

// "integer 12", "string \"abc\"", "object", "array": how a value is named in messages.
std::string DescribeJsonValue(const Json& value);

}  // namespace medreact

#endif  // MEDREACT_JSON_SCHEMA_H_
