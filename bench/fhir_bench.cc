// FHIR pack speed (issue #3, item 7): loading + indexing the largest Synthea
// bundle against a plain nlohmann parse of the same bytes, and the latency of
// each tool call on it. Reads tests/fixtures/synthea (shipped with the repo).
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

#include "bench_paths.h"
#include "medreact/tool_registry.h"
#include "tools/fhir/fhir_pack.h"
#include "tools/fhir/fhir_store.h"

namespace medreact {
namespace {

const std::string kLargest = MEDREACT_SOURCE_DIR + "/tests/fixtures/synthea/Eura_Treutel_8a12e2bb-ecc5-43e9-8de2-bfd019911f7f.json";

const std::string& BundleText() {
  static const std::string text = [] {
    std::ifstream in(kLargest, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }();
  return text;
}

void BM_PlainJsonParse(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(Json::parse(BundleText()));
  state.SetBytesProcessed(state.iterations() * BundleText().size());
}
BENCHMARK(BM_PlainJsonParse)->Unit(benchmark::kMillisecond);

void BM_FhirLoadAndIndex(benchmark::State& state) {
  for (auto _ : state) {
    auto json = Json::parse(BundleText());
    auto store = FhirStore::FromJson(json);
    if (!store.ok()) state.SkipWithError(store.status().ToString().c_str());
    benchmark::DoNotOptimize(store);
  }
  state.SetBytesProcessed(state.iterations() * BundleText().size());
}
BENCHMARK(BM_FhirLoadAndIndex)->Unit(benchmark::kMillisecond);

void BM_FhirToolCall(benchmark::State& state, std::string name, std::string args) {
  static std::shared_ptr<ToolRegistry> registry = [] {
    auto r = std::make_shared<ToolRegistry>();
    auto store = FhirStore::FromJson(Json::parse(BundleText()));
    (void)RegisterFhirPack(*r, std::make_shared<const FhirStore>(std::move(*store)));
    return r;
  }();
  ToolCall call{"bench", name, args};
  for (auto _ : state) {
    ToolResult result = registry->Execute(call, ToolContext{});
    if (!result.ok) state.SkipWithError(result.error.c_str());
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK_CAPTURE(BM_FhirToolCall, manifest, "get_patient_manifest", "{}")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_FhirToolCall, meds_anticoag, "check_medication_status", R"({"medication_name":"anticoag"})")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_FhirToolCall, labs_renal, "get_recent_labs", R"({"category":"Renal","lookback_days":365})")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_FhirToolCall, history_search, "search_clinical_history", R"({"query":"fibril"})")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_FhirToolCall, vitals, "get_vital_signs", "{}")->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace medreact
