// Recorded literature responses → the literature cache (literature_recording.h).
#include "tools/literature/literature_recording.h"

#include <sstream>
#include <utility>
#include <vector>

#include "core/file_io.h"
#include "core/text_util.h"
#include "medreact/json.h"
#include "tools/literature/literature_cache.h"

namespace medreact {

Result<int> ImportLiteratureRecording(const std::string& recording_path, const std::string& cache_path) {
  Result<std::string> text = ReadUserFile(recording_path, "literature recording", kMaxJsonConfigBytes);
  if (!text.ok()) return text.status();
  std::vector<std::pair<std::string, CachedResponse>> entries;
  std::istringstream lines(*text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    const std::string_view trimmed = TrimView(line);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    const std::string where = recording_path + " line " + std::to_string(number);
    Result<Json> j = ParseJson(trimmed);
    if (!j.ok()) return Status::InvalidArgument(where + " is not JSON: " + j.status().message());
    if (!j->is_object()) return Status::InvalidArgument(where + " must be a JSON object");
    const std::string method = StringOr(*j, "method", "GET");
    const std::string url = StringOr(*j, "url");
    if (!StartsWith(url, "http://") && !StartsWith(url, "https://")) {
      return Status::InvalidArgument(where + ": \"url\" must be an http(s) URL");
    }
    auto status = j->find("status");
    auto body = j->find("body");
    if (status == j->end() || !ExactInteger(*status, 100, 599)) {
      return Status::InvalidArgument(where + ": \"status\" must be an HTTP status code");
    }
    if (body == j->end() || !body->is_string()) return Status::InvalidArgument(where + ": \"body\" must be a string");
    entries.emplace_back(LiteratureCacheKey(method, url),
                         CachedResponse{.status = static_cast<int>(*ExactInteger(*status, 100, 599)),
                                        .content_type = StringOr(*j, "content_type", "application/json"),
                                        .body = body->get<std::string>()});
  }
  std::string path = cache_path;
  if (path.empty()) {
    Result<std::string> d = DefaultLiteratureCachePath();
    if (!d.ok()) return d.status();
    path = *d;
  }
  Result<std::shared_ptr<LiteratureCache>> cache = LiteratureCache::Open(path);
  if (!cache.ok()) return cache.status();
  for (const auto& [key, response] : entries) {
    if (Status s = (*cache)->Put(key, response); !s.ok()) return s;
  }
  return static_cast<int>(entries.size());
}

}  // namespace medreact
