// The literature cache: one SQLite table of responses. See literature_cache.h.
#include "tools/literature/literature_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/file_io.h"
#include "core/sqlite_stmt.h"
#include "core/time_util.h"

namespace medreact {
namespace {

namespace fs = std::filesystem;

constexpr int kSchemaVersion = 1;
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS responses (
  key          TEXT PRIMARY KEY,
  status       INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  body         BLOB NOT NULL,
  fetched_at   TEXT NOT NULL
);
)sql";

}  // namespace

std::string LiteratureCacheKey(std::string_view method, std::string_view url) {
  std::string key(method);
  key += ' ';
  const size_t q = url.find('?');
  key += url.substr(0, q);
  if (q == std::string_view::npos) return key;
  std::string_view query = url.substr(q + 1);
  if (const size_t hash = query.find('#'); hash != std::string_view::npos) query = query.substr(0, hash);
  bool first = true;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view param = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const std::string_view name = param.substr(0, param.find('='));
    if (param.empty() || name == "api_key" || name == "email") continue;
    key += first ? '?' : '&';
    key += param;
    first = false;
  }
  return key;
}

Result<std::string> DefaultLiteratureCachePath(const std::function<const char*(const char*)>& getenv) {
  auto env = [&getenv](const char* name) -> const char* { return getenv ? getenv(name) : std::getenv(name); };
  fs::path cache;
  if (const char* xdg = env("XDG_CACHE_HOME"); xdg && fs::path(xdg).is_absolute()) {
    cache = xdg;
  } else if (const char* home = env("HOME"); home && fs::path(home).is_absolute()) {
    cache = fs::path(home) / ".cache";
  } else {
    return Status::FailedPrecondition(
        "no folder for the literature cache: set XDG_CACHE_HOME or HOME to an absolute path, or give a cache path");
  }
  return (cache / "medreact" / "literature.sqlite").string();
}

Result<std::shared_ptr<LiteratureCache>> LiteratureCache::Open(const std::string& path) {
  if (path.empty()) return Status::InvalidArgument("the literature cache needs a file path");
  if (Status s = CheckRegularOrNew(path, "literature cache"); !s.ok()) return s;
  if (Status s = MakePrivateFolders(fs::path(path).parent_path().string()); !s.ok()) {
    return Status::Unavailable(s.message() + " for the literature cache '" + path + "'; choose a writable cache path");
  }
  // Created private before SQLite opens it (SQLite would use 0644).
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
  } else if (errno != EEXIST) {
    return Status::Unavailable("cannot create the literature cache '" + path + "': " + std::strerror(errno) +
                               "; choose a writable cache path");
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Status::Unavailable("cannot open the literature cache '" + path + "': " + why);
  }
  sqlite3_busy_timeout(db, 10'000);
  std::shared_ptr<LiteratureCache> cache(new LiteratureCache(path, db));
  char* error = nullptr;
  if (sqlite3_exec(db, kSchema, nullptr, nullptr, &error) != SQLITE_OK) {
    std::string why = error ? error : "unknown error";
    sqlite3_free(error);
    return Status::FailedPrecondition("the literature cache '" + path + "' is not a usable SQLite database (" + why +
                                      "); delete it or choose another cache path");
  }
  Stmt version(db, "PRAGMA user_version");
  if (version.ok() && version.Step() == SQLITE_ROW && version.ColInt(0) == 0) {
    sqlite3_exec(db, ("PRAGMA user_version = " + std::to_string(kSchemaVersion)).c_str(), nullptr, nullptr, nullptr);
  }
  return cache;
}

LiteratureCache::~LiteratureCache() { sqlite3_close(db_); }

Result<std::optional<CachedResponse>> LiteratureCache::Get(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_, "SELECT status, content_type, body, fetched_at FROM responses WHERE key = ?1");
  if (!s.ok()) return Status::Unavailable("literature cache '" + path_ + "': " + sqlite3_errmsg(db_));
  s.Text(1, key);
  const int rc = s.Step();
  if (rc == SQLITE_DONE) return std::optional<CachedResponse>();
  if (rc != SQLITE_ROW) return Status::Unavailable("literature cache '" + path_ + "': " + sqlite3_errmsg(db_));
  CachedResponse r;
  r.status = static_cast<int>(s.ColInt(0));
  r.content_type = s.ColText(1);
  r.body = std::string(s.ColBlob(2));
  r.fetched_at = s.ColText(3);
  return std::optional<CachedResponse>(std::move(r));
}

Status LiteratureCache::Put(const std::string& key, const CachedResponse& response) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_,
         "INSERT INTO responses(key, status, content_type, body, fetched_at) VALUES (?1, ?2, ?3, ?4, ?5) "
         "ON CONFLICT(key) DO UPDATE SET status = excluded.status, content_type = excluded.content_type, "
         "body = excluded.body, fetched_at = excluded.fetched_at");
  if (!s.ok()) return Status::Unavailable("literature cache '" + path_ + "': " + sqlite3_errmsg(db_));
  s.Text(1, key);
  s.Int(2, response.status);
  s.Text(3, response.content_type);
  s.Blob(4, response.body.data(), response.body.size());
  s.Text(5, response.fetched_at.empty() ? UtcTimestamp() : response.fetched_at);
  if (s.Step() != SQLITE_DONE) return Status::Unavailable("literature cache '" + path_ + "': " + sqlite3_errmsg(db_));
  return Status::OK();
}

Result<int64_t> LiteratureCache::Size() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_, "SELECT COUNT(*) FROM responses");
  if (!s.ok() || s.Step() != SQLITE_ROW) {
    return Status::Unavailable("literature cache '" + path_ + "': " + sqlite3_errmsg(db_));
  }
  return s.ColInt(0);
}

}  // namespace medreact
