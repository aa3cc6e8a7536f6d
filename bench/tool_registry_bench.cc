// Benchmarks for ToolRegistry: a full Execute() of the util pack's calculator
// (parse, schema validation, evaluation, result JSON), and ValidateArguments()
// alone against a ~10-property schema, valid and invalid (the invalid case
// also pays for building the error message the model sees).
#include <string>

#include <benchmark/benchmark.h>

#include "medreact/tool_registry.h"
#include "tools/util/util_pack.h"

namespace medreact {
namespace {

void BM_RegistryExecuteCalculator(benchmark::State& state) {
  ToolRegistry registry;
  if (!RegisterUtilPack(registry).ok()) {
    state.SkipWithError("RegisterUtilPack failed");
    return;
  }
  const ToolCall call{"call_1", "calculator", R"({"expression": "(140 - 67) * 72 / (72 * 0.814) + sqrt(2)^2"})"};
  const ToolContext ctx;
  for (auto _ : state) {
    ToolResult result = registry.Execute(call, ctx);
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RegistryExecuteCalculator);

Json OrderSchema() {
  return Json::parse(R"({
    "type": "object",
    "properties": {
      "patient_id": {"type": "string", "minLength": 1},
      "drug": {"type": "string"},
      "dose": {"type": "number", "minimum": 0},
      "unit": {"type": "string", "enum": ["mg", "mcg", "g", "mL", "units"]},
      "route": {"type": "string", "enum": ["oral", "iv", "im", "sc"]},
      "frequency_hours": {"type": "integer", "minimum": 1, "maximum": 168},
      "prn": {"type": "boolean"},
      "start": {"type": "string"},
      "indications": {"type": "array", "items": {"type": "string"}},
      "notes": {"type": "string", "maxLength": 500}
    },
    "required": ["patient_id", "drug", "dose", "unit", "route"],
    "additionalProperties": false
  })");
}

void ValidateBench(benchmark::State& state, const std::string& arguments, bool expect_ok) {
  ToolRegistry registry;
  ToolSpec spec{"order_medication", "Orders a medication.", OrderSchema()};
  if (!registry.Register(MakeFunctionTool(spec, nullptr)).ok()) {
    state.SkipWithError("Register failed");
    return;
  }
  if (registry.ValidateArguments("order_medication", arguments).ok() != expect_ok) {
    state.SkipWithError("unexpected validation outcome");
    return;
  }
  for (auto _ : state) {
    Result<Json> result = registry.ValidateArguments("order_medication", arguments);
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_ValidateArgumentsTenProperties(benchmark::State& state) {
  ValidateBench(state,
                R"({"patient_id": "p-104", "drug": "amoxicillin", "dose": 500, "unit": "mg", "route": "oral",
                    "frequency_hours": 8, "prn": false, "start": "2026-11-22T08:00:00Z",
                    "indications": ["otitis media"], "notes": "with food"})",
                true);
}
BENCHMARK(BM_ValidateArgumentsTenProperties);

void BM_ValidateArgumentsTenPropertiesInvalid(benchmark::State& state) {
  ValidateBench(state,
                R"({"patient_id": "p-104", "drug": "amoxicillin", "dose": "500", "unit": "tabs",
                    "frequency_hours": 8.5, "indications": [1], "extra": true})",
                false);
}
BENCHMARK(BM_ValidateArgumentsTenPropertiesInvalid);

}  // namespace
}  // namespace medreact
