// Tests for the util pack: the calculator's grammar, conventions and every
// error message (through EvaluateExpression and through the registry), and
// current_time with an injected clock and UTC offsets.
#include "tools/util/util_pack.h"

#include <chrono>
#include <cmath>
#include <numbers>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tools/util/calculator.h"

namespace medreact {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

double Eval(const std::string& expression) {
  Result<double> result = EvaluateExpression(expression);
  EXPECT_TRUE(result.ok()) << expression << " -> " << result.status().ToString();
  return result.value_or(std::nan(""));
}

std::string EvalError(const std::string& expression) {
  Result<double> result = EvaluateExpression(expression);
  EXPECT_FALSE(result.ok()) << expression << " -> " << result.value_or(0);
  if (result.ok()) return "";
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  return result.status().message();
}

// ---- Calculator: values --------------------------------------------------------

TEST(CalculatorTest, Precedence) {
  EXPECT_EQ(Eval("1 + 2 * 3"), 7);
  EXPECT_EQ(Eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(Eval("2 * 3 ^ 2"), 18);
  EXPECT_EQ(Eval("10 - 6 / 2"), 7);
  EXPECT_EQ(Eval("1 + 7 % 4 * 2"), 7);
}

TEST(CalculatorTest, Associativity) {
  EXPECT_EQ(Eval("10 - 4 - 3"), 3);    // left
  EXPECT_EQ(Eval("100 / 10 / 5"), 2);  // left
  EXPECT_EQ(Eval("2 ^ 3 ^ 2"), 512);   // right: 2^(3^2)
  EXPECT_EQ(Eval("2 ** 3 ** 2"), 512);
  EXPECT_EQ(Eval("(2 ^ 3) ^ 2"), 64);
}

// Convention: unary minus binds looser than power, as in mathematics and
// Python; the exponent may itself carry a sign.
TEST(CalculatorTest, UnaryMinusBindsLooserThanPower) {
  EXPECT_EQ(Eval("-2^2"), -4);
  EXPECT_EQ(Eval("(-2)^2"), 4);
  EXPECT_EQ(Eval("2^-1"), 0.5);
  EXPECT_EQ(Eval("-2^-2"), -0.25);
  EXPECT_EQ(Eval("2 * -3"), -6);
  EXPECT_EQ(Eval("-3 - -3"), 0);
  EXPECT_EQ(Eval("--4"), 4);
  EXPECT_EQ(Eval("+4"), 4);
  EXPECT_EQ(Eval("1 ++ 2"), 3);
}

TEST(CalculatorTest, RemainderFollowsTheDividend) {
  EXPECT_EQ(Eval("7 % 3"), 1);
  EXPECT_EQ(Eval("-7 % 3"), -1);
  EXPECT_EQ(Eval("5.5 % 2"), 1.5);
}

TEST(CalculatorTest, Numbers) {
  EXPECT_EQ(Eval("42"), 42);
  EXPECT_EQ(Eval("3.25"), 3.25);
  EXPECT_EQ(Eval(".5"), 0.5);
  EXPECT_EQ(Eval("5."), 5);
  EXPECT_EQ(Eval("1e3"), 1000);
  EXPECT_EQ(Eval("1.5E-2"), 0.015);
  EXPECT_EQ(Eval("2e+2"), 200);
  EXPECT_EQ(Eval("  \t1 +\n 2 "), 3);
}

TEST(CalculatorTest, ConstantsAndCase) {
  EXPECT_DOUBLE_EQ(Eval("pi"), std::numbers::pi);
  EXPECT_DOUBLE_EQ(Eval("e"), std::numbers::e);
  EXPECT_DOUBLE_EQ(Eval("2 * PI"), 2 * std::numbers::pi);
  EXPECT_EQ(Eval("SQRT(4)"), 2);
}

TEST(CalculatorTest, Functions) {
  EXPECT_EQ(Eval("sqrt(16)"), 4);
  EXPECT_DOUBLE_EQ(Eval("cbrt(27)"), 3);
  EXPECT_EQ(Eval("cbrt(-8)"), -2);
  EXPECT_EQ(Eval("abs(-5)"), 5);
  EXPECT_EQ(Eval("exp(0)"), 1);
  EXPECT_DOUBLE_EQ(Eval("ln(e)"), 1);
  EXPECT_DOUBLE_EQ(Eval("log(e^2)"), 2);  // natural
  EXPECT_DOUBLE_EQ(Eval("log10(1000)"), 3);
  EXPECT_EQ(Eval("log2(8)"), 3);
  EXPECT_DOUBLE_EQ(Eval("sin(pi / 2)"), 1);
  EXPECT_EQ(Eval("cos(0)"), 1);
  EXPECT_EQ(Eval("tan(0)"), 0);
  EXPECT_EQ(Eval("min(3, 1, 2)"), 1);
  EXPECT_EQ(Eval("max(3, 1, 2)"), 3);
  EXPECT_EQ(Eval("max(5)"), 5);
  EXPECT_EQ(Eval("round(2.5)"), 3);  // half away from zero
  EXPECT_EQ(Eval("round(-2.5)"), -3);
  EXPECT_DOUBLE_EQ(Eval("round(3.14159, 2)"), 3.14);
  EXPECT_EQ(Eval("round(1234, -2)"), 1200);
  EXPECT_EQ(Eval("floor(-1.5)"), -2);
  EXPECT_EQ(Eval("ceil(1.2)"), 2);
  EXPECT_EQ(Eval("pow(2, 10)"), 1024);
  EXPECT_EQ(Eval("sqrt(max(9, 16)) + abs(-(2))"), 6);
}

TEST(CalculatorTest, ClinicalFormulas) {
  EXPECT_NEAR(Eval("70 / 1.75^2"), 22.857142857, 1e-9);                    // BMI
  EXPECT_NEAR(Eval("(140 - 67) * 72 / (72 * 0.9)"), 81.111111111, 1e-9);   // Cockcroft-Gault
  EXPECT_NEAR(Eval("sqrt(170 * 70 / 3600)"), 1.8181, 1e-4);                // Mosteller BSA
}

// ---- Calculator: errors ----------------------------------------------------------

TEST(CalculatorTest, UnexpectedTokensGivePositions) {
  EXPECT_EQ(EvalError("1 + 2 )"), "Unexpected ')' at position 7");
  EXPECT_EQ(EvalError("(1 + 2))"), "Unexpected ')' at position 8");
  EXPECT_EQ(EvalError("1 * / 2"), "Unexpected '/' at position 5 (expected a number, a name or '(')");
  EXPECT_EQ(EvalError(")"), "Unexpected ')' at position 1 (expected a number, a name or '(')");
  EXPECT_EQ(EvalError("1 +"), "Unexpected end of expression at position 4 (expected a number, a name or '(')");
  EXPECT_EQ(EvalError("(1 + 2"), "Missing ')' to close the '(' at position 1");
  EXPECT_EQ(EvalError("max(1,)"), "Unexpected ')' at position 7 (expected a number, a name or '(')");
  EXPECT_EQ(EvalError("(2 3)"), "Unexpected '3' at position 4 (use * for multiplication, e.g. 2*pi or 2*(1+3))");
  EXPECT_THAT(EvalError("2pi"), StartsWith("Unexpected 'pi' at position 2 (use * for multiplication"));
  EXPECT_THAT(EvalError("2(3)"), StartsWith("Unexpected '(' at position 2 (use * for multiplication"));
  EXPECT_THAT(EvalError("1,000"), StartsWith("Unexpected ',' at position 2 (commas only separate"));
}

TEST(CalculatorTest, BadCharactersAndNumbers) {
  EXPECT_EQ(EvalError("2 $ 3"), "Unexpected character '$' at position 3");
  // Positions count characters, not bytes.
  EXPECT_EQ(EvalError("\u00b5 \u00d7 3"), "Unexpected character '\u00b5' at position 1");
  EXPECT_EQ(EvalError("2 \u00d7 3"), "Unexpected character '\u00d7' at position 3 (use * for multiplication)");
  EXPECT_EQ(EvalError("\u00e9\u00e9 + 1 $"), "Unexpected character '\u00e9' at position 1");
  EXPECT_EQ(EvalError("1.2.3"), "Malformed number '1.2.3' at position 1");
  EXPECT_EQ(EvalError("4 + 1e+"), "Malformed number '1e+' at position 5");
  EXPECT_EQ(EvalError("1e999"), "Number '1e999' at position 1 is out of range");
}

TEST(CalculatorTest, ZeroDivisors) {
  EXPECT_EQ(EvalError("1/0"), "Division by zero at position 2");
  EXPECT_EQ(EvalError("1 / (2 - 2)"), "Division by zero at position 3");
  EXPECT_EQ(EvalError("5 % 0"), "Modulo by zero at position 3");
}

TEST(CalculatorTest, Names) {
  std::string unknown = EvalError("1 + foo(2)");
  EXPECT_THAT(unknown, StartsWith("Unknown function 'foo' at position 5. Known functions: abs, cbrt, ceil, cos"));
  EXPECT_THAT(unknown, HasSubstr("sqrt, tan."));
  EXPECT_EQ(EvalError("x + 1"),
            "Unknown name 'x' at position 1. Known constants: pi, e (variables and units are not supported).");
  EXPECT_EQ(EvalError("sqrt 4"), "Function 'sqrt' at position 1 must be followed by '(', e.g. sqrt(2)");
  EXPECT_EQ(EvalError("pi(2)"), "'pi' at position 1 is a constant, not a function");
}

TEST(CalculatorTest, ArgumentCounts) {
  EXPECT_EQ(EvalError("sqrt(1, 2)"), "Function 'sqrt' at position 1 takes 1 argument, got 2");
  EXPECT_EQ(EvalError("sqrt()"), "Function 'sqrt' at position 1 takes 1 argument, got 0");
  EXPECT_EQ(EvalError("pow(2)"), "Function 'pow' at position 1 takes 2 arguments, got 1");
  EXPECT_EQ(EvalError("round(1, 2, 3)"), "Function 'round' at position 1 takes 1 or 2 arguments, got 3");
  EXPECT_EQ(EvalError("max()"), "Function 'max' at position 1 takes at least 1 argument, got 0");
  EXPECT_EQ(EvalError("round(1, 2.5)"),
            "Function 'round' at position 1: the number of digits must be a whole number from -15 to 15, got 2.5");
}

TEST(CalculatorTest, NonFiniteResults) {
  EXPECT_EQ(EvalError("sqrt(-1)"), "Non-finite result: sqrt(-1) at position 1 is undefined (not a real number)");
  EXPECT_EQ(EvalError("ln(0)"), "Non-finite result: ln(0) at position 1 is infinite or too large to represent");
  EXPECT_EQ(EvalError("10^400"), "Non-finite result: 10^400 at position 3 is infinite or too large to represent");
  EXPECT_EQ(EvalError("1e308 * 10"),
            "Non-finite result: 1e+308*10 at position 7 is infinite or too large to represent");
  EXPECT_THAT(EvalError("(-8)^(1/3)"),
              AllOf(StartsWith("Non-finite result: (-8)^0.333333333333333 at position 5 is not a real number"),
                    HasSubstr("use cbrt()")));
}

TEST(CalculatorTest, EmptyExpression) {
  EXPECT_EQ(EvalError(""), "Expression is empty");
  EXPECT_EQ(EvalError("  \t "), "Expression is empty");
}

TEST(CalculatorTest, DepthLimit) {
  auto nested = [](int levels) { return std::string(levels, '(') + "1" + std::string(levels, ')'); };
  EXPECT_EQ(Eval(nested(kMaxExpressionDepth)), 1);
  EXPECT_EQ(EvalError(nested(kMaxExpressionDepth + 1)),
            "Expression is nested too deeply at position 101 (the limit is 100 levels)");
  EXPECT_EQ(Eval(std::string(kMaxExpressionDepth, '-') + "1"), 1);
  EXPECT_THAT(EvalError(std::string(kMaxExpressionDepth + 1, '-') + "1"), HasSubstr("nested too deeply"));
  std::string calls;
  for (int i = 0; i < kMaxExpressionDepth + 1; ++i) calls += "abs(";
  EXPECT_THAT(EvalError(calls + "1" + std::string(kMaxExpressionDepth + 1, ')')), HasSubstr("nested too deeply"));
  // Deep input far past the limit fails cleanly instead of exhausting the stack.
  EXPECT_THAT(EvalError(nested(100000)), HasSubstr("nested too deeply"));
}

TEST(CalculatorTest, ResultJson) {
  EXPECT_EQ(CalculatorResultJson(0.1 + 0.2), Json(0.3));
  EXPECT_TRUE(CalculatorResultJson(7.0).is_number_integer());
  EXPECT_EQ(CalculatorResultJson(7.0), Json(7));
  EXPECT_EQ(CalculatorResultJson(std::pow(2.0, 53)), Json(9007199254740992));
  EXPECT_TRUE(CalculatorResultJson(std::pow(2.0, 60)).is_number_float());
  EXPECT_EQ(CalculatorResultJson(-0.0).dump(), "0");
  EXPECT_EQ(CalculatorResultJson(1.0 / 3).dump(), "0.333333333333333");
  EXPECT_EQ(CalculatorResultJson(-2.5), Json(-2.5));
  EXPECT_EQ(CalculatorResultJson(0.1 * 3 * 10), Json(3));
  EXPECT_EQ(CalculatorResultJson(std::pow(2.0, 53) - 1), Json(9007199254740991));
}

// ---- Through the registry ------------------------------------------------------

using namespace std::chrono;

// 2026-11-22T03:04:05.750Z, a Sunday.
system_clock::time_point FixedNow() {
  return sys_days{year{2026} / November / 22} + hours(3) + minutes(4) + seconds(5) + milliseconds(750);
}

class UtilPackTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(RegisterUtilPack(registry_, {.now = [] { return now_; }}).ok()); }

