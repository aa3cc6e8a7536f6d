#include "testing/serve_fixture.h"

#include <atomic>
#include <chrono>

namespace medreact::testing {

std::vector<SseEvent> ParseSse(const std::string& text) {
  std::vector<SseEvent> out;
  SseEvent cur;
  bool any = false;
  size_t i = 0;
  while (i < text.size()) {
    size_t end = text.find('\n', i);
    if (end == std::string::npos) break;  // an unfinished line
    const std::string line = text.substr(i, end - i);
    i = end + 1;
    if (line.empty()) {
      if (any) out.push_back(cur);
      cur = {};
      any = false;
      continue;
    }
    if (line[0] == ':') continue;
    const size_t colon = line.find(':');
    const std::string field = line.substr(0, colon);
    std::string value = colon == std::string::npos ? "" : line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    if (field == "id") cur.id = value, any = true;
    else if (field == "event") cur.event = value, any = true;
    else if (field == "data") cur.data += (cur.data.empty() ? "" : "\n") + value, any = true;
  }
  return out;
}

ServeFixture::ServeFixture(server::ServeOptions options, std::shared_ptr<RunStore> store) {
  store_path_ = dir_.File("runs.sqlite");
  if (!store) {
    Result<std::unique_ptr<RunStore>> opened = RunStore::Open(store_path_);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    store = std::shared_ptr<RunStore>(std::move(*opened));
  } else {
    store_path_ = store->path();
  }
  store_ = store;
  options.port = 0;
  options.access_log = false;
  token_ = options.token;
  server_ = std::make_unique<server::Server>(options, store_);
  Status s = server_->Start();
  EXPECT_TRUE(s.ok()) << s.ToString();
}

ServeFixture::~ServeFixture() { server_->Stop(10); }

httplib::Headers ServeFixture::WithToken(httplib::Headers headers) const {
  if (!token_.empty() && headers.find("Authorization") == headers.end()) {
    headers.emplace("Authorization", "Bearer " + token_);
  }
  return headers;
}

httplib::Result ServeFixture::Get(const std::string& path, httplib::Headers headers) {
  httplib::Client c("127.0.0.1", port());
  c.set_read_timeout(30, 0);
  return c.Get(path, WithToken(std::move(headers)));
}

httplib::Result ServeFixture::Post(const std::string& path, const std::string& body, const std::string& content_type,
                                   httplib::Headers headers) {
  httplib::Client c("127.0.0.1", port());
  c.set_read_timeout(60, 0);
  return c.Post(path, WithToken(std::move(headers)), body, content_type);
}

std::vector<SseEvent> ServeFixture::ReadEvents(const std::string& path, httplib::Headers headers,
                                               const std::function<bool(const std::vector<SseEvent>&)>& until,
                                               double timeout_s) {
  httplib::Client c("127.0.0.1", port());
  c.set_read_timeout(static_cast<time_t>(timeout_s), 0);
  std::string text;
  std::vector<SseEvent> got;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  c.Get(path, WithToken(std::move(headers)), [&](const char* data, size_t n) {
    text.append(data, n);
    got = ParseSse(text);
    return !until(got) && std::chrono::steady_clock::now() < deadline;
  });
  return ParseSse(text);
}

Json ServeFixture::JsonOf(const httplib::Result& r) {
  if (!r) return Json();
  Result<Json> j = ParseJson(r->body);
  return j.ok() ? *j : Json(r->body);
}

}  // namespace medreact::testing
