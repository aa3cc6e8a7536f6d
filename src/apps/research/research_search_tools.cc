// The research search agent's tools. See research_search_tools.h.
#include "apps/research/research_search_tools.h"

#include <algorithm>

#include "apps/research/research_types.h"
#include "medreact/tool.h"
#include "medreact/trace.h"

namespace medreact {
namespace {

// The records of the search call running on this thread (ResearchSearchTools' wrapper
// sets it around the pack tool's Run, which hands its records to on_evidence
// on the same thread).
thread_local std::vector<Evidence>* tl_call_records = nullptr;

}  // namespace

const char* ResearchSourceTool(const std::string& source) {
  if (source == "pubmed") return "search_pubmed";
  if (source == "trials") return "search_clinical_trials";
  if (source == "preprints") return "search_preprints";
  return nullptr;
}

std::string ResearchSourceName(const std::string& tool) {
  if (tool == "search_pubmed") return "PubMed";
  if (tool == "search_clinical_trials") return "ClinicalTrials.gov";
  if (tool == "search_preprints") return "Europe PMC preprints";
  return tool;
}

void ResearchEvidenceSink::Hold(std::string call, std::vector<Evidence> items) {
  std::lock_guard<std::mutex> lock(mu);
  if (closed || items.empty()) return;
  held.emplace_back(std::move(call), std::move(items));
}

void ResearchEvidenceSink::Flush(const std::vector<std::string>& calls) {
  std::lock_guard<std::mutex> lock(mu);
  if (closed || !memory) return;
  std::vector<std::pair<std::string, std::vector<Evidence>>> rest = std::move(held);
  held.clear();
  size_t room = max_records;
  size_t over = 0;
  for (const std::string& call : calls) {
    auto it = std::find_if(rest.begin(), rest.end(), [&](const auto& h) { return h.first == call; });
    if (it == rest.end()) continue;
    StoreLocked(it->second, &room, &over);
    rest.erase(it);
  }
  std::stable_sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& h : rest) StoreLocked(h.second, &room, &over);
  if (over > 0) {
    std::string note = "a search turn found " + std::to_string(over + max_records) + " records; " +
                       std::to_string(over) + " beyond the " + std::to_string(max_records) +
                       " a round keeps (max_records_per_round) were left out";
    warnings.push_back(note);
    left_out.push_back(std::move(note));
  }
}

void ResearchEvidenceSink::StoreLocked(const std::vector<Evidence>& items, size_t* room, size_t* over) {
  const size_t take = std::min(items.size(), *room);
  *over += items.size() - take;
  *room -= take;
  if (take == 0) return;
  Result<StoreReport> r = memory->Store(std::vector<Evidence>(items.begin(), items.begin() + static_cast<long>(take)),
                                        {}, deadline);
  if (!r.ok()) {
    warnings.push_back("the memory did not store " + std::to_string(take) + " record(s): " + r.status().message());
    return;
  }
  new_records += static_cast<int>(r->new_keys.size());
  duplicates += static_cast<int>(r->duplicates.size());
  if (r->not_examined > 0) {
    left_out.push_back(std::to_string(r->not_examined) + " record(s) found were not examined for duplicates and " +
                       "not kept: " + (r->stopped == "cancelled" ? "the research was cancelled" :
                                                                  "the research's deadline passed") +
                       " while the memory de-duplicated them");
  }
  for (std::string& w : r->warnings) warnings.push_back(std::move(w));
}

std::string ResearchCallKey(const std::string& tool, const Json& args) { return tool + " " + DumpJson(args); }

Json ResearchSearchCalls(const RunResult& run, ResearchEvidenceSink& sink) {
  Json out = Json::array();
  std::lock_guard<std::mutex> lock(sink.mu);
  for (const StepRecord& step : run.trace.steps) {
    for (const ToolResultRecord& r : step.tool_results) {
      if (r.name == kSubmitSearchTool) continue;
      Json args = Json::object();
      for (const ToolCall& call : step.assistant.tool_calls) {
        if (call.id != r.tool_call_id) continue;
        if (Result<Json> parsed = ParseJson(call.arguments); parsed.ok() && parsed->is_object()) args = *parsed;
      }
      Json item = {{"tool", r.name}, {"source", ResearchSourceName(r.name)}, {"query", StringOr(args, "query")},
                   {"ok", r.ok}};
      if (r.ok) {
        const std::string key = ResearchCallKey(r.name, args);
        size_t records = 0;
        for (const auto& [held_key, items] : sink.held) {
          if (held_key == key) records += items.size();
        }
        item["records"] = records;
      } else {
        item["error"] = r.error;
      }
      out.push_back(std::move(item));
    }
  }
  return out;
}

Result<std::shared_ptr<ToolRegistry>> ResearchSearchTools(const ResearchConfig& config,
                                                          std::shared_ptr<ResearchEvidenceSink> sink) {
  auto pack = std::make_shared<ToolRegistry>();
  LiteraturePackOptions options = config.literature;
  options.on_evidence = [](const std::vector<Evidence>& items) {
    if (tl_call_records) tl_call_records->insert(tl_call_records->end(), items.begin(), items.end());
  };
  if (Status s = RegisterLiteraturePack(*pack, std::move(options)); !s.ok()) return s;
  auto tools = std::make_shared<ToolRegistry>();
  for (const std::string& source : config.sources) {
    const char* name = ResearchSourceTool(source);
    if (!name) return Status::InvalidArgument("unknown source '" + source + "' (pubmed, trials, preprints)");
    const Tool* tool = pack->Find(name);
    if (!tool) return Status::Internal(std::string("the literature pack has no ") + name);
    auto run = [pack, sink, name = std::string(name)](const Json& args, const ToolContext& ctx) {
      Tool* t = const_cast<Tool*>(pack->Find(name));  // the pack's tools are thread-safe
      std::vector<Evidence> records;
      tl_call_records = &records;
      ToolResult result = t->Run(args, ctx);
      tl_call_records = nullptr;
      sink->Hold(ResearchCallKey(name, args), std::move(records));
      return result;
    };
    if (Status s = tools->Register(MakeFunctionTool(tool->spec(), std::move(run))); !s.ok()) return s;
  }
  if (Status s = RegisterResearchFinishingTools(*tools, {kSubmitSearchTool}); !s.ok()) return s;
  return tools;
}

}  // namespace medreact
