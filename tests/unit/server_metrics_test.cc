// Tests for the Prometheus registry (src/server/metrics.h): the rendered text
// compared line by line with the expected exposition (format 0.0.4), label
// and help escaping, name validation, the gauge callback, the series cap and
// many threads updating at once.
#include <barrier>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/metrics.h"

namespace medreact::server {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(ServerMetricsTest, RendersCountersGaugesAndHistogramsLineByLine) {
  MetricsRegistry registry;
  ASSERT_TRUE(registry.AddCounter("medreact_http_requests_total", "HTTP requests.", {"route", "code"}).ok());
  ASSERT_TRUE(registry.AddCounter("medreact_model_calls_total", "Model calls.").ok());
  ASSERT_TRUE(registry.AddGauge("medreact_open_streams", "Streams open now.").ok());
  ASSERT_TRUE(registry.AddHistogram("medreact_http_request_seconds", "Request seconds.", {0.1, 0.5, 2.5}, {"route"})
                  .ok());
  ASSERT_TRUE(registry.Increment("medreact_http_requests_total", {"/v1/runs", "200"}).ok());
  ASSERT_TRUE(registry.Increment("medreact_http_requests_total", {"/v1/runs", "200"}, 2).ok());
  ASSERT_TRUE(registry.Increment("medreact_http_requests_total", {"/v1/runs/{id}", "404"}).ok());
  ASSERT_TRUE(registry.Increment("medreact_http_requests_total", {"/healthz", "200"}).ok());
  ASSERT_TRUE(registry.Add("medreact_open_streams", {}, 3).ok());
  ASSERT_TRUE(registry.Add("medreact_open_streams", {}, -1).ok());
  for (double seconds : {0.0625, 0.125, 0.25, 3.0}) {  // exact in binary: an exact sum
    ASSERT_TRUE(registry.Observe("medreact_http_request_seconds", {"/v1/runs"}, seconds).ok());
  }
  ASSERT_TRUE(registry.Observe("medreact_http_request_seconds", {"/healthz"}, 0.5).ok());

