// The MCP client on the command line (issue 27): --mcp 'CMD ARGS' (a server
// run over stdio) and --mcp-url URL (streamable HTTP), both repeatable; the
// bearer token for the URLs from MEDREACT_MCP_TOKEN or the variable named by
// --mcp-token-env (never a token on the command line); --mcp-timeout for
// one tools/call. The servers are connected once, before the run, and their
// tools offered as an extra pack (PackContext::attach).
#ifndef MEDREACT_CLI_MCP_CLIENT_FLAGS_H_
#define MEDREACT_CLI_MCP_CLIENT_FLAGS_H_

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "mcp/mcp_client.h"
#include "tools/imaging/image_store.h"

namespace medreact::cli {

struct McpClientFlags {
  std::vector<std::string> commands;  // --mcp
  std::vector<std::string> urls;      // --mcp-url
  std::string token_env = "MEDREACT_MCP_TOKEN";  // --mcp-token-env
  double timeout_s = 60;                         // --mcp-timeout
  bool any() const { return !commands.empty() || !urls.empty(); }
};

void AddMcpClientFlags(CLI::App* command, McpClientFlags* flags);

// Connects the servers the flags name (none: an empty list). `images`: where
// image results go (may be null).
Result<std::vector<std::shared_ptr<mcp::McpClient>>> ConnectMcpFlags(const McpClientFlags& flags,
                                                                     std::shared_ptr<imaging::ImageStore> images);

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_MCP_CLIENT_FLAGS_H_
