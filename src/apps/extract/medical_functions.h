// call_medical_function (seed 002): one tool in front of the calc and growth
// packs, `{"function_name": <enum>, "parameters": {...}}`.
//
// Why one tool and not the packs' 59 tools directly: a model choosing among
// three tools (query_rag, call_medical_function, query_extras) is more
// reliable than among sixty-two, small models especially, and the prompt
// stays short (the catalogue is a line per function instead of a schema per
// function: ~4k tokens instead of ~25k). Nothing is lost: the parameters are
// validated against the named function's own schema, and a wrong call gets
// that schema back in the error, so the model can fix it in one turn.
//
// Thread-safe: the inner registry is immutable after construction.
#ifndef MEDREACT_APPS_EXTRACT_MEDICAL_FUNCTIONS_H_
#define MEDREACT_APPS_EXTRACT_MEDICAL_FUNCTIONS_H_

#include <memory>
#include <string>
#include <vector>

#include "medreact/status.h"
#include "medreact/tool_registry.h"

namespace medreact {

inline constexpr char kCallMedicalFunctionTool[] = "call_medical_function";

// The functions reachable through call_medical_function: the growth pack's
// tools first (the extraction tasks of seed 002 are mostly growth), then every
// calculator, each with its registry entry.
class MedicalFunctions {
 public:
  static Result<std::shared_ptr<const MedicalFunctions>> Create();

  std::vector<std::string> Names() const { return registry_.Names(); }
  const ToolRegistry& registry() const { return registry_; }

  // One line per function: "name(arg, arg?, ...) — what it does".
  std::string Catalogue() const;

 private:
  ToolRegistry registry_;
};

// Registers call_medical_function over `functions`.
Status RegisterCallMedicalFunction(ToolRegistry& registry, std::shared_ptr<const MedicalFunctions> functions);

}  // namespace medreact

#endif  // MEDREACT_APPS_EXTRACT_MEDICAL_FUNCTIONS_H_