  Json Call(const std::string& tool, const std::string& arguments) {
    ToolResult result = registry_.Execute({"call_1", tool, arguments}, {});
    EXPECT_TRUE(result.ok) << result.error;
    return result.ok ? Json::parse(result.content) : Json();
  }

  std::string CallError(const std::string& tool, const std::string& arguments) {
    ToolResult result = registry_.Execute({"call_1", tool, arguments}, {});
    EXPECT_FALSE(result.ok) << result.content;
    return result.error;
  }

  static inline system_clock::time_point now_ = FixedNow();
  ToolRegistry registry_;
};

TEST_F(UtilPackTest, RegistersBothTools) {
  EXPECT_EQ(registry_.Names(), UtilPackToolNames());
  EXPECT_EQ(UtilPackToolNames(), (std::vector<std::string>{"current_time", "calculator"}));
  for (const ToolSpec& spec : registry_.Specs()) {
    EXPECT_GT(spec.description.size(), 200u) << spec.name;
    EXPECT_EQ(spec.parameters["type"], "object");
  }
  EXPECT_EQ(registry_.Find("calculator")->spec().parameters["required"], Json::array({"expression"}));
}

TEST_F(UtilPackTest, RegisteringTwiceFailsWithoutPartialRegistration) {
  Status again = RegisterUtilPack(registry_);
  EXPECT_EQ(again.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(again.message(), HasSubstr("already registered"));
  EXPECT_EQ(registry_.size(), 2u);

  ToolRegistry other;
  ASSERT_TRUE(other.Register(MakeFunctionTool({"calculator", "Taken.", Json{{"type", "object"}}}, nullptr)).ok());
  EXPECT_FALSE(RegisterUtilPack(other).ok());
  EXPECT_EQ(other.Find("current_time"), nullptr);
}

TEST_F(UtilPackTest, CalculatorReturnsExpressionAndNumber) {
  Json result = Call("calculator", R"({"expression": "2^3^2"})");
  EXPECT_EQ(result, Json::parse(R"({"expression": "2^3^2", "result": 512})"));
  EXPECT_TRUE(result["result"].is_number_integer());
  EXPECT_EQ(Call("calculator", R"({"expression": "70 / 1.75^2"})")["result"], Json(22.8571428571429));
  EXPECT_EQ(Call("calculator", R"({"expression": "0.1 + 0.2"})")["result"], Json(0.3));
}

TEST_F(UtilPackTest, CalculatorErrorsAreToolErrors) {
  EXPECT_EQ(CallError("calculator", R"({"expression": "1/0"})"),
            "Could not evaluate '1/0': Division by zero at position 2");
  EXPECT_THAT(CallError("calculator", R"j({"expression": "foo(1)"})j"), HasSubstr("Known functions:"));
  EXPECT_THAT(CallError("calculator", "{}"), HasSubstr("/expression: missing required property"));
  EXPECT_THAT(CallError("calculator", R"({"expression": 12})"), HasSubstr("/expression: expected string"));
  EXPECT_THAT(CallError("calculator", R"({"expr": "1"})"),
              HasSubstr("/expr: unexpected property (allowed: expression)"));
  std::string long_expression = "1" + std::string(500, ' ');
  EXPECT_THAT(CallError("calculator", Json{{"expression", long_expression}}.dump()),
              HasSubstr("/expression: string should be no more than 500 characters"));
}

TEST_F(UtilPackTest, CurrentTimeInUtc) {
  EXPECT_EQ(Call("current_time", "{}"),
            Json::parse(R"({"iso8601": "2026-11-22T03:04:05Z", "unix_seconds": 1795316645, "weekday": "Sunday"})"));
  EXPECT_EQ(Call("current_time", ""), Call("current_time", R"({"utc_offset_minutes": 0})"));
}

TEST_F(UtilPackTest, CurrentTimeWithOffsets) {
  struct Case {
    int offset;
    const char* iso;
    const char* weekday;
  };
  for (const Case& c : {Case{60, "2026-11-22T04:04:05+01:00", "Sunday"},
                        Case{-300, "2026-11-21T22:04:05-05:00", "Saturday"},
                        Case{330, "2026-11-22T08:34:05+05:30", "Sunday"},
                        Case{840, "2026-11-22T17:04:05+14:00", "Sunday"},
                        Case{-720, "2026-11-21T15:04:05-12:00", "Saturday"}}) {
    Json result = Call("current_time", Json{{"utc_offset_minutes", c.offset}}.dump());
    EXPECT_EQ(result["iso8601"], c.iso) << c.offset;
    EXPECT_EQ(result["weekday"], c.weekday) << c.offset;
    EXPECT_EQ(result["unix_seconds"], 1795316645) << c.offset;
  }
}

TEST_F(UtilPackTest, CurrentTimeRejectsBadOffsets) {
  EXPECT_THAT(CallError("current_time", R"({"utc_offset_minutes": 841})"),
              HasSubstr("/utc_offset_minutes: must be <= 840, got 841"));
  EXPECT_THAT(CallError("current_time", R"({"utc_offset_minutes": -721})"),
              HasSubstr("/utc_offset_minutes: must be >= -720"));
  EXPECT_THAT(CallError("current_time", R"({"utc_offset_minutes": "+01:00"})"),
              HasSubstr("/utc_offset_minutes: expected integer, got string"));
}

TEST(UtilPackClockTest, BeforeTheEpochTruncatesTowardsThePast) {
  ToolRegistry registry;
  ASSERT_TRUE(RegisterUtilPack(registry, {.now = [] { return system_clock::time_point(-milliseconds(500)); }}).ok());
  ToolResult result = registry.Execute({"c", "current_time", "{}"}, {});
  ASSERT_TRUE(result.ok);
  EXPECT_EQ(Json::parse(result.content),
            Json::parse(R"({"iso8601": "1969-12-31T23:59:59Z", "unix_seconds": -1, "weekday": "Wednesday"})"));
}

TEST(UtilPackClockTest, DefaultsToTheSystemClock) {
  ToolRegistry registry;
  ASSERT_TRUE(RegisterUtilPack(registry).ok());
  ToolResult result = registry.Execute({"c", "current_time", "{}"}, {});
  ASSERT_TRUE(result.ok);
  int64_t now = duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
  EXPECT_NEAR(Json::parse(result.content)["unix_seconds"].get<int64_t>(), now, 5);
}

}  // namespace
}  // namespace medreact
