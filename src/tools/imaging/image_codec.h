// Rasters and the image codecs: PNG (libpng) in and out, JPEG (libjpeg-turbo)
// in, format sniffing, size checks before decoding, downscaling, base64.
//
// A Raster is 8-bit pixels, grey (1 channel) or RGB (3, interleaved),
// row-major, no padding. Every decoder reads the image's size from its header
// first and refuses, before allocating, an image over the limits (a 20,000 ×
// 20,000 PNG is a clear InvalidArgument, not 1.2 GB of pixels). 16-bit PNGs
// are reduced to 8 bits, palette and grey+alpha PNGs expanded, alpha
// dropped (composited on black); CMYK JPEGs are refused. Hostile input gives a
// Status, never a crash or a longjmp past C++ frames. All functions are
// thread-safe.
#ifndef MEDREACT_TOOLS_IMAGING_IMAGE_CODEC_H_
#define MEDREACT_TOOLS_IMAGING_IMAGE_CODEC_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/status.h"

namespace medreact::imaging {

struct Raster {
  int width = 0;
  int height = 0;
  int channels = 0;             // 1 (grey) or 3 (RGB)
  std::vector<uint8_t> pixels;  // width × height × channels bytes

  // True when the sizes are positive, channels is 1 or 3 and pixels has
  // exactly width × height × channels bytes.
  bool valid() const;
};

enum class ImageFormat { kUnknown, kPng, kJpeg, kDicom };
const char* ImageFormatName(ImageFormat format);  // "unknown", "png", "jpeg", "dicom"

// By content, never by file name: the PNG signature, the JPEG SOI marker
// (FF D8 FF), "DICM" at offset 128, or a bare DICOM dataset (an explicit or
// implicit VR little-endian element of group 0x0008 or 0x0002 at offset 0).
ImageFormat SniffFormat(std::string_view bytes);

struct ImageLimits {
  int max_side = 16384;                // either side above this is refused. Default: 16384
  uint64_t max_pixels = 100'000'000;   // width × height above this is refused. Default: 10^8
};

// The size in the header without decoding the pixels. InvalidArgument when the
// header is not PNG/JPEG or is truncated.
struct ImageSize {
  int width = 0;
  int height = 0;
};
Result<ImageSize> PeekPngSize(std::string_view bytes);
Result<ImageSize> PeekJpegSize(std::string_view bytes);

// Decoders. InvalidArgument naming `name` and the reason (corrupt, truncated,
// over the limits, unsupported colour type).
Result<Raster> DecodePng(std::string_view bytes, const std::string& name, const ImageLimits& limits = {});
Result<Raster> DecodeJpeg(std::string_view bytes, const std::string& name, const ImageLimits& limits = {});

// A PNG file's bytes (8-bit grey or RGB, no interlace). InvalidArgument when
// !raster.valid().
Result<std::string> EncodePng(const Raster& raster);

// Area-averaged (box filter) downscale so that the longer side is at most
// `max_long_side`, keeping the aspect ratio (the shorter side at least 1).
// Returns a copy when the raster is already small enough or max_long_side <= 0.
// REQUIRES: raster.valid().
Raster Downscale(const Raster& raster, int max_long_side);

// Grey → RGB (each grey value copied to three channels); RGB returned as is.
Raster ToRgb(const Raster& raster);

// RFC 4648 base64 with padding; Decode accepts missing padding and ignores
// ASCII whitespace, and refuses any other character (InvalidArgument).
std::string Base64Encode(std::string_view bytes);
Result<std::string> Base64Decode(std::string_view text);

}  // namespace medreact::imaging

#endif  // MEDREACT_TOOLS_IMAGING_IMAGE_CODEC_H_
