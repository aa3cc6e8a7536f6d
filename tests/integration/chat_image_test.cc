// `medreact chat --image` through the binary and the scripted model server:
// the image reaches the wire as one image_url part (a PNG data URL,
// downscaled), the same bytes in every turn of the run, and a bad --image is
// exit 2 before any request.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "testing/build_paths.h"
#include "medreact/json.h"
#include "testing/image_builders.h"
#include "testing/subprocess.h"
#include "tools/imaging/image_codec.h"

namespace medreact {
namespace {

using testing::MockLlmProcess;
using testing::RunCommand;
using testing::TempDir;

constexpr char kPrefix[] = "data:image/png;base64,";

const char kAnswer[] = R"({"responses": [{"message": {"content": "No pneumothorax is visible."}}]})";
const char kCalcThenAnswer[] = R"({"responses": [
  {"message": {"content": null, "tool_calls": [{"id": "call_1", "name": "calculator",
                                                "arguments": "{\"expression\": \"1576/1976\"}"}]}},
  {"message": {"content": "The aspect ratio is about 0.8."}}
]})";

// A 1576 × 1976 grey PNG (the size of a chest radiograph) with a gradient.
std::string WriteRadiograph(const TempDir& dir) {
  imaging::Raster r{.width = 1576, .height = 1976, .channels = 1};
  r.pixels.resize(size_t{1576} * 1976);
  for (int y = 0; y < r.height; ++y) {
    for (int x = 0; x < r.width; ++x) {
      r.pixels[static_cast<size_t>(y) * r.width + x] = static_cast<uint8_t>((x + y) / 16);
    }
  }
  dir.Write("cxr.png", *imaging::EncodePng(r));
  return dir.File("cxr.png");
}

// The image_url parts of the user messages of one recorded request.
std::vector<std::string> ImageUrls(const std::string& request_line) {
  std::vector<std::string> urls;
  Result<Json> request = ParseJson(request_line);
  EXPECT_TRUE(request.ok());
  if (!request.ok()) return urls;
  for (const Json& message : (*request)["body"]["messages"]) {
    if (message["role"] != "user" || !message["content"].is_array()) continue;
    for (const Json& part : message["content"]) {
      if (part["type"] == "image_url") urls.push_back(part["image_url"]["url"].get<std::string>());
    }
  }
  return urls;
}

imaging::Raster DecodeUrl(const std::string& url) {
  EXPECT_EQ(url.rfind(kPrefix, 0), 0u) << url.substr(0, 40);
  Result<std::string> png = imaging::Base64Decode(std::string_view(url).substr(sizeof kPrefix - 1));
  EXPECT_TRUE(png.ok());
  Result<imaging::Raster> raster = imaging::DecodePng(png.value_or(""), "sent image");
  EXPECT_TRUE(raster.ok()) << raster.status().message();
  return raster.ok() ? *raster : imaging::Raster{};
}

TEST(ChatImageTest, TheImageGoesOutAsOneDownscaledPngPart) {
  MockLlmProcess mock(kAnswer);
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  auto r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--model", "vision", "--image",
                       WriteRadiograph(dir), "Is there a pneumothorax?"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "No pneumothorax is visible.\n");
  const std::vector<std::string> lines = mock.request_lines();
  ASSERT_EQ(lines.size(), 1u);
  const std::vector<std::string> urls = ImageUrls(lines[0]);
  ASSERT_EQ(urls.size(), 1u);
  const imaging::Raster sent = DecodeUrl(urls[0]);
  EXPECT_EQ(sent.width, 817);  // 1576 × 1024 / 1976, rounded
  EXPECT_EQ(sent.height, 1024);
  EXPECT_LE(std::max(sent.width, sent.height), 1024);
  // The question is a text part of the same user message.
  const Json body = ParseJson(lines[0]).value()["body"];
  EXPECT_NE(body.dump().find("Is there a pneumothorax?"), std::string::npos);
}

TEST(ChatImageTest, EveryTurnSendsTheSameImageBytes) {
  MockLlmProcess mock(kCalcThenAnswer);
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  auto r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--tools", "util", "--image",
                       WriteRadiograph(dir), "--image", std::string(MEDREACT_SOURCE_DIR) +
                       "/tests/fixtures/dicom/CT_small.dcm", "--image-max-side", "512", "Compare these."});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = mock.request_lines();
  ASSERT_EQ(lines.size(), 2u);
  const std::vector<std::string> first = ImageUrls(lines[0]);
  const std::vector<std::string> second = ImageUrls(lines[1]);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first, second) << "the second turn re-sends the first turn's bytes";
  const imaging::Raster cxr = DecodeUrl(first[0]);
  EXPECT_EQ(cxr.height, 512);
  EXPECT_EQ(cxr.width, 408);  // 1576 × 512 / 1976 = 408.4
  const imaging::Raster ct = DecodeUrl(first[1]);  // DICOM, 128 × 128: as is
  EXPECT_EQ(ct.width, 128);
  EXPECT_EQ(ct.height, 128);
}

TEST(ChatImageTest, BadImagesAreExitTwoBeforeAnyRequest) {
  MockLlmProcess mock(kAnswer);
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  dir.Write("notes.txt", "Not an image at all.\n");
  auto text = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--image", dir.File("notes.txt"),
                          "What does this show?"});
  EXPECT_EQ(text.exit_code, 2) << text.err;
  EXPECT_NE(text.err.find("not a PNG, JPEG or DICOM image"), std::string::npos) << text.err;
  EXPECT_NE(text.err.find("notes.txt"), std::string::npos) << text.err;

  auto missing = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--image",
                             dir.File("absent.png"), "What does this show?"});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("absent.png"), std::string::npos) << missing.err;

  std::string huge = *imaging::EncodePng(imaging::Raster{.width = 2, .height = 2, .channels = 1,
                                                         .pixels = {1, 2, 3, 4}});
  for (int i = 0; i < 4; ++i) huge[16 + i] = huge[20 + i] = static_cast<char>((20000u >> (24 - 8 * i)) & 0xFF);
  dir.Write("huge.png", huge);
  auto refused = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--image",
                             dir.File("huge.png"), "What does this show?"});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("20000x20000"), std::string::npos) << refused.err;

  EXPECT_TRUE(mock.request_lines().empty()) << "no model call for a refused image";
}

TEST(ChatImageTest, JpegImagesAreSentAsPng) {
  MockLlmProcess mock(kAnswer);
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  std::vector<uint8_t> grey(64 * 48);
  for (size_t i = 0; i < grey.size(); ++i) grey[i] = static_cast<uint8_t>(i % 64 * 4);
  dir.Write("film.jpg", testing::BuildJpeg(64, 48, testing::JpegKind::kGrey, grey));
  auto r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--image", dir.File("film.jpg"), "q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> urls = ImageUrls(mock.request_lines().at(0));
  ASSERT_EQ(urls.size(), 1u);
  const imaging::Raster sent = DecodeUrl(urls[0]);
  EXPECT_EQ(sent.width, 64);
  EXPECT_EQ(sent.height, 48);
  EXPECT_EQ(sent.channels, 1);
}

}  // namespace
}  // namespace medreact
