// Flags shared by `medreact triage` and `medreact worklist`: the model flags,
// --planner, --no-agent and the run's limits, turned into a TriageConfig and
// a model factory (one model per worker).
#ifndef MEDREACT_CLI_TRIAGE_FLAGS_H_
#define MEDREACT_CLI_TRIAGE_FLAGS_H_

#include <functional>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "apps/triage/triage_app.h"
#include "cli/model_flags.h"

namespace medreact::cli {

struct TriageFlags {
  ModelFlags model;
  std::string planner = "auto";  // auto: the model when one is configured, else rules
  bool no_agent = false;
  int max_steps = 10;
  double timeout_s = 300;
  double tool_timeout_s = 30;
  bool require_model = false;  // a rules fallback is a failure (exit 1), not a silent success
};

void AddTriageFlags(CLI::App* command, TriageFlags* flags);

struct TriageSetup {
  TriageConfig config;  // model unset
  // Builds a model from the flags; null when the rules planner (or no agent) is used.
  std::function<Result<std::shared_ptr<ChatModel>>()> make_model;
};

// InvalidArgument for --planner model without a URL, or a bad URL/protocol.
Result<TriageSetup> MakeTriageSetup(const TriageFlags& flags);

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_TRIAGE_FLAGS_H_
