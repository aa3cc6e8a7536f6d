// Tests for the access-log line (src/server/access_log.h): the exact format,
// no query string ever, and no request can forge a line or a field.
#include <limits>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/access_log.h"

namespace medreact::server {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::string_literals;

TEST(ServerAccessLogTest, AMatchedRouteIsLoggedAsItsPattern) {
  const AccessRecord record{.method = "GET",
                            .route = "/v1/runs/{id}",
                            .target = "/v1/runs/run_123?patient=Jane%20Doe",
                            .status = 200,
                            .bytes = 512,
                            .duration_ms = 12.34,
                            .client = "127.0.0.1"};
  EXPECT_EQ(AccessLogLine(record), "client=127.0.0.1 method=GET route=/v1/runs/{id} status=200 bytes=512 ms=12.3");
}

TEST(ServerAccessLogTest, AnUnmatchedPathIsLoggedWithoutItsQueryOrFragment) {
  AccessRecord record{.method = "POST", .target = "/nowhere/x?name=Jane+Doe&dob=1970-01-01#frag", .status = 404,
                      .client = "::1"};
  EXPECT_EQ(AccessLogLine(record), "client=::1 method=POST path=/nowhere/x status=404 bytes=0 ms=0.0");
  record.target = "/a#b?c";
  EXPECT_EQ(AccessLogLine(record), "client=::1 method=POST path=/a status=404 bytes=0 ms=0.0");
  record.target = "?only=query";
  EXPECT_EQ(AccessLogLine(record), "client=::1 method=POST path=- status=404 bytes=0 ms=0.0");
  record.target = "";
  record.method = "";
  record.client = "";
  EXPECT_EQ(AccessLogLine(record), "client=- method=- path=- status=404 bytes=0 ms=0.0");
}

TEST(ServerAccessLogTest, NoRequestCanForgeALineOrAField) {
  const AccessRecord record{.method = "GET\r\nclient=1.2.3.4 method=GET",
                            .target = "/x y\n200 \"quoted\" back\\slash \x1b[2J\x7f\xc3\xa9\0end?secret=1"s,
                            .status = 400,
                            .client = "evil\nclient"};
  const std::string line = AccessLogLine(record);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line.find('\r'), std::string::npos);
  EXPECT_THAT(line, Not(HasSubstr("secret")));
  for (unsigned char c : line) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << int(c);
  EXPECT_EQ(line,
            "client=evil%0Aclient method=GET%0D%0Aclient=... "
            "path=/x%20y%0A200%20%22quoted%22%20back%5Cslash%20%1B[2J%7F%C3%A9%00end status=400 bytes=0 ms=0.0");
  // Exactly the six fields, split on spaces.
  size_t spaces = 0;
  for (char c : line) spaces += c == ' ';
  EXPECT_EQ(spaces, 5u);
}

TEST(ServerAccessLogTest, LongFieldsAreCutAndOddDurationsAreADash) {
  AccessRecord record{.method = "GET", .target = "/" + std::string(500, 'p'), .status = 200,
                      .duration_ms = -1, .client = std::string(100, 'c')};
  std::string line = AccessLogLine(record);
  EXPECT_THAT(line, HasSubstr("client=" + std::string(64, 'c') + "... "));
  EXPECT_THAT(line, HasSubstr("path=/" + std::string(199, 'p') + "... "));
  EXPECT_THAT(line, HasSubstr(" ms=-"));
  for (double odd : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), 1e300}) {
    record.duration_ms = odd;
    EXPECT_THAT(AccessLogLine(record), ::testing::EndsWith(" ms=-")) << odd;
  }
  record.duration_ms = 1234567.891;
  EXPECT_THAT(AccessLogLine(record), ::testing::EndsWith(" ms=1234567.9"));
  // A cut never splits an escape.
  record.target = "/" + std::string(198, 'p') + "\n";
  EXPECT_THAT(AccessLogLine(record), HasSubstr("path=/" + std::string(198, 'p') + "... "));
}

}  // namespace
}  // namespace medreact::server
