// Prometheus text exposition (format 0.0.4): see metrics.h.
// Format: https://prometheus.io/docs/instrumenting/exposition_formats/
#include "server/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <string>
#include <utility>

namespace medreact::server {
namespace {

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Go's strconv.ParseFloat reads all of these: integers as integers, other
// values shortest round-trip, NaN and ±Inf by name.
std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char text[64];
  auto [end, ec] = std::to_chars(text, text + sizeof text, v);
  if (ec != std::errc()) return "NaN";
  return std::string(text, end);
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string EscapeHelp(std::string_view help) {
  std::string out;
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// {a="x",b="y"} plus an optional extra label (le); "" when there is none.
std::string LabelText(const std::vector<std::string>& names, const std::vector<std::string>& values,
                      std::string_view extra_name = {}, std::string_view extra_value = {}) {
  if (names.empty() && extra_name.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ',';
    out += names[i] + "=\"" + EscapeLabelValue(values[i]) + "\"";
  }
  if (!extra_name.empty()) {
    if (!names.empty()) out += ',';
    out += std::string(extra_name) + "=\"" + std::string(extra_value) + "\"";
  }
  return out + "}";
}

const char* TypeName(int kind) {
  switch (kind) {
    case 0:
      return "counter";
    case 1:
      return "gauge";
    default:
      return "histogram";
  }
}

}  // namespace

bool IsValidMetricName(std::string_view name) {
  if (name.empty() || !(IsAlpha(name[0]) || name[0] == '_' || name[0] == ':')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return IsAlpha(c) || IsDigit(c) || c == '_' || c == ':'; });
}

bool IsValidLabelName(std::string_view name) {
  if (name.empty() || !(IsAlpha(name[0]) || name[0] == '_') || name.substr(0, 2) == "__") return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return IsAlpha(c) || IsDigit(c) || c == '_'; });
}

MetricsRegistry::MetricsRegistry(MetricsOptions options) : options_(options) {}
MetricsRegistry::~MetricsRegistry() = default;

Status MetricsRegistry::Register(Family family) {
  if (!IsValidMetricName(family.name)) {
    return Status::InvalidArgument("metric name '" + family.name + "' is not [a-zA-Z_:][a-zA-Z0-9_:]*");
  }
  std::set<std::string> seen;
  for (const std::string& label : family.label_names) {
    if (!IsValidLabelName(label)) {
      return Status::InvalidArgument("metric " + family.name + ": label name '" + label +
                                     "' is not [a-zA-Z_][a-zA-Z0-9_]* (nor starting with __)");
    }
    if (!seen.insert(label).second) {
      return Status::InvalidArgument("metric " + family.name + ": label name '" + label + "' is given twice");
    }
    if (family.kind == Kind::kHistogram && label == "le") {
      return Status::InvalidArgument("metric " + family.name + ": 'le' is the histogram's own label");
    }
  }
  if (family.kind == Kind::kHistogram) {
    if (family.bounds.empty()) return Status::InvalidArgument("histogram " + family.name + " has no buckets");
    for (size_t i = 0; i < family.bounds.size(); ++i) {
      if (!std::isfinite(family.bounds[i]) || (i > 0 && family.bounds[i] <= family.bounds[i - 1])) {
        return Status::InvalidArgument("histogram " + family.name +
                                       ": bucket bounds must be finite and strictly increasing (+Inf is added)");
      }
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Family& f : families_) {
    if (f.name == family.name) return Status::InvalidArgument("metric " + family.name + " is already registered");
  }
  families_.push_back(std::move(family));
  return Status::OK();
}

Status MetricsRegistry::AddCounter(std::string_view name, std::string_view help, std::vector<std::string> label_names) {
  return Register(Family{std::string(name), std::string(help), Kind::kCounter, std::move(label_names), {}, {}, {}});
}

Status MetricsRegistry::AddGauge(std::string_view name, std::string_view help, std::vector<std::string> label_names) {
  return Register(Family{std::string(name), std::string(help), Kind::kGauge, std::move(label_names), {}, {}, {}});
}

Status MetricsRegistry::AddHistogram(std::string_view name, std::string_view help, std::vector<double> bucket_bounds,
                                     std::vector<std::string> label_names) {
  return Register(Family{std::string(name), std::string(help), Kind::kHistogram, std::move(label_names),
                         std::move(bucket_bounds), {}, {}});
}

Status MetricsRegistry::SetGaugeCallback(std::string_view name, GaugeCallback callback) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Family& f : families_) {
    if (f.name != name) continue;
    if (f.kind != Kind::kGauge) return Status::InvalidArgument("metric " + f.name + " is not a gauge");
    f.callback = callback ? std::make_shared<GaugeCallback>(std::move(callback)) : nullptr;
    return Status::OK();
  }
  return Status::NotFound("no metric " + std::string(name) + " is registered");
}

