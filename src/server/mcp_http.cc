#include "server/mcp_http.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <random>

#include "core/log.h"
#include "core/printable.h"
#include "server/auth.h"

namespace medreact::server {
namespace {

constexpr char kPath[] = "/mcp";

HttpResponse JsonRpcError(int status, int code, const std::string& message) {
  return HttpResponse{.status = status, .body = mcp::ErrorResponse(nullptr, code, message)};
}

std::string HostName(std::string_view host) {
  if (!host.empty() && host.front() == '[') {
    const size_t end = host.find(']');
    return std::string(host.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1));
  }
  return std::string(host.substr(0, host.find(':')));
}

std::string NewSessionId() {
  std::random_device random;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 32; ++i) id += kHex[random() % 16];
  return id;
}

}  // namespace

struct McpHttpHandler::Impl {
  std::shared_ptr<const ToolRegistry> tools;
  mcp::McpServerOptions server_options;
  McpHttpOptions options;
  RateLimiter limiter;
  mutable std::mutex mu;
  struct Session {
    std::shared_ptr<mcp::McpServer> server;
    uint64_t used = 0;  // the tick of its last request
  };
  std::map<std::string, Session> sessions;
  uint64_t tick = 0;  // counts requests to sessions: an order, not a time

  // Makes room for a session when every slot is taken: the one used least
  // recently that runs no call ends (its client gets 404 and starts again).
  // False when every session is running a call. REQUIRES: mu held.
  bool MakeRoom() {
    if (sessions.size() < options.max_sessions) return true;
    auto oldest = sessions.end();
    for (auto it = sessions.begin(); it != sessions.end(); ++it) {
      if (it->second.server->running() == 0 && (oldest == sessions.end() || it->second.used < oldest->second.used)) {
        oldest = it;
      }
    }
    if (oldest == sessions.end()) return false;
    sessions.erase(oldest);
    Log().info("mcp: the least recently used session ended to make room");
    return true;
  }

  Impl(std::shared_ptr<const ToolRegistry> t, mcp::McpServerOptions s, McpHttpOptions o)
      : tools(std::move(t)), server_options(std::move(s)), options(std::move(o)), limiter(options.rate) {}

