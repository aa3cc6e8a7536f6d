// The app table. See app_table.h.
#include "service/app_table.h"

namespace medreact::service {

const std::vector<AppRow>& AppTable() {
  static const std::vector<AppRow> table = {
      {.name = "chat",
       .summary = "the general agent (seed 004): any tool packs, any question",
       .resumable = true,
       .waits_for_approval = true},
      {.name = "triage",
       .summary = "CT triage over a FHIR record (seed 001): silent failures",
       .resumable = true},
      {.name = "extract",
       .summary = "a JSON Schema filled from a clinical note (seed 002)",
       .resumable = true},
      {.name = "cxr",
       .summary = "the chest X-ray agent on the graph runner (seed 000)",
       .resumable = true,
       .waits_for_approval = true},  // service/cxr_runs.h: checkpoints per graph node, images by hash
      {.name = "research",
       .summary = "multi-agent literature research (seed 003)",
       .resumable = true,
       .waits_for_approval = true},  // from the checkpoint after its last agent's turn; searches may wait (service/research_runs.h)
  };
  return table;
}

const AppRow* FindApp(const std::string& app) {
  for (const AppRow& row : AppTable()) {
    if (row.name == app) return &row;
  }
  return nullptr;
}

}  // namespace medreact::service
