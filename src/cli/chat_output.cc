#include "cli/chat_output.h"

#include <iostream>

#include "cli/approval_flags.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/setting_flags.h"
#include "core/printable.h"

namespace medreact::cli {

int ReportChatResult(const RunResult& result, bool json, bool stored, const std::string& who) {
  const bool paused = result.status == RunStatus::kAwaitingApproval;
  if (json) {
    Json out{{"run_id", result.trace.run_id},   {"status", RunStatusName(result.status)},
             {"answer", result.answer},         {"steps", result.steps},
             {"tool_calls", result.tool_calls}, {"usage", ToJson(result.usage)}};
    if (!result.error.empty()) out["error"] = result.error;
    if (paused && result.paused) {
      Json waiting = Json::array();
      for (const ToolCall& call : result.paused->turn.tool_calls) {
        const auto& ids = result.paused->awaiting_approval;
        if (std::find(ids.begin(), ids.end(), call.id) == ids.end()) continue;
        waiting.push_back(Json{{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}});
      }
      out["awaiting_approval"] = std::move(waiting);
    }
    std::cout << Printable(DumpJson(out, 2)) << "\n";  // still JSON: what is escaped is in its strings
  } else {
    std::cout << Printable(result.answer) << "\n";  // the model's words: its lines kept, controls escaped
  }
  if (paused) {
    ReportPause(result, stored, std::cerr, who);
    return ExitCodeAfterInterrupt(kExitAwaitingApproval);
  }
  if (result.status != RunStatus::kFinished) {
    std::cerr << who << ": run ended with status '" << RunStatusName(result.status)
              << "': " << PrintableLine(WithFlagNames(result.error)) << "\n";
    return ExitCodeAfterInterrupt(kExitRunFailed);
  }
  return ExitCodeAfterInterrupt(kExitOk);
}

}  // namespace medreact::cli
