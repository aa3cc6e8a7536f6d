// Model configuration shared by every command that talks to a model:
// flags override MEDREACT_LLM_* environment variables (ARCHITECTURE.md,
// "Configuration"). The model itself is built by the library's factory
// (medreact/model_factory.h); these flags only fill its ModelConfig.
#ifndef MEDREACT_CLI_MODEL_FLAGS_H_
#define MEDREACT_CLI_MODEL_FLAGS_H_

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "medreact/model.h"
#include "medreact/status.h"
#include "medreact/model_factory.h"
#include "service/run_service.h"

namespace medreact::cli {

struct ModelFlags {
  std::string provider = "openai";  // --provider / MEDREACT_LLM_PROVIDER: openai | anthropic
  std::string llm_url;      // --llm-url / MEDREACT_LLM_URL (anthropic: https://api.anthropic.com when unset)
  std::string model;        // --model / MEDREACT_LLM_MODEL
  std::string api_key;      // --api-key / MEDREACT_LLM_API_KEY
  std::string protocol = "native";  // --protocol / MEDREACT_LLM_PROTOCOL
  double request_timeout_s = 300;   // --request-timeout
  int max_retries = 4;              // --max-retries
  int context_size = 0;             // --context-size; 0: ask the server (llama.cpp /props)
};

void AddModelFlags(CLI::App* command, ModelFlags* flags);

// True when a model server is configured (flag or environment).
// The anthropic provider always has one (its default URL).
inline bool HasModel(const ModelFlags& flags) {
  return !flags.llm_url.empty() || !DefaultModelUrl(flags.provider).empty();
}

// The --provider/--protocol model (openai native or text, anthropic) built by BuildModel.
// REQUIRES: HasModel(flags). InvalidArgument on a bad protocol or URL.
// `context_cache` (the run store's): where the server's context size is kept.
Result<std::shared_ptr<ChatModel>> MakeModel(const ModelFlags& flags, const AppModelParts& app = {},
                                             std::shared_ptr<ContextSizeCache> context_cache = nullptr);

// The flags as the run service's model settings.
service::ModelSettings ModelSettingsOf(const ModelFlags& flags);

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_MODEL_FLAGS_H_
