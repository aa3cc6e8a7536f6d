// The `calc` tool pack: every calculator (calculator.h) as a tool — its
// schema generated from its inputs, its description carrying the citation,
// its result the JSON documented in calculator.h, its errors (missing inputs,
// units, ranges) the text the model sees.
#ifndef MEDREACT_TOOLS_CALC_CALC_PACK_H_
#define MEDREACT_TOOLS_CALC_CALC_PACK_H_

#include "medreact/status.h"
#include "medreact/tool.h"
#include "medreact/tool_registry.h"
#include "tools/calc/calculator.h"

namespace medreact {

// The tool spec of one calculator.
ToolSpec CalculatorToolSpec(const calc::Calculator& calculator);

Status RegisterCalcPack(ToolRegistry& registry);

// The JSON Schema of every calculator's result (RunCalculator's object:
// calculator, title, value (a number, or text for dates), unit, terms,
// explanation, optional interpretation, inputs, citation): what an MCP
// client is told as the tools' outputSchema.
Json CalculatorOutputSchema();

}  // namespace medreact

#endif  // MEDREACT_TOOLS_CALC_CALC_PACK_H_
