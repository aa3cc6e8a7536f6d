// The libcurl HttpTransport: one HTTP/1.1 (or HTTP/2) exchange per Send().
//
// Each Send() drives its own easy handle with its own multi handle, so
// concurrent requests share nothing but the connection cache, and the
// transport is safe to share between threads. Handles are not made anew per
// request: a finished request's pair is reset and kept for the next one (one
// pair per concurrent request, in practice one per thread), which spares an
// allocation and the multi handle's wake-up socket pair per call.
//
// libcurl itself is loaded at the first Send() (dlopen) and initialised once,
// not when the program starts: libcurl and the ~30 libraries it pulls in
// (TLS, Kerberos, LDAP, SSH, IDN...) cost about 5 ms of CPU to map and
// relocate, more than the rest of the start-up of `medreact --help`, `calc`
// or a rules-planner triage, which never talk HTTP. Connections are kept alive and reused
// across Send() calls of one transport through a libcurl share object (its
// connection cache, locked per data kind): an agent's consecutive model calls
// skip the TCP (and TLS) handshake, and bursts of calls from a worklist do
// not overflow a server's listen queue. A connection the server closed is
// replaced by libcurl transparently. The loop sleeps in curl_multi_poll until
// the socket or one of libcurl's timers is ready, the idle timeout (time since
// the last received byte, headers included) is due, or the cancellation
// token's eventfd is written (CancellationToken::wake_fd): a wait for a slow
// model costs no CPU and a cancel is seen at once; the
// connect and total timeouts are libcurl's own (CURLOPT_CONNECTTIMEOUT_MS,
// CURLOPT_TIMEOUT_MS). Response headers arrive through the header callback as
// the status line ("HTTP/1.1 200 OK") followed by "Name: value" lines; a new
// status line (after "100 Continue", or a proxy's CONNECT reply) starts the
// header list afresh, and names are stored lower-cased. Body bytes of a 2xx
// response go to the caller's chunk handler when one is given, otherwise they
// are collected. Failures become a Status naming the peer as host:port, never
// quoting the request or response body: timeouts are kTimeout (saying which
// one), cancellation kCancelled, network failures kUnavailable.

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <dlfcn.h>

#include <curl/curl.h>

#include "medreact/http.h"

namespace medreact {

std::string HttpResponse::Header(std::string_view lower_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return value;
  }
  return "";
}

