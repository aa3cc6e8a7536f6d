// The CLI's commands. Each Add*Command registers a CLI11 subcommand whose
// callback stores the process exit code (ARCHITECTURE.md: 0 the run finished;
// 1 the run ended on a limit or error, its trace and result still written;
// 2 bad usage or bad input, message on stderr, nothing written; 3 the run
// paused before a tool call that needs a person's approval, its state kept
// in the run store for `medreact runs approve|reject`).
#ifndef MEDREACT_CLI_COMMANDS_H_
#define MEDREACT_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>

namespace medreact::cli {

constexpr int kExitOk = 0;
constexpr int kExitRunFailed = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitAwaitingApproval = 3;

void AddChatCommand(CLI::App& app, int* exit_code);
void AddToolsCommand(CLI::App& app, int* exit_code);
void AddTraceCommand(CLI::App& app, int* exit_code);
void AddTriageCommand(CLI::App& app, int* exit_code);
void AddWorklistCommand(CLI::App& app, int* exit_code);
void AddWorkerCommand(CLI::App& app, int* exit_code);
void AddCalcCommand(CLI::App& app, int* exit_code);
void AddExtractCommand(CLI::App& app, int* exit_code);
void AddEvalCommand(CLI::App& app, int* exit_code);
void AddResearchCommand(CLI::App& app, int* exit_code);
void AddDicomCommand(CLI::App& app, int* exit_code);
void AddRunsCommand(CLI::App& app, int* exit_code);
void AddCxrCommand(CLI::App& app, int* exit_code);
void AddServeCommand(CLI::App& app, int* exit_code);
void AddMcpCommand(CLI::App& app, int* exit_code);

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_COMMANDS_H_
