// The image codecs over libpng's and libjpeg-turbo's classic APIs.
//
// Both libraries report errors by longjmp. Every call into them is made from a
// small C-style function (PngReadHeader, PngReadPixels, JpegReadHeader,
// JpegReadPixels) whose only local is a pointer to a plain struct (PngJob,
// JpegJob) and which calls setjmp first: a longjmp lands there and unwinds
// only C frames and the callbacks below, none of which holds an object with a
// destructor. The pixel buffer is a std::vector allocated by the C++ caller
// between the two steps, after the size read from the header has been
// checked against the limits; the job's libpng/libjpeg state is destroyed by
// the C++ caller on every path.
//
// Sizes are checked twice: PeekPngSize / PeekJpegSize read them from the
// bytes before the library sees them, and the size the library reports
// after its header is compared with the peeked one.
#include "tools/imaging/image_codec.h"

#include <jpeglib.h>  // after <cstdio> (jpeglib.h needs FILE and size_t)
#include <jerror.h>
#include <png.h>

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <utility>

namespace medreact::imaging {

bool Raster::valid() const {
  if (width <= 0 || height <= 0 || (channels != 1 && channels != 3)) return false;
  return pixels.size() == uint64_t{static_cast<uint64_t>(width)} * static_cast<uint64_t>(height) *
                              static_cast<uint64_t>(channels);
}

const char* ImageFormatName(ImageFormat format) {
  switch (format) {
    case ImageFormat::kPng: return "png";
    case ImageFormat::kJpeg: return "jpeg";
    case ImageFormat::kDicom: return "dicom";
    case ImageFormat::kUnknown: break;
  }
  return "unknown";
}

namespace {

constexpr unsigned char kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

uint8_t Byte(std::string_view bytes, size_t i) { return static_cast<uint8_t>(bytes[i]); }
uint32_t BigEndian32(std::string_view bytes, size_t i) {
  return (uint32_t{Byte(bytes, i)} << 24) | (uint32_t{Byte(bytes, i + 1)} << 16) |
         (uint32_t{Byte(bytes, i + 2)} << 8) | Byte(bytes, i + 3);
}
uint16_t BigEndian16(std::string_view bytes, size_t i) {
  return static_cast<uint16_t>((Byte(bytes, i) << 8) | Byte(bytes, i + 1));
}

bool IsPng(std::string_view bytes) {
  return bytes.size() >= 8 && std::memcmp(bytes.data(), kPngSignature, 8) == 0;
}
bool IsJpeg(std::string_view bytes) {
  return bytes.size() >= 3 && Byte(bytes, 0) == 0xFF && Byte(bytes, 1) == 0xD8 && Byte(bytes, 2) == 0xFF;
}

// A DICOM value representation (PS3.5 6.2), for explicit-VR elements.
bool IsDicomVr(char a, char b) {
  static constexpr const char* kVrs[] = {"AE", "AS", "AT", "CS", "DA", "DS", "DT", "FD", "FL", "IS", "LO",
                                         "LT", "OB", "OD", "OF", "OL", "OV", "OW", "PN", "SH", "SL", "SQ",
                                         "SS", "ST", "SV", "TM", "UC", "UI", "UL", "UN", "UR", "US", "UT", "UV"};
  for (const char* vr : kVrs) {
    if (vr[0] == a && vr[1] == b) return true;
  }
  return false;
}

// A little-endian element of group 0002 or 0008 at offset 0, explicit VR
// (a known VR in bytes 4-5) or implicit (a 32-bit length that is even, or
// undefined, and fits in the bytes).
bool IsBareDicom(std::string_view bytes) {
  if (bytes.size() < 8) return false;
  const unsigned group = Byte(bytes, 0) | (Byte(bytes, 1) << 8);
  if (group != 0x0002 && group != 0x0008) return false;
  if (IsDicomVr(bytes[4], bytes[5])) return true;
  const uint32_t length = Byte(bytes, 4) | (uint32_t{Byte(bytes, 5)} << 8) | (uint32_t{Byte(bytes, 6)} << 16) |
                          (uint32_t{Byte(bytes, 7)} << 24);
  if (length == 0xFFFFFFFFu) return true;
  return length % 2 == 0 && length <= bytes.size() - 8;
}

std::string SizeText(uint64_t width, uint64_t height) { return std::to_string(width) + "x" + std::to_string(height); }

Status CheckLimits(const std::string& name, const char* format, uint64_t width, uint64_t height,
                   const ImageLimits& limits) {
  if (width == 0 || height == 0) {
    return Status::InvalidArgument(name + ": " + format + " header gives an empty image (" + SizeText(width, height) +
                                   ")");
  }
  const uint64_t max_side = limits.max_side > 0 ? static_cast<uint64_t>(limits.max_side) : 0;
  if (width > max_side || height > max_side) {
    return Status::InvalidArgument(name + ": " + format + " image of " + SizeText(width, height) +
                                   " pixels is over the limit of " + std::to_string(max_side) +
                                   " pixels a side; refused before decoding");
  }
  if (width * height > limits.max_pixels) {
    return Status::InvalidArgument(name + ": " + format + " image of " + SizeText(width, height) + " (" +
                                   std::to_string(width * height) + " pixels) is over the limit of " +
                                   std::to_string(limits.max_pixels) + " pixels; refused before decoding");
  }
  return Status::OK();
}

// Allocates without letting std::bad_alloc escape.
bool Allocate(std::vector<uint8_t>& pixels, size_t bytes) {
  try {
    pixels.assign(bytes, 0);
    return true;
  } catch (const std::bad_alloc&) {
    return false;
  } catch (const std::length_error&) {
    return false;
  }
}

// Composites interleaved colour+alpha pixels onto black, in place: `count`
// pixels of `colour` channels followed by alpha become `colour` channels.
void CompositeOnBlack(uint8_t* pixels, size_t count, int colour) {
  const int stride = colour + 1;
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* in = pixels + i * stride;
    uint8_t* out = pixels + i * colour;
    const unsigned alpha = in[colour];
    for (int c = 0; c < colour; ++c) out[c] = static_cast<uint8_t>((in[c] * alpha + 127) / 255);
  }
}

// --- PNG (libpng, classic API) ----------------------------------------------

// Everything the setjmp functions touch: plain data only.
struct PngJob {
  const unsigned char* data;
  size_t size;
  size_t pos;
  png_structp png;
  png_infop info;
  png_uint_32 width;
  png_uint_32 height;
  int channels;  // after the transformations: 1 (G), 2 (GA), 3 (RGB) or 4 (RGBA), 8 bits each
  int passes;
  size_t rowbytes;
  char message[256];
};

void PngOnError(png_structp png, png_const_charp message) {
  auto* job = static_cast<PngJob*>(png_get_error_ptr(png));
  std::snprintf(job->message, sizeof job->message, "%s", message != nullptr ? message : "libpng error");
  png_longjmp(png, 1);
}

void PngOnWarning(png_structp, png_const_charp) {}  // benign; the image still decodes

void PngOnRead(png_structp png, png_bytep out, size_t length) {
  auto* job = static_cast<PngJob*>(png_get_io_ptr(png));
  if (length > job->size - job->pos) png_error(png, "the file ends early");
  std::memcpy(out, job->data + job->pos, length);
  job->pos += length;
}

// Reads the chunks before the image data and sets the transformations to
// 8-bit grey, grey+alpha, RGB or RGBA. False with job->message on an error.
bool PngReadHeader(PngJob* job) {
  if (setjmp(png_jmpbuf(job->png))) return false;
  png_set_read_fn(job->png, job, PngOnRead);
  png_read_info(job->png, job->info);
  const png_byte color_type = png_get_color_type(job->png, job->info);
  const png_byte bit_depth = png_get_bit_depth(job->png, job->info);
  if (bit_depth == 16) {
#ifdef PNG_READ_SCALE_16_TO_8_SUPPORTED
    png_set_scale_16(job->png);  // v * 255 / 65535, rounded
#else
    png_set_strip_16(job->png);
#endif
  }
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(job->png);
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(job->png);
  if (png_get_valid(job->png, job->info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(job->png);
  job->passes = png_set_interlace_handling(job->png);
  png_read_update_info(job->png, job->info);
  job->width = png_get_image_width(job->png, job->info);
  job->height = png_get_image_height(job->png, job->info);
  job->channels = png_get_channels(job->png, job->info);
  job->rowbytes = png_get_rowbytes(job->png, job->info);
  return true;
}

// Reads every row (every pass of an interlaced image) into `pixels`, rows of
// job->rowbytes. False with job->message on an error.
bool PngReadPixels(PngJob* job, unsigned char* pixels) {
  if (setjmp(png_jmpbuf(job->png))) return false;
  for (int pass = 0; pass < job->passes; ++pass) {
    for (png_uint_32 y = 0; y < job->height; ++y) png_read_row(job->png, pixels + y * job->rowbytes, nullptr);
  }
  return true;
}

// --- JPEG (libjpeg-turbo) ----------------------------------------------------

// More scans than this in a progressive JPEG is refused: each scan re-reads
// the whole coefficient buffer, and a few KB of hostile input can declare
// thousands (libjpeg-turbo's own fuzzers stop at 500; its TurboJPEG 3 API
// calls this TJPARAM_SCANLIMIT).
constexpr int kMaxJpegScans = 500;

struct JpegJob {
  jpeg_decompress_struct cinfo;  // first: the callbacks cast j_common_ptr to JpegJob*
  jpeg_error_mgr error;
  jpeg_progress_mgr progress;
  std::jmp_buf jump;
  bool created;
  char message[JMSG_LENGTH_MAX + 64];
};

[[noreturn]] void JpegOnError(j_common_ptr cinfo) {
  auto* job = reinterpret_cast<JpegJob*>(cinfo);
  char text[JMSG_LENGTH_MAX];
  (*cinfo->err->format_message)(cinfo, text);
  std::snprintf(job->message, sizeof job->message, "%s", text);
  std::longjmp(job->jump, 1);
}

// Warnings (level -1: corrupt data) are ignored except the one that says the
// data ended early: libjpeg would fill the rest of the image with grey, and a
// radiograph with a missing part must not pass as whole.
void JpegOnMessage(j_common_ptr cinfo, int level) {
  if (level == -1 && cinfo->err->msg_code == JWRN_JPEG_EOF) {
    auto* job = reinterpret_cast<JpegJob*>(cinfo);
    std::snprintf(job->message, sizeof job->message, "the file ends early");
    std::longjmp(job->jump, 1);
  }
}

void JpegOnProgress(j_common_ptr cinfo) {
  auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
  if (d->is_decompressor && d->input_scan_number > kMaxJpegScans) {
    auto* job = reinterpret_cast<JpegJob*>(cinfo);
    std::snprintf(job->message, sizeof job->message, "more than %d scans in a progressive JPEG", kMaxJpegScans);
    std::longjmp(job->jump, 1);
  }
}

// Reads the header and chooses the output colour space: grey stays grey,
// YCbCr and RGB become RGB. -1 on a library error (job->message), 0 for a
// colour space this decoder refuses (CMYK, YCCK, unknown), 1 when ready.
int JpegReadHeader(JpegJob* job, const unsigned char* data, size_t size) {
  if (setjmp(job->jump)) return -1;
  jpeg_create_decompress(&job->cinfo);
  job->created = true;
  job->cinfo.progress = &job->progress;
  jpeg_mem_src(&job->cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&job->cinfo, TRUE);
  switch (job->cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE: job->cinfo.out_color_space = JCS_GRAYSCALE; break;
    case JCS_YCbCr:
    case JCS_RGB: job->cinfo.out_color_space = JCS_RGB; break;
    default: return 0;
  }
  jpeg_calc_output_dimensions(&job->cinfo);
  return 1;
}

// Decodes every scanline into `pixels` (rows of width × components bytes).
bool JpegReadPixels(JpegJob* job, unsigned char* pixels) {
  if (setjmp(job->jump)) return false;
  jpeg_start_decompress(&job->cinfo);
  const size_t row_bytes = size_t{job->cinfo.output_width} * job->cinfo.output_components;
  while (job->cinfo.output_scanline < job->cinfo.output_height) {
    JSAMPROW row = pixels + size_t{job->cinfo.output_scanline} * row_bytes;
    if (jpeg_read_scanlines(&job->cinfo, &row, 1) != 1) {
      std::snprintf(job->message, sizeof job->message, "no scanline returned at row %u", job->cinfo.output_scanline);
      return false;
    }
  }
  return true;
}

const char* JpegColourSpaceName(J_COLOR_SPACE space) {
  switch (space) {
    case JCS_CMYK: return "CMYK";
    case JCS_YCCK: return "YCCK";
    case JCS_UNKNOWN: return "unknown";
    default: return "unsupported";
  }
}

}  // namespace

ImageFormat SniffFormat(std::string_view bytes) {
  if (IsPng(bytes)) return ImageFormat::kPng;
  if (IsJpeg(bytes)) return ImageFormat::kJpeg;
  if (bytes.size() >= 132 && bytes.substr(128, 4) == "DICM") return ImageFormat::kDicom;
  if (IsBareDicom(bytes)) return ImageFormat::kDicom;
  return ImageFormat::kUnknown;
}

Result<ImageSize> PeekPngSize(std::string_view bytes) {
  if (!IsPng(bytes)) return Status::InvalidArgument("not a PNG file (no PNG signature)");
  // PNG 1.2 §11.2.2: IHDR comes first, 13 bytes, width and height big-endian.
  if (bytes.size() < 8 + 8 + 13) return Status::InvalidArgument("PNG header truncated (no complete IHDR chunk)");
  if (BigEndian32(bytes, 8) != 13 || bytes.substr(12, 4) != "IHDR") {
    return Status::InvalidArgument("PNG header corrupt (the first chunk is not a 13-byte IHDR)");
  }
  const uint32_t width = BigEndian32(bytes, 16);
  const uint32_t height = BigEndian32(bytes, 20);
  // PNG 1.2 §11.2.2: each is 1 .. 2^31 - 1.
  if (width == 0 || height == 0 || width > 0x7FFFFFFFu || height > 0x7FFFFFFFu) {
    return Status::InvalidArgument("PNG header corrupt (image size " + SizeText(width, height) + ")");
  }
  return ImageSize{static_cast<int>(width), static_cast<int>(height)};
}

Result<ImageSize> PeekJpegSize(std::string_view bytes) {
  if (!IsJpeg(bytes)) return Status::InvalidArgument("not a JPEG file (no SOI marker FF D8 FF)");
  // ITU T.81 B.1.1: markers FF xx (any number of FF fill bytes before xx);
  // those without a length are SOI, EOI, RSTn and TEM; the frame header
  // SOFn (C0-CF except C4 DHT, C8 JPG, CC DAC) holds P, Y (lines), X.
  size_t pos = 2;
  while (true) {
    while (pos < bytes.size() && Byte(bytes, pos) != 0xFF) ++pos;  // tolerate stray bytes between segments
    while (pos < bytes.size() && Byte(bytes, pos) == 0xFF) ++pos;
    if (pos >= bytes.size()) return Status::InvalidArgument("JPEG header truncated (no frame header)");
    const uint8_t marker = Byte(bytes, pos++);
    if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) continue;
    if (marker == 0xD9) return Status::InvalidArgument("JPEG corrupt (end of image before any frame header)");
    if (marker == 0xDA) return Status::InvalidArgument("JPEG corrupt (scan data before any frame header)");
    if (pos + 2 > bytes.size()) return Status::InvalidArgument("JPEG header truncated (inside a marker segment)");
    const uint16_t length = BigEndian16(bytes, pos);
    if (length < 2) return Status::InvalidArgument("JPEG header corrupt (a marker segment shorter than 2 bytes)");
    const bool sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (sof) {
      if (length < 8 || pos + 7 > bytes.size()) {
        return Status::InvalidArgument("JPEG header truncated (inside the frame header)");
      }
      const uint16_t height = BigEndian16(bytes, pos + 3);
      const uint16_t width = BigEndian16(bytes, pos + 5);
      if (height == 0) {
        return Status::InvalidArgument("JPEG not supported (the height is given later, by a DNL marker)");
      }
      if (width == 0) return Status::InvalidArgument("JPEG header corrupt (width 0)");
      return ImageSize{width, height};
    }
    pos += length;
  }
}

Result<Raster> DecodePng(std::string_view bytes, const std::string& name, const ImageLimits& limits) {
  Result<ImageSize> size = PeekPngSize(bytes);
  if (!size.ok()) return Status::InvalidArgument(name + ": " + size.status().message());
  if (Status s = CheckLimits(name, "PNG", size->width, size->height, limits); !s.ok()) return s;

  PngJob job{};
  job.data = reinterpret_cast<const unsigned char*>(bytes.data());
  job.size = bytes.size();
  job.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &job, PngOnError, PngOnWarning);
  if (job.png != nullptr) job.info = png_create_info_struct(job.png);
  if (job.png == nullptr || job.info == nullptr) {
    png_destroy_read_struct(&job.png, &job.info, nullptr);
    return Status::ResourceExhausted(name + ": cannot start the PNG decoder (out of memory)");
  }
  // libpng's own checks agree with ours; 8 MB caps any one ancillary chunk.
  png_set_user_limits(job.png, static_cast<png_uint_32>(limits.max_side), static_cast<png_uint_32>(limits.max_side));
  png_set_chunk_malloc_max(job.png, png_alloc_size_t{8} << 20);

