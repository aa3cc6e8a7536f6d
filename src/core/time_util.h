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

// The same to the millisecond: "2026-11-25T03:04:05.123Z" (event streams).
inline std::string UtcTimestampMillis() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return std::string(buf) + "." + std::to_string(1000 + ms).substr(1) + "Z";
}

}  // namespace medreact

#endif  // MEDREACT_CORE_TIME_UTIL_H_
