// The final block of a finishing tool (text_protocol.h): which markers spell
// its arguments, how the text after each marker becomes the value the
// tool's schema asks for, and a plain-text answer read the same way.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "core/text_util.h"
#include "medreact/json_repair.h"
#include "medreact/text_protocol.h"

namespace medreact {
namespace {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// The schema's "type" when it names one (the first of a list of types).
std::string TypeOf(const Json& schema) {
  if (!schema.is_object()) return "";
  auto it = schema.find("type");
  if (it == schema.end()) return schema.contains("enum") ? "string" : "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_array()) {
    for (const Json& t : *it) {
      if (t.is_string() && t != "null") return t.get<std::string>();
    }
  }
  return "";
}

// The argument names in teaching order: required ones as listed, then the
// other properties.
std::vector<std::string> ArgumentOrder(const Json& parameters, std::vector<bool>* required) {
  std::vector<std::string> names;
  if (!parameters.is_object()) return names;
  if (auto req = parameters.find("required"); req != parameters.end() && req->is_array()) {
    for (const Json& r : *req) {
      if (r.is_string() && std::find(names.begin(), names.end(), r.get<std::string>()) == names.end()) {
        names.push_back(r.get<std::string>());
        required->push_back(true);
      }
    }
  }
  if (auto props = parameters.find("properties"); props != parameters.end() && props->is_object()) {
    for (auto it = props->begin(); it != props->end(); ++it) {
      if (std::find(names.begin(), names.end(), it.key()) == names.end()) {
        names.push_back(it.key());
        required->push_back(false);
      }
    }
  }
  return names;
}

const Json& PropertySchema(const ToolSpec& tool, const std::string& name) {
  static const Json kNone = Json::object();
  const Json& params = tool.parameters;
  if (!params.is_object()) return kNone;
  auto props = params.find("properties");
  if (props == params.end() || !props->is_object()) return kNone;
  auto it = props->find(name);
  return it == props->end() ? kNone : *it;
}

// What the prompt says to write after a field's marker.
std::string FieldHint(const Json& schema) {
  if (auto e = schema.find("enum"); schema.is_object() && e != schema.end() && e->is_array() && !e->empty()) {
    std::vector<std::string> words;
    for (const Json& v : *e) words.push_back(v.is_string() ? v.get<std::string>() : DumpJson(v));
    if (words.size() == 1) return words.front();
    std::string last = words.back();
    words.pop_back();
    return Join(words, ", ") + " or " + last;
  }
  const std::string type = TypeOf(schema);
  if (type == "array") return "a JSON list of short phrases, [] when none";
  if (type == "object") return "a JSON object";
  if (type == "boolean") return "true or false";
  if (type == "integer" || type == "number") return "a number";
  if (schema.is_object() && schema.contains("description") && schema["description"].is_string()) {
    return schema["description"].get<std::string>();
  }
  return "text";
}

Json CoerceString(const Json& schema, const std::string& text) {
  auto e = schema.find("enum");
  if (e == schema.end() || !e->is_array()) return Json(Trim(text));
  // Small models decorate: "INCREASE (-1)", "**increase**", "`NONE`.", "\"decrease\"".
  std::string word = std::string(TrimChars(text, "*`\"'_ .:;"));
  const std::string upper = Upper(word);
  for (const Json& v : *e) {  // exact, any case
    if (v.is_string() && Upper(v.get<std::string>()) == upper) return v;
  }
  for (const Json& v : *e) {  // the value then a non-word character: "INCREASE (+1)"
    if (!v.is_string()) continue;
    const std::string want = Upper(v.get<std::string>());
    if (upper.size() > want.size() && upper.compare(0, want.size(), want) == 0 &&
        !std::isalnum(static_cast<unsigned char>(upper[want.size()]))) {
      return v;
    }
  }
  return Json(word);
}

}  // namespace

Json ParseListText(std::string_view raw) {
  const std::string_view v = TrimView(raw);
  const std::string lower = AsciiLower(v);
  if (lower.empty() || lower == "none" || lower == "null" || lower == "n/a" || lower == "[]") {
    return Json::array();
  }
  if (v.front() == '[' || v.front() == '{' || v.starts_with("```")) {
    if (Result<Json> parsed = ParseJsonLenient(v); parsed.ok()) return std::move(*parsed);
  } else if (Result<Json> scalar = ParseJson(v); scalar.ok()) {
    return std::move(*scalar);
  }
  std::vector<std::string_view> lines;
  for (size_t start = 0; start <= v.size();) {
    const size_t end = std::min(v.find('\n', start), v.size());
    const std::string_view line = v.substr(start, end - start);
    if (!TrimChars(line, "-*").empty()) lines.push_back(line);
    start = end + 1;
  }
  std::vector<std::string_view> items = lines;
  if (lines.size() == 1) {
    items.clear();
    for (size_t start = 0; start <= v.size();) {
      const size_t end = std::min(v.find(',', start), v.size());
      items.push_back(v.substr(start, end - start));
      start = end + 1;
    }
  }
  Json list = Json::array();
  for (std::string_view item : items) {
    const std::string_view clean = TrimChars(item, "-*[]\"'`");
    if (!clean.empty()) list.push_back(std::string(clean));
  }
  return list;
}

