// Worklist throughput (issue #3, item 7): RunWorklist over a temporary
// worklist of identical cases (example 01, acute PE on warfarin with INR 2.3),
// each investigated natively in 4 model calls (manifest → anticoagulants →
// coag labs → submit_assessment) against the in-process scripted model server
// with a fixed per-call delay. Reported against the model-bound limit
//   concurrency / (calls per case × delay)
// (what an infinitely fast engine, client and server would reach), and the
// ratio of the two. BM_WorklistModelOverhead is the same with no delay (the
// per-call cost of client + server + engine); the rules-planner variant needs
// no server: it shows what the engine, the FHIR tools and the worklist
// plumbing cost per case. call_ms_* are the model calls' latencies from the
// traces; stalled_calls counts calls over half a second slower than scripted
// (a dropped SYN, retransmitted after 1 s: see docs/benchmarks.md).
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>

#include "bench_paths.h"
#include "apps/triage/worklist.h"
#include "medreact/openai.h"
#include "mockllm/mock_server.h"

namespace medreact {
namespace {

namespace fs = std::filesystem;
using mockllm::MockLlmServer;

constexpr int kCases = 32;        // enough for 4 rounds at concurrency 8
constexpr int kCallsPerCase = 4;  // the script below
const char kFindings[] = "Filling defect in the right pulmonary artery consistent with acute pulmonary embolism.";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Fallback record when the example is absent: Patient + active warfarin + INR 2.3.
const char kHandMadeBundle[] = R"({"resourceType": "Bundle", "type": "collection", "entry": [
  {"resource": {"resourceType": "Patient", "id": "p1", "gender": "female", "birthDate": "1958-03-02",
                "name": [{"family": "Bench", "given": ["Case"]}]}},
  {"resource": {"resourceType": "MedicationRequest", "id": "m1", "status": "active", "intent": "order",
                "subject": {"reference": "Patient/p1"}, "authoredOn": "2025-01-10",
                "medicationCodeableConcept": {"text": "Warfarin 5 MG Oral Tablet",
                  "coding": [{"system": "http://www.nlm.nih.gov/research/umls/rxnorm", "code": "855332",
                              "display": "Warfarin Sodium 5 MG Oral Tablet"}]}}},
  {"resource": {"resourceType": "Observation", "id": "o1", "status": "final",
                "subject": {"reference": "Patient/p1"}, "effectiveDateTime": "2025-06-10",
                "category": [{"coding": [{"system": "http://terminology.hl7.org/CodeSystem/observation-category",
                                          "code": "laboratory"}]}],
                "code": {"coding": [{"system": "http://loinc.org", "code": "6301-6", "display": "INR"}], "text": "INR"},
                "valueQuantity": {"value": 2.3, "unit": "{INR}"}}}]})";

// The temporary worklist, built once and removed at exit.
struct BenchWorklist {
  fs::path dir;
  std::vector<std::string> cases;
  std::string error;