  Raster raster;
  std::string error;
  if (!PngReadHeader(&job)) {
    error = std::string("corrupt or truncated PNG (") + job.message + ")";
  } else if (job.width != static_cast<png_uint_32>(size->width) ||
             job.height != static_cast<png_uint_32>(size->height) || job.channels < 1 || job.channels > 4 ||
             job.rowbytes != size_t{job.width} * job.channels) {
    error = "unsupported PNG layout after expansion";
  } else if (!Allocate(raster.pixels, job.rowbytes * job.height)) {
    png_destroy_read_struct(&job.png, &job.info, nullptr);
    return Status::ResourceExhausted(name + ": out of memory for a PNG of " + SizeText(job.width, job.height));
  } else if (!PngReadPixels(&job, raster.pixels.data())) {
    error = std::string("corrupt or truncated PNG (") + job.message + ")";
  }
  const int channels = job.channels;
  png_destroy_read_struct(&job.png, &job.info, nullptr);
  if (!error.empty()) return Status::InvalidArgument(name + ": " + error);

  raster.width = size->width;
  raster.height = size->height;
  const size_t count = size_t{static_cast<size_t>(raster.width)} * raster.height;
  if (channels == 2 || channels == 4) {
    CompositeOnBlack(raster.pixels.data(), count, channels - 1);
    raster.pixels.resize(count * (channels - 1));
    raster.pixels.shrink_to_fit();
  }
  raster.channels = channels == 1 || channels == 2 ? 1 : 3;
  return raster;
}

