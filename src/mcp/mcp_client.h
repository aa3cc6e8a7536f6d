// McpClient: the Model Context Protocol's client side (issue 27, part 2):
// another program's MCP tools attached to a medreact run as a tool pack.
//
// The protocol core, free of processes and sockets: it speaks JSON-RPC 2.0
// through an McpChannel (mcp_stdio.h spawns a server and talks over its
// stdin/stdout; mcp_http_client.h POSTs to a streamable HTTP endpoint):
//
//   Connect        initialize (we offer the newest version medreact speaks;
//                  the server's answer is accepted when it is one of
//                  SupportedProtocolVersions(), else a clear error), then
//                  notifications/initialized.
//   Tools          tools/list page by page (nextCursor), at most
//                  max_list_pages pages and max_tools tools (a list that
//                  never ends, or a cursor seen twice, is an error); listed
//                  again after the server sent notifications/tools/list_changed.
//   CallTool       tools/call bounded by call_timeout and the tool context's
//                  deadline and cancel token; on timeout or cancellation
//                  notifications/cancelled is sent and the call fails.
//   the server's   ping is answered; any other request gets -32601;
//   own messages   progress and log notifications go to the debug log only.
//
// A server that exits or closes the connection fails the calls in flight and
// every later call at once, naming how it ended (no reconnect: a server that
// died mid-run is reported, not restarted behind the model's back).
//
// AttachMcpTools turns the listed tools into medreact Tools (McpTool): each
// inputSchema is checked like any tool's schema (ToolRegistry::Register, the
// JSON Schema guard); a tool whose schema is refused, or too large, is left
// out with a warning and the others are attached. A name that clashes with a
// tool already registered (medreact's own, or an earlier server's) is
// registered as <server>__<tool> (the server's serverInfo.name, sanitised),
// said in a warning and in the tool's description. A call's result becomes
// the observation: text blocks joined, structuredContent as the JSON result,
// images decoded (size-capped) into the run's ImageStore and named by id,
// isError as a tool error, JSON-RPC errors as a tool error naming code and
// message; the whole capped at max_result_bytes with a note.
//
// Privacy: the server's messages (results, errors, log notifications) and a
// child's stderr never reach the info log.
//
// Thread-safety: every method may be called from any thread; calls run
// concurrently (one JSON-RPC id each).
#ifndef MEDREACT_MCP_MCP_CLIENT_H_
#define MEDREACT_MCP_MCP_CLIENT_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "medreact/cancel.h"
#include "medreact/json.h"
#include "medreact/status.h"
#include "medreact/tool.h"
#include "medreact/tool_registry.h"
#include "tools/imaging/image_store.h"

namespace medreact::mcp {

// One connection to one MCP server: moves JSON-RPC messages both ways.
class McpChannel {
 public:
  using OnMessage = std::function<void(Json message)>;
  // A message that could not be read (not JSON, too deep, too large): the
  // calls waiting on this connection fail with `why`.
  using OnFault = std::function<void(const std::string& why)>;
  // The connection ended (the child exited, the stream closed): `why` says how.
  using OnClosed = std::function<void(const std::string& why)>;

  virtual ~McpChannel() = default;
  // Starts delivering the server's messages. Called once, before Send.
  virtual Status Start(OnMessage on_message, OnFault on_fault, OnClosed on_closed) = 0;
  // Sends one message. Over HTTP the reply's messages are delivered before
  // Send returns (bounded by `deadline` and `cancel`: kTimeout / kCancelled);
  // over stdio Send writes the line and returns.
  virtual Status Send(const Json& message, Deadline deadline, const CancellationToken& cancel) = 0;
  // Ends the connection (stops the child, ends the HTTP session). Idempotent;
  // no callback runs after it returns.
  virtual void Close() = 0;
  // What it connects to, fit for messages: "stdio: node" or a redacted URL.
  virtual std::string Describe() const = 0;
  // True when every reply comes back within Send (HTTP): a request whose
  // response did not arrive by then never gets one.
  virtual bool replies_in_send() const { return false; }
};

struct McpClientOptions {
  Millis call_timeout{60'000};       // one tools/call (the tool context's deadline may be earlier). Default: 60 s
  Millis request_timeout{30'000};    // initialize and each tools/list page. Default: 30 s
  int max_list_pages = 100;          // tools/list pages before the list is refused. Default: 100
  size_t max_tools = 1000;           // tools before the list is refused. Default: 1000
  size_t max_result_bytes = 256u << 10;  // observation text; longer is cut with a note. Default: 256 KiB
  size_t max_image_bytes = 8u << 20;     // one decoded image; larger is refused. Default: 8 MiB
  size_t max_description_chars = 4000;   // a tool description longer is cut. Default: 4000
  size_t max_schema_bytes = 256u << 10;  // a tool's inputSchema (as JSON text) larger is refused. Default: 256 KiB
  // Where image content goes; none → images are described, not kept. Default: none
  std::shared_ptr<imaging::ImageStore> images;
};

// A tool as the server lists it.
struct McpToolInfo {
  std::string name;
  std::string description;
  Json input_schema;   // as listed
  Json output_schema;  // null when none
  bool read_only = false;  // annotations.readOnlyHint
};

class McpClient {
 public:
  // Starts the channel and runs the handshake. InvalidArgument when the server
  // speaks no protocol version medreact speaks; Unavailable / Timeout naming
  // the server when it cannot be reached or does not answer.
  static Result<std::shared_ptr<McpClient>> Connect(std::unique_ptr<McpChannel> channel,
                                                    McpClientOptions options = {});
  ~McpClient();
  McpClient(const McpClient&) = delete;
  McpClient& operator=(const McpClient&) = delete;

