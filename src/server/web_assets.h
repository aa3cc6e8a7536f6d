// The clinician's page (web/: HTML, CSS and plain JavaScript), embedded in
// the binary at build time: cmake/embed_web.cmake turns every file of web/
// into a generated .cc (the build's generated/web_assets.cc), so `medreact
// serve` needs no folder beside it and no network. api.cc serves them:
// GET / (index.html) and GET /assets/{name}.
#ifndef MEDREACT_SERVER_WEB_ASSETS_H_
#define MEDREACT_SERVER_WEB_ASSETS_H_

#include <span>
#include <string_view>

namespace medreact::server {

struct WebAsset {
  std::string_view name;          // its path inside web/ ("app.js")
  std::string_view content_type;  // from its extension ("text/javascript; charset=utf-8")
  std::string_view etag;          // strong, quoted: the first 32 hex digits of its SHA-256
  std::string_view body;          // its bytes
};

// Every embedded file, sorted by name.
std::span<const WebAsset> WebAssets();
// The file named `name`, nullptr when there is none (".." and "/"-paths included).
const WebAsset* FindWebAsset(std::string_view name);

}  // namespace medreact::server

#endif  // MEDREACT_SERVER_WEB_ASSETS_H_
