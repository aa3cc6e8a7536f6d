#include "cli/model_flags.h"

#include "cli/flag_checks.h"
#include "cli/setting_flags.h"

#include <utility>

namespace medreact::cli {

void AddModelFlags(CLI::App* command, ModelFlags* flags) {
  command->add_option("--provider", flags->provider,
                      "the model API: openai (any OpenAI-compatible server) or anthropic (the Messages API)")
      ->envname("MEDREACT_LLM_PROVIDER")
      ->check(CLI::IsMember({"openai", "anthropic"}));
  command->add_option("--llm-url", flags->llm_url,
                      "base URL: OpenAI-compatible, e.g. http://127.0.0.1:8000/v1; anthropic: default "
                      "https://api.anthropic.com")
      ->envname("MEDREACT_LLM_URL");
  command->add_option("--model", flags->model, "model name sent to the server")
      ->envname("MEDREACT_LLM_MODEL");
  command->add_option("--api-key", flags->api_key,
                      "bearer token; anthropic: the x-api-key (prefer the environment variable)")
      ->envname("MEDREACT_LLM_API_KEY");
  command->add_option("--protocol", flags->protocol,
                      "native: the server's tool calling; text: tools described in the prompt")
      ->envname("MEDREACT_LLM_PROTOCOL")
      ->check(CLI::IsMember({"native", "text"}));
  command->add_option("--request-timeout", flags->request_timeout_s,
                      "seconds allowed for one model request")
      ->check(Seconds());
  command->add_option("--max-retries", flags->max_retries, "retries on 408/409/429/5xx and connection errors")
      ->check(CLI::Range(0, 20));
  command->add_option("--context-size", flags->context_size,
                      "the model's context window in tokens; requests are fitted into it (default: asked from a "
                      "llama.cpp server, else unknown)")
      ->check(CLI::Range(256, 10'000'000));
}

Result<std::shared_ptr<ChatModel>> MakeModel(const ModelFlags& flags, const AppModelParts& app,
                                             std::shared_ptr<ContextSizeCache> context_cache) {
  Result<std::string> provider = ProviderFor(flags.provider, flags.protocol);
  if (!provider.ok()) return WithFlagNames(provider.status());
  ModelConfig config{.provider = *provider,
                     .base_url = flags.llm_url.empty() ? DefaultModelUrl(flags.provider) : flags.llm_url,
                     .model = flags.model,
                     .api_key = flags.api_key, .request_timeout = SecondsToMillis(flags.request_timeout_s),
                     .max_retries = flags.max_retries, .context_tokens = flags.context_size,
                     .context_cache = std::move(context_cache)};
  Result<std::shared_ptr<ChatModel>> model = BuildModel(config, app);
  if (!model.ok()) return WithFlagNames(model.status());
  return model;
}

service::ModelSettings ModelSettingsOf(const ModelFlags& flags) {
  return {.provider = flags.provider,
          .url = flags.llm_url.empty() ? DefaultModelUrl(flags.provider) : flags.llm_url,
          .name = flags.model,
          .api_key = flags.api_key,
          .protocol = flags.protocol,
          .request_timeout_s = flags.request_timeout_s,
          .max_retries = flags.max_retries,
          .context_size = flags.context_size};
}

}  // namespace medreact::cli
