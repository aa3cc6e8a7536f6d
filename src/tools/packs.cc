#include "tools/packs.h"

#include <algorithm>

#include "medreact/agent.h"
#include "tools/calc/calc_pack.h"
#include "tools/fhir/fhir_pack.h"
#include "tools/fhir/fhir_rest.h"
#include "tools/growth/growth_pack.h"
#include "tools/literature/literature_pack.h"
#include "tools/rag/rag_pack.h"
#include "tools/util/util_pack.h"

namespace medreact {

std::vector<std::string> SplitPackList(const std::string& list) {
  std::vector<std::string> out;
  std::string item;
  auto flush = [&] {
    size_t b = item.find_first_not_of(" \t");
    size_t e = item.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
    item.clear();
  };
  for (char c : list) {
    if (c == ',') {
      flush();
    } else {
      item += c;
    }
  }
  flush();
  return out;
}

namespace {

Status RegisterFhir(ToolRegistry& registry, const PackContext& context) {
  if (context.fhir_path.empty()) {
    return Status::InvalidArgument("the fhir pack reads a patient record: give its path (fhir_path)");
  }
  auto store = LoadFhirRecord(context.fhir_path);
  if (!store.ok()) return store.status();
  if (!context.as_of.empty()) {
    if (Status s = store->SetAsOf(context.as_of); !s.ok()) return s;
  }
  return RegisterFhirPack(registry, std::make_shared<const FhirStore>(std::move(*store)));
}

Status RegisterRag(ToolRegistry& registry, const PackContext& context) {
  if (context.corpus_dir.empty() && context.extras_path.empty()) {
    return Status::InvalidArgument(
        "the rag pack reads guideline files: give a folder of them (corpus_dir) and/or a hints file (extras_path)");
  }
  std::shared_ptr<RagIndex> index;
  if (!context.corpus_dir.empty()) {
    auto opened = RagIndex::Open(context.corpus_dir);
    if (!opened.ok()) return opened.status();
    if (context.on_warning) {
      for (const std::string& w : opened->last_update().warnings) {
        context.on_warning("guideline folder (corpus_dir): " + w);
      }
    }
    index = std::make_shared<RagIndex>(std::move(*opened));
  }
  std::shared_ptr<const ExtrasFile> extras;
  if (!context.extras_path.empty()) {
    auto loaded = ExtrasFile::Load(context.extras_path);
    if (!loaded.ok()) return loaded.status();
    extras = std::make_shared<const ExtrasFile>(std::move(*loaded));
  }
  return RegisterRagPack(registry, std::move(index), std::move(extras));
}

// The pack table: one row per pack, its name, what it holds and reaches,
// and how it registers. A new pack is one row here.
struct PackRow {
  const char* name;
  const char* description;
  Status (*register_pack)(ToolRegistry& registry, const PackContext& context);
  bool network = false;  // may reach the network
};

const std::vector<PackRow>& PackTable() {
  static const std::vector<PackRow> kPacks = {
      {"util", "current_time and a safe calculator; no patient data, no network",
       [](ToolRegistry& r, const PackContext&) { return RegisterUtilPack(r); }},
      {"finish", "final_answer, terminate and terminate_and_answer: explicit end-of-task tools",
       [](ToolRegistry& r, const PackContext&) { return RegisterFinishTools(r); }},
      {"fhir",
       "a patient's FHIR R4 record (read-only): manifest, history, labs, medications, vitals, allergies, "
       "imaging; needs a bundle the user names",
       &RegisterFhir},
      {"calc",
       "clinical calculators (renal function, scores, ...), each citing its published formula; units "
       "converted; no patient data, no network",
       [](ToolRegistry& r, const PackContext&) { return RegisterCalcPack(r); }},
      {"growth",
       "pediatric growth z-scores and percentiles (CDC 2000, WHO 2006/2007 LMS tables) and malnutrition "
       "bands; no patient data, no network",
       [](ToolRegistry& r, const PackContext&) { return RegisterGrowthPack(r); }},
      {"rag",
       "query_rag over a guideline folder (SQLite FTS5/BM25) and query_extras over a hints file; reads only "
       "the folder and the hints file the user names",
       &RegisterRag},
      {"literature",
       "search_pubmed, search_clinical_trials, search_preprints (PubMed E-utilities, ClinicalTrials.gov API v2, "
       "Europe PMC) and get_bibliography; reaches the network only when asked (online, or a base URL given), "
       "else answers from the literature cache",
       [](ToolRegistry& r, const PackContext& c) { return RegisterLiteraturePack(r, c.literature); },
       /*network=*/true},
  };
  return kPacks;
}

}  // namespace

std::vector<PackInfo> KnownPacks() {
  std::vector<PackInfo> out;
  for (const PackRow& row : PackTable()) out.push_back({row.name, row.description, row.network});
  return out;
}

Status RegisterPacks(ToolRegistry& registry, const std::vector<std::string>& packs, const PackContext& context,
                     std::map<std::string, std::string>* tool_packs) {
  const std::vector<PackRow>& table = PackTable();
  for (const auto& pack : packs) {
    auto row = std::find_if(table.begin(), table.end(), [&](const PackRow& r) { return pack == r.name; });
    if (row == table.end()) {
      std::string known;
      for (const PackRow& r : table) known += (known.empty() ? "" : ", ") + std::string(r.name);
      return Status::InvalidArgument("unknown tool pack '" + pack + "' (known packs: " + known + ")");
    }
    const std::vector<std::string> before = registry.Names();
    if (Status s = row->register_pack(registry, context); !s.ok()) return s.WithContext("pack '" + pack + "'");
    if (tool_packs) {
      for (const std::string& name : registry.Names()) {
        if (std::find(before.begin(), before.end(), name) == before.end()) (*tool_packs)[name] = pack;
      }
    }
  }
  for (const PackAttacher& attach : context.attach) {
    if (Status s = attach(registry, context.on_warning, tool_packs); !s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace medreact