Result<MetricsRegistry::Series*> MetricsRegistry::SeriesFor(std::string_view name, Kind kind,
                                                            const std::vector<std::string>& label_values,
                                                            const Family** family) {
  for (Family& f : families_) {
    if (f.name != name) continue;
    if (f.kind != kind) {
      return Status::InvalidArgument("metric " + f.name + " is a " + TypeName(static_cast<int>(f.kind)) + ", not a " +
                                     TypeName(static_cast<int>(kind)));
    }
    if (label_values.size() != f.label_names.size()) {
      return Status::InvalidArgument("metric " + f.name + " takes " + std::to_string(f.label_names.size()) +
                                     " label values, not " + std::to_string(label_values.size()));
    }
    if (family != nullptr) *family = &f;
    auto it = f.series.find(label_values);
    if (it == f.series.end()) {
      if (f.series.size() >= options_.max_series_per_family) {
        return Status::ResourceExhausted("metric " + f.name + " already holds " +
                                         std::to_string(options_.max_series_per_family) + " series");
      }
      Series series;
      series.bucket_counts.assign(f.bounds.size(), 0);
      it = f.series.emplace(label_values, std::move(series)).first;
    }
    return &it->second;
  }
  return Status::NotFound("no metric " + std::string(name) + " is registered");
}

