// The research app's events (seed 003, "Event Flow", AgentEvent types): what a
// research run reports while it works, for the CLI's progress lines, the
// --events file (JSON lines) and the research trace.
//
// Each event has the seed's type, the manager round it belongs to
// ("iteration"), a UTC timestamp, the agent when one is active, a short
// message (names and counts, never abstracts; a `streaming` event's message
// is a preview of its text) and data. Sub-agent runs keep their own engine
// events in their RunTraces; these are the orchestration's.
//
// A page rendering the report as it is written appends the `streaming`
// events of agent "report" (their data.text, in order), then replaces that
// draft with the `complete` event's data.report: the final report, whose
// references are renumbered in order of first citation and which names the
// searches that failed (research_report.h).
#ifndef MEDREACT_APPS_RESEARCH_RESEARCH_EVENTS_H_
#define MEDREACT_APPS_RESEARCH_RESEARCH_EVENTS_H_

#include <functional>
#include <string>

#include "medreact/json.h"

namespace medreact {

enum class ResearchEventType {
  kStarted,         // the workflow begins
  kThinking,        // the manager decides (each round)
  kSearching,       // SearchAgent active
  kSearchComplete,  // SearchAgent done; data: evidence counts
  kJudging,         // JudgeAgent active
  kJudgeComplete,   // JudgeAgent done; data: the assessment
  kHypothesizing,   // HypothesisAgent active
  kSynthesizing,    // ReportAgent active (or fallback synthesis)
  kStreaming,       // an agent's text; data: {"text"}: the search agent's summary, and the
                    // report agent's text as it is generated, fragment by fragment
  kComplete,        // the workflow is done; data: iterations, stop reason, failed searches, the report
  kError,           // something failed (a search: data {tool, source, query, error}); the run goes on or falls back
  kProgress,        // status update (graph transitions, stalls, replans)
};

const char* ResearchEventTypeName(ResearchEventType type);  // "started", "search_complete", ...

struct ResearchEvent {
  ResearchEventType type = ResearchEventType::kProgress;
  int iteration = 0;       // the manager round (0 before the first)
  std::string timestamp;   // ISO 8601 UTC, milliseconds
  std::string agent;       // "manager", "search", "judge", "hypothesis", "report", or ""
  std::string message;     // short, for people
  Json data;               // null or an object
};

using ResearchEventSink = std::function<void(const ResearchEvent&)>;

// {"type","iteration","timestamp"[,"agent"],"message"[,"data"]}
Json ToJson(const ResearchEvent& event);

}  // namespace medreact

#endif  // MEDREACT_APPS_RESEARCH_RESEARCH_EVENTS_H_
