// medreact_serve_load: load and latency figures for `medreact serve` (issue 25;
// docs/benchmarks.md, "medreact serve"). Raw sockets on loopback, no HTTP
// library, so the client's own cost stays small and visible. bench/serve_bench.sh
// starts the scripted model and the server and runs each mode:
//
//   create    K keep-alive clients POST /v1/runs for T seconds: runs/s and the
//             POST's p50/p99; with --events-path, one SSE stream beside them
//             counts the events it receives per second.
//   streams   N SSE streams (one thread, epoll), then runs started at --rate
//             per second: delay = receive time - the event's stored "at"
//             (p50/p99/max), the server's VmRSS before and with the streams
//             open, /healthz latency sampled every 100 ms throughout.
//   overhead  one chat run at a time through the server (POST, then its
//             /v1/runs/{id}/events until `event: end`): wall and the server's
//             CPU per run; then the same chat in this process through
//             RunService::StartChat against the same model.
//
// Every mode prints `key value` lines (the script makes the table).
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "service/run_service.h"
#include "store/run_store.h"

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::duration;

// --- small helpers ----------------------------------------------------------

double Seconds(Clock::time_point a, Clock::time_point b) { return duration<double>(b - a).count(); }

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  // Nearest rank: the smallest value with at least p % of the values at or below it.
  const double rank = std::ceil(p / 100.0 * static_cast<double>(v.size()));
  const size_t i = rank < 1 ? 0 : std::min(v.size() - 1, static_cast<size_t>(rank) - 1);
  return v[i];
}

void PrintDist(const std::string& name, const std::vector<double>& v, const char* unit) {
  double sum = 0;
  for (double x : v) sum += x;
  std::printf("%s_n %zu\n%s_p50_%s %.3f\n%s_p99_%s %.3f\n%s_max_%s %.3f\n%s_mean_%s %.3f\n", name.c_str(), v.size(),
              name.c_str(), unit, Percentile(v, 50), name.c_str(), unit, Percentile(v, 99), name.c_str(), unit,
              v.empty() ? NAN : *std::max_element(v.begin(), v.end()), name.c_str(), unit,
              v.empty() ? NAN : sum / v.size());
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Lifts the soft open-files limit to the hard one (as `medreact serve` does).
void RaiseFileLimit() {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    setrlimit(RLIMIT_NOFILE, &r);
  }
  getrlimit(RLIMIT_NOFILE, &r);
  std::printf("nofile_soft %llu\n", static_cast<unsigned long long>(r.rlim_cur));
}

// The server's resident set (kB) from /proc/PID/status.
long RssKb(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

// utime + stime of a process (all its threads, the ended ones too), in seconds.
double ProcessCpu(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return NAN;
  std::istringstream rest(text.substr(close + 2));
  std::string field;
  // After ")": state is field 3; utime 14, stime 15.
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (i == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
  }
  return static_cast<double>(utime + stime) / sysconf(_SC_CLK_TCK);
}

// The run time (ns) of the process's live threads, from each one's schedstat:
// nanosecond resolution, where /proc/PID/stat counts 10 ms ticks.
double ThreadsCpu(int pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (!d) return NAN;
  double total = 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream in(dir + "/" + e->d_name + "/schedstat");
    unsigned long long ns = 0;
    if (in >> ns) total += static_cast<double>(ns);
  }
  closedir(d);
  return total / 1e9;
}

