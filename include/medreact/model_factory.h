// The model factory: every front end (the CLI today, the server next) builds
// its ChatModel here, from one provider table.
//
//   ModelConfig config{.provider = "native", .base_url = url, .model = name};
//   Result<std::shared_ptr<ChatModel>> model = BuildModel(config, {.rules_planner = MakeMyPlanner});
//
// Providers:
//   native     OpenAI-compatible Chat Completions with the server's tool calling
//   text       the same server through the text protocol (tools in the prompt)
//   rules      the app's deterministic planner (no server); the app supplies it
//   anthropic  Anthropic Messages API (POST /v1/messages) with its own tool calling
// ResolveProvider() turns the commands' --planner / --protocol choice into a
// provider name, so every front end decides the same way.
#ifndef MEDREACT_MODEL_FACTORY_H_
#define MEDREACT_MODEL_FACTORY_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/http.h"
#include "medreact/model.h"
#include "medreact/openai.h"
#include "medreact/status.h"

namespace medreact {

struct ModelConfig {
  std::string provider = "native";  // a row of ModelProviders()
  std::string base_url;             // http:// or https://; required by server providers
  std::string model;                // model name sent to the server
  std::string api_key;              // bearer token (anthropic: x-api-key); never logged
  Millis request_timeout{300'000};  // one request (per attempt). Default: 300 s
  int max_retries = 4;              // Default: 4
  // The context window in tokens when known (--context-size); 0: ask a
  // llama.cpp server (/props), else unknown (anthropic: 200,000). Default: 0
  int context_tokens = 0;
  // Where the context size a server reports is kept (the run store's), so
  // it is asked once per server and model. Default: nullptr (once per process)
  std::shared_ptr<ContextSizeCache> context_cache;
  std::shared_ptr<HttpTransport> transport;  // Default: libcurl (tests inject one)
};

// What an app brings to the factory.
struct AppModelParts {
  // The app's deterministic planner, for provider "rules"; empty: the app has none.
  std::function<std::shared_ptr<ChatModel>()> rules_planner;
};

struct ModelProvider {
  std::string name;
  std::string summary;
  bool needs_server = true;  // base_url required
  bool built = true;         // false: a reserved slot (BuildModel says so)
};

// The provider table, in the order above.
const std::vector<ModelProvider>& ModelProviders();

// "native", "text", "rules" from a command's choices: planner "rules" →
// rules; "model" → the protocol (a server is required); "auto" → the protocol
// when a server is configured, else rules (or an error when the app has no
// planner). InvalidArgument naming the flag or variable to set.
Result<std::string> ResolveProvider(std::string_view planner, std::string_view protocol, bool has_server,
                                    bool app_has_planner);

// The provider table's row for a front end's two settings: the API
// (provider: "openai", the default, or "anthropic") and, for openai, the
// tool-calling protocol (protocol: "native" or "text"). InvalidArgument
// listing the valid names for anything else, and for anthropic with "text".
Result<std::string> ProviderFor(std::string_view api, std::string_view protocol);

// The base URL an API has when none is configured: "https://api.anthropic.com"
// for anthropic, "" (none: it must be set) for openai.
std::string DefaultModelUrl(std::string_view api);

// InvalidArgument for an unknown or unbuilt provider, a missing or malformed
// URL, or "rules" when the app has no planner.
Result<std::shared_ptr<ChatModel>> BuildModel(const ModelConfig& config, const AppModelParts& app = {});

}  // namespace medreact

#endif  // MEDREACT_MODEL_FACTORY_H_
