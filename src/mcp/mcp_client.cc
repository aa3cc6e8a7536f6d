#include "mcp/mcp_client.h"

#include <algorithm>
#include <set>
#include <utility>

#include "core/log.h"
#include "core/otel.h"
#include "core/printable.h"
#include "mcp/mcp_server.h"
#include "tools/imaging/image_codec.h"

namespace medreact::mcp {
namespace {

constexpr int kMethodNotFound = -32601;

std::string Seconds(Millis ms) {
  const int64_t n = ms.count();
  if (n % 1000 == 0) return std::to_string(n / 1000) + " s";
  return std::to_string(n) + " ms";
}

// Cuts `text` to at most `max` bytes without splitting a UTF-8 sequence.
std::string CutUtf8(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

std::string Capped(std::string text, const std::string& tool, size_t max) {
  if (text.size() <= max) return text;
  const size_t total = text.size();
  std::string out = CutUtf8(text, max);
  out += "\n[truncated: the result of MCP tool '" + tool + "' was " + std::to_string(total) +
         " bytes; the first " + std::to_string(out.size()) + " are shown]";
  return out;
}

// An image content block → the run's image store, or why not.
std::string StoreImage(const Json& block, const std::string& tool, const McpClientOptions& options) {
  const std::string mime = StringOr(block, "mimeType");
  const Json* data = block.contains("data") && block["data"].is_string() ? &block["data"] : nullptr;
  if (!data) return "[image from '" + tool + "' without base64 data: not kept]";
  const std::string& b64 = data->get_ref<const std::string&>();
  if (b64.size() / 4 * 3 > options.max_image_bytes + 3) {
    return "[image from '" + tool + "' of about " + std::to_string(b64.size() / 4 * 3) +
           " bytes refused: over the limit of " + std::to_string(options.max_image_bytes) + " bytes]";
  }
  if (!options.images) return "[image (" + Preview(mime, 40) + ") from '" + tool + "': no image store in this run, not kept]";
  Result<std::string> bytes = imaging::Base64Decode(b64);
  if (!bytes.ok()) return "[image from '" + tool + "' refused: its data is not base64]";
  Result<imaging::Raster> raster = Status::InvalidArgument("");
  if (mime == "image/png") {
    raster = imaging::DecodePng(*bytes, tool + " image");
  } else if (mime == "image/jpeg" || mime == "image/jpg") {
    raster = imaging::DecodeJpeg(*bytes, tool + " image");
  } else {
    return "[image of type '" + Preview(mime, 40) + "' from '" + tool + "': only PNG and JPEG are kept]";
  }
  if (!raster.ok()) return "[image from '" + tool + "' refused: " + raster.status().message() + "]";
  const int w = raster->width;
  const int h = raster->height;
  auto stored = options.images->AddGenerated(std::move(*raster), "mcp-" + tool, tool);
  if (!stored.ok()) return "[image from '" + tool + "' not kept: " + stored.status().message() + "]";
  return "[image " + (*stored)->id + " saved in the run's image store: " + std::to_string(w) + "x" +
         std::to_string(h) + " px " + mime + " from MCP tool '" + tool + "']";
}

std::string RpcError(const Json& error) {
  std::string code = "?";
  if (error.is_object() && error.contains("code") && error["code"].is_number_integer()) {
    code = std::to_string(error["code"].get<int64_t>());
  }
  std::string message = error.is_object() ? StringOr(error, "message") : "";
  return "error " + code + ": " + PrintableLine(Preview(message, 500));
}

}  // namespace

std::string SanitizeToolName(const std::string& name, size_t max_chars) {
  std::string out;
  for (char c : name) {
    if (out.size() >= max_chars) break;
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    out += ok ? c : '_';
  }
  return out.empty() ? "mcp" : out;
}

// ---- McpClient ---------------------------------------------------------------

McpClient::McpClient(std::unique_ptr<McpChannel> channel, McpClientOptions options)
    : channel_(std::move(channel)), options_(std::move(options)) {}

McpClient::~McpClient() { Close(); }

Result<std::shared_ptr<McpClient>> McpClient::Connect(std::unique_ptr<McpChannel> channel, McpClientOptions options) {
  if (!channel) return Status::InvalidArgument("MCP client: no channel");
  std::shared_ptr<McpClient> client(new McpClient(std::move(channel), std::move(options)));
  McpClient* self = client.get();
  Status started = self->channel_->Start([self](Json m) { self->OnMessage(std::move(m)); },
                                         [self](const std::string& why) { self->OnFault(why); },
                                         [self](const std::string& why) { self->OnClosed(why); });
  if (!started.ok()) return started;
  if (Status s = self->Handshake(); !s.ok()) {
    self->Close();
    return s;
  }
  return client;
}

std::string McpClient::Describe() const { return channel_->Describe(); }

std::string McpClient::closed_reason() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

Status McpClient::Handshake() {
  const std::string where = "MCP server (" + channel_->Describe() + ")";
  const std::string offered = SupportedProtocolVersions()[0];
  Result<Json> init = Request("initialize",
                              Json{{"protocolVersion", offered},
                                   {"capabilities", Json::object()},
                                   {"clientInfo", {{"name", "medreact"}, {"version", "0"}}}},
                              Deadline::In(options_.request_timeout), CancellationToken(), false);
  if (!init.ok()) return init.status().WithContext(where + ": initialize failed");
  const Json& r = *init;
  if (!r.is_object()) return Status::InvalidArgument(where + ": initialize answered with a result that is not an object");
  const std::string version = StringOr(r, "protocolVersion");
  const auto& known = SupportedProtocolVersions();
  if (std::find(known.begin(), known.end(), version) == known.end()) {
    std::string list;
    for (const auto& v : known) list += (list.empty() ? "" : ", ") + v;
    return Status::InvalidArgument(where + " speaks MCP protocol version '" + PrintableLine(Preview(version, 40)) +
                                   "', which medreact does not (it speaks " + list + ")");
  }
  protocol_version_ = version;
  std::string name;
  if (r.contains("serverInfo") && r["serverInfo"].is_object()) name = StringOr(r["serverInfo"], "name");
  {
    std::lock_guard<std::mutex> lock(mu_);  // OnClosed may read it from the channel's thread
    server_name_ = PrintableLine(Preview(name.empty() ? "mcp" : name, 64));
    prefix_ = SanitizeToolName(name.empty() ? "mcp" : name, 24);
  }
  Notify("notifications/initialized", Json::object());
  Log().info("mcp client: connected to {} ({}), protocol {}", server_name_, channel_->Describe(), protocol_version_);
  return Status::OK();
}

void McpClient::Notify(const std::string& method, Json params) {
  Json m = {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
  Status s = channel_->Send(m, Deadline::In(Millis(5000)), CancellationToken());
  if (!s.ok()) Log().debug("mcp client: {} to {} not sent: {}", method, channel_->Describe(), s.message());
}

Result<Json> McpClient::Request(const std::string& method, Json params, Deadline deadline,
                                const CancellationToken& cancel, bool cancellable) {
  const int64_t id = next_id_.fetch_add(1);
  auto pending = std::make_shared<Pending>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!closed_.empty()) return Status::Unavailable(closed_);
    pending_[id] = pending;
  }
  auto forget = [&] {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.erase(id);
  };
  auto give_up = [&](bool timed_out) -> Status {
    forget();
    if (cancellable) {
      Notify("notifications/cancelled",
             Json{{"requestId", id}, {"reason", timed_out ? "timed out in medreact" : "cancelled by medreact"}});
    }
    return timed_out ? Status::Timeout(method + " got no answer in time; " +
                                       (cancellable ? "notifications/cancelled was sent" : "given up"))
                     : Status::Cancelled(method + " was cancelled" +
                                         (cancellable ? "; notifications/cancelled was sent" : ""));
  };
  Json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
  Status sent = channel_->Send(message, deadline, cancel);
  if (!sent.ok()) {
    if (sent.code() == StatusCode::kTimeout) return give_up(true);
    if (sent.code() == StatusCode::kCancelled) return give_up(false);
    forget();
    if (!channel_->replies_in_send()) {  // a write to a child that died: say how it ended, once known
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, Millis(1000), [&] { return !closed_.empty(); });
      if (!closed_.empty()) return Status::Unavailable(closed_);
    }
    return sent;
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (!pending->done && channel_->replies_in_send()) {
    pending->done = true;
    pending->failed = "the MCP server " + channel_->Describe() + " replied to " + method + " without a response to it";
  }
  while (!pending->done) {
    if (cancel.cancelled()) {
      lock.unlock();
      return give_up(false);
    }
    if (deadline.expired()) {
      lock.unlock();
      return give_up(true);
    }
    cv_.wait_for(lock, std::min(Millis(50), std::max(Millis(1), deadline.remaining())));
  }
  pending_.erase(id);
  lock.unlock();
  if (!pending->failed.empty()) return Status::Unavailable(pending->failed);
  const Json& m = pending->message;
  if (m.contains("error")) return Status::InvalidArgument(method + ": the server answered " + RpcError(m["error"]));
  if (!m.contains("result")) return Status::InvalidArgument(method + ": the server's response has no result");
  return m["result"];
}

void McpClient::OnMessage(Json m) {
  if (!m.is_object()) {
    Log().debug("mcp client: {} sent a message that is not an object; ignored", channel_->Describe());
    return;
  }
  const bool has_id = m.contains("id");
  if (m.contains("method") && m["method"].is_string()) {
    const std::string method = m["method"].get<std::string>();
    if (has_id) {  // the server's own request
      Json reply = {{"jsonrpc", "2.0"}, {"id", m["id"]}};
      if (method == "ping") {
        reply["result"] = Json::object();
      } else {
        reply["error"] = {{"code", kMethodNotFound},
                          {"message", "medreact's MCP client does not offer '" + Preview(method, 64) + "'"}};
      }
      Status s = channel_->Send(reply, Deadline::In(Millis(5000)), CancellationToken());
      if (!s.ok()) Log().debug("mcp client: reply to {} not sent: {}", Preview(method, 64), s.message());
      return;
    }
    if (method == "notifications/tools/list_changed") {
      list_changed_ = true;
      Log().debug("mcp client: {} changed its tool list", channel_->Describe());
    } else {
      Log().debug("mcp client: {} notification {}", channel_->Describe(), Preview(method, 64));  // never its content
    }
    return;
  }
  if (!has_id || !m["id"].is_number_integer()) {
    Log().debug("mcp client: {} sent a message that is neither a request nor an answer to ours; ignored",
                channel_->Describe());
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pending_.find(m["id"].get<int64_t>());
  if (it == pending_.end()) return;  // an answer to a call given up
  it->second->message = std::move(m);
  it->second->done = true;
  cv_.notify_all();
}

void McpClient::FailAll(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, p] : pending_) {
    if (!p->done) {
      p->done = true;
      p->failed = why;
    }
  }
  cv_.notify_all();
}

