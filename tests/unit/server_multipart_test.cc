// Tests for the multipart/form-data parser (src/server/multipart.h): the RFC
// examples, then hostile bodies (no boundary, boundary-like data, truncation,
// huge headers, NUL bytes, 10,000 parts) and untrusted filenames.
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/multipart.h"

namespace medreact::server {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kAaB03x[] = "multipart/form-data; boundary=AaB03x";

// The example of RFC 2388 section 4.4 (and of HTML 4.01 17.13.4), CRLF lines.
const std::string kRfcExample =
    "--AaB03x\r\n"
    "Content-Disposition: form-data; name=\"submit-name\"\r\n"
    "\r\n"
    "Larry\r\n"
    "--AaB03x\r\n"
    "Content-Disposition: form-data; name=\"files\"; filename=\"file1.txt\"\r\n"
    "Content-Type: text/plain\r\n"
    "\r\n"
    "... contents of file1.txt ...\r\n"
    "--AaB03x--\r\n";

TEST(ServerMultipartTest, BoundaryComesFromTheContentTypeQuotedOrNot) {
  EXPECT_EQ(*MultipartBoundary("multipart/form-data; boundary=AaB03x"), "AaB03x");
  EXPECT_EQ(*MultipartBoundary("Multipart/Form-Data;charset=utf-8;  BOUNDARY=----WebKitFormBoundary7MA4YWxk"),
            "----WebKitFormBoundary7MA4YWxk");
  EXPECT_EQ(*MultipartBoundary("multipart/form-data; boundary=\"simple boundary\""), "simple boundary");
  EXPECT_EQ(*MultipartBoundary("multipart/form-data; boundary=\"a\\:b\""), "a:b");  // an escape is read
  EXPECT_EQ(*MultipartBoundary("multipart/form-data; boundary=" + std::string(70, 'x')), std::string(70, 'x'));
}

TEST(ServerMultipartTest, BadBoundariesAreRefusedByName) {
  auto message = [](const std::string& header) {
    Result<std::string> b = MultipartBoundary(header);
    EXPECT_FALSE(b.ok()) << header;
    EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument) << header;
    return b.status().message();
  };
  EXPECT_THAT(message("application/json"), HasSubstr("not multipart/form-data"));
  EXPECT_THAT(message("multipart/mixed; boundary=x"), HasSubstr("not multipart/form-data"));
  EXPECT_THAT(message("multipart/form-data"), HasSubstr("no boundary"));
  EXPECT_THAT(message("multipart/form-data; charset=utf-8"), HasSubstr("no boundary"));
  EXPECT_THAT(message("multipart/form-data; boundary="), HasSubstr("1 to 70"));
  EXPECT_THAT(message("multipart/form-data; boundary=\"\""), HasSubstr("1 to 70"));
  EXPECT_THAT(message("multipart/form-data; boundary=" + std::string(71, 'x')), HasSubstr("71 characters"));
  EXPECT_THAT(message("multipart/form-data; boundary=\"a\x01z\""), HasSubstr("does not allow"));
  EXPECT_THAT(message("multipart/form-data; boundary=\"ends in space \""), HasSubstr("does not allow"));
  EXPECT_THAT(message("multipart/form-data; boundary=a; boundary=b"), HasSubstr("given twice"));
  EXPECT_THAT(message("multipart/form-data; boundary=\"open"), HasSubstr("does not end"));
  EXPECT_THAT(message("multipart/form-data; =x"), HasSubstr("without a name"));
}

TEST(ServerMultipartTest, ReadsTheRfc2388Example) {
  Result<std::vector<FormPart>> parts = ParseMultipart(kAaB03x, kRfcExample);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 2u);
  EXPECT_EQ((*parts)[0].name, "submit-name");
  EXPECT_EQ((*parts)[0].filename, "");
  EXPECT_EQ((*parts)[0].content_type, "text/plain");  // RFC 7578 4.4 default
  EXPECT_EQ((*parts)[0].data, "Larry");
  EXPECT_EQ((*parts)[1].name, "files");
  EXPECT_EQ((*parts)[1].filename, "file1.txt");
  EXPECT_EQ((*parts)[1].content_type, "text/plain");
  EXPECT_EQ((*parts)[1].data, "... contents of file1.txt ...");
}

