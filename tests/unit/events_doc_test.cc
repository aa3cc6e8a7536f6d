// include/medreact/events.h documents each event's shape in a comment beside
// its type; a front end reads that comment, so it must be what the loop
// emits. A run with one tool call emits every common event; each event's
// fields and data keys are checked against the header's comment, read from
// the file itself. tool_started is checked both ways (the header once
// documented a data "arguments" the code never sent).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "testing/build_paths.h"
#include "medreact/agent.h"
#include "medreact/events.h"
#include "testing/fake_model.h"

namespace medreact {
namespace {

// The comment after `k<Name>,` in events.h, e.g. for "ToolStarted", with
// the comment-only lines that continue it.
std::string DocOf(const std::string& enumerator) {
  std::ifstream in(std::string(MEDREACT_SOURCE_DIR) + "/include/medreact/events.h");
  std::string line;
  while (std::getline(in, line)) {
    const size_t at = line.find("k" + enumerator + ",");
    if (at == std::string::npos) continue;
    const size_t comment = line.find("//", at);
    if (comment == std::string::npos) return "";
    std::string doc = line.substr(comment + 2);
    while (std::getline(in, line)) {
      const size_t text = line.find_first_not_of(' ');
      if (text == std::string::npos || line.compare(text, 2, "//") != 0) break;
      doc += " " + line.substr(text + 2);
    }
    return doc;
  }
  return "";
}

// The top-level keys of the documented `data: {...}` ("usage" of
// {"usage": {...}}), nested braces and brackets skipped.
std::set<std::string> DocumentedDataKeys(const std::string& doc) {
  std::set<std::string> keys;
  const size_t open = doc.find("data: {");
  if (open == std::string::npos) return keys;
  int depth = 0;
  std::string top;
  for (size_t i = open + 6; i < doc.size(); ++i) {
    const char c = doc[i];
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (depth == 0) break;
    if (depth == 1 && c != '{') top += c;
  }
  static const std::regex kKey("\"([a-z_]+)\"");
  for (auto it = std::sregex_iterator(top.begin(), top.end(), kKey); it != std::sregex_iterator(); ++it) {
    keys.insert((*it)[1]);
  }
  return keys;
}

// The event's own fields the comment names before any "data:" or "text:"
// (step, tool_name, tool_call_id, ok, elapsed_ms).
bool DocumentsField(const std::string& doc, const std::string& field) {
  const std::string head = doc.substr(0, std::min(doc.find("data:"), doc.find("text:")));
  return std::regex_search(head, std::regex("(^|[ ,])" + field + "($|[ ,:])"));
}

std::string Enumerator(const std::string& type_name) {  // "tool_started" → "ToolStarted"
  std::string out;
  bool upper = true;
  for (char c : type_name) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

std::vector<Json> EventsOfOneToolCall() {
  auto model = std::make_shared<testing::FakeModel>();
  model->PushCalls({{"echo", R"({"x":7})"}});
  model->PushText("7");
  auto tools = std::make_shared<ToolRegistry>();
  EXPECT_TRUE(tools
                  ->Register(MakeFunctionTool(
                      ToolSpec{"echo", "echoes x",
                               Json{{"type", "object"}, {"properties", {{"x", {{"type", "integer"}}}}}}},
                      [](const Json& a, const ToolContext&) { return ToolResult::OkJson(a); }))
                  .ok());
  std::vector<Json> events;
  Agent agent(model, tools, {.max_steps = 4, .on_event = [&](const Event& e) { events.push_back(ToJson(e)); }});
  EXPECT_EQ(agent.Run({.message = "echo 7"}).status, RunStatus::kFinished);
  return events;
}

TEST(EventsDocTest, ToolStartedIsWhatTheHeaderSays) {
  const std::string doc = DocOf("ToolStarted");
  ASSERT_FALSE(doc.empty()) << "no kToolStarted comment in events.h";
  for (const Json& e : EventsOfOneToolCall()) {
    if (e["type"] != "tool_started") continue;
    EXPECT_EQ(e["text"], R"({"x":7})");  // the arguments, as the model sent them
    EXPECT_EQ(e["tool_name"], "echo");
    EXPECT_EQ(e["data"], Json({{"arguments_bytes", 7}}));
    std::set<std::string> sent;
    for (const auto& [key, value] : e["data"].items()) sent.insert(key);
    EXPECT_EQ(DocumentedDataKeys(doc), sent) << "events.h says: " << doc;
    EXPECT_NE(doc.find("text: the arguments"), std::string::npos) << doc;
    return;
  }
  FAIL() << "no tool_started event";
}

TEST(EventsDocTest, EveryEmittedFieldAndDataKeyIsDocumented) {
  const std::vector<Json> events = EventsOfOneToolCall();
  std::set<std::string> types;
  for (const Json& e : events) {
    const std::string type = e["type"];
    types.insert(type);
    const std::string doc = DocOf(Enumerator(type));
    ASSERT_FALSE(doc.empty()) << "no comment for " << type << " in events.h";
    for (const char* field : {"tool_name", "tool_call_id", "ok", "elapsed_ms"}) {
      if (e.contains(field)) {
        EXPECT_TRUE(DocumentsField(doc, field)) << type << " sends " << field << "; " << doc;
      }
    }
    if (e.contains("text")) {
      EXPECT_NE(doc.find("text:"), std::string::npos) << type << " sends text; " << doc;
    }
    if (!e.contains("data")) continue;
    const std::set<std::string> documented = DocumentedDataKeys(doc);
    for (const auto& [key, value] : e["data"].items()) {
      EXPECT_TRUE(documented.count(key)) << type << " sends data." << key << "; events.h says: " << doc;
    }
  }
  EXPECT_EQ(types, (std::set<std::string>{"run_started", "model_request", "assistant_message", "tool_started",
                                          "tool_finished", "step_finished", "run_finished"}));
}

TEST(EventsDocTest, ACommentGoesOnOnTheLinesBelowIt) {
  EXPECT_EQ(DocumentedDataKeys(DocOf("Approval")).count("decision"), 1u) << DocOf("Approval");
  EXPECT_EQ(DocOf("Error").find("graph"), std::string::npos);  // the next enumerator's comment is not its
}

TEST(EventsDocTest, TheKeyReaderReadsTopLevelKeysOnly) {
  EXPECT_EQ(DocumentedDataKeys(R"(step, data: {"usage": {"a": 1}, "b": [ "c" ]})"),
            (std::set<std::string>{"usage", "b"}));
  EXPECT_TRUE(DocumentedDataKeys("text: answer").empty());
}

}  // namespace
}  // namespace medreact
