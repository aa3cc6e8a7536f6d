// ToolRegistry: the tools an agent may call, and the one place a ToolCall
// becomes a ToolResult.
//
// Execute() never throws and always returns a result: an unknown tool, arguments
// that are not JSON or fail the tool's JSON Schema (valijson), an exception from
// the tool, or a cancelled/expired context each become an error result whose
// text tells the model what went wrong. Register() during setup; after that the
// registry is read-only and Execute() is thread-safe.
#ifndef MEDREACT_TOOL_REGISTRY_H_
#define MEDREACT_TOOL_REGISTRY_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "medreact/message.h"
#include "medreact/status.h"
#include "medreact/tool.h"

namespace medreact {

class ToolRegistry {
 public:
  ToolRegistry();
  ~ToolRegistry();
  ToolRegistry(const ToolRegistry&) = delete;
  ToolRegistry& operator=(const ToolRegistry&) = delete;

  // Fails on an invalid name, a duplicate name, or a parameters schema that is
  // not a valid JSON Schema object.
  Status Register(std::unique_ptr<Tool> tool);

  const Tool* Find(const std::string& name) const;
  bool empty() const { return order_.empty(); }
  size_t size() const { return order_.size(); }
  std::vector<ToolSpec> Specs() const;        // registration order
  // The same specs as one shared list, built once and kept until the next
  // Register(): what an agent offers on every model call.
  ToolSpecList SharedSpecs() const;
  std::vector<std::string> Names() const;     // registration order

  // Validates `arguments` (JSON text) against the tool's schema. On success
  // returns the parsed arguments; on failure a message listing each violation
  // with its JSON pointer, ready to show the model.
  Result<Json> ValidateArguments(const std::string& tool_name, const std::string& arguments) const;

  // Parses and validates the call's arguments, then runs the tool.
  ToolResult Execute(const ToolCall& call, const ToolContext& ctx) const;

 private:
  struct Entry;
  std::map<std::string, std::unique_ptr<Entry>> tools_;
  std::vector<std::string> order_;
  mutable std::mutex specs_mu_;
  mutable ToolSpecList shared_specs_;  // empty until SharedSpecs() builds it
};

}  // namespace medreact

#endif  // MEDREACT_TOOL_REGISTRY_H_