Json CoerceToSchema(const Json& schema, const Json& value) {
  if (!schema.is_object()) return value;
  const std::string type = TypeOf(schema);
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (type == "string") return CoerceString(schema, text);
    if (type == "array") return CoerceToSchema(schema, ParseListText(text));
    if (type == "object") {
      Result<Json> parsed = ParseJsonLenient(text);
      return parsed.ok() && parsed->is_object() ? CoerceToSchema(schema, *parsed) : Json(Trim(text));
    }
    const std::string word = AsciiLower(TrimChars(text, "*`\"' ."));
    if (type == "boolean") {
      if (word == "true" || word == "yes") return true;
      if (word == "false" || word == "no") return false;
    }
    if (type == "integer" || type == "number") {
      const std::string digits = std::string(TrimChars(text, "*`\"' "));
      char* end = nullptr;
      const double d = std::strtod(digits.c_str(), &end);
      if (!digits.empty() && end == digits.c_str() + digits.size()) {
        if (type == "integer" && d == static_cast<double>(static_cast<long long>(d))) {
          return static_cast<long long>(d);
        }
        return d;
      }
    }
    return value;
  }
  if (value.is_array() && type == "array") {
    auto items = schema.find("items");
    if (items == schema.end() || !items->is_object()) return value;
    Json out = Json::array();
    for (const Json& v : value) out.push_back(CoerceToSchema(*items, v));
    return out;
  }
  if (value.is_object() && type == "object") {
    auto props = schema.find("properties");
    if (props == schema.end() || !props->is_object()) return value;
    Json out = value;
    for (auto it = out.begin(); it != out.end(); ++it) {
      if (auto p = props->find(it.key()); p != props->end()) it.value() = CoerceToSchema(*p, it.value());
    }
    return out;
  }
  return value;
}

TextProtocolOptions FinalBlockOptions(const ToolSpec& answer_tool) {
  std::vector<bool> required;
  const std::vector<std::string> names = ArgumentOrder(answer_tool.parameters, &required);
  TextProtocolOptions options;
  if (names.empty()) return options;  // FINAL_ANSWER only: no argument to fill
  const std::string first = Upper(names.front());
  const std::string primary = first.rfind("FINAL_", 0) == 0 ? first : "FINAL_" + first;
  options.final_markers = {primary};
  if (primary != "FINAL_ANSWER") options.final_markers.push_back("FINAL_ANSWER");
  options.final_argument = names.front();
  for (size_t i = 1; i < names.size(); ++i) {
    FinalField field;
    field.marker = Upper(names[i]);
    field.description = FieldHint(PropertySchema(answer_tool, names[i]));
    field.json = false;  // raw text: CoerceToSchema reads it by the argument's type
    field.taught = required[i];
    field.argument = names[i];
    options.final_fields.push_back(std::move(field));
  }
  return options;
}

Json FinalBlockArguments(const TextReply& reply, const ToolSpec& answer_tool, const TextProtocolOptions& options) {
  Json args = Json::object();
  if (!options.final_argument.empty()) {
    args[options.final_argument] =
        CoerceToSchema(PropertySchema(answer_tool, options.final_argument), Json(reply.final_answer));
  }
  for (const FinalField& field : options.final_fields) {
    if (field.argument.empty()) continue;
    auto it = reply.final_fields.find(field.marker);
    if (it == reply.final_fields.end()) continue;
    args[field.argument] = CoerceToSchema(PropertySchema(answer_tool, field.argument), *it);
  }
  return args;
}

Json ReadFinalBlock(std::string_view text, const ToolSpec& answer_tool) {
  const TextProtocolOptions options = FinalBlockOptions(answer_tool);
  TextReply reply = ParseTextReply(text, options);
  if (!reply.is_final) {  // prose, or a reply the block reader could not use
    reply = TextReply{};
    reply.final_answer = Trim(text);
  }
  return FinalBlockArguments(reply, answer_tool, options);
}

}  // namespace medreact
