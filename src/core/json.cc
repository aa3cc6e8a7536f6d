#include "medreact/json.h"

namespace medreact {

Result<Json> ParseJson(std::string_view text) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    return Status::ParseError(std::string("invalid JSON at byte ") + std::to_string(e.byte) + ": " +
                              Preview(text));
  }
}

std::string CanonicalJson(const Json& value) {
  // nlohmann::json (not ordered_json) stores objects in std::map, so keys are
  // already sorted; dump() without indent has no whitespace.
  return DumpJson(value);
}

std::string DumpJson(const Json& value, int indent) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

std::string DumpJson(const OrderedJson& value, int indent) {
  return value.dump(indent, ' ', false, OrderedJson::error_handler_t::replace);
}

std::string Preview(std::string_view text, size_t max_chars) {
  std::string out;
  out.reserve(std::min(text.size(), max_chars) + 3);
  for (char c : text) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  }
  return out;
}

}  // namespace medreact