void McpClient::OnFault(const std::string& why) {
  Log().warn("mcp client: {}: {}", channel_->Describe(), why);
  FailAll("the MCP server " + channel_->Describe() + " sent a message medreact cannot read: " + why);
}

void McpClient::OnClosed(const std::string& why) {
  std::string reason;
  {
    std::lock_guard<std::mutex> lock(mu_);
    reason = server_name_.empty()
                 ? "the MCP server " + channel_->Describe() + " " + why + " before the handshake ended"
                 : "the MCP server '" + server_name_ + "' " + why + "; its tools are unavailable for the rest of this run";
    if (closed_.empty()) closed_ = reason;
  }
  Log().warn("mcp client: {}", reason);
  FailAll(reason);
}

void McpClient::Close() {
  channel_->Close();
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_.empty()) closed_ = "the connection to the MCP server '" + server_name_ + "' was closed";
  for (auto& [id, p] : pending_) {
    if (!p->done) {
      p->done = true;
      p->failed = closed_;
    }
  }
  cv_.notify_all();
}

Result<std::vector<McpToolInfo>> McpClient::Tools() {
  std::lock_guard<std::mutex> list_lock(list_mu_);
  if (listed_ && !list_changed_.load()) return tools_;
  list_changed_ = false;
  std::vector<McpToolInfo> tools;
  std::set<std::string> cursors;
  Json cursor = nullptr;
  const std::string who = "MCP server '" + server_name_ + "'";
  for (int page = 1;; ++page) {
    if (page > options_.max_list_pages) {
      return Status::ResourceExhausted(who + ": tools/list did not end after " + std::to_string(options_.max_list_pages) +
                                       " pages (nextCursor every time); the list was refused");
    }
    Json params = Json::object();
    if (!cursor.is_null()) params["cursor"] = cursor;
    Result<Json> r = Request("tools/list", std::move(params), Deadline::In(options_.request_timeout),
                             CancellationToken(), true);
    if (!r.ok()) return r.status().WithContext(who);
    if (!r->is_object() || !r->contains("tools") || !(*r)["tools"].is_array()) {
      return Status::InvalidArgument(who + ": tools/list page " + std::to_string(page) + " has no \"tools\" array");
    }
    for (const Json& t : (*r)["tools"]) {
      if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) {
        Log().warn("mcp client: {} listed a tool without a name; skipped", server_name_);
        continue;
      }
      McpToolInfo info;
      info.name = t["name"].get<std::string>();
      info.description = StringOr(t, "description");
      info.input_schema = t.contains("inputSchema") ? t["inputSchema"] : Json(nullptr);
      info.output_schema = t.contains("outputSchema") ? t["outputSchema"] : Json(nullptr);
      if (t.contains("annotations") && t["annotations"].is_object()) {
        info.read_only = BoolOr(t["annotations"], "readOnlyHint", false);
      }
      tools.push_back(std::move(info));
      if (tools.size() > options_.max_tools) {
        return Status::ResourceExhausted(who + ": tools/list gave more than " + std::to_string(options_.max_tools) +
                                         " tools; the list was refused");
      }
    }
    if (!r->contains("nextCursor") || (*r)["nextCursor"].is_null()) break;
    const Json& next = (*r)["nextCursor"];
    if (!next.is_string()) return Status::InvalidArgument(who + ": tools/list gave a nextCursor that is not a string");
    if (!cursors.insert(next.get<std::string>()).second) {
      return Status::InvalidArgument(who + ": tools/list gave the same nextCursor twice (a list that never ends); "
                                           "the list was refused");
    }
    cursor = next;
  }
  tools_ = tools;
  listed_ = true;
  return tools;
}

