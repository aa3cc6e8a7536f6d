// The image codecs (src/tools/imaging/image_codec.h): PNG in every colour type
// and depth, JPEG grey/colour/progressive and CMYK refused, sniffing, the
// size limits before decoding, hostile bytes, downscaling and base64.
#include "testing/build_paths.h"
#include "tools/imaging/image_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "testing/image_builders.h"

namespace medreact::imaging {
namespace {

using testing::BuildJpeg;
using testing::BuildPng;
using testing::JpegKind;
using testing::PngSpec;

const std::string kDicomDir = std::string(MEDREACT_SOURCE_DIR) + "/tests/fixtures/dicom/";

std::string ReadFixture(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

Raster MakeRaster(int width, int height, int channels, uint32_t seed) {
  Raster r{.width = width, .height = height, .channels = channels};
  std::mt19937 rng(seed);
  r.pixels.resize(static_cast<size_t>(width) * height * channels);
  for (auto& p : r.pixels) p = static_cast<uint8_t>(rng() & 0xFF);
  return r;
}

std::vector<uint16_t> Samples(const Raster& r) { return {r.pixels.begin(), r.pixels.end()}; }

Raster DecodeOk(const std::string& png) {
  Result<Raster> r = DecodePng(png, "test.png");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : Raster{};
}

// A PNG whose IHDR says width × height, followed by a small IDAT that is not
// that image: the refusal must come from the header alone.
std::string PngHeaderOnly(uint32_t width, uint32_t height) {
  std::string png = BuildPng({.width = 2, .height = 2, .color_type = 0, .bit_depth = 8, .samples = {1, 2, 3, 4}});
  for (int i = 0; i < 4; ++i) {
    png[16 + i] = static_cast<char>((width >> (24 - 8 * i)) & 0xFF);
    png[20 + i] = static_cast<char>((height >> (24 - 8 * i)) & 0xFF);
  }
  return png;
}

TEST(ImageCodecTest, RasterValidAndNames) {
  EXPECT_TRUE((Raster{.width = 2, .height = 1, .channels = 3, .pixels = std::vector<uint8_t>(6)}).valid());
  EXPECT_FALSE((Raster{.width = 2, .height = 1, .channels = 3, .pixels = std::vector<uint8_t>(5)}).valid());
  EXPECT_FALSE((Raster{.width = 1, .height = 1, .channels = 2, .pixels = std::vector<uint8_t>(2)}).valid());
  EXPECT_FALSE((Raster{.width = 0, .height = 1, .channels = 1}).valid());
  EXPECT_FALSE(Raster{}.valid());
  EXPECT_STREQ(ImageFormatName(ImageFormat::kPng), "png");
  EXPECT_STREQ(ImageFormatName(ImageFormat::kJpeg), "jpeg");
  EXPECT_STREQ(ImageFormatName(ImageFormat::kDicom), "dicom");
  EXPECT_STREQ(ImageFormatName(ImageFormat::kUnknown), "unknown");
}

TEST(ImageCodecTest, PngRoundTripsGreyAndRgb) {
  for (int channels : {1, 3}) {
    Raster in = MakeRaster(37, 23, channels, 7u + channels);
    Result<std::string> png = EncodePng(in);
    ASSERT_TRUE(png.ok()) << png.status().message();
    Raster out = DecodeOk(*png);
    EXPECT_EQ(out.width, 37);
    EXPECT_EQ(out.height, 23);
    EXPECT_EQ(out.channels, channels);
    EXPECT_EQ(out.pixels, in.pixels);
  }
  EXPECT_FALSE(EncodePng(Raster{.width = 3, .height = 3, .channels = 1, .pixels = {1, 2}}).ok());
}

TEST(ImageCodecTest, Png16BitIsScaledToEightBits) {
  // v * 255 / 65535 rounded: 0 → 0, 257 → 1, 32896 (128 × 257) → 128, 65535 → 255, 384 → 1 (1.49).
  std::string png = BuildPng({.width = 5, .height = 1, .color_type = 0, .bit_depth = 16,
                              .samples = {0, 257, 32896, 65535, 384}});
  ASSERT_FALSE(png.empty());
  Raster out = DecodeOk(png);
  EXPECT_EQ(out.channels, 1);
  EXPECT_EQ(out.pixels, (std::vector<uint8_t>{0, 1, 128, 255, 1}));

  std::string rgb = BuildPng({.width = 1, .height = 1, .color_type = 2, .bit_depth = 16,
                              .samples = {65535, 32896, 0}});
  EXPECT_EQ(DecodeOk(rgb).pixels, (std::vector<uint8_t>{255, 128, 0}));
}

TEST(ImageCodecTest, PngLowBitDepthGreyIsExpanded) {
  Raster one = DecodeOk(BuildPng({.width = 3, .height = 1, .color_type = 0, .bit_depth = 1, .samples = {0, 1, 0}}));
  EXPECT_EQ(one.pixels, (std::vector<uint8_t>{0, 255, 0}));
  Raster two = DecodeOk(BuildPng({.width = 4, .height = 1, .color_type = 0, .bit_depth = 2, .samples = {0, 1, 2, 3}}));
  EXPECT_EQ(two.pixels, (std::vector<uint8_t>{0, 85, 170, 255}));
}

TEST(ImageCodecTest, PngPaletteIsExpandedAndTransparencyCompositedOnBlack) {
  PngSpec spec{.width = 4, .height = 1, .color_type = 3, .bit_depth = 8, .samples = {0, 1, 2, 3},
               .palette = {10, 20, 30, 200, 100, 50, 255, 255, 255, 0, 0, 255}};
  Raster opaque = DecodeOk(BuildPng(spec));
  EXPECT_EQ(opaque.channels, 3);
  EXPECT_EQ(opaque.pixels, (std::vector<uint8_t>{10, 20, 30, 200, 100, 50, 255, 255, 255, 0, 0, 255}));
  // Index 1 fully transparent, index 2 half (128): 255 × 128 / 255 = 128.
  spec.trns = {255, 0, 128};
  Raster composited = DecodeOk(BuildPng(spec));
  EXPECT_EQ(composited.channels, 3);
  EXPECT_EQ(composited.pixels, (std::vector<uint8_t>{10, 20, 30, 0, 0, 0, 128, 128, 128, 0, 0, 255}));
  // A 4-bit palette.
  spec.bit_depth = 4;
  spec.trns.clear();
  EXPECT_EQ(DecodeOk(BuildPng(spec)).pixels, opaque.pixels);
}

TEST(ImageCodecTest, PngAlphaIsCompositedOnBlack) {
  // (v × a + 127) / 255: 200 × 128 → 100, 255 × 255 → 255, anything × 0 → 0.
  Raster grey = DecodeOk(BuildPng({.width = 3, .height = 1, .color_type = 4, .bit_depth = 8,
                                   .samples = {200, 128, 255, 255, 77, 0}}));
  EXPECT_EQ(grey.channels, 1);
  EXPECT_EQ(grey.pixels, (std::vector<uint8_t>{100, 255, 0}));
  Raster rgba = DecodeOk(BuildPng({.width = 2, .height = 1, .color_type = 6, .bit_depth = 8,
                                   .samples = {200, 100, 50, 128, 1, 2, 3, 255}}));
  EXPECT_EQ(rgba.channels, 3);
  EXPECT_EQ(rgba.pixels, (std::vector<uint8_t>{100, 50, 25, 1, 2, 3}));
  // 16-bit RGBA: scaled to 8 bits first, then composited.
  Raster deep = DecodeOk(BuildPng({.width = 1, .height = 1, .color_type = 6, .bit_depth = 16,
                                   .samples = {65535, 32896, 0, 32896}}));
  EXPECT_EQ(deep.pixels, (std::vector<uint8_t>{128, 64, 0}));
}

TEST(ImageCodecTest, InterlacedPngGivesTheSamePixels) {
  for (int color_type : {0, 2}) {
    const int channels = color_type == 0 ? 1 : 3;
    Raster in = MakeRaster(19, 13, channels, 99u + color_type);  // not a multiple of Adam7's 8 × 8
    PngSpec spec{.width = 19, .height = 13, .color_type = color_type, .bit_depth = 8, .samples = Samples(in)};
    spec.interlaced = true;
    const std::string png = BuildPng(spec);
    ASSERT_FALSE(png.empty());
    EXPECT_EQ(png[28], 1) << "IHDR interlace method";
    EXPECT_EQ(DecodeOk(png).pixels, in.pixels);
  }
}

std::vector<uint8_t> Gradient(int width, int height, int channels) {
  std::vector<uint8_t> out;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < channels; ++c) out.push_back(static_cast<uint8_t>((x * 4 + y * 2 + c * 40) % 256));
    }
  }
  return out;
}

