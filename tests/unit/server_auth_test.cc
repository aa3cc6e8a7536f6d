// Tests for the server's authentication pieces (src/server/auth.h): the token
// file (kinds, sizes, modes, contents never quoted), the constant-time
// compare's answers, the Bearer header reader, the loopback check.
#include <sys/stat.h>
#include <sys/types.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/auth.h"
#include "testing/subprocess.h"

namespace medreact::server {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kToken[] = "s3cr3t-T0ken_value.with~all+chars/==";

std::string WriteToken(const testing::TempDir& dir, const std::string& content, mode_t mode = 0600) {
  dir.Write("token", content);
  const std::string path = dir.File("token");
  EXPECT_EQ(::chmod(path.c_str(), mode), 0);
  return path;
}

TEST(ServerAuthTest, ReadsATokenFileAndTrimsOneTrailingNewline) {
  testing::TempDir dir;
  for (const std::string& content : {std::string(kToken), std::string(kToken) + "\n", std::string(kToken) + "\r\n"}) {
    Result<TokenFile> token = ReadTokenFile(WriteToken(dir, content));
    ASSERT_TRUE(token.ok()) << token.status().ToString();
    EXPECT_EQ(token->token, kToken);
    EXPECT_FALSE(token->world_readable);
  }
  Result<TokenFile> exactly_16 = ReadTokenFile(WriteToken(dir, std::string(16, 'a') + "\n"));
  ASSERT_TRUE(exactly_16.ok()) << exactly_16.status().ToString();
  EXPECT_EQ(exactly_16->token, std::string(16, 'a'));
  Result<TokenFile> at_cap = ReadTokenFile(WriteToken(dir, std::string(kMaxTokenFileBytes, 'b')));
  ASSERT_TRUE(at_cap.ok()) << at_cap.status().ToString();
}

TEST(ServerAuthTest, AFileOthersCanReadIsReportedForAWarning) {
  testing::TempDir dir;
  for (mode_t mode : {0644, 0640, 0604, 0444}) {
    Result<TokenFile> token = ReadTokenFile(WriteToken(dir, kToken, mode));
    ASSERT_TRUE(token.ok()) << token.status().ToString();
    EXPECT_TRUE(token->world_readable) << std::oct << mode;
  }
  for (mode_t mode : {0600, 0400}) {
    Result<TokenFile> token = ReadTokenFile(WriteToken(dir, kToken, mode));
    ASSERT_TRUE(token.ok()) << token.status().ToString();
    EXPECT_FALSE(token->world_readable) << std::oct << mode;
  }
}

TEST(ServerAuthTest, BadTokenFilesAreRefusedWithoutQuotingThem) {
  testing::TempDir dir;
  struct Case {
    const char* what;
    std::string content;
    const char* message;
  };
  const std::string secret = "SECRETSECRETSECRET";
  const Case cases[] = {
      {"empty", "", "is empty"},
      {"a newline only", "\n", "is empty"},
      {"15 characters", std::string(15, 'S') + "\n", "holds 15 characters; a token needs at least 16"},
      {"an inner space", secret + " " + secret, "cannot carry"},
      {"two lines", secret + "\n" + secret + "\n", "cannot carry"},
      {"two trailing newlines", secret + "\n\n", "cannot carry"},
      {"a NUL", secret + std::string(1, '\0') + secret, "cannot carry"},
      {"'=' inside", "SECRET=SECRET=SECRET", "cannot carry"},
      {"over the cap", std::string(kMaxTokenFileBytes + 1, 'S'), "has 4097 bytes"},
  };
  for (const Case& c : cases) {
    Result<TokenFile> token = ReadTokenFile(WriteToken(dir, c.content));
    ASSERT_FALSE(token.ok()) << c.what;
    EXPECT_EQ(token.status().code(), StatusCode::kInvalidArgument) << c.what;
    EXPECT_THAT(token.status().message(), HasSubstr(c.message)) << c.what;
    EXPECT_THAT(token.status().message(), HasSubstr(dir.File("token"))) << c.what;
    EXPECT_THAT(token.status().message(), Not(HasSubstr("SECRET"))) << c.what;
    EXPECT_THAT(token.status().message(), Not(HasSubstr("SSSSSSSSSSSSSSS"))) << c.what;
  }
}

TEST(ServerAuthTest, TokenFilesThatAreNotRegularFilesAreRefused) {
  testing::TempDir dir;
  Result<TokenFile> missing = ReadTokenFile(dir.File("absent"));
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("does not exist"));