namespace {

// Without an eventfd for the cancellation token (the system refused one) the
// loop wakes this often to look at it; with one, it sleeps until something
// happens, at most kLongWait (libcurl's own timers cut it shorter).
constexpr Millis kPollSlice{50};
constexpr Millis kLongWait{60'000};

// libcurl's entry points, resolved from the shared library at the first
// request. Its soname has been libcurl.so.4 since libcurl 7.16 (2006).
constexpr char kCurlLibrary[] = "libcurl.so.4";

struct CurlApi {
  decltype(&curl_global_init) global_init = nullptr;
  decltype(&curl_easy_init) easy_init = nullptr;
  decltype(&curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&curl_easy_reset) easy_reset = nullptr;
  decltype(&curl_easy_setopt) easy_setopt = nullptr;
  decltype(&curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&curl_easy_strerror) easy_strerror = nullptr;
  decltype(&curl_multi_init) multi_init = nullptr;
  decltype(&curl_multi_cleanup) multi_cleanup = nullptr;
  decltype(&curl_multi_add_handle) multi_add_handle = nullptr;
  decltype(&curl_multi_remove_handle) multi_remove_handle = nullptr;
  decltype(&curl_multi_perform) multi_perform = nullptr;
  decltype(&curl_multi_info_read) multi_info_read = nullptr;
  decltype(&curl_multi_poll) multi_poll = nullptr;
  decltype(&curl_multi_strerror) multi_strerror = nullptr;
  decltype(&curl_slist_append) slist_append = nullptr;
  decltype(&curl_slist_free_all) slist_free_all = nullptr;
  decltype(&curl_url) url = nullptr;
  decltype(&curl_url_set) url_set = nullptr;
  decltype(&curl_url_get) url_get = nullptr;
  decltype(&curl_url_cleanup) url_cleanup = nullptr;
  decltype(&curl_free) free = nullptr;
  decltype(&curl_share_init) share_init = nullptr;
  decltype(&curl_share_setopt) share_setopt = nullptr;
  decltype(&curl_share_cleanup) share_cleanup = nullptr;
};

template <typename F>
bool Bind(void* library, const char* name, F& fn) {
  fn = reinterpret_cast<F>(::dlsym(library, name));
  return fn != nullptr;
}

Result<const CurlApi*> OpenCurl() {
  void* library = ::dlopen(kCurlLibrary, RTLD_LAZY | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = ::dlerror();
    return Status::Unavailable(std::string("cannot load ") + kCurlLibrary + " (Debian package libcurl4): " +
                               (why != nullptr ? why : "unknown error"));
  }
  static CurlApi api;
  const bool bound =
      Bind(library, "curl_global_init", api.global_init) && Bind(library, "curl_easy_init", api.easy_init) &&
      Bind(library, "curl_easy_cleanup", api.easy_cleanup) && Bind(library, "curl_easy_reset", api.easy_reset) &&
      Bind(library, "curl_easy_setopt", api.easy_setopt) && Bind(library, "curl_easy_getinfo", api.easy_getinfo) &&
      Bind(library, "curl_easy_strerror", api.easy_strerror) && Bind(library, "curl_multi_init", api.multi_init) &&
      Bind(library, "curl_multi_cleanup", api.multi_cleanup) &&
      Bind(library, "curl_multi_add_handle", api.multi_add_handle) &&
      Bind(library, "curl_multi_remove_handle", api.multi_remove_handle) &&
      Bind(library, "curl_multi_perform", api.multi_perform) &&
      Bind(library, "curl_multi_info_read", api.multi_info_read) && Bind(library, "curl_multi_poll", api.multi_poll) &&
      Bind(library, "curl_multi_strerror", api.multi_strerror) &&
      Bind(library, "curl_slist_append", api.slist_append) && Bind(library, "curl_slist_free_all", api.slist_free_all) &&
      Bind(library, "curl_url", api.url) && Bind(library, "curl_url_set", api.url_set) &&
      Bind(library, "curl_url_get", api.url_get) && Bind(library, "curl_url_cleanup", api.url_cleanup) &&
      Bind(library, "curl_free", api.free) && Bind(library, "curl_share_init", api.share_init) &&
      Bind(library, "curl_share_setopt", api.share_setopt) && Bind(library, "curl_share_cleanup", api.share_cleanup);
  if (!bound) return Status::Unavailable(std::string(kCurlLibrary) + " lacks a function medreact needs (libcurl < 7.66)");
  if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return Status::Internal("curl_global_init failed");
  return &api;
}

// libcurl, loaded and initialised once per process and never unloaded; the
// Status says why when that failed. Immortal (never destroyed at exit): a
// thread still sending during static destruction (the trace exporter's
// final flush, core/otel.h) must find it.
const Result<const CurlApi*>& Curl() {
  static const auto* loaded = new Result<const CurlApi*>(OpenCurl());
  return *loaded;
}

// State shared with the libcurl callbacks of one transfer.
struct Transfer {
  const HttpChunkHandler* on_chunk = nullptr;
  const CancellationToken* cancel = nullptr;
  Millis idle_timeout{0};
  HttpResponse response;
  SteadyClock::time_point last_byte = SteadyClock::now();
  size_t max_bytes = 0;   // 0 = no limit
  size_t bytes_seen = 0;  // headers and body
  bool cancelled = false;
  bool idle_expired = false;
  bool handler_aborted = false;
  bool too_large = false;

  // Counts n more received bytes; false (and too_large) past the limit.
  bool Count(size_t n) {
    bytes_seen += n;
    if (max_bytes > 0 && bytes_seen > max_bytes) too_large = true;
    return !too_large;
  }

  bool streaming() const { return on_chunk != nullptr && *on_chunk && response.status / 100 == 2; }

  // True when the transfer should stop now (and records why).
  bool ShouldAbort() {
    if (cancel->cancelled()) cancelled = true;
    if (idle_timeout.count() > 0 && SteadyClock::now() - last_byte > idle_timeout) idle_expired = true;
    return cancelled || idle_expired;
  }
};

std::string_view TrimLine(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  size_t n = size * count;
  transfer->last_byte = SteadyClock::now();
  if (!transfer->Count(n)) return 0;  // libcurl stops with CURLE_WRITE_ERROR
  std::string_view line = TrimLine(std::string_view(data, n));
  if (line.starts_with("HTTP/")) {
    transfer->response.headers.clear();
    transfer->response.body.clear();
    transfer->response.status = 0;
    size_t space = line.find(' ');
    if (space != std::string_view::npos) {
      int status = 0;
      for (size_t i = space + 1; i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])); ++i) {
        status = status * 10 + (line[i] - '0');
      }
      transfer->response.status = status;
    }
    return n;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return n;
  std::string name(TrimLine(line.substr(0, colon)));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  transfer->response.headers.emplace_back(std::move(name), std::string(TrimLine(line.substr(colon + 1))));
  return n;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  size_t n = size * count;
  transfer->last_byte = SteadyClock::now();
  if (!transfer->Count(n)) return 0;  // libcurl stops with CURLE_WRITE_ERROR
  if (!transfer->streaming()) {
    transfer->response.body.append(data, n);
    return n;
  }
  bool keep_going = false;
  try {
    keep_going = (*transfer->on_chunk)(std::string_view(data, n));
  } catch (...) {  // never let an exception cross libcurl's C frames
    keep_going = false;
  }
  if (!keep_going) {
    transfer->handler_aborted = true;
    return 0;  // makes libcurl fail the transfer with CURLE_WRITE_ERROR
  }
  return n;
}

