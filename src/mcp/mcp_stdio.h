// The MCP stdio transport, client side: the server runs as a child process
// and JSON-RPC messages go as lines over its stdin and stdout.
//
// The command line (`--mcp 'node server.js stdio'`) is split into words like
// a shell would for quoting only (single quotes, double quotes, backslashes;
// no variables, globs or pipes) and run with execvp, in a process group of
// its own. The child inherits the environment minus medreact's secrets
// (MEDREACT_* variables whose names contain KEY, TOKEN, SECRET or PASSWORD).
// A line longer than max_message_bytes, or one that is not JSON (or nested
// deeper than the guarded parser allows), is a fault (the waiting calls fail
// naming it); the child's stderr is kept in a bounded buffer (its last
// stderr_keep_bytes) and shown only at debug level. Close() closes the
// child's stdin, then SIGTERMs and SIGKILLs its process group if it lingers.
#ifndef MEDREACT_MCP_MCP_STDIO_H_
#define MEDREACT_MCP_MCP_STDIO_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "mcp/mcp_client.h"
#include "medreact/status.h"

namespace medreact::mcp {

struct McpStdioOptions {
  size_t max_message_bytes = 16u << 20;  // one line from the server. Default: 16 MiB
  size_t stderr_keep_bytes = 8u << 10;   // the child's stderr kept (its tail). Default: 8 KiB
};

// Words of a command line: whitespace separates, '...' is literal, "..."
// takes \" \\ \$ \` escapes, a backslash outside quotes escapes the next
// character. InvalidArgument for an empty line or an unterminated quote.
Result<std::vector<std::string>> SplitCommandLine(const std::string& line);

// A channel that starts `command_line` when started.
std::unique_ptr<McpChannel> MakeStdioChannel(std::string command_line, McpStdioOptions options = {});

}  // namespace medreact::mcp

#endif  // MEDREACT_MCP_MCP_STDIO_H_
