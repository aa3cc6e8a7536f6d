// core/otel.h without a network: W3C traceparent reading and writing, the
// OTEL_* environment, the OTLP JSON body, spans' parents and the exporter's
// queue (full queue, failed export) through a fake transport.
#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "core/otel.h"
#include "medreact/json.h"

namespace medreact {
namespace {

using otel::ParseTraceparent;

TEST(OtelContextTest, TraceparentIsReadAndWrittenInTheW3cFormat) {
  const std::string header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  std::optional<otel::SpanContext> c = ParseTraceparent(header);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->TraceIdHex(), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(c->SpanIdHex(), "00f067aa0ba902b7");
  EXPECT_TRUE(c->sampled);
  EXPECT_TRUE(c->remote);
  EXPECT_EQ(c->Traceparent(), header);
  EXPECT_FALSE(ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")->sampled);
  // A later version may carry more fields after a dash.
  EXPECT_TRUE(ParseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra").has_value());
}

TEST(OtelContextTest, MalformedTraceparentsAreRefused) {
  for (const char* bad : {
           "",
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",         // no flags
           "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",      // upper case
           "00-00000000000000000000000000000000-00f067aa0ba902b7-01",      // zero trace id
           "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",      // zero span id
           "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",      // version ff
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more", // version 00 with more
           "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
           "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
       }) {
    EXPECT_FALSE(ParseTraceparent(bad).has_value()) << bad;
  }
}

TEST(OtelContextTest, TracingOffGivesInactiveSpansAndNoTraceparent) {
  otel::InstallTracer(std::nullopt);
  otel::Span span = otel::StartSpan("x", otel::SpanKind::kInternal);
  EXPECT_FALSE(span.active());
  span.Set("k", "v");  // no-ops
  span.SetError("e", "d");
  EXPECT_EQ(otel::CurrentTraceparent(), "");
  // An incoming trace is still carried on.
  const auto remote = ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  {
    otel::ScopedContext scope(*remote);
    EXPECT_EQ(otel::CurrentTraceparent(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  }
  EXPECT_EQ(otel::CurrentTraceparent(), "");
}

// ---- The environment ------------------------------------------------------------

using Env = std::map<std::string, std::string>;

Result<std::optional<otel::TracerOptions>> FromEnv(const Env& env) {
  return otel::TracerOptionsFromEnv([&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(OtelEnvTest, NoEndpointOrDisabledMeansOff) {
  auto none = FromEnv({});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto disabled = FromEnv({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"}, {"OTEL_SDK_DISABLED", "TRUE"}});
  ASSERT_TRUE(disabled.ok());
  EXPECT_FALSE(disabled->has_value());
  auto not_disabled =
      FromEnv({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"}, {"OTEL_SDK_DISABLED", "false"}});
  ASSERT_TRUE(not_disabled.ok());
  EXPECT_TRUE(not_disabled->has_value());
}

TEST(OtelEnvTest, EndpointsHeadersServiceNameAndBatchSettings) {
  auto o = FromEnv({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"},
                    {"OTEL_SERVICE_NAME", "ward-7"},
                    {"OTEL_EXPORTER_OTLP_HEADERS", " api-key = s%3Dcret , x-org=a b,,"},
                    {"OTEL_BSP_MAX_QUEUE_SIZE", "100"},
                    {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "500"},
                    {"OTEL_BSP_SCHEDULE_DELAY", "250"},
                    {"OTEL_BSP_EXPORT_TIMEOUT", "1500"}});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  ASSERT_TRUE(o->has_value());
  const otel::TracerOptions& t = **o;
  EXPECT_EQ(t.traces_url, "http://collector:4318/v1/traces");
  EXPECT_EQ(t.service_name, "ward-7");
  ASSERT_EQ(t.headers.size(), 2u);
  EXPECT_EQ(t.headers[0], (std::pair<std::string, std::string>{"api-key", "s=cret"}));
  EXPECT_EQ(t.headers[1], (std::pair<std::string, std::string>{"x-org", "a b"}));
  EXPECT_EQ(t.max_queue_size, 100u);
  EXPECT_EQ(t.max_export_batch_size, 100u);  // never more than the queue
  EXPECT_EQ(t.schedule_delay, Millis(250));
  EXPECT_EQ(t.export_timeout, Millis(1500));

  // The traces endpoint is used as it is, and wins.
  auto traces = FromEnv({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"},
                         {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://b/custom/path"}});
  ASSERT_TRUE(traces.ok());
  EXPECT_EQ((*traces)->traces_url, "https://b/custom/path");
  EXPECT_EQ((*traces)->service_name, "medreact");
}

TEST(OtelEnvTest, MalformedValuesAreNamedWithoutQuotingSecrets) {
  auto bad_header = FromEnv({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"},
                             {"OTEL_EXPORTER_OTLP_HEADERS", "ok=1,tokensecret123"}});
  ASSERT_FALSE(bad_header.ok());
  EXPECT_NE(bad_header.status().message().find("OTEL_EXPORTER_OTLP_HEADERS entry 2"), std::string::npos)
      << bad_header.status().message();
  EXPECT_EQ(bad_header.status().message().find("tokensecret123"), std::string::npos);
  auto bad_scheme = FromEnv({{"OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318"}});
  ASSERT_FALSE(bad_scheme.ok());
  EXPECT_NE(bad_scheme.status().message().find("OTEL_EXPORTER_OTLP_ENDPOINT"), std::string::npos);
  auto bad_number = FromEnv({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a"}, {"OTEL_BSP_MAX_QUEUE_SIZE", "-5"}});
  ASSERT_FALSE(bad_number.ok());
  EXPECT_NE(bad_number.status().message().find("OTEL_BSP_MAX_QUEUE_SIZE"), std::string::npos);
  auto zero = FromEnv({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a"}, {"OTEL_BSP_SCHEDULE_DELAY", "0"}});
  ASSERT_FALSE(zero.ok());
}

// ---- The exporter ---------------------------------------------------------------

// Records each POST; blocks while `held` (until released).
class FakeCollector : public HttpTransport {
 public:
  Result<HttpResponse> Send(const HttpRequest& request, const HttpChunkHandler&,
                            const CancellationToken& cancel) override {
    std::unique_lock<std::mutex> lock(mu_);
    requests_.push_back(request);
    cv_.notify_all();
    while (held_ && !cancel.cancelled()) cv_.wait_for(lock, std::chrono::milliseconds(10));
    if (cancel.cancelled()) return Status::Cancelled("cancelled");
    HttpResponse r;
    r.status = status_;
    return r;
  }
  void Hold(bool held) {
    std::lock_guard<std::mutex> lock(mu_);
    held_ = held;
    cv_.notify_all();
  }
  void set_status(int s) { status_ = s; }
  size_t WaitForRequests(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(30), [&] { return requests_.size() >= n; });
    return requests_.size();
  }
  std::vector<HttpRequest> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<HttpRequest> requests_;
  bool held_ = false;
  int status_ = 200;
};

struct Installed {
  explicit Installed(otel::TracerOptions o) : tracer(otel::InstallTracer(std::move(o))) {}
  ~Installed() { otel::InstallTracer(std::nullopt); }
  otel::Tracer* tracer;
};

TEST(OtelExporterTest, SpansNestByContextAndTheBodyIsOtlpJson) {
  auto collector = std::make_shared<FakeCollector>();
  Installed t({.traces_url = "http://collector.invalid/v1/traces",
               .headers = {{"x-key", "k1"}},
               .schedule_delay = Millis(60'000),
               .transport = collector});
  std::string parent_id;
  std::string trace_id;
  {
    otel::Span parent = otel::StartSpan("parent", otel::SpanKind::kInternal);
    ASSERT_TRUE(parent.active());
    parent_id = parent.context().SpanIdHex();
    trace_id = parent.context().TraceIdHex();
    otel::ScopedContext scope(parent.context());
    otel::Span child = otel::StartSpan("child", otel::SpanKind::kClient);
    child.Set("s", "text");
    child.Set("i", int64_t{42});
    child.Set("d", 0.5);
    child.Set("b", true);
    child.Set("a", std::vector<std::string>{"stop"});
    child.SetError("timeout", "the call timed out");
    EXPECT_EQ(otel::CurrentTraceparent(), "00-" + trace_id + "-" + parent_id + "-01");
  }
  ASSERT_TRUE(t.tracer->Flush(Millis(10'000)));
  ASSERT_EQ(collector->requests().size(), 1u);  // one batch
  const HttpRequest request = collector->requests()[0];
  EXPECT_EQ(request.url, "http://collector.invalid/v1/traces");
  bool has_key = false;
  for (const auto& [k, v] : request.headers) has_key = has_key || (k == "x-key" && v == "k1");
  EXPECT_TRUE(has_key);
  Result<Json> body = ParseJson(request.body);
  ASSERT_TRUE(body.ok());
  const Json& spans = (*body)["resourceSpans"][0]["scopeSpans"][0]["spans"];
  ASSERT_EQ(spans.size(), 2u);
  const Json& child = spans[0];  // ended first
  EXPECT_EQ(child["name"], "child");
  EXPECT_EQ(child["kind"], 3);
  EXPECT_EQ(child["traceId"], trace_id);
  EXPECT_EQ(child["parentSpanId"], parent_id);
  EXPECT_EQ(child["status"]["code"], 2);
  EXPECT_EQ(child["status"]["message"], "the call timed out");
  const Json& a = child["attributes"];
  EXPECT_EQ(a[0], Json::parse(R"({"key":"s","value":{"stringValue":"text"}})"));
  EXPECT_EQ(a[1], Json::parse(R"({"key":"i","value":{"intValue":"42"}})"));
  EXPECT_EQ(a[2], Json::parse(R"({"key":"d","value":{"doubleValue":0.5}})"));
  EXPECT_EQ(a[3], Json::parse(R"({"key":"b","value":{"boolValue":true}})"));
  EXPECT_EQ(a[4], Json::parse(R"({"key":"a","value":{"arrayValue":{"values":[{"stringValue":"stop"}]}}})"));
  EXPECT_EQ(a[5], Json::parse(R"({"key":"error.type","value":{"stringValue":"timeout"}})"));
  EXPECT_FALSE(spans[1].contains("parentSpanId"));
  EXPECT_EQ((*body)["resourceSpans"][0]["resource"]["attributes"][0]["value"]["stringValue"], "medreact");
  EXPECT_EQ(t.tracer->stats().exported, 2u);
}

TEST(OtelExporterTest, AFullQueueDropsAndCountsAndNeverBlocks) {
  auto collector = std::make_shared<FakeCollector>();
  collector->Hold(true);
  Installed t({.traces_url = "http://collector.invalid/v1/traces",
               .max_queue_size = 4,
               .max_export_batch_size = 2,
               .schedule_delay = Millis(60'000),
               .transport = collector});
  otel::StartSpan("a", otel::SpanKind::kInternal).End();
  otel::StartSpan("b", otel::SpanKind::kInternal).End();  // a full batch: sent, and held
  ASSERT_EQ(collector->WaitForRequests(1), 1u);
  for (int i = 0; i < 10; ++i) otel::StartSpan("more", otel::SpanKind::kInternal).End();
  otel::TracerStats s = t.tracer->stats();
  EXPECT_EQ(s.ended, 12u);
  EXPECT_EQ(s.dropped, 6u);  // 4 queued behind the held batch, 6 had no room
  collector->Hold(false);
  ASSERT_TRUE(t.tracer->Flush(Millis(10'000)));
  s = t.tracer->stats();
  EXPECT_EQ(s.exported, 6u);
  EXPECT_EQ(s.dropped, 6u);
}

TEST(OtelExporterTest, ARefusedBatchIsDroppedAndCounted) {
  auto collector = std::make_shared<FakeCollector>();
  collector->set_status(503);
  Installed t({.traces_url = "http://collector.invalid/v1/traces", .transport = collector});
  otel::StartSpan("a", otel::SpanKind::kInternal).End();
  ASSERT_TRUE(t.tracer->Flush(Millis(10'000)));
  const otel::TracerStats s = t.tracer->stats();
  EXPECT_EQ(s.dropped, 1u);
  EXPECT_EQ(s.failed_exports, 1u);
  EXPECT_EQ(s.exported, 0u);
}

TEST(OtelExporterTest, ShutdownCancelsAHeldExportAndLaterSpansAreDropped) {
  auto collector = std::make_shared<FakeCollector>();
  collector->Hold(true);
  Installed t({.traces_url = "http://collector.invalid/v1/traces", .transport = collector});
  otel::StartSpan("a", otel::SpanKind::kInternal).End();
  EXPECT_FALSE(t.tracer->Flush(Millis(50)));  // held
  t.tracer->Shutdown(Millis(50));              // returns: the held POST is cancelled
  otel::StartSpan("late", otel::SpanKind::kInternal).End();
  const otel::TracerStats s = t.tracer->stats();
  EXPECT_EQ(s.ended, 2u);
  EXPECT_EQ(s.dropped, 2u);
}

}  // namespace
}  // namespace medreact
