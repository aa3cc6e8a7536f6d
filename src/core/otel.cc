// Spans, trace context and the batching OTLP/HTTP JSON exporter (core/otel.h).
//
// The exporter thread sleeps on a condition variable until a batch is due
// (max_export_batch_size spans queued, schedule_delay passed since the last
// batch, a Flush or the shutdown), takes at most one batch from the queue
// and POSTs it outside the lock; Enqueue only ever takes the lock to push or
// count a drop. Flush waits for a sequence number: every span accepted before
// the call handled (exported or dropped). Ids come from a per-thread
// mt19937_64 seeded from std::random_device.

#include "core/otel.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <random>
#include <thread>

#include "core/log.h"
#include "core/text_util.h"
#include "medreact/json.h"

namespace medreact::otel {
namespace {

thread_local SpanContext t_current;

constexpr char kHex[] = "0123456789abcdef";

template <size_t N>
std::string Hex(const std::array<uint8_t, N>& bytes) {
  std::string out(2 * N, '0');
  for (size_t i = 0; i < N; ++i) {
    out[2 * i] = kHex[bytes[i] >> 4];
    out[2 * i + 1] = kHex[bytes[i] & 0xf];
  }
  return out;
}

template <size_t N>
bool AllZero(const std::array<uint8_t, N>& bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
}

int HexDigit(char c) {  // lower-case only, as W3C Trace Context requires
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

template <size_t N>
bool ReadHex(std::string_view text, std::array<uint8_t, N>& out) {
  if (text.size() != 2 * N) return false;
  for (size_t i = 0; i < N; ++i) {
    const int hi = HexDigit(text[2 * i]);
    const int lo = HexDigit(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return true;
}

std::mt19937_64& Rng() {
  thread_local std::mt19937_64 rng([] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device(),
                       static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count())};
    return std::mt19937_64(seed);
  }());
  return rng;
}

template <size_t N>
void RandomId(std::array<uint8_t, N>& out) {
  do {
    for (size_t i = 0; i < N; i += 8) {
      uint64_t v = Rng()();
      for (size_t j = 0; j < 8 && i + j < N; ++j) out[i + j] = static_cast<uint8_t>(v >> (8 * j));
    }
  } while (AllZero(out));
}

uint64_t UnixNanos() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

// OTLP JSON is written directly, not through nlohmann objects (a run's six
// spans as Json values cost more CPU than the rest of tracing together).
// Strings are quoted by nlohmann's serialiser (escapes, invalid UTF-8 replaced).
void AppendQuoted(std::string& out, const std::string& text) {
  bool plain = true;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x80 || c == '"' || c == '\\') {
      plain = false;
      break;
    }
  }
  if (plain) {
    out += '"';
    out += text;
    out += '"';
    return;
  }
  out += DumpJson(Json(text));
}

void AppendValue(std::string& out, const AttributeValue& value) {
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          out += "{\"stringValue\":";
          AppendQuoted(out, v);
          out += '}';
        } else if constexpr (std::is_same_v<T, int64_t>) {
          out += "{\"intValue\":\"" + std::to_string(v) + "\"}";  // int64 as a decimal string (OTLP JSON)
        } else if constexpr (std::is_same_v<T, double>) {
          out += "{\"doubleValue\":" + DumpJson(Json(v)) + "}";  // NaN and infinities as null
        } else if constexpr (std::is_same_v<T, bool>) {
          out += v ? "{\"boolValue\":true}" : "{\"boolValue\":false}";
        } else {
          out += "{\"arrayValue\":{\"values\":[";
          for (size_t i = 0; i < v.size(); ++i) {
            if (i > 0) out += ',';
            out += "{\"stringValue\":";
            AppendQuoted(out, v[i]);
            out += '}';
          }
          out += "]}}";
        }
      },
      value);
}

void AppendKeyValue(std::string& out, const std::string& key, const AttributeValue& value) {
  out += "{\"key\":";
  AppendQuoted(out, key);
  out += ",\"value\":";
  AppendValue(out, value);
  out += '}';
}

// Registry of every tracer installed (immortal), for GlobalTracerStats.
struct Registry {
  std::mutex mu;
  std::vector<Tracer*> all;
  std::atomic<Tracer*> active{nullptr};
  std::once_flag env_once;
  bool atexit_registered = false;
};

Registry& Reg() {
  static Registry* registry = new Registry();  // immortal: spans may end during exit
  return *registry;
}

void AtExit() {
  if (Tracer* t = Reg().active.load()) t->Shutdown(t->options().shutdown_timeout);
}