  Result<TokenFile> folder = ReadTokenFile(dir.path());
  EXPECT_EQ(folder.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(folder.status().message(), HasSubstr("is not a regular file"));

  // A FIFO with no writer: refused at once, not waited on.
  const std::string fifo = dir.File("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Result<TokenFile> from_fifo = ReadTokenFile(fifo);
  EXPECT_EQ(from_fifo.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(from_fifo.status().message(), HasSubstr("is not a regular file"));

  Result<TokenFile> device = ReadTokenFile("/dev/zero");
  EXPECT_EQ(device.status().code(), StatusCode::kInvalidArgument);
}

TEST(ServerAuthTest, ASymlinkToATokenFileIsFollowed) {  // a mounted secret is a symlink
  testing::TempDir dir;
  const std::string target = WriteToken(dir, kToken);
  const std::string link = dir.File("link");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  Result<TokenFile> token = ReadTokenFile(link);
  ASSERT_TRUE(token.ok()) << token.status().ToString();
  EXPECT_EQ(token->token, kToken);
}

TEST(ServerAuthTest, TokenMatchesOnlyTheSameBytes) {
  const std::string expected = "abcdefghijklmnopqrstuvwxyz012345";
  EXPECT_TRUE(TokenMatches(expected, expected));
  EXPECT_TRUE(TokenMatches(expected, std::string(expected)));  // another buffer
  std::string first = expected, last = expected, middle = expected;
  first.front() = 'X';
  last.back() = 'X';
  middle[16] ^= 0x01;  // one bit
  EXPECT_FALSE(TokenMatches(expected, first));
  EXPECT_FALSE(TokenMatches(expected, last));
  EXPECT_FALSE(TokenMatches(expected, middle));
  // Different lengths: a prefix, a longer text that starts with it, empty.
  EXPECT_FALSE(TokenMatches(expected, expected.substr(0, expected.size() - 1)));
  EXPECT_FALSE(TokenMatches(expected, expected + "6"));
  EXPECT_FALSE(TokenMatches(expected, expected + std::string(1, '\0')));  // a NUL past the end
  EXPECT_FALSE(TokenMatches(expected, ""));
  EXPECT_FALSE(TokenMatches(expected, std::string(1000, 'a')));
  // An empty expected token never matches, not even an empty one.
  EXPECT_FALSE(TokenMatches("", ""));
  EXPECT_FALSE(TokenMatches("", "x"));
  // Bytes above 0x7f and NUL compare as bytes.
  const std::string binary("\x00\xff\x80z", 4);
  EXPECT_TRUE(TokenMatches(binary, std::string("\x00\xff\x80z", 4)));
  EXPECT_FALSE(TokenMatches(binary, std::string("\x00\xff\x81z", 4)));
}

TEST(ServerAuthTest, BearerTokenReadsTheSchemeCaseInsensitively) {
  EXPECT_EQ(BearerToken("Bearer abc.DEF-ghi_~+/=="), "abc.DEF-ghi_~+/==");
  EXPECT_EQ(BearerToken("bearer abc"), "abc");
  EXPECT_EQ(BearerToken("BEARER    abc"), "abc");  // one space or more
  EXPECT_EQ(BearerToken("  Bearer abc \t"), "abc");  // OWS around the field value
  EXPECT_EQ(BearerToken("Bearer " + std::string(kMaxTokenFileBytes, 'a')), std::string(kMaxTokenFileBytes, 'a'));
}

TEST(ServerAuthTest, BearerTokenRefusesOtherShapes) {
  for (const std::string& header :
       {std::string(""), std::string("Bearer"), std::string("Bearer "), std::string("Bearer    "),
        std::string("Basic dXNlcjpwYXNz"), std::string("Bearerabc"), std::string("Bearer\tabc"),
        std::string("Token abc"), std::string("Bearer abc def"), std::string("Bearer a=b"), std::string("Bearer =abc"),
        std::string("Bearer abc,def"), std::string("Bearer \"abc\""), std::string("Bearer ab\x01" "c"),
        std::string("Bearer ab\0c", 11), std::string("Bearer " + std::string(kMaxTokenFileBytes + 1, 'a')),
        std::string("Bearer abc\r\nX-Injected: 1")}) {
    EXPECT_EQ(BearerToken(header), std::nullopt) << header;
  }
}

TEST(ServerAuthTest, LoopbackAddressesAreTheOnlyOnesCalledLoopback) {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "127.255.255.255", "::1", "[::1]", "0:0:0:0:0:0:0:1",
                                  "localhost", "LocalHost", "localhost.", "::ffff:127.0.0.1"}) {
    EXPECT_TRUE(IsLoopbackAddress(host)) << host;
  }
  for (const std::string& host :
       {std::string("0.0.0.0"), std::string("::"), std::string(""), std::string("[::]"), std::string("128.0.0.1"),
        std::string("10.0.0.1"), std::string("192.168.1.10"), std::string("::2"), std::string("::ffff:10.0.0.1"),
        std::string("127.0.0.256"), std::string("127.1"), std::string("0177.0.0.1"), std::string(" 127.0.0.1"),
        std::string("127.0.0.1 "), std::string("127.0.0.1\0.evil", 15), std::string("localhost.evil.com"),
        std::string("evil-localhost"), std::string("example.com"), std::string("[::1"), std::string("fe80::1")}) {
    EXPECT_FALSE(IsLoopbackAddress(host)) << host;
  }
}

}  // namespace
}  // namespace medreact::server

