// OpenTelemetry traces: spans, W3C trace context, and a batching OTLP/HTTP
// JSON exporter, with no SDK (none is packaged in Debian 12).
//
// A span is started with StartSpan() and ended by End() or its destructor;
// when no tracer is installed (OTEL_EXPORTER_OTLP_ENDPOINT unset, or
// OTEL_SDK_DISABLED=true) StartSpan returns an inactive span at the cost of
// one atomic load, and every setter on it is a no-op. A span's parent is the
// SpanContext given, else the calling thread's current context (ScopedContext),
// else none (a new trace). Work handed to another thread (a pool's tool call)
// must carry its parent explicitly: the current context is thread-local.
//
// Ended spans go to the installed Tracer's bounded queue (never blocking: a
// full queue drops the span and counts it); one background thread sends them
// in batches as OTLP/HTTP JSON (`POST {endpoint}`, resourceSpans/scopeSpans/
// spans) through an HttpTransport, like the SDK's BatchSpanProcessor: a batch
// when max_export_batch_size spans wait or schedule_delay has passed, each
// POST cut at export_timeout. A batch the collector refused, or could not
// take (down, slow), is dropped and counted; a run never waits for export.
//
// Process exit: the first installed tracer registers an atexit handler that
// flushes (at most shutdown_timeout), cancels a request still in flight and
// joins the thread. Tracers are never destroyed (InstallTracer leaks the one
// it replaces after shutting it down), so a span ended by a straggling
// thread during exit still finds its tracer, and the exporter thread touches
// only immortal objects (the tracer, its transport, libcurl's loader).
//
// What a span holds is the caller's choice; the callers in llm/ and engine/
// keep to the rule in README "Tracing with OpenTelemetry": ids, names,
// counts, never message text, tool arguments or results unless LogPhi().
// Thread-safety: a Span is used by one thread at a time; StartSpan, the
// context functions and the Tracer are thread-safe.
#ifndef MEDREACT_CORE_OTEL_H_
#define MEDREACT_CORE_OTEL_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "medreact/cancel.h"
#include "medreact/http.h"
#include "medreact/status.h"

namespace medreact::otel {

// A span's identity: 16-byte trace id, 8-byte span id (both non-zero when valid).
struct SpanContext {
  std::array<uint8_t, 16> trace_id{};
  std::array<uint8_t, 8> span_id{};
  bool sampled = true;
  bool remote = false;  // read from a traceparent header, not started here

  bool valid() const;
  std::string TraceIdHex() const;  // 32 lower-case hex digits
  std::string SpanIdHex() const;   // 16 lower-case hex digits
  // W3C Trace Context: "00-<trace id>-<span id>-01" ("-00" when not sampled); "" when invalid.
  std::string Traceparent() const;
};

// A W3C traceparent header value (version 00, or a later version read as 00
// per the spec); nullopt for anything malformed, all-zero ids or version ff.
std::optional<SpanContext> ParseTraceparent(std::string_view header);

// The calling thread's current context (invalid when none).
SpanContext CurrentContext();

// The traceparent header value for an outgoing call made now on this thread:
// the current context's, or "" when there is none (tracing off and no
// incoming trace). The MCP client and every HTTP caller that propagates
// context add it as the `traceparent` header when not empty.
std::string CurrentTraceparent();

// Makes `context` the calling thread's current one until destroyed (then the
// previous one again). An invalid context clears it for the scope.
class ScopedContext {
 public:
  explicit ScopedContext(const SpanContext& context);
  ~ScopedContext();
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  SpanContext previous_;
};

// OTLP SpanKind numbers.
enum class SpanKind { kInternal = 1, kServer = 2, kClient = 3 };

using AttributeValue = std::variant<std::string, int64_t, double, bool, std::vector<std::string>>;

struct SpanData {
  SpanContext context;
  std::array<uint8_t, 8> parent_span_id{};  // zero: a root span
  std::string name;
  SpanKind kind = SpanKind::kInternal;
  uint64_t start_unix_nanos = 0;
  uint64_t end_unix_nanos = 0;
  std::vector<std::pair<std::string, AttributeValue>> attributes;
  bool error = false;
  std::string status_message;  // with error: a description without PHI
};

class Tracer;

class Span {
 public:
  Span() = default;  // inactive
  Span(Tracer* tracer, std::unique_ptr<SpanData> data);
  ~Span() { End(); }
  Span(Span&&) noexcept = default;
  Span& operator=(Span&& other) noexcept;
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;

  bool active() const { return data_ != nullptr; }
  // Invalid for an inactive span.
  SpanContext context() const { return data_ ? data_->context : SpanContext{}; }

