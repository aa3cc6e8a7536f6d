#include "mcp/mcp_server.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <utility>

#include "core/log.h"
#include "engine/thread_pool.h"

namespace medreact::mcp {
namespace {

constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;

constexpr char kCursorPrefix[] = "medreact-tools:";

std::string Response(const Json& id, Json result) {
  return DumpJson(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

// A tool result with isError: the text is what the client's model reads.
Json ErrorResult(const std::string& text) {
  return Json{{"content", Json::array({Json{{"type", "text"}, {"text", text}}})}, {"isError", true}};
}

// A request's id, as a map key (ids are strings or integers).
std::string IdKey(const Json& id) { return DumpJson(id); }

bool ValidId(const Json& id) { return id.is_string() || id.is_number_integer() || id.is_number_unsigned(); }

}  // namespace

const std::vector<std::string>& SupportedProtocolVersions() {
  static const std::vector<std::string> versions = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
  return versions;
}

std::string ErrorResponse(const Json& id, int code, const std::string& message) {
  return DumpJson(Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

struct McpServer::State {
  std::shared_ptr<const ToolRegistry> tools;
  McpServerOptions options;
  std::vector<ToolSpec> specs;  // registration order
  ThreadPool pool;

  mutable std::mutex mu;
  std::condition_variable idle;
  std::map<std::string, CancellationToken> running;  // id key → its call's token
  std::string protocol_version;

  State(std::shared_ptr<const ToolRegistry> t, McpServerOptions o)
      : tools(std::move(t)), options(std::move(o)), specs(tools->Specs()),
        pool(std::max(1, options.max_concurrent_calls)) {
    if (options.page_size == 0) options.page_size = 1;
  }

  Json Initialize(const Json& params, std::string* error) {
    if (!params.contains("protocolVersion") || !params["protocolVersion"].is_string()) {
      *error = "initialize: params.protocolVersion must be a string (e.g. \"" + SupportedProtocolVersions()[0] + "\")";
      return nullptr;
    }
    const std::string asked = params["protocolVersion"].get<std::string>();
    const auto& known = SupportedProtocolVersions();
    const std::string agreed = std::find(known.begin(), known.end(), asked) != known.end() ? asked : known[0];
    {
      std::lock_guard<std::mutex> lock(mu);
      protocol_version = agreed;
    }
    return Json{{"protocolVersion", agreed},
                {"capabilities", {{"tools", {{"listChanged", false}}}}},
                {"serverInfo", {{"name", options.name}, {"version", options.version}}},
                {"instructions", "Clinical calculators, growth z-scores, FHIR record lookups and literature tools "
                                 "from medreact. Results are decision support, not a diagnosis."}};
  }

  Json ListTools(const Json& params, std::string* error) {
    size_t offset = 0;
    if (params.contains("cursor")) {
      const Json& cursor = params["cursor"];
      const std::string prefix = kCursorPrefix;
      const std::string text = cursor.is_string() ? cursor.get<std::string>() : "";
      const std::string digits = text.size() > prefix.size() ? text.substr(prefix.size()) : "";
      if (text.rfind(prefix, 0) != 0 || digits.empty() || digits.size() > 9 ||
          !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
          std::stoul(digits) == 0 || std::stoul(digits) >= specs.size()) {
        *error = "tools/list: params.cursor is not a cursor this server gave (pass the nextCursor of the previous page, "
                 "or none for the first page)";
        return nullptr;
      }
      offset = std::stoul(digits);
    }
    Json list = Json::array();
    const size_t end = std::min(specs.size(), offset + options.page_size);
    for (size_t i = offset; i < end; ++i) {
      const ToolSpec& spec = specs[i];
      Json tool = {{"name", spec.name}, {"description", spec.description}, {"inputSchema", spec.parameters}};
      if (auto it = options.output_schemas.find(spec.name); it != options.output_schemas.end()) {
        tool["outputSchema"] = it->second;
      }
      tool["annotations"] = {{"idempotentHint", spec.idempotent}, {"readOnlyHint", spec.idempotent}};
      list.push_back(std::move(tool));
    }
    Json result = {{"tools", std::move(list)}};
    if (end < specs.size()) result["nextCursor"] = kCursorPrefix + std::to_string(end);
    return result;
  }

  void Cancel(const Json& params) {
    if (!params.is_object() || !params.contains("requestId") || !ValidId(params["requestId"])) return;
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = running.find(IdKey(params["requestId"])); it != running.end()) it->second.Cancel();
  }
};

namespace {

// Runs one call on a pool thread and answers it.
void RunCall(const std::shared_ptr<McpServer::State>& state, const Json& id, const Json& progress_token, ToolCall call,
             CancellationToken cancel, const McpServer::Send& send) {
  const auto started = std::chrono::steady_clock::now();
  auto progress = [&](double done, const std::string& message) {
    if (progress_token.is_null()) return;
    send(DumpJson(Json{{"jsonrpc", "2.0"},
                       {"method", "notifications/progress"},
                       {"params", {{"progressToken", progress_token}, {"progress", done}, {"total", 1},
                                   {"message", message}}}}),
         McpServer::Kind::kNotification);
  };
  progress(0, call.name + " started");
  ToolResult result = state->tools->Execute(call, ToolContext{.cancel = cancel});
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  {
    std::lock_guard<std::mutex> lock(state->mu);
    state->running.erase(IdKey(id));
  }
  if (cancel.cancelled()) {
    Log().info("mcp: tools/call {} (id {}) cancelled after {} ms", call.name, Preview(IdKey(id), 40), ms);
    send("", McpServer::Kind::kNoResponse);
  } else {
    Log().info("mcp: tools/call {} (id {}) {} in {} ms", call.name, Preview(IdKey(id), 40),
               result.ok ? "ok" : "failed", ms);
    progress(1, call.name + (result.ok ? " done" : " failed"));
    Json answer;
    if (!result.ok) {
      answer = ErrorResult(result.error);
    } else {
      answer = {{"content", Json::array({Json{{"type", "text"}, {"text", result.content}}})}, {"isError", false}};
      if (state->options.output_schemas.count(call.name)) {
        Result<Json> structured = ParseJson(result.content);
        if (structured.ok() && structured->is_object()) {
          answer["structuredContent"] = *structured;
        } else {
          answer = ErrorResult(call.name + " returned a result that is not a JSON object, which its output schema "
                                           "requires; this is a fault of the server");
        }
      }
    }
    send(Response(id, std::move(answer)), McpServer::Kind::kResponse);
  }
  std::lock_guard<std::mutex> lock(state->mu);
  if (state->running.empty()) state->idle.notify_all();
}

}  // namespace

McpServer::McpServer(std::shared_ptr<const ToolRegistry> tools, McpServerOptions options)
    : state_(std::make_shared<State>(std::move(tools), std::move(options))) {}

McpServer::~McpServer() { CancelAll(); }

void McpServer::CancelAll() {
  std::lock_guard<std::mutex> lock(state_->mu);
  for (auto& [key, token] : state_->running) token.Cancel();
}

void McpServer::WaitIdle() {
  std::unique_lock<std::mutex> lock(state_->mu);
  state_->idle.wait(lock, [&] { return state_->running.empty(); });
}

int McpServer::running() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return static_cast<int>(state_->running.size());
}

std::string McpServer::protocol_version() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->protocol_version;
}

bool McpServer::Handle(std::string_view text, const Send& send) {
  State& s = *state_;
  if (text.size() > s.options.max_message_bytes) {
    send(ErrorResponse(nullptr, kInvalidRequest,
                       "the message is " + std::to_string(text.size()) + " bytes; this server takes at most " +
                           std::to_string(s.options.max_message_bytes)),
         Kind::kResponse);
    return true;
  }
  Result<Json> parsed = ParseJson(text);
  if (!parsed.ok()) {
    send(ErrorResponse(nullptr, kParseError, "parse error: the message is not JSON (" + parsed.status().message() + ")"),
         Kind::kResponse);
    return true;
  }
  const Json& m = *parsed;
  if (m.is_array()) {
    send(ErrorResponse(nullptr, kInvalidRequest,
                       "invalid request: JSON-RPC batches are not accepted (MCP 2025-06-18 removed them); send one "
                       "message at a time"),
         Kind::kResponse);
    return true;
  }
  if (!m.is_object()) {
    send(ErrorResponse(nullptr, kInvalidRequest, "invalid request: a JSON-RPC message is a JSON object"),
         Kind::kResponse);
    return true;
  }
  const bool has_id = m.contains("id");
  const Json id = has_id && ValidId(m["id"]) ? m["id"] : Json(nullptr);
  auto invalid = [&](const std::string& why) {
    send(ErrorResponse(id, kInvalidRequest, "invalid request: " + why), Kind::kResponse);
    return true;
  };
  if (!m.contains("jsonrpc") || m["jsonrpc"] != "2.0") return invalid("\"jsonrpc\" must be \"2.0\"");
  if (!m.contains("method")) {
    // A response from the client: this server sends no requests, so it is dropped.
    if (has_id && (m.contains("result") || m.contains("error"))) return false;
    return invalid("the message has no \"method\"");
  }
  if (!m["method"].is_string()) return invalid("\"method\" must be a string");
  if (has_id && !ValidId(m["id"])) return invalid("\"id\" must be a string or an integer");
  const std::string method = m["method"].get<std::string>();
  const Json params = m.contains("params") ? m["params"] : Json::object();

  if (!has_id) {  // a notification: never answered
    if (method == "notifications/cancelled") s.Cancel(params);
    return false;
  }
  if (!params.is_object()) {
    send(ErrorResponse(id, kInvalidParams, "invalid params: \"params\" must be an object"), Kind::kResponse);
    return true;
  }
  std::string error;
  if (method == "ping") {
    send(Response(id, Json::object()), Kind::kResponse);
  } else if (method == "initialize") {
    Json result = s.Initialize(params, &error);
    send(error.empty() ? Response(id, std::move(result)) : ErrorResponse(id, kInvalidParams, error), Kind::kResponse);
  } else if (method == "tools/list") {
    Json result = s.ListTools(params, &error);
    send(error.empty() ? Response(id, std::move(result)) : ErrorResponse(id, kInvalidParams, error), Kind::kResponse);
  } else if (method == "tools/call") {
    if (!params.contains("name") || !params["name"].is_string()) {
      send(ErrorResponse(id, kInvalidParams, "tools/call: params.name must be a string naming a tool (see tools/list)"),
           Kind::kResponse);
      return true;
    }
    ToolCall call{.id = "mcp-" + Preview(IdKey(id), 40), .name = params["name"].get<std::string>()};
    const Tool* tool = s.tools->Find(call.name);
    if (!tool) {
      send(ErrorResponse(id, kInvalidParams, "tools/call: unknown tool '" + Preview(call.name, 64) + "' (see tools/list)"),
           Kind::kResponse);
      return true;
    }
    call.arguments = params.contains("arguments") ? DumpJson(params["arguments"]) : "{}";
    if (s.options.needs_approval && s.options.needs_approval(call, tool->spec())) {
      Log().info("mcp: tools/call {} refused: needs approval", call.name);
      send(Response(id, ErrorResult(call.name + " needs a person's approval under this server's approval rules, and "
                                                "this server has no way to ask for it; the call was not run. Ask the "
                                                "user to run it with medreact directly, where it can be approved.")),
           Kind::kResponse);
      return true;
    }
    Json progress_token = nullptr;
    if (params.contains("_meta") && params["_meta"].is_object() && params["_meta"].contains("progressToken")) {
      const Json& token = params["_meta"]["progressToken"];
      if (!ValidId(token)) {
        send(ErrorResponse(id, kInvalidParams, "tools/call: params._meta.progressToken must be a string or an integer"),
             Kind::kResponse);
        return true;
      }
      progress_token = token;
    }
    CancellationToken cancel;
    {
      std::lock_guard<std::mutex> lock(s.mu);
      if (s.running.count(IdKey(id))) {
        send(ErrorResponse(id, kInvalidRequest, "invalid request: a call with this id is still running"),
             Kind::kResponse);
        return true;
      }
      if (static_cast<int>(s.running.size()) >= s.options.max_concurrent_calls) {
        send(Response(id, ErrorResult("the server is already running " + std::to_string(s.running.size()) +
                                      " calls, its limit; retry when one has finished")),
             Kind::kResponse);
        return true;
      }
      s.running.emplace(IdKey(id), cancel);
    }
    try {
      s.pool.Submit([state = state_, id, progress_token, call = std::move(call), cancel, send] {
        RunCall(state, id, progress_token, call, cancel, send);
      });
    } catch (const std::exception&) {
      {
        std::lock_guard<std::mutex> lock(s.mu);
        s.running.erase(IdKey(id));
      }
      send(Response(id, ErrorResult("the server could not start the call (no thread available); retry later")),
           Kind::kResponse);
    }
  } else {
    send(ErrorResponse(id, kMethodNotFound, "method not found: '" + Preview(method, 64) +
                                                "' (this server answers initialize, ping, tools/list, tools/call)"),
         Kind::kResponse);
  }
  return true;
}

}  // namespace medreact::mcp
