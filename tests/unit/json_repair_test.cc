// Tests for json_repair: each repair rule alone, combined and nested cases,
// truncation at every kind of point, text that must pass through unchanged,
// and garbage that must stay an error.
#include "medreact/json_repair.h"

#include <gtest/gtest.h>

#include <string>

namespace medreact {
namespace {

struct RepairCase {
  const char* name;
  const char* input;
  const char* expected;  // exact RepairJson output
};

void PrintTo(const RepairCase& c, std::ostream* os) { *os << c.name; }

class JsonRepairRuleTest : public ::testing::TestWithParam<RepairCase> {};

TEST_P(JsonRepairRuleTest, RepairsToExactText) {
  const RepairCase& c = GetParam();
  const std::string repaired = RepairJson(c.input);
  EXPECT_EQ(repaired, c.expected) << "input: " << c.input;
  EXPECT_TRUE(ParseJson(repaired).ok()) << repaired;
}

INSTANTIATE_TEST_SUITE_P(
    JsonRepairRules, JsonRepairRuleTest,
    ::testing::Values(
        RepairCase{"SeedExample", R"({"found": True, "value": None,})",
                   R"({"found": true, "value": null})"},
        RepairCase{"PythonFalse", "[False, True, None]", "[false, true, null]"},
        RepairCase{"SingleQuotes", "{'a': 'b'}", R"({"a": "b"})"},
        RepairCase{"SingleQuotedWithDoubleInside", R"({'q': 'he said "hi"'})",
                   R"({"q": "he said \"hi\""})"},
        RepairCase{"EscapedApostrophe", R"({'q': 'it\'s'})", R"({"q": "it's"})"},
        RepairCase{"BareApostrophe", "{'note': 'patient's INR'}", R"({"note": "patient's INR"})"},
        RepairCase{"TrailingCommaObject", R"({"a": 1, "b": 2, })", R"({"a": 1, "b": 2})"},
        RepairCase{"TrailingCommaArray", "[1, 2,\n]", "[1, 2]"},
        RepairCase{"DoubledComma", "[1,, 2]", "[1, 2]"},
        RepairCase{"LineComment", "{\"a\": 1, // the dose\n\"b\": 2}", "{\"a\": 1, \n\"b\": 2}"},
        RepairCase{"BlockComment", R"({"a": /* why */ 1})", R"({"a":  1})"},
        RepairCase{"CommentMarkersInsideString", R"({"url": "http://x/*y*/"})",
                   R"({"url": "http://x/*y*/"})"},
        RepairCase{"UnquotedKeys", "{tool: \"get_labs\", arguments: {category: \"Coag\"}}",
                   R"({"tool": "get_labs", "arguments": {"category": "Coag"}})"},
        RepairCase{"UnquotedKeyWithDash", "{medication-name: 'x'}", R"({"medication-name": "x"})"},
        RepairCase{"BareWordValue", "{\"risk\": INCREASE}", R"({"risk": "INCREASE"})"},
        RepairCase{"BareWordsValue", "{\"finding\": acute PE, \"n\": 1}",
                   R"({"finding": "acute PE", "n": 1})"},
        RepairCase{"NumberWithUnit", "{\"dose\": 5 mg}", R"({"dose": "5 mg"})"},
        RepairCase{"RawNewlineInString", "{\"a\": \"line1\nline2\ttab\"}",
                   R"({"a": "line1\nline2\ttab"})"},
        RepairCase{"ControlCharInString", "{\"a\": \"x\x01y\"}", R"({"a": "x\u0001y"})"},
        RepairCase{"UnescapedInnerQuotes", R"({"note": "he said "stop" twice"})",
                   R"({"note": "he said \"stop\" twice"})"},
        RepairCase{"InvalidEscapeKept", R"({"re": "\d+"})", R"({"re": "\\d+"})"},
        RepairCase{"MissingCommaBetweenLines", "{\"a\": 1\n\"b\": 2}", "{\"a\": 1,\n\"b\": 2}"},
        RepairCase{"MissingCommaInArray", R"(["a" "b"])", R"(["a", "b"])"},
        RepairCase{"NumberSpellings", "[+1, .5, 5., -.25]", "[1, 0.5, 5.0, -0.25]"},
        RepairCase{"NaNAndInfinity", "[NaN, -Infinity]", "[null, null]"},
        RepairCase{"MismatchedCloser", R"({"a": [1, 2})", R"({"a": [1, 2]})"},
        RepairCase{"ProseAfterValueDropped", R"({"a": 1} hope this helps)", R"({"a": 1})"},
        RepairCase{"TruncatedInString", R"({"tool": "get_la)", R"({"tool": "get_la"})"},
        RepairCase{"TruncatedAfterColon", R"({"tool": "x", "arguments": )", R"({"tool": "x"})"},
        RepairCase{"TruncatedInKey", R"({"tool": "x", "argu)", R"({"tool": "x"})"},
        RepairCase{"TruncatedAfterKey", R"({"tool": "x", "arguments")", R"({"tool": "x"})"},
        RepairCase{"TruncatedAfterComma", R"({"a": [1, 2, )", R"({"a": [1, 2]})"},
        RepairCase{"TruncatedNested", R"({"tool": "x", "arguments": {"category": "Coag")",
                   R"({"tool": "x", "arguments": {"category": "Coag"}})"},
        RepairCase{"TruncatedLiteral", R"({"ok": tr)", R"({"ok": true})"},
        RepairCase{"TruncatedPythonLiteral", R"([Fal)", R"([false])"},
        RepairCase{"TruncatedNumber", R"({"inr": 2.)", R"({"inr": 2.0})"},
        RepairCase{"TruncatedExponent", R"([1e)", R"([1])"},
        RepairCase{"TruncatedEscape", "{\"a\": \"x\\", R"({"a": "x"})"},
        RepairCase{"TruncatedInBlockComment", R"({"a": 1 /* note)", R"({"a": 1 })"},
        RepairCase{"TruncatedDeep", R"([{"a": [{"b": [1, {"c": "d)",
                   R"([{"a": [{"b": [1, {"c": "d"}]}]}])"},
        RepairCase{"CombinedMess",
                   "{'tool': 'check_medication_status', // which tool\n"
                   " arguments: {'medication_name': 'warfarin', 'active_only': True,},}",
                   "{\"tool\": \"check_medication_status\", \n"
                   " \"arguments\": {\"medication_name\": \"warfarin\", \"active_only\": true}}"}),
    [](const ::testing::TestParamInfo<RepairCase>& info) { return std::string(info.param.name); });

TEST(JsonRepairTest, ValidJsonPassesThroughExactly) {
  const std::string valid =
      "{\n  \"a\": [1, -2.5e+3, true, false, null, {}, [], \"\"],\n"
      "  \"s\": \"quote \\\" backslash \\\\ slash \\/ \\u00e9 \\n\",\n"
      "  \"braces\": \"{not [a] container}\", \"py\": \"True None 'x'\",\n"
      "  \"utf8\": \"d\xc3\xa9j\xc3\xa0 \xe6\xb8\xac\xe8\xa9\xa6 \xf0\x9f\xa9\xba\" , \"e\" : { }\n}\n";
  ASSERT_TRUE(ParseJson(valid).ok());
  EXPECT_EQ(RepairJson(valid), valid);
  EXPECT_EQ(StripJsonDecoration(valid), valid.substr(0, valid.size() - 1));
  Result<Json> parsed = ParseJsonLenient(valid);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ((*parsed)["py"], "True None 'x'");
}

TEST(JsonRepairTest, StringsKeepBracesQuotesAndLiteralsVerbatim) {
  Result<Json> v = ParseJsonLenient("{'text': 'a } b ] c { True, None', 'n': None}");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ((*v)["text"], "a } b ] c { True, None");
  EXPECT_TRUE((*v)["n"].is_null());
}

TEST(JsonRepairTest, UnicodeSurvivesRepair) {
  Result<Json> v = ParseJsonLenient("{'name': 'Dr. M\xc3\xbcller \xe2\x80\x94 \xe6\xb8\xac', 'ok': True,}");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ((*v)["name"], "Dr. M\xc3\xbcller \xe2\x80\x94 \xe6\xb8\xac");
}

TEST(JsonRepairStripTest, RemovesFencesAndProse) {
  EXPECT_EQ(StripJsonDecoration("```json\n{\"key\": \"value\"}\n```"), R"({"key": "value"})");
  EXPECT_EQ(StripJsonDecoration("Sure! Here it is: {\"a\": {\"b\": 1}} Let me know."),
            R"({"a": {"b": 1}})");
  EXPECT_EQ(StripJsonDecoration("```{\"a\":1}```"), R"({"a":1})");
  EXPECT_EQ(StripJsonDecoration("calls: [{\"tool\": \"a\"}, {\"tool\": \"b\"}] done"),
            R"([{"tool": "a"}, {"tool": "b"}])");
}

TEST(JsonRepairStripTest, SkipsBracketsThatAreProse) {
  EXPECT_EQ(StripJsonDecoration("THOUGHT: [reasoning] so {name} then {\"tool\": \"x\"}"),
            R"({"tool": "x"})");
  EXPECT_EQ(StripJsonDecoration("see [the notes](http://x) and {'a': 1}"), "{'a': 1}");
}

TEST(JsonRepairStripTest, PrefersFencedBlockAndKeepsTruncatedTail) {
  EXPECT_EQ(StripJsonDecoration("Use {a: 1}? No:\n```json\n{\"b\": 2}\n```"), R"({"b": 2})");
  EXPECT_EQ(StripJsonDecoration("```json\n{\"tool\": \"x\", \"arguments\": {\"a\": \n"),
            R"({"tool": "x", "arguments": {"a":)");
  EXPECT_EQ(StripJsonDecoration("{\"a\": \"}\"} tail"), R"({"a": "}"})");
}

TEST(JsonRepairStripTest, NoJsonGivesEmpty) {
  EXPECT_EQ(StripJsonDecoration("no json here"), "");
  EXPECT_EQ(StripJsonDecoration(""), "");
  EXPECT_EQ(StripJsonDecoration("[not json] either"), "");
}

TEST(JsonRepairLenientTest, ProgressiveStrategies) {
  Result<Json> strict = ParseJsonLenient(R"({"a": 1})");
  ASSERT_TRUE(strict.ok());
  EXPECT_EQ((*strict)["a"], 1);

  Result<Json> fenced = ParseJsonLenient("```json\n{\"a\": [1, 2]}\n```");
  ASSERT_TRUE(fenced.ok());
  EXPECT_EQ((*fenced)["a"], Json::array({1, 2}));

  Result<Json> repaired =
      ParseJsonLenient("Here you go:\n```json\n{'tool': 'get_labs', 'arguments': {'category': 'Coag',}}\n```");
  ASSERT_TRUE(repaired.ok()) << repaired.status().ToString();
  EXPECT_EQ((*repaired)["arguments"]["category"], "Coag");

  Result<Json> truncated = ParseJsonLenient("TOOL_CALL: {\"tool\": \"x\", \"arguments\": {\"q\": \"abc");
  ASSERT_TRUE(truncated.ok()) << truncated.status().ToString();
  EXPECT_EQ(*truncated, Json::parse(R"({"tool": "x", "arguments": {"q": "abc"}})"));
}

TEST(JsonRepairLenientTest, GarbageIsAParseErrorWithPreview) {
  for (const char* garbage : {"this is not json at all", "{ this is : not ; json }",
                              "{\"tool\": get_labs(category='Coag')}", "{{{{ ::: }",
                              "[1, 2, 3) oops", ""}) {
    Result<Json> v = ParseJsonLenient(garbage);
    ASSERT_FALSE(v.ok()) << garbage << " parsed as " << DumpJson(*v);
    EXPECT_EQ(v.status().code(), StatusCode::kParseError);
    EXPECT_NE(v.status().message().find("tried"), std::string::npos) << v.status().message();
  }
  Result<Json> v = ParseJsonLenient("{ this is : not ; json }");
  EXPECT_NE(v.status().message().find("{ this is"), std::string::npos) << v.status().message();
}

TEST(JsonRepairLenientTest, LargeNearJsonInLinearTime) {
  std::string big = "{'items': [";
  for (int i = 0; i < 100000; ++i) {
    big += "{'id': " + std::to_string(i) + ", 'ok': True, 'note': 'it\\'s \"x\"', /* c */ },";
  }
  big += "], 'done': None,";  // truncated: the object never closes
  Result<Json> v = ParseJsonLenient(big);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ((*v)["items"].size(), 100000u);
  EXPECT_TRUE((*v)["done"].is_null());
  EXPECT_EQ((*v)["items"][99999]["id"], 99999);
}

// Issue 23, item 8: never a silently wrong value. Each class below once gave a
// value other than the one a reader of the text sees; now it reads that value
// or refuses, saying why ("without guessing").
void ExpectRefused(std::string_view text) {
  Result<Json> v = ParseJsonLenient(text);
  ASSERT_FALSE(v.ok()) << text << " gave " << DumpJson(*v);
  EXPECT_EQ(v.status().code(), StatusCode::kParseError);
  EXPECT_NE(v.status().message().find("without guessing"), std::string::npos) << v.status().message();
}

Json Lenient(std::string_view text) {
  Result<Json> v = ParseJsonLenient(text);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status().ToString();
  return v.ok() ? *v : Json();
}

TEST(JsonRepairNoSilentValueTest, FenceInsideAStringIsNotTheReply) {
  // A finishing call whose answer quotes a fenced block (raw newlines make it invalid JSON).
  const Json v = Lenient("{\"tool\": \"finish\", \"arguments\": {\"answer\": \"The range:\n```json\n[5, 10]\n```\"}}");
  EXPECT_EQ(v["arguments"]["answer"], "The range:\n```json\n[5, 10]\n```");
  EXPECT_EQ(Lenient("{\"response\": \"```json{}\""), Json::parse(R"({"response": "```json{}"})"));
  // Two fenced blocks holding JSON: which one is meant is a guess.
  ExpectRefused("first ```json\n{\"a\": 1}\n``` then ```json\n[1, 2]\n```");
  // The reply's own fence still wins over prose before it.
  EXPECT_EQ(Lenient("Use {a: 1}? No:\n```json\n{\"b\": 2}\n```"), Json::parse(R"({"b": 2})"));
}

TEST(JsonRepairNoSilentValueTest, EarlyCloseIsReadOrRefusedAndSeveralValuesAreRefused) {
  // The members after an early '}' are the object's: a reader sees them there.
  EXPECT_EQ(Lenient(R"({"tool": "x"}, "arguments": {"q": 1}})"),
            Json::parse(R"({"tool": "x", "arguments": {"q": 1}})"));
  EXPECT_EQ(Lenient(R"({"key1": ["v1", "v2"}, "key2": ["v3"]})"),
            Json::parse(R"({"key1": ["v1", "v2"], "key2": ["v3"]})"));
  EXPECT_EQ(Lenient("Call: {\"tool\": \"x\"}, arguments: {\"q\": 1}} done"),
            Json::parse(R"({"tool": "x", "arguments": {"q": 1}})"));
  ExpectRefused(R"({"a": 1}, "b": })");    // the key after it has no value
  ExpectRefused(R"({"a": 1}, "b" "c"})");  // no colon: key or value?
  ExpectRefused(R"({"tool": "a"}, {"tool": "b"})");
  ExpectRefused(R"({"a": 1}{"b": 2})");
  ExpectRefused(R"([1] [2])");
  // Prose after the value is still dropped.
  EXPECT_EQ(Lenient(R"({"a": 1} hope this helps)"), Json::parse(R"({"a": 1})"));
}

TEST(JsonRepairNoSilentValueTest, KeyWithoutValueIsRefusedNotDropped) {
  ExpectRefused(R"({"key:"value"})");  // a quote inside the key
  ExpectRefused(R"({"a": true, "b": })");
  ExpectRefused(R"([{5}])");
  // Truncation still drops the cut-off key (the reply ended there).
  EXPECT_EQ(Lenient(R"({"tool": "x", "argu)"), Json::parse(R"({"tool": "x"})"));
}

TEST(JsonRepairNoSilentValueTest, StrayQuotesAreRefused) {
  ExpectRefused(R"(["value1" value2", "value3"])");
  ExpectRefused(R"({"b": "xxxxx" true})");
  ExpectRefused(R"({"key": "v"alue"})");
  ExpectRefused(R"({"key": "value}```)");  // the closing quote is missing before the end
  ExpectRefused(R"({"q": "dose 5 mg]})");
  // Quotes that pair up are quoted words; a quote before a fence closes the string.
  EXPECT_EQ(Lenient(R"({"note": "he said "stop" twice"})")["note"], "he said \"stop\" twice");
  EXPECT_EQ(Lenient(R"({"key": "value, value2"```)"), Json::parse(R"({"key": "value, value2"})"));
  EXPECT_EQ(Lenient(R"x({"c": "[LINK]("https://x.org")"})x")["c"], "[LINK](\"https://x.org\")");
}