// Each live thread's CPU seconds (utime + stime) with its name, by thread id.
std::map<int, std::pair<std::string, double>> ThreadCpus(int pid) {
  std::map<int, std::pair<std::string, double>> out;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream in(dir + "/" + e->d_name + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t open = text.find('('), close = text.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    std::istringstream rest(text.substr(close + 2));
    std::string field;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {
      if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
      if (i == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
    }
    out[std::atoi(e->d_name)] = {text.substr(open + 1, close - open - 1),
                                 static_cast<double>(utime + stime) / sysconf(_SC_CLK_TCK)};
  }
  closedir(d);
  return out;
}

// The busiest threads between two ThreadCpus snapshots, as "name:tid=share" (share of one core).
void PrintThreadShares(const std::string& key, const std::map<int, std::pair<std::string, double>>& before,
                       const std::map<int, std::pair<std::string, double>>& after, double seconds) {
  std::vector<std::pair<double, std::string>> rows;
  for (const auto& [tid, v] : after) {
    auto it = before.find(tid);
    const double d = v.second - (it == before.end() ? 0.0 : it->second.second);
    if (d > 0) rows.push_back({d / seconds, v.first + ":" + std::to_string(tid)});
  }
  std::sort(rows.rbegin(), rows.rend());
  std::printf("%s", key.c_str());
  for (size_t i = 0; i < rows.size() && i < 8; ++i) std::printf(" %s=%.2f", rows[i].second.c_str(), rows[i].first);
  std::printf("\n");
}

double SelfCpu() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

// "2026-11-27T18:55:00.123Z" → ms since the epoch (UTC); -1 when not that shape.
int64_t ParseAtMs(const char* s, size_t n) {
  if (n < 24) return -1;
  std::tm tm{};
  int ms = 0;
  auto digits = [&](size_t at, size_t count) {
    int v = 0;
    for (size_t i = at; i < at + count; ++i) {
      if (s[i] < '0' || s[i] > '9') return -1;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  tm.tm_year = digits(0, 4);
  tm.tm_mon = digits(5, 2);
  tm.tm_mday = digits(8, 2);
  tm.tm_hour = digits(11, 2);
  tm.tm_min = digits(14, 2);
  tm.tm_sec = digits(17, 2);
  ms = digits(20, 3);
  if (tm.tm_year < 0 || tm.tm_mon < 0 || tm.tm_mday < 0 || tm.tm_hour < 0 || tm.tm_min < 0 || tm.tm_sec < 0 ||
      ms < 0 || s[10] != 'T') {
    return -1;
  }
  // timegm once per distinct second (a million events share a few dozen).
  thread_local std::string last_second;
  thread_local int64_t last_epoch = 0;
  if (last_second.compare(0, std::string::npos, s, 19) != 0) {
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    last_epoch = static_cast<int64_t>(timegm(&tm));
    last_second.assign(s, 19);
  }
  return last_epoch * 1000 + ms;
}

int64_t EventAtMs(const std::string& data) {
  const size_t p = data.find("\"at\":\"");
  if (p == std::string::npos) return -1;
  return ParseAtMs(data.data() + p + 6, data.size() - p - 6);
}

// --- HTTP over raw sockets ---------------------------------------------------

int port_ = 0;

int Connect(bool nonblocking = false) {
  const int fd = socket(AF_INET, SOCK_STREAM | (nonblocking ? SOCK_NONBLOCK : 0), 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port_));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 && errno != EINPROGRESS) {
    close(fd);
    return -1;
  }
  return fd;
}

bool WriteAll(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

std::string Request(const std::string& method, const std::string& target, const std::string& body = "") {
  std::string r = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) + "\r\n";
  if (method == "POST") {
    r += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  r += "\r\n" + body;
  return r;
}

struct Response {
  int status = 0;
  std::string body;
  bool close = false;
};

// One response with a Content-Length body (every non-stream answer of the
// server has one); `buf` keeps what was read past it. False on EOF or error.
bool ReadResponse(int fd, std::string& buf, Response* out) {
  char tmp[16384];
  size_t head_end;
  while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
    const ssize_t n = recv(fd, tmp, sizeof tmp, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buf.append(tmp, static_cast<size_t>(n));
  }
  std::string head = buf.substr(0, head_end);
  for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  out->status = std::atoi(head.c_str() + 9);
  size_t length = 0;
  if (size_t p = head.find("\r\ncontent-length:"); p != std::string::npos) {
    length = std::strtoul(head.c_str() + p + 17, nullptr, 10);
  }
  out->close = head.find("\r\nconnection: close") != std::string::npos;
  const size_t total = head_end + 4 + length;
  while (buf.size() < total) {
    const ssize_t n = recv(fd, tmp, sizeof tmp, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buf.append(tmp, static_cast<size_t>(n));
  }
  out->body = buf.substr(head_end + 4, length);
  buf.erase(0, total);
  return true;
}

// A keep-alive client: reconnects when the server closes.
class Client {
 public:
  ~Client() {
    if (fd_ >= 0) close(fd_);
  }
  bool Call(const std::string& request, Response* out) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (fd_ < 0) {
        fd_ = Connect();
        buf_.clear();
        if (fd_ < 0) return false;
      }
      if (WriteAll(fd_, request) && ReadResponse(fd_, buf_, out)) {
        if (out->close) Reset();
        return true;
      }
      Reset();
    }
    return false;
  }

 private:
  void Reset() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
  std::string buf_;
};

std::string RunIdOf(const std::string& body) {
  const size_t p = body.find("\"id\":\"");
  if (p == std::string::npos) return "";
  const size_t e = body.find('"', p + 6);
  return body.substr(p + 6, e - p - 6);
}

// An SSE response read incrementally: the header, the chunked framing, then
// messages split at blank lines.
struct SseEvent {
  std::string id, type, data;
};

class SseReader {
 public:
  // False once the stream has ended (the last chunk) or is malformed.
  bool Feed(const char* p, size_t n, const std::function<void(const SseEvent&)>& on_event) {
    raw_.append(p, n);
    if (!headers_done_) {
      const size_t e = raw_.find("\r\n\r\n");
      if (e == std::string::npos) return true;
      status_ = std::atoi(raw_.c_str() + 9);
      raw_.erase(0, e + 4);
      headers_done_ = true;
    }
    size_t pos = 0;
    for (;;) {
      if (chunk_left_ == 0) {
        const size_t e = raw_.find("\r\n", pos);
        if (e == std::string::npos) break;
        chunk_left_ = std::strtoul(raw_.c_str() + pos, nullptr, 16);
        if (chunk_left_ == 0) {
          ended_ = true;
          break;
        }
        chunk_left_ += 2;  // the CRLF after the data
        pos = e + 2;
      }
      const size_t take = std::min(chunk_left_, raw_.size() - pos);
      if (take == 0) break;
      const size_t data = chunk_left_ > 2 ? std::min(take, chunk_left_ - 2) : 0;
      text_.append(raw_, pos, data);
      pos += take;
      chunk_left_ -= take;
    }
    raw_.erase(0, pos);
    size_t start = 0, end;
    while ((end = text_.find("\n\n", start)) != std::string::npos) {
      SseEvent ev;
      size_t line = start;
      while (line < end) {
        size_t nl = text_.find('\n', line);
        if (nl > end) nl = end;
        std::string_view l(text_.data() + line, nl - line);
        if (l.rfind("id: ", 0) == 0) ev.id = l.substr(4);
        else if (l.rfind("event: ", 0) == 0) ev.type = l.substr(7);
        else if (l.rfind("data: ", 0) == 0) ev.data = l.substr(6);
        line = nl + 1;
      }
      if (!ev.data.empty() || !ev.type.empty()) on_event(ev);
      start = end + 2;
    }
    text_.erase(0, start);
    return !ended_;
  }
  bool headers_done() const { return headers_done_; }
  int status() const { return status_; }

 private:
  std::string raw_, text_;
  bool headers_done_ = false, ended_ = false;
  int status_ = 0;
  size_t chunk_left_ = 0;
};

// Follows one stream on a blocking socket until it ends, `stop` is set or
// `on_event` returns false.
void FollowBlocking(const std::string& target, const std::atomic<bool>& stop,
                    const std::function<bool(const SseEvent&)>& on_event) {
  const int fd = Connect();
  if (fd < 0 || !WriteAll(fd, Request("GET", target))) {
    std::fprintf(stderr, "cannot open %s\n", target.c_str());
    std::exit(1);
  }
  timeval tv{0, 200000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  SseReader reader;
  bool go = true;
  char tmp[65536];
  while (go && !stop) {
    const ssize_t n = recv(fd, tmp, sizeof tmp, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) break;
    go = reader.Feed(tmp, static_cast<size_t>(n), [&](const SseEvent& e) { go = go && on_event(e); });
  }
  close(fd);
}

// --- options -----------------------------------------------------------------

struct Args {
  std::map<std::string, std::string> kv;
  std::string Str(const std::string& k, const std::string& d = "") const {
    auto it = kv.find(k);
    return it == kv.end() ? d : it->second;
  }
  double Num(const std::string& k, double d) const {
    auto it = kv.find(k);
    return it == kv.end() ? d : std::atof(it->second.c_str());
  }
};

// --- create: runs per second, and one stream's events per second -------------

int Create(const Args& a) {
  const int clients = static_cast<int>(a.Num("--clients", 4));
  const double seconds = a.Num("--seconds", 10);
  const std::string body = ReadFile(a.Str("--body-file"));
  const std::string events_path = a.Str("--events-path");
  const std::string request = Request("POST", "/v1/runs", body);

  std::atomic<bool> stop{false};
  std::vector<int64_t> per_second(static_cast<size_t>(seconds) + 2, 0);
  std::atomic<int64_t> events_in_window{0}, events_total{0};
  Clock::time_point t0{};
  std::atomic<bool> started{false};
  std::thread follower;
  if (!events_path.empty()) {
    follower = std::thread([&] {
      FollowBlocking(events_path, stop, [&](const SseEvent& e) {
        if (e.data.empty() || e.id.empty()) return true;
        ++events_total;
        if (started) {
          const double t = Seconds(t0, Clock::now());
          if (t >= 0 && t < seconds) {
            ++events_in_window;
            ++per_second[static_cast<size_t>(t)];
          }
        }
        return true;
      });
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the stream is open before the first run
  }
  std::mutex mu;
  std::vector<double> latency_ms;
  std::map<int, int64_t> refused;
  int64_t failed = 0;
  t0 = Clock::now();
  started = true;
  const auto end = t0 + std::chrono::duration_cast<Clock::duration>(duration<double>(seconds));
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&] {
      Client client;
      std::vector<double> mine;
      std::map<int, int64_t> bad;
      int64_t fails = 0;
      while (Clock::now() < end) {
        Response r;
        const auto s = Clock::now();
        if (!client.Call(request, &r)) {
          ++fails;
          continue;
        }
        const double ms = Seconds(s, Clock::now()) * 1e3;
        if (r.status == 201) mine.push_back(ms);
        else ++bad[r.status];
      }
      std::lock_guard<std::mutex> lock(mu);
      latency_ms.insert(latency_ms.end(), mine.begin(), mine.end());
      for (auto [k, v] : bad) refused[k] += v;
      failed += fails;
    });
  }
  for (auto& t : threads) t.join();
  const double elapsed = Seconds(t0, Clock::now());
  if (follower.joinable()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    stop = true;
    follower.join();
  }
  std::printf("clients %d\nseconds %.2f\nruns_created %zu\nruns_per_s %.1f\n", clients, elapsed, latency_ms.size(),
              latency_ms.size() / elapsed);
  PrintDist("post", latency_ms, "ms");
  for (auto [k, v] : refused) std::printf("post_status_%d %" PRId64 "\n", k, v);
  std::printf("post_failed %" PRId64 "\n", failed);
  if (!events_path.empty()) {
    std::vector<double> rates;
    for (size_t i = 0; i < static_cast<size_t>(seconds); ++i) rates.push_back(static_cast<double>(per_second[i]));
    std::printf("events_in_window %" PRId64 "\nevents_per_s %.1f\nevents_total %" PRId64 "\n", events_in_window.load(),
                events_in_window / seconds, events_total.load());
    std::printf("events_per_s_min_second %.0f\nevents_per_s_max_second %.0f\n",
                *std::min_element(rates.begin(), rates.end()), *std::max_element(rates.begin(), rates.end()));
  }
  return 0;
}

// --- streams: N open streams, event delay, RSS, /healthz ---------------------

int Streams(const Args& a) {
  const int n = static_cast<int>(a.Num("--streams", 1000));
  const double rate = a.Num("--rate", 10);
  const double seconds = a.Num("--seconds", 10);
  const int pid = static_cast<int>(a.Num("--server-pid", 0));
  const std::string path = a.Str("--path", "/v1/events?app=chat");
  const std::string request = Request("POST", "/v1/runs", ReadFile(a.Str("--body-file")));

  std::atomic<bool> stop{false};
  // /healthz every 100 ms, throughout.
  std::vector<double> health_ms;
  int64_t health_failed = 0;
  std::thread health([&] {
    Client client;
    const std::string get = Request("GET", "/healthz");
    auto next = Clock::now();
    while (!stop) {
      Response r;
      const auto s = Clock::now();
      if (client.Call(get, &r) && r.status == 200) health_ms.push_back(Seconds(s, Clock::now()) * 1e3);
      else ++health_failed;
      next += std::chrono::milliseconds(100);
      std::this_thread::sleep_until(next);
    }
  });

  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const long rss_before = RssKb(pid);

  const int ep = epoll_create1(0);
  struct Stream {
    int fd = -1;
    SseReader reader;
    int64_t events = 0;
    bool open = false, ended = false;
  };
  std::vector<Stream> streams(static_cast<size_t>(n));
  const std::string get = Request("GET", path);
  const auto open_start = Clock::now();
  for (int i = 0; i < n; ++i) {
    Stream& s = streams[static_cast<size_t>(i)];
    s.fd = Connect(/*nonblocking=*/true);
    if (s.fd < 0) {
      std::fprintf(stderr, "connect %d failed: %s\n", i, std::strerror(errno));
      return 1;
    }
    epoll_event ev{};
    ev.events = EPOLLOUT | EPOLLIN;
    ev.data.u32 = static_cast<uint32_t>(i);
    epoll_ctl(ep, EPOLL_CTL_ADD, s.fd, &ev);
  }
  std::vector<double> delay_ms;
  delay_ms.reserve(1 << 22);
  int opened = 0, closed = 0;
  int64_t no_at = 0;
  std::vector<epoll_event> ready(1024);
  char buf[65536];
  auto pump = [&](int timeout_ms) {
    const int k = epoll_wait(ep, ready.data(), static_cast<int>(ready.size()), timeout_ms);
    for (int j = 0; j < k; ++j) {
      Stream& s = streams[ready[static_cast<size_t>(j)].data.u32];
      if (s.ended) continue;
      if (ready[static_cast<size_t>(j)].events & EPOLLOUT) {
        // Connected: send the GET (small: it fits the socket buffer) and read only.
        WriteAll(s.fd, get);
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u32 = ready[static_cast<size_t>(j)].data.u32;
        epoll_ctl(ep, EPOLL_CTL_MOD, s.fd, &ev);
        continue;
      }
      for (;;) {
        const ssize_t got = recv(s.fd, buf, sizeof buf, MSG_DONTWAIT);
        if (got < 0 && errno == EAGAIN) break;
        if (got <= 0) {
          s.ended = true;
          ++closed;
          epoll_ctl(ep, EPOLL_CTL_DEL, s.fd, nullptr);
          break;
        }
        const double now_frac =
            duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch()).count();
        s.reader.Feed(buf, static_cast<size_t>(got), [&](const SseEvent& e) {
          if (e.id.empty()) return;
          ++s.events;
          const int64_t at = EventAtMs(e.data);
          if (at < 0) ++no_at;
          else delay_ms.push_back(now_frac - static_cast<double>(at));
        });
        if (!s.open && s.reader.headers_done()) {
          s.open = true;
          ++opened;
        }
      }
    }
  };
  while (opened + closed < n && Seconds(open_start, Clock::now()) < 60) pump(100);
  const double open_s = Seconds(open_start, Clock::now());
  const auto settle = Clock::now() + std::chrono::seconds(1);
  while (Clock::now() < settle) pump(50);
  const long rss_open = RssKb(pid);
  std::printf("streams_asked %d\nstreams_open %d\nstreams_open_seconds %.2f\n", n, opened, open_s);
  std::printf("rss_before_kb %ld\nrss_open_kb %ld\nrss_per_stream_kb %.2f\n", rss_before, rss_open,
              static_cast<double>(rss_open - rss_before) / std::max(1, opened));
  delay_ms.clear();  // replayed history (if any) is not live delivery

  // Start runs at `rate` per second on one keep-alive client.
  std::atomic<int64_t> created{0}, refused{0};
  std::atomic<bool> posting{true};
  std::vector<double> post_ms;
  std::thread poster([&] {
    Client client;
    const auto begin = Clock::now();
    auto next = begin;
    const auto step = std::chrono::duration_cast<Clock::duration>(duration<double>(1.0 / rate));
    while (Seconds(begin, Clock::now()) < seconds) {
      Response r;
      const auto s = Clock::now();
      if (client.Call(request, &r) && r.status == 201) {
        ++created;
        post_ms.push_back(Seconds(s, Clock::now()) * 1e3);
      } else {
        ++refused;
      }
      next += step;
      std::this_thread::sleep_until(next);
    }
    posting = false;
  });
  const auto run_start = Clock::now();
  const double server_cpu0 = ProcessCpu(pid), self_cpu0 = SelfCpu();
  const auto threads0 = ThreadCpus(pid);
  long rss_peak = rss_open;
  auto last_rss = Clock::now();
  while (posting) {
    pump(50);
    if (Seconds(last_rss, Clock::now()) > 0.5) {
      rss_peak = std::max(rss_peak, RssKb(pid));
      last_rss = Clock::now();
    }
  }
  poster.join();
  // Drain: until no event arrived for 2 s (runs still going end meanwhile).
  size_t seen = delay_ms.size();
  auto quiet_since = Clock::now();
  while (Seconds(quiet_since, Clock::now()) < 2.0 && Seconds(run_start, Clock::now()) < seconds + 120) {
    pump(50);
    if (delay_ms.size() != seen) {
      seen = delay_ms.size();
      quiet_since = Clock::now();
    }
  }
  const double run_s = Seconds(run_start, Clock::now());
  const double server_cpu = ProcessCpu(pid) - server_cpu0, self_cpu = SelfCpu() - self_cpu0;
  const auto threads1 = ThreadCpus(pid);
  stop = true;
  health.join();
  rss_peak = std::max(rss_peak, RssKb(pid));

  int64_t min_ev = INT64_MAX, max_ev = 0;
  for (const Stream& s : streams) {
    if (!s.open) continue;
    min_ev = std::min(min_ev, s.events);
    max_ev = std::max(max_ev, s.events);
  }
  std::printf("runs_per_s_asked %.1f\nruns_created %" PRId64 "\nruns_refused %" PRId64 "\n", rate, created.load(),
              refused.load());
  PrintDist("post", post_ms, "ms");
  std::printf("streams_closed_by_server %d\nevents_per_stream_min %" PRId64 "\nevents_per_stream_max %" PRId64
              "\nevents_delivered %zu\nevents_without_at %" PRId64 "\ndelivery_seconds %.2f\nevents_delivered_per_s %.0f\n",
              closed, min_ev, max_ev, delay_ms.size(), no_at, run_s, delay_ms.size() / run_s);
  PrintDist("delay", delay_ms, "ms");
  std::printf("rss_peak_kb %ld\n", rss_peak);
  std::printf("server_cores_busy %.2f\nload_tool_cores_busy %.2f\n", server_cpu / run_s, self_cpu / run_s);
  PrintThreadShares("server_threads_busiest", threads0, threads1, run_s);
  PrintDist("healthz", health_ms, "ms");
  std::printf("healthz_failed %" PRId64 "\n", health_failed);
  for (Stream& s : streams) close(s.fd);
  close(ep);
  return 0;
}

