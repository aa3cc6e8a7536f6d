// The "mcp_message" fuzz body (fuzz_bodies.h), in its own file: one MCP
// message from outside through the protocol core (mcp/mcp_server.h) over the
// real calc pack, and the protocol's invariants on what comes back.
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "fuzz/fuzz_bodies.h"
#include "mcp/mcp_server.h"
#include "medreact/json.h"
#include "tools/calc/calc_pack.h"

namespace medreact::fuzz {
namespace {

[[noreturn]] void McpViolated(const char* what) {
  std::fprintf(stderr, "fuzz mcp_message: invariant violated: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

mcp::McpServer& FuzzMcpServer() {
  static mcp::McpServer* server = [] {
    auto tools = std::make_shared<ToolRegistry>();
    if (!RegisterCalcPack(*tools).ok()) McpViolated("the calc pack does not register");
    mcp::McpServerOptions options{.page_size = 7, .max_message_bytes = 1u << 16};
    for (const std::string& name : tools->Names()) options.output_schemas[name] = CalculatorOutputSchema();
    return new mcp::McpServer(tools, std::move(options));  // lives for the process
  }();
  return *server;
}

}  // namespace

int FuzzMcpMessage(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  mcp::McpServer& server = FuzzMcpServer();
  std::mutex mu;
  std::vector<std::pair<std::string, mcp::McpServer::Kind>> sent;
  const bool request = server.Handle(text, [&](const std::string& json, mcp::McpServer::Kind kind) {
    std::lock_guard<std::mutex> lock(mu);
    sent.emplace_back(json, kind);
  });
  server.WaitIdle();
  std::lock_guard<std::mutex> lock(mu);
  if (!request) {
    if (!sent.empty()) McpViolated("a notification or a response was answered");
    return 0;
  }
  if (sent.empty() || sent.back().second == mcp::McpServer::Kind::kNotification) {
    McpViolated("a request got no final message");
  }
  for (size_t i = 0; i < sent.size(); ++i) {
    if (i + 1 < sent.size() && sent[i].second != mcp::McpServer::Kind::kNotification) {
      McpViolated("a message after the final one");
    }
    if (sent[i].second == mcp::McpServer::Kind::kNoResponse) continue;  // nothing cancels here
    Result<Json> m = ParseJson(sent[i].first);
    if (!m.ok() || !m->is_object() || !m->contains("jsonrpc") || (*m)["jsonrpc"] != "2.0") {
      McpViolated("a sent message is not a JSON-RPC 2.0 object");
    }
    if (sent[i].second == mcp::McpServer::Kind::kResponse && m->contains("result") == m->contains("error")) {
      McpViolated("a response without exactly one of result and error");
    }
  }
  return 0;
}

}  // namespace medreact::fuzz
