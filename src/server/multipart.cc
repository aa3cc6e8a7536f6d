// multipart/form-data parsing: see multipart.h. The body is scanned once for
// delimiter candidates (Boyer-Moore over "\r\n--" boundary: its good-suffix
// rule keeps a body of one letter under a boundary of that letter linear,
// where Horspool compared ~70 bytes per byte; docs/benchmarks.md); each
// candidate is checked to end its line (transport padding, then CRLF or "--").
#include "server/multipart.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/text_util.h"

namespace medreact::server {
namespace {

constexpr size_t kMaxBoundaryBytes = 70;  // RFC 2046 5.1.1
constexpr size_t kMaxExtensionBytes = 16;

bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// RFC 9110 5.6.2 tchar.
bool IsTchar(char c) { return IsAlnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos; }

// RFC 2046 5.1.1 bchars (space allowed, not last).
bool IsBchar(char c) { return IsAlnum(c) || std::string_view("'()+_,-./:=? ").find(c) != std::string_view::npos; }

bool IsCtl(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7f; }

bool IsOws(char c) { return c == ' ' || c == '\t'; }

std::string Hex(unsigned char c) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", c);
  return text;
}

struct Param {
  std::string name;  // lower case
  std::string value;
};

// `; name=value; name="quoted \" value"` after a header's main value. On
// error, a reason that quotes nothing.
Result<std::vector<Param>> ParseParams(std::string_view s) {
  std::vector<Param> params;
  size_t i = 0;
  auto skip_ows = [&] {
    while (i < s.size() && IsOws(s[i])) ++i;
  };
  while (true) {
    skip_ows();
    if (i == s.size()) return params;
    if (s[i] != ';') return Status::InvalidArgument("expected ';' between parameters at character " + std::to_string(i));
    ++i;
    skip_ows();
    if (i == s.size()) return params;  // a trailing ';' is tolerated
    const size_t name_start = i;
    while (i < s.size() && IsTchar(s[i])) ++i;
    if (i == name_start) return Status::InvalidArgument("a parameter without a name at character " + std::to_string(i));
    Param param{AsciiLower(s.substr(name_start, i - name_start)), ""};
    skip_ows();
    if (i == s.size() || s[i] != '=') {
      return Status::InvalidArgument("a parameter without '=' at character " + std::to_string(i));
    }
    ++i;
    skip_ows();
    if (i < s.size() && s[i] == '"') {
      ++i;
      bool closed = false;
      while (i < s.size()) {
        char c = s[i++];
        if (c == '"') {
          closed = true;
          break;
        }
        if (c == '\\') {
          if (i == s.size()) break;
          c = s[i++];
        }
        param.value += c;
      }
      if (!closed) return Status::InvalidArgument("a quoted parameter value that does not end");
    } else {
      const size_t value_start = i;
      while (i < s.size() && s[i] != ';' && !IsOws(s[i]) && s[i] != '"') ++i;
      param.value = std::string(s.substr(value_start, i - value_start));
    }
    params.push_back(std::move(param));
  }
}

// The value of parameter `name`, or nullopt; a repeated parameter is an error
// (two readers could take different ones).
Result<std::optional<std::string>> OneParam(const std::vector<Param>& params, std::string_view name) {
  std::optional<std::string> found;
  for (const Param& p : params) {
    if (p.name != name) continue;
    if (found) return Status::InvalidArgument("the parameter '" + std::string(name) + "' is given twice");
    found = p.value;
  }
  return found;
}

// The main value (before the first ';') and the parameters after it.
std::pair<std::string_view, std::string_view> SplitMainValue(std::string_view header) {
  const size_t semi = header.find(';');
  if (semi == std::string_view::npos) return {TrimView(header), {}};
  return {TrimView(header.substr(0, semi)), header.substr(semi)};
}

struct Delimiter {
  size_t start = 0;   // where the data before it ends (its CRLF, or 0 for the first at offset 0)
  size_t after = 0;   // the first byte after its line (the next part's headers)
  bool close = false; // "--boundary--"
};

// Finds delimiter lines in one body.
class DelimiterScanner {
 public:
  DelimiterScanner(std::string_view body, const std::string& boundary)
      : body_(body), delimiter_("\r\n--" + boundary), searcher_(delimiter_.cbegin(), delimiter_.cend()) {}

  // The first delimiter line at or after `from`. At offset 0 the line may
  // start without its CRLF (no preamble). `truncated` is set when the body
  // ends inside a line that could still have been a delimiter.
  std::optional<Delimiter> Find(size_t from, bool allow_at_start, bool* truncated) const {
    *truncated = false;
    if (allow_at_start && from == 0 && body_.substr(0, delimiter_.size() - 2) == std::string_view(delimiter_).substr(2)) {
      if (std::optional<Delimiter> d = LineEnd(0, delimiter_.size() - 2, truncated)) return d;
    }
    size_t pos = from;
    while (pos < body_.size()) {
      auto it = std::search(body_.begin() + static_cast<std::ptrdiff_t>(pos), body_.end(), searcher_);
      if (it == body_.end()) return std::nullopt;
      const size_t found = static_cast<size_t>(it - body_.begin());
      if (std::optional<Delimiter> d = LineEnd(found, found + delimiter_.size(), truncated)) return d;
      if (*truncated) return std::nullopt;
      pos = found + 1;  // "--boundaryX": data, go on
    }
    return std::nullopt;
  }

