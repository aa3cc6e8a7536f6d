// Runs as JSON, the same for every front end: `medreact runs list|show
// --json` and the server's /v1/runs routes.
#ifndef MEDREACT_SERVICE_RUN_JSON_H_
#define MEDREACT_SERVICE_RUN_JSON_H_

#include "medreact/json.h"
#include "service/run_service.h"
#include "store/run_store.h"

namespace medreact::service {

// {"id", "app", "status", "steps", "checkpoints", "created_at",
// "updated_at", "model", "inputs", "result", "events", "lease"?: {"owner",
// "holder", "until"}}; without the inputs when `brief` (a list).
Json RunRecordJson(const RunRecord& run, bool brief = false);
// A run shown: {"run", "steps": [...], "awaiting_approval"?: [{"id", "name", "arguments"}]}.
Json RunViewJson(const RunView& view);

}  // namespace medreact::service

#endif  // MEDREACT_SERVICE_RUN_JSON_H_
