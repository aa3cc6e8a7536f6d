#include "core/log.h"

#include <spdlog/sinks/stdout_sinks.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace medreact {
namespace {

std::atomic<int>& PhiFlag() {  // -1 unread, 0 no, 1 yes
  static std::atomic<int> flag{-1};
  return flag;
}

std::shared_ptr<spdlog::logger> MakeLogger(std::shared_ptr<spdlog::sinks::sink> sink) {
  auto logger = std::make_shared<spdlog::logger>("medreact", std::move(sink));
  logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [medreact] [%l] %v");
  logger->set_level(spdlog::level::warn);
  return logger;
}

std::shared_ptr<spdlog::logger>& LoggerSlot() {
  static std::shared_ptr<spdlog::logger> logger = MakeLogger(std::make_shared<spdlog::sinks::stderr_sink_mt>());
  return logger;
}

}  // namespace

spdlog::logger& Log() { return *LoggerSlot(); }

void SetLogSink(std::shared_ptr<spdlog::sinks::sink> sink) {
  const spdlog::level::level_enum level = Log().level();
  LoggerSlot() = MakeLogger(sink ? std::move(sink) : std::make_shared<spdlog::sinks::stderr_sink_mt>());
  Log().set_level(level);
}

bool LogPhi() {
  int v = PhiFlag().load(std::memory_order_relaxed);
  if (v < 0) {
    const char* env = std::getenv("MEDREACT_LOG_PHI");
    v = env != nullptr && std::strcmp(env, "1") == 0 ? 1 : 0;
    PhiFlag().store(v, std::memory_order_relaxed);
  }
  return v == 1;
}

void SetLogPhi(bool allowed) { PhiFlag().store(allowed ? 1 : 0, std::memory_order_relaxed); }

std::string LogContent(std::string_view text) {
  if (LogPhi()) return std::string(text);
  return "<" + std::to_string(text.size()) + " bytes>";
}

void ConfigureLoggingFromEnvironment() {
  Log().set_level(spdlog::level::warn);
  const char* level = std::getenv("MEDREACT_LOG_LEVEL");
  if (level == nullptr || *level == '\0') return;
  const spdlog::level::level_enum parsed = spdlog::level::from_str(level);
  // from_str answers "off" for anything it does not know: only "off" means off.
  if (parsed == spdlog::level::off && std::strcmp(level, "off") != 0) {
    Log().warn("MEDREACT_LOG_LEVEL='{}' is not a level (trace, debug, info, warn, error, critical, off); "
                 "using warn",
                 level);
    return;
  }
  Log().set_level(parsed);
}

}  // namespace medreact
