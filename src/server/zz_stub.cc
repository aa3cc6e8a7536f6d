#include "server/api_state.h"
namespace medreact::server {
void StartRun(ApiState&, const std::shared_ptr<Exchange>& ex) { ex->Respond({.status = 501}); }
void ContinueOnPool(ApiState&, const RunRecord&) {}
std::vector<std::string> Api::TakeOverOrphans() { return {}; }
void Api::StopRuns(double) {}
std::string RenderMetrics(ApiState& s) { return s.metrics.Render(); }
}
