// Tests for ToolRegistry and MakeFunctionTool: registration rules, the text of
// every argument error the model can see, Execute()'s guards (unknown tool,
// bad arguments, exceptions, cancellation, deadlines) and concurrent use.
#include "medreact/tool_registry.h"

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace medreact {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::unique_ptr<Tool> EchoTool(std::string name, Json parameters = Json{{"type", "object"}}) {
  ToolSpec spec{std::move(name), "Echoes its arguments.", std::move(parameters)};
  return MakeFunctionTool(std::move(spec), [](const Json& args, const ToolContext&) {
    return ToolResult::OkJson(args);
  });
}

// A dosing-like schema that exercises each kind of violation.
Json OrderSchema() {
  return Json::parse(R"({
    "type": "object",
    "properties": {
      "dose_mg": {"type": "number", "minimum": 0, "maximum": 1000},
      "route": {"type": "string", "enum": ["oral", "iv"]},
      "count": {"type": "integer"},
      "tags": {"type": "array", "items": {"type": "string"}},
      "patient": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
      "a/b": {"type": "string"}
    },
    "required": ["dose_mg", "route"],
    "additionalProperties": false
  })");
}

class ToolRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(registry_.Register(EchoTool("order", OrderSchema())).ok());
    ASSERT_TRUE(registry_.Register(EchoTool("echo")).ok());
  }

  std::string ErrorFor(const std::string& arguments) {
    Result<Json> result = registry_.ValidateArguments("order", arguments);
    EXPECT_FALSE(result.ok()) << arguments;
    if (result.ok()) return "";
    EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
    return result.status().message();
  }

  ToolRegistry registry_;
};

// ---- Registration ------------------------------------------------------------

TEST(ToolRegistryRegisterTest, RegistersInOrderAndFinds) {
  ToolRegistry registry;
  EXPECT_TRUE(registry.empty());
  ASSERT_TRUE(registry.Register(EchoTool("zeta")).ok());
  ASSERT_TRUE(registry.Register(EchoTool("alpha")).ok());
  EXPECT_EQ(registry.size(), 2u);
  EXPECT_EQ(registry.Names(), (std::vector<std::string>{"zeta", "alpha"}));
  std::vector<ToolSpec> specs = registry.Specs();
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[1].name, "alpha");
  EXPECT_EQ(specs[1].description, "Echoes its arguments.");
  ASSERT_NE(registry.Find("alpha"), nullptr);
  EXPECT_EQ(registry.Find("alpha")->spec().name, "alpha");
  EXPECT_EQ(registry.Find("beta"), nullptr);
}

TEST(ToolRegistryRegisterTest, RejectsBadNames) {
  ToolRegistry registry;
  for (const std::string& bad :
       std::vector<std::string>{"", "has space", "dot.name", "uni\u00e9", std::string(65, 'a')}) {
    Status s = registry.Register(EchoTool(bad));
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(s.message(), HasSubstr("^[a-zA-Z0-9_-]{1,64}$"));
  }
  EXPECT_TRUE(registry.Register(EchoTool(std::string(64, 'a'))).ok());
  EXPECT_TRUE(registry.Register(EchoTool("Get-lab_Value9")).ok());
  EXPECT_EQ(registry.size(), 2u);
}