  // The checks of every request; nullopt when it may go on.
  std::optional<HttpResponse> Refusal(const HttpRequest& r) {
    const std::string origin = r.Header("origin");
    if (!origin.empty()) {
      const bool same = origin == "http://" + r.Header("host") || origin == "https://" + r.Header("host");
      const bool allowed = std::find(options.origins.begin(), options.origins.end(), origin) != options.origins.end();
      if (!same && !allowed) {
        return JsonRpcError(403, -32600, "requests from origin '" + PrintableLine(origin) + "' are not allowed");
      }
    }
    if (options.token.empty()) {
      const std::string host = HostName(r.Header("host"));
      if (!host.empty() && !IsLoopbackAddress(host) && host != options.host) {
        return JsonRpcError(403, -32600, "the Host header does not name this server");
      }
    } else {
      std::optional<std::string> given = BearerToken(r.Header("authorization"));
      if (!given || !TokenMatches(options.token, *given)) {
        HttpResponse e = JsonRpcError(401, -32600, given ? "the token is not this server's"
                                                         : "this server needs a bearer token (authorization: Bearer ...)");
        e.headers.emplace_back("www-authenticate", "Bearer");
        return e;
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (!limiter.Allow(r.peer, now)) {
      HttpResponse e = JsonRpcError(429, -32600, "too many requests from this client; retry later");
      e.headers.emplace_back("retry-after",
                             std::to_string(static_cast<int>(std::ceil(limiter.RetryAfterSeconds(r.peer, now)))));
      return e;
    }
    if (const std::string v = r.Header("mcp-protocol-version"); !v.empty()) {
      const auto& known = mcp::SupportedProtocolVersions();
      if (std::find(known.begin(), known.end(), v) == known.end()) {
        return JsonRpcError(400, -32600, "MCP-Protocol-Version '" + PrintableLine(Preview(v, 40)) +
                                             "' is not one this server speaks");
      }
    }
    return std::nullopt;
  }

  void Post(const std::shared_ptr<Exchange>& ex) {
    const HttpRequest& r = ex->request();
    Result<Json> parsed = ParseJson(r.body);
    if (!parsed.ok()) {
      return ex->Respond(JsonRpcError(400, -32700, "parse error: the body is not JSON (" +
                                                       parsed.status().message() + ")"));
    }
    const bool is_initialize = parsed.ok() && parsed->is_object() && parsed->contains("method") &&
                               (*parsed)["method"] == "initialize" && parsed->contains("id");
    std::string session_id = r.Header("mcp-session-id");
    std::shared_ptr<mcp::McpServer> server;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (is_initialize) {
        if (!MakeRoom()) {
          return ex->Respond(JsonRpcError(503, -32600, "every session of the server is running a call; retry "
                                                       "when one has finished"));
        }
        session_id = NewSessionId();
        server = std::make_shared<mcp::McpServer>(tools, server_options);
        sessions.emplace(session_id, Session{server, ++tick});
        Log().info("mcp: session opened ({} open)", sessions.size());
      } else if (session_id.empty()) {
        return ex->Respond(JsonRpcError(400, -32600, "this request needs the Mcp-Session-Id header of its session "
                                                     "(initialize first)"));
      } else if (auto it = sessions.find(session_id); it != sessions.end()) {
        server = it->second.server;
        it->second.used = ++tick;
      } else {
        return ex->Respond(JsonRpcError(404, -32600, "no such session (it ended); initialize again"));
      }
    }
    const HeaderList session_header = {{"mcp-session-id", session_id}};
    const bool wants_stream = r.Header("accept").find("text/event-stream") != std::string::npos && parsed.ok() &&
                              parsed->is_object() && (*parsed).contains("method") &&
                              (*parsed)["method"] == "tools/call" && parsed->contains("params") &&
                              (*parsed)["params"].is_object() && (*parsed)["params"].contains("_meta") &&
                              (*parsed)["params"]["_meta"].is_object() &&
                              (*parsed)["params"]["_meta"].contains("progressToken");
    mcp::McpServer::Send send;
    if (wants_stream) {
      std::shared_ptr<EventStream> stream = ex->Stream({{"cache-control", "no-store"}, session_header[0]});
      send = [stream](const std::string& json, mcp::McpServer::Kind kind) {
        if (kind != mcp::McpServer::Kind::kNoResponse) stream->Send("event: message\ndata: " + json + "\n\n");
        if (kind != mcp::McpServer::Kind::kNotification) stream->Close();
      };
    } else {
      send = [ex, session_header](const std::string& json, mcp::McpServer::Kind kind) {
        if (kind == mcp::McpServer::Kind::kNotification) return;  // a JSON answer carries the response only
        if (kind == mcp::McpServer::Kind::kNoResponse) {
          return ex->Respond(HttpResponse{.status = 204, .content_type = "", .headers = session_header});
        }
        // An error with no id (not JSON, not a request) is the client's fault: 400.
        Result<Json> m = ParseJson(json);
        const bool bad = m.ok() && m->contains("error") && m->contains("id") && (*m)["id"].is_null();
        ex->Respond(HttpResponse{.status = bad ? 400 : 200, .body = json, .headers = session_header});
      };
    }
    if (!server->Handle(r.body, send)) {
      ex->Respond(HttpResponse{.status = 202, .content_type = "", .headers = session_header});
    }
  }

  void Delete(const std::shared_ptr<Exchange>& ex) {
    std::shared_ptr<mcp::McpServer> server;
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = sessions.find(ex->request().Header("mcp-session-id"));
      if (it == sessions.end()) return ex->Respond(JsonRpcError(404, -32600, "no such session"));
      server = it->second.server;
      sessions.erase(it);
    }
    server->CancelAll();
    Log().info("mcp: session ended");
    ex->Respond(HttpResponse{.status = 200, .body = "{}"});
  }
};

McpHttpHandler::McpHttpHandler(std::shared_ptr<const ToolRegistry> tools, mcp::McpServerOptions server,
                               McpHttpOptions options)
    : impl_(std::make_shared<Impl>(std::move(tools), std::move(server), std::move(options))) {}

McpHttpHandler::~McpHttpHandler() { CancelAll(); }

void McpHttpHandler::Handle(const std::shared_ptr<Exchange>& ex) {
  const HttpRequest& r = ex->request();
  if (r.path != kPath) return ex->Respond(JsonRpcError(404, -32600, "no such endpoint; MCP is served at /mcp"));
  if (std::optional<HttpResponse> refused = impl_->Refusal(r)) return ex->Respond(std::move(*refused));
  if (r.method == "POST") return impl_->Post(ex);
  if (r.method == "DELETE") return impl_->Delete(ex);
  HttpResponse e = JsonRpcError(405, -32600, PrintableLine(Preview(r.method, 20)) + " is not allowed on /mcp (POST a message; DELETE ends a session)");
  e.headers.emplace_back("allow", "POST, DELETE");
  ex->Respond(std::move(e));
}

void McpHttpHandler::CancelAll() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  for (auto& [id, session] : impl_->sessions) session.server->CancelAll();
}

size_t McpHttpHandler::sessions() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->sessions.size();
}

}  // namespace medreact::server
