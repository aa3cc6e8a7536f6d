#include "mcp/mcp_attach.h"

#include <utility>

#include "mcp/mcp_http_client.h"
#include "mcp/mcp_stdio.h"

namespace medreact::mcp {

Result<std::vector<std::shared_ptr<McpClient>>> ConnectMcpServers(const McpAttachSpec& spec,
                                                                  const McpClientOptions& options) {
  std::vector<std::shared_ptr<McpClient>> clients;
  auto add = [&](std::unique_ptr<McpChannel> channel) -> Status {
    Result<std::shared_ptr<McpClient>> client = McpClient::Connect(std::move(channel), options);
    if (!client.ok()) {
      for (auto& c : clients) c->Close();
      return client.status();
    }
    clients.push_back(std::move(*client));
    return Status::OK();
  };
  for (const std::string& command : spec.commands) {
    if (Status s = add(MakeStdioChannel(command)); !s.ok()) return s;
  }
  for (const std::string& url : spec.urls) {
    if (Status s = add(MakeHttpChannel({.url = url, .bearer_token = spec.token})); !s.ok()) return s;
  }
  return clients;
}

PackAttacher McpAttacher(std::vector<std::shared_ptr<McpClient>> clients) {
  return [clients = std::move(clients)](ToolRegistry& registry, const std::function<void(const std::string&)>& warn,
                                        std::map<std::string, std::string>* tool_packs) -> Status {
    for (const auto& client : clients) {
      if (Status s = AttachMcpTools(registry, client, warn, tool_packs); !s.ok()) return s;
    }
    return Status::OK();
  };
}

}  // namespace medreact::mcp
