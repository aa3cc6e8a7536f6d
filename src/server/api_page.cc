// The clinician's page: GET / (index.html) and GET /assets/{name}, from the
// files embedded at build time (web_assets.h). Open routes: the static shell
// holds no patient data; the page's API calls still need the token.
#include <string>
#include <string_view>

#include "server/api_state.h"
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

}  // namespace medreact::server
