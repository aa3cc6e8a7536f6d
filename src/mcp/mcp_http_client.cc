#include "mcp/mcp_http_client.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "core/log.h"
#include "core/printable.h"
#include "llm/sse.h"

namespace medreact::mcp {

std::vector<std::pair<std::string, std::string>> McpHttpHeaders(const std::string& session_id,
                                                                 const std::string& protocol_version,
                                                                 const std::string& bearer_token,
                                                                 const std::string& traceparent) {
  std::vector<std::pair<std::string, std::string>> headers = {
      {"Content-Type", "application/json"},
      {"Accept", "application/json, text/event-stream"},
  };
  if (!session_id.empty()) headers.emplace_back("Mcp-Session-Id", session_id);
  if (!protocol_version.empty()) headers.emplace_back("MCP-Protocol-Version", protocol_version);
  if (!bearer_token.empty()) headers.emplace_back("Authorization", "Bearer " + bearer_token);
  if (!traceparent.empty()) headers.emplace_back("traceparent", traceparent);
  return headers;
}

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

class HttpChannel : public McpChannel {
 public:
  explicit HttpChannel(McpHttpClientOptions options) : options_(std::move(options)) {
    if (!options_.transport) options_.transport = MakeCurlTransport();
  }
  ~HttpChannel() override { Close(); }

  std::string Describe() const override { return RedactUrl(options_.url); }
  bool replies_in_send() const override { return true; }

  Status Start(OnMessage on_message, OnFault, OnClosed) override {
    if (options_.url.rfind("http://", 0) != 0 && options_.url.rfind("https://", 0) != 0) {
      return Status::InvalidArgument("MCP URL '" + RedactUrl(options_.url) + "' is not http(s)");
    }
    on_message_ = std::move(on_message);
    return Status::OK();
  }

  Status Send(const Json& message, Deadline deadline, const CancellationToken& cancel) override {
    std::string session, version;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_) return Status::Unavailable("the connection to the MCP server " + Describe() + " is closed");
      session = session_id_;
      version = protocol_version_;
    }
    const bool is_initialize = StringOr(message, "method") == "initialize";
    HttpRequest request;
    request.method = "POST";
    request.url = options_.url;
    // The call's trace context (McpClient::CallTool puts it in the params'
    // _meta) goes in the W3C header too, where HTTP servers look for it.
    std::string traceparent;
    if (auto params = message.find("params"); params != message.end() && params->is_object()) {
      if (auto meta = params->find("_meta"); meta != params->end() && meta->is_object()) {
        traceparent = StringOr(*meta, "traceparent");
      }
    }
    request.headers = McpHttpHeaders(session, version, options_.bearer_token, traceparent);
    request.body = DumpJson(message);
    request.connect_timeout = options_.connect_timeout;
    request.total_timeout = std::max(Millis(1), deadline.remaining());
    request.idle_timeout = Millis(0);
    request.max_response_bytes = options_.max_response_bytes;
    Result<HttpResponse> response = options_.transport->Send(request, nullptr, cancel);
    if (!response.ok()) {
      const Status& s = response.status();
      if (s.code() == StatusCode::kTimeout || s.code() == StatusCode::kCancelled) return s;
      if (s.code() == StatusCode::kResourceExhausted) {
        return Status::ResourceExhausted("the MCP server " + Describe() + " sent a reply over " +
                                         std::to_string(options_.max_response_bytes) + " bytes (the limit)");
      }
      return Status::Unavailable("the MCP server " + Describe() + " cannot be reached: " + s.message());
    }
    const HttpResponse& r = *response;
    if (r.status == 401 || r.status == 403) {
      return Status::PermissionDenied("the MCP server " + Describe() + " refused the request (HTTP " +
                                      std::to_string(r.status) +
                                      "): give its bearer token in MEDREACT_MCP_TOKEN or in the variable named by "
                                      "(mcp_token_env)");
    }
    if (r.status == 404 && !session.empty()) {
      return Status::Unavailable("the MCP server " + Describe() + " no longer knows this session (HTTP 404)");
    }
    if (r.status < 200 || r.status >= 300) {
      return Status::Unavailable("the MCP server " + Describe() + " answered HTTP " + std::to_string(r.status));
    }
    if (is_initialize) {
      std::lock_guard<std::mutex> lock(mu_);
      session_id_ = r.Header("mcp-session-id");
    }
    if (r.status == 202 || r.body.empty()) return Status::OK();
    const std::string type = Lower(r.Header("content-type"));
    std::vector<Json> messages;
    if (type.find("text/event-stream") != std::string::npos) {
      SseDecoder decoder;
      std::string fault;
      auto handler = [&](SseEvent&& event) {
        if (event.data.empty()) return true;
        Result<Json> parsed = ParseJson(event.data);
        if (!parsed.ok()) {
          fault = "an event that is not JSON (" + parsed.status().message() + ")";
          return false;
        }
        messages.push_back(std::move(*parsed));
        return true;
      };
      decoder.Feed(r.body, handler);
      if (fault.empty()) decoder.Finish(handler);
      if (!fault.empty()) return Status::ParseError("the MCP server " + Describe() + " sent " + fault);
    } else if (type.find("application/json") != std::string::npos) {
      Result<Json> parsed = ParseJson(r.body);
      if (!parsed.ok()) {
        return Status::ParseError("the MCP server " + Describe() + " sent a reply that is not JSON (" +
                                  parsed.status().message() + ")");
      }
      if (parsed->is_array()) {
        for (Json& m : *parsed) messages.push_back(std::move(m));
      } else {
        messages.push_back(std::move(*parsed));
      }
    } else {
      return Status::ParseError("the MCP server " + Describe() + " answered with content type '" +
                                PrintableLine(Preview(type, 60)) + "', neither application/json nor text/event-stream");
    }
    for (Json& m : messages) {
      if (is_initialize && m.is_object() && m.contains("result") && m["result"].is_object()) {
        std::lock_guard<std::mutex> lock(mu_);
        protocol_version_ = StringOr(m["result"], "protocolVersion");
      }
      on_message_(std::move(m));
    }
    return Status::OK();
  }

  void Close() override {
    std::string session;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_) return;
      closed_ = true;
      session = session_id_;
    }
    if (session.empty() || !options_.transport) return;
    HttpRequest request;
    request.method = "DELETE";
    request.url = options_.url;
    request.headers = McpHttpHeaders(session, protocol_version_, options_.bearer_token);
    request.connect_timeout = Millis(2000);
    request.total_timeout = Millis(3000);
    Result<HttpResponse> r = options_.transport->Send(request, nullptr, CancellationToken());
    if (!r.ok()) Log().debug("mcp client: ending the session at {}: {}", Describe(), r.status().message());
  }

 private:
  McpHttpClientOptions options_;
  OnMessage on_message_;
  std::mutex mu_;
  std::string session_id_;
  std::string protocol_version_;
  bool closed_ = false;
};

}  // namespace

std::unique_ptr<McpChannel> MakeHttpChannel(McpHttpClientOptions options) {
  return std::make_unique<HttpChannel>(std::move(options));
}

}  // namespace medreact::mcp
