// McpHttpHandler: the MCP server (mcp/mcp_server.h) over streamable HTTP
// (MCP 2025-06-18 and later), on the server's HTTP engine (http_engine.h).
// One endpoint, /mcp:
//
//   POST    one JSON-RPC message. An initialize request opens a session (the
//           response carries Mcp-Session-Id); every later message names it.
//           A request is answered with one JSON response, or, for a
//           tools/call carrying a progress token from a client that accepts
//           text/event-stream, with an SSE stream: the progress
//           notifications, then the response. A notification or a response
//           gets 202.
//   GET     405: this server sends no messages of its own.
//   DELETE  ends the session (its running calls are cancelled).
//
// The rules of `medreact serve`: a bearer token when one is set (compared in
// constant time), a loopback server without a token answers only to its own
// Host names, a browser's Origin must be the server's own or an allowed one,
// and each client is rate-limited. An unknown session is 404 (the client
// starts again), a missing one 400; an MCP-Protocol-Version header the server
// does not speak is 400.
//
// Thread-safety: Handle is called on the engine's I/O threads; tool calls run
// on each session's pool.
#ifndef MEDREACT_SERVER_MCP_HTTP_H_
#define MEDREACT_SERVER_MCP_HTTP_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "mcp/mcp_server.h"
#include "medreact/tool_registry.h"
#include "server/http.h"
#include "server/rate_limit.h"

namespace medreact::server {

struct McpHttpOptions {
  std::string host = "127.0.0.1";    // the bound address (a Host header may name it). Default: loopback
  std::string token;                 // the bearer token; "" = none (loopback only). Default: none
  std::vector<std::string> origins;  // browser origins allowed besides the server's own. Default: none
  RateLimitOptions rate;             // per client address. Default: 20/s, bursts of 40
  // Open sessions; past it a new one ends the least recently used session
  // that runs no call (503 when all run one). Default: 64
  size_t max_sessions = 64;
};

class McpHttpHandler {
 public:
  McpHttpHandler(std::shared_ptr<const ToolRegistry> tools, mcp::McpServerOptions server, McpHttpOptions options);
  ~McpHttpHandler();
  McpHttpHandler(const McpHttpHandler&) = delete;
  McpHttpHandler& operator=(const McpHttpHandler&) = delete;

  void Handle(const std::shared_ptr<Exchange>& exchange);
  // Cancels every session's running calls (at shutdown).
  void CancelAll();
  size_t sessions() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace medreact::server

#endif  // MEDREACT_SERVER_MCP_HTTP_H_
