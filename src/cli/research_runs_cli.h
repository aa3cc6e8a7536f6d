// `medreact research` and `medreact runs resume` of a research run: what the
// CLI prints and writes around a research the run service runs
// (service/research_runs.h): the progress lines and --events, the report on
// stdout or --report, --out and --trace, the exit code.
#ifndef MEDREACT_CLI_RESEARCH_RUNS_CLI_H_
#define MEDREACT_CLI_RESEARCH_RUNS_CLI_H_

#include <memory>
#include <string>

#include "cli/model_flags.h"
#include "service/research_runs.h"

namespace medreact::cli {

struct ResearchOutputs {
  std::string out_path;     // --out: the structured report and the run's facts (JSON)
  std::string report_path;  // --report: the report (markdown); "" = stdout
  std::string events_path;  // --events: the research events as JSON lines
  std::string trace_path;   // --trace: the research trace (JSON)
  bool quiet = false;       // no progress lines on stderr
  bool require_model = false;  // exit 1 when the rules planner stood in for the model
  std::string approval_prompt = "auto";  // --approval-prompt: who decides a search that waits
};

// Runs a prepared research (new or resumed) through the service, printing
// its events, then ReportResearchRun. The output paths were checked.
int RunPrintedResearch(service::RunService& runs, std::unique_ptr<service::PreparedResearch> prepared,
                       const ResearchOutputs& outputs, const std::string& who);

// `medreact runs resume` of a research run the service prepared to resume
// (RunService::PrepareResume: status, app, lease): rebuilt from its stored
// inputs and checkpoint (the model: `model`'s when it names a URL, else the
// stored one), run on, and reported as `medreact research` does, its --out
// and --report written again where the research stored them. `outputs`:
// the resume's --events and --trace.
int ResumeResearchRun(service::RunService& runs, const RunRecord& run, const ModelFlags& model,
                      const ResearchOutputs& outputs);

// The report and the files after a research, and the exit code: 0 the report
// agent wrote the report; 3 a search waits for approval (no report yet); 1 fallback synthesis, the rules planner standing in
// with `require_model`, or an output that could not be written; 2 the
// research could not be set up (nothing ran).
int ReportResearchRun(const service::ResearchRun& run, const ResearchOutputs& outputs, const std::string& who);

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_RESEARCH_RUNS_CLI_H_