TEST(JsonRepairNoSilentValueTest, ConflictingDuplicateKeysAreRefused) {
  ExpectRefused(R"({"dose": "5 mg", "dose": "50 mg"})");
  ExpectRefused(R"([{"a": {"x": 1}, "a": {"x": 2}}])");
  EXPECT_EQ(Lenient(R"({"b": "v2", "b": "v2"})"), Json::parse(R"({"b": "v2"})"));
  EXPECT_EQ(Lenient(R"({"a": [1, {"x": null}], "a": [1, {"x": null}], "b": {"c": 1, "c": 1}})"),
            Json::parse(R"({"a": [1, {"x": null}], "b": {"c": 1}})"));
  ExpectRefused(R"({"a": [1, {"x": null}], "a": [1, {"x": 0}]})");
  ExpectRefused(R"({"o": {"k": "v", "k": "w"}, "p": 1})");
}

TEST(JsonRepairRecoverableTest, PythonAndHumanSpellings) {
  EXPECT_EQ(Lenient(R"({"a": TRUE, "b": Null})"), Json::parse(R"({"a": true, "b": null})"));
  EXPECT_EQ(Lenient("(1, 2)"), Json::parse("[1, 2]"));
  EXPECT_EQ(Lenient("```json\n((1, 2), (3, 4))\n```"), Json::parse("[[1, 2], [3, 4]]"));
  EXPECT_EQ(Lenient(R"({"coords": (1, 2), "one": (1), "s": ("x"), "e": ()})"),
            Json::parse(R"({"coords": [1, 2], "one": 1, "s": "x", "e": []})"));
  EXPECT_EQ(Lenient(R"({"bp": 120/80, "range": 10-20, "v": 1.1.1, "n": 82_461_110})"),
            Json::parse(R"({"bp": "120/80", "range": "10-20", "v": "1.1.1", "n": 82461110})"));
  EXPECT_EQ(Lenient("{\xE2\x80\x9C" "drug\xE2\x80\x9D: \xE2\x80\x9C" "warfarin\xE2\x80\x9D}"),
            Json::parse(R"({"drug": "warfarin"})"));
  EXPECT_EQ(Lenient(R"({"risk": high "score": 3})"), Json::parse(R"({"risk": "high", "score": 3})"));
  // Prose in parentheses is not a tuple.
  EXPECT_EQ(Lenient(R"(Result (see below): {"a": 1})"), Json::parse(R"({"a": 1})"));
}

}  // namespace
}  // namespace medreact
