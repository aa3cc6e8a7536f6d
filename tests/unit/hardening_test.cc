// The hardening guards (docs/reliability.md), each tested on its class of
// input rather than on one example: nesting depth and number range in every
// JSON path, typed reads of untrusted values, file readers that check type and
// size, private atomic writes, credentials kept out of messages, control
// characters escaped, and model adapters that throw.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apps/extract/extract_app.h"
#include "apps/extract/extract_prompts.h"
#include "medreact/json_schema.h"
#include "apps/triage/triage_policy.h"
#include "apps/triage/triage_prompts.h"
#include "core/file_io.h"
#include "tools/calc/calculator.h"
#include "medreact/agent.h"
#include "medreact/http.h"
#include "medreact/json.h"
#include "medreact/json_repair.h"
#include "medreact/openai.h"
#include "medreact/text_protocol.h"
#include "medreact/tool_registry.h"
#include "testing/fake_model.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Nested(int depth, char open = '[', char close = ']', std::string_view inner = "") {
  return std::string(depth, open) + std::string(inner) + std::string(depth, close);
}

// ---- JSON: depth --------------------------------------------------------------

TEST(JsonDepthTest, AcceptsTheLimitAndRefusesOneMoreInEveryContainerMix) {
  EXPECT_TRUE(ParseJson(Nested(kMaxJsonDepth)).ok());
  EXPECT_TRUE(ParseOrderedJson(Nested(kMaxJsonDepth)).ok());
  for (const std::string& text : {Nested(kMaxJsonDepth + 1), Nested(100000),
                                  [] {  // objects and arrays mixed
                                    std::string s;
                                    for (int i = 0; i < 5000; ++i) s += i % 2 ? "[" : "{\"a\":";
                                    return s;
                                  }(),
                                  "{\"resourceType\":\"Patient\",\"x\":" + Nested(300) + "}"}) {
    Result<Json> parsed = ParseJson(text);
    ASSERT_FALSE(parsed.ok());
    EXPECT_THAT(parsed.status().message(), HasSubstr("nested deeper than 256 levels"));
    EXPECT_FALSE(ParseOrderedJson(text).ok());
    EXPECT_FALSE(ParseJsonLenient(text).ok());
    EXPECT_FALSE(ParseJsonLenient("Here you go:\n```json\n" + text + "\n```").ok());
  }
}

TEST(JsonDepthTest, BracketsInsideStringsDoNotCount) {
  const std::string text = "{\"a\":\"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"}";
  EXPECT_TRUE(ParseJson(text).ok());
  EXPECT_EQ(JsonDepthExceededAt(text, 1), std::nullopt);
  EXPECT_EQ(JsonDepthExceededAt("[[\"[\"]]", 2), std::nullopt);
  EXPECT_EQ(JsonDepthExceededAt("[[[", 2), std::optional<size_t>(2));
}

TEST(JsonDepthTest, RepairNeverBuildsADeepValue) {
  // Truncated deep text: repair closes every bracket, the guard still refuses.
  EXPECT_FALSE(ParseJsonLenient(std::string(50000, '[')).ok());
  // "{{{{": no '{' but the last starts a plausible object, so repair finds "{}".
  Result<Json> braces = ParseJsonLenient(std::string(50000, '{'));
  if (braces.ok()) {
    EXPECT_LE(DumpJson(*braces).size(), 2u * kMaxJsonDepth);
  }
  EXPECT_FALSE(ParseJsonLenient("{'a': " + std::string(20000, '[') + "}").ok());
  // StripJsonDecoration and RepairJson themselves are linear and never recurse.
  EXPECT_FALSE(RepairJson(std::string(200000, '[')).empty());
}

// ---- JSON: numbers -------------------------------------------------------------