int MaxDifference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  int worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) worst = std::max(worst, std::abs(int{a[i]} - int{b[i]}));
  return a.size() == b.size() ? worst : 256;
}

TEST(ImageCodecTest, JpegDecodesGreyColourAndProgressive) {
  const std::vector<uint8_t> grey = Gradient(40, 24, 1);
  const std::string grey_jpeg = BuildJpeg(40, 24, JpegKind::kGrey, grey, 100);
  Result<ImageSize> size = PeekJpegSize(grey_jpeg);
  ASSERT_TRUE(size.ok()) << size.status().message();
  EXPECT_EQ(size->width, 40);
  EXPECT_EQ(size->height, 24);
  Result<Raster> g = DecodeJpeg(grey_jpeg, "grey.jpg");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->channels, 1);
  EXPECT_TRUE(g->valid());
  EXPECT_LE(MaxDifference(g->pixels, grey), 3);  // quality 100: within rounding of the DCT

  const std::vector<uint8_t> rgb = Gradient(33, 17, 3);
  for (JpegKind kind : {JpegKind::kYCbCr, JpegKind::kProgressive}) {
    Result<Raster> c = DecodeJpeg(BuildJpeg(33, 17, kind, rgb, 100), "colour.jpg");
    ASSERT_TRUE(c.ok()) << c.status().message();
    EXPECT_EQ(c->width, 33);
    EXPECT_EQ(c->height, 17);
    EXPECT_EQ(c->channels, 3);
    EXPECT_LE(MaxDifference(c->pixels, rgb), 12);  // 4:2:0 chroma subsampling of a colour ramp
  }
}

