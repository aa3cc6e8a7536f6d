#include "apps/extract/medical_functions.h"

#include <utility>

#include "medreact/tool.h"
#include "tools/calc/calc_pack.h"
#include "tools/growth/growth_pack.h"

namespace medreact {
namespace {

// The first sentence of a description, for the one-line catalogue.
std::string FirstSentence(const std::string& text, size_t max_chars = 110) {
  size_t end = text.find(". ");
  std::string first = end == std::string::npos ? text : text.substr(0, end + 1);
  if (first.size() > max_chars) first = first.substr(0, max_chars - 3) + "...";
  return first;
}

// "a, b?, c?" from a parameters schema: required names plain, optional with '?'.
std::string ArgumentList(const Json& parameters) {
  std::string out;
  const Json required = parameters.value("required", Json::array());
  auto is_required = [&](const std::string& name) {
    for (const Json& r : required) {
      if (r == name) return true;
    }
    return false;
  };
  const Json properties = parameters.value("properties", Json::object());
  for (const auto& [name, unused] : properties.items()) {
    if (!out.empty()) out += ", ";
    out += name + (is_required(name) ? "" : "?");
  }
  return out;
}

constexpr const char* kDescriptionHead =
    "Runs a medical calculation: growth z-scores and percentiles (CDC 2000, WHO 2006/2007), z-score <-> percentile "
    "conversion, malnutrition bands for a z-score, and clinical calculators (BMI, body surface area, eGFR, scores). "
    "Call it for every number you report that is derived from the note (never compute z-scores or percentiles "
    "yourself); call it again for each measurement of serial data. Arguments: function_name (one of the list) and "
    "parameters (that function's arguments; '?' marks optional ones; measurements are numbers in the unit the "
    "function names, or {\"value\": x, \"unit\": \"lb\"}). Example: {\"function_name\": \"percentile_to_zscore\", "
    "\"parameters\": {\"percentile\": 3}}. A wrong call returns the function's full parameter schema. Functions:\n";

}  // namespace

Result<std::shared_ptr<const MedicalFunctions>> MedicalFunctions::Create() {
  auto functions = std::make_shared<MedicalFunctions>();
  if (Status s = RegisterGrowthPack(functions->registry_); !s.ok()) return s;
  if (Status s = RegisterCalcPack(functions->registry_); !s.ok()) return s;
  return std::shared_ptr<const MedicalFunctions>(std::move(functions));
}

std::string MedicalFunctions::Catalogue() const {
  std::string out;
  for (const ToolSpec& spec : registry_.Specs()) {
    out += "- " + spec.name + "(" + ArgumentList(spec.parameters) + "): " + FirstSentence(spec.description) + "\n";
  }
  return out;
}

Status RegisterCallMedicalFunction(ToolRegistry& registry, std::shared_ptr<const MedicalFunctions> functions) {
  if (!functions) return Status::InvalidArgument("call_medical_function needs its functions");
  ToolSpec spec;
  spec.name = kCallMedicalFunctionTool;
  spec.description = kDescriptionHead + functions->Catalogue();
  spec.parameters = {
      {"type", "object"},
      {"properties",
       {{"function_name",
         {{"type", "string"}, {"enum", functions->Names()}, {"description", "Name of the function to call."}}},
        {"parameters",
         {{"type", "object"}, {"description", "The function's arguments as key-value pairs."}}}}},
      {"required", {"function_name", "parameters"}},
      {"additionalProperties", false}};
  return registry.Register(MakeFunctionTool(
      std::move(spec), [functions = std::move(functions)](const Json& args, const ToolContext& ctx) {
        const std::string name = args.at("function_name").get<std::string>();
        ToolResult result = functions->registry().Execute(
            ToolCall{.id = "inner", .name = name, .arguments = DumpJson(args.at("parameters"))}, ctx);
        if (result.ok) return result;
        const Tool* tool = functions->registry().Find(name);
        std::string schema = tool ? DumpJson(tool->spec().parameters) : "{}";
        if (schema.size() > 3000) schema = schema.substr(0, 3000) + "...";
        return ToolResult::Error(name + ": " + result.error + " Parameters of " + name + ": " + schema);
      }));
}

}  // namespace medreact
