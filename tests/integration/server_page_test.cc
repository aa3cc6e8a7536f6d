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

httplib::Result PostPlain(ServeFixture& srv, const std::string& path, const std::string& body,
                          httplib::Headers headers = {}) {
  httplib::Client cli("127.0.0.1", srv.port());
  return cli.Post(path, headers, body, "application/json");
}

// The cookie's value from a Set-Cookie header ("medreact_session=V; Path=/; ...").
std::string SessionFrom(const httplib::Result& r) {
  const std::string set = r->get_header_value("set-cookie");
  const size_t eq = set.find('='), semi = set.find(';');
  return set.substr(eq + 1, semi - eq - 1);
}

TEST(ServerPageTest, TheTokenSignsInToAnHttpOnlyStrictSessionCookieThatTheApiAccepts) {
  ServeFixture srv({.token = kToken});
  Json before = ServeFixture::JsonOf(Plain(srv, "/v1/session"));
  EXPECT_EQ(before["token_required"], true);
  EXPECT_EQ(before["signed_in"], false);
  EXPECT_FALSE(before.contains("event_cursor")) << "where the events are is for the signed-in";

  auto wrong = PostPlain(srv, "/v1/session", R"({"token":"not-the-token-0123456789"})");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  EXPECT_THAT(wrong->body, HasSubstr("\"field\":\"token\""));
  EXPECT_TRUE(wrong->get_header_value("set-cookie").empty());
  auto missing = PostPlain(srv, "/v1/session", "{}");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 400);

  auto ok = PostPlain(srv, "/v1/session", DumpJson(Json{{"token", kToken}}));
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->status, 200) << ok->body;
  const std::string set = ok->get_header_value("set-cookie");
  EXPECT_THAT(set, StartsWith("medreact_session=v1."));
  EXPECT_THAT(set, HasSubstr("; HttpOnly"));
  EXPECT_THAT(set, HasSubstr("; SameSite=Strict"));
  EXPECT_THAT(set, HasSubstr("; Path=/"));
  EXPECT_THAT(set, HasSubstr("; Max-Age=43200"));
  EXPECT_THAT(set, Not(HasSubstr(kToken))) << "the cookie never carries the token";
  const httplib::Headers cookie = {{"Cookie", "medreact_session=" + SessionFrom(ok)}};

  Json after = ServeFixture::JsonOf(Plain(srv, "/v1/session", cookie));
  EXPECT_EQ(after["signed_in"], true);
  EXPECT_TRUE(after["event_cursor"].is_number_integer()) << after.dump();
  auto runs = Plain(srv, "/v1/runs", cookie);
  ASSERT_TRUE(runs);
  EXPECT_EQ(runs->status, 200) << runs->body;

  // A change signed in by the cookie needs the page's header (a form of
  // another site could send the cookie, not the header).
  auto forged = PostPlain(srv, "/v1/runs/run_nope/cancel", "{}", cookie);
  ASSERT_TRUE(forged);
  EXPECT_EQ(forged->status, 403);
  EXPECT_THAT(forged->body, HasSubstr("x-medreact-page"));
  httplib::Headers page = cookie;
  page.emplace("x-medreact-page", "1");
  auto from_page = PostPlain(srv, "/v1/runs/run_nope/cancel", "{}", page);
  ASSERT_TRUE(from_page);
  EXPECT_EQ(from_page->status, 404) << "past the sign-in: the run does not exist. " << from_page->body;

  // Another server's (or an old token's) cookie is refused.
  ServeFixture other({.token = "another-token-0123456789abcdef"});
  auto elsewhere = Plain(other, "/v1/runs", cookie);
  ASSERT_TRUE(elsewhere);
  EXPECT_EQ(elsewhere->status, 401);
  auto tampered = Plain(srv, "/v1/runs", {{"Cookie", "medreact_session=" + SessionFrom(ok) + "0"}});
  ASSERT_TRUE(tampered);
  EXPECT_EQ(tampered->status, 401);

  // Signing out clears the cookie.
  auto end = PostPlain(srv, "/v1/session/end", "{}", page);
  ASSERT_TRUE(end);
  EXPECT_EQ(end->status, 200);
  EXPECT_THAT(end->get_header_value("set-cookie"), HasSubstr("medreact_session=; "));
  EXPECT_THAT(end->get_header_value("set-cookie"), HasSubstr("Max-Age=0"));
}

TEST(ServerPageTest, WithoutATokenTheSessionSaysSoAndSigningInIsRateLimited) {
  ServeFixture open;
  Json info = ServeFixture::JsonOf(Plain(open, "/v1/session"));
  EXPECT_EQ(info["token_required"], false);
  EXPECT_TRUE(info["event_cursor"].is_number_integer()) << info.dump();

  ServeFixture srv({.token = kToken, .rate_per_second = 0.01, .rate_burst = 3});
  int limited = 0;
  for (int i = 0; i < 5; ++i) {
    auto r = PostPlain(srv, "/v1/session", R"({"token":"guess-0123456789abcdef"})");
    ASSERT_TRUE(r);
    if (r->status == 429) ++limited;
    else EXPECT_EQ(r->status, 401);
  }
  EXPECT_EQ(limited, 2) << "a token is not guessed faster than the rate limit";
}

// The page in a real browser (tests/node/page_shell.mjs): sign-in with the
// token → a session cookie, the runs view, keyboard, axe-core, sign-out.
TEST(ServerPageTest, ThePageSignsInAndShowsTheRunsInChromium) {
  PAGE_SCRIPT_OR_SKIP(r, "page_shell.mjs");
  EXPECT_PAGE_PASSED(r);
}

}  // namespace
}  // namespace medreact::server