 private:
  // The candidate at [start, end) is a delimiter when followed by "--" or by
  // transport padding and CRLF.
  std::optional<Delimiter> LineEnd(size_t start, size_t end, bool* truncated) const {
    std::string_view rest = body_.substr(end);
    if (rest.substr(0, 2) == "--") return Delimiter{start, end + 2, true};
    size_t i = 0;
    while (i < rest.size() && IsOws(rest[i])) ++i;
    if (rest.substr(i, 2) == "\r\n") return Delimiter{start, end + i + 2, false};
    // The body ends where "--" or CRLF could still have come.
    if (i == rest.size() || (i + 1 == rest.size() && (rest[i] == '\r' || rest[i] == '-'))) *truncated = true;
    return std::nullopt;
  }

  std::string_view body_;
  std::string delimiter_;
  std::boyer_moore_searcher<std::string::const_iterator> searcher_;
};

// One part's header block (lines without the final empty line) into `part`.
Status ReadPartHeaders(std::string_view block, FormPart* part) {
  std::vector<std::pair<std::string, std::string>> headers;  // lower-case name, value
  size_t line_number = 0;
  while (!block.empty()) {
    ++line_number;
    const size_t eol = block.find("\r\n");
    std::string_view line = block.substr(0, eol);
    block = eol == std::string_view::npos ? std::string_view() : block.substr(eol + 2);
    for (char c : line) {
      if (IsCtl(static_cast<unsigned char>(c))) {
        return Status::InvalidArgument("header line " + std::to_string(line_number) + " holds a control character (" +
                                       Hex(static_cast<unsigned char>(c)) + ")");
      }
    }
    if (!line.empty() && IsOws(line.front())) {  // obs-fold (RFC 5322 2.2.3): unfold
      if (headers.empty()) return Status::InvalidArgument("header line 1 starts with white space");
      headers.back().second += ' ';
      headers.back().second += std::string(TrimView(line));
      continue;
    }
    const size_t colon = line.find(':');
    std::string_view name = line.substr(0, colon);
    if (colon == std::string_view::npos || name.empty() || !std::all_of(name.begin(), name.end(), IsTchar)) {
      return Status::InvalidArgument("header line " + std::to_string(line_number) +
                                     " is not 'Name: value' (a name of token characters, then ':')");
    }
    headers.emplace_back(AsciiLower(name), std::string(TrimView(line.substr(colon + 1))));
  }

  const std::string* disposition = nullptr;
  const std::string* content_type = nullptr;
  for (const auto& [name, value] : headers) {
    const std::string** slot = name == "content-disposition" ? &disposition
                               : name == "content-type"      ? &content_type
                                                             : nullptr;
    if (slot != nullptr) {
      if (*slot != nullptr) return Status::InvalidArgument("the header " + name + " is given twice");
      *slot = &value;
    } else if (name == "content-transfer-encoding") {
      const std::string encoding = AsciiLower(value);
      if (encoding != "7bit" && encoding != "8bit" && encoding != "binary") {
        return Status::InvalidArgument(
            "a Content-Transfer-Encoding other than 7bit, 8bit or binary is not supported (RFC 7578 4.7): send "
            "the bytes as they are");
      }
    }
  }
  if (disposition == nullptr) {
    return Status::InvalidArgument("no Content-Disposition header (RFC 7578 4.2: form-data; name=\"...\")");
  }
  auto [type, rest] = SplitMainValue(*disposition);
  if (AsciiLower(type) != "form-data") {
    return Status::InvalidArgument("the Content-Disposition type is not form-data (RFC 7578 4.2)");
  }
  Result<std::vector<Param>> params = ParseParams(rest);
  if (!params.ok()) return params.status().WithContext("Content-Disposition");
  Result<std::optional<std::string>> name = OneParam(*params, "name");
  if (!name.ok()) return name.status().WithContext("Content-Disposition");
  if (!name->has_value()) return Status::InvalidArgument("Content-Disposition has no name parameter (RFC 7578 4.2)");
  Result<std::optional<std::string>> filename = OneParam(*params, "filename");
  if (!filename.ok()) return filename.status().WithContext("Content-Disposition");
  part->name = std::move(**name);
  part->filename = filename->value_or("");
  part->content_type = content_type != nullptr ? *content_type : "text/plain";
  return Status::OK();
}

// A name with dot runs collapsed and no dot at either end.
std::string NormalizeDots(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '.' && (out.empty() || out.back() == '.')) continue;
    out += c;
  }
  while (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

}  // namespace