TEST(ToolRegistryRegisterTest, RejectsDuplicatesAndNull) {
  ToolRegistry registry;
  ASSERT_TRUE(registry.Register(EchoTool("echo")).ok());
  Status duplicate = registry.Register(EchoTool("echo"));
  EXPECT_EQ(duplicate.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(duplicate.message(), HasSubstr("'echo' is already registered"));
  EXPECT_EQ(registry.Register(nullptr).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.size(), 1u);
}

TEST(ToolRegistryRegisterTest, RejectsSchemasThatAreNotObjectSchemas) {
  ToolRegistry registry;
  for (Json params : {Json::array(), Json("object"), Json{{"type", "string"}},
                      Json{{"properties", Json::object()}}}) {
    Status s = registry.Register(EchoTool("t", params));
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << params.dump();
    EXPECT_THAT(s.message(), AllOf(HasSubstr("'t'"), HasSubstr("\"type\": \"object\"")));
  }
  EXPECT_TRUE(registry.empty());
}

TEST(ToolRegistryRegisterTest, RejectsInvalidJsonSchemas) {
  ToolRegistry registry;
  const char* bad_schemas[] = {
      R"({"type": "object", "properties": {"x": {"type": "strin"}}})",
      R"({"type": "object", "required": "x"})",
      R"({"type": "object", "minProperties": -1})",
      R"({"type": "object", "properties": {"x": {"$ref": "#/definitions/missing"}}})",
      R"({"type": "object", "properties": {"x": {"$ref": "http://example.com/x.json"}}})",
      R"({"type": "object", "properties": {"x": {"type": "string", "pattern": "("}}})",
      R"({"type": "object", "patternProperties": {"[": {"type": "string"}}})",
  };
  for (const char* schema : bad_schemas) {
    Status s = registry.Register(EchoTool("lab_lookup", Json::parse(schema)));
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << schema;
    EXPECT_THAT(s.message(), AllOf(HasSubstr("'lab_lookup'"), HasSubstr("not a valid JSON Schema"))) << schema;
  }
  EXPECT_TRUE(registry.empty());
}

// ---- ValidateArguments ---------------------------------------------------------

TEST_F(ToolRegistryTest, UnknownToolNamesTheValidTools) {
  Result<Json> result = registry_.ValidateArguments("prescribe", "{}");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(result.status().message(), "Unknown tool 'prescribe'. Valid tools: order, echo.");
}

TEST_F(ToolRegistryTest, UnknownToolSuggestsTheLikelyName) {
  EXPECT_THAT(registry_.ValidateArguments("Order", "{}").status().message(),
              AllOf(HasSubstr("Did you mean 'order'?"), HasSubstr("Valid tools: order, echo.")));
  EXPECT_THAT(registry_.ValidateArguments("functions.echo", "{}").status().message(),
              HasSubstr("Did you mean 'echo'?"));
  EXPECT_THAT(registry_.ValidateArguments("ecko", "{}").status().message(), HasSubstr("Did you mean 'echo'?"));
  EXPECT_THAT(registry_.ValidateArguments("exit", "{}").status().message(), Not(HasSubstr("Did you mean")));
}

TEST(ToolRegistryValidateTest, UnknownToolWithNoTools) {
  ToolRegistry registry;
  EXPECT_THAT(registry.ValidateArguments("x", "{}").status().message(),
              AllOf(StartsWith("Unknown tool 'x'."), HasSubstr("No tools are available")));
}

TEST_F(ToolRegistryTest, EmptyArgumentsMeanEmptyObject) {
  for (std::string text : {"", "   ", "\n\t "}) {
    Result<Json> result = registry_.ValidateArguments("echo", text);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_EQ(*result, Json::object());
  }
  // ... which still has to satisfy "required".
  EXPECT_THAT(ErrorFor(""), HasSubstr("/dose_mg: missing required property"));
}

TEST_F(ToolRegistryTest, ValidArgumentsAreReturnedParsed) {
  Result<Json> result = registry_.ValidateArguments(
      "order", R"({"dose_mg": 2.5, "route": "iv", "tags": ["a"], "patient": {"id": "p1"}, "a/b": "x"})");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ((*result)["patient"]["id"], "p1");
}

TEST_F(ToolRegistryTest, NotJson) {
  std::string message = ErrorFor(R"({"dose_mg": 5, route: "oral"})");
  EXPECT_THAT(message, StartsWith("Arguments for 'order' are not valid JSON: "));
  EXPECT_THAT(message, HasSubstr("parse error"));
  EXPECT_THAT(message, Not(HasSubstr("[json.exception")));
  EXPECT_THAT(message, HasSubstr(R"(received: {"dose_mg": 5, route: "oral"})"));
  EXPECT_THAT(message, HasSubstr("send a JSON object matching the tool's parameters."));
}

TEST_F(ToolRegistryTest, NotJsonPreviewIsShort) {
  std::string message = ErrorFor("{" + std::string(5000, 'x'));
  EXPECT_LT(message.size(), 600u);
  EXPECT_THAT(message, HasSubstr("..."));
}

TEST_F(ToolRegistryTest, JsonThatIsNotAnObject) {
  EXPECT_THAT(ErrorFor("[1, 2]"), HasSubstr("Arguments for 'order' must be a JSON object, got array"));
  EXPECT_THAT(ErrorFor("\"oral\""), HasSubstr("must be a JSON object, got string \"oral\""));
  EXPECT_THAT(ErrorFor("42"), HasSubstr("got integer 42"));
  EXPECT_THAT(ErrorFor("null"), HasSubstr("got null"));
}

TEST_F(ToolRegistryTest, WrongTypeNamesExpectedAndReceived) {
  std::string message = ErrorFor(R"({"dose_mg": "ten", "route": "oral"})");
  EXPECT_THAT(message, StartsWith("Invalid arguments for 'order': "));
  EXPECT_THAT(message, HasSubstr(R"(/dose_mg: expected number, got string "ten")"));
  // Only the specific error, not valijson's "Failed to validate ..." summaries.
  EXPECT_THAT(message, Not(HasSubstr("Failed to validate")));
  EXPECT_THAT(ErrorFor(R"({"dose_mg": 1, "route": "oral", "count": 2.5})"),
              HasSubstr("/count: expected integer, got number 2.5"));
}

TEST_F(ToolRegistryTest, MissingRequiredPointsAtTheProperty) {
  std::string message = ErrorFor(R"({"dose_mg": 1})");
  EXPECT_EQ(message,
            "Invalid arguments for 'order': /route: missing required property. "
            "Fix the arguments to match the tool's parameters and call it again.");
}

TEST_F(ToolRegistryTest, EnumViolationListsAllowedValues) {
  EXPECT_THAT(ErrorFor(R"({"dose_mg": 1, "route": "rectal"})"),
              HasSubstr(R"(/route: must be one of "oral", "iv"; got "rectal")"));
}

TEST_F(ToolRegistryTest, AdditionalPropertiesListsEveryExtraAndTheAllowedOnes) {
  std::string message = ErrorFor(R"({"dose_mg": 1, "route": "oral", "units": "mg", "when": "now"})");
  EXPECT_THAT(message, HasSubstr("/units: unexpected property (allowed: a/b, count, dose_mg, patient, route, tags)"));
  EXPECT_THAT(message, HasSubstr("/when: unexpected property"));
}

TEST_F(ToolRegistryTest, NestedErrorsUseJsonPointers) {
  std::string message =
      ErrorFor(R"({"dose_mg": 1, "route": "oral", "tags": ["ok", 2, true], "patient": {}, "a/b": 3})");
  EXPECT_THAT(message, HasSubstr("/tags/1: expected string, got integer 2"));
  EXPECT_THAT(message, HasSubstr("/tags/2: expected string, got boolean true"));
  EXPECT_THAT(message, HasSubstr("/patient/id: missing required property"));
  EXPECT_THAT(message, HasSubstr("/a~1b: expected string"));
  EXPECT_THAT(message, Not(HasSubstr("Failed to validate")));
}

TEST_F(ToolRegistryTest, BoundsAreReadable) {
  EXPECT_THAT(ErrorFor(R"({"dose_mg": 5000, "route": "oral"})"), HasSubstr("/dose_mg: must be <= 1000, got 5000"));
  EXPECT_THAT(ErrorFor(R"({"dose_mg": -1, "route": "oral"})"), HasSubstr("/dose_mg: must be >= 0, got -1"));
}

TEST_F(ToolRegistryTest, ListsEveryErrorAtOnce) {
  std::string message = ErrorFor(R"({"dose_mg": "x", "count": "y"})");
  EXPECT_THAT(message, HasSubstr("/dose_mg: expected number"));
  EXPECT_THAT(message, HasSubstr("/count: expected integer"));
  EXPECT_THAT(message, HasSubstr("/route: missing required property"));
}

TEST(ToolRegistryValidateTest, LongErrorListsAreCapped) {
  Json schema = {{"type", "object"}, {"required", Json::array()}};
  for (int i = 0; i < 30; ++i) schema["required"].push_back("field_" + std::to_string(i));
  ToolRegistry registry;
  ASSERT_TRUE(registry.Register(EchoTool("wide", schema)).ok());
  std::string message = registry.ValidateArguments("wide", "{}").status().message();
  EXPECT_THAT(message, HasSubstr("/field_0: missing required property"));
  EXPECT_THAT(message, HasSubstr("... and 22 more"));
  EXPECT_LT(message.size(), 1500u);
}

// ---- Execute -------------------------------------------------------------------

TEST_F(ToolRegistryTest, ExecuteSuccess) {
  ToolResult result = registry_.Execute({"call_1", "order", R"({"dose_mg": 1, "route": "oral"})"}, {});
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(Json::parse(result.content), Json::parse(R"({"dose_mg": 1, "route": "oral"})"));
  EXPECT_EQ(result.ObservationText(), result.content);
}

TEST_F(ToolRegistryTest, ExecuteReportsArgumentErrorsAsToolErrors) {
  ToolResult unknown = registry_.Execute({"c", "nope", "{}"}, {});
  EXPECT_FALSE(unknown.ok);
  EXPECT_EQ(unknown.error, "Unknown tool 'nope'. Valid tools: order, echo.");
  EXPECT_THAT(unknown.ObservationText(), StartsWith("Error: Unknown tool"));

  ToolResult not_json = registry_.Execute({"c", "order", "{dose: 1"}, {});
  EXPECT_FALSE(not_json.ok);
  EXPECT_THAT(not_json.error, StartsWith("Arguments for 'order' are not valid JSON"));

  struct Case {
    const char* arguments;
    const char* expected;
  };
  for (const Case& c : {Case{R"({"dose_mg": true, "route": "iv"})", "/dose_mg: expected number, got boolean true"},
                        Case{R"({"route": "iv"})", "/dose_mg: missing required property"},
                        Case{R"({"dose_mg": 1, "route": "im"})", R"(/route: must be one of "oral", "iv")"},
                        Case{R"({"dose_mg": 1, "route": "iv", "x": 1})", "/x: unexpected property"}}) {
    ToolResult result = registry_.Execute({"c", "order", c.arguments}, {});
    EXPECT_FALSE(result.ok);
    EXPECT_THAT(result.error, AllOf(StartsWith("Invalid arguments for 'order': "), HasSubstr(c.expected)));
  }
}

TEST(ToolRegistryExecuteTest, ToolExceptionsBecomeErrors) {
  ToolRegistry registry;
  ASSERT_TRUE(registry
                  .Register(MakeFunctionTool({"std_thrower", "Throws.", Json{{"type", "object"}}},
                                             [](const Json&, const ToolContext&) -> ToolResult {
                                               throw std::runtime_error("lab system offline");
                                             }))
                  .ok());
  ASSERT_TRUE(registry
                  .Register(MakeFunctionTool({"int_thrower", "Throws.", Json{{"type", "object"}}},
                                             [](const Json&, const ToolContext&) -> ToolResult { throw 42; }))
                  .ok());
  ToolResult std_result = registry.Execute({"c", "std_thrower", "{}"}, {});
  EXPECT_FALSE(std_result.ok);
  EXPECT_EQ(std_result.error, "Tool 'std_thrower' failed: lab system offline");
  ToolResult other = registry.Execute({"c", "int_thrower", "{}"}, {});
  EXPECT_FALSE(other.ok);
  EXPECT_EQ(other.error, "Tool 'int_thrower' failed with an unknown exception");
}

TEST(ToolRegistryExecuteTest, ToolErrorsPassThrough) {
  ToolRegistry registry;
  ASSERT_TRUE(registry
                  .Register(MakeFunctionTool({"lookup", "Fails.", Json{{"type", "object"}}},
                                             [](const Json&, const ToolContext&) {
                                               return ToolResult::Error("No patient with id 7; list patients first.");
                                             }))
                  .ok());
  ToolResult result = registry.Execute({"c", "lookup", "{}"}, {});
  EXPECT_EQ(result.ObservationText(), "Error: No patient with id 7; list patients first.");
}

TEST(ToolRegistryExecuteTest, EmptyFunctionIsAnError) {
  ToolRegistry registry;
  ASSERT_TRUE(registry.Register(MakeFunctionTool({"hollow", "Nothing.", Json{{"type", "object"}}}, nullptr)).ok());
  ToolResult result = registry.Execute({"c", "hollow", "{}"}, {});
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.error, HasSubstr("'hollow' has no implementation"));
}

class ToolRegistryCountingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(registry_
                    .Register(MakeFunctionTool({"count", "Counts.", Json{{"type", "object"}}},
                                               [this](const Json&, const ToolContext& ctx) {
                                                 runs_.fetch_add(1);
                                                 return ToolResult::Ok(ctx.deadline.is_never() ? "never" : "timed");
                                               }))
                    .ok());
  }
  ToolRegistry registry_;
  std::atomic<int> runs_{0};
};