Result<size_t> PositiveNumber(const std::function<const char*(const char*)>& getenv, const char* name,
                              size_t fallback) {
  const char* raw = getenv(name);
  if (raw == nullptr || IsBlank(raw)) return fallback;
  const std::string text = Trim(raw);
  size_t value = 0;
  constexpr size_t kMax = 100'000'000;
  for (char c : text) {
    if (c < '0' || c > '9' || value > kMax) {
      return Status::InvalidArgument(std::string(name) + " must be a whole number from 1 to " +
                                     std::to_string(kMax) + " (got " + Preview(text, 40) + ")");
    }
    value = value * 10 + static_cast<size_t>(c - '0');
  }
  if (value == 0 || value > kMax) {
    return Status::InvalidArgument(std::string(name) + " must be a whole number from 1 to " + std::to_string(kMax) +
                                   " (got " + Preview(text, 40) + ")");
  }
  return value;
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      auto hex = [](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
      };
      const int hi = hex(s[i + 1]);
      const int lo = hex(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi << 4 | lo));
        i += 2;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

}  // namespace

// ---- Context ---------------------------------------------------------------

bool SpanContext::valid() const { return !AllZero(trace_id) && !AllZero(span_id); }
std::string SpanContext::TraceIdHex() const { return Hex(trace_id); }
std::string SpanContext::SpanIdHex() const { return Hex(span_id); }

std::string SpanContext::Traceparent() const {
  if (!valid()) return "";
  return "00-" + TraceIdHex() + "-" + SpanIdHex() + (sampled ? "-01" : "-00");
}

std::optional<SpanContext> ParseTraceparent(std::string_view header) {
  header = TrimView(header);
  // version "-" trace-id "-" parent-id "-" flags: 2+1+32+1+16+1+2 = 55.
  if (header.size() < 55) return std::nullopt;
  std::array<uint8_t, 1> version{};
  std::array<uint8_t, 1> flags{};
  SpanContext c;
  if (!ReadHex(header.substr(0, 2), version) || version[0] == 0xff) return std::nullopt;
  if (header[2] != '-' || header[35] != '-' || header[52] != '-') return std::nullopt;
  if (!ReadHex(header.substr(3, 32), c.trace_id) || !ReadHex(header.substr(36, 16), c.span_id) ||
      !ReadHex(header.substr(53, 2), flags)) {
    return std::nullopt;
  }
  // Version 00 is exactly 55 characters; a later version may add fields after a "-".
  if (header.size() > 55 && (version[0] == 0 || header[55] != '-')) return std::nullopt;
  if (!c.valid()) return std::nullopt;
  c.sampled = (flags[0] & 1) != 0;
  c.remote = true;
  return c;
}

SpanContext CurrentContext() { return t_current; }

std::string CurrentTraceparent() { return t_current.Traceparent(); }

ScopedContext::ScopedContext(const SpanContext& context) : previous_(t_current) { t_current = context; }
ScopedContext::~ScopedContext() { t_current = previous_; }

// ---- Span ------------------------------------------------------------------

Span::Span(Tracer* tracer, std::unique_ptr<SpanData> data) : tracer_(tracer), data_(std::move(data)) {}

Span& Span::operator=(Span&& other) noexcept {
  if (this != &other) {
    End();
    tracer_ = other.tracer_;
    data_ = std::move(other.data_);
  }
  return *this;
}

void Span::SetValue(std::string_view key, AttributeValue value) {
  if (!data_) return;
  for (auto& [k, v] : data_->attributes) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  data_->attributes.emplace_back(std::string(key), std::move(value));
}

void Span::Set(std::string_view key, std::string value) { SetValue(key, std::move(value)); }
void Span::Set(std::string_view key, int64_t value) { SetValue(key, value); }
void Span::Set(std::string_view key, double value) { SetValue(key, value); }
void Span::Set(std::string_view key, bool value) { SetValue(key, value); }
void Span::Set(std::string_view key, std::vector<std::string> value) { SetValue(key, std::move(value)); }

void Span::SetError(std::string_view error_type, std::string_view description) {
  if (!data_) return;
  data_->error = true;
  data_->status_message = std::string(description);
  SetValue("error.type", std::string(error_type));
}

void Span::End() {
  if (!data_) return;
  data_->end_unix_nanos = UnixNanos();
  tracer_->Enqueue(std::move(data_));
  data_.reset();
}

