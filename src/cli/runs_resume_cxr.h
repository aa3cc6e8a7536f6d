// `medreact runs resume|approve|reject RUN_ID` for a stored `cxr` run (issue
// 22): the run service rebuilds it (service/cxr_runs.h: its settings from the
// stored inputs, its images from the run folder by hash, its model) and goes
// on from its last checkpoint into the same run id; this prints the answer
// as `medreact cxr` does, writes the result JSON to the run's stored --out
// path (when it had one) and the trace to --trace. Exit codes as `cxr`: 0
// answered, 1 ended on a limit or error, 2 bad usage (a kept image missing
// or changed, named), 3 paused for approval again.
#ifndef MEDREACT_CLI_RUNS_RESUME_CXR_H_
#define MEDREACT_CLI_RUNS_RESUME_CXR_H_

#include <string>

#include "apps/common/app_runner.h"
#include "cli/model_flags.h"
#include "service/run_service.h"
#include "store/run_store.h"

namespace medreact::cli {

// `run`: a stored cxr run whose lease this process holds (PrepareResume, or
// Decide with every call decided). `model`: the resume's model flags (a URL
// replaces the stored model); the vision model's key comes from
// MEDREACT_CXR_VISION_API_KEY. `approval_prompt`: --approval-prompt.
int ResumeCxrRun(service::RunService& runs, const RunRecord& run, const ModelFlags& model, const RunOutputs& outputs,
                 const std::string& approval_prompt);

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_RUNS_RESUME_CXR_H_
