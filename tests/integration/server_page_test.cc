// The clinician's page (web/, embedded at build time: cmake/embed_web.cmake,
// src/server/web_assets.h) as `medreact serve` sends it: GET / and
// GET /assets/{name} with their content types, ETag and If-None-Match → 304,
// the security headers, open without the token while the API keeps needing
// it, a name that is not an asset → 404 and a path → 400; the embedded bytes
// are web/'s. Then the page in a real browser: tests/node/page_shell.mjs
// drives Debian's chromium through playwright-core against a `medreact
// serve` it starts (skipped, saying why, when chromium or the npm package is missing).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "server/web_assets.h"
#include "testing/build_paths.h"
#include "testing/page_script.h"
#include "testing/serve_fixture.h"
#include "testing/subprocess.h"

namespace medreact::server {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::ServeFixture;

const std::string kToken = "page-token-0123456789abcdef";

// A request with no token (the page's own requests carry none).
httplib::Result Plain(ServeFixture& srv, const std::string& path, httplib::Headers headers = {}) {
  httplib::Client cli("127.0.0.1", srv.port());
  return cli.Get(path, headers);
}

void ExpectPageHeaders(const httplib::Result& r) {
  ASSERT_TRUE(r);
  EXPECT_THAT(r->get_header_value("content-security-policy"), StartsWith("default-src 'self'"));
  EXPECT_THAT(r->get_header_value("content-security-policy"), Not(HasSubstr("unsafe-inline")));
  EXPECT_THAT(r->get_header_value("content-security-policy"), HasSubstr("frame-ancestors 'none'"));
  EXPECT_EQ(r->get_header_value("x-content-type-options"), "nosniff");
  EXPECT_EQ(r->get_header_value("referrer-policy"), "no-referrer");
  EXPECT_EQ(r->get_header_value("x-frame-options"), "DENY");
  EXPECT_EQ(r->get_header_value("cache-control"), "no-cache");
  EXPECT_TRUE(std::regex_match(r->get_header_value("etag"), std::regex("\"[0-9a-f]{32}\"")))
      << r->get_header_value("etag");
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ServerPageTest, TheEmbeddedFilesAreWebsFilesWithTheirTypesAndEtags) {
  const std::string web = MEDREACT_SOURCE_DIR + "/web";
  size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(web)) {
    if (!e.is_regular_file()) continue;
    ++files;
    const std::string name = std::filesystem::relative(e.path(), web).generic_string();
    const WebAsset* a = FindWebAsset(name);
    ASSERT_NE(a, nullptr) << name << " is in web/ but not embedded";
    EXPECT_EQ(a->body, ReadFile(e.path().string())) << name << ": the embedded bytes are not web/'s";
  }
  EXPECT_EQ(WebAssets().size(), files);
  EXPECT_EQ(FindWebAsset("index.html")->content_type, "text/html; charset=utf-8");
  EXPECT_EQ(FindWebAsset("app.css")->content_type, "text/css; charset=utf-8");
  EXPECT_EQ(FindWebAsset("app.js")->content_type, "text/javascript; charset=utf-8");
  EXPECT_NE(FindWebAsset("app.js")->etag, FindWebAsset("app.css")->etag);
  EXPECT_EQ(FindWebAsset(".."), nullptr);
  EXPECT_EQ(FindWebAsset(""), nullptr);
  // The page runs no inline script: every <script> has a src (the CSP would block it).
  const std::string html(FindWebAsset("index.html")->body);
  EXPECT_THAT(html, Not(HasSubstr("<script>")));
  EXPECT_THAT(html, HasSubstr("<script src=\"/assets/app.js\""));
  EXPECT_THAT(html, HasSubstr("<title>medreact</title>"));
  EXPECT_THAT(html, Not(HasSubstr("http://")));
  EXPECT_THAT(html, Not(HasSubstr("https://")));  // no CDN
}

TEST(ServerPageTest, ThePageAndItsAssetsAreOpenWithTypesAndSecurityHeadersWhileTheApiNeedsTheToken) {
  ServeFixture srv({.token = kToken});
  auto page = Plain(srv, "/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200) << page->body;
  EXPECT_EQ(page->get_header_value("content-type"), "text/html; charset=utf-8");
  EXPECT_EQ(page->body, FindWebAsset("index.html")->body);
  ExpectPageHeaders(page);

  auto css = Plain(srv, "/assets/app.css");
  ASSERT_TRUE(css);
  EXPECT_EQ(css->status, 200);
  EXPECT_EQ(css->get_header_value("content-type"), "text/css; charset=utf-8");
  ExpectPageHeaders(css);
  auto js = Plain(srv, "/assets/app.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->status, 200);
  EXPECT_EQ(js->get_header_value("content-type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(js->body, FindWebAsset("app.js")->body);
  ExpectPageHeaders(js);

  // The page is open; the data it shows is not.
  auto runs = Plain(srv, "/v1/runs");
  ASSERT_TRUE(runs);
  EXPECT_EQ(runs->status, 401);
}

TEST(ServerPageTest, IfNoneMatchWithTheEtagIsAnswered304) {
  ServeFixture srv;
  const std::string etag(FindWebAsset("app.js")->etag);
  for (const std::string& given : {etag, "W/" + etag, "\"other\", " + etag, std::string("*")}) {
    auto r = Plain(srv, "/assets/app.js", {{"If-None-Match", given}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 304) << given;
    EXPECT_TRUE(r->body.empty());
    EXPECT_EQ(r->get_header_value("etag"), etag);
  }
  auto changed = Plain(srv, "/assets/app.js", {{"If-None-Match", "\"0123456789abcdef0123456789abcdef\""}});
  ASSERT_TRUE(changed);
  EXPECT_EQ(changed->status, 200);
  EXPECT_EQ(changed->body, FindWebAsset("app.js")->body);
  auto index = Plain(srv, "/", {{"If-None-Match", std::string(FindWebAsset("index.html")->etag)}});
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 304);
}

TEST(ServerPageTest, ANameThatIsNotAnAssetIs404AndAPathIsRefused) {
  ServeFixture srv;
  auto missing = Plain(srv, "/assets/nope.js");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_THAT(missing->body, HasSubstr("\"not_found\""));
  for (const char* path : {"/assets/..", "/assets/%2e%2e", "/assets/..%2fapi.h", "/assets/%2e%2e%2f%2e%2e%2fCMakeLists.txt",
                                  "/assets/a%2fb.js", "/assets/..%5capp.js"}) {
    auto r = Plain(srv, path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 400) << path << ": " << r->body;
    EXPECT_THAT(r->body, HasSubstr("\"bad_request\"")) << path;
  }
  // Extra segments match no route: never a file outside the table.
  for (const char* path : {"/assets/../CMakeLists.txt", "/assets/x/../../README.md", "/assets/", "/index.html"}) {
    auto r = Plain(srv, path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path << ": " << r->body;
  }
  httplib::Client cli("127.0.0.1", srv.port());
  auto post = cli.Post("/", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  // A loopback server without a token serves its page to its own names only (DNS rebinding).
  auto rebound = Plain(srv, "/", {{"Host", "evil.example:8080"}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 403);
}

// The page in a real browser (tests/node/page_shell.mjs): sign-in with the
// token → a session cookie, the runs view, keyboard, axe-core, sign-out.
TEST(ServerPageTest, ThePageSignsInAndShowsTheRunsInChromium) {
  PAGE_SCRIPT_OR_SKIP(r, "page_shell.mjs");
  EXPECT_PAGE_PASSED(r);
}

}  // namespace
}  // namespace medreact::server
