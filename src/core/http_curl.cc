// The libcurl HttpTransport: one HTTP/1.1 (or HTTP/2) exchange per Send().
//
// Each Send() uses its own easy handle driven by its own multi handle, so the
// transport object holds no per-request state and is safe to share between
// threads; curl_global_init runs once. Connections are kept alive and reused
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

struct EasyDeleter {
  void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};
struct MultiDeleter {
  void operator()(CURLM* multi) const { curl_multi_cleanup(multi); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
struct UrlDeleter {
  void operator()(CURLU* url) const { curl_url_cleanup(url); }
};

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
std::string HostPort(const std::string& url) {
  std::unique_ptr<CURLU, UrlDeleter> handle(curl_url());
  if (!handle || curl_url_set(handle.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) return "<bad url>";
  std::string out;
  char* part = nullptr;
  if (curl_url_get(handle.get(), CURLUPART_HOST, &part, 0) == CURLUE_OK) {
    out = part;
    curl_free(part);
  }
  if (curl_url_get(handle.get(), CURLUPART_PORT, &part, CURLU_DEFAULT_PORT) == CURLUE_OK) {
    out += ":";
    out += part;
    curl_free(part);
  }
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

Status MapCurlError(CURLcode code, const char* error_buffer, const Transfer& transfer,
                    const HttpRequest& request, CURL* easy) {
  const std::string peer = HostPort(request.url);
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
  std::string detail = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT: {
      // Which phase ran out: no connection (a reused one has a non-zero
      // pre-transfer time even when its connect time is 0), or a connection
      // that sent no response, or a response that did not finish.
      curl_off_t connect_us = 0;
      curl_off_t pretransfer_us = 0;
      curl_easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &connect_us);
      curl_easy_getinfo(easy, CURLINFO_PRETRANSFER_TIME_T, &pretransfer_us);
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
      return Status::Unavailable(std::string(curl_easy_strerror(code)) + " (" + peer + "): " + detail);
  }
}

// A libcurl share object holding the connection cache, with the locking
// libcurl requires when handles on several threads use it.
class ConnectionShare {
 public:
  ConnectionShare() : share_(curl_share_init()) {
    if (share_ == nullptr) return;
    curl_share_setopt(share_, CURLSHOPT_LOCKFUNC, &Lock);
    curl_share_setopt(share_, CURLSHOPT_UNLOCKFUNC, &Unlock);
    curl_share_setopt(share_, CURLSHOPT_USERDATA, this);
    curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  }
  ~ConnectionShare() {
    if (share_ != nullptr) curl_share_cleanup(share_);
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
  CURLSH* share_;
  std::mutex mutexes_[kKinds];
};

class CurlTransport : public HttpTransport {
 public:
  Result<HttpResponse> Send(const HttpRequest& request, const HttpChunkHandler& on_chunk,
                            const CancellationToken& cancel) override {
    static std::once_flag once;
    static CURLcode global_init = CURLE_OK;
    std::call_once(once, [] { global_init = curl_global_init(CURL_GLOBAL_DEFAULT); });
    if (global_init != CURLE_OK) return Status::Internal("curl_global_init failed");
    if (cancel.cancelled()) return Status::Cancelled("request cancelled before it was sent");
    try {
      std::call_once(share_once_, [this] { share_ = std::make_unique<ConnectionShare>(); });
      return Perform(request, on_chunk, cancel, share_->get());
    } catch (const std::exception& e) {  // std::bad_alloc and the like
      return Status::Internal(std::string("http transport: ") + e.what());
    }
  }

 private:
  std::once_flag share_once_;  // created on first use: after curl_global_init
  std::unique_ptr<ConnectionShare> share_;

  static Result<HttpResponse> Perform(const HttpRequest& request, const HttpChunkHandler& on_chunk,
                                      const CancellationToken& cancel, CURLSH* share) {
    std::unique_ptr<CURL, EasyDeleter> easy(curl_easy_init());
    std::unique_ptr<CURLM, MultiDeleter> multi(curl_multi_init());
    if (!easy || !multi) return Status::Internal("curl handle allocation failed");
    CURL* h = easy.get();

    Transfer transfer;
    transfer.on_chunk = &on_chunk;
    transfer.cancel = &cancel;
    transfer.idle_timeout = request.idle_timeout;
    transfer.max_bytes = request.max_response_bytes;
    char error_buffer[CURL_ERROR_SIZE] = {0};

    curl_slist* raw_headers = nullptr;
    for (const auto& [name, value] : request.headers) {
      raw_headers = curl_slist_append(raw_headers, (name + ": " + value).c_str());
    }
    // No "Expect: 100-continue" round trip before large bodies.
    if (!HasHeader(request, "expect")) raw_headers = curl_slist_append(raw_headers, "Expect:");
    std::unique_ptr<curl_slist, SlistDeleter> headers(raw_headers);

    curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    if (share != nullptr) curl_easy_setopt(h, CURLOPT_SHARE, share);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout.count()));
    const int64_t total_ms = std::max<int64_t>(0, request.total_timeout.count());  // 0 = no limit
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(total_ms));
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &OnHeader);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &transfer);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &OnBody);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &transfer);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, &OnProgress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, &transfer);
    if (request.method == "GET") {
      curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else {
      if (request.method != "POST") curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
    }

    if (curl_multi_add_handle(multi.get(), h) != CURLM_OK) {
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
      CURLMcode mc = curl_multi_perform(multi.get(), &running);
      if (mc != CURLM_OK) {
        curl_multi_remove_handle(multi.get(), h);
        return Status::Internal(std::string("curl_multi_perform: ") + curl_multi_strerror(mc));
      }
      int queued = 0;
      while (CURLMsg* msg = curl_multi_info_read(multi.get(), &queued)) {
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
      curl_multi_poll(multi.get(), wake_fd >= 0 ? &cancel_wait : nullptr, wake_fd >= 0 ? 1 : 0,
                      static_cast<int>(wait.count()), nullptr);
    }
    curl_multi_remove_handle(multi.get(), h);

    if (aborted || result != CURLE_OK) return MapCurlError(result, error_buffer, transfer, request, h);
    if (transfer.response.status == 0) {
      long code = 0;
      curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
      transfer.response.status = static_cast<int>(code);
    }
    return std::move(transfer.response);
  }
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
