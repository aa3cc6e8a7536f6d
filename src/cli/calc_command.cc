// `medreact calc`: the calculator pack from the command line, JSON out.
//   medreact calc list            every calculator: name, title, MedCalc id, inputs schema, citation
//   medreact calc NAME --args J   run one ({"value", "unit", "terms", "explanation", ...})
// NAME may also be a growth-pack tool (growth_zscore, percentile_to_zscore,
// zscore_to_percentile, interpret_zscore_malnutrition): same JSON in and out,
// arguments checked against the tool's schema as an agent's call would be.
// Exit 0 on a result; 2 on an unknown calculator or bad arguments (the error
// names the missing inputs or the bad unit).
#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "core/printable.h"
#include "medreact/json.h"
#include "medreact/tool_registry.h"
#include "tools/calc/calc_pack.h"
#include "tools/growth/growth_pack.h"

namespace medreact::cli {
namespace {

struct CalcFlags {
  std::string name;
  std::string args = "{}";
};

// A growth tool run through a registry, so its arguments are validated
// against its schema exactly as an agent's call is.
int RunGrowthTool(const std::string& name, const std::string& args) {
  ToolRegistry registry;
  if (Status s = RegisterGrowthPack(registry); !s.ok()) {
    std::cerr << "medreact calc: " << s.message() << "\n";
    return kExitRunFailed;
  }
  ToolResult result = registry.Execute(ToolCall{.id = "cli", .name = name, .arguments = args}, ToolContext{});
  if (!result.ok) {
    std::cerr << "medreact calc: " << result.error << "\n";
    return kExitBadInput;
  }
  Result<Json> parsed = ParseJson(result.content);
  std::cout << Printable(parsed.ok() ? DumpJson(*parsed, 2) : result.content) << "\n";
  return kExitOk;
}

int RunCalc(const CalcFlags& flags) {
  if (flags.name == "list") {
    Json list = Json::array();
    for (const calc::Calculator& c : calc::AllCalculators()) {
      Json item = {{"name", c.name}, {"title", c.title}, {"description", c.description},
                   {"parameters", calc::CalculatorSchema(c)}, {"citation", c.citation}};
      if (c.medcalc_id != 0) item["medcalc_id"] = c.medcalc_id;
      list.push_back(item);
    }
    std::cout << Printable(DumpJson(list, 2)) << "\n";
    return kExitOk;
  }
  const calc::Calculator* calculator = calc::FindCalculator(flags.name);
  if (calculator == nullptr) {
    const std::vector<std::string> growth = GrowthPackToolNames();
    if (std::find(growth.begin(), growth.end(), flags.name) != growth.end()) {
      return RunGrowthTool(flags.name, flags.args);
    }
    std::cerr << "medreact calc: no calculator named '" << flags.name << "' (see 'medreact calc list')\n";
    return kExitBadInput;
  }
  Result<Json> args = ParseJson(flags.args);
  if (!args.ok()) {
    std::cerr << "medreact calc: --args is not JSON: " << args.status().message() << "\n";
    return kExitBadInput;
  }
  Result<Json> result = calc::RunCalculator(*calculator, *args);
  if (!result.ok()) {
    std::cerr << "medreact calc: " << result.status().message() << "\n";
    return kExitBadInput;
  }
  std::cout << Printable(DumpJson(*result, 2)) << "\n";
  return kExitOk;
}

}  // namespace

void AddCalcCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<CalcFlags>();
  CLI::App* cmd = app.add_subcommand("calc", "clinical calculators: 'calc list', or 'calc NAME --args JSON'");
  cmd->add_option("name", flags->name, "'list' or a calculator name")->required();
  cmd->add_option("--args", flags->args, "the calculator's arguments as a JSON object");
  cmd->callback([flags, exit_code] { *exit_code = RunCalc(*flags); });
}

}  // namespace medreact::cli
