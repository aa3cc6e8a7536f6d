// Logging (spdlog, to stderr): what happens, never what it is about.
//
// Log lines carry ids, names, counts, sizes and timings: a run's id, step
// numbers, tool names and call ids, attempts, milliseconds, bytes and tokens.
// They never carry note text, tool arguments or results, model text, answers
// or patient identifiers, unless the user asked for content with
// MEDREACT_LOG_PHI=1 (then LogContent() returns the text itself). Levels:
// warn (default: retries, failures), info (runs), debug (steps, model and
// tool calls); MEDREACT_LOG_LEVEL picks one.
#ifndef MEDREACT_CORE_LOG_H_
#define MEDREACT_CORE_LOG_H_

#include <memory>
#include <string>
#include <string_view>

#include <spdlog/sinks/sink.h>
#include <spdlog/spdlog.h>

namespace medreact {

// The library's logger: stderr (standard output is for results), pattern
// "[time] [level] message", level warn until configured. Thread-safe.
spdlog::logger& Log();

// Replaces where log lines go (tests capture them); null restores stderr.
// Not for use while another thread may be logging: the old logger is released.
void SetLogSink(std::shared_ptr<spdlog::sinks::sink> sink);

// True when MEDREACT_LOG_PHI=1 (read once), or after SetLogPhi(true).
bool LogPhi();
void SetLogPhi(bool allowed);

// `text` when content logging is allowed, else "<N bytes>".
std::string LogContent(std::string_view text);

// Sets the level from MEDREACT_LOG_LEVEL (trace, debug, info, warn, error,
// critical, off); warn when unset. An unknown value is warn, and says so.
void ConfigureLoggingFromEnvironment();

}  // namespace medreact

#endif  // MEDREACT_CORE_LOG_H_
