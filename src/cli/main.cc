// medreact: the command-line entry point. Parses the command line, hands off
// to one command, and maps usage errors to exit code 2. Commands live in
// their own files (chat_command.cc, tools_command.cc, ...).
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>
#include "cli/commands.h"
#include "core/log.h"
#include "medreact/json.h"

int main(int argc, char** argv) {
  // Logs go to stderr and never carry note text or patient identifiers
  // (core/log.h); MEDREACT_LOG_LEVEL=info shows runs, debug steps and calls.
  medreact::ConfigureLoggingFromEnvironment();

  CLI::App app{"medreact: clinical ReAct agents — a model reasons, calls tools, observes, answers."};
  app.set_version_flag("--version", std::string("medreact ") + MEDREACT_VERSION);
  app.require_subcommand(1);
  int exit_code = medreact::cli::kExitOk;
  medreact::cli::AddChatCommand(app, &exit_code);
  medreact::cli::AddToolsCommand(app, &exit_code);
  medreact::cli::AddTraceCommand(app, &exit_code);
  medreact::cli::AddTriageCommand(app, &exit_code);
  medreact::cli::AddWorklistCommand(app, &exit_code);
  medreact::cli::AddCalcCommand(app, &exit_code);
  medreact::cli::AddExtractCommand(app, &exit_code);
  medreact::cli::AddEvalCommand(app, &exit_code);
  medreact::cli::AddResearchCommand(app, &exit_code);
  medreact::cli::AddDicomCommand(app, &exit_code);
  medreact::cli::AddRunsCommand(app, &exit_code);
  medreact::cli::AddCxrCommand(app, &exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();  // the selected subcommand's help, if any
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    std::cout << app.version() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "medreact: " << e.what() << "\nRun 'medreact --help' for usage.\n";
    return medreact::cli::kExitBadInput;
  } catch (const std::exception& e) {
    // Every known failure is a value with its own message; reaching this is a
    // bug. Say so plainly rather than abort without a word.
    std::cerr << "medreact: internal error (please report it): " << medreact::Preview(e.what(), 300) << "\n";
    return medreact::cli::kExitRunFailed;
  }
  return exit_code;
}
