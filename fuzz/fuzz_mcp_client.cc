// The "mcp_reply" fuzz body (fuzz_bodies.h): a server's reply from outside
// through medreact's MCP client (mcp/mcp_client.h). An in-process channel
// answers initialize properly, then gives the input as the result of
// tools/list and of every tools/call (or, when it is not JSON, as an
// unreadable message). Invariants: nothing crashes or hangs; every attached
// tool has a valid name; an observation never exceeds its cap plus the note.
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>

#include "fuzz/fuzz_bodies.h"
#include "mcp/mcp_client.h"
#include "medreact/json.h"

namespace medreact::fuzz {
namespace {

[[noreturn]] void McpReplyViolated(const char* what) {
  std::fprintf(stderr, "fuzz mcp_reply: invariant violated: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

constexpr size_t kCap = 4096;

class ReplayChannel : public mcp::McpChannel {
 public:
  explicit ReplayChannel(std::string_view input) : input_(input), parsed_(ParseJson(input)) {}
  Status Start(OnMessage on_message, OnFault on_fault, OnClosed) override {
    on_message_ = std::move(on_message);
    on_fault_ = std::move(on_fault);
    return Status::OK();
  }
  Status Send(const Json& message, Deadline, const CancellationToken&) override {
    if (!message.contains("id") || !message.contains("method")) return Status::OK();
    const std::string method = StringOr(message, "method");
    Json reply = {{"jsonrpc", "2.0"}, {"id", message["id"]}};
    if (method == "initialize") {
      reply["result"] = {{"protocolVersion", "2025-06-18"}, {"serverInfo", {{"name", "fuzz"}}}};
    } else if (!parsed_.ok()) {
      on_fault_("not JSON");
      return Status::OK();
    } else {
      reply["result"] = *parsed_;
    }
    on_message_(std::move(reply));
    return Status::OK();
  }
  void Close() override {}
  std::string Describe() const override { return "fuzz"; }
  bool replies_in_send() const override { return true; }

 private:
  std::string input_;
  Result<Json> parsed_;
  OnMessage on_message_;
  OnFault on_fault_;
};

}  // namespace

int FuzzMcpReply(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  mcp::McpClientOptions options;
  options.max_result_bytes = kCap;
  options.max_image_bytes = 1u << 16;
  options.max_list_pages = 3;
  options.max_tools = 50;
  options.images = std::make_shared<imaging::ImageStore>();
  Result<std::shared_ptr<mcp::McpClient>> client =
      mcp::McpClient::Connect(std::make_unique<ReplayChannel>(text), options);
  if (!client.ok()) McpReplyViolated("the handshake failed against a proper initialize");
  ToolRegistry registry;
  (void)mcp::AttachMcpTools(registry, *client, [](const std::string&) {});
  static const std::regex kName("^[a-zA-Z0-9_-]{1,64}$");
  for (const std::string& name : registry.Names()) {
    if (!std::regex_match(name, kName)) McpReplyViolated("an attached tool has an invalid name");
    ToolResult r = registry.Execute(ToolCall{.id = "f", .name = name, .arguments = "{}"}, {});
    if (r.ObservationText().size() > kCap + 400) McpReplyViolated("an observation over its cap");
  }
  Result<Json> parsed = ParseJson(text);
  if (parsed.ok()) {
    ToolResult r = mcp::CallResultToToolResult(*parsed, "fuzz", options);
    if (r.ObservationText().size() > kCap + 400) McpReplyViolated("an observation over its cap");
  }
  return 0;
}

}  // namespace medreact::fuzz
