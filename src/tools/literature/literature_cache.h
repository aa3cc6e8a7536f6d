// LiteratureCache: every literature response fetched online, kept in one
// SQLite file so a question can be re-run offline and audited.
//
// Key: the method and the full request URL with the api_key and email
// parameters removed (LiteratureCacheKey), so a key and an address never
// reach the file and a run with another key finds the same entries. Value:
// HTTP status, content type, body and the time it was fetched (UTC). Only
// responses the client accepted are stored (a 5xx, a rate-limit body or a
// malformed body is never served again from here); a newer fetch of the same
// key replaces the older.
//
// The file is created 0600 and missing folders 0700 (responses reveal what a
// clinician searched for). One connection per object, guarded by a mutex:
// thread-safe; several processes may share the file (SQLite locking, 10 s
// busy timeout).
#ifndef MEDREACT_TOOLS_LITERATURE_LITERATURE_CACHE_H_
#define MEDREACT_TOOLS_LITERATURE_LITERATURE_CACHE_H_

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "medreact/status.h"

struct sqlite3;

namespace medreact {

struct CachedResponse {
  int status = 0;
  std::string content_type;
  std::string body;
  std::string fetched_at;  // "2025-01-31T12:00:00Z"; set by Put when empty
};

// "GET https://host/path?a=1&b=2" with every api_key=... and email=...
// parameter removed (the others kept in their order).
std::string LiteratureCacheKey(std::string_view method, std::string_view url);

// $XDG_CACHE_HOME/medreact/literature.sqlite when XDG_CACHE_HOME is an
// absolute path, else $HOME/.cache/medreact/literature.sqlite (XDG Base
// Directory Specification). `getenv` Default: std::getenv.
Result<std::string> DefaultLiteratureCachePath(const std::function<const char*(const char*)>& getenv = {});

class LiteratureCache {
 public:
  // Opens or creates the cache file. Errors name the path and what to do.
  static Result<std::shared_ptr<LiteratureCache>> Open(const std::string& path);
  ~LiteratureCache();
  LiteratureCache(const LiteratureCache&) = delete;
  LiteratureCache& operator=(const LiteratureCache&) = delete;

  // The stored response for `key`, or nullopt.
  Result<std::optional<CachedResponse>> Get(const std::string& key) const;
  // Stores (or replaces) the response for `key`.
  Status Put(const std::string& key, const CachedResponse& response);
  // Number of stored responses.
  Result<int64_t> Size() const;

  const std::string& path() const { return path_; }

 private:
  LiteratureCache(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
  std::string path_;
  sqlite3* db_;
  mutable std::mutex mu_;
};

}  // namespace medreact

#endif  // MEDREACT_TOOLS_LITERATURE_LITERATURE_CACHE_H_