Result<std::string> MultipartBoundary(std::string_view content_type_header) {
  auto [type, rest] = SplitMainValue(content_type_header);
  if (AsciiLower(type) != "multipart/form-data") {
    return Status::InvalidArgument("Content-Type is not multipart/form-data");
  }
  Result<std::vector<Param>> params = ParseParams(rest);
  if (!params.ok()) return params.status().WithContext("Content-Type");
  Result<std::optional<std::string>> boundary = OneParam(*params, "boundary");
  if (!boundary.ok()) return boundary.status().WithContext("Content-Type");
  if (!boundary->has_value()) return Status::InvalidArgument("Content-Type has no boundary parameter");
  const std::string& b = **boundary;
  if (b.empty() || b.size() > kMaxBoundaryBytes) {
    return Status::InvalidArgument("the Content-Type boundary has " + std::to_string(b.size()) +
                                   " characters; RFC 2046 allows 1 to 70");
  }
  if (!std::all_of(b.begin(), b.end(), IsBchar) || b.back() == ' ') {
    return Status::InvalidArgument(
        "the Content-Type boundary holds a character RFC 2046 does not allow (letters, digits, '()+_,-./:=? "
        "and inner spaces only)");
  }
  return b;
}

Result<std::vector<FormPart>> ParseMultipart(std::string_view content_type_header, std::string_view body,
                                             const MultipartLimits& limits) {
  if (body.size() > limits.max_total_bytes) {
    return Status::ResourceExhausted("the multipart body has " + std::to_string(body.size()) +
                                     " bytes; the limit is " + std::to_string(limits.max_total_bytes));
  }
  Result<std::string> boundary = MultipartBoundary(content_type_header);
  if (!boundary.ok()) return boundary.status();
  DelimiterScanner scanner(body, *boundary);

  bool truncated = false;
  std::optional<Delimiter> delimiter = scanner.Find(0, /*allow_at_start=*/true, &truncated);
  if (!delimiter) {
    return Status::InvalidArgument(
        truncated ? "the multipart body ends inside its first boundary line"
                  : "the multipart body holds no boundary line of its Content-Type's boundary (a line of \"--\" "
                    "and the boundary, ending in CRLF; RFC 2046 5.1.1)");
  }
  std::vector<FormPart> parts;
  while (!delimiter->close) {
    const size_t number = parts.size() + 1;
    const std::string where = "part " + std::to_string(number) + " (at byte " + std::to_string(delimiter->after) + ")";
    if (parts.size() == limits.max_parts) {
      return Status::ResourceExhausted("the multipart body has more than " + std::to_string(limits.max_parts) +
                                       " parts");
    }
    // The header block ends at the first empty line.
    const size_t start = delimiter->after;
    size_t data_start = 0;
    std::string_view block;
    if (body.substr(start, 2) == "\r\n") {
      data_start = start + 2;
    } else {
      const size_t window_bytes = limits.max_header_bytes > SIZE_MAX - 4 ? SIZE_MAX : limits.max_header_bytes + 4;
      std::string_view window = body.substr(start, window_bytes);
      const size_t end = window.find("\r\n\r\n");
      if (end == std::string_view::npos) {
        if (window.size() == window_bytes) {
          return Status::ResourceExhausted(where + ": its headers exceed " + std::to_string(limits.max_header_bytes) +
                                           " bytes");
        }
        return Status::InvalidArgument(where + ": its headers do not end with an empty line before the body ends");
      }
      block = window.substr(0, end);
      data_start = start + end + 4;
    }
    FormPart part;
    if (Status s = ReadPartHeaders(block, &part); !s.ok()) return s.WithContext(where);
    // From the CRLF that ended the headers: with no data, that CRLF is also the
    // next delimiter's (RFC 2046: body-part := headers [CRLF *OCTET]).
    delimiter = scanner.Find(data_start - 2, /*allow_at_start=*/false, &truncated);
    if (!delimiter) {
      return Status::InvalidArgument(where + ": no boundary line follows it: the body is truncated or lacks its "
                                             "close delimiter (\"--\" boundary \"--\")");
    }
    part.data = std::string(body.substr(data_start, std::max(delimiter->start, data_start) - data_start));
    parts.push_back(std::move(part));
  }
  return parts;  // the epilogue after the close delimiter is ignored
}

std::string SafeUploadName(std::string_view filename) {
  const size_t slash = filename.find_last_of("/\\");
  if (slash != std::string_view::npos) filename.remove_prefix(slash + 1);
  std::string kept;
  for (char c : filename) {
    const bool allowed = IsAlnum(c) || c == '.' || c == '_' || c == '-' || c == '+' || c == '(' || c == ')';
    if (allowed) {
      kept += c;
    } else if (kept.empty() || kept.back() != '_') {
      kept += '_';
    }
  }
  std::string name = NormalizeDots(kept);
  while (!name.empty() && name.front() == '.') name.erase(0, 1);
  if (name.size() > kMaxUploadNameBytes) {
    const size_t dot = name.rfind('.');
    const size_t extension = dot != std::string::npos && name.size() - dot <= kMaxExtensionBytes ? name.size() - dot : 0;
    name = name.substr(0, kMaxUploadNameBytes - extension) + name.substr(name.size() - extension);
    name = NormalizeDots(name);
  }
  return name.empty() ? "upload" : name;
}

}  // namespace medreact::server
