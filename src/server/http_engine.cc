#include "server/http_engine.h"

#include <array>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <future>
#include <optional>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <deque>
#include <list>
#include <mutex>
#include <thread>

namespace medreact::server {
namespace {

namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

std::chrono::milliseconds Millis(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

}  // namespace

struct HttpEngine::Impl : std::enable_shared_from_this<Impl> {
  struct Session;
  class ExchangeImpl;
  class StreamImpl;

  HttpEngineOptions options;
  HttpHandler handler;
  net::io_context ioc;
  std::optional<tcp::acceptor> acceptor;
  // Keeps run() going while the server lives (until Stop), with or without connections.
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  std::vector<std::thread> threads;
  int bound_port = 0;
  std::atomic<bool> stopping{false};
  std::atomic<int64_t> connections{0}, streams{0}, requests{0}, too_large{0}, dropped_slow{0};
  std::mutex mu;
  std::list<std::weak_ptr<Session>> sessions;  // guarded by mu; for Stop

  Impl(HttpEngineOptions o, HttpHandler h) : options(std::move(o)), handler(std::move(h)), ioc(options.io_threads) {}

  void Accept();
};

// One connection: requests in turn (keep-alive), or one event stream.
struct HttpEngine::Impl::Session : std::enable_shared_from_this<Session> {
  Impl* engine;  // outlives the session: whoever holds a session holds the engine too
  beast::tcp_stream stream;
  beast::flat_buffer buffer;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser;
  std::list<std::weak_ptr<Session>>::iterator registered;
  bool keep_alive = false;
  // A stream's state; on the session's strand.
  bool streaming = false;
  bool writing = false;
  bool ending = false;  // Close() asked: the last chunk after the queue
  std::deque<std::string> queue;
  std::string in_flight;    // what the write under way sends (the queue joined)
  size_t queued_bytes = 0;  // queued or in flight, framing included
  std::array<char, 512> sink{};  // what a streaming client sends (ignored; its end closes the stream)
  std::atomic<bool> closed{false};
  std::mutex close_mu;
  std::vector<std::function<void()>> on_close;  // guarded by close_mu

  Session(Impl* e, tcp::socket socket) : engine(e), stream(std::move(socket)) {}

