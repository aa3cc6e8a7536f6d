// The offline extraction planner's helpers (extract_plan_support.h).
#include "apps/extract/extract_plan_support.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace medreact::extract_plan {

std::string CallKey(const std::string& name, const Json& args) { return name + "|" + CanonicalJson(args); }

Conversation ReadConversation(const std::vector<Message>& messages, const std::string& id_prefix) {
  Conversation conv;
  std::map<std::string, std::string> key_of_id;
  for (const Message& m : messages) {
    if (m.role == Role::kAssistant && m.has_tool_calls()) {
      bool ours = false;
      for (const ToolCall& call : m.tool_calls) {
        Result<Json> args = ParseJson(call.arguments.empty() ? "{}" : call.arguments);
        key_of_id[call.id] = call.name + "|" + (args.ok() ? CanonicalJson(*args) : call.arguments);
        if (call.id.rfind(id_prefix, 0) == 0) {
          ours = true;
          ++conv.calls;
        }
      }
      if (ours) ++conv.turns;
    } else if (m.role == Role::kTool) {
      auto it = key_of_id.find(m.tool_call_id);
      if (it == key_of_id.end()) continue;
      conv.known[it->second] = ReadToolObservation(m.content);
    }
  }
  return conv;
}

std::string Fmt(double value, int digits) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, value);
  return buffer;
}

std::string Readable(std::string indicator) {
  std::replace(indicator.begin(), indicator.end(), '_', '-');
  if (indicator.rfind("bmi", 0) == 0) indicator = "BMI" + indicator.substr(3);
  return indicator;
}

// A tool error without its prefix and the parameter schema it appends for a model.
std::string ShortToolError(std::string error) {
  if (const size_t at = error.find(" Parameters of "); at != std::string::npos) error.resize(at);
  if (const size_t at = error.find(": "); at != std::string::npos && error.compare(0, at, "growth_zscore") == 0) {
    error = error.substr(at + 2);
  }
  return error;
}

// A member that is an array, else an empty one (tool results are read, not trusted).
const Json& ArrayField(const Json& object, const char* key) {
  static const Json kEmpty = Json::array();
  if (!object.is_object()) return kEmpty;
  auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : kEmpty;
}

Json Call(const std::string& function, Json parameters) {
  return Json{{"function_name", function}, {"parameters", std::move(parameters)}};
}

// The severity word of a band ("moderate malnutrition" → "moderate"), "" when none.
std::string SeverityOf(const std::string& band) {
  for (const char* word : {"severe", "moderate", "mild"}) {
    if (band.find(word) != std::string::npos) return word;
  }
  return "";
}

int Rank(const std::string& severity) {
  return severity == "severe" ? 3 : severity == "moderate" ? 2 : severity == "mild" ? 1 : 0;
}

}  // namespace medreact::extract_plan
