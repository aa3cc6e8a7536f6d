// Calculator speed (issue 4, item 7): calculators per second, as an agent
// calls them — JSON arguments in (with a unit to convert), validated,
// computed, result JSON out.
//   BM_Calculator/<name>      one calculator through RunCalculator
//   BM_AllCalculators         every calculator once per iteration, with arguments from its own schema
//   BM_CallMedicalFunction    growth_zscore through call_medical_function (schema validation twice,
//                             the extraction app's path)
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "apps/extract/medical_functions.h"
#include "medreact/json.h"
#include "tools/calc/calculator.h"

namespace medreact {
namespace {

struct Case {
  const char* name;
  const char* args;
};

const Case kCases[] = {
    {"egfr_ckd_epi_2021", R"({"age": 62, "sex": "female", "creatinine": {"value": 97, "unit": "µmol/L"}})"},
    {"body_mass_index", R"({"weight": {"value": 154, "unit": "lb"}, "height": {"value": 68, "unit": "in"}})"},
    {"cha2ds2_vasc", R"({"age": 76, "sex": "female", "hypertension": true, "diabetes": true, "stroke": true})"},
    {"qtc_bazett", R"({"qt_interval": 400, "heart_rate": 88})"},
};

void BM_Calculator(benchmark::State& state, const Case& c) {
  const calc::Calculator* calculator = calc::FindCalculator(c.name);
  const Json args = Json::parse(c.args);
  if (calculator == nullptr || !calc::RunCalculator(*calculator, args).ok()) {
    state.SkipWithError("calculator missing or arguments rejected");
    return;
  }
  for (auto _ : state) {
    Result<Json> r = calc::RunCalculator(*calculator, args);
    benchmark::DoNotOptimize(r);
  }
  state.counters["calcs_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// Mid-range arguments for every required input, from the calculator's definition.
Json MidArguments(const calc::Calculator& c) {
  Json args = Json::object();
  for (const calc::CalcInput& in : c.inputs) {
    switch (in.type) {
      case calc::InputType::kNumber:
      case calc::InputType::kInteger: {
        double lo = in.min.value_or(1), hi = in.max.value_or(lo + 10);
        double v = lo + (hi - lo) * 0.3;
        args[in.name] = in.type == calc::InputType::kInteger ? Json(static_cast<int>(v)) : Json(v);
        break;
      }
      case calc::InputType::kBoolean: args[in.name] = true; break;
      case calc::InputType::kChoice: args[in.name] = in.choices.front(); break;
      case calc::InputType::kDate: args[in.name] = "2024-03-01"; break;
      case calc::InputType::kSex: args[in.name] = "female"; break;
    }
  }
  return args;
}

void BM_AllCalculators(benchmark::State& state) {
  std::vector<std::pair<const calc::Calculator*, Json>> runnable;
  std::string skipped;
  for (const calc::Calculator& c : calc::AllCalculators()) {
    Json args = MidArguments(c);
    if (calc::RunCalculator(c, args).ok()) {
      runnable.emplace_back(&c, std::move(args));
    } else {
      skipped += (skipped.empty() ? "skipped (synthetic arguments rejected): " : ", ") + c.name;
    }
  }
  state.SetLabel(skipped);
  for (auto _ : state) {
    for (const auto& [c, args] : runnable) {
      Result<Json> r = calc::RunCalculator(*c, args);
      benchmark::DoNotOptimize(r);
    }
  }
  state.counters["calculators"] = static_cast<double>(runnable.size());
  state.counters["calcs_per_s"] = benchmark::Counter(static_cast<double>(state.iterations() * runnable.size()),
                                                     benchmark::Counter::kIsRate);
}

void BM_CallMedicalFunction(benchmark::State& state) {
  auto functions = MedicalFunctions::Create();
  ToolRegistry registry;
  if (!functions.ok() || !RegisterCallMedicalFunction(registry, *functions).ok()) {
    state.SkipWithError("cannot build call_medical_function");
    return;
  }
  const ToolCall call{.id = "b", .name = "call_medical_function",
                      .arguments = R"({"function_name": "growth_zscore", "parameters": {"reference": "cdc",
                        "indicator": "bmi_for_age", "sex": "female", "age_months": 38, "value": 13.58}})"};
  if (!registry.Execute(call, {}).ok) {
    state.SkipWithError("growth_zscore failed");
    return;
  }
  for (auto _ : state) {
    ToolResult r = registry.Execute(call, {});
    benchmark::DoNotOptimize(r);
  }
  state.counters["calls_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_Calculator, egfr_ckd_epi_2021, kCases[0]);
BENCHMARK_CAPTURE(BM_Calculator, body_mass_index, kCases[1]);
BENCHMARK_CAPTURE(BM_Calculator, cha2ds2_vasc, kCases[2]);
BENCHMARK_CAPTURE(BM_Calculator, qtc_bazett, kCases[3]);
BENCHMARK(BM_AllCalculators);
BENCHMARK(BM_CallMedicalFunction);

}  // namespace
}  // namespace medreact
