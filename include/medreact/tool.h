// Tool: what a model can call. A spec (name, description, JSON-Schema
// parameters) plus Run().
//
// The description is the model's instruction manual for the tool: say what it
// does, when to use it and what it returns. Run() receives arguments that have
// already been validated against spec().parameters by the ToolRegistry, and a
// ToolContext with the call's deadline and cancellation token; a long-running
// tool should check them. Run() must be safe to call concurrently from several
// threads (the agent runs one turn's calls in parallel). A tool reports failure
// with ToolResult::Error(text): that text is exactly what the model sees, so
// make it say what was wrong and what to do instead. Exceptions escaping Run()
// are caught by the registry and become error results.
#ifndef MEDREACT_TOOL_H_
#define MEDREACT_TOOL_H_

#include <functional>
#include <memory>
#include <string>

#include "medreact/cancel.h"
#include "medreact/json.h"
#include "medreact/tool_spec.h"

namespace medreact {

struct ToolResult {
  bool ok = true;
  std::string content;  // ok: what the model observes (JSON text preferred)
  std::string error;    // !ok: what the model observes, prefixed "Error: " on the wire

  static ToolResult Ok(std::string content) { return {true, std::move(content), {}}; }
  static ToolResult OkJson(const Json& value) { return {true, DumpJson(value), {}}; }
  static ToolResult Error(std::string message) { return {false, {}, std::move(message)}; }

  // The text placed in the tool message: content, or "Error: <error>".
  std::string ObservationText() const { return ok ? content : "Error: " + error; }
};

struct ToolContext {
  Deadline deadline = Deadline::Never();
  CancellationToken cancel;
  bool should_stop() const { return cancel.cancelled() || deadline.expired(); }
};

class Tool {
 public:
  virtual ~Tool() = default;
  virtual const ToolSpec& spec() const = 0;
  // REQUIRES: args validated against spec().parameters.
  virtual ToolResult Run(const Json& args, const ToolContext& ctx) = 0;
};

using ToolFunction = std::function<ToolResult(const Json& args, const ToolContext& ctx)>;

// A Tool from a spec and a function (the usual way to define one).
std::unique_ptr<Tool> MakeFunctionTool(ToolSpec spec, ToolFunction fn);

}  // namespace medreact

#endif  // MEDREACT_TOOL_H_
