// MakeFunctionTool: the usual way to define a tool, from a spec and a plain
// function.
//
// The wrapper owns the spec and the callable and forwards Run() to it. It adds
// no locking: the function must itself be safe to call from several threads,
// as Tool::Run() requires. An empty function yields a tool that reports an
// error instead of crashing, so a wiring mistake surfaces as a readable
// observation rather than std::bad_function_call.
#include "medreact/tool.h"

#include <memory>
#include <string>
#include <utility>

namespace medreact {
namespace {

class FunctionTool final : public Tool {
 public:
  FunctionTool(ToolSpec spec, ToolFunction fn) : spec_(std::move(spec)), fn_(std::move(fn)) {}

  const ToolSpec& spec() const override { return spec_; }

  ToolResult Run(const Json& args, const ToolContext& ctx) override {
    if (!fn_) return ToolResult::Error("Tool '" + spec_.name + "' has no implementation.");
    return fn_(args, ctx);
  }

 private:
  const ToolSpec spec_;
  const ToolFunction fn_;
};

}  // namespace

std::unique_ptr<Tool> MakeFunctionTool(ToolSpec spec, ToolFunction fn) {
  return std::make_unique<FunctionTool>(std::move(spec), std::move(fn));
}

}  // namespace medreact