TEST(ImageCodecTest, CmykJpegIsRefused) {
  const std::string cmyk = BuildJpeg(8, 8, JpegKind::kCmyk, std::vector<uint8_t>(8 * 8 * 4, 100));
  Result<Raster> r = DecodeJpeg(cmyk, "print.jpg");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("print.jpg"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("CMYK"), std::string::npos) << r.status().message();
}

TEST(ImageCodecTest, SniffsByContent) {
  EXPECT_EQ(SniffFormat(*EncodePng(MakeRaster(2, 2, 1, 1))), ImageFormat::kPng);
  EXPECT_EQ(SniffFormat(BuildJpeg(8, 8, JpegKind::kGrey, std::vector<uint8_t>(64, 9))), ImageFormat::kJpeg);
  // CT_small.dcm has the preamble and "DICM"; CR-MONO1-10-chest.dcm is a bare
  // implicit-VR dataset starting with (0008,0000).
  EXPECT_EQ(SniffFormat(ReadFixture(kDicomDir + "CT_small.dcm")), ImageFormat::kDicom);
  EXPECT_EQ(SniffFormat(ReadFixture(kDicomDir + "CR-MONO1-10-chest.dcm")), ImageFormat::kDicom);
  // A bare explicit-VR element: (0008,0016) UI.
  EXPECT_EQ(SniffFormat(std::string("\x08\x00\x16\x00UI\x04\x00" "1.2\0", 12)), ImageFormat::kDicom);
  std::string preamble(128, '\0');
  EXPECT_EQ(SniffFormat(preamble + "DICM"), ImageFormat::kDicom);
  EXPECT_EQ(SniffFormat(preamble + "DICX"), ImageFormat::kUnknown);
  EXPECT_EQ(SniffFormat("Patient is a 54-year-old man with chest pain."), ImageFormat::kUnknown);
  EXPECT_EQ(SniffFormat(""), ImageFormat::kUnknown);
  EXPECT_EQ(SniffFormat("\x89PNG"), ImageFormat::kUnknown);  // a cut signature
  EXPECT_EQ(SniffFormat(std::string("\xFF\xD8", 2)), ImageFormat::kUnknown);
  EXPECT_EQ(SniffFormat("%PDF-1.7\n"), ImageFormat::kUnknown);
}

