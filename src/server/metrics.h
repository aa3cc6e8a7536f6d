// A small Prometheus registry for `GET /metrics`: counters, gauges and
// histograms with labels, rendered in the text exposition format 0.0.4
// (Content-Type `text/plain; version=0.0.4`). No socket, no client library.
//
// A family is registered once (name, help, label names; a histogram also
// its bucket bounds) and then updated by name with one value per label name,
// in the registered order. Render() writes every family in registration
// order: `# HELP`, `# TYPE`, then its series sorted by label values; a family
// without labels always has its one series (0 before any update), a family
// with labels has the series that were updated. A histogram writes its
// cumulative `_bucket{...,le="..."}` lines (`+Inf` last), `_sum` and `_count`.
// Label values are escaped (\\, \", \n), help text too (\\, \n). A gauge may
// take its values from a callback called at each Render (e.g. runs by app and
// status, read from the store): the callback runs outside the registry's lock
// and may update other families.
//
// Label values come from outside (routes, tools): keep them bounded (route
// patterns, not paths); a family holds at most
// MetricsOptions::max_series_per_family series, an update that would add one
// more is refused. Thread-safe: one mutex around every update and render.
#ifndef MEDREACT_SERVER_METRICS_H_
#define MEDREACT_SERVER_METRICS_H_

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/status.h"

namespace medreact::server {

// The server's metric names (register them with RegisterServerMetrics).
inline constexpr std::string_view kMetricRuns = "medreact_runs";                          // gauge {app,status}, callback
inline constexpr std::string_view kMetricModelCalls = "medreact_model_calls_total";       // counter
inline constexpr std::string_view kMetricToolCalls = "medreact_tool_calls_total";         // counter {tool}
inline constexpr std::string_view kMetricHttpRequests = "medreact_http_requests_total";   // counter {route,code}
inline constexpr std::string_view kMetricHttpSeconds = "medreact_http_request_seconds";   // histogram {route}
inline constexpr std::string_view kMetricRunSeconds = "medreact_run_seconds";             // histogram {app}
inline constexpr std::string_view kMetricOpenStreams = "medreact_open_streams";           // gauge

// A metric name: [a-zA-Z_:][a-zA-Z0-9_:]*.
bool IsValidMetricName(std::string_view name);
// A label name: [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__".
bool IsValidLabelName(std::string_view name);

struct MetricsOptions {
  // Series one family may hold; an update that would add one more is
  // ResourceExhausted. Default: 1000.
  size_t max_series_per_family = 1000;
};

// One series a gauge callback reports.
struct GaugeSample {
  std::vector<std::string> label_values;  // one per label name of the gauge, in order
  double value = 0;
};
using GaugeCallback = std::function<std::vector<GaugeSample>()>;

class MetricsRegistry {
 public:
  explicit MetricsRegistry(MetricsOptions options = {});
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;
  ~MetricsRegistry();

  // Registration. InvalidArgument for an invalid metric or label name, a
  // label name given twice, "le" on a histogram, bucket bounds that are not
  // finite and strictly increasing (or none), or a name already registered.
  Status AddCounter(std::string_view name, std::string_view help, std::vector<std::string> label_names = {});
  Status AddGauge(std::string_view name, std::string_view help, std::vector<std::string> label_names = {});
  Status AddHistogram(std::string_view name, std::string_view help, std::vector<double> bucket_bounds,
                      std::vector<std::string> label_names = {});

  // The gauge `name` takes its series from `callback` at each Render (its
  // Set/Add values are then not rendered). Samples with the wrong number of
  // label values or a NaN are left out; a callback that throws renders no
  // series. NotFound / InvalidArgument (not a gauge).
  Status SetGaugeCallback(std::string_view name, GaugeCallback callback);

  // Updates. NotFound for an unregistered name; InvalidArgument for the
  // wrong kind of family, the wrong number of label values, a NaN, or a
  // negative counter increment; ResourceExhausted past max_series_per_family.
  Status Increment(std::string_view name, const std::vector<std::string>& label_values = {}, double by = 1);
  Status Set(std::string_view name, const std::vector<std::string>& label_values, double value);
  Status Add(std::string_view name, const std::vector<std::string>& label_values, double delta);  // a gauge
  Status Observe(std::string_view name, const std::vector<std::string>& label_values, double value);

  // The exposition text (format 0.0.4), ending in a newline.
  std::string Render() const;

 private:
  enum class Kind { kCounter, kGauge, kHistogram };
  struct Series {
    double value = 0;                   // counter, gauge
    std::vector<double> bucket_counts;  // histogram: per bound, not cumulative (+Inf is count)
    double sum = 0;
    double count = 0;
  };
  struct Family {
    std::string name;
    std::string help;
    Kind kind = Kind::kCounter;
    std::vector<std::string> label_names;
    std::vector<double> bounds;  // histogram
    std::map<std::vector<std::string>, Series> series;
    std::shared_ptr<GaugeCallback> callback;  // gauge from a callback
  };

  Status Register(Family family);
  // The family `name` of `kind` and its series for `label_values` (created
  // if needed); `family`, when given, is set to the family. REQUIRES: mutex_ held.
  Result<Series*> SeriesFor(std::string_view name, Kind kind, const std::vector<std::string>& label_values,
                            const Family** family = nullptr);

  MetricsOptions options_;
  mutable std::mutex mutex_;
  std::vector<Family> families_;  // guarded by mutex_; registration order
};

// Registers the server's families (names above) with their help texts and
// buckets: HTTP request seconds 0.005 .. 10, run seconds 1 .. 1800. The
// caller sets kMetricRuns's callback (SetGaugeCallback) once it has a store.
Status RegisterServerMetrics(MetricsRegistry& registry);

}  // namespace medreact::server

#endif  // MEDREACT_SERVER_METRICS_H_