int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<Transfer*>(user)->ShouldAbort() ? 1 : 0;
}

// "host:port" of a URL, for error messages.
std::string HostPort(const CurlApi& curl, const std::string& url) {
  CURLU* handle = curl.url();
  if (handle == nullptr) return "<bad url>";
  std::string out = "<bad url>";
  char* part = nullptr;
  if (curl.url_set(handle, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
    out.clear();
    if (curl.url_get(handle, CURLUPART_HOST, &part, 0) == CURLUE_OK) {
      out = part;
      curl.free(part);
    }
    if (curl.url_get(handle, CURLUPART_PORT, &part, CURLU_DEFAULT_PORT) == CURLUE_OK) {
      out += ":";
      out += part;
      curl.free(part);
    }
  }
  curl.url_cleanup(handle);
  return out;
}

bool HasHeader(const HttpRequest& request, std::string_view lower_name) {
  for (const auto& [name, value] : request.headers) {
    if (name.size() != lower_name.size()) continue;
    if (std::equal(name.begin(), name.end(), lower_name.begin(),
                   [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; })) {
      return true;
    }
  }
  return false;
}

Status MapCurlError(const CurlApi& curl, CURLcode code, const char* error_buffer, const Transfer& transfer,
                    const HttpRequest& request, CURL* easy) {
  const std::string peer = HostPort(curl, request.url);
  if (transfer.cancelled) return Status::Cancelled("request to " + peer + " cancelled");
  if (transfer.too_large) {
    return Status::ResourceExhausted("the response from " + peer + " is larger than the " +
                                     std::to_string(request.max_response_bytes >> 20) + " MiB limit");
  }
  if (transfer.idle_expired) {
    return Status::Timeout("idle timeout: no data from " + peer + " for " +
                           std::to_string(request.idle_timeout.count()) + " ms");
  }
  if (transfer.handler_aborted) {
    return Status::Cancelled("transfer from " + peer + " aborted by the body handler");
  }
  std::string detail = error_buffer[0] != '\0' ? error_buffer : curl.easy_strerror(code);
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT: {
      // Which phase ran out: no connection (a reused one has a non-zero
      // pre-transfer time even when its connect time is 0), or a connection
      // that sent no response, or a response that did not finish.
      curl_off_t connect_us = 0;
      curl_off_t pretransfer_us = 0;
      curl.easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &connect_us);
      curl.easy_getinfo(easy, CURLINFO_PRETRANSFER_TIME_T, &pretransfer_us);
      if (connect_us == 0 && pretransfer_us == 0) {
        return Status::Timeout("connect timeout: " + peer + " not reached within " +
                               std::to_string(request.connect_timeout.count()) + " ms");
      }
      if (transfer.bytes_seen == 0) {
        return Status::Timeout("read timeout: " + peer + " accepted the request but sent no response within " +
                               std::to_string(request.total_timeout.count()) + " ms");
      }
      return Status::Timeout("total timeout: the response from " + peer + " did not complete within " +
                             std::to_string(request.total_timeout.count()) + " ms");
    }
    case CURLE_ABORTED_BY_CALLBACK:
      return Status::Cancelled("request to " + peer + " aborted");
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return Status::InvalidArgument("bad URL for " + peer + ": " + detail);
    default:
      return Status::Unavailable(std::string(curl.easy_strerror(code)) + " (" + peer + "): " + detail);
  }
}

