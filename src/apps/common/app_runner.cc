#include "apps/common/app_runner.h"

#include <utility>

#include "core/file_io.h"
#include "core/printable.h"
#include "medreact/json.h"

namespace medreact {

Status RunReporter::CheckPaths(const RunOutputs& outputs) {
  if (!outputs.trace_path.empty()) {
    if (Status s = CheckOutputPath(outputs.trace_path, "trace (trace_path)"); !s.ok()) return s;
  }
  if (!outputs.result_path.empty()) {
    if (Status s = CheckOutputPath(outputs.result_path, "result (result_path)"); !s.ok()) return s;
  }
  if (!outputs.events_path.empty()) {
    if (Status s = CheckOutputPath(outputs.events_path, "event log (events_path)"); !s.ok()) return s;
  }
  return Status::OK();
}

Result<std::unique_ptr<RunReporter>> RunReporter::Open(RunOutputs outputs, std::ostream& progress) {
  if (Status s = CheckPaths(outputs); !s.ok()) return s;
  std::unique_ptr<LineLog> events;
  if (!outputs.events_path.empty()) {
    Result<std::unique_ptr<LineLog>> log = LineLog::Open(outputs.events_path, "event log (events_path)");
    if (!log.ok()) return log.status();
    events = std::move(*log);
  }
  return std::unique_ptr<RunReporter>(new RunReporter(std::move(outputs), progress, std::move(events)));
}

RunReporter::RunReporter(RunOutputs outputs, std::ostream& progress, std::unique_ptr<LineLog> events)
    : outputs_(std::move(outputs)), progress_(progress), events_(std::move(events)) {}

RunReporter::~RunReporter() = default;

Status RunReporter::EventsStatus() const { return events_ ? events_->status() : Status::OK(); }

EventSink RunReporter::sink() {
  if (!events_ && !outputs_.verbose && !outputs_.stream) return {};
  return [this](const Event& e) { OnEvent(e); };
}

void RunReporter::OnEvent(const Event& e) {
  std::lock_guard<std::mutex> lock(mu_);  // a worklist's runs share one reporter
  if (events_) events_->Write(DumpJson(ToJson(e)));
  if (outputs_.stream && e.type == EventType::kModelDelta) progress_ << Printable(e.text) << std::flush;
  if (outputs_.stream && e.type == EventType::kAssistantMessage && !e.text.empty()) progress_ << "\n";
  if (!outputs_.verbose) return;
  switch (e.type) {  // names and timings only: no message, record or tool content
    case EventType::kToolFinished:
      progress_ << "[step " << e.step << "] " << PrintableLine(e.tool_name) << (e.ok ? " ok " : " error ")
                << static_cast<long long>(e.elapsed_ms) << " ms\n";
      break;
    case EventType::kStepFinished:
      progress_ << "[step " << e.step << "] done in " << static_cast<long long>(e.elapsed_ms) << " ms\n";
      break;
    case EventType::kError:
      progress_ << "[step " << e.step << "] model error\n";
      break;
    default:
      break;
  }
}

Status RunReporter::WriteTrace(const RunTrace& trace) const {
  if (!outputs_.trace_path.empty()) {
    if (Status s = WriteTraceFile(trace, outputs_.trace_path); !s.ok()) return s;
  }
  return EventsStatus();
}

Status RunReporter::WriteResult(const std::string& text) const {
  return outputs_.result_path.empty() ? Status::OK() : WriteTextFile(text, outputs_.result_path);
}

FallbackOutcome RunWithFallback(const std::shared_ptr<ChatModel>& model,
                                const std::function<std::shared_ptr<ChatModel>()>& make_planner, bool allow_fallback,
                                const CancellationToken& cancel,
                                const std::function<std::optional<std::string>(std::shared_ptr<ChatModel>)>& attempt) {
  FallbackOutcome out;
  out.planner = model ? "model" : "rules";
  std::optional<std::string> never_answered = attempt(model ? model : make_planner());
  if (model && never_answered && allow_fallback && !cancel.cancelled()) {
    out.fell_back = true;
    out.model_failure = *never_answered;
    out.planner = "rules (fallback)";
    attempt(make_planner());
  }
  return out;
}

}  // namespace medreact
