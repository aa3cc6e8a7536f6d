// The MCP streamable HTTP transport, client side (MCP 2025-03-26 and later):
// every message is a POST of one JSON-RPC message to the server's endpoint;
// a request's reply is one application/json body or a text/event-stream of
// messages (progress notifications, then the response), both read through
// the guarded JSON parser. The Mcp-Session-Id the initialize response sets is
// sent on every later message (and a DELETE ends the session on Close); the
// MCP-Protocol-Version header carries the agreed version once known. A bearer
// token, when given, goes in Authorization (it is never logged or shown; the
// URL is shown redacted). 401/403, 404 (the session is gone) and other HTTP
// errors are errors naming the status.
//
// McpHttpHeaders is the one place the request headers are built; a call's
// trace context (the `traceparent` of its params' `_meta`) goes in the W3C
// `traceparent` header.
#ifndef MEDREACT_MCP_MCP_HTTP_CLIENT_H_
#define MEDREACT_MCP_MCP_HTTP_CLIENT_H_

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mcp/mcp_client.h"
#include "medreact/http.h"

namespace medreact::mcp {

struct McpHttpClientOptions {
  std::string url;           // the endpoint, e.g. http://127.0.0.1:3001/mcp
  std::string bearer_token;  // "" = none. Default: none
  size_t max_response_bytes = 16u << 20;  // one POST's reply. Default: 16 MiB
  Millis connect_timeout{10'000};         // Default: 10 s
  std::shared_ptr<HttpTransport> transport;  // Default: MakeCurlTransport()
};

// The headers of every POST/DELETE: content type, what is accepted, the
// session id and protocol version when known, the bearer token and the
// trace context when set.
std::vector<std::pair<std::string, std::string>> McpHttpHeaders(const std::string& session_id,
                                                                 const std::string& protocol_version,
                                                                 const std::string& bearer_token,
                                                                 const std::string& traceparent = "");

std::unique_ptr<McpChannel> MakeHttpChannel(McpHttpClientOptions options);

}  // namespace medreact::mcp

#endif  // MEDREACT_MCP_MCP_HTTP_CLIENT_H_
