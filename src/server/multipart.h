// multipart/form-data request bodies (RFC 7578 over RFC 2046), parsed from
// memory with no socket: the server hands over the Content-Type header and
// the whole body it read (its own size cap first).
//
// Everything here is hostile input. The boundary comes from the Content-Type
// (quoted or not, 1..70 characters of RFC 2046's bchars); the body is split on
// CRLF "--" boundary lines (a line that starts with the boundary but goes on
// with other characters is data, RFC 2046 5.1.1); the preamble before the
// first delimiter and the epilogue after the close delimiter are ignored.
// Each part must carry `Content-Disposition: form-data; name="..."` (RFC 7578
// 4.2); `filename` is read (quoted strings with backslash escapes),
// `filename*=` is ignored, `Content-Type` defaults to text/plain (RFC 7578
// 4.4), a `Content-Transfer-Encoding` other than 7bit/8bit/binary is refused
// (RFC 7578 4.7: deprecated; nothing here decodes it).
//
// Errors never quote the body nor the boundary: they name the part (1-based),
// the byte offset and what is wrong. A malformed body or header is
// InvalidArgument (HTTP 400); a limit is ResourceExhausted (HTTP 413).
// Filenames are untrusted: store uploads under SafeUploadName(filename).
// Stateless and thread-safe.
#ifndef MEDREACT_SERVER_MULTIPART_H_
#define MEDREACT_SERVER_MULTIPART_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/status.h"

namespace medreact::server {

struct MultipartLimits {
  // Parts in one body; one more is ResourceExhausted. Default: 100.
  size_t max_parts = 100;
  // Bytes of one part's header block (the lines before its empty line). Default: 8 KiB.
  size_t max_header_bytes = 8u << 10;
  // Bytes of the whole body; checked before any parsing. Default: 64 MiB.
  size_t max_total_bytes = 64u << 20;
};

struct FormPart {
  std::string name;          // Content-Disposition's name (required; may be empty only if sent as name="")
  std::string filename;      // Content-Disposition's filename, unescaped, raw: "" when absent. Untrusted.
  std::string content_type;  // the part's Content-Type, trimmed; "text/plain" when absent
  std::string data;          // the part's bytes, exactly (binary, NUL bytes included)
};

// The boundary of a `multipart/form-data` Content-Type header value (media
// type case-insensitive, `boundary` parameter quoted or not). InvalidArgument
// when the media type is another, the boundary is missing, empty, longer than
// 70, or holds a character outside RFC 2046's bchars (or ends in a space).
Result<std::string> MultipartBoundary(std::string_view content_type_header);

// The parts of `body`, in order. See the file comment for what is refused.
Result<std::vector<FormPart>> ParseMultipart(std::string_view content_type_header, std::string_view body,
                                             const MultipartLimits& limits = {});

// The longest name SafeUploadName returns, in bytes.
inline constexpr size_t kMaxUploadNameBytes = 128;

// A name safe to use as one path component, from an untrusted filename:
// the basename only (after the last '/' or '\'); ASCII letters, digits and
// "._-+()" kept, every run of other bytes (space, controls, NUL, non-ASCII,
// quotes...) becomes one '_'; runs of dots become one dot; no leading or
// trailing dot; at most kMaxUploadNameBytes (an extension of up to 16 bytes
// is kept when cut). "" (or nothing left) → "upload".
// Never returns "", ".", ".." or a name holding '/'; idempotent.
std::string SafeUploadName(std::string_view filename);

}  // namespace medreact::server

#endif  // MEDREACT_SERVER_MULTIPART_H_
