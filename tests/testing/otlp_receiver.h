// A loopback OTLP/HTTP receiver for the tracing tests: `POST /v1/traces`
// on 127.0.0.1 (a free port), every body and its headers recorded, answered
// with a chosen status. It can hold its replies (a slow collector) until
// Release() or Stop(). Spans() flattens what arrived: every span of every
// resourceSpans/scopeSpans of every body, with its resource's service.name.
#ifndef MEDREACT_TESTS_TESTING_OTLP_RECEIVER_H_
#define MEDREACT_TESTS_TESTING_OTLP_RECEIVER_H_

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "medreact/json.h"
#include "testing/loopback_http.h"

namespace medreact::testing {

class OtlpReceiver {
 public:
  struct Post {
    std::string body;
    std::map<std::string, std::string> headers;  // as received (httplib keeps the case)
  };

  OtlpReceiver() = default;
  ~OtlpReceiver() { Stop(); }
  OtlpReceiver(const OtlpReceiver&) = delete;
  OtlpReceiver& operator=(const OtlpReceiver&) = delete;

  // Before Start(): the status every POST gets; hold: answer only after Release()/Stop().
  void set_status(int status) { status_ = status; }
  void set_hold(bool hold) { hold_ = hold; }

  bool Start() {
    server_.Post("/v1/traces", [this](const httplib::Request& req, httplib::Response& res) {
      std::unique_lock<std::mutex> lock(mu_);
      Post post{.body = req.body};
      for (const auto& [k, v] : req.headers) post.headers[k] = v;
      posts_.push_back(std::move(post));
      cv_.notify_all();
      if (hold_) cv_.wait_for(lock, std::chrono::seconds(60), [this] { return released_; });
      res.status = status_;
      res.set_content("{}", "application/json");
    });
    server_.set_keep_alive_max_count(1);  // no idle connection for Stop() to wait out
    port_ = ServeOnLoopback(server_, thread_);
    return port_ > 0;
  }

  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

  void Stop() {
    Release();
    StopLoopback(server_, thread_);
  }

  // The base endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT takes it.
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string traces_url() const { return endpoint() + "/v1/traces"; }

  std::vector<Post> posts() const {
    std::lock_guard<std::mutex> lock(mu_);
    return posts_;
  }

  // Waits (at most `limit`) until at least `n` POSTs arrived.
  bool WaitForPosts(size_t n, std::chrono::milliseconds limit = std::chrono::seconds(30)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, limit, [&] { return posts_.size() >= n; });
  }

  // Every span received, each with "service" (its resource's service.name) added.
  Json Spans() const {
    Json out = Json::array();
    for (const Post& post : posts()) {
      Result<Json> body = ParseJson(post.body);
      if (!body.ok() || !body->is_object()) continue;
      for (const Json& rs : body->value("resourceSpans", Json::array())) {
        std::string service;
        for (const Json& a : rs.value("resource", Json::object()).value("attributes", Json::array())) {
          if (a.value("key", "") == "service.name") service = a["value"].value("stringValue", "");
        }
        for (const Json& ss : rs.value("scopeSpans", Json::array())) {
          for (Json span : ss.value("spans", Json::array())) {
            span["service"] = service;
            out.push_back(std::move(span));
          }
        }
      }
    }
    return out;
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  int status_ = 200;
  bool hold_ = false;
  bool released_ = false;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Post> posts_;
};

// The attribute `key` of an exported span: its value object ({"stringValue": ...}), or null.
inline Json SpanAttribute(const Json& span, const std::string& key) {
  for (const Json& a : span.value("attributes", Json::array())) {
    if (a.value("key", "") == key) return a.value("value", Json());
  }
  return Json();
}

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_OTLP_RECEIVER_H_
