// Wall-clock timestamps as the project writes them (traces, caches, events).
#ifndef MEDREACT_CORE_TIME_UTIL_H_
#define MEDREACT_CORE_TIME_UTIL_H_

#include <chrono>
#include <ctime>
#include <string>

namespace medreact {

// Now in UTC, ISO 8601 to the second: "2026-11-25T03:04:05Z".
inline std::string UtcTimestamp() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace medreact

#endif  // MEDREACT_CORE_TIME_UTIL_H_
