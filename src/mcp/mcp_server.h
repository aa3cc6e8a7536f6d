// McpServer: the Model Context Protocol's server side (issue 27), free of
// sockets: one JSON-RPC 2.0 message in, its answers out through a callback.
// The stdio loop (cli/mcp_command.cc) and the streamable HTTP transport
// (server/mcp_http.h) carry the bytes; this file knows the protocol:
//
//   initialize          protocol version negotiation (the client's when this
//                       server speaks it, else the newest it speaks),
//                       serverInfo, capabilities {tools: {listChanged: false}}
//   ping                {}
//   tools/list          pages of options.page_size tools, an opaque cursor
//   tools/call          the registry's validation and run; the result as a
//                       text block, plus structuredContent when the tool has an
//                       output schema; a tool's failure, bad arguments or a
//                       call that needs a person's approval as isError results
//   notifications/cancelled   cancels the call through its CancellationToken;
//                       no response is sent for a cancelled call
//   _meta.progressToken  notifications/progress at the start and the end
//
// Errors: -32700 (not JSON), -32600 (not a JSON-RPC 2.0 request, or a batch),
// -32601 (unknown method), -32602 (bad params, unknown tool, bad cursor).
//
//   McpServer server(registry, {.output_schemas = ...});
//   server.Handle(line, [](const std::string& json, McpServer::Kind kind) { ... });
//
// Thread-safety: Handle may be called from any thread; tool calls run on the
// server's pool and answer from its threads (the callback must be safe to
// call from several threads). The destructor cancels running calls and does
// not wait for them (WaitIdle does).
#ifndef MEDREACT_MCP_MCP_SERVER_H_
#define MEDREACT_MCP_MCP_SERVER_H_

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/json.h"
#include "medreact/message.h"
#include "medreact/tool_registry.h"

namespace medreact::mcp {

// The protocol versions this server speaks, newest first.
const std::vector<std::string>& SupportedProtocolVersions();

struct McpServerOptions {
  std::string name = "medreact";  // serverInfo.name. Default: medreact
  std::string version = "0";      // serverInfo.version. Default: "0"
  size_t page_size = 50;          // tools per tools/list page (>= 1). Default: 50
  size_t max_message_bytes = 4u << 20;  // a larger message is refused (-32600). Default: 4 MiB
  int max_concurrent_calls = 4;   // tools/call running at once; more get an isError result. Default: 4
  // Output schemas by tool name: a tool named here returns its JSON result as
  // structuredContent and lists the schema as outputSchema. Default: none
  std::map<std::string, Json> output_schemas;
  // Which calls need a person's approval (the run's approval rules,
  // apps/common/approval_policy.h). MCP offers no approval step this server
  // can wait on, so such a call is refused with an isError result saying so.
  // Default: none (every call runs)
  std::function<bool(const ToolCall&, const ToolSpec&)> needs_approval;
};

class McpServer {
 public:
  // What a message sent through the callback is.
  enum class Kind {
    kNotification,  // a notification about a request (progress); more follow
    kResponse,      // the request's response: the last message about it
    kNoResponse,    // no message (the text is empty): the request was cancelled, nothing will answer it
  };
  using Send = std::function<void(const std::string& json, Kind kind)>;

  McpServer(std::shared_ptr<const ToolRegistry> tools, McpServerOptions options);
  ~McpServer();
  McpServer(const McpServer&) = delete;
  McpServer& operator=(const McpServer&) = delete;

  // Handles one message (a JSON text). Returns true when it was a request:
  // `send` then receives, now or later, zero or more kNotification messages
  // and exactly one kResponse or kNoResponse. Returns false for a
  // notification or a response (nothing is sent).
  bool Handle(std::string_view text, const Send& send);

  // Cancels every running call (their responses are not sent).
  void CancelAll();
  // Blocks until no call is running.
  void WaitIdle();
  // Calls running now.
  int running() const;
  // The version agreed by initialize ("" before it).
  std::string protocol_version() const;

  struct State;  // defined in mcp_server.cc

 private:
  std::shared_ptr<State> state_;
};

// A JSON-RPC error response for `id` (null when the id is unknown).
std::string ErrorResponse(const Json& id, int code, const std::string& message);

}  // namespace medreact::mcp

#endif  // MEDREACT_MCP_MCP_SERVER_H_
