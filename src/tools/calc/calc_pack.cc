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

Json CalculatorOutputSchema() {
  const Json text = {{"type", "string"}};
  return Json{{"type", "object"},
              {"properties",
               {{"calculator", text},
                {"title", text},
                {"value", {{"type", Json::array({"number", "string"})},
                           {"description", "the result: a number, or text for dates and (weeks, days)"}}},
                {"unit", {{"type", "string"}, {"description", "empty for scores"}}},
                {"terms", {{"type", "object"}, {"description", "intermediate terms or points per criterion"}}},
                {"explanation", text},
                {"interpretation", text},
                {"inputs", {{"type", "object"}, {"description", "the inputs as used, in the calculator's units"}}},
                {"citation", text}}},
              {"required", Json::array({"calculator", "title", "value", "unit", "terms", "explanation", "inputs",
                                        "citation"})}};
}

}  // namespace medreact