// RFC 2046 5.1.1's example (a quoted boundary with a space, a preamble, an
// epilogue, a part without a final line break and one with), as form data.
TEST(ServerMultipartTest, ReadsTheRfc2046ExampleIgnoringPreambleAndEpilogue) {
  const std::string body =
      "This is the preamble.  It is to be ignored, though it\r\n"
      "is a handy place for composition agents to include an\r\n"
      "explanatory note to non-MIME conformant readers.\r\n"
      "\r\n"
      "--simple boundary\r\n"
      "Content-Disposition: form-data; name=\"one\"\r\n"
      "\r\n"
      "This is implicitly typed plain US-ASCII text.\r\n"
      "It does NOT end with a linebreak.\r\n"
      "--simple boundary\r\n"
      "Content-type: text/plain; charset=us-ascii\r\n"
      "Content-Disposition: form-data; name=\"two\"\r\n"
      "\r\n"
      "This is explicitly typed plain US-ASCII text.\r\n"
      "It DOES end with a linebreak.\r\n"
      "\r\n"
      "--simple boundary--\r\n"
      "\r\n"
      "This is the epilogue.  It is also to be ignored.\r\n";
  Result<std::vector<FormPart>> parts =
      ParseMultipart("multipart/form-data; boundary=\"simple boundary\"", body);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 2u);
  EXPECT_EQ((*parts)[0].data, "This is implicitly typed plain US-ASCII text.\r\nIt does NOT end with a linebreak.");
  EXPECT_EQ((*parts)[0].content_type, "text/plain");
  EXPECT_EQ((*parts)[1].name, "two");
  EXPECT_EQ((*parts)[1].content_type, "text/plain; charset=us-ascii");
  EXPECT_EQ((*parts)[1].data, "This is explicitly typed plain US-ASCII text.\r\nIt DOES end with a linebreak.\r\n");
}

TEST(ServerMultipartTest, BoundaryTextInsideDataIsData) {
  const std::string data =
      "x--AaB03x\r\n"           // not at a line start
      "--AaB03xyz\r\n"          // the boundary followed by more characters (RFC 2046: not a delimiter)
      "--AaB03x-\r\n"           // one dash is not a close delimiter
      "\r\n--AaB03 \r\n--end";  // a shorter boundary
  const std::string body = "--AaB03x\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\n" + data +
                           "\r\n--AaB03x--";
  Result<std::vector<FormPart>> parts = ParseMultipart(kAaB03x, body);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 1u);
  EXPECT_EQ((*parts)[0].data, data);
}

TEST(ServerMultipartTest, TransportPaddingAfterADelimiterIsAllowed) {
  const std::string body =
      "--AaB03x \t \r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--AaB03x  \r\n"
      "Content-Disposition: form-data; name=b\r\n\r\n2\r\n--AaB03x--";
  Result<std::vector<FormPart>> parts = ParseMultipart(kAaB03x, body);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 2u);
  EXPECT_EQ((*parts)[0].name, "a");
  EXPECT_EQ((*parts)[1].data, "2");
}

TEST(ServerMultipartTest, ReadsQuotedParametersWithEscapesAndIgnoresFilenameStar) {
  const std::string body =
      "--AaB03x\r\n"
      "content-disposition: FORM-DATA ; name = \"a \\\"quoted\\\" name\" ; filename=\"C:\\\\dir\\\\x.dcm\";"
      " filename*=UTF-8''%e2%82%ac.dcm\r\n"
      "Content-Type:   application/dicom  \r\n"
      "X-Other: ignored\r\n"
      "Content-Transfer-Encoding: binary\r\n"
      "\r\n"
      "DICM\r\n"
      "--AaB03x--";
  Result<std::vector<FormPart>> parts = ParseMultipart(kAaB03x, body);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 1u);
  EXPECT_EQ((*parts)[0].name, "a \"quoted\" name");
  EXPECT_EQ((*parts)[0].filename, "C:\\dir\\x.dcm");
  EXPECT_EQ((*parts)[0].content_type, "application/dicom");
  EXPECT_EQ(SafeUploadName((*parts)[0].filename), "x.dcm");
}

TEST(ServerMultipartTest, FoldedHeaderLinesAreUnfolded) {
  const std::string body =
      "--AaB03x\r\nContent-Disposition: form-data;\r\n name=\"folded\"\r\n\r\nv\r\n--AaB03x--";
  Result<std::vector<FormPart>> parts = ParseMultipart(kAaB03x, body);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  EXPECT_EQ((*parts)[0].name, "folded");
}