// A libcurl share object holding the connection cache, with the locking
// libcurl requires when handles on several threads use it.
class ConnectionShare {
 public:
  explicit ConnectionShare(const CurlApi& curl) : curl_(curl), share_(curl.share_init()) {
    if (share_ == nullptr) return;
    curl_.share_setopt(share_, CURLSHOPT_LOCKFUNC, &Lock);
    curl_.share_setopt(share_, CURLSHOPT_UNLOCKFUNC, &Unlock);
    curl_.share_setopt(share_, CURLSHOPT_USERDATA, this);
    curl_.share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    curl_.share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  }
  ~ConnectionShare() {
    if (share_ != nullptr) curl_.share_cleanup(share_);
  }
  ConnectionShare(const ConnectionShare&) = delete;
  ConnectionShare& operator=(const ConnectionShare&) = delete;
  CURLSH* get() const { return share_; }

 private:
  static void Lock(CURL*, curl_lock_data data, curl_lock_access, void* self) {
    static_cast<ConnectionShare*>(self)->mutexes_[Index(data)].lock();
  }
  static void Unlock(CURL*, curl_lock_data data, void* self) {
    static_cast<ConnectionShare*>(self)->mutexes_[Index(data)].unlock();
  }
  static size_t Index(curl_lock_data data) {
    const auto i = static_cast<size_t>(data);
    return i < kKinds ? i : 0;
  }
  static constexpr size_t kKinds = CURL_LOCK_DATA_LAST;
  const CurlApi& curl_;
  CURLSH* share_;
  std::mutex mutexes_[kKinds];
};

// An easy handle and the multi handle that drives it.
struct Handles {
  CURL* easy = nullptr;
  CURLM* multi = nullptr;
};

class CurlTransport : public HttpTransport {
 public:
  ~CurlTransport() override {
    // Only idle handles are left: a transport outlives its Send() calls.
    for (const Handles& h : idle_) Free(h);
  }

  Result<HttpResponse> Send(const HttpRequest& request, const HttpChunkHandler& on_chunk,
                            const CancellationToken& cancel) override {
    const Result<const CurlApi*>& curl = Curl();
    if (!curl.ok()) return curl.status();
    if (cancel.cancelled()) return Status::Cancelled("request cancelled before it was sent");
    try {
      std::call_once(share_once_, [&] { share_ = std::make_unique<ConnectionShare>(**curl); });
      Handles handles = Take(**curl);
      if (handles.easy == nullptr || handles.multi == nullptr) {
        Free(handles);
        return Status::Internal("curl handle allocation failed");
      }
      Result<HttpResponse> result = Perform(**curl, handles, request, on_chunk, cancel, share_->get());
      Give(handles);
      return result;
    } catch (const std::exception& e) {  // std::bad_alloc and the like
      return Status::Internal(std::string("http transport: ") + e.what());
    }
  }

 private:
  // An idle pair, or a new one.
  Handles Take(const CurlApi& curl) {
    {
      std::lock_guard<std::mutex> lock(idle_mu_);
      if (!idle_.empty()) {
        Handles h = idle_.back();
        idle_.pop_back();
        return h;
      }
    }
    return {curl.easy_init(), curl.multi_init()};
  }

  // Back to the idle list, every option reset (the connection stays in the
  // share's cache, not in the handle).
  void Give(Handles h) {
    const CurlApi& curl = **Curl();
    curl.multi_remove_handle(h.multi, h.easy);  // a no-op when already removed
    curl.easy_reset(h.easy);
    std::lock_guard<std::mutex> lock(idle_mu_);
    idle_.push_back(h);
  }

  static void Free(const Handles& h) {
    const CurlApi& curl = **Curl();
    if (h.multi != nullptr) curl.multi_cleanup(h.multi);
    if (h.easy != nullptr) curl.easy_cleanup(h.easy);
  }

