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

}  // namespace medreact
