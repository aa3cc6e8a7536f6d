// MockLlmServer: routes, recording, script consumption and the wait logic.
//
// httplib runs the accept loop on our thread and each connection on a pool
// worker. A handler records the request, takes the next script entry (or the
// route's next entry) under the mutex and serves it; streams are written from a chunked content
// provider, one SSE frame per call, so pauses between frames and the
// truncation fault (returning false leaves the chunked body unterminated and
// drops the connection) fall out naturally. Every wait goes through Pause(),
// a condition-variable wait that Stop() ends at once: httplib's stop() joins
// the workers, so no wait may outlive it.
#include "mockllm/mock_server.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>

#include <cctype>
#include <chrono>
#include <cstdlib>

#include <httplib.h>

#include "mockllm/mock_anthropic.h"
#include "mockllm/mock_response.h"
#include "core/text_util.h"

namespace medreact::mockllm {
namespace {

constexpr size_t kWorkerThreads = 16;       // hangs must not starve other connections
constexpr size_t kKeepAliveMaxRequests = 100;  // per connection, like common servers
constexpr int kListenBacklog = 128;

// The number of assistant messages in a chat request: the conversation's turn.
size_t AssistantTurns(const Json& request) {
  size_t turns = 0;
  auto messages = request.find("messages");
  if (messages == request.end() || !messages->is_array()) return 0;
  for (const Json& m : *messages) {
    if (m.is_object() && m.value("role", std::string()) == "assistant") ++turns;
  }
  return turns;
}

std::string StripBrackets(const std::string& host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    return host.substr(1, host.size() - 2);
  }
  return host;
}

// The parsed body, the text itself when it is not JSON, "" when empty.
Json BodyValue(const std::string& body) {
  if (body.empty()) return "";
  Result<Json> parsed = ParseJson(body);
  if (parsed.ok()) return std::move(parsed).value();
  // Round-trip through a replacing dump so the record is always valid UTF-8.
  Result<Json> clean = ParseJson(DumpJson(Json(body)));
  return clean.ok() ? std::move(clean).value() : Json("");
}

int LocalPort(const sockaddr_storage& addr) {
  if (addr.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in&>(addr).sin_port);
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(addr).sin6_port);
  return -1;
}

// Calls fn(fd, listening) for each TCP socket of this process whose local
// port is `port`. Linux-only (/proc/self/fd); elsewhere it finds nothing.
template <typename Fn>
void ForEachSocketOnPort(int port, Fn fn) {
  std::vector<int> fds;
  if (DIR* dir = opendir("/proc/self/fd")) {
    while (const dirent* entry = readdir(dir)) {
      char* end = nullptr;
      const long fd = std::strtol(entry->d_name, &end, 10);
      if (end != entry->d_name && *end == '\0') fds.push_back(static_cast<int>(fd));
    }
    closedir(dir);
  }
  for (int fd : fds) {
    int type = 0;
    int listening = 0;
    socklen_t size = sizeof(int);
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) != 0 || type != SOCK_STREAM) continue;
    size = sizeof(int);
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) != 0) continue;
    sockaddr_storage local{};
    socklen_t local_size = sizeof(local);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_size) != 0) continue;
    if (LocalPort(local) != port) continue;
    fn(fd, listening != 0);
  }
}

// httplib keeps an idle keep-alive connection open for its whole timeout and
// offers no way to close it, so Stop() would wait for it. This finds the
// connections our listening port accepted (connected stream sockets of this
// process whose local port is ours) and shuts them down without closing them:
// their workers then see end-of-file at once, and httplib still owns and
// closes the descriptors.
void ShutdownAcceptedConnections(int port) {
  ForEachSocketOnPort(port, [](int fd, bool listening) {
    if (listening) return;
    sockaddr_storage peer{};
    socklen_t peer_size = sizeof(peer);
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0) return;
    shutdown(fd, SHUT_RDWR);
  });
}

// Debian builds cpp-httplib as a library whose listen backlog is fixed at 5:
// a burst of new connections (a worklist's workers starting together)
// overflows it, the kernel drops a SYN and the client retries a second
// later. Calling listen() again on the bound socket raises the backlog
// (Linux allows it); the kernel still caps it at net.core.somaxconn.
void RaiseListenBacklog(int port, int backlog) {
  ForEachSocketOnPort(port, [backlog](int fd, bool listening) {
    if (listening) listen(fd, backlog);
  });
}

