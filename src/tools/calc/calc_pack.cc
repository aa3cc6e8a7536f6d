#include "tools/calc/calc_pack.h"

namespace medreact {

ToolSpec CalculatorToolSpec(const calc::Calculator& calculator) {
  return ToolSpec{calculator.name,
                  calculator.title + ". " + calculator.description + " Source: " + calculator.citation,
                  calc::CalculatorSchema(calculator)};
}

Status RegisterCalcPack(ToolRegistry& registry) {
  for (const calc::Calculator& calculator : calc::AllCalculators()) {
    const calc::Calculator* c = &calculator;  // AllCalculators() lives for the program
    Status s = registry.Register(MakeFunctionTool(CalculatorToolSpec(calculator), [c](const Json& args, const ToolContext&) {
      Result<Json> result = calc::RunCalculator(*c, args);
      if (!result.ok()) return ToolResult::Error(result.status().message());
      return ToolResult::OkJson(*result);
    }));
    if (!s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace medreact
