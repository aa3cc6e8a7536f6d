#include "eval/py_literal.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

namespace medreact::eval {
namespace {

constexpr int kMaxDepth = 200;

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  Result<Json> ParseAll() {
    Result<Json> v = Value(0);
    if (!v.ok()) return v;
    SkipSpace();
    if (pos_ < s_.size()) return Error("unexpected text after the literal");
    return v;
  }

 private:
  Status Error(const std::string& what) const {
    std::string found = pos_ < s_.size() ? "'" + std::string(1, s_[pos_]) + "'" : "the end of the text";
    return Status::ParseError("offset " + std::to_string(pos_) + ": " + what + ", found " + found);
  }

  void SkipSpace() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '\\' && pos_ + 1 < s_.size() && (s_[pos_ + 1] == '\n' || s_[pos_ + 1] == '\r')) {
        pos_ += 2;  // explicit line continuation
      } else if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  bool Consume(char c) {
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  static bool IsPrefix(char c) { return c != '\0' && std::strchr("rRuUbB", c) != nullptr; }
  static bool IsIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  Result<Json> Value(int depth) {
    if (depth > kMaxDepth) return Error("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    SkipSpace();
    if (pos_ >= s_.size()) return Error("expected a value");
    const char c = s_[pos_];
    if (c == '{') return DictOrSet(depth);
    if (c == '[') return Sequence(depth, '[', ']');
    if (c == '(') return Sequence(depth, '(', ')');
    if (c == '\'' || c == '"') return Strings();
    if (c == '-' || c == '+' || c == '.' || std::isdigit(static_cast<unsigned char>(c))) return Number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      // A string prefix (r, u, b, combinations) directly followed by a quote.
      size_t p = pos_;
      while (p < s_.size() && p - pos_ < 2 && IsPrefix(s_[p])) ++p;
      if (p > pos_ && p < s_.size() && (s_[p] == '\'' || s_[p] == '"')) return Strings();
      size_t end = pos_;
      while (end < s_.size() && IsIdent(s_[end])) ++end;
      const std::string_view word = s_.substr(pos_, end - pos_);
      if (word == "True" || word == "False" || word == "None") {
        pos_ = end;
        if (word == "None") return Json(nullptr);
        return Json(word == "True");
      }
      return Error("expected a value (True, False, None, a number, a string, a dict, a list or a tuple); '" +
                   std::string(word) + "' is not a literal");
    }
    return Error("expected a value");
  }

  // One or more adjacent string literals, concatenated.
  Result<Json> Strings() {
    std::string out;
    bool any = false;
    while (true) {
      SkipSpace();
      size_t p = pos_;
      bool raw = false;
      while (p < s_.size() && p - pos_ < 2 && IsPrefix(s_[p])) {
        raw = raw || s_[p] == 'r' || s_[p] == 'R';
        ++p;
      }
      if (p >= s_.size() || (s_[p] != '\'' && s_[p] != '"')) break;
      pos_ = p;
      Status s = OneString(raw, &out);
      if (!s.ok()) return s;
      any = true;
    }
    if (!any) return Error("expected a string");
    return Json(out);
  }

  Status OneString(bool raw, std::string* out) {
    const size_t start = pos_;
    const char q = s_[pos_];
    const bool triple = s_.substr(pos_, 3) == std::string(3, q);
    pos_ += triple ? 3 : 1;
    while (true) {
      if (pos_ >= s_.size()) {
        pos_ = start;
        return Error("string never closed (missing " + std::string(triple ? 3 : 1, q) + ")");
      }
      const char c = s_[pos_];
      if (c == q) {
        if (!triple) {
          ++pos_;
          return Status::OK();
        }
        if (s_.substr(pos_, 3) == std::string(3, q)) {
          pos_ += 3;
          return Status::OK();
        }
      }
      if ((c == '\n' || c == '\r') && !triple) return Error("line break inside a single-quoted string");
      if (c != '\\') {
        *out += c;
        ++pos_;
        continue;
      }
      if (pos_ + 1 >= s_.size()) {
        ++pos_;
        continue;  // reported as unclosed above
      }
      const char e = s_[pos_ + 1];
      if (raw) {  // raw strings keep the backslash; \' still does not end the string
        *out += c;
        *out += e;
        pos_ += 2;
        continue;
      }
      pos_ += 2;
      switch (e) {
        case '\n': break;  // line continuation inside the string
        case '\\': *out += '\\'; break;
        case '\'': *out += '\''; break;
        case '"': *out += '"'; break;
        case 'a': *out += '\a'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'n': *out += '\n'; break;
        case 'r': *out += '\r'; break;
        case 't': *out += '\t'; break;
        case 'v': *out += '\v'; break;
        case 'x':
        case 'u':
        case 'U': {
          const size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          if (pos_ + digits > s_.size()) return Error("truncated \\" + std::string(1, e) + " escape");
          uint32_t cp = 0;
          for (size_t k = 0; k < digits; ++k) {
            const char h = s_[pos_ + k];
            if (!std::isxdigit(static_cast<unsigned char>(h))) {
              pos_ += k;
              return Error("expected a hex digit in the \\" + std::string(1, e) + " escape");
            }
            cp = cp * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(h))
                                                     ? h - '0'
                                                     : std::tolower(static_cast<unsigned char>(h)) - 'a' + 10);
          }
          if (cp > 0x10FFFF) return Error("code point above U+10FFFF");
          pos_ += digits;
          AppendUtf8(*out, cp);
          break;
        }
        default:
          if (e >= '0' && e <= '7') {  // octal, up to 3 digits
            uint32_t cp = static_cast<uint32_t>(e - '0');
            for (int k = 0; k < 2 && pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '7'; ++k) {
              cp = cp * 8 + static_cast<uint32_t>(s_[pos_++] - '0');
            }
            AppendUtf8(*out, cp);
          } else {  // unknown escapes keep the backslash, as Python does
            *out += '\\';
            *out += e;
          }
      }
    }
  }

  Result<Json> Number() {
    bool negative = false;
    while (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) {  // unary signs, possibly repeated
      if (s_[pos_] == '-') negative = !negative;
      ++pos_;
      SkipSpace();
    }
    if (pos_ >= s_.size() || !(std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.')) {
      return Error("expected a number after the sign");
    }
    std::string digits;
    const size_t num_start = pos_;
    // Prefixed integers.
    if (s_[pos_] == '0' && pos_ + 1 < s_.size() && s_[pos_ + 1] != '\0' &&
        std::strchr("xXoObB", s_[pos_ + 1]) != nullptr) {
      const char kind = static_cast<char>(std::tolower(static_cast<unsigned char>(s_[pos_ + 1])));
      const int base = kind == 'x' ? 16 : kind == 'o' ? 8 : 2;
      pos_ += 2;
      while (pos_ < s_.size() && (std::isxdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
        if (s_[pos_] != '_') digits += s_[pos_];
        ++pos_;
      }
      errno = 0;
      char* end = nullptr;
      const long long v = std::strtoll(digits.c_str(), &end, base);
      if (digits.empty() || *end != '\0' || errno != 0) {
        pos_ = num_start;
        return Error("malformed base-" + std::to_string(base) + " integer");
      }
      return Json(negative ? -v : v);
    }
    bool is_float = false;
    auto take_digits = [&] {
      size_t count = 0;
      while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
        if (s_[pos_] != '_') digits += s_[pos_], ++count;
        ++pos_;
      }
      return count;
    };
    size_t whole = take_digits();
    size_t frac = 0;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      is_float = true;
      digits += '.';
      ++pos_;
      frac = take_digits();
    }
    if (whole == 0 && frac == 0) {
      pos_ = num_start;
      return Error("malformed number");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      is_float = true;
      digits += 'e';
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) digits += s_[pos_++];
      if (take_digits() == 0) return Error("expected digits in the exponent");
    }
    if (pos_ < s_.size() && (IsIdent(s_[pos_]) || s_[pos_] == '.')) {
      return Error("unexpected character in a number (complex numbers and suffixes are not supported)");
    }
    if (!is_float) {
      errno = 0;
      char* end = nullptr;
      const long long v = std::strtoll(digits.c_str(), &end, 10);
      if (errno == 0 && *end == '\0') return Json(negative ? -v : v);
      // Too large for 64 bits: keep it as a double.
    }
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(digits.c_str(), &end);
    if (*end != '\0' || !std::isfinite(v)) {
      pos_ = num_start;
      return Error("number out of range");
    }
    return Json(negative ? -v : v);
  }

  // '[' ... ']' or '(' ... ')'; a parenthesised single value without a comma
  // is that value (Python grouping), with a comma it is a tuple.
  Result<Json> Sequence(int depth, char open, char close) {
    ++pos_;  // the opening bracket
    Json out = Json::array();
    bool saw_comma = false;
    while (true) {
      if (Consume(close)) break;
      Result<Json> v = Value(depth + 1);
      if (!v.ok()) return v;
      out.push_back(std::move(*v));
      if (Consume(',')) {
        saw_comma = true;
        continue;
      }
      if (Consume(close)) break;
      return Error(std::string("expected ',' or '") + close + "' in a " + (open == '[' ? "list" : "tuple"));
    }
    if (open == '(' && out.size() == 1 && !saw_comma) return std::move(out[0]);
    return out;
  }

  static std::string KeyText(const Json& key) {
    if (key.is_string()) return key.get<std::string>();
    if (key.is_boolean()) return key.get<bool>() ? "True" : "False";
    if (key.is_null()) return "None";
    return DumpJson(key);
  }

  Result<Json> DictOrSet(int depth) {
    ++pos_;  // '{'
    if (Consume('}')) return Json::object();
    Result<Json> first = Value(depth + 1);
    if (!first.ok()) return first;
    SkipSpace();
    if (pos_ < s_.size() && (s_[pos_] == ',' || s_[pos_] == '}')) {  // a set
      Json out = Json::array({std::move(*first)});
      while (true) {
        if (Consume('}')) return out;
        if (!Consume(',')) return Error("expected ',' or '}' in a set");
        if (Consume('}')) return out;
        Result<Json> v = Value(depth + 1);
        if (!v.ok()) return v;
        out.push_back(std::move(*v));
      }
    }
    Json out = Json::object();
    Json key = std::move(*first);
    while (true) {
      if (!key.is_string() && !key.is_number() && !key.is_boolean() && !key.is_null() && !key.is_array()) {
        return Error("a dict key must be hashable (a string, number, bool, None or tuple)");
      }
      if (!Consume(':')) return Error("expected ':' after a dict key");
      Result<Json> v = Value(depth + 1);
      if (!v.ok()) return v;
      out[KeyText(key)] = std::move(*v);
      if (Consume('}')) return out;
      if (!Consume(',')) return Error("expected ',' or '}' in a dict");
      if (Consume('}')) return out;
      Result<Json> next = Value(depth + 1);
      if (!next.ok()) return next;
      key = std::move(*next);
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

Result<Json> ParsePyLiteral(std::string_view text) {
  try {
    return Parser(text).ParseAll();
  } catch (const std::exception& e) {  // nlohmann (e.g. invalid UTF-8 on dump) or allocation
    return Status::ParseError(std::string("Python literal: ") + e.what());
  }
}

}  // namespace medreact::eval
