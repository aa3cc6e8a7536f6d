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

service::TriageSettings TriageSettingsOf(const TriageFlags& flags) {
  return {.planner = flags.planner,
          .agent = !flags.no_agent,
          .max_steps = flags.max_steps,
          .timeout_s = flags.timeout_s,
          .tool_timeout_s = flags.tool_timeout_s,
          .model = ModelSettingsOf(flags.model)};
}

}  // namespace medreact::cli
