#include "medreact/model_factory.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "core/text_util.h"
#include "llm/anthropic_client.h"
#include "medreact/openai.h"
#include "medreact/text_protocol.h"

namespace medreact {

uint64_t NextConversationId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

const std::vector<ModelProvider>& ModelProviders() {
  static const std::vector<ModelProvider> kProviders = {
      {"native", "OpenAI-compatible Chat Completions with the server's own tool calling", true, true},
      {"text", "the same server through the text protocol (tools described in the prompt)", true, true},
      {"rules", "the app's deterministic, cited planner; no server", false, true},
      {"anthropic", "Anthropic Messages API with its own tool calling", true, true},
  };
  return kProviders;
}

Result<std::string> ResolveProvider(std::string_view planner, std::string_view protocol, bool has_server,
                                    bool app_has_planner) {
  if (planner == "rules") {
    if (!app_has_planner) return Status::InvalidArgument("this command has no rules planner");
    return std::string("rules");
  }
  if (planner != "model" && planner != "auto") {
    return Status::InvalidArgument("the planner (planner) must be auto, model or rules, got '" + std::string(planner) +
                                   "'");
  }
  if (!has_server) {
    if (planner == "auto" && app_has_planner) return std::string("rules");
    return Status::InvalidArgument(
        std::string(planner == "model" ? "the planner (planner) 'model' needs a model server"
                                       : "no model server configured") +
        ": set the model URL (llm_url) to an OpenAI-compatible base URL such as http://127.0.0.1:8000/v1");
  }
  return std::string(protocol);
}

Result<std::string> ProviderFor(std::string_view api, std::string_view protocol) {
  if (api != "openai" && api != "anthropic") {
    return Status::InvalidArgument("unknown model provider (provider) '" + std::string(api) +
                                   "' (known: openai, anthropic)");
  }
  if (protocol != "native" && protocol != "text") {
    return Status::InvalidArgument("the tool-calling protocol (protocol) must be native or text, got '" +
                                   std::string(protocol) + "'");
  }
  if (api == "openai") return std::string(protocol);
  if (protocol == "text") {
    return Status::InvalidArgument(
        "the text protocol (protocol) is for OpenAI-compatible servers; the anthropic provider uses its own tool "
        "calling (protocol native)");
  }
  return std::string("anthropic");
}

std::string DefaultModelUrl(std::string_view api) {
  return api == "anthropic" ? "https://api.anthropic.com" : "";
}

Result<std::shared_ptr<ChatModel>> BuildModel(const ModelConfig& config, const AppModelParts& app) {
  const auto& table = ModelProviders();
  auto row = std::find_if(table.begin(), table.end(), [&](const ModelProvider& p) { return p.name == config.provider; });
  if (row == table.end()) {
    std::vector<std::string> names;
    for (const ModelProvider& p : table) {
      if (p.built) names.push_back(p.name);
    }
    return Status::InvalidArgument("unknown model provider '" + config.provider + "' (known: " + Join(names, ", ") + ")");
  }
  if (!row->built) {
    return Status::InvalidArgument("the '" + row->name + "' provider is not built yet");
  }
  if (row->name == "rules") {
    if (!app.rules_planner) return Status::InvalidArgument("this command has no rules planner");
    return app.rules_planner();
  }
  if (!StartsWith(config.base_url, "http://") && !StartsWith(config.base_url, "https://")) {
    return Status::InvalidArgument("the model URL (llm_url) must start with http:// or https://, got '" +
                                   RedactUrl(config.base_url) + "'");
  }
  if (row->name == "anthropic") {
    AnthropicOptions options;
    options.base_url = config.base_url;
    options.model = config.model;
    options.api_key = config.api_key;
    options.request_timeout = config.request_timeout;
    options.max_retries = config.max_retries;
    options.transport = config.transport;
    if (config.context_tokens > 0) options.context_tokens = config.context_tokens;
    return std::shared_ptr<ChatModel>(MakeAnthropicModel(std::move(options)));
  }
  OpenAIOptions options;
  options.base_url = config.base_url;
  options.model = config.model;
  options.api_key = config.api_key;
  options.request_timeout = config.request_timeout;
  options.max_retries = config.max_retries;
  options.transport = config.transport;
  options.context_tokens = config.context_tokens;
  options.probe_context = config.context_tokens == 0;
  options.context_cache = config.context_cache;
  std::unique_ptr<ChatModel> model = MakeOpenAIModel(std::move(options));
  if (row->name == "text") return std::shared_ptr<ChatModel>(MakeTextProtocolModel(std::move(model)));
  return std::shared_ptr<ChatModel>(std::move(model));
}

}  // namespace medreact