void SetJson(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "application/json");
}

}  // namespace

Result<MockScript> MockLlmServer::ParseScript(const Json& script) {
  try {
    return ParseMockScript(script);
  } catch (const Json::exception& e) {
    return Status::Internal(std::string("mock script: unexpected JSON error: ") + e.what());
  }
}

bool MockLlmServer::IsLoopbackHost(const std::string& host) {
  const std::string bare = StripBrackets(host);
  if (AsciiLower(bare) == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, bare.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, bare.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

MockLlmServer::MockLlmServer(MockScript script) : script_(std::move(script)) {}

MockLlmServer::~MockLlmServer() { Stop(); }

void MockLlmServer::SetRequestObserver(RequestObserver observer) {
  std::lock_guard<std::mutex> lock(observer_mu_);
  observer_ = std::move(observer);
}

Status MockLlmServer::Start(const std::string& host, int port) {
  std::lock_guard<std::mutex> lifecycle(lifecycle_mu_);
  if (!IsLoopbackHost(host)) {
    return Status::InvalidArgument("mock server: refusing to listen on non-loopback host '" + host +
                                   "' (use 127.0.0.1, localhost or ::1)");
  }
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument("mock server: port " + std::to_string(port) + " out of range");
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (started_ || stopping_) {
      return Status::FailedPrecondition("mock server: Start() called twice or after Stop()");
    }
  }
  started_ = true;
  {
    std::lock_guard<std::mutex> lock(mu_);
    host_ = host;
  }

  server_ = std::make_unique<httplib::Server>();
  server_->new_task_queue = [] { return new httplib::ThreadPool(kWorkerThreads); };
  server_->set_keep_alive_max_count(kKeepAliveMaxRequests);
  // Headers and body go out in separate writes; without TCP_NODELAY a reused
  // (kept-alive) connection waits ~40 ms per reply on Nagle + delayed ACK.
  server_->set_tcp_nodelay(true);
  // httplib's default is SO_REUSEPORT, which lets a second server share a busy
  // port and silently split the requests; a script must have one reader.
  server_->set_socket_options([](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  InstallRoutes();

  const std::string bind_host = StripBrackets(host);
  int bound = -1;
  if (port == 0) {
    bound = server_->bind_to_any_port(bind_host);
  } else if (server_->bind_to_port(bind_host, port)) {
    bound = port;
  }
  if (bound <= 0) {
    return Status::Unavailable("mock server: cannot listen on " + host + ":" + std::to_string(port));
  }
  port_ = bound;
  RaiseListenBacklog(bound, kListenBacklog);
  thread_ = std::thread([this] {
    // httplib writes without MSG_NOSIGNAL: a client that hangs up mid-stream
    // would raise SIGPIPE and kill the whole process. Blocked here, it is
    // blocked in every worker too (they inherit this thread's mask), and the
    // write just fails with EPIPE.
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    server_->listen_after_bind();
    listen_returned_ = true;
  });
  // stop() is a no-op until the accept loop runs, so Start() waits for it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!server_->is_running() && !listen_returned_) {
    if (std::chrono::steady_clock::now() > deadline) {
      return Status::Internal("mock server: accept loop did not start within 10 s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (listen_returned_) return Status::Unavailable("mock server: accept loop ended at once");
  return Status::OK();
}

std::string MockLlmServer::base_url() const {
  std::string host;
  {
    std::lock_guard<std::mutex> lock(mu_);
    host = host_.empty() ? "127.0.0.1" : host_;
  }
  const std::string bare = StripBrackets(host);
  const std::string shown = bare.find(':') != std::string::npos ? "[" + bare + "]" : bare;
  return "http://" + shown + ":" + std::to_string(port()) + "/v1";
}

std::vector<Json> MockLlmServer::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

size_t MockLlmServer::served() const {
  std::lock_guard<std::mutex> lock(mu_);
  return served_;
}

void MockLlmServer::Stop() {
  std::lock_guard<std::mutex> lifecycle(lifecycle_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (server_) server_->stop();
  if (thread_.joinable()) {
    ShutdownAcceptedConnections(port());
    thread_.join();
  }
}

bool MockLlmServer::Pause(int ms) {
  std::unique_lock<std::mutex> lock(mu_);
  if (ms <= 0) return !stopping_;
  return !stop_cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stopping_; });
}

Json MockLlmServer::Record(const httplib::Request& req) {
  Json headers = Json::object();
  for (const auto& [name, value] : req.headers) {
    // httplib adds the peer's and our own address as pseudo-headers.
    if (name == "REMOTE_ADDR" || name == "REMOTE_PORT" || name == "LOCAL_ADDR" ||
        name == "LOCAL_PORT") {
      continue;
    }
    const std::string key = AsciiLower(name);
    if (headers.contains(key)) {
      headers[key] = headers[key].get<std::string>() + ", " + value;
    } else {
      headers[key] = value;
    }
  }
  Json record = {{"method", req.method}, {"path", req.path}, {"headers", std::move(headers)},
                 {"body", BodyValue(req.body)}};
  // The observer lock is taken first and held while appending, so observers
  // see requests in exactly the order of requests().
  std::lock_guard<std::mutex> observe(observer_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(record);
  }
  if (observer_) observer_(record);
  return record;
}

void MockLlmServer::InstallRoutes() {
  auto chat = [this](const httplib::Request& req, httplib::Response& res) { HandleChat(req, res, false); };
  server_->Post("/v1/chat/completions", chat);
  server_->Post("/chat/completions", chat);
  // Anthropic's Messages API, from the same script (mock_anthropic.h).
  server_->Post("/v1/messages", [this](const httplib::Request& req, httplib::Response& res) {
    HandleChat(req, res, true);
  });

  auto models = [this](const httplib::Request& req, httplib::Response& res) {
    Record(req);
    SetJson(res, 200, R"({"object":"list","data":[{"id":"mock","object":"model"}]})");
  };
  server_->Get("/v1/models", models);
  server_->Get("/models", models);

  server_->Get("/props", [this](const httplib::Request&, httplib::Response& res) {
    if (script_.props.is_null()) {
      SetJson(res, 404, ErrorBodyText("Invalid URL (GET /props)", "invalid_request_error"));
    } else {
      SetJson(res, 200, DumpJson(script_.props));
    }
  });

  server_->Get("/_mock/requests", [this](const httplib::Request&, httplib::Response& res) {
    SetJson(res, 200, DumpJson(Json(requests())));
  });

  // Scripted routes are looked up here, by exact path, rather than
  // registered: httplib would read a path as a regular expression.
  auto not_found = [this](const httplib::Request& req, httplib::Response& res) {
    if (auto route = script_.routes.find(req.path); route != script_.routes.end()) {
      HandleRoute(route->first, route->second, req, res);
      return;
    }
    Record(req);
    SetJson(res, 404,
            ErrorBodyText("Invalid URL (" + req.method + " " + req.path + ")", "invalid_request_error"));
  };
  server_->Get(".*", not_found);
  server_->Post(".*", not_found);
  server_->Put(".*", not_found);
  server_->Patch(".*", not_found);
  server_->Delete(".*", not_found);
  server_->Options(".*", not_found);
}

void MockLlmServer::HandleChat(const httplib::Request& req, httplib::Response& res, bool anthropic) {
  Record(req);
  Result<Json> parsed = ParseJson(req.body);
  if (!parsed.ok() || !parsed->is_object()) {
    const std::string why = parsed.ok() ? "must be a JSON object"
                                        : "is not valid JSON (" + parsed.status().message() + ")";
    const std::string message = "mock: request body " + why;
    SetJson(res, 400, anthropic ? AnthropicErrorBodyText(message, "invalid_request_error")
                                : ErrorBodyText(message, "invalid_request_error"));
    return;
  }
  const Json& request = *parsed;

  const MockEntry* entry = nullptr;
  int64_t sequence = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    sequence = ++chat_requests_;
    size_t index = next_entry_;
    if (script_.select == MockScript::Select::kByTurn) {
      index = AssistantTurns(request);
    } else {
      ++next_entry_;
    }
    if (index < script_.responses.size()) {
      entry = &script_.responses[index];
    } else if (script_.on_exhausted == MockScript::OnExhausted::kRepeatLast) {
      entry = &script_.responses.back();
    }
    if (entry != nullptr) ++served_;
  }
  if (!BeginEntry(entry, "mock script", script_.responses.size(), res)) return;

  const bool stream = request.contains("stream") && request.at("stream") == true;
  switch (entry->kind) {
    case MockEntry::Kind::kHangOnly:
      SetJson(res, 504,
              ErrorBodyText("mock: hang of " + std::to_string(entry->hang_ms) +
                                " ms elapsed; no response was scripted",
                            "timeout"));
      return;
    case MockEntry::Kind::kPlain:
      res.status = entry->status;
      res.set_content(entry->body, entry->content_type);
      return;
    case MockEntry::Kind::kMessage:
      if (!stream) {
        SetJson(res, 200, anthropic ? AnthropicMessageBody(*entry, request, sequence)
                                    : CompletionBody(*entry, request, sequence));
        return;
      }
      ServeStream(*entry, anthropic ? AnthropicStreamFrames(*entry, request, sequence)
                                    : StreamFrames(*entry, request, sequence), res);
      return;
    case MockEntry::Kind::kChunks:
      ServeStream(*entry, anthropic ? AnthropicStreamFrames(*entry, request, sequence)
                                    : StreamFrames(*entry, request, sequence), res);
      return;
  }
}

bool MockLlmServer::BeginEntry(const MockEntry* entry, const std::string& what, size_t scripted,
                               httplib::Response& res) {
  if (entry == nullptr) {
    SetJson(res, 500,
            ErrorBodyText(what + " exhausted: all " + std::to_string(scripted) + " scripted responses were already served",
                          "mock_script_exhausted"));
    return false;
  }
  if (!Pause(entry->delay_ms) || !Pause(entry->hang_ms)) {
    res.set_header("Connection", "close");  // so the worker does not linger in keep-alive
    SetJson(res, 503, ErrorBodyText("mock server is stopping", "server_error"));
    return false;
  }
  for (const auto& [name, value] : entry->headers) res.set_header(name, value);
  return true;
}

void MockLlmServer::HandleRoute(const std::string& path, const MockRoute& route, const httplib::Request& req,
                                httplib::Response& res) {
  Record(req);
  const MockEntry* entry = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t index = route_next_[path]++;
    if (index < route.responses.size()) {
      entry = &route.responses[index];
    } else if (route.on_exhausted == MockOnExhausted::kRepeatLast) {
      entry = &route.responses.back();
    }
  }
  if (!BeginEntry(entry, "mock route " + path, route.responses.size(), res)) return;
  if (entry->kind == MockEntry::Kind::kPlain) {
    res.status = entry->status;
    res.set_content(entry->body, entry->content_type);
    return;
  }
  // kHangOnly: the parser admits no other kind in a route.
  SetJson(res, 504,
          ErrorBodyText("mock: hang of " + std::to_string(entry->hang_ms) + " ms elapsed; no response was scripted",
                        "timeout"));
}

void MockLlmServer::ServeStream(const MockEntry& entry, std::vector<std::string> frames, httplib::Response& res) {
  struct StreamState {
    std::vector<std::string> frames;
    size_t next = 0;
    bool truncate = false;
    int delay_ms = 0;
  };
  auto state = std::make_shared<StreamState>();
  state->frames = std::move(frames);
  state->truncate = entry.truncate_after.has_value();
  state->delay_ms = entry.chunk_delay_ms;

  res.status = 200;
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream", [this, state](size_t /*offset*/, httplib::DataSink& sink) {
        if (state->next >= state->frames.size()) {
          if (state->truncate) return false;  // drop the connection mid-body
          sink.done();
          return true;
        }
        if (state->next > 0 && !Pause(state->delay_ms)) return false;
        const std::string& frame = state->frames[state->next++];
        return sink.write(frame.data(), frame.size());
      });
}

}  // namespace medreact::mockllm