  BenchWorklist() {
    std::error_code ec;
    dir = fs::temp_directory_path() / ("medreact-worklist-bench-" + std::to_string(::getpid()));
    fs::remove_all(dir, ec);
    const fs::path example = fs::path(MEDREACT_SOURCE_DIR) / "examples/worklist/01-pe-on-warfarin";
    const bool have_example = fs::exists(example / "fhir.json");
    const std::string bundle = have_example ? ReadFile(example / "fhir.json") : std::string(kHandMadeBundle);
    const std::string case_json = have_example && fs::exists(example / "case.json")
                                      ? ReadFile(example / "case.json")
                                      : std::string(R"({"base_priority": 2, "as_of": "2025-06-13"})");
    for (int i = 0; i < kCases; ++i) {
      char name[32];
      std::snprintf(name, sizeof name, "case-%02d", i);
      const fs::path c = dir / name;
      fs::create_directories(c, ec);
      if (ec) {
        error = "cannot create " + c.string() + ": " + ec.message();
        return;
      }
      std::ofstream(c / "fhir.json", std::ios::binary) << bundle;
      std::ofstream(c / "findings.txt", std::ios::binary) << kFindings;
      std::ofstream(c / "case.json", std::ios::binary) << case_json;
    }
    Result<std::vector<std::string>> listed = ListWorklistCases(dir.string());
    if (!listed.ok()) {
      error = listed.status().ToString();
      return;
    }
    cases = std::move(listed).value();
  }
  ~BenchWorklist() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

const BenchWorklist& Worklist() {
  static const BenchWorklist worklist;
  return worklist;
}

Json Call(const std::string& id, const std::string& name, const Json& args) {
  return {{"id", id}, {"name", name}, {"arguments", DumpJson(args)}};
}

Json Turn(Json call, int delay_ms) {
  return {{"message", {{"content", nullptr}, {"tool_calls", Json::array({std::move(call)})}}},
          {"delay_ms", delay_ms}};
}

// One case's investigation; "by_turn" hands every concurrent conversation its own next turn.
Json Script(int delay_ms) {
  return {{"select", "by_turn"},
          {"responses",
           {Turn(Call("call_1", "get_patient_manifest", Json::object()), delay_ms),
            Turn(Call("call_2", "check_medication_status", {{"medication_name", "anticoag"}}), delay_ms),
            Turn(Call("call_3", "get_recent_labs", {{"category", "Coag"}}), delay_ms),
            Turn(Call("call_4", "submit_assessment",
                      {{"final_assessment", "Acute PE despite therapeutic anticoagulation (INR 2.3)."},
                       {"risk_adjustment", "INCREASE"},
                       {"critical_findings", {"Anticoagulation failure"}}}),
                 delay_ms)}}};
}

// Empty when every case finished at priority 1 (through the model when `model`), else why not.
std::string CheckReport(const WorklistReport& report, bool model) {
  if (report.cases.size() != Worklist().cases.size()) return "wrong number of cases";
  if (report.failed != 0) {
    for (const WorklistCaseResult& c : report.cases) {
      if (!c.ok) return c.name + ": " + c.error;
    }
  }
  if (report.not_finished != 0) return std::to_string(report.not_finished) + " case(s) not finished";
  for (const WorklistCaseResult& c : report.cases) {
    if (c.result["priority_level"] != 1) return c.name + ": priority " + DumpJson(c.result["priority_level"]);
    if (model && c.fell_back) return c.name + ": fell back to the rules planner";
  }
  return "";
}

// Model-call latencies (StepRecord::model_ms) over every case's trace.
// A "stalled" call took over half a second more than the scripted delay: on
// this machine that is a dropped SYN retransmitted after 1 s (see
// docs/benchmarks.md, "Worklist throughput").
struct CallStats {
  int delay_ms = 0;
  double sum_ms = 0;
  double max_ms = 0;
  int64_t calls = 0;
  int64_t stalled = 0;
  void Add(const WorklistReport& report) {
    for (const WorklistCaseResult& c : report.cases) {
      if (!c.trace) continue;
      for (const StepRecord& step : c.trace->steps) {
        sum_ms += step.model_ms;
        max_ms = std::max(max_ms, step.model_ms);
        if (step.model_ms > delay_ms + 500) ++stalled;
        ++calls;
      }
    }
  }
  void Report(benchmark::State& state) const {
    if (calls == 0) return;
    state.counters["call_ms_mean"] = sum_ms / calls;
    state.counters["call_ms_max"] = max_ms;
    state.counters["stalled_calls"] = static_cast<double>(stalled);
  }
};

TriageConfig BenchTriageConfig() {
  TriageConfig triage;
  triage.timeout = Millis(120'000);
  return triage;
}

std::function<Result<std::shared_ptr<ChatModel>>()> ModelFactory(const std::string& base_url) {
  return [base_url]() -> Result<std::shared_ptr<ChatModel>> {
    OpenAIOptions o;
    o.base_url = base_url;
    o.model = "mock";
    o.max_retries = 0;
    return std::shared_ptr<ChatModel>(MakeOpenAIModel(std::move(o)));
  };
}

// Runs the worklist against a fresh scripted server for every iteration of
// `state`; on success sets the counters shared by the model variants and
// returns true.
bool RunAgainstServer(benchmark::State& state, int concurrency, int delay_ms) {
  const BenchWorklist& worklist = Worklist();
  if (!worklist.error.empty()) {
    state.SkipWithError(worklist.error.c_str());
    return false;
  }
  Result<mockllm::MockScript> script = MockLlmServer::ParseScript(Script(delay_ms));
  if (!script.ok()) {
    state.SkipWithError(script.status().ToString().c_str());
    return false;
  }
  MockLlmServer server(std::move(script).value());
  if (Status st = server.Start(); !st.ok()) {
    state.SkipWithError(st.ToString().c_str());
    return false;
  }
  WorklistOptions options;
  options.concurrency = concurrency;
  options.out_dir = "";
  options.triage = BenchTriageConfig();
  options.make_model = ModelFactory(server.base_url());

  double total_ms = 0;
  int64_t cases = 0;
  CallStats calls{.delay_ms = delay_ms};
  for (auto _ : state) {
    WorklistReport report = RunWorklist(worklist.dir.string(), worklist.cases, options);
    if (std::string why = CheckReport(report, /*model=*/true); !why.empty()) {
      state.SkipWithError(why.c_str());
      return false;
    }
    calls.Add(report);
    total_ms += report.elapsed_ms;
    cases += static_cast<int64_t>(report.cases.size());
  }
  if (cases == 0) return false;
  if (server.served() != static_cast<size_t>(cases * kCallsPerCase)) {
    state.SkipWithError(("the server answered " + std::to_string(server.served()) + " calls, expected " +
                         std::to_string(cases * kCallsPerCase)).c_str());
    return false;
  }
  state.counters["cases_per_s"] = cases / (total_ms / 1000.0);
  // Wall time per case per worker: 4 × delay at best.
  state.counters["ms_per_case"] = total_ms * concurrency / cases;
  calls.Report(state);
  return true;
}

// Arguments: concurrency, per-call delay in ms.
void BM_WorklistThroughput(benchmark::State& state) {
  const int concurrency = static_cast<int>(state.range(0));
  const int delay_ms = static_cast<int>(state.range(1));
  if (!RunAgainstServer(state, concurrency, delay_ms)) return;
  const double bound = concurrency / (kCallsPerCase * delay_ms / 1000.0);
  state.counters["model_bound_cases_per_s"] = bound;
  state.counters["efficiency"] = state.counters["cases_per_s"].value / bound;
}
BENCHMARK(BM_WorklistThroughput)
    ->ArgNames({"concurrency", "delay_ms"})
    ->ArgsProduct({{1, 2, 4, 8}, {20, 50}})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The same with no delay at all: what a model call costs the client, the
// engine and the server on this machine, i.e. the gap to the limit.
void BM_WorklistModelOverhead(benchmark::State& state) {
  const int concurrency = static_cast<int>(state.range(0));
  if (!RunAgainstServer(state, concurrency, 0)) return;
  state.counters["ms_per_call"] = state.counters["ms_per_case"].value / kCallsPerCase;
}
BENCHMARK(BM_WorklistModelOverhead)
    ->ArgNames({"concurrency"})
    ->Arg(1)
    ->Arg(2)
    ->Arg(8)
    ->MinTime(0.5)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The rules planner: no model, no server; engine + FHIR tools + worklist plumbing.
void BM_WorklistThroughputRules(benchmark::State& state) {
  const int concurrency = static_cast<int>(state.range(0));
  const BenchWorklist& worklist = Worklist();
  if (!worklist.error.empty()) {
    state.SkipWithError(worklist.error.c_str());
    return;
  }
  WorklistOptions options;
  options.concurrency = concurrency;
  options.out_dir = "";
  options.triage = BenchTriageConfig();
  double total_ms = 0;
  int64_t cases = 0;
  for (auto _ : state) {
    WorklistReport report = RunWorklist(worklist.dir.string(), worklist.cases, options);
    if (std::string why = CheckReport(report, /*model=*/false); !why.empty()) {
      state.SkipWithError(why.c_str());
      break;
    }
    total_ms += report.elapsed_ms;
    cases += static_cast<int64_t>(report.cases.size());
  }
  if (cases == 0) return;
  state.counters["cases_per_s"] = cases / (total_ms / 1000.0);
  state.counters["ms_per_case"] = total_ms * concurrency / cases;
}
BENCHMARK(BM_WorklistThroughputRules)
    ->ArgNames({"concurrency"})
    ->Arg(1)
    ->Arg(2)
    ->MinTime(0.5)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace medreact
