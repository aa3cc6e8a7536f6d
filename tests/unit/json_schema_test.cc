// Tests for JsonSchema's guards against hostile schemas and values: $ref
// cycles and loops that never step into the value, references that point
// nowhere or to other documents, relative ids on recursive paths, schemas and
// values too deep or too large, and strings too long for a regex. Each case
// that used to recurse without end (stack overflow) must now be a clear
// InvalidArgument at Compile() or a problem from Validate(); legitimate
// recursive schemas must keep working. Message texts of ordinary validation
// problems are tested in tool_registry_test.cc.
#include "medreact/json_schema.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace medreact {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

Json Parse(const char* text) { return Json::parse(text); }

// The Compile() error for a schema that must be refused.
std::string CompileError(const Json& schema) {
  Result<JsonSchema> compiled = JsonSchema::Compile(schema);
  EXPECT_FALSE(compiled.ok()) << schema.dump();
  if (compiled.ok()) return "";
  EXPECT_EQ(compiled.status().code(), StatusCode::kInvalidArgument) << compiled.status().ToString();
  return compiled.status().message();
}

JsonSchema CompileOrDie(const Json& schema) {
  Result<JsonSchema> compiled = JsonSchema::Compile(schema);
  EXPECT_TRUE(compiled.ok()) << compiled.status().ToString();
  if (!compiled.ok()) std::abort();
  return std::move(*compiled);
}

std::string Problems(const JsonSchema& schema, const Json& value) {
  return JoinSchemaProblems(schema.Validate(value), 20, 5000);
}

// {"children": [{"children": [ ... ]}]}, `levels` objects deep, the innermost holding `leaf`.
Json Tree(int levels, const Json& leaf = Json::object()) {
  Json value = leaf;
  for (int i = 1; i < levels; ++i) value = Json{{"children", Json::array({value})}};
  return value;
}

// ---- $ref cycles and loops without progress ---------------------------------------

