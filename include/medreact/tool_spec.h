// ToolSpec: what a model is told about a tool (name, description, JSON-Schema
// parameters). A core type: the model layer sends specs, the engine runs the
// tools behind them, and neither needs the other's header for it.
#ifndef MEDREACT_TOOL_SPEC_H_
#define MEDREACT_TOOL_SPEC_H_

#include <string>

#include "medreact/json.h"

namespace medreact {

struct ToolSpec {
  std::string name;         // ^[a-zA-Z0-9_-]{1,64}$ (OpenAI's rule)
  std::string description;  // for the model
  Json parameters = Json{{"type", "object"}, {"properties", Json::object()}};  // JSON Schema
};

}  // namespace medreact

#endif  // MEDREACT_TOOL_SPEC_H_
