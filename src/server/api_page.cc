// The clinician's page: GET / (index.html) and GET /assets/{name}, from the
// files embedded at build time (web_assets.h). Open routes: the static shell
// holds no patient data; the page's API calls still need the token.
#include <chrono>
#include <string>
#include <string_view>

#include "server/api_state.h"
#include "server/auth.h"
#include "server/web_assets.h"

namespace medreact::server {
namespace {

// What every file of the page is sent with. The page runs no inline script
// or style (CSP without 'unsafe-inline'), loads nothing from elsewhere, and
// cannot be framed. no-cache: a browser revalidates (If-None-Match → 304)
// rather than keeping a page an upgraded server no longer serves.
HeaderList PageHeaders(const WebAsset& a) {
  return {{"etag", std::string(a.etag)},
          {"cache-control", "no-cache"},
          {"content-security-policy",
           "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
           "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
           "frame-ancestors 'none'"},
          {"x-content-type-options", "nosniff"},
          {"referrer-policy", "no-referrer"},
          {"x-frame-options", "DENY"}};
}

// Whether an If-None-Match header ("a", W/"b", or *) names `etag`.
bool EtagMatches(std::string_view header, std::string_view etag) {
  size_t i = 0;
  while (i < header.size()) {
    const size_t comma = header.find(',', i);
    std::string_view tag = header.substr(i, comma == std::string_view::npos ? std::string_view::npos : comma - i);
    while (!tag.empty() && (tag.front() == ' ' || tag.front() == '\t')) tag.remove_prefix(1);
    while (!tag.empty() && (tag.back() == ' ' || tag.back() == '\t')) tag.remove_suffix(1);
    if (tag.starts_with("W/")) tag.remove_prefix(2);  // weak comparison, as RFC 9110 asks for If-None-Match
    if (tag == "*" || tag == etag) return true;
    if (comma == std::string_view::npos) break;
    i = comma + 1;
  }
  return false;
}

void Send(const std::shared_ptr<Exchange>& ex, const WebAsset& a) {
  HttpResponse r{.status = 200, .content_type = std::string(a.content_type), .headers = PageHeaders(a)};
  if (EtagMatches(ex->request().Header("if-none-match"), a.etag)) {
    r.status = 304;
    r.content_type.clear();
  } else {
    r.body = std::string(a.body);
  }
  ex->Respond(std::move(r));
}

}  // namespace

const WebAsset* FindWebAsset(std::string_view name) {
  for (const WebAsset& a : WebAssets()) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

void ServePage(ApiState&, const std::shared_ptr<Exchange>& ex, const Params&) {
  const WebAsset* index = FindWebAsset("index.html");
  if (!index) return ex->Respond(ErrorResponse("not_found", "this build has no page"));
  Send(ex, *index);
}

void ServeAsset(ApiState&, const std::shared_ptr<Exchange>& ex, const Params& p) {
  const std::string& name = p[0];
  // A name, not a path: ".." or a '/' (%2F) never reaches the table.
  if (name.find("..") != std::string::npos || name.find('/') != std::string::npos ||
      name.find('\\') != std::string::npos) {
    return ex->Respond(ErrorResponse("bad_request", "an asset is named by a file name, not a path", "name"));
  }
  const WebAsset* a = FindWebAsset(name);
  if (!a) return ex->Respond(ErrorResponse("not_found", "no such asset"));
  Send(ex, *a);
}

namespace {

int64_t NowUnix() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The cookie's attributes: sent back on this origin's requests only
// (SameSite=Strict), never readable by the page's script (HttpOnly). No
// Secure: the server speaks plain HTTP (a TLS proxy in front adds it).
std::string SessionCookie(const std::string& value, int64_t max_age) {
  return std::string(kSessionCookieName) + "=" + value + "; Path=/; HttpOnly; SameSite=Strict; Max-Age=" +
         std::to_string(max_age);
}

}  // namespace

bool HasValidSession(const ApiState& s, const HttpRequest& r) {
  if (s.options.token.empty()) return false;
  std::optional<std::string> v = CookieValue(r.Header("cookie"), kSessionCookieName);
  return v && SessionValueValid(s.options.token, *v, NowUnix());
}

void ShowSession(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params&) {
  const HttpRequest& r = ex->request();
  const bool required = !s.options.token.empty();
  bool signed_in = HasValidSession(s, r);
  if (required && !signed_in) {
    if (std::optional<std::string> bearer = BearerToken(r.Header("authorization"))) {
      signed_in = TokenMatches(s.options.token, *bearer);
    }
  }
  Json body{{"token_required", required}, {"signed_in", signed_in}};
  if (!required || signed_in) {
    // Where the page's event stream starts: every event committed after
    // this answer is streamed, so what the views read next is not missed.
    Result<int64_t> cursor = s.service.store()->LastEventCursor();
    if (!cursor.ok()) return ex->Respond(StatusResponse(cursor.status()));
    body["event_cursor"] = *cursor;
  }
  HttpResponse out = JsonResponse(200, body);
  out.headers.emplace_back("cache-control", "no-store");
  ex->Respond(std::move(out));
}

void StartSession(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params&) {
  std::string field;
  Result<Json> body = JsonBody(ex->request(), &field);
  if (!body.ok()) return ex->Respond(StatusResponse(body.status(), field));
  if (s.options.token.empty()) {
    return ex->Respond(JsonResponse(200, Json{{"token_required", false}, {"signed_in", false}}));
  }
  const Json& token = body->contains("token") ? (*body)["token"] : Json();
  if (!token.is_string()) return ex->Respond(ErrorResponse("bad_request", "give the server's token as \"token\"", "token"));
  if (!TokenMatches(s.options.token, token.get_ref<const std::string&>())) {
    return ex->Respond(ErrorResponse("unauthorized", "the token is not this server's", "token"));
  }
  HttpResponse out = JsonResponse(200, Json{{"token_required", true}, {"signed_in", true},
                                            {"expires_in", kSessionSeconds}});
  out.headers.emplace_back("set-cookie",
                           SessionCookie(MakeSessionValue(s.options.token, NowUnix(), RandomNonceHex()), kSessionSeconds));
  out.headers.emplace_back("cache-control", "no-store");
  ex->Respond(std::move(out));
}

void EndSession(ApiState&, const std::shared_ptr<Exchange>& ex, const Params&) {
  HttpResponse out = JsonResponse(200, Json{{"signed_in", false}});
  out.headers.emplace_back("set-cookie", SessionCookie("", 0));
  ex->Respond(std::move(out));
}

}  // namespace medreact::server
