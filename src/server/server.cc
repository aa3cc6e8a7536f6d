#include "server/server.h"

#include <sys/stat.h>

#include <filesystem>

#include "server/api.h"
#include "server/auth.h"
#include "server/event_hub.h"
#include "server/http_engine.h"
#include "server/mcp_http.h"
#include "server/rate_limit.h"
#include "service/run_images.h"
#include "service/run_service.h"
#include "tools/calc/calc_pack.h"
#include "tools/packs.h"

namespace medreact::server {

namespace {

// The /mcp endpoint over options.mcp_packs: packs without files only, the
// network's only when the server allows it.
Result<std::shared_ptr<McpHttpHandler>> MakeMcpEndpoint(const ServeOptions& o) {
  auto tools = std::make_shared<ToolRegistry>();
  std::map<std::string, std::string> tool_packs;
  for (const std::string& pack : o.mcp_packs) {
    if (pack == "fhir" || pack == "rag") {
      return Status::InvalidArgument("the " + pack + " pack reads a file and cannot be served at /mcp by the server "
                                     "(mcp_packs); serve it with medreact mcp instead");
    }
    for (const PackInfo& info : KnownPacks()) {
      if (info.name == pack && info.network && !o.network_tools) {
        return Status::InvalidArgument("the " + pack + " pack reaches the network: allow network tools "
                                       "(network_tools) to serve it at /mcp (mcp_packs)");
      }
    }
  }
  if (Status s = RegisterPacks(*tools, o.mcp_packs, {}, &tool_packs); !s.ok()) return s.WithContext("mcp_packs");
  mcp::McpServerOptions server{.version = MEDREACT_VERSION};
  for (const auto& [tool, pack] : tool_packs) {
    if (pack == "calc") server.output_schemas[tool] = CalculatorOutputSchema();
  }
  return std::make_shared<McpHttpHandler>(
      tools, std::move(server),
      McpHttpOptions{.host = o.host,
                     .token = o.token,
                     .origins = o.cors_origins,
                     .rate = {.per_second = o.rate_per_second, .burst = o.rate_burst}});
}

}  // namespace

struct Server::Impl {
  ServeOptions options;
  std::shared_ptr<RunStore> store;
  std::shared_ptr<service::RunService> service;
  std::shared_ptr<EventHub> hub;  // shared with the work that outlives a stop (ApiState)
  std::unique_ptr<Api> api;
  std::shared_ptr<McpHttpHandler> mcp;  // /mcp, when options.mcp_packs names packs
  std::shared_ptr<HttpEngine> engine;  // /metrics holds it weakly
  std::vector<std::string> taken_over;
  bool started = false;
};

Status CheckServeOptions(const ServeOptions& o) {
  if (!IsLoopbackAddress(o.host) && o.token.empty()) {
    return Status::InvalidArgument("the server listens on " + o.host +
                                   ", which is not loopback: a token is required (token_file)");
  }
  if (!o.token.empty() && o.token.size() < 16) {
    return Status::InvalidArgument("the server's token must be at least 16 characters (token_file)");
  }
  for (const std::string& root : o.input_roots) {
    std::error_code ec;
    if (root.empty() || root.front() != '/' || !std::filesystem::is_directory(root, ec)) {
      return Status::InvalidArgument("input root '" + root + "' is not an absolute path of a folder (input_root)");
    }
  }
  if (Status s = CheckRateLimitOptions({.per_second = o.rate_per_second, .burst = o.rate_burst}); !s.ok()) return s;
  if (o.max_concurrent_runs < 1 || o.max_concurrent_runs > 256) {
    return Status::InvalidArgument("max_concurrent_runs must be 1..256");
  }
  if (o.max_body_bytes < 1024) return Status::InvalidArgument("max_body_bytes must be at least 1024");
  return Status::OK();
}

Server::Server(ServeOptions options, std::shared_ptr<RunStore> store) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->store = std::move(store);
}

Server::~Server() { Stop(0); }

Status Server::Start() {
  Impl& m = *impl_;
  if (Status s = CheckServeOptions(m.options); !s.ok()) return s;
  if (m.options.upload_dir.empty()) m.options.upload_dir = service::UploadFolderForStore(m.store->path());
  std::error_code ec;
  std::filesystem::create_directories(m.options.upload_dir, ec);
  if (ec || ::chmod(m.options.upload_dir.c_str(), 0700) != 0) {
    return Status::Unavailable("cannot make the upload folder " + m.options.upload_dir + ": " +
                               (ec ? ec.message() : std::string("chmod failed")));
  }
  m.service = std::make_shared<service::RunService>(m.store);
  m.hub = std::make_shared<EventHub>(m.store, EventHubOptions{.heartbeat_s = m.options.heartbeat_s});
  m.api = std::make_unique<Api>(m.options, m.service, m.hub);
  if (!m.options.mcp_packs.empty()) {
    Result<std::shared_ptr<McpHttpHandler>> mcp = MakeMcpEndpoint(m.options);
    if (!mcp.ok()) return mcp.status();
    m.mcp = std::move(*mcp);
  }
  m.engine = std::make_shared<HttpEngine>(
      HttpEngineOptions{.host = m.options.host,
                        .port = m.options.port,
                        .io_threads = m.options.io_threads,
                        .max_body_bytes = m.options.max_body_bytes},
      [api = m.api.get(), mcp = m.mcp](std::shared_ptr<Exchange> ex) {
        if (mcp && ex->request().path == "/mcp") return mcp->Handle(ex);
        api->Handle(std::move(ex));
      });
  m.api->SetEngineStats([engine = std::weak_ptr<HttpEngine>(m.engine)] {
    std::shared_ptr<HttpEngine> e = engine.lock();
    return e ? e->stats() : HttpEngineStats{};
  });
  if (Status s = m.hub->Start(); !s.ok()) return s;
  if (Status s = m.engine->Start(); !s.ok()) {
    m.hub->Stop();
    return s;
  }
  m.started = true;
  if (m.options.take_over) m.taken_over = m.api->TakeOverOrphans();
  return Status::OK();
}

int Server::port() const { return impl_->engine ? impl_->engine->port() : 0; }

const std::vector<std::string>& Server::taken_over() const { return impl_->taken_over; }

void Server::Stop(double grace_s) {
  Impl& m = *impl_;
  if (!m.started) return;
  m.started = false;
  if (m.mcp) m.mcp->CancelAll();
  m.engine->Stop();
  m.api->StopRuns(grace_s);
  m.hub->Stop();
}

}  // namespace medreact::server