  // serverInfo.name as the server gave it (printable, at most 64 chars).
  const std::string& server_name() const { return server_name_; }
  // serverInfo.name sanitised for tool-name prefixes: [A-Za-z0-9_-], at most 24 chars.
  const std::string& prefix() const { return prefix_; }
  const std::string& protocol_version() const { return protocol_version_; }
  std::string Describe() const;
  const McpClientOptions& options() const { return options_; }

  // The server's tools: listed once, again after list_changed.
  Result<std::vector<McpToolInfo>> Tools();
  // Whether the server said its list changed since the last Tools().
  bool list_changed() const { return list_changed_.load(); }

  // tools/call. The CallToolResult object; a JSON-RPC error, a timeout, a
  // cancellation or a closed connection as a Status whose message names it.
  Result<Json> CallTool(const std::string& name, const Json& arguments, const ToolContext& ctx);

  // One request and its result (the JSON-RPC error as kInvalidArgument naming
  // code and message). `cancellable`: on timeout or cancellation
  // notifications/cancelled is sent.
  Result<Json> Request(const std::string& method, Json params, Deadline deadline, const CancellationToken& cancel,
                       bool cancellable);

  // Ends the connection; later calls fail at once.
  void Close();

  // How the connection ended ("" while open).
  std::string closed_reason() const;

 private:
  struct Pending {
    bool done = false;
    Json message;        // the response
    std::string failed;  // why no response will come
  };

  McpClient(std::unique_ptr<McpChannel> channel, McpClientOptions options);
  Status Handshake();
  void OnMessage(Json message);
  void OnFault(const std::string& why);
  void OnClosed(const std::string& why);
  void FailAll(const std::string& why);
  void Notify(const std::string& method, Json params);

  std::unique_ptr<McpChannel> channel_;
  const McpClientOptions options_;
  std::string server_name_;
  std::string prefix_;
  std::string protocol_version_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<int64_t, std::shared_ptr<Pending>> pending_;
  std::string closed_;  // why the connection ended; "" while open
  std::atomic<int64_t> next_id_{1};
  std::atomic<bool> list_changed_{false};
  std::mutex list_mu_;  // one tools/list at a time
  std::vector<McpToolInfo> tools_;
  bool listed_ = false;
};

// `name` made a valid medreact tool name part: [A-Za-z0-9_-] (others become
// '_'), at most `max_chars`; "" becomes "mcp".
std::string SanitizeToolName(const std::string& name, size_t max_chars = 64);

// A CallToolResult as the model's observation (see the file comment).
// `tool` names the tool in notes; `origin` is the image store's origin.
ToolResult CallResultToToolResult(const Json& result, const std::string& tool, const McpClientOptions& options);

// Registers the client's tools in `registry`. Per tool: refused (a warning,
// the others go on) for a hostile or invalid schema; prefixed on a clash.
// `warn` receives every note (renames, refusals). `tool_packs`, when given,
// receives registered name → "mcp:<prefix>", `mcp_names` registered name →
// the server's own name. Fails only when the list itself cannot be had (the
// server's error, a list that never ends).
Status AttachMcpTools(ToolRegistry& registry, const std::shared_ptr<McpClient>& client,
                      const std::function<void(const std::string&)>& warn,
                      std::map<std::string, std::string>* tool_packs = nullptr,
                      std::map<std::string, std::string>* mcp_names = nullptr);

}  // namespace medreact::mcp

#endif  // MEDREACT_MCP_MCP_CLIENT_H_