TEST(JsonSchemaRefTest, RefCyclesOfEveryLengthAreRefusedNamingThePointers) {
  EXPECT_THAT(CompileError(Parse(R"({"$ref": "#"})")), AllOf(HasSubstr("$ref cycle"), HasSubstr("(root) -> (root)")));
  EXPECT_THAT(CompileError(Parse(R"({"definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}},
                                     "$ref": "#/definitions/a"})")),
              AllOf(HasSubstr("$ref cycle"), HasSubstr("/definitions/a -> /definitions/b -> /definitions/a"),
                    HasSubstr("point one of them at a real schema")));
  // Longer, and entered from a property instead of the root.
  Json longer = Parse(R"({"type": "object", "properties": {"x": {"$ref": "#/definitions/d0"}}, "definitions": {}})");
  for (int i = 0; i < 7; ++i) {
    longer["definitions"]["d" + std::to_string(i)] = {{"$ref", "#/definitions/d" + std::to_string((i + 1) % 7)}};
  }
  EXPECT_THAT(CompileError(longer), AllOf(HasSubstr("$ref cycle"), HasSubstr("/definitions/d6 -> /definitions/d0")));
  // A definition pointing at itself.
  EXPECT_THAT(CompileError(Parse(R"({"properties": {"x": {"$ref": "#/definitions/a"}},
                                     "definitions": {"a": {"$ref": "#/definitions/a"}}})")),
              HasSubstr("/definitions/a -> /definitions/a"));
  // The same cycle spelled differently (%-escape) is the same cycle.
  EXPECT_THAT(CompileError(Parse(R"({"definitions": {"a": {"$ref": "#/definitions/%62"}, "b": {"$ref": "#/definitions/a"}},
                                     "$ref": "#/definitions/a"})")),
              HasSubstr("$ref cycle"));
}

TEST(JsonSchemaRefTest, LoopsThatNeverStepIntoTheValueAreRefused) {
  // Each applies a schema to the same value forever: valijson compiled these and
  // then overflowed the stack on the first Validate().
  const char* loops[] = {
      R"({"allOf": [{"$ref": "#"}]})",
      R"({"anyOf": [{"type": "string"}, {"$ref": "#/definitions/a"}], "definitions": {"a": {"not": {"$ref": "#"}}}})",
      R"({"oneOf": [{"$ref": "#/definitions/a"}], "definitions": {"a": {"allOf": [{"$ref": "#/definitions/a"}]}}})",
      R"({"if": {"$ref": "#"}, "then": {"type": "object"}})",
      R"({"if": {"type": "object"}, "then": {"$ref": "#"}})",
      R"({"type": "object", "dependencies": {"a": {"$ref": "#"}}})",
  };
  for (const char* loop : loops) {
    EXPECT_THAT(CompileError(Parse(loop)),
                AllOf(HasSubstr("loops without progress"), HasSubstr("through properties or items")))
        << loop;
  }
}

TEST(JsonSchemaRefTest, RecursiveSchemasCompileAndValidateNestedValues) {
  JsonSchema tree = CompileOrDie(Parse(R"({"type": "object", "properties": {
      "name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}}})"));
  EXPECT_TRUE(tree.Validate(Tree(20, {{"name", "leaf"}})).empty());
  const std::string deep_problem = Problems(tree, Tree(4, {{"name", 5}}));
  EXPECT_THAT(deep_problem, HasSubstr("/children/0/children/0/children/0/name: expected string, got integer 5"));
  EXPECT_THAT(Problems(tree, Tree(3, Json::array())), HasSubstr("/children/0/children/0: expected object, got array"));

  // Recursion through definitions: a linked list, entered by a root $ref.
  JsonSchema list = CompileOrDie(Parse(R"({"$ref": "#/definitions/node", "definitions": {"node": {
      "type": "object", "required": ["value"],
      "properties": {"value": {"type": "integer"}, "next": {"$ref": "#/definitions/node"}}}}})"));
  EXPECT_TRUE(list.Validate(Parse(R"({"value": 1, "next": {"value": 2, "next": {"value": 3}}})")).empty());
  EXPECT_THAT(Problems(list, Parse(R"({"value": 1, "next": {"value": 2, "next": {"value": "3"}}})")),
              HasSubstr("/next/next/value"));
  EXPECT_THAT(Problems(list, Parse(R"({"value": 1, "next": {"next": {"value": 3}}})")),
              HasSubstr("/next/value: missing required property"));

  // Mutual recursion (a -> b -> a through properties) and a $ref chain ending in a schema.
  JsonSchema mutual = CompileOrDie(Parse(R"({"$ref": "#/definitions/a", "definitions": {
      "a": {"type": "object", "properties": {"b": {"$ref": "#/definitions/b"}}},
      "b": {"type": "object", "properties": {"a": {"$ref": "#/definitions/alias"}}},
      "alias": {"$ref": "#/definitions/a"}}})"));
  EXPECT_TRUE(mutual.Validate(Parse(R"({"b": {"a": {"b": {}}}})")).empty());
  EXPECT_THAT(Problems(mutual, Parse(R"({"b": {"a": {"b": 7}}})")), HasSubstr("/b/a/b: expected object, got integer 7"));
  // A boolean schema as the target.
  JsonSchema anything = CompileOrDie(Parse(R"({"properties": {"x": {"$ref": "#/definitions/t"}}, "definitions": {"t": true}})"));
  EXPECT_TRUE(anything.Validate(Parse(R"({"x": [1, {"y": null}]})")).empty());
}

TEST(JsonSchemaRefTest, EscapedPointersResolveAsWritten) {
  JsonSchema schema = CompileOrDie(Parse(R"({"type": "object", "properties": {
      "slash": {"$ref": "#/definitions/a~1b"}, "tilde": {"$ref": "#/definitions/c~0d"},
      "percent": {"$ref": "#/definitions/e%25f"}, "encoded": {"$ref": "#/definitions/%67"},
      "indexed": {"$ref": "#/definitions/list/1"}},
    "definitions": {"a/b": {"type": "string"}, "c~d": {"type": "integer"}, "e%f": {"type": "boolean"},
                    "g": {"type": "null"}, "list": [{"type": "string"}, {"type": "array"}]}})"));
  EXPECT_TRUE(schema.Validate(Parse(R"({"slash": "s", "tilde": 1, "percent": true, "encoded": null, "indexed": []})"))
                  .empty());
  const std::string problems =
      Problems(schema, Parse(R"({"slash": 1, "tilde": "s", "percent": 0, "encoded": 1, "indexed": {}})"));
  for (const char* pointer : {"/slash", "/tilde", "/percent", "/encoded", "/indexed"}) {
    EXPECT_THAT(problems, HasSubstr(std::string(pointer) + ": ")) << problems;
  }
}

