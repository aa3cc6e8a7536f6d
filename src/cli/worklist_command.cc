// `medreact worklist DIR`: triage every case folder of DIR concurrently, write
// one result (and trace) per case plus worklist.json sorted by final
// priority, and print a table. Progress goes to stderr: one updating line on
// a terminal, one line per case otherwise; it names cases, never record content.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "apps/triage/worklist.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/triage_flags.h"

namespace medreact::cli {
namespace {

struct WorklistFlags {
  TriageFlags triage;
  std::string dir;
  int concurrency = 4;
  std::string out_dir = "worklist-results";
  bool json = false;
  bool quiet = false;
};

int RunWorklistCommand(const WorklistFlags& flags) {
  Result<std::vector<std::string>> cases = ListWorklistCases(flags.dir, flags.out_dir);
  if (!cases.ok()) {
    std::cerr << "medreact worklist: " << cases.status().message() << "\n";
    return kExitBadInput;
  }
  Result<TriageSetup> setup = MakeTriageSetup(flags.triage);
  if (!setup.ok()) {
    std::cerr << "medreact worklist: " << setup.status().message() << "\n";
    return kExitBadInput;
  }
  if (!flags.out_dir.empty()) {  // checked before any case runs
    struct stat st {};
    if (::stat(flags.out_dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
      std::cerr << "medreact worklist: --out '" << flags.out_dir << "' exists and is not a folder\n";
      return kExitBadInput;
    }
    std::error_code ec;
    std::filesystem::create_directories(flags.out_dir, ec);
    if (ec || ::access(flags.out_dir.c_str(), W_OK) != 0) {
      std::cerr << "medreact worklist: cannot write to --out '" << flags.out_dir << "'"
                << (ec ? ": " + ec.message() : "") << "\n";
      return kExitBadInput;
    }
  }
  WorklistOptions options;
  options.concurrency = flags.concurrency;
  options.make_model = setup->make_model;
  options.triage = setup->config;
  options.triage.cancel = InstallInterruptHandlers();
  options.out_dir = flags.out_dir;
  const bool terminal = isatty(STDERR_FILENO) != 0;
  if (!flags.quiet) {
    options.on_case_done = [terminal](const WorklistCaseResult& c, size_t done, size_t total) {
      std::string what = c.ok ? "priority " + std::to_string(c.result.value("priority_level", 0)) : "FAILED";
      if (c.fell_back) what += " (rules fallback)";
      const std::string line =
          "[" + std::to_string(done) + "/" + std::to_string(total) + "] " + c.name + ": " + what;
      if (terminal) {
        std::cerr << "\r\033[K" << line << (done == total ? "\n" : "") << std::flush;
      } else {
        std::cerr << line << "\n";
      }
    };
  }

  WorklistReport report = RunWorklist(flags.dir, *cases, options);
  if (flags.json) {
    std::cout << DumpJson(WorklistJson(report), 2) << "\n";
  } else {
    std::cout << "Worklist " << flags.dir << ": " << report.cases.size() << " cases, "
              << report.cases.size() - report.failed << " triaged, " << report.failed << " failed; planner "
              << report.planner << "; " << static_cast<long long>(report.elapsed_ms) << " ms\n\n"
              << RenderWorklistTable(report);
    if (!flags.out_dir.empty() && report.write_error.empty()) {
      std::cout << "\nResults: " << flags.out_dir << "/worklist.json (and one <case>.json per case)\n";
    }
  }
  int exit_code = kExitOk;
  if (!report.write_error.empty()) {
    std::cerr << "medreact worklist: " << report.write_error << "\n";
    exit_code = kExitRunFailed;
  }
  if (report.failed > 0 || report.not_finished > 0) {
    std::cerr << "medreact worklist: " << report.failed << " case(s) failed, " << report.not_finished
              << " investigation(s) ended on a limit or error\n";
    exit_code = kExitRunFailed;
  }
  size_t fell_back = 0;
  for (const WorklistCaseResult& c : report.cases) fell_back += c.ok && c.fell_back;
  if (fell_back > 0 && flags.triage.require_model) {
    std::cerr << "medreact worklist: the model never answered for " << fell_back
              << " case(s); the rules planner decided them (--require-model)\n";
    exit_code = kExitRunFailed;
  }
  return ExitCodeAfterInterrupt(exit_code);
}

}  // namespace

void AddWorklistCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<WorklistFlags>();
  CLI::App* cmd = app.add_subcommand(
      "worklist", "triage every case folder (fhir.json + findings.txt [+ case.json]) of DIR, sorted by priority");
  AddTriageFlags(cmd, &flags->triage);
  cmd->add_option("dir", flags->dir, "the worklist directory: one sub-folder per case")->required();
  cmd->add_option("--concurrency", flags->concurrency, "cases triaged at once")->check(CLI::Range(1, 64));
  cmd->add_option("--out", flags->out_dir, "where results go (created; default ./worklist-results)");
  cmd->add_flag("--json", flags->json, "print worklist.json instead of the table");
  cmd->add_flag("-q,--quiet", flags->quiet, "no progress on stderr");
  cmd->callback([flags, exit_code] { *exit_code = RunWorklistCommand(*flags); });
}

}  // namespace medreact::cli
