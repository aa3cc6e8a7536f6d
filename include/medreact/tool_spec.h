// ToolSpec: what a model is told about a tool (name, description, JSON-Schema
// parameters). A core type: the model layer sends specs, the engine runs the
// tools behind them, and neither needs the other's header for it.
//
// ToolSpecList: an immutable list of specs held by reference. A run offers the
// same list on every model call: copying it into each request copies a
// pointer, and a model client can keep what it derives from a list (the
// serialised tools of a request body) for as long as it sees the same list
// (SameAs), without comparing specs. Thread-safe: nothing in it changes.
#ifndef MEDREACT_TOOL_SPEC_H_
#define MEDREACT_TOOL_SPEC_H_

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "medreact/json.h"

namespace medreact {

struct ToolSpec {
  std::string name;         // ^[a-zA-Z0-9_-]{1,64}$ (OpenAI's rule)
  std::string description;  // for the model
  Json parameters = Json{{"type", "object"}, {"properties", Json::object()}};  // JSON Schema
  // Whether running a call twice does no harm (a lookup, a calculation).
  // Set false for a tool with side effects (it writes, sends, orders): a
  // call of it that was in flight when a run stopped (a crash, kill -9) is
  // not run again on resume; the model is told it was interrupted and may or
  // may not have taken effect (Agent::Resume). Not sent to the model.
  // Default: true
  bool idempotent = true;
};

class ToolSpecList {
 public:
  ToolSpecList() = default;
  // Implicit: a list is its specs (`request.tools = {spec};`).
  ToolSpecList(std::vector<ToolSpec> specs)  // NOLINT(google-explicit-constructor)
      : specs_(specs.empty() ? nullptr : std::make_shared<const std::vector<ToolSpec>>(std::move(specs))) {}
  ToolSpecList(std::initializer_list<ToolSpec> specs) : ToolSpecList(std::vector<ToolSpec>(specs)) {}

  const std::vector<ToolSpec>& specs() const { return specs_ ? *specs_ : Empty(); }
  operator const std::vector<ToolSpec>&() const { return specs(); }  // NOLINT(google-explicit-constructor)
  std::vector<ToolSpec>::const_iterator begin() const { return specs().begin(); }
  std::vector<ToolSpec>::const_iterator end() const { return specs().end(); }
  size_t size() const { return specs().size(); }
  bool empty() const { return specs().empty(); }
  const ToolSpec& operator[](size_t i) const { return specs()[i]; }

  // The same list, not merely equal specs: true for copies of one list (and
  // for two empty ones).
  bool SameAs(const ToolSpecList& other) const { return specs_ == other.specs_; }

 private:
  static const std::vector<ToolSpec>& Empty() {
    static const std::vector<ToolSpec> empty;
    return empty;
  }
  std::shared_ptr<const std::vector<ToolSpec>> specs_;
};

}  // namespace medreact

#endif  // MEDREACT_TOOL_SPEC_H_
