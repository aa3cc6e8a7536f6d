#include "medreact/json.h"

#include "core/json_filter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace medreact {
namespace {

// nlohmann's parse_error text is "[json.exception.parse_error.101] parse error
// at line 1, column 5: syntax error while parsing value - invalid literal;
// last read: 'Smith'". Keep the position and the reason, add the byte offset;
// drop "last read", which quotes the input.
std::string ParseErrorText(const nlohmann::detail::parse_error& e) {
  std::string what = e.what();
  const size_t at = what.find("parse error");
  std::string text = at == std::string::npos ? "parse error" : what.substr(at);
  if (size_t quote = text.find("; last read"); quote != std::string::npos) text.resize(quote);
  const std::string byte = " (byte " + std::to_string(e.byte) + ")";
  if (size_t colon = text.find(": "); colon != std::string::npos) {
    text.insert(colon, byte);
  } else {
    text += byte;
  }
  return text;
}

// The exception a parse threw, as a ParseError. Call only inside a catch block.
Status ParseFailure() {
  try {
    throw;
  } catch (const nlohmann::detail::parse_error& e) {
    return Status::ParseError("invalid JSON: " + ParseErrorText(e));
  } catch (const nlohmann::detail::out_of_range&) {
    // 406: a number beyond the range of a double, e.g. 1e999.
    return Status::ParseError("invalid JSON: a number is out of range (beyond ±1.7976931348623157e308)");
  } catch (const std::exception& e) {
    return Status::ParseError(std::string("invalid JSON: ") + e.what());
  } catch (...) {
    return Status::ParseError("invalid JSON");
  }
}

template <typename J>
Result<J> ParseGuarded(std::string_view text, const typename J::parser_callback_t& filter = nullptr) {
  if (std::optional<size_t> at = JsonDepthExceededAt(text)) {
    return Status::ParseError("invalid JSON: nested deeper than " + std::to_string(kMaxJsonDepth) +
                              " levels at byte " + std::to_string(*at));
  }
  try {
    return J::parse(text.begin(), text.end(), filter);
  } catch (...) {
    return ParseFailure();
  }
}

// The member `key` of `object`, or nullptr when absent or not an object.
const Json* Member(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

}  // namespace

Result<Json> ParseJson(std::string_view text) { return ParseGuarded<Json>(text); }

Result<OrderedJson> ParseOrderedJson(std::string_view text) { return ParseGuarded<OrderedJson>(text); }

Result<Json> ParseJsonFiltered(std::string_view text, const Json::parser_callback_t& filter) {
  return ParseGuarded<Json>(text, filter);
}

Result<Json> ParseJsonFileFiltered(std::FILE* file, const Json::parser_callback_t& filter) {
  struct TooDeep {};
  auto guarded = [&](int depth, Json::parse_event_t event, Json& parsed) {
    // A container opening at `depth` is nesting level depth + 1.
    if ((event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start) &&
        depth + 1 > kMaxJsonDepth) {
      throw TooDeep{};
    }
    return filter(depth, event, parsed);
  };
  try {
    return Json::parse(file, guarded);
  } catch (const TooDeep&) {
    return Status::ParseError("invalid JSON: nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  } catch (...) {
    return ParseFailure();
  }
}

std::optional<size_t> JsonDepthExceededAt(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, whatever it is
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        if (++depth > max_depth) return i;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return std::nullopt;
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
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (byte < 0x20 || byte == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out;
}

std::string Printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out;
}

std::string StringOr(const Json& object, std::string_view key, std::string_view fallback) {
  const Json* v = Member(object, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string(fallback);
}

double NumberOr(const Json& object, std::string_view key, double fallback) {
  const Json* v = Member(object, key);
  if (v == nullptr || !v->is_number()) return fallback;
  const double d = v->get<double>();
  return std::isfinite(d) ? d : fallback;
}

int64_t IntegerOr(const Json& object, std::string_view key, int64_t fallback) {
  const Json* v = Member(object, key);
  if (v == nullptr) return fallback;
  return ExactInteger(*v).value_or(fallback);
}

bool BoolOr(const Json& object, std::string_view key, bool fallback) {
  const Json* v = Member(object, key);
  return v != nullptr && v->is_boolean() ? v->get<bool>() : fallback;
}

std::optional<int64_t> ExactInteger(const Json& value, int64_t lo, int64_t hi) {
  if (value.is_number_integer() && !value.is_number_unsigned()) {
    const int64_t i = value.get<int64_t>();
    if (i < lo || i > hi) return std::nullopt;
    return i;
  }
  if (value.is_number_unsigned()) {
    const uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX) || static_cast<int64_t>(u) < lo || static_cast<int64_t>(u) > hi) {
      return std::nullopt;
    }
    return static_cast<int64_t>(u);
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    // 2^63 is the first double beyond int64; compare before converting
    // (converting an out-of-range double is undefined behaviour).
    if (!std::isfinite(d) || d != std::floor(d) || d < -9.2233720368547758e18 || d >= 9.2233720368547758e18) {
      return std::nullopt;
    }
    const auto i = static_cast<int64_t>(d);
    if (i < lo || i > hi) return std::nullopt;
    return i;
  }
  return std::nullopt;
}

}  // namespace medreact
