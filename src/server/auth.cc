// Token file, constant-time compare, Bearer header, loopback check: see auth.h.
#include "server/auth.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

#include "core/printable.h"
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

}  // namespace medreact::server