  const std::string expected[] = {
      "# HELP medreact_http_requests_total HTTP requests.",
      "# TYPE medreact_http_requests_total counter",
      "medreact_http_requests_total{route=\"/healthz\",code=\"200\"} 1",
      "medreact_http_requests_total{route=\"/v1/runs\",code=\"200\"} 3",
      "medreact_http_requests_total{route=\"/v1/runs/{id}\",code=\"404\"} 1",
      "# HELP medreact_model_calls_total Model calls.",
      "# TYPE medreact_model_calls_total counter",
      "medreact_model_calls_total 0",  // no labels: present before any update
      "# HELP medreact_open_streams Streams open now.",
      "# TYPE medreact_open_streams gauge",
      "medreact_open_streams 2",
      "# HELP medreact_http_request_seconds Request seconds.",
      "# TYPE medreact_http_request_seconds histogram",
      "medreact_http_request_seconds_bucket{route=\"/healthz\",le=\"0.1\"} 0",
      "medreact_http_request_seconds_bucket{route=\"/healthz\",le=\"0.5\"} 1",  // le is "less or equal"
      "medreact_http_request_seconds_bucket{route=\"/healthz\",le=\"2.5\"} 1",
      "medreact_http_request_seconds_bucket{route=\"/healthz\",le=\"+Inf\"} 1",
      "medreact_http_request_seconds_sum{route=\"/healthz\"} 0.5",
      "medreact_http_request_seconds_count{route=\"/healthz\"} 1",
      "medreact_http_request_seconds_bucket{route=\"/v1/runs\",le=\"0.1\"} 1",
      // cumulative
      "medreact_http_request_seconds_bucket{route=\"/v1/runs\",le=\"0.5\"} 3",
      "medreact_http_request_seconds_bucket{route=\"/v1/runs\",le=\"2.5\"} 3",
      "medreact_http_request_seconds_bucket{route=\"/v1/runs\",le=\"+Inf\"} 4",
      "medreact_http_request_seconds_sum{route=\"/v1/runs\"} 3.4375",
      "medreact_http_request_seconds_count{route=\"/v1/runs\"} 4",
  };
  const std::string text = registry.Render();
  EXPECT_THAT(Lines(text), ElementsAreArray(expected));
  EXPECT_EQ(text.back(), '\n');
}

TEST(ServerMetricsTest, AHistogramWithoutLabelsHasZeroSeriesBeforeAnyObservation) {
  MetricsRegistry registry;
  ASSERT_TRUE(registry.AddHistogram("h", "", {1}).ok());
  EXPECT_THAT(Lines(registry.Render()), ElementsAreArray({"# HELP h ", "# TYPE h histogram", "h_bucket{le=\"1\"} 0",
                                                          "h_bucket{le=\"+Inf\"} 0", "h_sum 0", "h_count 0"}));
}

TEST(ServerMetricsTest, LabelValuesAndHelpAreEscaped) {
  MetricsRegistry registry;
  ASSERT_TRUE(registry.AddCounter("medreact_tool_calls_total", "Tool calls\nby \\tool\\ \"name\".", {"tool"}).ok());
  ASSERT_TRUE(registry.Increment("medreact_tool_calls_total", {"a\"b\\c\nd} e{"}).ok());
  EXPECT_THAT(Lines(registry.Render()),
              ElementsAreArray({
                  "# HELP medreact_tool_calls_total Tool calls\\nby \\\\tool\\\\ \"name\".",  // quotes stay in help
                  "# TYPE medreact_tool_calls_total counter",
                  "medreact_tool_calls_total{tool=\"a\\\"b\\\\c\\nd} e{\"} 1",
              }));
}

TEST(ServerMetricsTest, NamesAreValidated) {
  EXPECT_TRUE(IsValidMetricName("medreact_runs"));
  EXPECT_TRUE(IsValidMetricName("_x:y_1"));
  EXPECT_FALSE(IsValidMetricName(""));
  EXPECT_FALSE(IsValidMetricName("1abc"));
  EXPECT_FALSE(IsValidMetricName("a-b"));
  EXPECT_FALSE(IsValidMetricName("a b"));
  EXPECT_FALSE(IsValidMetricName("caf\xc3\xa9"));
  EXPECT_TRUE(IsValidLabelName("route"));
  EXPECT_TRUE(IsValidLabelName("_x1"));
  EXPECT_FALSE(IsValidLabelName("__reserved"));
  EXPECT_FALSE(IsValidLabelName("a:b"));
  EXPECT_FALSE(IsValidLabelName("9"));

  MetricsRegistry registry;
  EXPECT_EQ(registry.AddCounter("bad-name", "").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.AddCounter("c", "", {"ok", "bad-label"}).code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(registry.AddCounter("c", "", {"x", "x"}).message(), HasSubstr("given twice"));
  EXPECT_THAT(registry.AddHistogram("h", "", {1}, {"le"}).message(), HasSubstr("'le'"));
  EXPECT_THAT(registry.AddHistogram("h", "", {}).message(), HasSubstr("no buckets"));
  EXPECT_THAT(registry.AddHistogram("h", "", {1, 1}).message(), HasSubstr("strictly increasing"));
  EXPECT_THAT(registry.AddHistogram("h", "", {1, std::numeric_limits<double>::infinity()}).message(),
              HasSubstr("finite"));
  ASSERT_TRUE(registry.AddCounter("c", "").ok());
  EXPECT_THAT(registry.AddGauge("c", "").message(), HasSubstr("already registered"));
  EXPECT_EQ(Lines(registry.Render()).size(), 3u);  // the refused ones left nothing behind
}

TEST(ServerMetricsTest, WrongUpdatesAreRefusedByName) {
  MetricsRegistry registry;
  ASSERT_TRUE(registry.AddCounter("c", "", {"a"}).ok());
  ASSERT_TRUE(registry.AddGauge("g", "").ok());
  ASSERT_TRUE(registry.AddHistogram("h", "", {1}).ok());
  EXPECT_EQ(registry.Increment("absent", {}).code(), StatusCode::kNotFound);
  EXPECT_THAT(registry.Increment("c", {}).message(), HasSubstr("takes 1 label values, not 0"));
  EXPECT_THAT(registry.Increment("c", {"x"}, -1).message(), HasSubstr(">= 0"));
  EXPECT_EQ(registry.Increment("c", {"x"}, std::numeric_limits<double>::quiet_NaN()).code(),
            StatusCode::kInvalidArgument);
  EXPECT_THAT(registry.Set("c", {"x"}, 1).message(), HasSubstr("is a counter, not a gauge"));
  EXPECT_THAT(registry.Observe("g", {}, 1).message(), HasSubstr("is a gauge, not a histogram"));
  EXPECT_EQ(registry.Observe("absent", {}, 1).code(), StatusCode::kNotFound);
  EXPECT_EQ(registry.Observe("h", {}, std::numeric_limits<double>::quiet_NaN()).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Set("g", {}, std::numeric_limits<double>::quiet_NaN()).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(registry.Set("g", {}, -std::numeric_limits<double>::infinity()).ok());
  ASSERT_TRUE(registry.Observe("h", {}, 1e300).ok());
  EXPECT_THAT(Lines(registry.Render()),
              ElementsAreArray({"# HELP c ", "# TYPE c counter", "# HELP g ", "# TYPE g gauge", "g -Inf",
                                "# HELP h ", "# TYPE h histogram", "h_bucket{le=\"1\"} 0", "h_bucket{le=\"+Inf\"} 1",
                                "h_sum 1e+300", "h_count 1"}));
}

TEST(ServerMetricsTest, AGaugeFromACallbackIsFilledAtRenderTime) {
  MetricsRegistry registry;
  ASSERT_TRUE(RegisterServerMetrics(registry).ok());
  int calls = 0;
  ASSERT_TRUE(registry
                  .SetGaugeCallback(kMetricRuns,
                                    [&] {
                                      ++calls;
                                      // The callback may update the registry: it runs outside its lock.
                                      EXPECT_TRUE(registry.Increment(kMetricModelCalls).ok());
                                      return std::vector<GaugeSample>{
                                          {{"triage", "done"}, 7},
                                          {{"chat", "running"}, 1},
                                          {{"only-one-label"}, 5},                                       // left out
                                          {{"chat", "nan"}, std::numeric_limits<double>::quiet_NaN()},  // left out
                                      };
                                    })
                  .ok());
  ASSERT_TRUE(registry.Set(kMetricRuns, {"ignored", "set"}, 99).ok());  // the callback wins
  const std::vector<std::string> lines = Lines(registry.Render());
  EXPECT_EQ(calls, 1);
  const std::vector<std::string> head(lines.begin(), lines.begin() + 7);
  EXPECT_THAT(head, ElementsAreArray({
                        "# HELP medreact_runs Runs in the store by app and status.",
                        "# TYPE medreact_runs gauge",
                        "medreact_runs{app=\"chat\",status=\"running\"} 1",
                        "medreact_runs{app=\"triage\",status=\"done\"} 7",
                        "# HELP medreact_model_calls_total Model calls made by runs of this server.",
                        "# TYPE medreact_model_calls_total counter",
                        "medreact_model_calls_total 1",
                    }));
  EXPECT_EQ(calls, 1);
  EXPECT_THAT(registry.Render(), HasSubstr("medreact_model_calls_total 2\n"));
  EXPECT_EQ(calls, 2);

  // A callback that throws renders no series, and the rest is still there.
  ASSERT_TRUE(registry.SetGaugeCallback(kMetricRuns, [] () -> std::vector<GaugeSample> {
                throw std::runtime_error("store closed");
              }).ok());
  const std::string text = registry.Render();
  EXPECT_THAT(text, HasSubstr("# TYPE medreact_runs gauge\n# HELP medreact_model_calls_total"));
  EXPECT_THAT(text, HasSubstr("medreact_open_streams 0\n"));

  EXPECT_EQ(registry.SetGaugeCallback(kMetricModelCalls, [] { return std::vector<GaugeSample>{}; }).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.SetGaugeCallback("absent", [] { return std::vector<GaugeSample>{}; }).code(),
            StatusCode::kNotFound);
}

TEST(ServerMetricsTest, TheServerFamiliesAreRegisteredOnce) {
  MetricsRegistry registry;
  ASSERT_TRUE(RegisterServerMetrics(registry).ok());
  const std::string text = registry.Render();
  for (std::string_view name : {kMetricRuns, kMetricModelCalls, kMetricToolCalls, kMetricHttpRequests,
                                kMetricHttpSeconds, kMetricRunSeconds, kMetricOpenStreams}) {
    EXPECT_THAT(text, HasSubstr("# TYPE " + std::string(name) + " ")) << name;
  }
  EXPECT_TRUE(registry.Observe(kMetricRunSeconds, {"triage"}, 42).ok());
  EXPECT_THAT(registry.Render(), HasSubstr("medreact_run_seconds_bucket{app=\"triage\",le=\"60\"} 1\n"));
  EXPECT_EQ(RegisterServerMetrics(registry).code(), StatusCode::kInvalidArgument);  // already there
}

TEST(ServerMetricsTest, AFamilyHoldsAtMostItsSeriesCap) {
  MetricsRegistry registry({.max_series_per_family = 3});
  ASSERT_TRUE(registry.AddCounter("c", "", {"route"}).ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(registry.Increment("c", {"/r" + std::to_string(i)}).ok());
  EXPECT_EQ(registry.Increment("c", {"/r3"}).code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(registry.Increment("c", {"/r0"}).ok());  // an existing series still counts
  EXPECT_EQ(Lines(registry.Render()).size(), 5u);
}

TEST(ServerMetricsTest, ConcurrentUpdatesAreAllCounted) {
  constexpr int kThreads = 8;
  constexpr int kEach = 2000;
  MetricsRegistry registry;
  ASSERT_TRUE(registry.AddCounter("c", "", {"t"}).ok());
  ASSERT_TRUE(registry.AddHistogram("h", "", {0.5}).ok());
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int i = 0; i < kEach; ++i) {
        (void)registry.Increment("c", {t % 2 == 0 ? "even" : "odd"});
        (void)registry.Observe("h", {}, i % 2);
        if (i % 500 == 0) (void)registry.Render();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_THAT(Lines(registry.Render()),
              ElementsAreArray({"# HELP c ", "# TYPE c counter", "c{t=\"even\"} 8000", "c{t=\"odd\"} 8000",
                                "# HELP h ", "# TYPE h histogram", "h_bucket{le=\"0.5\"} 8000",
                                "h_bucket{le=\"+Inf\"} 16000", "h_sum 8000", "h_count 16000"}));
}

}  // namespace
}  // namespace medreact::server
