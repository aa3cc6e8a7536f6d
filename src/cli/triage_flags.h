// Flags shared by `medreact triage` and `medreact worklist`: the model flags,
// --planner, --no-agent and the run's limits, as the run service's
// TriageSettings.
#ifndef MEDREACT_CLI_TRIAGE_FLAGS_H_
#define MEDREACT_CLI_TRIAGE_FLAGS_H_

#include <functional>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "apps/triage/triage_app.h"
#include "cli/model_flags.h"
#include "service/triage_runs.h"

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

// The flags as the run service's triage settings (service/triage_runs.h).
service::TriageSettings TriageSettingsOf(const TriageFlags& flags);

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_TRIAGE_FLAGS_H_
