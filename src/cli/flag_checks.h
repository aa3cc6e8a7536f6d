// Checks shared by every command's numeric flags. CLI11's PositiveNumber
// accepts "nan" (nan <= 0 is false) and values so small or so large that
// converting them to milliseconds gives 0 ("no limit") or overflows; a time
// limit the user typed must never silently mean "none".
#ifndef MEDREACT_CLI_FLAG_CHECKS_H_
#define MEDREACT_CLI_FLAG_CHECKS_H_

#include <cmath>
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>

#include "medreact/cancel.h"

namespace medreact::cli {

inline constexpr double kMinSeconds = 0.001;       // 1 ms: the clock's resolution for limits
inline constexpr double kMaxSeconds = 7 * 86400.0;  // a week: beyond any run

// A finite number within [lo, hi] written in full (no trailing text).
inline CLI::Validator FiniteRange(double lo, double hi, const std::string& unit) {
  return CLI::Validator(
      [lo, hi, unit](std::string& input) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(input.c_str(), &end);
        if (end == input.c_str() || *end != '\0' || !std::isfinite(value) || value < lo || value > hi) {
          return "must be a number of " + unit + " from " + CLI::detail::to_string(lo) + " to " +
                 CLI::detail::to_string(hi) + ", got '" + input + "'";
        }
        return "";
      },
      unit);
}

// A duration flag in seconds: finite, at least 1 ms, at most a week.
inline CLI::Validator Seconds() { return FiniteRange(kMinSeconds, kMaxSeconds, "seconds"); }

// Seconds (checked by Seconds()) as milliseconds, rounded up so that 0.0004 s
// cannot become 0 ms.
inline Millis SecondsToMillis(double seconds) {
  return Millis(static_cast<int64_t>(std::ceil(seconds * 1000.0)));
}

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_FLAG_CHECKS_H_
