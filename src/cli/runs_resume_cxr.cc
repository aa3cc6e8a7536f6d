// A stored cxr run resumed from its last checkpoint. See runs_resume_cxr.h.
#include "cli/runs_resume_cxr.h"

#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/approval_flags.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/setting_flags.h"
#include "core/file_io.h"
#include "core/printable.h"
#include "service/cxr_runs.h"
#include "tools/imaging/imaging_pack.h"

namespace medreact::cli {
namespace {

constexpr char kWho[] = "medreact runs";

int Fail(const std::string& message) {
  std::cerr << kWho << ": " << WithFlagNames(message) << "\n";
  return kExitBadInput;
}

}  // namespace

int ResumeCxrRun(service::RunService& runs, const RunRecord& run, const ModelFlags& model, const RunOutputs& outputs,
                 const std::string& approval_prompt) {
  if (Status s = RunReporter::CheckPaths(outputs); !s.ok()) return Fail(s.message());
  const service::ResumeSpec spec{.model = HasModel(model) ? ModelSettingsOf(model)
                                                          : service::ModelSettings{.api_key = model.api_key},
                                 .stream = outputs.stream};
  const char* vision_key = std::getenv("MEDREACT_CXR_VISION_API_KEY");
  // Every check (inputs, checkpoint, images by hash, toolbox, model) before any work.
  Result<std::unique_ptr<service::PreparedCxrResume>> prepared =
      service::PrepareCxrResume(runs, run, spec, vision_key ? vision_key : "");
  if (!prepared.ok()) return Fail(prepared.status().message());
  const std::string out_path = (*prepared)->settings.out_path;
  auto tools = std::make_shared<ToolRegistry>();
  (void)imaging::RegisterImagingPack(*tools, (*prepared)->config.tools);
  const bool asks = static_cast<bool>((*prepared)->config.needs_approval);
  // Last: the event log is created only once nothing can be refused any more.
  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
  if (!reporter.ok()) return Fail(reporter.status().message());
  service::CxrRunOutcome resumed = service::RunCxrResume(
      runs, std::move(*prepared),
      {.on_event = (*reporter)->sink(),
       .cancel = InstallInterruptHandlers(),
       .approve = asks ? TerminalApprover(approval_prompt, tools, std::cin, std::cerr) : nullptr,
       .warn = [](const std::string& w) { std::cerr << kWho << ": " << PrintableLine(WithFlagNames(w)) << "\n"; }});
  const CxrOutcome& outcome = resumed.outcome;
  if (resumed.status == "awaiting_approval") {
    RunResult paused;
    paused.error = outcome.error;
    paused.trace.run_id = run.id;
    ReportPause(paused, /*stored=*/true, std::cerr, kWho);
    return kExitAwaitingApproval;
  }
  std::cout << Printable(outcome.answer) << "\n" << std::flush;
  if (resumed.status == "interrupted") {
    std::cerr << kWho << ": the run was interrupted; go on with it with 'medreact runs resume " << run.id << "'\n";
  }
  int exit_code = outcome.status == RunStatus::kFinished ? kExitOk : kExitRunFailed;
  if (outcome.status != RunStatus::kFinished) {
    std::cerr << kWho << ": run ended with status '" << RunStatusName(outcome.status)
              << "': " << PrintableLine(outcome.error)
              << "\n";
  }
  if (Status s = (*reporter)->WriteTrace(outcome.trace); !s.ok()) {
    std::cerr << kWho << ": " << s.message() << "\n";
    exit_code = kExitRunFailed;
  }
  if (!out_path.empty()) {  // where `medreact cxr --out` would have written it
    if (Status s = WriteFileAtomic(out_path, DumpJson(outcome.result, 2) + "\n"); !s.ok()) {
      std::cerr << kWho << ": " << s.message() << "\n";
      exit_code = kExitRunFailed;
    }
  }
  return ExitCodeAfterInterrupt(exit_code);
}

}  // namespace medreact::cli
