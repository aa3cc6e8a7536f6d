// Image files built in memory for the imaging tests, with libpng's and
// libjpeg-turbo's own encoders: every PNG colour type, bit depth and
// interlacing, and JPEGs in grey, YCbCr (baseline or progressive) and CMYK.
// Inputs are trusted (the tests' own); an encoder error fails the test.
#ifndef MEDREACT_TESTS_TESTING_IMAGE_BUILDERS_H_
#define MEDREACT_TESTS_TESTING_IMAGE_BUILDERS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tools/imaging/image_codec.h"
#include "tools/imaging/image_store.h"

namespace medreact::testing {

struct PngSpec {
  int width = 1;
  int height = 1;
  int color_type = 0;       // PNG_COLOR_TYPE_*: 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA
  int bit_depth = 8;        // 1, 2, 4, 8, 16 as the colour type allows
  bool interlaced = false;  // Adam7
  // Samples row-major, one value per sample (16-bit samples as 0..65535,
  // palette indices as such), packed by the builder.
  std::vector<uint16_t> samples;
  std::vector<uint8_t> palette;  // RGB triples (colour type 3)
  std::vector<uint8_t> trns;     // palette alpha (colour type 3), or empty
};

// A PNG file's bytes, or "" when libpng refused the spec.
std::string BuildPng(const PngSpec& spec);

enum class JpegKind { kGrey, kYCbCr, kProgressive, kCmyk };

// A JPEG file's bytes at `quality` (1..100); `samples` holds width × height ×
// (1 grey, 3 RGB, 4 CMYK) bytes.
std::string BuildJpeg(int width, int height, JpegKind kind, const std::vector<uint8_t>& samples, int quality = 95);

// A one-channel raster of one value.
imaging::Raster GreyRaster(int width, int height, uint8_t value = 0);
// `raster` as PNG bytes by the project's own encoder; "" (and a test
// failure) when it refuses.
std::string EncodeTestPng(const imaging::Raster& raster);
// A grey image as an ImageStore keeps it: id "img1", its raster, PNG and data URL.
imaging::StoredImage GreyStoredImage(int width, int height, uint8_t value);

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_IMAGE_BUILDERS_H_