TEST(ServerMultipartTest, EmptyValuesWithOrWithoutTheirOwnLineBreak) {
  // A browser's empty field (CRLF CRLF, then the delimiter's CRLF), and a part
  // whose header block's last CRLF is also the delimiter's (RFC 2046:
  // body-part := MIME-part-headers [CRLF *OCTET]).
  const std::string body =
      "--AaB03x\r\nContent-Disposition: form-data; name=\"empty\"\r\n\r\n\r\n"
      "--AaB03x\r\nContent-Disposition: form-data; name=\"headers-only\"\r\n\r\n"
      "--AaB03x\r\nContent-Disposition: form-data; name=\"last\"\r\n\r\nx\r\n"
      "--AaB03x--";
  Result<std::vector<FormPart>> parts = ParseMultipart(kAaB03x, body);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 3u);
  EXPECT_EQ((*parts)[0].name, "empty");
  EXPECT_EQ((*parts)[0].data, "");
  EXPECT_EQ((*parts)[1].name, "headers-only");
  EXPECT_EQ((*parts)[1].data, "");
  EXPECT_EQ((*parts)[2].data, "x");
}

TEST(ServerMultipartTest, AnEmptyFormHasNoParts) {
  Result<std::vector<FormPart>> parts = ParseMultipart(kAaB03x, "--AaB03x--\r\n");
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  EXPECT_TRUE(parts->empty());
}

TEST(ServerMultipartTest, NulBytesInDataAreKeptExactly) {
  const std::string data("\0\x01\xff\r\n\0--AaB03\0", 13);
  const std::string body = "--AaB03x\r\nContent-Disposition: form-data; name=\"bin\"; filename=\"b.bin\"\r\n\r\n" +
                           data + "\r\n--AaB03x--";
  Result<std::vector<FormPart>> parts = ParseMultipart(kAaB03x, body);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  EXPECT_EQ((*parts)[0].data, data);
  EXPECT_EQ((*parts)[0].data.size(), 13u);
}

// Each hostile body: its status code and a piece of its message.
struct Hostile {
  const char* what;
  std::string body;
  StatusCode code;
  const char* message;
};