TEST(JsonNumberTest, OutOfRangeNumbersAreParseErrorsNotExceptions) {
  for (const char* text : {"1e999", "-1e999", "[1e400]", "{\"usage\":{\"prompt_tokens\":1e999}}",
                           "{\"a\":[1,2,{\"b\":-9e9999}]}", "123456789e999999999999"}) {
    Result<Json> parsed = ParseJson(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_THAT(parsed.status().message(), HasSubstr("out of range")) << text;
    EXPECT_FALSE(ParseOrderedJson(text).ok()) << text;
    EXPECT_FALSE(ParseJsonLenient(text).ok()) << text;
  }
  // Large but representable numbers are fine; huge integers become doubles.
  EXPECT_TRUE(ParseJson("1e308").ok());
  EXPECT_TRUE(ParseJson("123456789012345678901234567890").ok());
}

TEST(JsonNumberTest, ExactIntegerRefusesWhatDoesNotFit) {
  EXPECT_EQ(ExactInteger(Json(5)), 5);
  EXPECT_EQ(ExactInteger(Json(5.0)), 5);
  EXPECT_EQ(ExactInteger(Json(-3)), -3);
  EXPECT_EQ(ExactInteger(Json(5.5)), std::nullopt);
  EXPECT_EQ(ExactInteger(Json(1e300)), std::nullopt);
  EXPECT_EQ(ExactInteger(Json(-1e300)), std::nullopt);
  EXPECT_EQ(ExactInteger(Json(9.2233720368547758e18)), std::nullopt);
  EXPECT_EQ(ExactInteger(Json(uint64_t{18446744073709551615u})), std::nullopt);
  EXPECT_EQ(ExactInteger(Json("12")), std::nullopt);
  EXPECT_EQ(ExactInteger(Json(nullptr)), std::nullopt);
  EXPECT_EQ(ExactInteger(Json(7), 0, 5), std::nullopt);
}

TEST(JsonNumberTest, TypedReadsNeverThrow) {
  const Json j = ParseJson(R"({"s": 1, "n": "x", "i": 2.5, "b": null, "big": 1e300, "ok": "yes"})").value();
  EXPECT_EQ(StringOr(j, "s", "fallback"), "fallback");
  EXPECT_EQ(StringOr(j, "ok"), "yes");
  EXPECT_EQ(NumberOr(j, "n", 7), 7);
  EXPECT_EQ(NumberOr(j, "big", 7), 1e300);
  EXPECT_EQ(IntegerOr(j, "i", 3), 3);
  EXPECT_EQ(IntegerOr(j, "big", 3), 3);
  EXPECT_EQ(BoolOr(j, "b", true), true);
  EXPECT_EQ(StringOr(Json::array(), "s", "f"), "f");  // not an object
  EXPECT_EQ(NumberOr(Json("text"), "s", 1), 1);
}

// ---- JSON: messages never quote the input ---------------------------------------

TEST(JsonMessageTest, ParseErrorsGivePositionButNeverTheText) {
  for (const char* text : {"Smith-Jones, Alexandra 1961-04-02", "{\"name\": Smith}", "{\"name\": \"Smith\n\"}",
                           "[1, 2, Smith"}) {
    Result<Json> parsed = ParseJson(text);
    ASSERT_FALSE(parsed.ok());
    EXPECT_THAT(parsed.status().message(), Not(HasSubstr("Smith"))) << parsed.status().message();
    EXPECT_THAT(parsed.status().message(), HasSubstr("line "));
  }
}

TEST(JsonMessageTest, PreviewAndPrintableEscapeControlCharacters) {
  const std::string hostile = "red \x1b[31mALERT\x1b[0m bell\x07 del\x7f nul" + std::string(1, '\0') + "!";
  const std::string preview = Preview(hostile, 500);
  for (char c : preview) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << preview;
  EXPECT_THAT(preview, HasSubstr("\\x1b[31mALERT"));
  EXPECT_EQ(Preview("a\nb\tc"), "a b c");
  const std::string printable = Printable("line 1\nline 2\t\x1b[2J");
  EXPECT_EQ(printable, "line 1\nline 2\t\\x1b[2J");
}

// ---- Model replies ----------------------------------------------------------------

TEST(HostileReplyTest, UsageCountsThatAreNotCountsBecomeZero) {
  for (const char* usage : {R"({"prompt_tokens": 1e300, "completion_tokens": -5, "total_tokens": "12"})",
                            R"({"prompt_tokens": 9.5, "completion_tokens": 18446744073709551615})",
                            R"({"prompt_tokens": [1], "completion_tokens": {"a": 1}, "total_tokens": null})"}) {
    Json body = ParseJson(R"({"choices": [{"message": {"content": "hi"}}]})").value();
    body["usage"] = ParseJson(usage).value();
    Result<ModelResponse> r = ParseChatCompletion(body);
    ASSERT_TRUE(r.ok()) << usage;
    EXPECT_EQ(r->usage.prompt_tokens, 0) << usage;
    EXPECT_GE(r->usage.completion_tokens, 0) << usage;
    EXPECT_GE(r->usage.total_tokens, 0) << usage;
  }
}

TEST(HostileReplyTest, UsageSumsSaturate) {
  Usage total;
  Usage big{.prompt_tokens = INT64_MAX / 2 + 1, .completion_tokens = 1, .total_tokens = INT64_MAX / 2 + 1};
  total += big;
  total += big;
  total += big;
  EXPECT_EQ(total.prompt_tokens, INT64_MAX);
  EXPECT_EQ(total.total_tokens, INT64_MAX);
}

TEST(HostileReplyTest, OddShapesAreParseErrorsThatQuoteNothing) {
  for (const char* body : {R"([1, 2])", R"("Smith")", R"(42)", R"({"choices": "Smith"})", R"({"choices": []})",
                           R"({"choices": [null]})", R"({"Smith": 1})"}) {
    Result<ModelResponse> r = ParseChatCompletion(ParseJson(body).value());
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_THAT(r.status().message(), Not(HasSubstr("\"Smith\""))) << r.status().message();
  }
}

TEST(HostileReplyTest, StreamIndexesAndCallCountsAreBounded) {
  auto chunk = [](const std::string& delta) {
    return "data: {\"choices\":[{\"index\":0,\"delta\":" + delta + "}]}\n\n";
  };
  {  // hostile indexes are treated as absent: no overflow, one slot
    StreamAccumulator acc;
    for (const char* index : {"2147483647", "-1", "1e300", "9223372036854775807", "\"0\""}) {
      ASSERT_TRUE(acc.Feed(chunk(std::string("{\"tool_calls\":[{\"index\":") + index +
                                 ",\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}")));
    }
    ASSERT_TRUE(acc.Feed("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"));
    Result<ModelResponse> r = acc.Finish();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_LE(r->message.tool_calls.size(), 5u);
  }
  {  // more calls than any reply makes: a parse error, not unbounded growth
    StreamAccumulator acc;
    bool ok = true;
    for (int i = 0; i < 300 && ok; ++i) {
      ok = acc.Feed(chunk("{\"tool_calls\":[{\"index\":" + std::to_string(i) +
                          ",\"id\":\"c" + std::to_string(i) + "\",\"function\":{\"name\":\"f\"}}]}"));
    }
    EXPECT_FALSE(ok);
    EXPECT_THAT(acc.error(), HasSubstr("more than 256 tool calls"));
  }
  {  // a deep chunk is refused by the depth guard
    StreamAccumulator acc;
    EXPECT_FALSE(acc.Feed("data: " + Nested(5000) + "\n\n"));
    EXPECT_FALSE(acc.Finish().ok());
  }
}

TEST(HostileReplyTest, TextProtocolRepliesWithDeepOrHugeArgumentsAreErrorTurns) {
  TextProtocolOptions options;
  for (const std::string& reply :
       {"THOUGHT: x\nTOOL_CALL: {\"tool\": \"f\", \"arguments\": " + Nested(100000, '{', '}') + "}",
        std::string("TOOL_CALL: {\"tool\": \"f\", \"arguments\": {\"x\": 1e999}}"),
        "TOOL_CALL: " + Nested(100000),
        "FINAL_ANSWER: " + Nested(100000)}) {
    TextReply parsed = ParseTextReply(reply, options);
    EXPECT_TRUE(parsed.tool_calls.empty()) << reply.substr(0, 60);
  }
}

// ---- Tool arguments ---------------------------------------------------------------

TEST(HostileArgumentsTest, DeepOrOutOfRangeArgumentsAreToolErrors) {
  ToolRegistry registry;
  ASSERT_TRUE(registry
                  .Register(MakeFunctionTool({.name = "echo", .description = "echo",
                                              .parameters = Json{{"type", "object"}}},
                                             [](const Json& args, const ToolContext&) {
                                               return ToolResult::Ok(DumpJson(args));
                                             }))
                  .ok());
  for (const std::string& args : {Nested(100000, '{', '}'), "{\"a\":" + Nested(300) + "}",
                                  std::string("{\"x\": 1e999}"), std::string("{\"x\": -1e999}")}) {
    ToolResult r = registry.Execute({.id = "c1", .name = "echo", .arguments = args}, ToolContext{});
    EXPECT_FALSE(r.ok);
    EXPECT_THAT(r.error, HasSubstr("not valid JSON")) << r.error.substr(0, 200);
  }
}

TEST(HostileArgumentsTest, HistoryNeverResendsADeepValue) {
  Message assistant = Message::Assistant("");
  assistant.tool_calls.push_back({.id = "c1", .name = "f", .arguments = Nested(100000, '{', '}')});
  assistant.tool_calls.push_back({.id = "c2", .name = "f", .arguments = "{\"x\": 1e999}"});
  ModelRequest request;
  request.messages = {Message::User("q"), assistant, Message::Tool("c1", "f", "Error"),
                      Message::Tool("c2", "f", "Error")};
  const Json body = BuildChatCompletionsBody(request, "m");
  EXPECT_EQ(body["messages"][1]["tool_calls"][0]["function"]["arguments"], "{}");
  EXPECT_EQ(body["messages"][1]["tool_calls"][1]["function"]["arguments"], "{}");
}

// ---- Model adapters that throw -------------------------------------------------------

class ThrowingModel : public ChatModel {
 public:
  Result<ModelResponse> Complete(const ModelRequest&, const ModelCallContext&) override {
    throw std::runtime_error("adapter bug");
  }
  std::string name() const override { return "throwing"; }
  std::string protocol() const override { return "native"; }
};

TEST(HostileModelTest, AThrowingAdapterEndsTheRunWithAnErrorNotTheProcess) {
  Agent agent(std::make_shared<ThrowingModel>(), nullptr, {.max_steps = 3});
  RunResult r = agent.Run({.message = "q"});
  EXPECT_EQ(r.status, RunStatus::kError);
  EXPECT_THAT(r.error, HasSubstr("adapter bug"));
  EXPECT_FALSE(r.answer.empty());
  ASSERT_EQ(r.trace.steps.size(), 1u);
  EXPECT_THAT(r.trace.steps[0].model_error, HasSubstr("the model adapter failed"));
}

// A model that answers each call with a tool call, and whose tool-less call
// (fallback synthesis) waits until its deadline and times out.
class HangingFallbackModel : public ChatModel {
 public:
  Result<ModelResponse> Complete(const ModelRequest& request, const ModelCallContext& ctx) override {
    if (!request.tools.empty()) {  // a new call each turn, so the loop detector stays quiet
      std::this_thread::sleep_for(Millis(20));
      ModelResponse r;
      r.message = Message::Assistant("");
      ++calls_;
      r.message.tool_calls.push_back({.id = "c" + std::to_string(calls_), .name = "noop",
                                      .arguments = "{\"i\": " + std::to_string(calls_) + "}"});
      return r;
    }
    fallback_deadline_set = !ctx.deadline.is_never();
    while (!ctx.deadline.expired() && !ctx.cancel.cancelled()) std::this_thread::sleep_for(Millis(5));
    return Status::Timeout("fallback call cut at its deadline");
  }
  std::string name() const override { return "hanging-fallback"; }
  std::string protocol() const override { return "native"; }
  bool fallback_deadline_set = false;

 private:
  int calls_ = 0;
};

TEST(DeadlineTest, FallbackSynthesisIsBoundedByTheRunsTimeout) {
  auto tools = std::make_shared<ToolRegistry>();
  ASSERT_TRUE(tools
                  ->Register(MakeFunctionTool({.name = "noop", .description = "n", .parameters = Json{{"type", "object"}}},
                                              [](const Json&, const ToolContext&) { return ToolResult::Ok("{}"); }))
                  .ok());
  auto model = std::make_shared<HangingFallbackModel>();
  // The loop runs until its share of the timeout is spent; the fallback gets
  // the rest (timeout / 4 here), never its own 60 s.
  Agent agent(model, tools, {.max_steps = 1000, .timeout = Millis(400), .fallback_timeout = Millis(60'000)});
  RunResult r = agent.Run({.message = "q"});
  EXPECT_EQ(r.status, RunStatus::kTimeout);
  EXPECT_TRUE(model->fallback_deadline_set);
  ASSERT_FALSE(r.trace.steps.empty());
  EXPECT_EQ(r.trace.steps.back().kind, "fallback");
  EXPECT_THAT(r.trace.steps.back().model_error, HasSubstr("cut at its deadline"));
  // A bound far from the edge (the run's limit is 0.4 s; the old code took
  // 60 s here), so it cannot flake on a loaded machine.
  EXPECT_LT(r.trace.elapsed_ms, 30'000);
}

TEST(DeadlineTest, ACancelledTokenStopsTheRunAndIsSharedAcrossRuns) {
  CancellationToken token;
  token.Cancel();
  auto model = std::make_shared<testing::FakeModel>();
  model->PushText("never used");
  for (int i = 0; i < 2; ++i) {
    Agent agent(model, nullptr, {.cancel = token});
    RunResult r = agent.Run({.message = "q"});
    EXPECT_EQ(r.status, RunStatus::kError);
    EXPECT_THAT(r.error, HasSubstr("cancelled"));
  }
}

// ---- Files ------------------------------------------------------------------------

TEST(FileIoTest, ReadersCheckTheKindAndTheSizeOfWhatTheyRead) {
  testing::TempDir dir;
  dir.Write("note.txt", "A 4 yo girl");
  EXPECT_EQ(ReadUserFile(dir.File("note.txt"), "note", 100).value(), "A 4 yo girl");

  Result<std::string> folder = ReadUserFile(dir.path(), "note", 100);
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(folder.status().message(), HasSubstr("is a folder, not a file"));

  Result<std::string> missing = ReadUserFile(dir.File("nope.txt"), "note", 100);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("does not exist"));
  EXPECT_FALSE(ReadUserFile(dir.File("nope/deeper.txt"), "note", 100).ok());

  dir.Write("big.txt", std::string(101, 'x'));
  Result<std::string> big = ReadUserFile(dir.File("big.txt"), "note", 100);
  ASSERT_FALSE(big.ok());
  EXPECT_THAT(big.status().message(), HasSubstr("larger than the 100 bytes limit"));
  EXPECT_TRUE(ReadUserFile(dir.File("big.txt"), "note", 101).ok());

  // A pipe has no size: it is read up to the cap.
  ASSERT_EQ(::mkfifo(dir.File("fifo").c_str(), 0600), 0);
  std::thread writer([&] {
    const int fd = ::open(dir.File("fifo").c_str(), O_WRONLY);
    const std::string data(5000, 'y');
    [[maybe_unused]] ssize_t n = ::write(fd, data.data(), data.size());
    ::close(fd);
  });
  Result<std::string> piped = ReadUserFile(dir.File("fifo"), "note", 1000);
  writer.join();
  ASSERT_FALSE(piped.ok());
  EXPECT_THAT(piped.status().message(), HasSubstr("larger than"));

  // /dev/zero never ends; the cap ends the read.
  EXPECT_FALSE(ReadUserFile("/dev/zero", "note", 1 << 16).ok());
}

TEST(FileIoTest, WritesArePrivateAtomicAndCheckedFirst) {
  testing::TempDir dir;
  const std::string path = dir.File("trace.json");
  dir.Write("trace.json", "old");
  ::chmod(path.c_str(), 0644);
  ASSERT_TRUE(WriteFileAtomic(path, "{\"new\": true}").ok());
  EXPECT_EQ(testing::ReadFileOrEmpty(path), "{\"new\": true}");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  EXPECT_THAT(CheckOutputPath(dir.path(), "trace").message(), HasSubstr("it is a folder"));
  EXPECT_THAT(CheckOutputPath(dir.File("missing/t.json"), "trace").message(), HasSubstr("does not exist"));
  EXPECT_TRUE(CheckOutputPath(dir.File("t.json"), "trace").ok());
  EXPECT_TRUE(CheckOutputPath("relative-name.json", "trace").ok());
  EXPECT_FALSE(WriteFileAtomic(dir.path(), "x").ok());

  Result<std::FILE*> events = OpenPrivateFile(dir.File("events.jsonl"), "event log");
  ASSERT_TRUE(events.ok());
  std::fclose(*events);
  ASSERT_EQ(::stat(dir.File("events.jsonl").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

// ---- App policies over model output of any shape ---------------------------------------

TEST(HostileModelTest, AssessmentsAndAnswersOfAnyShapeAreReadNeverThrown) {
  ToolRegistry registry;
  ASSERT_TRUE(RegisterSubmitAssessment(registry).ok());
  const ToolSpec submit = registry.Specs().front();
  const std::vector<std::string> shapes = {
      R"({"risk_adjustment": 5, "critical_findings": "x", "final_assessment": []})",
      R"({"RISK_ADJUSTMENT": ["INCREASE"], "critical_findings": [1, null, {"a": 1}, [2]]})",
      R"({"risk_adjustment": {"value": "INCREASE"}, "critical_findings": {"0": "PE"}})",
      R"({"risk_adjustment": null, "final_assessment": 1e308, "critical_findings": 1e308})",
      R"([1, 2, 3])", R"("INCREASE")", R"(null)", "{\"critical_findings\": " + Nested(250) + "}"};
  // Whatever a run ends with (arguments as read after the last retry, or a
  // fallback answer), the triage result has one of three words and a list.
  auto check_policy = [](const Json& fields, const std::string& label) {
    RunResult run;
    run.status = RunStatus::kFinished;
    run.answer = "x";
    run.final_fields = fields;
    const OrderedJson out = BuildTriageResult("p", "PE", 2, "", &run);
    const std::string adjustment = out["agent_reasoning"]["risk_adjustment"].get<std::string>();
    EXPECT_TRUE(adjustment == "NONE" || adjustment == "INCREASE" || adjustment == "DECREASE") << label;
    EXPECT_TRUE(out["agent_reasoning"]["critical_findings"].is_array()) << label;
  };
  for (const std::string& shape : shapes) {
    const Json fields = ParseJson(shape).value();
    check_policy(fields, shape);
    (void)registry.ValidateArguments(kSubmitAssessmentTool, DumpJson(fields));
    (void)CoerceToSchema(submit.parameters, fields);
  }
  for (const char* answer : {"", "FINAL_ASSESSMENT: x\nRISK_ADJUSTMENT: sideways\nCRITICAL_FINDINGS: 7",
                             "RISK_ADJUSTMENT: [[[[", "\x1b[31m", "FINAL_ASSESSMENT: [[[[\nCRITICAL_FINDINGS: {{{"}) {
    const Json args = ReadFinalBlock(answer, submit);
    ASSERT_TRUE(args.is_object()) << answer;
    (void)registry.ValidateArguments(kSubmitAssessmentTool, DumpJson(args));
    check_policy(args, answer);
  }
  for (const std::string& answer : {std::string("```json\n") + Nested(100000) + "\n```", std::string("{\"a\": 1e999}"),
                                    std::string("no json at all"), std::string(""), std::string("[1e400]")}) {
    EXPECT_FALSE(ParseExtractionAnswer(answer).ok()) << answer.substr(0, 40);
  }
}

TEST(HostileModelTest, TheOfflineExtractionFillsSchemasOfOddShapesWithoutThrowing) {
  // Each compiles (JSON Schema allows `true` as a schema and odd enum values)
  // and each once made the schema filler throw.
  const std::vector<std::string> schemas = {
      R"({"type":"object","properties":{"x":true,"severity":true}})",
      R"({"type":"object","properties":{"z_scores":{"type":"array","items":true}}})",
      R"({"type":"object","properties":{"diagnosis":{"type":"string","enum":[1,null]}},"required":["diagnosis"]})",
      R"({"type":"object","properties":{"a":{"type":"object","properties":{"bmi":true,"age":{"type":"integer"}}}}})",
  };
  int compiled = 0;
  for (const std::string& text : schemas) {
    const Json schema = ParseJson(text).value();
    if (!JsonSchema::Compile(schema).ok()) continue;
    ++compiled;
    ExtractionOutcome out = RunExtraction(
        {.note = "3 year old girl, weight 11.2 kg, height 94 cm. Poor intake for 2 months.", .schema = schema},
        ExtractionConfig{});
    EXPECT_TRUE(out.result.is_object()) << text;
    EXPECT_TRUE(out.result.contains("extraction")) << text;
  }
  EXPECT_EQ(compiled, 4);
}

// ---- Calculators: extreme values -------------------------------------------------------

// Every calculator with every input at an extreme (the largest and smallest
// doubles, values that overflow an int, dates at the ends of the calendar):
// each run is a result or an error, never undefined behaviour (the sanitizer
// build runs this too), and a result's value is a finite number.
TEST(HostileCalculatorTest, ExtremeInputsGiveAnErrorOrAFiniteResult) {
  int runs = 0;
  for (const calc::Calculator& c : calc::AllCalculators()) {
    for (double v : {1e308, -1e308, 0.0, 1e-308, 4.9e-324, 2147483648.0, -2147483649.0, 9.3e18}) {
      Json args = Json::object();
      for (const calc::CalcInput& in : c.inputs) {
        switch (in.type) {
          case calc::InputType::kNumber:
          case calc::InputType::kInteger: args[in.name] = v; break;
          case calc::InputType::kBoolean: args[in.name] = true; break;
          case calc::InputType::kChoice: args[in.name] = in.choices.empty() ? "x" : in.choices.back(); break;
          case calc::InputType::kDate: args[in.name] = v > 0 ? "9999-12-31" : "0001-01-01"; break;
          case calc::InputType::kSex: args[in.name] = "female"; break;
        }
      }
      Result<Json> r = calc::RunCalculator(c, args);
      ++runs;
      if (!r.ok()) continue;
      const Json& value = (*r)["value"];
      if (value.is_number()) {
        EXPECT_TRUE(std::isfinite(value.get<double>())) << c.name << " with " << v;
      }
    }
  }
  EXPECT_GT(runs, 55 * 8 - 1);
}

// ---- Secrets -------------------------------------------------------------------------

TEST(RedactUrlTest, CredentialsAndQueriesNeverReachAMessage) {
  EXPECT_EQ(RedactUrl("http://user:s3cret@127.0.0.1:8000/v1"), "http://***@127.0.0.1:8000/v1");
  EXPECT_EQ(RedactUrl("https://s3cret@host/v1/chat?key=abc"), "https://***@host/v1/chat?***");
  EXPECT_EQ(RedactUrl("http://host:1/v1"), "http://host:1/v1");
  EXPECT_EQ(RedactUrl("http://a@b@host/p"), "http://***@host/p");
  EXPECT_EQ(RedactUrl("host/path?token=x"), "host/path?***");
  EXPECT_EQ(RedactUrl(""), "");
}

}  // namespace
}  // namespace medreact