TEST(JsonSchemaRefTest, RelativeIdsOnRecursivePathsNeitherHangNorCrash) {
  // valijson appends a relative "id" to its scope each time round the loop.
  JsonSchema relative = CompileOrDie(Parse(R"({"id": "node", "type": "object", "properties": {"x": {"$ref": "#"}}})"));
  EXPECT_TRUE(relative.Validate(Parse(R"({"x": {"x": {}}})")).empty());
  EXPECT_THAT(Problems(relative, Parse(R"({"x": {"x": 1}})")), HasSubstr("/x/x: expected object"));
  JsonSchema absolute = CompileOrDie(Parse(R"({"id": "http://example.com/node.json", "type": "object",
      "properties": {"x": {"id": "sub", "$ref": "#"}, "y": {"id": "other/", "properties": {"z": {"$ref": "#"}}}}})"));
  EXPECT_THAT(Problems(absolute, Parse(R"({"y": {"z": {"x": []}}})")), HasSubstr("/y/z/x: expected object"));
  // The document handed back is the one given (ids and $refs as written).
  EXPECT_EQ(relative.document()["id"], "node");
}

// ---- References that cannot be followed ----------------------------------------------

TEST(JsonSchemaRefTest, RefsThatPointNowhereNameThePointerAndTheFix) {
  EXPECT_THAT(CompileError(Parse(R"({"properties": {"x": {"$ref": "#/definitions/missing"}}, "definitions": {"a": {}}})")),
              AllOf(HasSubstr("\"$ref\": \"#/definitions/missing\" at /properties/x points nowhere"),
                    HasSubstr("/definitions has no member \"missing\""), HasSubstr("add the definition")));
  EXPECT_THAT(CompileError(Parse(R"({"properties": {"x": {"$ref": "#/definitions/a/b"}}})")),
              HasSubstr("(root) has no member \"definitions\""));
  EXPECT_THAT(CompileError(Parse(R"({"allOf": [{"type": "object"}], "properties": {"x": {"$ref": "#/allOf/3"}}})")),
              AllOf(HasSubstr("points nowhere"), HasSubstr("/allOf is an array of 1 items")));
  EXPECT_THAT(CompileError(Parse(R"({"properties": {"x": {"$ref": "#/required/0"}}, "required": ["x"]})")),
              AllOf(HasSubstr("points to /required/0, which is a string, not a schema")));
  EXPECT_THAT(CompileError(Parse(R"({"properties": {"x": {"$ref": "#/properties/y/type/z"}, "y": {"type": "string"}}})")),
              HasSubstr("is a string, which has no members"));
  EXPECT_THAT(CompileError(Parse(R"({"properties": {"x": {"$ref": 12}}})")),
              AllOf(HasSubstr("\"$ref\" at /properties/x must be a string"), HasSubstr("got a number")));
  EXPECT_THAT(CompileError(Parse(R"({"properties": {"x": {"$ref": "#node"}}})")),
              AllOf(HasSubstr("is not a JSON pointer"), HasSubstr("#/definitions/node")));
  EXPECT_THAT(CompileError(Parse(R"({"properties": {"x": {"$ref": "#/definitions//a"}}, "definitions": {"a": {}}})")),
              HasSubstr("empty segment"));
  EXPECT_THAT(CompileError(Parse(R"({"properties": {"x": {"$ref": "#/definitions/a~2"}}, "definitions": {"a": {}}})")),
              HasSubstr("\"~\" not followed by 0 or 1"));
  EXPECT_THAT(CompileError(Parse(R"({"properties": {"x": {"$ref": "#/definitions/a%zz"}}, "definitions": {"a": {}}})")),
              HasSubstr("\"%\" not followed by two hex digits"));
}

TEST(JsonSchemaRefTest, RefsIntoDataAreRefused) {
  EXPECT_THAT(CompileError(Parse(R"({"properties": {"x": {"$ref": "#/properties/y/enum/0"},
                                                     "y": {"enum": [{"type": "string", "id": "a"}]}}})")),
              AllOf(HasSubstr("at /properties/x points into data (/properties/y/enum is"),
                    HasSubstr("under \"definitions\"")));
  EXPECT_THAT(CompileError(Parse(R"({"properties": {"x": {"$ref": "#/properties/y/const"},
                                                     "y": {"const": {"type": "string"}}}})")),
              HasSubstr("at /properties/x points to an \"enum\", \"const\""));
  EXPECT_THAT(CompileError(Parse(R"({"properties": {"x": {"$ref": "#/properties/y/default/inner"},
                                                     "y": {"default": {"inner": {"type": "string"}}}}})")),
              HasSubstr("points into data (/properties/y/default is"));
  // A property that happens to be called "enum" is a schema like any other.
  JsonSchema named = CompileOrDie(Parse(R"({"properties": {"enum": {"type": "string"},
                                                           "x": {"$ref": "#/properties/enum"}}})"));
  EXPECT_THAT(Problems(named, Parse(R"({"x": 1})")), HasSubstr("/x: expected string"));
}

TEST(JsonSchemaRefTest, RemoteRefsAreRefusedAndNeverFetched) {
  for (const char* ref : {"http://127.0.0.1:9/schema.json", "https://example.com/s.json#/definitions/a",
                          "other.json#/definitions/a", "other.json", "urn:example:schema", "file:///etc/passwd",
                          "//example.com/s.json"}) {
    Json schema = {{"type", "object"}, {"properties", {{"x", {{"$ref", ref}}}}}};
    EXPECT_THAT(CompileError(schema), AllOf(HasSubstr("refers to another document"), HasSubstr("never fetched"),
                                            HasSubstr("#/definitions/<name>")))
        << ref;
  }
}

// ---- Size and depth ------------------------------------------------------------------

TEST(JsonSchemaLimitsTest, SchemasNestedTooDeeplyAreRefused) {
  // 300 nested "properties": 601 JSON levels.
  Json deep = {{"type", "string"}};
  for (int i = 0; i < 300; ++i) deep = {{"type", "object"}, {"properties", {{"a", deep}}}};
  EXPECT_THAT(CompileError(deep), AllOf(HasSubstr("nested deeper than 256 JSON levels"), HasSubstr("/properties/a")));

  // A shallow document whose $ref chain goes 200 subschemas deep.
  auto chain = [](int length) {
    Json schema = {{"$ref", "#/definitions/d0"}, {"definitions", Json::object()}};
    for (int i = 0; i < length; ++i) {
      Json next = i + 1 < length ? Json{{"$ref", "#/definitions/d" + std::to_string(i + 1)}} : Json{{"type", "integer"}};
      schema["definitions"]["d" + std::to_string(i)] = {{"type", "object"}, {"properties", {{"n", next}}}};
    }
    return schema;
  };
  EXPECT_THAT(CompileError(chain(200)), AllOf(HasSubstr("nests too deeply"), HasSubstr("more than the 128 supported"),
                                              HasSubstr("/definitions/d")));
  // Within the limit it compiles and validates down the chain.
  JsonSchema fine = CompileOrDie(chain(40));
  Json value = "not an integer";
  for (int i = 0; i < 40; ++i) value = Json{{"n", value}};
  std::string pointer;
  for (int i = 0; i < 40; ++i) pointer += "/n";
  EXPECT_THAT(Problems(fine, value), HasSubstr(pointer + ": expected integer"));
}

TEST(JsonSchemaLimitsTest, HugeSchemasAreRefused) {
  Json huge = {{"type", "string"}, {"enum", Json::array()}};
  for (int i = 0; i <= 100'000; ++i) huge["enum"].push_back(i);
  EXPECT_THAT(CompileError(huge), AllOf(HasSubstr("too large"), HasSubstr("100000 JSON values")));
  Json wide = {{"type", "object"}, {"properties", Json::object()}};
  for (int i = 0; i < 5'000; ++i) wide["properties"]["p" + std::to_string(i)] = {{"type", "integer"}};
  JsonSchema compiled = CompileOrDie(wide);
  EXPECT_THAT(Problems(compiled, Json{{"p4999", "x"}}), HasSubstr("/p4999: expected integer"));
}

TEST(JsonSchemaLimitsTest, ValuesNestedTooDeeplyAreAProblemNotACrash) {
  JsonSchema tree = CompileOrDie(Parse(R"({"type": "object", "properties": {
      "children": {"type": "array", "items": {"$ref": "#"}}}})"));
  // 2,000 levels: 4,000 JSON levels, far past what valijson's recursion survives on a worker thread.
  std::vector<SchemaProblem> problems = tree.Validate(Tree(2'000));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_THAT(problems[0].text, HasSubstr("nested deeper than 256 levels"));
  EXPECT_THAT(problems[0].pointer, HasSubstr("/children/0/children/0"));
  EXPECT_TRUE(tree.Validate(Tree(120)).empty());  // 239 JSON levels
  // The same bound for any schema: no schema here checks anything that deep.
  JsonSchema plain = CompileOrDie(Parse(R"({"type": "object"})"));
  EXPECT_THAT(Problems(plain, Tree(300)), HasSubstr("nested deeper than 256 levels"));
}

TEST(JsonSchemaLimitsTest, LongChecksAgainstARecursiveSchemaAreRefused) {
  // Each value level passes through a chain of 12 allOf -> $ref subschemas:
  // 100 levels would be ~2,500 nested checks.
  Json schema = {{"$ref", "#/definitions/s0"}, {"definitions", Json::object()}};
  for (int i = 0; i < 12; ++i) {
    schema["definitions"]["s" + std::to_string(i)] = {
        {"allOf", Json::array({Json{{"$ref", "#/definitions/s" + std::to_string(i + 1)}}})}};
  }
  schema["definitions"]["s12"] = {{"type", "object"}, {"properties", {{"c", {{"$ref", "#/definitions/s0"}}}}}};
  JsonSchema compiled = CompileOrDie(schema);
  Json shallow = Json::object();
  for (int i = 0; i < 10; ++i) shallow = Json{{"c", shallow}};
  EXPECT_TRUE(compiled.Validate(shallow).empty());
  Json deep = Json::object();
  for (int i = 0; i < 100; ++i) deep = Json{{"c", deep}};
  EXPECT_THAT(Problems(compiled, deep), AllOf(HasSubstr("nested too deeply for this recursive schema"),
                                              HasSubstr("at most 1000 are supported")));
}

// ---- Regexes -------------------------------------------------------------------------

TEST(JsonSchemaLimitsTest, StringsTooLongForARegexAreAProblemNotACrash) {
  JsonSchema schema = CompileOrDie(Parse(R"({"type": "object", "properties": {
      "code": {"type": "string", "pattern": "^(a|b)*$"}, "note": {"type": "string"},
      "when": {"type": "string", "format": "date-time"},
      "tags": {"type": "object", "patternProperties": {"^[a-z]+$": {"type": "integer"}}}}})"));
  const std::string long_text(50'000, 'a');
  // std::regex recurses once per character: 50,000 'a's overflowed the stack.
  EXPECT_THAT(Problems(schema, Json{{"code", long_text}}),
              AllOf(HasSubstr("/code: the string is 50000 characters long"), HasSubstr("shorten it")));
  EXPECT_THAT(Problems(schema, Json{{"when", std::string(5'000, '1')}}), HasSubstr("/when: the string is 5000"));
  EXPECT_THAT(Problems(schema, Json{{"tags", {{long_text, 1}}}}), HasSubstr("the member name is 50000 characters"));
  // A long string no regex looks at is fine, and short ones are matched as before.
  EXPECT_TRUE(schema.Validate(Json{{"note", long_text}, {"code", "abba"}}).empty());
  EXPECT_THAT(Problems(schema, Json{{"code", "abc"}}), HasSubstr("/code"));

  EXPECT_THAT(CompileError(Json{{"type", "string"}, {"pattern", std::string(1'001, 'a')}}),
              AllOf(HasSubstr("\"pattern\" at (root) is 1001 characters long"), HasSubstr("at most 1000")));
}

TEST(JsonSchemaLimitsTest, PatternsThatBacktrackExponentiallyAreRefused) {
  // Found by the schema fuzzer: this one ran for minutes on a 20-character string.
  for (const char* pattern : {"(a|b)*+++++++c{2,6}[entry^d]\\d+", "(a+)+$", "^(a|b*)*$", "(a|ab)*c", "([a-z]|x)+",
                              "(\\d+,?)+$", "a{100000}", "(x+x+)+y", "^(a*)*$", "(?:a|a)*",
                              // libstdc++ reads these numbers into a long and overflows (UBSan, schema fuzzer)
                              "(a|jnot{1,300000000000000000000000000", "a{99999999999999999999}",
                              "(a)\\99999999999999999999", "(a|||||b)*:x", "(|a)+", "()*"}) {
    EXPECT_THAT(CompileError(Json{{"type", "string"}, {"pattern", pattern}}),
                AnyOf(HasSubstr("exponential time"), HasSubstr("repetition count"), HasSubstr("back-reference"),
                      HasSubstr("match nothing")))
        << pattern;
  }
  EXPECT_THAT(CompileError(Json{{"type", "object"}, {"patternProperties", {{"^(a+)+$", Json::object()}}}}),
              HasSubstr("a patternProperties key at (root)"));
  // Ordinary patterns compile and match as before.
  for (const char* pattern : {"^(a|b)*$", "^[a-z]+$", "^(\\+\\d{1,3})?\\d{10}$", "^\\d{4}-\\d{2}-\\d{2}$",
                              "^(\\d{3}-)*\\d{4}$", "^[^@]+@[^@]+\\.[^@]+$", "^[A-Z]{2}\\d{6}$", "a*?b", "^(?:x|y)+$",
                              "^(mild|moderate|severe)$"}) {
    EXPECT_TRUE(JsonSchema::Compile(Json{{"type", "string"}, {"pattern", pattern}}).ok()) << pattern;
  }
}

}  // namespace
}  // namespace medreact