TEST(ServerMultipartTest, HostileBodiesAreRefusedPreciselyWithoutQuotingThem) {
  const std::string cd = "Content-Disposition: form-data; name=\"SECRET\"\r\n";
  const std::vector<Hostile> cases = {
      {"no boundary at all", "SECRET patient text", StatusCode::kInvalidArgument, "holds no boundary line"},
      {"empty body", "", StatusCode::kInvalidArgument, "holds no boundary line"},
      {"another boundary", "--other\r\n" + cd + "\r\nSECRET\r\n--other--", StatusCode::kInvalidArgument,
       "holds no boundary line"},
      {"LF line ends", "--AaB03x\n" + std::string("Content-Disposition: form-data; name=\"SECRET\"\n\nSECRET\n--AaB03x--"),
       StatusCode::kInvalidArgument, "holds no boundary line"},
      {"ends inside the first boundary line", "--AaB03x", StatusCode::kInvalidArgument, "ends inside its first"},
      {"no close delimiter", "--AaB03x\r\n" + cd + "\r\nSECRET data", StatusCode::kInvalidArgument,
       "part 1 (at byte 10): no boundary line follows it"},
      {"cut inside the close delimiter", "--AaB03x\r\n" + cd + "\r\nSECRET\r\n--AaB03x-",
       StatusCode::kInvalidArgument, "truncated or lacks its close delimiter"},
      {"cut inside the headers", "--AaB03x\r\n" + cd, StatusCode::kInvalidArgument,
       "headers do not end with an empty line"},
      {"second part truncated", "--AaB03x\r\n" + cd + "\r\nx\r\n--AaB03x\r\n" + cd + "\r\nSECRET",
       StatusCode::kInvalidArgument, "part 2 (at byte"},
      {"no Content-Disposition", "--AaB03x\r\nContent-Type: text/SECRET\r\n\r\nx\r\n--AaB03x--",
       StatusCode::kInvalidArgument, "part 1 (at byte 10): no Content-Disposition header"},
      {"no headers", "--AaB03x\r\n\r\nSECRET\r\n--AaB03x--", StatusCode::kInvalidArgument, "no Content-Disposition"},
      {"attachment", "--AaB03x\r\nContent-Disposition: attachment; name=\"SECRET\"\r\n\r\nx\r\n--AaB03x--",
       StatusCode::kInvalidArgument, "type is not form-data"},
      {"no name", "--AaB03x\r\nContent-Disposition: form-data; filename=\"SECRET\"\r\n\r\nx\r\n--AaB03x--",
       StatusCode::kInvalidArgument, "has no name parameter"},
      {"name twice", "--AaB03x\r\nContent-Disposition: form-data; name=a; name=\"SECRET\"\r\n\r\nx\r\n--AaB03x--",
       StatusCode::kInvalidArgument, "'name' is given twice"},
      {"Content-Disposition twice", "--AaB03x\r\n" + cd + cd + "\r\nx\r\n--AaB03x--", StatusCode::kInvalidArgument,
       "content-disposition is given twice"},
      {"unterminated quote", "--AaB03x\r\nContent-Disposition: form-data; name=\"SECRET\r\n\r\nx\r\n--AaB03x--",
       StatusCode::kInvalidArgument, "does not end"},
      {"header without colon", "--AaB03x\r\n" + cd + "SECRET header\r\n\r\nx\r\n--AaB03x--",
       StatusCode::kInvalidArgument, "header line 2 is not 'Name: value'"},
      {"NUL in a header", "--AaB03x\r\nContent-Disposition: form-data; name=\"SEC" + std::string(1, '\0') +
                              "RET\"\r\n\r\nx\r\n--AaB03x--",
       StatusCode::kInvalidArgument, "header line 1 holds a control character (0x00)"},
      {"bare CR in a header", "--AaB03x\r\nContent-Disposition: form-data; name=\"SECRET\"\rX: y\r\n\r\nx\r\n--AaB03x--",
       StatusCode::kInvalidArgument, "control character (0x0d)"},
      {"a fold with nothing before", "--AaB03x\r\n " + cd + "\r\nx\r\n--AaB03x--", StatusCode::kInvalidArgument,
       "starts with white space"},
      // RFC 7578 4.7's own example: quoted-printable is deprecated and not decoded here.
      {"quoted-printable", "--AaB03x\r\ncontent-disposition: form-data; name=\"field1\"\r\n"
                           "content-type: text/plain;charset=UTF-8\r\n"
                           "content-transfer-encoding: quoted-printable\r\n\r\nJoe owes =E2=82=AC100.\r\n--AaB03x--",
       StatusCode::kInvalidArgument, "Content-Transfer-Encoding other than 7bit"},
  };
  for (const Hostile& c : cases) {
    Result<std::vector<FormPart>> parts = ParseMultipart(kAaB03x, c.body);
    ASSERT_FALSE(parts.ok()) << c.what;
    EXPECT_EQ(parts.status().code(), c.code) << c.what << ": " << parts.status().ToString();
    EXPECT_THAT(parts.status().message(), HasSubstr(c.message)) << c.what;
    EXPECT_THAT(parts.status().message(), Not(HasSubstr("SECRET"))) << c.what;
    EXPECT_THAT(parts.status().message(), Not(HasSubstr("AaB03x"))) << c.what;  // nor the boundary
  }
}

TEST(ServerMultipartTest, AHugeHeaderBlockIsALimitNotAScan) {
  const MultipartLimits limits{.max_header_bytes = 100};
  const std::string header = "Content-Disposition: form-data; name=\"a\"\r\nX-Pad: ";
  // Exactly at the limit: accepted.
  std::string at_limit = header + std::string(100 - header.size(), 'p');
  ASSERT_EQ(at_limit.size(), 100u);
  Result<std::vector<FormPart>> ok =
      ParseMultipart(kAaB03x, "--AaB03x\r\n" + at_limit + "\r\n\r\nv\r\n--AaB03x--", limits);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0].data, "v");
  // One byte over, and a megabyte of header with no end: refused as a limit.
  for (size_t extra : {size_t{1}, size_t{1} << 20}) {
    Result<std::vector<FormPart>> parts =
        ParseMultipart(kAaB03x, "--AaB03x\r\n" + at_limit + std::string(extra, 'p') + "\r\n\r\nv\r\n--AaB03x--", limits);
    ASSERT_FALSE(parts.ok());
    EXPECT_EQ(parts.status().code(), StatusCode::kResourceExhausted);
    EXPECT_THAT(parts.status().message(), HasSubstr("part 1 (at byte 10): its headers exceed 100 bytes"));
  }
}

std::string ManyParts(size_t n) {
  std::string body;
  for (size_t i = 0; i < n; ++i) body += "--AaB03x\r\nContent-Disposition: form-data; name=p\r\n\r\n" + std::to_string(i) + "\r\n";
  return body + "--AaB03x--\r\n";
}

