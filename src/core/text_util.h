// Small string helpers shared inside the library (not part of the public API).
#ifndef MEDREACT_CORE_TEXT_UTIL_H_
#define MEDREACT_CORE_TEXT_UTIL_H_

#include <string>
#include <string_view>
#include <vector>

namespace medreact {

inline bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

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
