// Attaching MCP servers to a run: the servers the user named (--mcp 'CMD
// ARGS' over stdio, --mcp-url URL over streamable HTTP) connected once, and
// their tools offered as an extra pack (PackContext::attach) to every app
// that registers packs.
//
//   McpAttachSpec spec{.commands = {"node server.js"}, .token = token};
//   auto clients = ConnectMcpServers(spec, options);           // handshakes now
//   context.attach.push_back(McpAttacher(*clients));           // tools at registration
#ifndef MEDREACT_MCP_MCP_ATTACH_H_
#define MEDREACT_MCP_MCP_ATTACH_H_

#include <memory>
#include <string>
#include <vector>

#include "mcp/mcp_client.h"
#include "tools/packs.h"

namespace medreact::mcp {

struct McpAttachSpec {
  std::vector<std::string> commands;  // stdio servers, one command line each. Default: none
  std::vector<std::string> urls;      // streamable HTTP endpoints. Default: none
  std::string token;                  // bearer token for the URLs (from the environment). Default: none
};

// Connects every server (stdio first, then URLs, in the order given). The
// first that fails stops it (the ones connected are closed) with its error.
Result<std::vector<std::shared_ptr<McpClient>>> ConnectMcpServers(const McpAttachSpec& spec,
                                                                  const McpClientOptions& options);

// The PackContext::attach entry that registers the servers' tools
// (AttachMcpTools, each server in turn: a later server's clashing names are
// prefixed).
PackAttacher McpAttacher(std::vector<std::shared_ptr<McpClient>> clients);

}  // namespace medreact::mcp

#endif  // MEDREACT_MCP_MCP_ATTACH_H_