  static Result<HttpResponse> Perform(const CurlApi& curl, const Handles& handles, const HttpRequest& request,
                                      const HttpChunkHandler& on_chunk, const CancellationToken& cancel,
                                      CURLSH* share) {
    CURL* h = handles.easy;
    CURLM* multi = handles.multi;

    Transfer transfer;
    transfer.on_chunk = &on_chunk;
    transfer.cancel = &cancel;
    transfer.idle_timeout = request.idle_timeout;
    transfer.max_bytes = request.max_response_bytes;
    char error_buffer[CURL_ERROR_SIZE] = {0};

    curl_slist* raw_headers = nullptr;
    for (const auto& [name, value] : request.headers) {
      raw_headers = curl.slist_append(raw_headers, (name + ": " + value).c_str());
    }
    // No "Expect: 100-continue" round trip before large bodies.
    if (!HasHeader(request, "expect")) raw_headers = curl.slist_append(raw_headers, "Expect:");
    const std::unique_ptr<curl_slist, decltype(curl.slist_free_all)> headers(raw_headers, curl.slist_free_all);

    curl.easy_setopt(h, CURLOPT_URL, request.url.c_str());
    curl.easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
    curl.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl.easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
    curl.easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    if (share != nullptr) curl.easy_setopt(h, CURLOPT_SHARE, share);
    curl.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout.count()));
    const int64_t total_ms = std::max<int64_t>(0, request.total_timeout.count());  // 0 = no limit
    curl.easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(total_ms));
    curl.easy_setopt(h, CURLOPT_HEADERFUNCTION, &OnHeader);
    curl.easy_setopt(h, CURLOPT_HEADERDATA, &transfer);
    curl.easy_setopt(h, CURLOPT_WRITEFUNCTION, &OnBody);
    curl.easy_setopt(h, CURLOPT_WRITEDATA, &transfer);
    curl.easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl.easy_setopt(h, CURLOPT_XFERINFOFUNCTION, &OnProgress);
    curl.easy_setopt(h, CURLOPT_XFERINFODATA, &transfer);
    if (request.method == "GET") {
      curl.easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else {
      if (request.method != "POST") curl.easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
      curl.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
      curl.easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
    }

    if (curl.multi_add_handle(multi, h) != CURLM_OK) {
      return Status::Internal("curl_multi_add_handle failed");
    }
    const int wake_fd = cancel.wake_fd();
    curl_waitfd cancel_wait{};
    cancel_wait.fd = wake_fd;
    cancel_wait.events = CURL_WAIT_POLLIN;
    CURLcode result = CURLE_OK;
    bool finished = false;
    bool aborted = false;
    while (!finished) {
      int running = 0;
      CURLMcode mc = curl.multi_perform(multi, &running);
      if (mc != CURLM_OK) {
        curl.multi_remove_handle(multi, h);
        return Status::Internal(std::string("curl_multi_perform: ") + curl.multi_strerror(mc));
      }
      int queued = 0;
      while (CURLMsg* msg = curl.multi_info_read(multi, &queued)) {
        if (msg->msg == CURLMSG_DONE && msg->easy_handle == h) {
          result = msg->data.result;
          finished = true;
        }
      }
      if (finished) break;
      if (transfer.ShouldAbort()) {
        aborted = true;
        break;
      }
      // Sleep until the socket, one of libcurl's own timers, the idle limit
      // or a cancellation (the token's eventfd) has something to say.
      Millis wait = wake_fd >= 0 ? kLongWait : kPollSlice;
      if (transfer.idle_timeout.count() > 0) {
        const auto idle_left = transfer.idle_timeout - std::chrono::duration_cast<Millis>(SteadyClock::now() - transfer.last_byte);
        wait = std::clamp(idle_left + Millis(1), Millis(1), wait);
      }
      curl.multi_poll(multi, wake_fd >= 0 ? &cancel_wait : nullptr, wake_fd >= 0 ? 1 : 0,
                      static_cast<int>(wait.count()), nullptr);
    }
    curl.multi_remove_handle(multi, h);

    if (aborted || result != CURLE_OK) return MapCurlError(curl, result, error_buffer, transfer, request, h);
    if (transfer.response.status == 0) {
      long code = 0;
      curl.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
      transfer.response.status = static_cast<int>(code);
    }
    return std::move(transfer.response);
  }

  std::once_flag share_once_;  // created on first use: after libcurl is loaded
  std::unique_ptr<ConnectionShare> share_;
  // Handles of finished requests; the destructor frees them before the share
  // they are attached to.
  std::mutex idle_mu_;
  std::vector<Handles> idle_;
};

}  // namespace

std::shared_ptr<HttpTransport> MakeCurlTransport() { return std::make_shared<CurlTransport>(); }

std::string RedactUrl(std::string_view url) {
  std::string out;
  size_t authority = url.find("://");
  authority = authority == std::string_view::npos ? 0 : authority + 3;
  const size_t authority_end = std::min(url.find_first_of("/?#", authority), url.size());
  const std::string_view host_part = url.substr(authority, authority_end - authority);
  const size_t at = host_part.rfind('@');
  out.append(url.substr(0, authority));
  if (at != std::string_view::npos) out += "***@";
  out.append(at == std::string_view::npos ? host_part : host_part.substr(at + 1));
  std::string_view rest = url.substr(authority_end);
  const size_t query = rest.find('?');
  if (query == std::string_view::npos) {
    out.append(rest);
  } else {
    out.append(rest.substr(0, query));
    out += "?***";
  }
  return out;
}

}  // namespace medreact
