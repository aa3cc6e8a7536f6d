// The research search agent's tools (research_app.h): the selected sources'
// literature tools, whose records are held per call and go into the memory
// when the agent's turn ends, in the order of its calls — not in the order
// parallel calls happened to finish — so the memory's numbering is the same
// in every run, a resumed one included (issue 22).
#ifndef MEDREACT_APPS_RESEARCH_RESEARCH_SEARCH_TOOLS_H_
#define MEDREACT_APPS_RESEARCH_RESEARCH_SEARCH_TOOLS_H_

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "apps/research/research_app.h"
#include "apps/research/research_memory.h"
#include "medreact/json.h"
#include "medreact/tool_registry.h"
#include "tools/literature/evidence.h"

namespace medreact {

// "search_pubmed" for "pubmed", ... (trials, preprints); nullptr otherwise.
const char* ResearchSourceTool(const std::string& source);
// The source a search tool reaches, as the report names it ("PubMed", ...).
std::string ResearchSourceName(const std::string& tool);

// The records the search calls found, on their way into the memory. A tool
// abandoned past its deadline may still hand records in later; once the
// research ended (`closed`) they are dropped. Thread-safe.
//
// Bounded: a Flush (one search turn, one round) hands the memory at most
// `max_records` records, in the order of the calls; the others are left out.
// The memory's de-duplication stops at `deadline` (the research's). Either
// way what was left out is named in `left_out` (one line each, for the
// report's "Records left out") and in `warnings`.
struct ResearchEvidenceSink {
  std::mutex mu;
  ResearchMemory* memory = nullptr;  // set before the research runs
  bool closed = false;
  size_t max_records = 300;          // per Flush (ResearchConfig::max_records_per_round)
  Deadline deadline = Deadline::Never();
  int new_records = 0;  // stored as new, over the research
  int duplicates = 0;
  std::vector<std::string> warnings;
  std::vector<std::string> left_out;
  // Records by call (ResearchCallKey), in the order the calls ended.
  std::vector<std::pair<std::string, std::vector<Evidence>>> held;

  // A call's records (from the tool's thread).
  void Hold(std::string call, std::vector<Evidence> items);
  // Stores the held records: first those of `calls` in that order, then any
  // other (a call the turn's trace does not show) by its key.
  void Flush(const std::vector<std::string>& calls);

 private:
  // Stores up to `*room` of `items`, counting down `*room` and up `*over` for the rest.
  void StoreLocked(const std::vector<Evidence>& items, size_t* room, size_t* over);
};

// A search call's key: "tool {arguments}".
std::string ResearchCallKey(const std::string& tool, const Json& args);

// The searches of a search agent's run, in call order, for its
// search_complete event (a page lists what was queried where):
// [{"tool", "source" (ResearchSourceName), "query", "ok", "records" (found by
// that call, before de-duplication; ok calls only), "error" (failed calls
// only)}]. submit_search is not a search. Reads `sink`'s held records, so it
// is called before Flush.
Json ResearchSearchCalls(const RunResult& run, ResearchEvidenceSink& sink);

// The search agent's tools: the sources' search tools (forwarding to the
// literature pack, their records held in `sink`) and submit_search.
Result<std::shared_ptr<ToolRegistry>> ResearchSearchTools(const ResearchConfig& config,
                                                          std::shared_ptr<ResearchEvidenceSink> sink);

}  // namespace medreact

#endif  // MEDREACT_APPS_RESEARCH_RESEARCH_SEARCH_TOOLS_H_
