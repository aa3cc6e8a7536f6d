// The literature tests' peer: the recorded API responses
// (tests/fixtures/literature, see its NOTICE) and an in-process HTTP server
// on 127.0.0.1 (a free port) that answers each path through a handler the
// test gives, usually with one of those files. It records every request, can
// hang a reply until it is stopped, and never reaches beyond loopback.
#ifndef MEDREACT_TESTS_TESTING_LITERATURE_SERVER_H_
#define MEDREACT_TESTS_TESTING_LITERATURE_SERVER_H_

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "testing/build_paths.h"
#include "testing/loopback_http.h"

namespace medreact::testing {

inline const std::string kLiteratureFixtureDir = MEDREACT_SOURCE_DIR + "/tests/fixtures/literature";

// The file's bytes, or "" when it is missing (the tests then fail on it).
inline std::string LiteratureFixture(const std::string& name) {
  std::ifstream in(std::string(kLiteratureFixtureDir) + "/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct FixtureReply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  bool hang = false;  // answer nothing until the server stops (at most 20 s)
};

struct SeenRequest {
  std::string path;
  std::map<std::string, std::string> params;  // decoded query parameters
  std::string Param(const std::string& name) const {
    auto it = params.find(name);
    return it == params.end() ? "" : it->second;
  }
};

class LiteratureFixtureServer {
 public:
  using Handler = std::function<FixtureReply(const SeenRequest&)>;

  LiteratureFixtureServer() = default;
  ~LiteratureFixtureServer() { Stop(); }
  LiteratureFixtureServer(const LiteratureFixtureServer&) = delete;
  LiteratureFixtureServer& operator=(const LiteratureFixtureServer&) = delete;

  // Before Start().
  void Route(const std::string& path, Handler handler) { routes_[path] = std::move(handler); }
  void RouteFile(const std::string& path, const std::string& file, const std::string& type = "application/json") {
    std::string body = LiteratureFixture(file);
    Route(path, [body, type](const SeenRequest&) { return FixtureReply{.body = body, .content_type = type}; });
  }

  bool Start() {
    server_.Get(".*", [this](const httplib::Request& req, httplib::Response& res) { Serve(req, res); });
    port_ = ServeOnLoopback(server_, thread_);
    return port_ > 0;
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    released_.notify_all();
    StopLoopback(server_, thread_);
  }

  // "http://127.0.0.1:<port><path>"
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

  std::vector<SeenRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  std::vector<SeenRequest> requests(const std::string& path) const {
    std::vector<SeenRequest> out;
    for (SeenRequest& r : requests()) {
      if (r.path == path) out.push_back(std::move(r));
    }
    return out;
  }

 private:
  void Serve(const httplib::Request& req, httplib::Response& res) {
    SeenRequest seen{.path = req.path};
    for (const auto& [k, v] : req.params) seen.params[k] = v;
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(seen);
    }
    auto route = routes_.find(req.path);
    if (route == routes_.end()) {
      res.status = 404;
      res.set_content("no fixture route for " + req.path, "text/plain");
      return;
    }
    FixtureReply reply = route->second(seen);
    if (reply.hang) {
      std::unique_lock<std::mutex> lock(mu_);
      released_.wait_for(lock, std::chrono::seconds(20), [this] { return stopping_; });
    }
    res.status = reply.status;
    for (const auto& [name, value] : reply.headers) res.set_header(name.c_str(), value);
    res.set_content(reply.body, reply.content_type.c_str());
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::map<std::string, Handler> routes_;
  mutable std::mutex mu_;
  std::condition_variable released_;
  bool stopping_ = false;
  std::vector<SeenRequest> requests_;
};

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_LITERATURE_SERVER_H_