TEST(ImageCodecTest, PeeksSizesWithoutDecoding) {
  Result<ImageSize> png = PeekPngSize(PngHeaderOnly(640, 480));
  ASSERT_TRUE(png.ok());
  EXPECT_EQ(png->width, 640);
  EXPECT_EQ(png->height, 480);
  EXPECT_FALSE(PeekPngSize(PngHeaderOnly(640, 480).substr(0, 20)).ok());
  EXPECT_FALSE(PeekPngSize("GIF89a").ok());
  EXPECT_FALSE(PeekPngSize(PngHeaderOnly(0, 5)).ok());
  EXPECT_FALSE(PeekPngSize(PngHeaderOnly(0x80000000u, 5)).ok());
  const std::string jpeg = BuildJpeg(300, 200, JpegKind::kProgressive, Gradient(300, 200, 3));
  Result<ImageSize> j = PeekJpegSize(jpeg);
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(j->width, 300);
  EXPECT_EQ(j->height, 200);
  EXPECT_FALSE(PeekJpegSize(jpeg.substr(0, 4)).ok());
  EXPECT_FALSE(PeekJpegSize(std::string("\xFF\xD8\xFF\xD9", 4)).ok());
  EXPECT_FALSE(PeekJpegSize("not a jpeg").ok());
}

TEST(ImageCodecTest, HugePngIsRefusedBeforeDecoding) {
  // 20,000 × 20,000 in a ~70-byte file: the IDAT that follows is a 2 × 2 image.
  const std::string huge = PngHeaderOnly(20000, 20000);
  ASSERT_LT(huge.size(), 200u);
  Result<Raster> r = DecodePng(huge, "huge.png");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  const std::string m = r.status().message();
  EXPECT_NE(m.find("huge.png"), std::string::npos) << m;
  EXPECT_NE(m.find("20000x20000"), std::string::npos) << m;
  EXPECT_NE(m.find("16384"), std::string::npos) << m;
  // Within the side limit but over the pixel count: 12,000 × 9,000 = 1.08·10^8.
  Result<Raster> many = DecodePng(PngHeaderOnly(12000, 9000), "many.png");
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.status().message().find("100000000"), std::string::npos) << many.status().message();
  // Limits are the caller's.
  EXPECT_FALSE(DecodePng(*EncodePng(MakeRaster(64, 8, 1, 3)), "x.png", {.max_side = 32}).ok());
  EXPECT_TRUE(DecodePng(*EncodePng(MakeRaster(64, 8, 1, 3)), "x.png", {.max_side = 64}).ok());
}

TEST(ImageCodecTest, HugeJpegIsRefusedBeforeDecoding) {
  std::string jpeg = BuildJpeg(16, 16, JpegKind::kGrey, std::vector<uint8_t>(256, 50));
  // Rewrite the SOF0 frame header's Y and X to 20000.
  const size_t sof = jpeg.find("\xFF\xC0");
  ASSERT_NE(sof, std::string::npos);
  for (size_t at : {sof + 5, sof + 7}) {
    jpeg[at] = static_cast<char>(20000 >> 8);
    jpeg[at + 1] = static_cast<char>(20000 & 0xFF);
  }
  Result<Raster> r = DecodeJpeg(jpeg, "huge.jpg");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("20000x20000"), std::string::npos) << r.status().message();
}