Status MetricsRegistry::Increment(std::string_view name, const std::vector<std::string>& label_values, double by) {
  if (!(by >= 0) || std::isinf(by)) {
    return Status::InvalidArgument("counter " + std::string(name) + ": an increment must be finite and >= 0");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  Result<Series*> series = SeriesFor(name, Kind::kCounter, label_values);
  if (!series.ok()) return series.status();
  (*series)->value += by;
  return Status::OK();
}

Status MetricsRegistry::Set(std::string_view name, const std::vector<std::string>& label_values, double value) {
  if (std::isnan(value)) return Status::InvalidArgument("gauge " + std::string(name) + ": NaN");
  std::lock_guard<std::mutex> lock(mutex_);
  Result<Series*> series = SeriesFor(name, Kind::kGauge, label_values);
  if (!series.ok()) return series.status();
  (*series)->value = value;
  return Status::OK();
}

Status MetricsRegistry::Add(std::string_view name, const std::vector<std::string>& label_values, double delta) {
  if (std::isnan(delta)) return Status::InvalidArgument("gauge " + std::string(name) + ": NaN");
  std::lock_guard<std::mutex> lock(mutex_);
  Result<Series*> series = SeriesFor(name, Kind::kGauge, label_values);
  if (!series.ok()) return series.status();
  (*series)->value += delta;
  return Status::OK();
}

Status MetricsRegistry::Observe(std::string_view name, const std::vector<std::string>& label_values, double value) {
  if (std::isnan(value)) return Status::InvalidArgument("histogram " + std::string(name) + ": NaN");
  std::lock_guard<std::mutex> lock(mutex_);
  const Family* family = nullptr;
  Result<Series*> series = SeriesFor(name, Kind::kHistogram, label_values, &family);
  if (!series.ok()) return series.status();
  for (size_t i = 0; i < family->bounds.size(); ++i) {
    if (value <= family->bounds[i]) {
      (*series)->bucket_counts[i] += 1;
      break;
    }
  }
  (*series)->sum += value;
  (*series)->count += 1;
  return Status::OK();
}

std::string MetricsRegistry::Render() const {
  // 1. The callbacks, called without the lock (they may read a store or
  //    update other families).
  std::vector<std::pair<std::string, std::shared_ptr<GaugeCallback>>> callbacks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Family& f : families_) {
      if (f.callback) callbacks.emplace_back(f.name, f.callback);
    }
  }
  std::map<std::string, std::vector<GaugeSample>> called;
  for (const auto& [name, callback] : callbacks) {
    try {
      called[name] = (*callback)();
    } catch (...) {  // the server's code, not ours: no series rather than no /metrics
      called[name] = {};
    }
  }

  // 2. The text.
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  for (const Family& f : families_) {
    out += "# HELP " + f.name + " " + EscapeHelp(f.help) + "\n";
    out += "# TYPE " + f.name + " " + TypeName(static_cast<int>(f.kind)) + "\n";
    if (f.kind == Kind::kHistogram) {
      std::map<std::vector<std::string>, Series> series = f.series;
      if (f.label_names.empty() && series.empty()) series[{}].bucket_counts.assign(f.bounds.size(), 0);
      for (const auto& [values, s] : series) {
        double cumulative = 0;
        for (size_t i = 0; i < f.bounds.size(); ++i) {
          cumulative += s.bucket_counts[i];
          out += f.name + "_bucket" + LabelText(f.label_names, values, "le", FormatValue(f.bounds[i])) + " " +
                 FormatValue(cumulative) + "\n";
        }
        out += f.name + "_bucket" + LabelText(f.label_names, values, "le", "+Inf") + " " + FormatValue(s.count) + "\n";
        out += f.name + "_sum" + LabelText(f.label_names, values) + " " + FormatValue(s.sum) + "\n";
        out += f.name + "_count" + LabelText(f.label_names, values) + " " + FormatValue(s.count) + "\n";
      }
      continue;
    }
    std::map<std::vector<std::string>, double> values;
    if (f.callback) {
      auto it = called.find(f.name);
      if (it != called.end()) {
        for (const GaugeSample& sample : it->second) {
          if (sample.label_values.size() != f.label_names.size() || std::isnan(sample.value)) continue;
          if (values.size() >= options_.max_series_per_family && !values.count(sample.label_values)) continue;
          values[sample.label_values] = sample.value;
        }
      }
    } else {
      for (const auto& [labels, s] : f.series) values[labels] = s.value;
      if (f.label_names.empty() && values.empty()) values[{}] = 0;
    }
    for (const auto& [labels, value] : values) {
      out += f.name + LabelText(f.label_names, labels) + " " + FormatValue(value) + "\n";
    }
  }
  return out;
}

Status RegisterServerMetrics(MetricsRegistry& registry) {
  const std::vector<double> http_buckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
  const std::vector<double> run_buckets = {1, 2, 5, 10, 30, 60, 120, 300, 600, 1800};
  for (Status s : {
           registry.AddGauge(kMetricRuns, "Runs in the store by app and status.", {"app", "status"}),
           registry.AddCounter(kMetricModelCalls, "Model calls made by runs of this server."),
           registry.AddCounter(kMetricToolCalls, "Tool calls made by runs of this server, by tool.", {"tool"}),
           registry.AddCounter(kMetricHttpRequests, "HTTP requests answered, by route pattern and status code.",
                               {"route", "code"}),
           registry.AddHistogram(kMetricHttpSeconds, "HTTP request duration in seconds, by route pattern.",
                                 http_buckets, {"route"}),
           registry.AddHistogram(kMetricRunSeconds, "Run duration in seconds, by app.", run_buckets, {"app"}),
           registry.AddGauge(kMetricOpenStreams, "Event streams open now."),
       }) {
    if (!s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace medreact::server
