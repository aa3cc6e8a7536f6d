#include "cli/triage_flags.h"

#include "apps/triage/triage_prompts.h"
#include "cli/flag_checks.h"

namespace medreact::cli {

void AddTriageFlags(CLI::App* command, TriageFlags* flags) {
  AddModelFlags(command, &flags->model);
  command->add_option("--planner", flags->planner,
                      "who investigates: model (the configured server), rules (the deterministic, cited "
                      "planner; no server needed) or auto (model when --llm-url/MEDREACT_LLM_URL is set)")
      ->check(CLI::IsMember({"auto", "model", "rules"}));
  command->add_flag("--no-agent", flags->no_agent, "skip the investigation: base priority only (static baseline)");
  command->add_option("--max-steps", flags->max_steps, "model turns per investigation")->check(CLI::Range(1, 100));
  command->add_option("--timeout", flags->timeout_s, "seconds for one investigation")->check(Seconds());
  command->add_option("--tool-timeout", flags->tool_timeout_s, "seconds for one tool call")
      ->check(Seconds());
  command->add_flag("--require-model", flags->require_model,
                    "exit 1 when the model never answered and the rules planner decided instead "
                    "(the result is still written, marked 'rules (fallback)')");
}

Result<TriageSetup> MakeTriageSetup(const TriageFlags& flags) {
  TriageSetup setup;
  setup.config.agent = !flags.no_agent;
  setup.config.max_steps = flags.max_steps;
  setup.config.timeout = SecondsToMillis(flags.timeout_s);
  setup.config.tool_timeout = SecondsToMillis(flags.tool_timeout_s);
  if (flags.no_agent) return setup;
  Result<std::string> provider = ResolveProvider(flags.planner, flags.model.protocol, HasModel(flags.model), true);
  if (!provider.ok()) return provider.status();
  if (*provider == "rules") return setup;  // TriageConfig without a model: the rules planner
  const AppModelParts parts;
  // Validate once, so a bad URL or protocol is bad usage, not a failure per case.
  if (auto probe = MakeModel(flags.model, parts); !probe.ok()) return probe.status();
  ModelFlags model_flags = flags.model;
  setup.make_model = [model_flags, parts] { return MakeModel(model_flags, parts); };
  return setup;
}

}  // namespace medreact::cli