namespace medreact::server {
namespace {

// RFC 4231 (HMAC-SHA256 test vectors): cases 1, 2, 4, 6 (a key longer than
// the block, hashed first) and 7 (both long).
TEST(ServerSessionTest, HmacSha256MatchesRfc4231) {
  EXPECT_EQ(HmacSha256Hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(HmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  std::string key4;
  for (int i = 1; i <= 25; ++i) key4.push_back(static_cast<char>(i));
  EXPECT_EQ(HmacSha256Hex(key4, std::string(50, '\xcd')),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
  EXPECT_EQ(HmacSha256Hex(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  EXPECT_EQ(HmacSha256Hex(std::string(131, '\xaa'),
                          "This is a test using a larger than block-size key and a larger than block-size data. "
                          "The key needs to be hashed before being used by the HMAC algorithm."),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

TEST(ServerSessionTest, ASessionIsValidForItsTokenUntilItExpires) {
  const std::string token = "session-token-0123456789";
  const int64_t now = 1'800'000'000;
  const std::string nonce = "0123456789abcdef0123456789abcdef";
  const std::string v = MakeSessionValue(token, now, nonce);
  EXPECT_TRUE(v.starts_with("v1." + std::to_string(now + kSessionSeconds) + "." + nonce + ".")) << v;
  EXPECT_TRUE(SessionValueValid(token, v, now));
  EXPECT_TRUE(SessionValueValid(token, v, now + kSessionSeconds - 1));
  EXPECT_FALSE(SessionValueValid(token, v, now + kSessionSeconds)) << "expired";
  EXPECT_FALSE(SessionValueValid("another-token-0123456789", v, now)) << "a new token ends every session";
  EXPECT_FALSE(SessionValueValid("", v, now));
  // Dated further ahead than a session lives (a forged expiry cannot verify anyway).
  EXPECT_FALSE(SessionValueValid(token, MakeSessionValue(token, now + 3600, nonce), now));
  // Any byte changed: refused.
  for (size_t i = 0; i < v.size(); ++i) {
    std::string t = v;
    t[i] = t[i] == '0' ? '1' : '0';
    EXPECT_FALSE(SessionValueValid(token, t, now)) << "byte " << i << " changed: " << t;
  }
  const std::vector<std::string> bad_values = {"",
                                               "v1.",
                                               "v1...",
                                               "v2." + v.substr(3),
                                               v + ".",
                                               v.substr(0, v.size() - 1),
                                               "v1.99999999999999." + nonce + "." + std::string(64, 'a')};
  for (const std::string& bad : bad_values) {
    EXPECT_FALSE(SessionValueValid(token, bad, now)) << bad;
  }
}

TEST(ServerSessionTest, CookieValueFindsTheNamedCookie) {
  EXPECT_EQ(CookieValue("a=1; medreact_session=v1.x; b=2", "medreact_session"), "v1.x");
  EXPECT_EQ(CookieValue("medreact_session=\"q\"", "medreact_session"), "q");
  EXPECT_EQ(CookieValue("  medreact_session = v ;", "medreact_session"), "v");
  EXPECT_EQ(CookieValue("xmedreact_session=v", "medreact_session"), std::nullopt);
  EXPECT_EQ(CookieValue("", "medreact_session"), std::nullopt);
  EXPECT_EQ(CookieValue("medreact_session", "medreact_session"), std::nullopt);
}

TEST(ServerSessionTest, NoncesAreHexAndDiffer) {
  const std::string a = RandomNonceHex(), b = RandomNonceHex();
  EXPECT_EQ(a.size(), 32u);
  EXPECT_TRUE(std::all_of(a.begin(), a.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }));
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace medreact::server