Result<Json> McpClient::CallTool(const std::string& name, const Json& arguments, const ToolContext& ctx) {
  const Millis budget = std::min(options_.call_timeout, ctx.deadline.remaining());
  const Deadline deadline = Deadline::Earliest(Deadline::In(options_.call_timeout), ctx.deadline);
  Json params{{"name", name}, {"arguments", arguments}};
  // The trace context of the call (the tool's span, when tracing is on), in
  // `_meta` as MCP carries request metadata; the HTTP channel copies it into
  // the W3C traceparent header.
  if (std::string traceparent = otel::CurrentTraceparent(); !traceparent.empty()) {
    params["_meta"] = Json{{"traceparent", std::move(traceparent)}};
  }
  Result<Json> r = Request("tools/call", params, deadline, ctx.cancel, true);
  if (r.ok()) return r;
  const std::string who = "MCP server '" + server_name_ + "'";
  switch (r.status().code()) {
    case StatusCode::kTimeout:
      return Status::Timeout(who + " did not answer " + name + " within " +
                             Seconds(budget) +
                             "; the call was cancelled (notifications/cancelled sent)");
    case StatusCode::kCancelled:
      return Status::Cancelled("the call of " + name + " was cancelled (notifications/cancelled sent to " + who + ")");
    case StatusCode::kInvalidArgument:
      return Status::InvalidArgument(who + ": " + r.status().message());
    default:
      return r.status();
  }
}

