#include "cli/triage_flags.h"

#include <iostream>

#include "apps/triage/triage_prompts.h"
#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/interrupt.h"
#include "cli/setting_flags.h"

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

int ReportTriage(const service::TriageRan& ran, const RunReporter& reporter, bool require_model,
                 const std::string& who) {
  const TriageOutcome& outcome = ran.outcome;
  if (ran.stored && ran.status == "interrupted") {
    std::cerr << who << ": the run was interrupted; go on with it with 'medreact runs resume " << ran.run_id
              << "'\n";
  }
  if (outcome.fell_back) {
    std::cerr << who << ": the model never answered (" << outcome.model_failure
              << "); the rules planner decided instead\n";
  }
  const bool unfinished = outcome.agent_ran && outcome.status != RunStatus::kFinished;
  int exit_code = unfinished ? kExitRunFailed : kExitOk;
  if (outcome.fell_back && require_model) exit_code = kExitRunFailed;
  if (outcome.trace) {
    if (Status s = reporter.WriteTrace(*outcome.trace); !s.ok()) {
      std::cerr << who << ": " << WithFlagNames(s.message()) << "\n";
      exit_code = kExitRunFailed;
    }
  }
  const std::string text = DumpJson(outcome.result, 2) + "\n";
  if (Status s = reporter.WriteResult(text); !s.ok()) {
    std::cerr << who << ": " << WithFlagNames(s.message()) << "\n";
    exit_code = kExitRunFailed;
  }
  std::cout << text;
  if (unfinished) {
    std::cerr << who << ": the investigation ended with status '" << RunStatusName(outcome.status)
              << "'; the result uses what it found\n";
  }
  return ExitCodeAfterInterrupt(exit_code);
}

}  // namespace medreact::cli
