// medreact: the command-line entry point. Parses the command line, hands off
// to one command, and maps usage errors to exit code 2. Commands live in
// their own files (chat_command.cc, tools_command.cc, ...).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <string_view>
#include <utility>

#include <CLI/CLI.hpp>
#include "cli/commands.h"
#include "core/log.h"
#include "core/otel.h"
#include "medreact/json.h"
#include "store/run_recorder.h"

int main(int argc, char** argv) {
  // Logs go to stderr and never carry note text or patient identifiers
  // (core/log.h); MEDREACT_LOG_LEVEL=info shows runs, debug steps and calls.
  medreact::ConfigureLoggingFromEnvironment();

  CLI::App app{"medreact: clinical ReAct agents — a model reasons, calls tools, observes, answers."};
  app.set_version_flag("--version", std::string("medreact ") + MEDREACT_VERSION);
  app.require_subcommand(1);
  int exit_code = medreact::cli::kExitOk;
  // When the first argument names a command, only that command's flags are
  // built: building all of them (several hundred CLI11 options) takes about
  // as many instructions as the rest of `calc`'s start-up (docs/benchmarks.md,
  // "Start-up").
  // Anything else (--help, --version, a typo) gets them all, so the help and
  // the errors are as before.
  using AddCommand = void (*)(CLI::App&, int*);
  static constexpr std::pair<std::string_view, AddCommand> kCommands[] = {
      {"chat", medreact::cli::AddChatCommand},         {"tools", medreact::cli::AddToolsCommand},
      {"trace", medreact::cli::AddTraceCommand},       {"triage", medreact::cli::AddTriageCommand},
      {"worklist", medreact::cli::AddWorklistCommand}, {"calc", medreact::cli::AddCalcCommand},
      {"extract", medreact::cli::AddExtractCommand},   {"eval", medreact::cli::AddEvalCommand},
      {"research", medreact::cli::AddResearchCommand}, {"dicom", medreact::cli::AddDicomCommand},
      {"runs", medreact::cli::AddRunsCommand},         {"cxr", medreact::cli::AddCxrCommand},
      {"serve", medreact::cli::AddServeCommand},       {"mcp", medreact::cli::AddMcpCommand},
      {"worker", medreact::cli::AddWorkerCommand},
  };
  const std::string_view named = argc > 1 ? argv[1] : "";
  const auto only = std::find_if(std::begin(kCommands), std::end(kCommands),
                                 [&](const auto& command) { return command.first == named; });
  if (only != std::end(kCommands)) {
    only->second(app, &exit_code);
  } else {
    for (const auto& [name, add] : kCommands) add(app, &exit_code);
  }

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
  // A run whose store failed mid-run went on without its checkpoints (each
  // recorder said so once): its answer stands, its record is incomplete, and
  // the exit status says so, as for any output not written.
  if (medreact::RunRecorder::FailuresInProcess() > 0 && exit_code == medreact::cli::kExitOk) {
    std::cerr << "medreact: the run store failed during the run (above): its record of the run is incomplete\n";
    exit_code = medreact::cli::kExitRunFailed;
  }
  // Standard output is an output too (`> /dev/full`, a full disk, a closed
  // pipe's reader gone): an answer that was not written is no success.
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (!flushed || std::ferror(stdout) != 0 || !std::cout.good()) {
    std::cerr << "medreact: writing to standard output failed"
              << (err != 0 ? std::string(": ") + std::strerror(err) : std::string("; what it shows is incomplete"))
              << "\n";
    if (exit_code == medreact::cli::kExitOk) exit_code = medreact::cli::kExitRunFailed;
  }
  // Spans still queued go to the collector now, waiting at most 5 s
  // (core/otel.h; a no-op when tracing is off), before static destruction.
  medreact::otel::ShutdownTracing(medreact::Millis(5'000));
  return exit_code;
}