// Every 7th prefix and bytes flipped throughout: a Status or a valid raster,
// never a crash (ASan and UBSan builds run this too).
void ExpectNeverCrashes(const std::string& file, bool png) {
  auto decode = [png](const std::string& bytes) {
    return png ? DecodePng(bytes, "hostile") : DecodeJpeg(bytes, "hostile");
  };
  for (size_t cut = 0; cut < file.size(); cut += 7) {
    Result<Raster> r = decode(file.substr(0, cut));
    if (r.ok()) {
      EXPECT_TRUE(r->valid()) << "prefix " << cut;
    }
  }
  for (size_t i = 0; i < file.size(); ++i) {
    for (uint8_t mask : {0xFF, 0x01, 0x80}) {
      std::string bad = file;
      bad[i] = static_cast<char>(bad[i] ^ mask);
      Result<Raster> r = decode(bad);
      if (r.ok()) {
        EXPECT_TRUE(r->valid()) << "byte " << i << " ^ " << int{mask};
      }
    }
  }
}

TEST(ImageCodecTest, TruncatedAndCorruptFilesNeverCrash) {
  PngSpec spec{.width = 9, .height = 7, .color_type = 6, .bit_depth = 8,
               .samples = Samples(MakeRaster(9, 7 * 4, 1, 5))};
  spec.samples.resize(9 * 7 * 4);
  ExpectNeverCrashes(BuildPng(spec), true);
  spec.interlaced = true;
  ExpectNeverCrashes(BuildPng(spec), true);
  ExpectNeverCrashes(BuildJpeg(16, 16, JpegKind::kYCbCr, Gradient(16, 16, 3)), false);
  ExpectNeverCrashes(BuildJpeg(16, 16, JpegKind::kProgressive, Gradient(16, 16, 3)), false);
}

TEST(ImageCodecTest, TruncatedFilesAreNamedAsSuch) {
  const std::string png = *EncodePng(MakeRaster(64, 64, 3, 11));  // random pixels: a large IDAT
  Result<Raster> p = DecodePng(png.substr(0, png.size() / 2), "cut.png");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("cut.png"), std::string::npos) << p.status().message();
  EXPECT_NE(p.status().message().find("truncated"), std::string::npos) << p.status().message();
  const std::string jpeg = BuildJpeg(64, 64, JpegKind::kYCbCr, Gradient(64, 64, 3));
  Result<Raster> j = DecodeJpeg(jpeg.substr(0, jpeg.size() / 2), "cut.jpg");
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find("truncated"), std::string::npos) << j.status().message();
  EXPECT_FALSE(DecodePng("", "empty.png").ok());
  EXPECT_FALSE(DecodeJpeg("", "empty.jpg").ok());
}

TEST(ImageCodecTest, DownscaleAveragesExactly) {
  // 4 × 4 → 2 × 2: each output pixel is the mean of a 2 × 2 block.
  Raster in{.width = 4, .height = 4, .channels = 1,
            .pixels = {0, 2, 10, 10,  //
                       4, 6, 10, 10,  //
                       100, 100, 1, 2,  //
                       100, 100, 3, 5}};
  Raster out = Downscale(in, 2);
  ASSERT_EQ(out.width, 2);
  ASSERT_EQ(out.height, 2);
  EXPECT_EQ(out.pixels, (std::vector<uint8_t>{3, 10, 100, 3}));  // 11/4 = 2.75 → 3
  // A non-integer factor weighs partial pixels: 3 → 2 covers [0, 1.5) and [1.5, 3).
  Raster row{.width = 3, .height = 1, .channels = 1, .pixels = {0, 90, 180}};
  EXPECT_EQ(Downscale(row, 2).pixels, (std::vector<uint8_t>{30, 150}));
  // RGB channels stay apart; a constant image stays constant at any factor.
  Raster rgb{.width = 5, .height = 3, .channels = 3};
  for (int i = 0; i < 15; ++i) rgb.pixels.insert(rgb.pixels.end(), {200, 7, 64});
  Raster small = Downscale(rgb, 3);
  ASSERT_TRUE(small.valid());
  EXPECT_EQ(small.width, 3);
  EXPECT_EQ(small.height, 2);  // 3 × 3 / 5 = 1.8 → 2
  for (size_t i = 0; i < small.pixels.size(); i += 3) {
    EXPECT_EQ(small.pixels[i], 200);
    EXPECT_EQ(small.pixels[i + 1], 7);
    EXPECT_EQ(small.pixels[i + 2], 64);
  }
}