Span StartSpan(std::string name, SpanKind kind, const SpanContext& parent) {
  Tracer* tracer = ActiveTracer();
  if (tracer == nullptr) return Span();
  auto data = std::make_unique<SpanData>();
  const SpanContext& from = parent.valid() ? parent : t_current;
  if (from.valid()) {
    data->context.trace_id = from.trace_id;
    data->parent_span_id = from.span_id;
    data->context.sampled = from.sampled;
  } else {
    RandomId(data->context.trace_id);
  }
  RandomId(data->context.span_id);
  data->name = std::move(name);
  data->kind = kind;
  data->start_unix_nanos = UnixNanos();
  return Span(tracer, std::move(data));
}

// ---- Configuration -----------------------------------------------------------

Result<std::optional<TracerOptions>> TracerOptionsFromEnv(const std::function<const char*(const char*)>& getenv) {
  auto get = [&](const char* name) -> std::string {
    const char* v = getenv(name);
    return v == nullptr ? std::string() : Trim(v);
  };
  if (AsciiLower(get("OTEL_SDK_DISABLED")) == "true") return std::optional<TracerOptions>();
  TracerOptions o;
  std::string url = get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const char* from = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
  if (url.empty()) {
    url = get("OTEL_EXPORTER_OTLP_ENDPOINT");
    from = "OTEL_EXPORTER_OTLP_ENDPOINT";
    if (url.empty()) return std::optional<TracerOptions>();
    while (!url.empty() && url.back() == '/') url.pop_back();
    url += "/v1/traces";
  }
  const std::string scheme = AsciiLower(url.substr(0, std::min<size_t>(url.size(), 8)));
  if (!StartsWith(scheme, "http://") && !StartsWith(scheme, "https://")) {
    return Status::InvalidArgument(std::string(from) + " must be an http:// or https:// URL (got " +
                                   RedactUrl(url) + ")");
  }
  o.traces_url = url;
  if (std::string name = get("OTEL_SERVICE_NAME"); !name.empty()) o.service_name = name;
  const std::string headers = get("OTEL_EXPORTER_OTLP_HEADERS");
  size_t index = 0;
  for (size_t start = 0; start <= headers.size() && !headers.empty();) {
    size_t comma = headers.find(',', start);
    if (comma == std::string::npos) comma = headers.size();
    const std::string_view entry = TrimView(std::string_view(headers).substr(start, comma - start));
    ++index;
    start = comma + 1;
    if (entry.empty()) continue;
    const size_t eq = entry.find('=');
    const std::string key = eq == std::string_view::npos ? "" : Trim(entry.substr(0, eq));
    const bool key_ok = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    });
    const std::string value = eq == std::string_view::npos ? "" : PercentDecode(TrimView(entry.substr(eq + 1)));
    const bool value_ok = std::none_of(value.begin(), value.end(),
                                       [](char c) { return c == '\r' || c == '\n' || c == '\0'; });
    if (!key_ok || !value_ok) {  // the value may be a secret: never quoted
      return Status::InvalidArgument("OTEL_EXPORTER_OTLP_HEADERS entry " + std::to_string(index) +
                                     " is not key=value (a header name of letters, digits, '-', '_' or '.', "
                                     "a value without line breaks); write k=v,k2=v2");
    }
    o.headers.emplace_back(key, value);
  }
  Result<size_t> queue = PositiveNumber(getenv, "OTEL_BSP_MAX_QUEUE_SIZE", o.max_queue_size);
  if (!queue.ok()) return queue.status();
  Result<size_t> batch = PositiveNumber(getenv, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", o.max_export_batch_size);
  if (!batch.ok()) return batch.status();
  Result<size_t> delay = PositiveNumber(getenv, "OTEL_BSP_SCHEDULE_DELAY", o.schedule_delay.count());
  if (!delay.ok()) return delay.status();
  Result<size_t> timeout = PositiveNumber(getenv, "OTEL_BSP_EXPORT_TIMEOUT", o.export_timeout.count());
  if (!timeout.ok()) return timeout.status();
  o.max_queue_size = *queue;
  o.max_export_batch_size = std::min(*batch, *queue);  // the SDK's rule: a batch never exceeds the queue
  o.schedule_delay = Millis(static_cast<int64_t>(*delay));
  o.export_timeout = Millis(static_cast<int64_t>(*timeout));
  return std::optional<TracerOptions>(std::move(o));
}

// ---- The exporter --------------------------------------------------------------

