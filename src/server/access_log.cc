// Access-log lines without patient data: see access_log.h.
#include "server/access_log.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

namespace medreact::server {
namespace {

constexpr size_t kMaxMethodBytes = 16;
constexpr size_t kMaxPathBytes = 200;
constexpr size_t kMaxClientBytes = 64;

// `text` percent-encoded where it is not printable ASCII (or is '"', '\'),
// at most `cap` bytes, cut with "..."; "-" when empty.
std::string Field(std::string_view text, size_t cap) {
  if (text.empty()) return "-";
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    std::string piece;
    if (c < '!' || c > '~' || c == '"' || c == '\\') {
      piece = {'%', kHex[c >> 4], kHex[c & 15]};
    } else {
      piece = std::string(1, static_cast<char>(c));
    }
    if (out.size() + piece.size() > cap) return out + "...";
    out += piece;
  }
  return out;
}

}  // namespace

std::string AccessLogLine(const AccessRecord& record) {
  std::string line = "client=" + Field(record.client, kMaxClientBytes);
  line += " method=" + Field(record.method, kMaxMethodBytes);
  if (!record.route.empty()) {
    line += " route=" + Field(record.route, kMaxPathBytes);
  } else {
    std::string_view target = record.target;
    target = target.substr(0, target.find_first_of("?#"));  // never the query string
    line += " path=" + Field(target, kMaxPathBytes);
  }
  line += " status=" + std::to_string(record.status);
  line += " bytes=" + std::to_string(record.bytes);
  if (std::isfinite(record.duration_ms) && record.duration_ms >= 0 && record.duration_ms < 1e12) {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.1f", record.duration_ms);
    line += " ms=" + std::string(ms);
  } else {
    line += " ms=-";
  }
  return line;
}

}  // namespace medreact::server
