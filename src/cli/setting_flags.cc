#include "cli/setting_flags.h"

namespace medreact::cli {

const std::vector<SettingFlag>& SettingFlags() {
  static const std::vector<SettingFlag> kTable = {
      // Model (model_flags.cc).
      {"llm_url", "--llm-url or MEDREACT_LLM_URL"},
      {"provider", "--provider or MEDREACT_LLM_PROVIDER"},
      {"protocol", "--protocol"},
      {"context_size", "--context-size"},
      {"planner", "--planner"},
      // medreact serve (serve_command.cc).
      {"token_file", "--token-file"},
      {"network_tools", "--network-tools"},
      {"mcp_packs", "--mcp-packs"},
      {"input_root", "--input-root"},
      {"max_concurrent_runs", "--max-runs"},
      {"max_body_bytes", "--max-body-mb"},
      {"per_second", "--rate"},
      {"burst", "--burst"},
      // Run store (store_flags.cc).
      {"store", "--store"},
      // Approval decisions (runs approve/reject).
      {"arguments", "--args"},
      {"call_id", "--call"},
      // Triage and worklist (triage_command.cc, worklist_command.cc).
      {"findings", "--findings or --findings-file"},
      {"base_priority", "--base-priority"},
      {"as_of", "--as-of"},
      {"max_steps", "--max-steps"},
      {"timeout", "--timeout"},
      {"tool_timeout", "--tool-timeout"},
      {"out_dir", "--out"},
      {"concurrency", "--concurrency"},
      // Extraction (extract_command.cc).
      {"note_path", "--note"},
      {"schema_path", "--schema"},
      // Output files (every app's RunOutputs).
      {"trace_path", "--trace"},
      {"result_path", "--out"},
      {"events_path", "--events"},
      // Tool packs' inputs (chat, extract).
      {"fhir_path", "--fhir"},
      {"fhir_url", "--fhir-url"},
      {"patient_id", "--patient"},
      {"fhir_client_id", "--fhir-client-id"},
      {"fhir_private_key", "--fhir-private-key"},
      {"fhir_token_url", "--fhir-token-url"},
      {"mcp_command", "--mcp"},
      {"mcp_token_env", "--mcp-token-env"},
      {"corpus_dir", "--corpus"},
      {"extras_path", "--extras"},
      {"rag_db", "--rag-db"},
      {"online", "--online"},
      // Research (research_command.cc).
      {"sources", "--sources"},
      {"max_rounds", "--max-rounds"},
      {"timeout_s", "--timeout"},
      {"token_budget", "--token-budget"},
      {"results", "--results"},
      {"replay_path", "--replay"},
      {"cache_path", "--cache"},
      {"memory_path", "--memory"},
      // The imaging pack's endpoints and vision model (cxr).
      {"classifier_url", "--classifier-url or MEDREACT_CXR_CLASSIFIER_URL"},
      {"segmentation_url", "--segmentation-url or MEDREACT_CXR_SEGMENTATION_URL"},
      {"grounding_url", "--grounding-url or MEDREACT_CXR_GROUNDING_URL"},
      {"vision_url", "--vision-url or MEDREACT_CXR_VISION_URL"},
      {"vision_model", "--vision-model or MEDREACT_CXR_VISION_MODEL"},
      {"image_dir", "--image-dir"},
  };
  return kTable;
}

std::string WithFlagNames(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  size_t i = 0;
  while (i < message.size()) {
    const size_t open = message.find('(', i);
    if (open == std::string_view::npos) break;
    const size_t close = message.find(')', open + 1);
    if (close == std::string_view::npos) break;
    const std::string_view inside = message.substr(open + 1, close - open - 1);
    out.append(message.substr(i, open + 1 - i));
    i = open + 1;
    for (const SettingFlag& row : SettingFlags()) {
      if (inside == row.setting) {
        out.append(row.flag);
        i = close;
        break;
      }
    }
  }
  out.append(message.substr(i));
  return out;
}

Status WithFlagNames(const Status& status) {
  if (status.ok()) return status;
  std::string message = WithFlagNames(status.message());
  switch (status.code()) {
    case StatusCode::kOk: break;
    case StatusCode::kInvalidArgument: return Status::InvalidArgument(std::move(message));
    case StatusCode::kNotFound: return Status::NotFound(std::move(message));
    case StatusCode::kParseError: return Status::ParseError(std::move(message));
    case StatusCode::kUnavailable: return Status::Unavailable(std::move(message));
    case StatusCode::kTimeout: return Status::Timeout(std::move(message));
    case StatusCode::kCancelled: return Status::Cancelled(std::move(message));
    case StatusCode::kResourceExhausted: return Status::ResourceExhausted(std::move(message));
    case StatusCode::kFailedPrecondition: return Status::FailedPrecondition(std::move(message));
    case StatusCode::kPermissionDenied: return Status::PermissionDenied(std::move(message));
    case StatusCode::kInternal: return Status::Internal(std::move(message));
  }
  return status;
}

}  // namespace medreact::cli
