// `medreact mcp`: the tool packs as a Model Context Protocol server (issue
// 27), for Claude Desktop, IDEs and any MCP client. Over stdio by default:
// one JSON-RPC message per line on stdin, the answers one per line on stdout
// (the protocol channel: nothing else is printed there), logs on stderr.
// With --http, streamable HTTP at /mcp on the server's engine, with the bind
// and token rules of `medreact serve` (loopback unless --token-file).
// --require-approval / --approval-file take the rules of the other commands:
// a call they name is refused with an isError result (MCP gives this server
// no way to wait for a person), never run unreviewed.
#include <chrono>
#include <iostream>
#include <mutex>
#include <thread>

#include "cli/approval_flags.h"
#include "cli/commands.h"
#include "cli/fhir_flags.h"
#include "cli/interrupt.h"
#include "cli/setting_flags.h"
#include "apps/common/approval_policy.h"
#include "core/file_io.h"
#include "core/printable.h"
#include "mcp/mcp_server.h"
#include "server/auth.h"
#include "server/http_engine.h"
#include "server/mcp_http.h"
#include "tools/calc/calc_pack.h"
#include "tools/packs.h"

namespace medreact::cli {
namespace {

struct McpFlags {
  std::string packs = "calc";
  PackContext context;
  FhirRecordFlags record;
  ApprovalFlags approval;
  bool http = false;
  std::string host = "127.0.0.1";
  int port = 8765;
  std::string token_file;
  std::string port_file;
  std::vector<std::string> origins;
  size_t page_size = 50;
  int max_calls = 4;
  double max_message_mb = 4;
};

int Fail(const std::string& message) {
  std::cerr << "medreact mcp: " << PrintableLine(WithFlagNames(message)) << "\n";
  return kExitBadInput;
}

// Reads one line of `in` into `line`, keeping at most `cap` bytes (the rest
// of a longer line is read and dropped, `too_long` set). False at the end of
// input with nothing read.
bool ReadLine(std::istream& in, size_t cap, std::string& line, bool& too_long) {
  line.clear();
  too_long = false;
  std::streambuf* buffer = in.rdbuf();
  for (;;) {
    const int c = buffer->sbumpc();
    if (c == std::char_traits<char>::eof()) return !line.empty() || too_long;
    if (c == '\n') return true;
    if (line.size() < cap) {
      line.push_back(static_cast<char>(c));
    } else {
      too_long = true;
    }
  }
}

int RunStdio(const std::shared_ptr<const ToolRegistry>& tools, mcp::McpServerOptions options) {
  const size_t cap = options.max_message_bytes;
  mcp::McpServer server(tools, std::move(options));
  auto out_mu = std::make_shared<std::mutex>();
  const mcp::McpServer::Send send = [out_mu](const std::string& json, mcp::McpServer::Kind kind) {
    if (kind == mcp::McpServer::Kind::kNoResponse) return;
    std::lock_guard<std::mutex> lock(*out_mu);
    std::cout << json << "\n" << std::flush;  // JSON text: no raw newline inside
  };
  std::cerr << "medreact mcp: serving " << tools->size() << " tools on stdio\n";
  std::string line;
  bool too_long = false;
  while (ReadLine(std::cin, cap, line, too_long)) {
    if (too_long) {  // never held whole: refused like any message over the limit
      send(mcp::ErrorResponse(nullptr, -32600, "invalid request: a message is longer than this server takes (" +
                                                   std::to_string(cap) + " bytes)"),
           mcp::McpServer::Kind::kResponse);
      continue;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    server.Handle(line, send);
  }
  // End of input: the calls under way finish and answer (a client that
  // closed stdin after its last request still gets the answer); an
  // interrupt cancels them.
  const CancellationToken& stop = InstallInterruptHandlers();
  while (server.running() > 0 && !stop.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  server.CancelAll();
  return kExitOk;
}

int RunHttp(const McpFlags& flags, const std::shared_ptr<const ToolRegistry>& tools, mcp::McpServerOptions options) {
  server::McpHttpOptions http{.host = flags.host, .origins = flags.origins};
  if (!flags.token_file.empty()) {
    Result<server::TokenFile> token = server::ReadTokenFile(flags.token_file);
    if (!token.ok()) return Fail(token.status().message());
    if (token->world_readable) {
      std::cerr << "medreact mcp: warning: the token file can be read by other users (chmod 600 it)\n";
    }
    http.token = token->token;
  }
  if (http.token.empty() && !server::IsLoopbackAddress(flags.host)) {
    return Fail("--host " + PrintableLine(flags.host) + " is not a loopback address: give --token-file, so that "
                "clients must send the token");
  }
  const CancellationToken& stop = InstallInterruptHandlers();
  auto handler = std::make_shared<server::McpHttpHandler>(tools, std::move(options), http);
  server::HttpEngine engine({.host = flags.host, .port = flags.port,
                             .max_body_bytes = static_cast<size_t>(flags.max_message_mb * 1024 * 1024)},
                            [handler](std::shared_ptr<server::Exchange> ex) { handler->Handle(ex); });
  if (Status s = engine.Start(); !s.ok()) return Fail(s.message());
  std::cerr << "medreact mcp: serving " << tools->size() << " tools at http://"
            << (flags.host.find(':') != std::string::npos ? "[" + flags.host + "]" : flags.host) << ":"
            << engine.port() << "/mcp" << (http.token.empty() ? " (no token: loopback only)" : " (token required)")
            << "\n";
  if (!flags.port_file.empty()) {
    if (Status s = WriteFileAtomic(flags.port_file, std::to_string(engine.port()) + "\n"); !s.ok()) {
      engine.Stop();
      return Fail(s.message());
    }
  }
  while (!stop.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::cerr << "medreact mcp: stopping\n";
  handler->CancelAll();
  engine.Stop();
  return kExitOk;
}

int RunMcp(McpFlags& flags) {
  auto registry = std::make_shared<ToolRegistry>();
  std::map<std::string, std::string> tool_packs;
  flags.context.on_warning = [](const std::string& w) {
    std::cerr << "medreact mcp: " << PrintableLine(WithFlagNames(w)) << "\n";
  };
  Result<std::string> record = RecordLocator(flags.record, /*required=*/false);
  if (!record.ok()) return Fail(record.status().message());
  flags.context.fhir_path = *record;
  const std::vector<std::string> packs = SplitPackList(flags.packs);
  if (packs.empty()) return Fail("--packs names no pack (e.g. --packs calc,growth)");
  if (Status s = RegisterPacks(*registry, packs, flags.context, &tool_packs); !s.ok()) return Fail(s.message());
  Result<std::vector<std::string>> rules = ApprovalRules(flags.approval);
  if (!rules.ok()) return Fail(rules.status().message());
  mcp::McpServerOptions options{.version = MEDREACT_VERSION,
                                .page_size = flags.page_size,
                                .max_message_bytes = static_cast<size_t>(flags.max_message_mb * 1024 * 1024),
                                .max_concurrent_calls = flags.max_calls};
  if (!rules->empty()) {
    Result<std::function<bool(const ToolCall&, const ToolSpec&)>> needs =
        ApprovalPredicate(*rules, *registry, tool_packs);
    if (!needs.ok()) return Fail(needs.status().message());
    options.needs_approval = *needs;
  }
  // The calculators' results are one documented object: their output schema.
  const Json calc_schema = CalculatorOutputSchema();
  for (const auto& [tool, pack] : tool_packs) {
    if (pack == "calc") options.output_schemas[tool] = calc_schema;
  }
  std::shared_ptr<const ToolRegistry> tools = registry;
  return flags.http ? RunHttp(flags, tools, std::move(options)) : RunStdio(tools, std::move(options));
}

}  // namespace

void AddMcpCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<McpFlags>();
  CLI::App* cmd = app.add_subcommand(
      "mcp", "serve tool packs to MCP clients (Claude Desktop, IDEs) over stdio, or streamable HTTP with --http");
  cmd->add_option("--packs", flags->packs, "comma-separated tool packs (see 'medreact tools list')")
      ->capture_default_str();
  AddFhirRecordFlags(cmd, &flags->record, "a patient's FHIR R4 bundle (JSON or NDJSON) for the fhir pack");
  cmd->add_option("--as-of", flags->context.as_of, "the fhir pack's today (YYYY-MM-DD)");
  cmd->add_option("--corpus", flags->context.corpus_dir, "guideline folder for the rag pack");
  cmd->add_option("--extras", flags->context.extras_path, "hints file (JSON) for the rag pack");
  cmd->add_option("--require-approval", flags->approval.rules,
                  "tool calls that need a person's approval (repeatable): all, network, writes, pack:NAME, "
                  "tool:NAME; such a call is refused with an error result, as MCP cannot wait for a person");
  cmd->add_option("--approval-file", flags->approval.file,
                  "approval rules from a JSON file: {\"require_approval\": [RULE, ...]}");
  CLI::Option* stdio = cmd->add_flag("--stdio", [flags](int64_t) { flags->http = false; },
                                     "JSON-RPC lines on stdin/stdout (the default)");
  cmd->add_flag("--http", flags->http, "streamable HTTP at /mcp instead of stdio")->excludes(stdio);
  cmd->add_option("--host", flags->host, "with --http: address to listen on; anything but loopback needs --token-file")
      ->capture_default_str();
  cmd->add_option("--port", flags->port, "with --http: port (0: any free one)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--token-file", flags->token_file, "with --http: file holding the bearer token (chmod 600)");
  cmd->add_option("--port-file", flags->port_file, "with --http: write the bound port here once listening");
  cmd->add_option("--allow-origin", flags->origins, "with --http: a browser origin allowed to call (repeatable)");
  cmd->add_option("--page-size", flags->page_size, "tools per tools/list page")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--max-calls", flags->max_calls, "tool calls running at once")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--max-message-mb", flags->max_message_mb, "largest message, in MiB")
      ->check(CLI::Range(0.001, 256.0))
      ->capture_default_str();
  cmd->callback([flags, exit_code] { *exit_code = RunMcp(*flags); });
}

}  // namespace medreact::cli
