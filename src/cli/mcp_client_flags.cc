#include "cli/mcp_client_flags.h"

#include <cstdlib>

#include "cli/flag_checks.h"
#include "mcp/mcp_attach.h"

namespace medreact::cli {

void AddMcpClientFlags(CLI::App* command, McpClientFlags* flags) {
  command->add_option("--mcp", flags->commands,
                      "attach an MCP server's tools: the command that runs it over stdio, quoted as one argument "
                      "(e.g. --mcp 'node server.js stdio'); repeatable")
      ->allow_extra_args(false);
  command->add_option("--mcp-url", flags->urls,
                      "attach the tools of an MCP server over streamable HTTP (its endpoint URL); repeatable; the "
                      "bearer token comes from MEDREACT_MCP_TOKEN (or --mcp-token-env)")
      ->allow_extra_args(false);
  command->add_option("--mcp-token-env", flags->token_env,
                      "the environment variable holding the bearer token for --mcp-url (default MEDREACT_MCP_TOKEN)");
  command->add_option("--mcp-timeout", flags->timeout_s,
                      "seconds for one MCP tool call; past it the call is cancelled (default 60)")
      ->check(Seconds());
}

Result<std::vector<std::shared_ptr<mcp::McpClient>>> ConnectMcpFlags(const McpClientFlags& flags,
                                                                     std::shared_ptr<imaging::ImageStore> images) {
  if (!flags.any()) return std::vector<std::shared_ptr<mcp::McpClient>>{};
  mcp::McpAttachSpec spec{.commands = flags.commands, .urls = flags.urls};
  if (!flags.urls.empty() && !flags.token_env.empty()) {
    if (const char* token = std::getenv(flags.token_env.c_str()); token != nullptr) spec.token = token;
  }
  mcp::McpClientOptions options;
  options.call_timeout = SecondsToMillis(flags.timeout_s);
  options.images = std::move(images);
  return mcp::ConnectMcpServers(spec, options);
}

}  // namespace medreact::cli
