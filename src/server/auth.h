// Bearer-token authentication pieces for `medreact serve`, free of sockets:
// reading the token file, comparing a presented token in constant time,
// reading an Authorization header, and telling a loopback bind address from
// one that exposes the server.
//
// The token is a secret: no error message here quotes it, a file's contents
// or a header. Stateless and thread-safe.
#ifndef MEDREACT_SERVER_AUTH_H_
#define MEDREACT_SERVER_AUTH_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "medreact/status.h"

namespace medreact::server {

// The largest token file read, in bytes; a larger file is refused unread.
inline constexpr size_t kMaxTokenFileBytes = 4096;
// The shortest token accepted from a file, in characters.
inline constexpr size_t kMinTokenChars = 16;

struct TokenFile {
  std::string token;            // the file's text without its trailing newline (CR LF or LF)
  bool world_readable = false;  // group or others may read the file (mode & 044): the caller warns
};

// Reads the server's token from `path` (symlinks followed, e.g. a mounted
// secret). NotFound when it does not exist; InvalidArgument when it is not a
// regular file, is larger than kMaxTokenFileBytes, is empty after the
// trailing newline is cut, is shorter than kMinTokenChars, or holds a
// character a Bearer token cannot carry (token68: letters, digits,
// "-._~+/", then '=' padding only at the end; so no inner space or second
// line); Unavailable when it cannot be opened or read.
Result<TokenFile> ReadTokenFile(const std::string& path);

// Whether `given` equals `expected`, in time that depends only on the two
// lengths: the loop always runs over all of `expected`, whatever `given` holds
// and however long it is (a length difference is folded into the result, not
// an early return). An empty `expected` never matches.
bool TokenMatches(std::string_view expected, std::string_view given);

// The token of an `Authorization: Bearer <token>` header value (RFC 6750
// 2.1): the scheme case-insensitive, one or more spaces, a token68 (letters,
// digits, "-._~+/" then '=' padding), white space at either end ignored.
// nullopt for any other scheme or shape, or a token longer than
// kMaxTokenFileBytes.
std::optional<std::string> BearerToken(std::string_view authorization_header);

// Whether a bind address reaches this machine only: "localhost" (any case,
// trailing dot allowed), 127.0.0.0/8 in dotted-quad form, "::1" (any IPv6
// spelling, brackets allowed) and IPv4-mapped 127/8 ("::ffff:127.0.0.1").
// Everything else, "0.0.0.0", "::" and "" included, is false.
bool IsLoopbackAddress(std::string_view host);

// ---- The page's sessions -------------------------------------------------
// A browser signs in once with the token (POST /v1/session) and then holds
// an HttpOnly, SameSite=Strict cookie instead: the page never keeps the
// token, and an EventSource (which cannot send an Authorization header)
// still authenticates. The cookie is stateless, so it survives a restart:
//   v1.<expiry, unix seconds>.<nonce, 32 hex>.<HMAC-SHA256(token, "medreact-session|v1|<expiry>|<nonce>"), 64 hex>
// Changing the token ends every session.

inline constexpr char kSessionCookieName[] = "medreact_session";
inline constexpr int64_t kSessionSeconds = 12 * 3600;  // a working shift. Default lifetime: 12 h

// HMAC-SHA256 (RFC 2104, FIPS 198-1) of `message` under `key`, 64 lower-case hex digits.
std::string HmacSha256Hex(std::string_view key, std::string_view message);

// A session cookie's value for `token`, valid until now_unix + kSessionSeconds.
// `nonce_hex`: 32 hex digits from a random source.
std::string MakeSessionValue(std::string_view token, int64_t now_unix, std::string_view nonce_hex);

// Whether `value` is a session this token made, not expired and not dated
// further ahead than a session lives. The MAC is compared in constant time.
bool SessionValueValid(std::string_view token, std::string_view value, int64_t now_unix);

// The value of cookie `name` in a Cookie header ("a=1; b=2"), or nullopt.
std::optional<std::string> CookieValue(std::string_view cookie_header, std::string_view name);

// 32 hex digits from the system's random source (std::random_device).
std::string RandomNonceHex();

}  // namespace medreact::server

#endif  // MEDREACT_SERVER_AUTH_H_