// --- overhead: a chat through the server vs in process -----------------------

int Overhead(const Args& a) {
  const int runs = static_cast<int>(a.Num("--runs", 200));
  const int warmup = static_cast<int>(a.Num("--warmup", 10));
  const int pid = static_cast<int>(a.Num("--server-pid", 0));
  const std::string request = Request("POST", "/v1/runs", ReadFile(a.Str("--body-file")));
  const std::string llm_url = a.Str("--llm-url");
  const std::string store_path = a.Str("--store");

  std::vector<double> wall_ms, cpu_ms;
  Client client;
  const double proc0_total = ProcessCpu(pid);
  double proc_start = 0;
  for (int i = 0; i < warmup + runs; ++i) {
    if (i == warmup) proc_start = ProcessCpu(pid);
    const double c0 = ThreadsCpu(pid);
    const auto t0 = Clock::now();
    Response r;
    if (!client.Call(request, &r) || r.status != 201) {
      std::fprintf(stderr, "POST failed: %d %s\n", r.status, r.body.c_str());
      return 1;
    }
    const std::string id = RunIdOf(r.body);
    std::string status;
    std::atomic<bool> never{false};
    FollowBlocking("/v1/runs/" + id + "/events", never, [&](const SseEvent& e) {
      if (e.type == "end") {
        status = e.data;
        return false;
      }
      return true;
    });
    const auto t1 = Clock::now();
    const double c1 = ThreadsCpu(pid);
    if (status.find("\"finished\"") == std::string::npos) {
      std::fprintf(stderr, "run %s ended: %s\n", id.c_str(), status.c_str());
      return 1;
    }
    if (i >= warmup) {
      wall_ms.push_back(Seconds(t0, t1) * 1e3);
      cpu_ms.push_back((c1 - c0) * 1e3);
    }
  }
  const double proc_cpu_per_run_ms = (ProcessCpu(pid) - proc_start) / runs * 1e3;
  (void)proc0_total;
  std::printf("runs %d\n", runs);
  PrintDist("server_wall", wall_ms, "ms");
  PrintDist("server_cpu", cpu_ms, "ms");
  std::printf("server_cpu_per_run_from_stat_ms %.3f\n", proc_cpu_per_run_ms);

  // The same chat in this process.
  medreact::Result<std::unique_ptr<medreact::RunStore>> store = medreact::RunStore::Open(store_path);
  if (!store.ok()) {
    std::fprintf(stderr, "store: %s\n", store.status().ToString().c_str());
    return 1;
  }
  medreact::service::RunService service{std::shared_ptr<medreact::RunStore>(std::move(*store))};
  std::vector<double> in_wall, in_cpu;
  for (int i = 0; i < warmup + runs; ++i) {
    medreact::service::ChatStart start;
    start.inputs.message = a.Str("--message", "What is 17 * 23?");
    start.inputs.packs = {"util"};
    start.inputs.options.max_steps = 6;
    start.model = {.url = llm_url, .name = "mock", .max_retries = 0};
    const double c0 = SelfCpu();
    const auto t0 = Clock::now();
    auto out = service.StartChat(std::move(start), {});
    const auto t1 = Clock::now();
    const double c1 = SelfCpu();
    if (!out.ok() || out->status != "finished") {
      std::fprintf(stderr, "in-process run failed: %s\n",
                   out.ok() ? out->status.c_str() : out.status().ToString().c_str());
      return 1;
    }
    if (i >= warmup) {
      in_wall.push_back(Seconds(t0, t1) * 1e3);
      in_cpu.push_back((c1 - c0) * 1e3);
    }
  }
  PrintDist("inproc_wall", in_wall, "ms");
  PrintDist("inproc_cpu", in_cpu, "ms");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: medreact_serve_load create|streams|overhead --port P [--body-file F] [options]\n"
                 "  create   --clients 4 --seconds 10 [--events-path '/v1/events?app=triage']\n"
                 "  streams  --streams 1000 --rate 10 --seconds 10 --server-pid PID [--path '/v1/events?app=chat']\n"
                 "  overhead --runs 200 --warmup 10 --server-pid PID --llm-url URL --store FILE\n");
    return 2;
  }
  Args args;
  for (int i = 2; i + 1 < argc; i += 2) args.kv[argv[i]] = argv[i + 1];
  port_ = static_cast<int>(args.Num("--port", 0));
  RaiseFileLimit();
  const std::string mode = argv[1];
  if (mode == "create") return Create(args);
  if (mode == "streams") return Streams(args);
  if (mode == "overhead") return Overhead(args);
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