// ---- results -----------------------------------------------------------------

ToolResult CallResultToToolResult(const Json& result, const std::string& tool, const McpClientOptions& options) {
  if (!result.is_object()) return ToolResult::Error("MCP tool '" + tool + "' answered with a result that is not an object");
  std::string text;
  auto add = [&](const std::string& part) {
    if (!text.empty()) text += "\n";
    text += part;
  };
  std::vector<std::string> image_notes;
  if (result.contains("content") && result["content"].is_array()) {
    for (const Json& block : result["content"]) {
      const std::string type = block.is_object() ? StringOr(block, "type") : "";
      if (type == "text") {
        add(StringOr(block, "text"));
      } else if (type == "image") {
        image_notes.push_back(StoreImage(block, tool, options));
        add(image_notes.back());
      } else if (type == "audio") {
        add("[audio (" + Preview(StringOr(block, "mimeType"), 40) + ") from '" + tool + "': not kept]");
      } else if (type == "resource_link") {
        add("[resource link: " + Preview(StringOr(block, "name"), 120) + " " + Preview(StringOr(block, "uri"), 300) + "]");
      } else if (type == "resource" && block.contains("resource") && block["resource"].is_object()) {
        const Json& res = block["resource"];
        if (res.contains("text") && res["text"].is_string()) {
          add(res["text"].get<std::string>());
        } else {
          add("[resource " + Preview(StringOr(res, "uri"), 300) + " (binary): not kept]");
        }
      } else {
        add("[content of type '" + Preview(type, 40) + "': not shown]");
      }
    }
  }
  const bool is_error = result.contains("isError") && result["isError"].is_boolean() && result["isError"].get<bool>();
  if (is_error) {
    return ToolResult::Error(Capped(text.empty() ? "MCP tool '" + tool + "' reported an error without text" : text, tool,
                                    options.max_result_bytes));
  }
  if (result.contains("structuredContent") && result["structuredContent"].is_object()) {
    std::string out = DumpJson(result["structuredContent"]);
    for (const std::string& note : image_notes) out += "\n" + note;
    return ToolResult::Ok(Capped(std::move(out), tool, options.max_result_bytes));
  }
  return ToolResult::Ok(Capped(std::move(text), tool, options.max_result_bytes));
}

