#include "apps/chat/chat_app.h"

#include <algorithm>
#include <utility>

namespace medreact {

Result<std::shared_ptr<ToolRegistry>> ChatTools(std::vector<std::string> packs, const PackContext& context) {
  auto add_once = [&packs](const std::string& pack) {
    if (std::find(packs.begin(), packs.end(), pack) == packs.end()) packs.push_back(pack);
  };
  if (!context.fhir_path.empty()) add_once("fhir");  // naming a record means using it
  if (!context.corpus_dir.empty() || !context.extras_path.empty()) add_once("rag");  // likewise a corpus
  auto registry = std::make_shared<ToolRegistry>();
  if (Status s = RegisterPacks(*registry, packs, context); !s.ok()) return s;
  return registry;
}

RunResult RunChat(std::shared_ptr<ChatModel> model, std::shared_ptr<const ToolRegistry> tools,
                  const std::string& message, const AgentOptions& options) {
  return RunChat(std::move(model), std::move(tools), RunRequest{.message = message}, options);
}

RunResult RunChat(std::shared_ptr<ChatModel> model, std::shared_ptr<const ToolRegistry> tools, RunRequest request,
                  const AgentOptions& options) {
  Agent agent(std::move(model), std::move(tools), options);
  return agent.Run(request);
}

}  // namespace medreact