std::string OtlpJsonBody(const TracerOptions& options, const std::vector<std::unique_ptr<SpanData>>& spans) {
  std::string out;
  out.reserve(256 + 700 * spans.size());
  out += "{\"resourceSpans\":[{\"resource\":{\"attributes\":[";
  AppendKeyValue(out, "service.name", options.service_name);
  out += ',';
  AppendKeyValue(out, "telemetry.sdk.name", std::string("medreact"));
  out += ',';
  AppendKeyValue(out, "telemetry.sdk.language", std::string("cpp"));
  out += "]},\"scopeSpans\":[{\"scope\":{\"name\":\"medreact\"},\"spans\":[";
  for (size_t i = 0; i < spans.size(); ++i) {
    const SpanData& s = *spans[i];
    if (i > 0) out += ',';
    out += "{\"traceId\":\"" + s.context.TraceIdHex() + "\",\"spanId\":\"" + s.context.SpanIdHex() + '"';
    if (!AllZero(s.parent_span_id)) out += ",\"parentSpanId\":\"" + Hex(s.parent_span_id) + '"';
    out += ",\"name\":";
    AppendQuoted(out, s.name);
    out += ",\"kind\":" + std::to_string(static_cast<int>(s.kind));
    out += ",\"startTimeUnixNano\":\"" + std::to_string(s.start_unix_nanos) + '"';
    out += ",\"endTimeUnixNano\":\"" + std::to_string(s.end_unix_nanos) + '"';
    out += ",\"attributes\":[";
    for (size_t a = 0; a < s.attributes.size(); ++a) {
      if (a > 0) out += ',';
      AppendKeyValue(out, s.attributes[a].first, s.attributes[a].second);
    }
    out += "],\"status\":";
    if (s.error) {
      out += "{\"code\":2,\"message\":";
      AppendQuoted(out, s.status_message);
      out += '}';
    } else {
      out += "{}";
    }
    out += '}';
  }
  out += "]}]}]}";
  return out;
}

class Tracer::Impl {
 public:
  explicit Impl(const TracerOptions& o) : o_(o) {
    thread_ = std::thread([this] { Loop(); });
  }

  void Enqueue(std::unique_ptr<SpanData> span) {
    std::lock_guard<std::mutex> lock(mu_);
    ++ended_;
    if (stopped_ || queue_.size() >= o_.max_queue_size) {
      ++dropped_;
      return;
    }
    queue_.push_back(std::move(span));
    ++accepted_;
    if (queue_.size() >= o_.max_export_batch_size) cv_.notify_all();
  }

  bool Flush(Millis timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    const uint64_t target = accepted_;
    if (handled_ >= target) return true;
    flush_to_ = std::max(flush_to_, target);
    cv_.notify_all();
    return done_cv_.wait_for(lock, timeout, [&] { return handled_ >= target; });
  }

  void Shutdown(Millis timeout) {
    std::lock_guard<std::mutex> once(shutdown_mu_);
    if (!thread_.joinable()) return;
    Flush(timeout);
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopped_ = true;
    }
    cv_.notify_all();
    cancel_.Cancel();  // a POST still in flight ends now; what is left is dropped
    if (thread_.get_id() != std::this_thread::get_id()) thread_.join();
  }

  TracerStats stats() const {
    std::lock_guard<std::mutex> lock(mu_);
    return {.ended = ended_, .exported = exported_, .dropped = dropped_, .failed_exports = failed_exports_};
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    auto due = SteadyClock::now() + o_.schedule_delay;
    for (;;) {
      cv_.wait_until(lock, due, [&] {
        return stopped_ || flush_to_ > handled_ || queue_.size() >= o_.max_export_batch_size;
      });
      if (stopped_ && (cancel_.cancelled() || queue_.empty())) {
        dropped_ += queue_.size();
        handled_ += queue_.size();
        queue_.clear();
        done_cv_.notify_all();
        return;
      }
      const bool time_up = SteadyClock::now() >= due;
      if (queue_.empty() || !(time_up || flush_to_ > handled_ || queue_.size() >= o_.max_export_batch_size)) {
        if (time_up) due = SteadyClock::now() + o_.schedule_delay;
        continue;
      }
      std::vector<std::unique_ptr<SpanData>> batch;
      const size_t n = std::min(queue_.size(), o_.max_export_batch_size);
      batch.reserve(n);
      for (size_t i = 0; i < n; ++i) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      lock.unlock();
      const bool ok = Export(batch);
      lock.lock();
      (ok ? exported_ : dropped_) += n;
      if (!ok) ++failed_exports_;
      handled_ += n;
      done_cv_.notify_all();
      if (queue_.empty()) due = SteadyClock::now() + o_.schedule_delay;
    }
  }

  bool Export(const std::vector<std::unique_ptr<SpanData>>& batch) {
    try {
      HttpRequest request;
      request.url = o_.traces_url;
      request.headers.emplace_back("Content-Type", "application/json");
      for (const auto& h : o_.headers) request.headers.push_back(h);
      request.body = OtlpJsonBody(o_, batch);
      request.total_timeout = o_.export_timeout;
      request.connect_timeout = o_.export_timeout;
      request.idle_timeout = Millis(0);
      request.max_response_bytes = size_t{1} << 20;
      Result<HttpResponse> response = o_.transport->Send(request, {}, cancel_);
      return response.ok() && response->status / 100 == 2;
    } catch (...) {  // bad_alloc, or a transport that throws: the batch is lost, the thread lives
      return false;
    }
  }

  const TracerOptions& o_;
  mutable std::mutex mu_;
  std::mutex shutdown_mu_;
  std::condition_variable cv_;       // wakes the exporter
  std::condition_variable done_cv_;  // wakes Flush
  std::deque<std::unique_ptr<SpanData>> queue_;
  uint64_t accepted_ = 0;  // spans queued so far
  uint64_t handled_ = 0;   // of those, exported or dropped
  uint64_t flush_to_ = 0;  // a Flush waits until handled_ reaches this
  uint64_t ended_ = 0, exported_ = 0, dropped_ = 0, failed_exports_ = 0;
  bool stopped_ = false;
  CancellationToken cancel_;
  std::thread thread_;  // last: started once everything above exists
};

