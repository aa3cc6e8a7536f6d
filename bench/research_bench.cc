// The research orchestration's own overhead: one whole research (manager
// rounds on the StateGraph, one Agent run per agent turn, the memory's
// de-duplication and ranking, the report's reference checks) with the rules
// planner playing every agent (zero model latency) and the recorded
// literature responses served in process (no sockets, no cache). The figure
// is time per manager round (the "round" counter, as a rate inverted: see
// s_per_round); the research itself runs 5 rounds over 6 records.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

#include "bench_paths.h"
#include "apps/research/research_app.h"
#include "medreact/http.h"

namespace medreact {
namespace {

std::string Fixture(const std::string& name) {
  std::ifstream in(std::string(MEDREACT_SOURCE_DIR + "/tests/fixtures/literature/") + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class InProcessLiterature : public HttpTransport {
 public:
  Result<HttpResponse> Send(const HttpRequest& request, const HttpChunkHandler&, const CancellationToken&) override {
    HttpResponse r;
    r.status = 200;
    const std::string& url = request.url;
    if (url.find("esearch.fcgi") != std::string::npos) {
      r.body = R"({"header":{"type":"esearch"},"esearchresult":{"count":"1","idlist":["27797938"]}})";
    } else if (url.find("efetch.fcgi") != std::string::npos) {
      r.body = efetch_;
    } else if (url.find("/studies") != std::string::npos) {
      r.body = trials_;
    } else {
      r.body = preprints_;
    }
    return r;
  }

 private:
  std::string efetch_ = Fixture("ncbi_efetch_pubmed_structured_abstract.xml");
  std::string trials_ = Fixture("ctgov_v2_search_keytruda_pagesize3.json");
  std::string preprints_ = Fixture("europepmc_search_preprints_core.handmade.json");
};

void BM_ResearchRulesPlanner(benchmark::State& state) {
  ResearchConfig config;
  config.literature.client.online = true;
  config.literature.client.use_cache = false;
  config.literature.client.max_retries = 0;
  config.literature.client.pubmed_requests_per_second = 1e9;  // no rate-limit waits in process
  config.literature.client.transport = std::make_shared<InProcessLiterature>();
  config.literature.getenv = [](const char*) -> const char* { return nullptr; };
  config.results_per_search = 3;
  int64_t rounds = 0;
  for (auto _ : state) {
    ResearchOutcome out = RunResearch("What is the evidence for Keytruda in cancer?", config);
    if (!out.report_from_agent || out.evidence_count != 6) {
      state.SkipWithError("the research did not finish with its report over 6 records");
      break;
    }
    rounds += out.rounds;
  }
  state.counters["rounds"] = benchmark::Counter(static_cast<double>(rounds), benchmark::Counter::kIsRate);
  state.counters["s_per_round"] = benchmark::Counter(
      static_cast<double>(rounds), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ResearchRulesPlanner)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace medreact
