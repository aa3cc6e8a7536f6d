// The library's one set of small string helpers (not part of the public API).
// ASCII only on purpose: clinical text is UTF-8, and these never touch a byte
// above 0x7F, so a multi-byte character is never split or case-mapped.
#ifndef MEDREACT_CORE_TEXT_UTIL_H_
#define MEDREACT_CORE_TEXT_UTIL_H_

#include <string>
#include <string_view>
#include <vector>

namespace medreact {

// ' ', \t, \n, \r, \f, \v: what isspace() means in the C locale.
constexpr bool IsAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// `s` without leading and trailing ASCII white space (a view into `s`).
constexpr std::string_view TrimView(std::string_view s) {
  while (!s.empty() && IsAsciiSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsAsciiSpace(s.back())) s.remove_suffix(1);
  return s;
}

constexpr std::string_view TrimRightView(std::string_view s) {
  while (!s.empty() && IsAsciiSpace(s.back())) s.remove_suffix(1);
  return s;
}

inline std::string Trim(std::string_view s) { return std::string(TrimView(s)); }

inline bool IsBlank(std::string_view s) { return TrimView(s).empty(); }

// Trims whitespace and the given decoration characters (e.g. "*`\"") from
// both ends, repeatedly: "** `x` **" → "x" with chars "*`".
constexpr std::string_view TrimChars(std::string_view s, std::string_view chars) {
  for (bool changed = true; changed;) {
    changed = false;
    s = TrimView(s);
    while (!s.empty() && chars.find(s.front()) != std::string_view::npos) {
      s.remove_prefix(1);
      changed = true;
    }
    while (!s.empty() && chars.find(s.back()) != std::string_view::npos) {
      s.remove_suffix(1);
      changed = true;
    }
  }
  return s;
}

// A-Z → a-z; every other byte as it is.
inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

inline bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// "%20"-style percent-encoding of a URL query value (RFC 3986: unreserved
// characters kept, every other byte %XX).
inline std::string UrlEncode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size() * 3);
  for (unsigned char c : value) {
    const bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                            c == '-' || c == '_' || c == '.' || c == '~';
    if (unreserved) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

inline std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += items[i];
  }
  return out;
}

}  // namespace medreact

#endif  // MEDREACT_CORE_TEXT_UTIL_H_