  // Sets (or replaces) an attribute; no-ops on an inactive span.
  void Set(std::string_view key, std::string value);
  void Set(std::string_view key, const char* value) { Set(key, std::string(value)); }
  void Set(std::string_view key, int64_t value);
  void Set(std::string_view key, int value) { Set(key, static_cast<int64_t>(value)); }
  void Set(std::string_view key, double value);
  void Set(std::string_view key, bool value);
  void Set(std::string_view key, std::vector<std::string> value);
  // Status ERROR with `description` (no PHI: a fixed phrase, a status code
  // name) and the attribute error.type = `error_type`.
  void SetError(std::string_view error_type, std::string_view description);
  // Ends the span and hands it to its tracer; later calls do nothing.
  void End();

 private:
  void SetValue(std::string_view key, AttributeValue value);
  Tracer* tracer_ = nullptr;
  std::unique_ptr<SpanData> data_;
};

// Starts a span: child of `parent` when valid, else of the thread's current
// context, else a new trace. Inactive when no tracer is installed.
Span StartSpan(std::string name, SpanKind kind, const SpanContext& parent = {});

struct TracerOptions {
  // Where batches are POSTed: the full traces URL ({endpoint}/v1/traces).
  std::string traces_url;
  // Extra request headers (OTEL_EXPORTER_OTLP_HEADERS). Default: none
  std::vector<std::pair<std::string, std::string>> headers;
  std::string service_name = "medreact";  // resource service.name. Default: "medreact"
  size_t max_queue_size = 2048;           // spans waiting; more are dropped. Default: 2048
  size_t max_export_batch_size = 512;     // spans per POST. Default: 512
  Millis schedule_delay{5'000};           // longest wait before a partial batch. Default: 5 s
  Millis export_timeout{30'000};          // one POST, connect included. Default: 30 s
  // Flush() at process exit waits at most this long; a POST still in flight
  // then is cancelled. Default: 5 s
  Millis shutdown_timeout{5'000};
  // The network. Default: MakeCurlTransport()
  std::shared_ptr<HttpTransport> transport;
};

// OTEL_* variables, as `getenv` reads them: nullopt when tracing is off
// (no endpoint, or OTEL_SDK_DISABLED=true); InvalidArgument naming the
// variable for a malformed one. OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used
// as is; OTEL_EXPORTER_OTLP_ENDPOINT gets "/v1/traces" appended.
// OTEL_EXPORTER_OTLP_HEADERS is "k=v,k2=v2" (values percent-decoded);
// OTEL_BSP_MAX_QUEUE_SIZE, OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
// OTEL_BSP_SCHEDULE_DELAY and OTEL_BSP_EXPORT_TIMEOUT (ms) as in the SDK.
Result<std::optional<TracerOptions>> TracerOptionsFromEnv(
    const std::function<const char*(const char*)>& getenv);

// Counters of what happened to ended spans.
struct TracerStats {
  uint64_t ended = 0;          // spans handed to the tracer
  uint64_t exported = 0;       // in batches the collector answered 2xx
  uint64_t dropped = 0;        // queue full, or in a batch that failed
  uint64_t failed_exports = 0; // POSTs that failed (refused, timeout, non-2xx)
};

class Tracer {
 public:
  explicit Tracer(TracerOptions options);
  ~Tracer();  // Shutdown(); in practice never run (tracers are immortal)
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // Queues an ended span (drops and counts it when the queue is full).
  void Enqueue(std::unique_ptr<SpanData> span);
  // Sends every span queued so far; waits at most `timeout`. True when all
  // were handled (exported or dropped) in time.
  bool Flush(Millis timeout);
  // Flush, then stop the thread (cancelling a POST still in flight after
  // `timeout`) and join it. Spans ended afterwards are dropped and counted.
  void Shutdown(Millis timeout);
  TracerStats stats() const;
  const TracerOptions& options() const { return options_; }

 private:
  class Impl;
  TracerOptions options_;
  std::unique_ptr<Impl> impl_;
};

// The installed tracer, or null (tracing off). The first call reads the
// environment (TracerOptionsFromEnv; a malformed variable is logged once
// and tracing stays off).
Tracer* ActiveTracer();
// Installs a tracer for `options` (replacing and shutting down the one
// installed; it is kept, never freed); null options uninstall. For tests
// and embedders; the CLI and the server rely on the environment.
Tracer* InstallTracer(std::optional<TracerOptions> options);
// Counters of every tracer installed in this process, summed (for /metrics).
TracerStats GlobalTracerStats();
// Flushes the installed tracer at most `timeout` and stops it (the CLI's
// end, and the atexit handler).
void ShutdownTracing(Millis timeout);

// OTLP/HTTP JSON body of one batch (exposed for tests).
std::string OtlpJsonBody(const TracerOptions& options, const std::vector<std::unique_ptr<SpanData>>& spans);

}  // namespace medreact::otel

#endif  // MEDREACT_CORE_OTEL_H_