TEST(ServerMultipartTest, TenThousandPartsMeetThePartLimit) {
  const std::string body = ManyParts(10000);
  Result<std::vector<FormPart>> refused = ParseMultipart(kAaB03x, body);  // default: 100
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.status().message(), HasSubstr("more than 100 parts"));

  Result<std::vector<FormPart>> parts = ParseMultipart(kAaB03x, body, {.max_parts = 10000});
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 10000u);
  EXPECT_EQ(parts->back().data, "9999");

  Result<std::vector<FormPart>> one_short = ParseMultipart(kAaB03x, body, {.max_parts = 9999});
  EXPECT_EQ(one_short.status().code(), StatusCode::kResourceExhausted);
}

TEST(ServerMultipartTest, TheTotalSizeIsCheckedFirst) {
  Result<std::vector<FormPart>> parts = ParseMultipart("text/plain", std::string(1001, 'x'), {.max_total_bytes = 1000});
  ASSERT_FALSE(parts.ok());
  EXPECT_EQ(parts.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(parts.status().message(), HasSubstr("1001 bytes; the limit is 1000"));
  EXPECT_TRUE(ParseMultipart(kAaB03x, kRfcExample, {.max_total_bytes = kRfcExample.size()}).ok());
}

TEST(ServerMultipartTest, SafeUploadNameKeepsABasenameOnly) {
  EXPECT_EQ(SafeUploadName(""), "upload");
  EXPECT_EQ(SafeUploadName("report.pdf"), "report.pdf");
  EXPECT_EQ(SafeUploadName("../../etc/passwd"), "passwd");
  EXPECT_EQ(SafeUploadName("C:\\Users\\dr\\scan (1).dcm"), "scan_(1).dcm");
  EXPECT_EQ(SafeUploadName("/"), "upload");
  EXPECT_EQ(SafeUploadName("dir/"), "upload");
  EXPECT_EQ(SafeUploadName(".."), "upload");
  EXPECT_EQ(SafeUploadName("..."), "upload");
  EXPECT_EQ(SafeUploadName("."), "upload");
  EXPECT_EQ(SafeUploadName(".bashrc"), "bashrc");
  EXPECT_EQ(SafeUploadName("a..b...c."), "a.b.c");
  EXPECT_EQ(SafeUploadName(std::string("na\0me\n\x1b[31m.txt", 15)), "na_me_31m.txt");
  EXPECT_EQ(SafeUploadName("r\xc3\xa9sum\xc3\xa9.pdf"), "r_sum_.pdf");
  EXPECT_EQ(SafeUploadName("evil\xe2\x80\xaetxt.exe"), "evil_txt.exe");  // a bidi override
  EXPECT_EQ(SafeUploadName("a b\"c'd;e|f"), "a_b_c_d_e_f");
  EXPECT_EQ(SafeUploadName("._x"), "_x");
}

TEST(ServerMultipartTest, SafeUploadNameCapsTheLengthKeepingTheExtension) {
  const std::string name = SafeUploadName(std::string(300, 'a') + ".dicom");
  EXPECT_EQ(name.size(), kMaxUploadNameBytes);
  EXPECT_EQ(name, std::string(kMaxUploadNameBytes - 6, 'a') + ".dicom");
  // An "extension" longer than 16 bytes is not kept; a cut never leaves a dot at the end.
  EXPECT_EQ(SafeUploadName(std::string(200, 'b')), std::string(kMaxUploadNameBytes, 'b'));
  EXPECT_EQ(SafeUploadName(std::string(127, 'c') + "." + std::string(40, 'd')), std::string(127, 'c'));
  EXPECT_EQ(SafeUploadName(std::string(121, 'e') + "." + std::string(10, 'f') + ".txt"),
            std::string(121, 'e') + "." + std::string(2, 'f') + ".txt");
}

TEST(ServerMultipartTest, SafeUploadNameIsIdempotent) {
  for (const std::string& raw : {std::string("../x"), std::string("..a..b.."), std::string(" . . "),
                                 std::string(400, '.') + "x", std::string(127, 'a') + "..b", std::string("_"),
                                 std::string("a\\b/c:d")}) {
    const std::string once = SafeUploadName(raw);
    EXPECT_EQ(SafeUploadName(once), once) << raw;
    EXPECT_EQ(once.find('/'), std::string::npos);
    EXPECT_NE(once.front(), '.');
  }
}

}  // namespace
}  // namespace medreact::server