Tracer::Tracer(TracerOptions options) : options_(std::move(options)) {
  if (!options_.transport) options_.transport = MakeCurlTransport();
  options_.max_queue_size = std::max<size_t>(1, options_.max_queue_size);
  options_.max_export_batch_size = std::clamp<size_t>(options_.max_export_batch_size, 1, options_.max_queue_size);
  impl_ = std::make_unique<Impl>(options_);
}

Tracer::~Tracer() { Shutdown(options_.shutdown_timeout); }

void Tracer::Enqueue(std::unique_ptr<SpanData> span) { impl_->Enqueue(std::move(span)); }
bool Tracer::Flush(Millis timeout) { return impl_->Flush(timeout); }
void Tracer::Shutdown(Millis timeout) { impl_->Shutdown(timeout); }
TracerStats Tracer::stats() const { return impl_->stats(); }

// ---- The process's tracer ---------------------------------------------------------

Tracer* InstallTracer(std::optional<TracerOptions> options) {
  Registry& r = Reg();
  std::call_once(r.env_once, [] {});  // the environment is no longer read
  Tracer* fresh = nullptr;
  if (options) {
    fresh = new Tracer(std::move(*options));  // immortal, see the header
    std::lock_guard<std::mutex> lock(r.mu);
    r.all.push_back(fresh);
    if (!r.atexit_registered) {
      r.atexit_registered = true;
      std::atexit(AtExit);
    }
  }
  Tracer* old = r.active.exchange(fresh);
  if (old != nullptr) old->Shutdown(old->options().shutdown_timeout);
  return fresh;
}

Tracer* ActiveTracer() {
  Registry& r = Reg();
  std::call_once(r.env_once, [&r] {
    Result<std::optional<TracerOptions>> env = TracerOptionsFromEnv([](const char* name) { return std::getenv(name); });
    if (!env.ok()) {
      Log().warn("tracing stays off: {}", env.status().message());
      return;
    }
    if (!*env) return;
    auto* tracer = new Tracer(std::move(**env));  // immortal, see the header
    std::lock_guard<std::mutex> lock(r.mu);
    r.all.push_back(tracer);
    r.atexit_registered = true;
    std::atexit(AtExit);
    r.active.store(tracer);
  });
  return r.active.load(std::memory_order_acquire);
}

TracerStats GlobalTracerStats() {
  Registry& r = Reg();
  std::lock_guard<std::mutex> lock(r.mu);
  TracerStats sum;
  for (const Tracer* t : r.all) {
    const TracerStats s = t->stats();
    sum.ended += s.ended;
    sum.exported += s.exported;
    sum.dropped += s.dropped;
    sum.failed_exports += s.failed_exports;
  }
  return sum;
}

void ShutdownTracing(Millis timeout) {
  if (Tracer* t = Reg().active.load()) t->Shutdown(timeout);
}

}  // namespace medreact::otel
