// Token file, constant-time compare, Bearer header, loopback check: see auth.h.
#include "server/auth.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <string>
#include <string_view>

#include "core/printable.h"
#include "core/sha256.h"
#include "core/text_util.h"

namespace medreact::server {
namespace {

bool IsToken68Char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~' || c == '+' || c == '/';
}

// RFC 9110 11.2 token68: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
bool IsToken68(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsToken68Char(s[i])) ++i;
  if (i == 0) return false;
  while (i < s.size() && s[i] == '=') ++i;
  return i == s.size();
}

std::string Named(const std::string& path) { return "token file '" + PrintableLine(path) + "'"; }

}  // namespace

Result<TokenFile> ReadTokenFile(const std::string& path) {
  // O_NONBLOCK: a FIFO is opened without waiting for a writer, then refused.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return Status::NotFound(Named(path) + " does not exist");
    return Status::Unavailable("cannot open " + Named(path) + ": " + std::strerror(err));
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Status::Unavailable("cannot inspect " + Named(path) + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(Named(path) + " is not a regular file");
  if (st.st_size > static_cast<off_t>(kMaxTokenFileBytes)) {
    return Status::InvalidArgument(Named(path) + " has " + std::to_string(st.st_size) + " bytes; a token file holds " +
                                   "at most " + std::to_string(kMaxTokenFileBytes));
  }
  std::string text;
  char buffer[1024];
  while (text.size() <= kMaxTokenFileBytes) {  // the file may grow after fstat
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Unavailable("cannot read " + Named(path) + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  if (text.size() > kMaxTokenFileBytes) {
    return Status::InvalidArgument(Named(path) + " grew past " + std::to_string(kMaxTokenFileBytes) +
                                   " bytes while being read");
  }
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (!text.empty() && text.back() == '\r') text.pop_back();
  if (text.empty()) return Status::InvalidArgument(Named(path) + " is empty: write a random token of at least " +
                                                   std::to_string(kMinTokenChars) + " characters into it");
  if (text.size() < kMinTokenChars) {
    return Status::InvalidArgument(Named(path) + " holds " + std::to_string(text.size()) +
                                   " characters; a token needs at least " + std::to_string(kMinTokenChars) +
                                   " (e.g. `openssl rand -hex 32`)");
  }
  if (!IsToken68(text)) {
    return Status::InvalidArgument(Named(path) + " holds a character a Bearer token cannot carry (letters, digits, " +
                                   "-._~+/ and '=' padding at the end only; one line)");
  }
  return TokenFile{std::move(text), (st.st_mode & (S_IRGRP | S_IROTH)) != 0};
}

bool TokenMatches(std::string_view expected, std::string_view given) {
  // Every byte of `expected` is compared, whatever `given` is; the only
  // branch depends on given's length, which the sender knows anyway.
  volatile unsigned char diff = expected.size() == given.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i) {
    const unsigned char g = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    diff = diff | (static_cast<unsigned char>(expected[i]) ^ g);
  }
  return !expected.empty() && diff == 0;
}

std::optional<std::string> BearerToken(std::string_view authorization_header) {
  std::string_view s = TrimView(authorization_header);
  constexpr std::string_view kScheme = "bearer";
  if (s.size() <= kScheme.size() || AsciiLower(s.substr(0, kScheme.size())) != kScheme || s[kScheme.size()] != ' ') {
    return std::nullopt;
  }
  s.remove_prefix(kScheme.size());
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  if (s.size() > kMaxTokenFileBytes || !IsToken68(s)) return std::nullopt;
  return std::string(s);
}

bool IsLoopbackAddress(std::string_view host) {
  // A NUL would end the text inet_pton reads: "127.0.0.1\0..." is no address.
  if (host.size() > 64 || host.find('\0') != std::string_view::npos) return false;
  std::string lower = AsciiLower(host);
  if (lower == "localhost" || lower == "localhost.") return true;
  if (lower.size() >= 2 && lower.front() == '[' && lower.back() == ']') lower = lower.substr(1, lower.size() - 2);
  in_addr v4{};
  if (::inet_pton(AF_INET, lower.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6{};
  if (::inet_pton(AF_INET6, lower.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

// ---- Sessions ---------------------------------------------------------------

namespace {

std::string HexToBytes(std::string_view hex) {
  std::string out;
  out.reserve(hex.size() / 2);
  auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>((nibble(hex[i]) << 4) | nibble(hex[i + 1])));
  }
  return out;
}

bool IsLowerHex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

std::string HmacSha256Hex(std::string_view key, std::string_view message) {
  constexpr size_t kBlock = 64;
  std::string k = key.size() > kBlock ? HexToBytes(Sha256Hex(key)) : std::string(key);
  k.resize(kBlock, '\0');
  std::string inner(kBlock, '\0'), outer(kBlock, '\0');
  for (size_t i = 0; i < kBlock; ++i) {
    inner[i] = static_cast<char>(k[i] ^ 0x36);
    outer[i] = static_cast<char>(k[i] ^ 0x5c);
  }
  inner.append(message);
  outer.append(HexToBytes(Sha256Hex(inner)));
  return Sha256Hex(outer);
}

std::string MakeSessionValue(std::string_view token, int64_t now_unix, std::string_view nonce_hex) {
  const std::string expiry = std::to_string(now_unix + kSessionSeconds);
  const std::string mac =
      HmacSha256Hex(token, "medreact-session|v1|" + expiry + "|" + std::string(nonce_hex));
  return "v1." + expiry + "." + std::string(nonce_hex) + "." + mac;
}

bool SessionValueValid(std::string_view token, std::string_view value, int64_t now_unix) {
  if (token.empty() || value.size() > 200 || !value.starts_with("v1.")) return false;
  value.remove_prefix(3);
  const size_t a = value.find('.');
  if (a == std::string_view::npos) return false;
  const size_t b = value.find('.', a + 1);
  if (b == std::string_view::npos) return false;
  const std::string_view expiry = value.substr(0, a);
  const std::string_view nonce = value.substr(a + 1, b - a - 1);
  const std::string_view mac = value.substr(b + 1);
  if (expiry.empty() || expiry.size() > 12 || !std::all_of(expiry.begin(), expiry.end(), [](char c) {
        return c >= '0' && c <= '9';
      })) {
    return false;
  }
  if (nonce.size() != 32 || !IsLowerHex(nonce) || mac.size() != 64 || !IsLowerHex(mac)) return false;
  const int64_t until = std::stoll(std::string(expiry));
  if (until <= now_unix || until > now_unix + kSessionSeconds + 60) return false;
  const std::string expected =
      HmacSha256Hex(token, "medreact-session|v1|" + std::string(expiry) + "|" + std::string(nonce));
  return TokenMatches(expected, mac);
}

std::optional<std::string> CookieValue(std::string_view header, std::string_view name) {
  size_t i = 0;
  while (i < header.size()) {
    size_t semi = header.find(';', i);
    if (semi == std::string_view::npos) semi = header.size();
    std::string_view pair = TrimView(header.substr(i, semi - i));
    const size_t eq = pair.find('=');
    if (eq != std::string_view::npos && TrimView(pair.substr(0, eq)) == name) {
      std::string_view v = TrimView(pair.substr(eq + 1));
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
      return std::string(v);
    }
    i = semi + 1;
  }
  return std::nullopt;
}

std::string RandomNonceHex() {
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 4; ++i) {
    uint32_t v = rd();
    for (int j = 0; j < 8; ++j) {
      out.push_back(kHex[v & 0xf]);
      v >>= 4;
    }
  }
  return out;
}

}  // namespace medreact::server