  void Read() {
    parser.emplace();
    parser->body_limit(engine->options.max_body_bytes);
    parser->header_limit(static_cast<uint32_t>(engine->options.max_header_bytes));
    stream.expires_after(Millis(engine->options.read_timeout_s));
    bhttp::async_read(stream, buffer, *parser,
                      [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void OnRead(beast::error_code ec);  // below ExchangeImpl

  void WriteResponse(HttpResponse r) {
    auto res = std::make_shared<bhttp::response<bhttp::string_body>>(static_cast<bhttp::status>(r.status), 11);
    res->set(bhttp::field::server, "medreact");
    if (!r.content_type.empty()) res->set(bhttp::field::content_type, r.content_type);
    for (auto& [name, value] : r.headers) res->insert(name, value);
    res->body() = std::move(r.body);
    res->keep_alive(keep_alive && !engine->stopping);
    res->prepare_payload();
    stream.expires_after(Millis(engine->options.read_timeout_s));  // a client that does not read
    bhttp::async_write(stream, *res, [self = shared_from_this(), res](beast::error_code ec, size_t) {
      if (ec || !res->keep_alive()) return self->Shutdown();
      self->Read();
    });
  }

  // The stream's header, then what Send queues, as chunks.
  void StartStream(const HeaderList& headers, const std::string& content_type) {
    streaming = true;
    ++engine->streams;
    std::string head = "HTTP/1.1 200 OK\r\nServer: medreact\r\nContent-Type: " + content_type +
                       "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n";
    for (const auto& [name, value] : headers) head += name + ": " + value + "\r\n";
    head += "\r\n";
    queue.push_front(std::move(head));
    stream.expires_never();
    WriteNext();
    // The client's end (or anything it sends) is seen here.
    stream.async_read_some(net::buffer(sink), [self = shared_from_this()](beast::error_code, size_t) {
      self->Shutdown();
    });
  }

  void Queue(std::string data) {
    if (closed) return;
    char size[32];
    const int n = std::snprintf(size, sizeof size, "%zx\r\n", data.size());
    std::string chunk = std::string(size, static_cast<size_t>(n)) + data + "\r\n";
    queued_bytes += chunk.size();
    if (queued_bytes > engine->options.stream_buffer_bytes) {
      ++engine->dropped_slow;
      return Shutdown();
    }
    queue.push_back(std::move(chunk));
    WriteNext();
  }

  void End() {
    ending = true;
    WriteNext();
  }

  void WriteNext() {
    if (writing || closed) return;
    if (queue.empty()) {
      if (!ending) return;
      ending = false;
      queue.push_back("0\r\n\r\n");
      writing = true;
      net::async_write(stream, net::buffer(queue.front()), [self = shared_from_this()](beast::error_code, size_t) {
        self->writing = false;
        self->Shutdown();
      });
      return;
    }
    // Everything queued in one write: one system call and one completion for
    // all the messages a stream got since its last write (a busy stream's
    // cost per message was its own write, completion and strand post).
    writing = true;
    in_flight.clear();
    while (!queue.empty()) {
      in_flight += queue.front();
      queue.pop_front();
    }
    net::async_write(stream, net::buffer(in_flight), [self = shared_from_this()](beast::error_code ec, size_t n) {
      self->writing = false;
      if (ec) return self->Shutdown();
      self->queued_bytes -= std::min(self->queued_bytes, n);
      self->WriteNext();
    });
  }

  // Closes the connection and runs the stream's close callbacks (once).
  void Shutdown() {
    if (closed.exchange(true)) return;
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream.socket().close(ignored);
    if (streaming) --engine->streams;
    --engine->connections;
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard<std::mutex> lock(close_mu);
      callbacks.swap(on_close);
    }
    for (auto& f : callbacks) f();
    std::lock_guard<std::mutex> lock(engine->mu);
    engine->sessions.erase(registered);
  }

  void Post(std::function<void()> f) { net::post(stream.get_executor(), std::move(f)); }
};

class HttpEngine::Impl::StreamImpl : public EventStream {
 public:
  StreamImpl(std::shared_ptr<Impl> engine, std::shared_ptr<Session> session, bool dead)
      : engine_(std::move(engine)), session_(std::move(session)), dead_(dead) {}
  bool Send(std::string data) override {
    if (dead_ || session_->closed) return false;
    session_->Post([s = session_, d = std::move(data)]() mutable { s->Queue(std::move(d)); });
    return true;
  }
  void Close() override {
    if (dead_) return;
    session_->Post([s = session_] { s->End(); });
  }
  bool closed() const override { return dead_ || session_->closed; }
  void OnClose(std::function<void()> done) override {
    if (dead_) return done();
    {
      std::lock_guard<std::mutex> lock(session_->close_mu);
      if (!session_->closed) {
        session_->on_close.push_back(std::move(done));
        return;
      }
    }
    done();
  }

 private:
  std::shared_ptr<Impl> engine_;  // keeps the I/O context alive while the stream is held
  std::shared_ptr<Session> session_;
  const bool dead_;  // the exchange had been answered: this is no stream
};

class HttpEngine::Impl::ExchangeImpl : public Exchange {
 public:
  ExchangeImpl(std::shared_ptr<Impl> engine, std::shared_ptr<Session> session, std::shared_ptr<HttpRequest> request)
      : engine_(std::move(engine)), session_(std::move(session)), request_(std::move(request)) {}
  const HttpRequest& request() const override { return *request_; }
  void Respond(HttpResponse response) override {
    if (answered_.exchange(true)) return;
    session_->Post([s = session_, r = std::move(response)]() mutable { s->WriteResponse(std::move(r)); });
  }
  std::shared_ptr<EventStream> Stream(HeaderList headers, std::string content_type) override {
    const bool answered = answered_.exchange(true);
    auto stream = std::make_shared<StreamImpl>(engine_, session_, answered);
    if (answered) return stream;
    session_->Post([s = session_, h = std::move(headers), t = std::move(content_type)] { s->StartStream(h, t); });
    return stream;
  }

 private:
  std::shared_ptr<Impl> engine_;
  std::shared_ptr<Session> session_;
  std::shared_ptr<HttpRequest> request_;
  std::atomic<bool> answered_{false};
};

void HttpEngine::Impl::Session::OnRead(beast::error_code ec) {
  if (ec == bhttp::error::body_limit || ec == bhttp::error::header_limit) {
    ++engine->too_large;
    const bool body = ec == bhttp::error::body_limit;
    keep_alive = false;
    WriteResponse(HttpResponse{
        .status = body ? 413 : 431,
        .body = std::string("{\"error\":{\"code\":\"") + (body ? "too_large" : "headers_too_large") +
                "\",\"message\":\"the request's " + (body ? "body is larger than the server's limit of " +
                                                                std::to_string(engine->options.max_body_bytes) +
                                                                " bytes"
                                                          : "headers are larger than the server's limit") +
                "\"}}"});
    return;
  }
  if (ec) return Shutdown();  // the client left, timed out, or sent what is not HTTP
  ++engine->requests;
  stream.expires_never();
  bhttp::request<bhttp::string_body> req = parser->release();
  keep_alive = req.keep_alive();
  auto request = std::make_shared<HttpRequest>();
  request->method = std::string(req.method_string());
  const std::string_view target(req.target().data(), req.target().size());
  const size_t q = target.find('?');
  request->path = std::string(target.substr(0, q));
  if (q != std::string_view::npos) request->query = std::string(target.substr(q + 1));
  for (const auto& field : req) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    request->headers.emplace_back(std::move(name), std::string(field.value()));
  }
  request->body = std::move(req.body());
  beast::error_code ignored;
  const tcp::endpoint peer = stream.socket().remote_endpoint(ignored);
  if (!ignored) request->peer = peer.address().to_string();
  auto exchange = std::make_shared<ExchangeImpl>(engine->shared_from_this(), shared_from_this(), std::move(request));
  try {
    engine->handler(exchange);
  } catch (const std::exception&) {
    exchange->Respond({.status = 500,
                       .body = "{\"error\":{\"code\":\"internal\",\"message\":\"the server failed on this "
                               "request; see its log\"}}"});
  }
}

void HttpEngine::Impl::Accept() {
  // `this`, not a shared_ptr: the handler lives in `ioc`, a member, so it can
  // never outlive the engine (a shared_ptr here made a cycle that kept the
  // engine alive after Stop when the handler had not run).
  acceptor->async_accept(net::make_strand(ioc), [self = this](beast::error_code ec, tcp::socket socket) {
    if (ec) {
      if (ec == net::error::operation_aborted || self->stopping) return;
      return self->Accept();  // e.g. too many open files: the next one may succeed
    }
    if (self->connections >= self->options.max_connections) {
      beast::error_code ignored;
      socket.close(ignored);
      return self->Accept();
    }
    ++self->connections;
    auto session = std::make_shared<Session>(self, std::move(socket));
    {
      std::lock_guard<std::mutex> lock(self->mu);
      self->sessions.push_front(session);
      session->registered = self->sessions.begin();
    }
    net::post(session->stream.get_executor(), [session] { session->Read(); });
    self->Accept();
  });
}

HttpEngine::HttpEngine(HttpEngineOptions options, HttpHandler handler)
    : impl_(std::make_shared<Impl>(std::move(options), std::move(handler))) {}

HttpEngine::~HttpEngine() { Stop(); }

Status HttpEngine::Start() {
  Impl& m = *impl_;
  const std::string where = m.options.host + ":" + std::to_string(m.options.port);
  beast::error_code ec;
  const net::ip::address address =
      net::ip::make_address(m.options.host == "localhost" ? std::string("127.0.0.1") : m.options.host, ec);
  if (ec) return Status::InvalidArgument("the server's host '" + m.options.host + "' is not an IP address");
  if (m.options.port < 0 || m.options.port > 65535) {
    return Status::InvalidArgument("the server's port " + std::to_string(m.options.port) + " is not 0..65535");
  }
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(m.options.port));
  m.acceptor.emplace(m.ioc);
  auto fail = [&](const std::string& what) {
    m.acceptor.reset();
    return Status::Unavailable("cannot " + what + " " + where + ": " + ec.message());
  };
  if (m.acceptor->open(endpoint.protocol(), ec); ec) return fail("open a socket for");
  if (m.acceptor->set_option(net::socket_base::reuse_address(true), ec); ec) return fail("set up");
  if (m.acceptor->bind(endpoint, ec); ec) return fail("listen on");
  if (m.acceptor->listen(net::socket_base::max_listen_connections, ec); ec) return fail("listen on");
  m.bound_port = m.acceptor->local_endpoint(ec).port();
  m.Accept();
  m.work.emplace(m.ioc.get_executor());
  const int n = std::max(1, m.options.io_threads);
  for (int i = 0; i < n; ++i) m.threads.emplace_back([impl = impl_] { impl->ioc.run(); });
  return Status::OK();
}

int HttpEngine::port() const { return impl_->bound_port; }

void HttpEngine::Stop() {
  Impl& m = *impl_;
  if (m.stopping.exchange(true)) return;
  if (m.acceptor) {
    net::post(m.ioc, [impl = impl_] {
      beast::error_code ignored;
      impl->acceptor->close(ignored);
    });
  }
  std::vector<std::shared_ptr<Impl::Session>> open;
  {
    std::lock_guard<std::mutex> lock(m.mu);
    for (auto& w : m.sessions) {
      if (auto s = w.lock()) open.push_back(std::move(s));
    }
  }
  for (auto& s : open) s->Post([s] { s->Shutdown(); });
  // Give the closes a moment to run, then stop the loop.
  if (!m.threads.empty()) {
    auto done = std::make_shared<std::promise<void>>();
    std::future<void> f = done->get_future();
    net::post(m.ioc, [done] { done->set_value(); });
    f.wait_for(std::chrono::seconds(2));
  }
  m.work.reset();
  m.ioc.stop();
  bool on_io_thread = false;
  for (std::thread& t : m.threads) {
    if (t.get_id() == std::this_thread::get_id()) {
      on_io_thread = true;
      t.detach();  // Stop from an I/O thread: it ends when its handler returns
    } else if (t.joinable()) {
      t.join();
    }
  }
  m.threads.clear();
  if (on_io_thread) return;
  // Run what the stop left queued (closes not yet run, the completions of
  // cancelled reads and writes), so every session is shut down and lets go
  // of what it holds (a stream's close callbacks hold its subscription).
  for (const std::shared_ptr<Impl::Session>& s : open) s->Post([s] { s->Shutdown(); });
  m.ioc.restart();
  for (int i = 0; i < 100 && m.ioc.poll() > 0; ++i) {
  }
}

HttpEngineStats HttpEngine::stats() const {
  const Impl& m = *impl_;
  return {.connections_open = m.connections,
          .streams_open = m.streams,
          .requests = m.requests,
          .refused_too_large = m.too_large,
          .streams_dropped_slow = m.dropped_slow};
}

// ---- http.h helpers ----

std::string HttpRequest::Header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (n == name) return v;
  }
  return "";
}

std::optional<std::string> HttpRequest::Query(std::string_view key) const {
  std::string_view rest = query;
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    const size_t eq = pair.find('=');
    std::optional<std::string> k = PercentDecode(pair.substr(0, eq), true);
    if (!k || *k != key) continue;
    if (eq == std::string_view::npos) return std::string();
    return PercentDecode(pair.substr(eq + 1), true);
  }
  return std::nullopt;
}

std::optional<std::string> PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int hi = hex(text[i + 1]), lo = hex(text[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace medreact::server
