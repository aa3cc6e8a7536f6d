#include "testing/image_builders.h"

#include <gtest/gtest.h>
#include <jpeglib.h>
#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace medreact::testing {
namespace {

void AppendPng(png_structp png, png_bytep data, size_t length) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), length);
}
void FlushPng(png_structp) {}

int Channels(int color_type) {
  switch (color_type) {
    case PNG_COLOR_TYPE_RGB:
      return 3;
    case PNG_COLOR_TYPE_GRAY_ALPHA:
      return 2;
    case PNG_COLOR_TYPE_RGB_ALPHA:
      return 4;
    default:
      return 1;
  }
}

// The setjmp frame holds no object with a destructor: `out` and `rows` are
// the caller's.
bool WritePng(const PngSpec& spec, std::string* out, png_bytep* rows) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png != nullptr ? png_create_info_struct(png) : nullptr;
  if (info == nullptr || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, out, AppendPng, FlushPng);
  png_set_IHDR(png, info, static_cast<png_uint_32>(spec.width), static_cast<png_uint_32>(spec.height), spec.bit_depth,
               spec.color_type, spec.interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (spec.color_type == PNG_COLOR_TYPE_PALETTE) {
    png_set_PLTE(png, info, reinterpret_cast<png_const_colorp>(spec.palette.data()),
                 static_cast<int>(spec.palette.size() / 3));
    if (!spec.trns.empty()) {
      png_set_tRNS(png, info, spec.trns.data(), static_cast<int>(spec.trns.size()), nullptr);
    }
  }
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

std::string BuildPng(const PngSpec& spec) {
  const int channels = Channels(spec.color_type);
  const size_t row_bits = static_cast<size_t>(spec.width) * channels * spec.bit_depth;
  const size_t row_bytes = (row_bits + 7) / 8;
  std::vector<uint8_t> packed(row_bytes * spec.height, 0);
  std::vector<png_bytep> rows(static_cast<size_t>(spec.height));
  for (int y = 0; y < spec.height; ++y) {
    uint8_t* row = packed.data() + y * row_bytes;
    rows[static_cast<size_t>(y)] = row;
    for (int i = 0; i < spec.width * channels; ++i) {
      const uint16_t v = spec.samples.at(static_cast<size_t>(y) * spec.width * channels + i);
      if (spec.bit_depth == 16) {
        row[2 * i] = static_cast<uint8_t>(v >> 8);
        row[2 * i + 1] = static_cast<uint8_t>(v & 0xFF);
      } else if (spec.bit_depth == 8) {
        row[i] = static_cast<uint8_t>(v);
      } else {  // packed, most significant bits first
        const size_t bit = static_cast<size_t>(i) * spec.bit_depth;
        row[bit / 8] |= static_cast<uint8_t>(v << (8 - spec.bit_depth - bit % 8));
      }
    }
  }
  std::string out;
  return WritePng(spec, &out, rows.data()) ? out : std::string();
}

std::string BuildJpeg(int width, int height, JpegKind kind, const std::vector<uint8_t>& samples, int quality) {
  jpeg_compress_struct cinfo;
  jpeg_error_mgr error;
  cinfo.err = jpeg_std_error(&error);  // the default error_exit ends the process: test inputs are valid
  jpeg_create_compress(&cinfo);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&cinfo, &buffer, &size);
  cinfo.image_width = static_cast<JDIMENSION>(width);
  cinfo.image_height = static_cast<JDIMENSION>(height);
  cinfo.input_components = kind == JpegKind::kGrey ? 1 : kind == JpegKind::kCmyk ? 4 : 3;
  cinfo.in_color_space = kind == JpegKind::kGrey ? JCS_GRAYSCALE : kind == JpegKind::kCmyk ? JCS_CMYK : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  if (kind == JpegKind::kProgressive) jpeg_simple_progression(&cinfo);
  jpeg_start_compress(&cinfo, TRUE);
  const size_t row_bytes = static_cast<size_t>(width) * cinfo.input_components;
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(samples.data() + cinfo.next_scanline * row_bytes);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  std::string out(reinterpret_cast<const char*>(buffer), size);
  std::free(buffer);
  return out;
}

imaging::Raster GreyRaster(int width, int height, uint8_t value) {
  return imaging::Raster{.width = width,
                         .height = height,
                         .channels = 1,
                         .pixels = std::vector<uint8_t>(static_cast<size_t>(width) * height, value)};
}

std::string EncodeTestPng(const imaging::Raster& raster) {
  Result<std::string> png = imaging::EncodePng(raster);
  EXPECT_TRUE(png.ok()) << png.status().ToString();
  return png.ok() ? *png : "";
}

imaging::StoredImage GreyStoredImage(int width, int height, uint8_t value) {
  imaging::StoredImage image;
  image.id = "img1";
  image.raster = GreyRaster(width, height, value);
  image.png = EncodeTestPng(image.raster);
  image.data_url = "data:image/png;base64," + imaging::Base64Encode(image.png);
  return image;
}

}  // namespace medreact::testing