TEST_F(ToolRegistryCountingTest, CancelledContextDoesNotRun) {
  ToolContext ctx;
  ctx.cancel.Cancel();
  ToolResult result = registry_.Execute({"c", "count", "{}"}, ctx);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.error, "Cancelled before start");
  EXPECT_EQ(runs_.load(), 0);
}

TEST_F(ToolRegistryCountingTest, ExpiredDeadlineDoesNotRun) {
  ToolContext ctx;
  ctx.deadline = Deadline::At(SteadyClock::now() - std::chrono::seconds(1));
  ToolResult result = registry_.Execute({"c", "count", "{}"}, ctx);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.error, "Timed out before start");
  EXPECT_EQ(runs_.load(), 0);
}

TEST_F(ToolRegistryCountingTest, ContextReachesTheTool) {
  ToolContext ctx;
  ctx.deadline = Deadline::In(std::chrono::minutes(5));
  EXPECT_EQ(registry_.Execute({"c", "count", "{}"}, ctx).content, "timed");
  EXPECT_EQ(registry_.Execute({"c", "count", "{}"}, {}).content, "never");
  EXPECT_EQ(runs_.load(), 2);
}

TEST_F(ToolRegistryTest, ConcurrentExecuteFromEightThreads) {
  constexpr int kThreads = 8;
  constexpr int kCallsPerThread = 300;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCallsPerThread; ++i) {
        bool valid = (i + t) % 2 == 0;
        std::string args = valid ? R"({"dose_mg": )" + std::to_string(i) + R"(, "route": "oral", "tags": ["a"]})"
                                 : R"({"dose_mg": "x", "route": "oral", "tags": [1]})";
        ToolResult result = registry_.Execute({"c", "order", args}, {});
        bool right = valid ? result.ok && Json::parse(result.content)["dose_mg"] == i
                           : !result.ok && result.error.find("/tags/0: expected string") != std::string::npos;
        if (!right) failures.fetch_add(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace medreact
