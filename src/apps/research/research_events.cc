// Research events (research_events.h).
#include "apps/research/research_events.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace medreact {

const char* ResearchEventTypeName(ResearchEventType type) {
  switch (type) {
    case ResearchEventType::kStarted: return "started";
    case ResearchEventType::kThinking: return "thinking";
    case ResearchEventType::kSearching: return "searching";
    case ResearchEventType::kSearchComplete: return "search_complete";
    case ResearchEventType::kJudging: return "judging";
    case ResearchEventType::kJudgeComplete: return "judge_complete";
    case ResearchEventType::kHypothesizing: return "hypothesizing";
    case ResearchEventType::kSynthesizing: return "synthesizing";
    case ResearchEventType::kStreaming: return "streaming";
    case ResearchEventType::kComplete: return "complete";
    case ResearchEventType::kError: return "error";
    case ResearchEventType::kProgress: return "progress";
  }
  return "progress";
}

Json ToJson(const ResearchEvent& e) {
  Json j = {{"type", ResearchEventTypeName(e.type)}, {"iteration", e.iteration}, {"timestamp", e.timestamp}};
  if (!e.agent.empty()) j["agent"] = e.agent;
  j["message"] = e.message;
  if (!e.data.is_null()) j["data"] = e.data;
  return j;
}

std::string UtcTimestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace medreact
