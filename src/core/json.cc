#include "medreact/json.h"

#include "core/json_filter.h"
#include "core/printable.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
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

namespace {

// The length of the UTF-8 sequence at text[i] (2 to 4), or 0 when the bytes
// there are not one (a stray continuation byte, an overlong form, a
// surrogate, past U+10FFFF, cut short).
size_t Utf8Length(std::string_view text, size_t i, uint32_t* code_point) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  size_t n = 0;
  uint32_t cp = 0;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    n = 2, cp = b0 & 0x1f;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    n = 3, cp = b0 & 0x0f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    n = 4, cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff)) {
    return 0;
  }
  *code_point = cp;
  return n;
}

// Whether a code point can drive or reorder a terminal (see json.h).
bool IsTerminalControl(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
         cp == 0x2028 || cp == 0x2029;
}

void AppendEscaped(std::string* out, const char* format, unsigned value) {
  char escaped[8];
  std::snprintf(escaped, sizeof escaped, format, value);
  *out += escaped;
}

// The one escaping rule (json.h): appends `text` to `out`, at most about
// `max_bytes` of it ("..." then, when cut).
void AppendPrintable(std::string_view text, TextShape shape, bool spaces, size_t max_bytes, std::string* out) {
  for (size_t i = 0; i < text.size();) {
    if (out->size() >= max_bytes) {
      *out += "...";
      return;
    }
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    if (spaces && (c == '\n' || c == '\r' || c == '\t')) {
      *out += ' ';
      ++i;
    } else if (byte < 0x20) {
      if ((c == '\n' || c == '\t') && shape == TextShape::kBody) {
        *out += c;
      } else {
        AppendEscaped(out, "\\x%02x", byte);
      }
      ++i;
    } else if (byte == 0x7f) {
      *out += "\\u007f";
      ++i;
    } else if (byte < 0x80) {
      *out += c;
      ++i;
    } else {
      uint32_t cp = 0;
      const size_t n = Utf8Length(text, i, &cp);
      if (n == 0) {
        AppendEscaped(out, "\\x%02x", byte);
        ++i;
      } else if (IsTerminalControl(cp)) {
        AppendEscaped(out, "\\u%04x", cp);
        i += n;
      } else {
        out->append(text.substr(i, n));
        i += n;
      }
    }
  }
}

}  // namespace

std::string Printable(std::string_view text) { return Printable(text, TextShape::kBody); }

std::string Printable(std::string_view text, TextShape shape) {
  std::string out;
  out.reserve(text.size());
  AppendPrintable(text, shape, /*spaces=*/false, std::string::npos, &out);
  return out;
}

std::string PrintableLine(std::string_view text) { return Printable(text, TextShape::kLine); }

std::string Preview(std::string_view text, size_t max_chars) {
  std::string out;
  out.reserve(std::min(text.size(), max_chars) + 3);
  AppendPrintable(text, TextShape::kLine, /*spaces=*/true, max_chars, &out);
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
