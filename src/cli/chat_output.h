// What `medreact chat` and the `runs` commands that go on with a chat run
// (resume, approve, reject) print when the run stops, in one place.
#ifndef MEDREACT_CLI_CHAT_OUTPUT_H_
#define MEDREACT_CLI_CHAT_OUTPUT_H_

#include <string>

#include "medreact/agent.h"

namespace medreact::cli {

// Prints the answer on stdout, or with `json` the result object (run_id,
// status, answer, steps, tool_calls, usage, error; for a paused run the
// waiting calls under "awaiting_approval"). Returns the exit code: 0
// finished, 3 paused for approval (ReportPause on stderr), 1 otherwise (the
// status and why on stderr). `stored`: the run is in a run store.
int ReportChatResult(const RunResult& result, bool json, bool stored, const std::string& who);

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_CHAT_OUTPUT_H_