Result<Raster> DecodeJpeg(std::string_view bytes, const std::string& name, const ImageLimits& limits) {
  Result<ImageSize> size = PeekJpegSize(bytes);
  if (!size.ok()) return Status::InvalidArgument(name + ": " + size.status().message());
  if (Status s = CheckLimits(name, "JPEG", size->width, size->height, limits); !s.ok()) return s;

  // Heap-allocated: jpeg_decompress_struct and jmp_buf are large.
  auto job = std::make_unique<JpegJob>();  // value-initialised: all zero
  job->cinfo.err = jpeg_std_error(&job->error);
  job->error.error_exit = JpegOnError;
  job->error.emit_message = JpegOnMessage;
  job->progress.progress_monitor = JpegOnProgress;

  Raster raster;
  std::string error;
  const int header = JpegReadHeader(job.get(), reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  if (header < 0) {
    error = std::string("corrupt or truncated JPEG (") + job->message + ")";
  } else if (header == 0) {
    error = std::string("JPEG colour space ") + JpegColourSpaceName(job->cinfo.jpeg_color_space) +
            " is not supported (grey, YCbCr and RGB are)";
  } else if (job->cinfo.output_width != static_cast<JDIMENSION>(size->width) ||
             job->cinfo.output_height != static_cast<JDIMENSION>(size->height) ||
             (job->cinfo.output_components != 1 && job->cinfo.output_components != 3)) {
    error = "JPEG header disagrees with itself (frame size or components)";
  } else if (!Allocate(raster.pixels, size_t{job->cinfo.output_width} * job->cinfo.output_height *
                                          job->cinfo.output_components)) {
    jpeg_destroy_decompress(&job->cinfo);
    return Status::ResourceExhausted(name + ": out of memory for a JPEG of " + SizeText(size->width, size->height));
  } else if (!JpegReadPixels(job.get(), raster.pixels.data())) {
    error = std::string("corrupt or truncated JPEG (") + job->message + ")";
  }
  raster.channels = job->cinfo.output_components;
  if (job->created) jpeg_destroy_decompress(&job->cinfo);
  if (!error.empty()) return Status::InvalidArgument(name + ": " + error);
  raster.width = size->width;
  raster.height = size->height;
  return raster;
}

Result<std::string> EncodePng(const Raster& raster) {
  if (!raster.valid()) {
    return Status::InvalidArgument("PNG: raster sizes and pixels disagree (" + SizeText(raster.width, raster.height) +
                                   " x " + std::to_string(raster.channels) + " channels, " +
                                   std::to_string(raster.pixels.size()) + " bytes)");
  }
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(raster.width);
  image.height = static_cast<png_uint_32>(raster.height);
  image.format = raster.channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
  // Written once into a buffer of the largest size the image can take
  // (PNG_IMAGE_PNG_SIZE_MAX): measuring first would compress it twice. The
  // default compression is kept (PNG_IMAGE_FLAG_FAST would make the
  // 1976 x 1576 radiograph's PNG 47 % larger for 0.2 s saved; the image is
  // encoded once and sent on every model turn: docs/benchmarks.md).
  png_alloc_size_t size = PNG_IMAGE_PNG_SIZE_MAX(image);
  std::string out(size, '\0');
  if (!png_image_write_to_memory(&image, out.data(), &size, 0, raster.pixels.data(), 0, nullptr)) {
    std::string why = image.message;
    png_image_free(&image);
    return Status::InvalidArgument("PNG: " + why);
  }
  out.resize(size);
  return out;
}

namespace {

// The source pixels one output pixel covers along one axis, with their
// weights. Output pixel i of n covers source [i·src/n, (i+1)·src/n); in units
// of 1/n source pixel that is [i·src, (i+1)·src), and source pixel s covers
// [s·n, (s+1)·n): the overlaps are integers summing to src.
struct Span {
  int first = 0;
  std::vector<uint32_t> weights;
};

std::vector<Span> Spans(int src, int n) {
  std::vector<Span> spans(static_cast<size_t>(n));
  const uint64_t s64 = static_cast<uint64_t>(src);
  const uint64_t n64 = static_cast<uint64_t>(n);
  for (uint64_t i = 0; i < n64; ++i) {
    const uint64_t begin = i * s64;
    const uint64_t end = (i + 1) * s64;
    Span& span = spans[i];
    span.first = static_cast<int>(begin / n64);
    for (uint64_t s = begin / n64; s * n64 < end; ++s) {
      const uint64_t lo = std::max(s * n64, begin);
      const uint64_t hi = std::min((s + 1) * n64, end);
      span.weights.push_back(static_cast<uint32_t>(hi - lo));
    }
  }
  return spans;
}

}  // namespace

Raster Downscale(const Raster& raster, int max_long_side) {
  const int long_side = std::max(raster.width, raster.height);
  if (max_long_side <= 0 || long_side <= max_long_side) return raster;
  // The longer side becomes max_long_side; the shorter is scaled by the same
  // factor and rounded to nearest (halves up), at least 1.
  auto scaled = [&](int side) {
    const uint64_t num = uint64_t{static_cast<uint64_t>(side)} * static_cast<uint64_t>(max_long_side);
    return std::max(1, static_cast<int>((2 * num + static_cast<uint64_t>(long_side)) / (2 * long_side)));
  };
  const int out_w = raster.width >= raster.height ? max_long_side : scaled(raster.width);
  const int out_h = raster.height > raster.width ? max_long_side : scaled(raster.height);
  const int c = raster.channels;
  const std::vector<Span> xs = Spans(raster.width, out_w);
  const std::vector<Span> ys = Spans(raster.height, out_h);
  // Weights sum to width along x and height along y.
  const uint64_t total = uint64_t{static_cast<uint64_t>(raster.width)} * static_cast<uint64_t>(raster.height);

  Raster out;
  out.width = out_w;
  out.height = out_h;
  out.channels = c;
  out.pixels.resize(size_t{static_cast<size_t>(out_w)} * out_h * c);
  std::vector<uint64_t> row_sums(static_cast<size_t>(out_w) * c);  // one source row, summed along x
  std::vector<uint64_t> acc(static_cast<size_t>(out_w) * c);
  int summed_row = -1;
  auto sum_row = [&](int y) {
    if (y == summed_row) return;
    const uint8_t* src = raster.pixels.data() + size_t{static_cast<size_t>(y)} * raster.width * c;
    for (int x = 0; x < out_w; ++x) {
      const Span& span = xs[static_cast<size_t>(x)];
      for (int k = 0; k < c; ++k) {
        uint64_t sum = 0;
        for (size_t j = 0; j < span.weights.size(); ++j) {
          sum += uint64_t{span.weights[j]} * src[(static_cast<size_t>(span.first) + j) * c + k];
        }
        row_sums[static_cast<size_t>(x) * c + k] = sum;
      }
    }
    summed_row = y;
  };
  for (int oy = 0; oy < out_h; ++oy) {
    std::fill(acc.begin(), acc.end(), 0);
    const Span& span = ys[static_cast<size_t>(oy)];
    for (size_t j = 0; j < span.weights.size(); ++j) {
      sum_row(span.first + static_cast<int>(j));
      for (size_t i = 0; i < acc.size(); ++i) acc[i] += span.weights[j] * row_sums[i];
    }
    uint8_t* dst = out.pixels.data() + size_t{static_cast<size_t>(oy)} * out_w * c;
    for (size_t i = 0; i < acc.size(); ++i) dst[i] = static_cast<uint8_t>((acc[i] + total / 2) / total);
  }
  return out;
}

Raster ToRgb(const Raster& raster) {
  if (raster.channels != 1) return raster;
  Raster out;
  out.width = raster.width;
  out.height = raster.height;
  out.channels = 3;
  out.pixels.resize(raster.pixels.size() * 3);
  for (size_t i = 0; i < raster.pixels.size(); ++i) {
    out.pixels[3 * i] = out.pixels[3 * i + 1] = out.pixels[3 * i + 2] = raster.pixels[i];
  }
  return out;
}

namespace {
constexpr char kBase64Alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (uint32_t{Byte(bytes, i)} << 16) | (uint32_t{Byte(bytes, i + 1)} << 8) | Byte(bytes, i + 2);
    out += kBase64Alphabet[(v >> 18) & 63];
    out += kBase64Alphabet[(v >> 12) & 63];
    out += kBase64Alphabet[(v >> 6) & 63];
    out += kBase64Alphabet[v & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = uint32_t{Byte(bytes, i)} << 16;
    if (rest == 2) v |= uint32_t{Byte(bytes, i + 1)} << 8;
    out += kBase64Alphabet[(v >> 18) & 63];
    out += kBase64Alphabet[(v >> 12) & 63];
    out += rest == 2 ? kBase64Alphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  auto value = [](char ch) -> int {
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+') return 62;
    if (ch == '/') return 63;
    return -1;
  };
  std::string out;
  out.reserve(text.size() / 4 * 3 + 3);
  uint32_t bits = 0;
  int count = 0;     // sextets in `bits`
  int padding = 0;   // '=' seen
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v') continue;
    if (ch == '=') {
      ++padding;
      continue;
    }
    const int v = value(ch);
    if (v < 0) {
      return Status::InvalidArgument("base64: character " + std::to_string(static_cast<unsigned char>(ch)) +
                                     " at offset " + std::to_string(i) + " is not in the alphabet");
    }
    if (padding > 0) return Status::InvalidArgument("base64: data after '=' padding at offset " + std::to_string(i));
    bits = (bits << 6) | static_cast<uint32_t>(v);
    if (++count == 4) {
      out += static_cast<char>((bits >> 16) & 0xFF);
      out += static_cast<char>((bits >> 8) & 0xFF);
      out += static_cast<char>(bits & 0xFF);
      bits = 0;
      count = 0;
    }
  }
  if (count == 1) return Status::InvalidArgument("base64: truncated (a single character in the last group)");
  if (padding > 2 || (padding > 0 && count + padding != 4)) {
    return Status::InvalidArgument("base64: padding does not complete the last group");
  }
  if (count == 2) {
    out += static_cast<char>((bits >> 4) & 0xFF);
  } else if (count == 3) {
    out += static_cast<char>((bits >> 10) & 0xFF);
    out += static_cast<char>((bits >> 2) & 0xFF);
  }
  return out;
}

}  // namespace medreact::imaging
