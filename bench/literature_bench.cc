// Parse throughput of the literature clients over the recorded API responses
// (tests/fixtures/literature): PubMed efetch XML (pugixml → Evidence), the
// ClinicalTrials.gov v2 and Europe PMC JSON (ParseJson → Evidence). Bytes
// processed per second is the figure (MB/s in Google Benchmark's output);
// parsing only, no network and no cache.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_paths.h"
#include "tools/literature/clinical_trials.h"
#include "tools/literature/europepmc.h"
#include "tools/literature/pubmed.h"

namespace medreact {
namespace {

std::string Fixture(const std::string& name) {
  std::string path = MEDREACT_SOURCE_DIR + "/tests/fixtures/literature/";
  path += name;
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `parse` over each body once per iteration; fails when one yields no
// record (a missing fixture or a broken parser must not look fast).
template <typename Parse>
void ParseEach(benchmark::State& state, const std::vector<std::string>& names, Parse parse) {
  std::vector<std::string> bodies;
  int64_t bytes = 0;
  for (const std::string& name : names) {
    bodies.push_back(Fixture(name));
    bytes += static_cast<int64_t>(bodies.back().size());
  }
  for (auto _ : state) {
    for (const std::string& body : bodies) {
      size_t records = parse(body);
      if (records == 0) {
        state.SkipWithError("a fixture gave no record");
        return;
      }
      benchmark::DoNotOptimize(records);
    }
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}

void BM_PubMedEfetchXml(benchmark::State& state) {
  ParseEach(state, {"ncbi_efetch_pubmed_structured_abstract.xml", "ncbi_efetch_pubmed_11748933_11700088.xml"},
            [](const std::string& body) {
              Result<std::vector<Evidence>> r = ParsePubmedXml(body);
              return r.ok() ? r->size() : 0;
            });
}
BENCHMARK(BM_PubMedEfetchXml);

void BM_CtgovStudiesJson(benchmark::State& state) {
  ParseEach(state, {"ctgov_v2_search_keytruda_pagesize3.json", "ctgov_v2_search_phelan_pagesize5_page1.json",
                    "ctgov_v2_get_NCT06604689.json"},
            [](const std::string& body) {
              Result<CtgovPage> r = ParseCtgovStudies(body);
              return r.ok() ? r->evidence.size() : 0;
            });
}
BENCHMARK(BM_CtgovStudiesJson);

void BM_EuropePmcSearchJson(benchmark::State& state) {
  ParseEach(state, {"europepmc_search_cancer_core.json", "europepmc_search_ext_id_20516115_lite.json"},
            [](const std::string& body) {
              Result<EuropePmcPage> r = ParseEuropePmcSearch(body);
              return r.ok() ? r->evidence.size() : 0;
            });
}
BENCHMARK(BM_EuropePmcSearchJson);

}  // namespace
}  // namespace medreact