TEST(ImageCodecTest, DownscaleSizes) {
  auto size_of = [](int w, int h, int max) {
    Raster r = Downscale(Raster{.width = w, .height = h, .channels = 1,
                                .pixels = std::vector<uint8_t>(static_cast<size_t>(w) * h, 1)},
                         max);
    EXPECT_TRUE(r.valid());
    return std::pair<int, int>(r.width, r.height);
  };
  // The 1576 × 1976 chest radiograph: 1576 × 1024 / 1976 = 816.6 → 817.
  EXPECT_EQ(size_of(1576, 1976, 1024), std::make_pair(817, 1024));
  EXPECT_EQ(size_of(1976, 1576, 1024), std::make_pair(1024, 817));
  EXPECT_EQ(size_of(2048, 3, 1024), std::make_pair(1024, 2));  // 1.5: halves round up
  EXPECT_EQ(size_of(2048, 1, 1024), std::make_pair(1024, 1));  // 0.5 → 1
  EXPECT_EQ(size_of(5000, 2, 1024), std::make_pair(1024, 1));  // 0.41: at least 1
  EXPECT_EQ(size_of(1024, 1024, 1024), std::make_pair(1024, 1024));
  EXPECT_EQ(size_of(300, 200, 1024), std::make_pair(300, 200));  // never enlarged
  EXPECT_EQ(size_of(3000, 2000, 0), std::make_pair(3000, 2000));  // <= 0: as is
}

TEST(ImageCodecTest, ToRgbCopiesGrey) {
  Raster grey{.width = 2, .height = 1, .channels = 1, .pixels = {9, 200}};
  Raster rgb = ToRgb(grey);
  EXPECT_EQ(rgb.channels, 3);
  EXPECT_EQ(rgb.pixels, (std::vector<uint8_t>{9, 9, 9, 200, 200, 200}));
  EXPECT_EQ(ToRgb(rgb).pixels, rgb.pixels);
}

TEST(ImageCodecTest, Base64Rfc4648Vectors) {
  // RFC 4648 §10.
  const std::vector<std::pair<std::string, std::string>> vectors = {
      {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(Base64Encode(plain), encoded);
    Result<std::string> decoded = Base64Decode(encoded);
    ASSERT_TRUE(decoded.ok()) << encoded;
    EXPECT_EQ(*decoded, plain);
    std::string bare = encoded;
    bare.erase(std::remove(bare.begin(), bare.end(), '='), bare.end());
    EXPECT_EQ(Base64Decode(bare).value_or("?"), plain) << "without padding: " << bare;
  }
  EXPECT_EQ(Base64Decode(" Zm9v\r\nYmFy\t").value_or("?"), "foobar");
  EXPECT_FALSE(Base64Decode("Zm9v!").ok());
  EXPECT_FALSE(Base64Decode("Zm9v-_").ok());  // the URL-safe alphabet is another encoding
  EXPECT_FALSE(Base64Decode("Z").ok());
  EXPECT_FALSE(Base64Decode("Zg==Zg==").ok());
  EXPECT_FALSE(Base64Decode("Zg===").ok());
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  EXPECT_EQ(Base64Decode(Base64Encode(all)).value_or("?"), all);
}

}  // namespace
}  // namespace medreact::imaging