// ---- tools -------------------------------------------------------------------

namespace {

class McpTool : public Tool {
 public:
  McpTool(ToolSpec spec, std::string mcp_name, std::shared_ptr<McpClient> client)
      : spec_(std::move(spec)), mcp_name_(std::move(mcp_name)), client_(std::move(client)) {}
  const ToolSpec& spec() const override { return spec_; }

  ToolResult Run(const Json& args, const ToolContext& ctx) override {
    if (client_->list_changed()) {  // the server changed its list: is this tool still there?
      Result<std::vector<McpToolInfo>> tools = client_->Tools();
      if (tools.ok() && std::none_of(tools->begin(), tools->end(),
                                     [&](const McpToolInfo& t) { return t.name == mcp_name_; })) {
        return ToolResult::Error("the MCP server '" + client_->server_name() + "' no longer offers '" + mcp_name_ +
                                 "' (its tool list changed); use another tool");
      }
    }
    const auto started = SteadyClock::now();
    Result<Json> r = client_->CallTool(mcp_name_, args, ctx);
    const auto ms = std::chrono::duration_cast<Millis>(SteadyClock::now() - started).count();
    Log().info("mcp client: {} {} in {} ms", spec_.name, r.ok() ? "answered" : "failed", ms);
    if (!r.ok()) return ToolResult::Error(r.status().message());
    return CallResultToToolResult(*r, mcp_name_, client_->options());
  }

 private:
  ToolSpec spec_;
  std::string mcp_name_;
  std::shared_ptr<McpClient> client_;
};

}  // namespace

Status AttachMcpTools(ToolRegistry& registry, const std::shared_ptr<McpClient>& client,
                      const std::function<void(const std::string&)>& warn,
                      std::map<std::string, std::string>* tool_packs, std::map<std::string, std::string>* mcp_names) {
  auto note = [&](const std::string& w) {
    if (warn) {
      warn(w);
    } else {
      Log().warn("mcp client: {}", w);
    }
  };
  Result<std::vector<McpToolInfo>> tools = client->Tools();
  if (!tools.ok()) return tools.status();
  const McpClientOptions& o = client->options();
  const std::string server = client->server_name();
  for (const McpToolInfo& t : *tools) {
    const std::string shown = PrintableLine(Preview(t.name, 80));
    if (!t.input_schema.is_object()) {
      note("MCP tool '" + shown + "' of server '" + server + "' refused: its inputSchema is not an object");
      continue;
    }
    const std::string schema_text = DumpJson(t.input_schema);
    if (schema_text.size() > o.max_schema_bytes) {
      note("MCP tool '" + shown + "' of server '" + server + "' refused: its inputSchema is " +
           std::to_string(schema_text.size()) + " bytes (limit " + std::to_string(o.max_schema_bytes) + ")");
      continue;
    }
    ToolSpec spec;
    spec.parameters = t.input_schema;
    spec.parameters.erase("$schema");  // the dialect tag: medreact validates with its own (draft 7) rules
    if (!spec.parameters.contains("type")) spec.parameters["type"] = "object";
    spec.idempotent = t.read_only;
    std::string name = SanitizeToolName(t.name);
    std::string why_renamed;
    if (name != t.name) why_renamed = "its name is not a valid tool name";
    if (registry.Find(name)) {
      name = SanitizeToolName(client->prefix() + "__" + SanitizeToolName(t.name));
      why_renamed = "its name clashes with a tool already attached";
    }
    if (registry.Find(name)) {
      note("MCP tool '" + shown + "' of server '" + server + "' refused: its name '" + name + "' is taken as well");
      continue;
    }
    std::string description = t.description.size() > o.max_description_chars
                                  ? CutUtf8(t.description, o.max_description_chars) + " [description cut]"
                                  : t.description;
    description = Printable(description);
    if (!why_renamed.empty()) {
      description += (description.empty() ? "" : " ") + std::string("(MCP tool '") + shown + "' of server '" + server +
                     "', renamed '" + name + "': " + why_renamed + ")";
      note("MCP tool '" + shown + "' of server '" + server + "' attached as '" + name + "': " + why_renamed);
    }
    spec.name = name;
    spec.description = std::move(description);
    Status s = registry.Register(std::make_unique<McpTool>(std::move(spec), t.name, client));
    if (!s.ok()) {
      note("MCP tool '" + shown + "' of server '" + server + "' refused: " + s.message());
      continue;
    }
    if (tool_packs) (*tool_packs)[name] = "mcp:" + client->prefix();
    if (mcp_names) (*mcp_names)[name] = t.name;
  }
  return Status::OK();
}

}  // namespace medreact::mcp
