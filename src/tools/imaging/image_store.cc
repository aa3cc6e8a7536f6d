// ImageStore: decoding, downscaling and encoding happen outside the lock (they
// are the slow part and touch only the new image); the lock covers the id,
// the output file of a generated image and the list, so ids, the list and the
// written files agree on the order of arrival.
#include "tools/imaging/image_store.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "core/file_io.h"
#include "tools/imaging/dicom_image.h"

namespace medreact::imaging {
namespace {

constexpr char kDataUrlPrefix[] = "data:image/png;base64,";
constexpr size_t kMaxLabelChars = 64;

// [A-Za-z0-9._-] only (anything else becomes '_'), at most kMaxLabelChars,
// never empty: safe in a file name.
std::string SafeLabel(const std::string& label) {
  std::string out;
  for (char c : label) {
    if (out.size() == kMaxLabelChars) break;
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    out += ok ? c : '_';
  }
  return out.empty() ? "image" : out;
}

// The first value of a DICOM JSON attribute ("ggggeeee": {"vr", "Value": [n]})
// as an integer in [0, 65535], or -1.
int64_t FirstUs(const Json& metadata, const char* tag) {
  if (!metadata.is_object()) return -1;
  auto it = metadata.find(tag);
  if (it == metadata.end() || !it->is_object()) return -1;
  auto value = it->find("Value");
  if (value == it->end() || !value->is_array() || value->empty()) return -1;
  return ExactInteger(value->front(), 0, 65535).value_or(-1);
}

// Everything about an image but its id and output file: the downscaled
// raster, its PNG and data URL.
Status Finish(StoredImage& image, Raster raster, int max_side) {
  image.original_width = raster.width;
  image.original_height = raster.height;
  image.raster = Downscale(raster, max_side);
  Result<std::string> png = EncodePng(image.raster);
  if (!png.ok()) return png.status();
  image.png = std::move(png).value();
  image.data_url = kDataUrlPrefix + Base64Encode(image.png);
  return Status::OK();
}

bool SameFile(const std::string& a, const std::string& b) {
  std::error_code ec_a, ec_b;
  const std::filesystem::path ca = std::filesystem::weakly_canonical(a, ec_a);
  const std::filesystem::path cb = std::filesystem::weakly_canonical(b, ec_b);
  return !ec_a && !ec_b && ca == cb;
}

}  // namespace

double StoredImage::scale() const {
  return raster.width > 0 ? static_cast<double>(original_width) / raster.width : 1.0;
}

ContentPart StoredImage::Part() const {
  return ContentPart{.kind = ContentPart::Kind::kImage, .image_url = data_url};
}

Json StoredImage::Describe() const {
  Json out{{"image_id", id},
           {"label", label},
           {"origin", origin},
           {"width", raster.width},
           {"height", raster.height},
           {"original_width", original_width},
           {"original_height", original_height},
           {"format", ImageFormatName(source_format)}};
  if (!path.empty()) out["path"] = path;
  return out;
}

ImageStore::ImageStore(ImageStoreOptions options) : options_(std::move(options)) {}

Result<std::shared_ptr<const StoredImage>> ImageStore::AddFile(const std::string& path) {
  Result<std::string> bytes = ReadUserFile(path, "image", options_.max_file_bytes);
  if (!bytes.ok()) return bytes.status();
  return AddFileBytes(std::move(*bytes), path);
}

Result<std::shared_ptr<const StoredImage>> ImageStore::AddFileBytes(std::string content, const std::string& path) {
  if (content.empty()) return Status::InvalidArgument(path + ": the image file is empty");
  if (content.size() > options_.max_file_bytes) {
    return Status::InvalidArgument(path + ": the image file is larger than " +
                                   std::to_string(options_.max_file_bytes) + " bytes");
  }
  std::string* bytes = &content;

  StoredImage image;
  image.label = std::filesystem::path(path).filename().string();
  image.origin = "user";
  image.path = path;
  image.source_format = SniffFormat(*bytes);
  Raster raster;
  switch (image.source_format) {
    case ImageFormat::kPng:
    case ImageFormat::kJpeg: {
      Result<Raster> decoded = image.source_format == ImageFormat::kPng
                                   ? DecodePng(*bytes, path, options_.limits)
                                   : DecodeJpeg(*bytes, path, options_.limits);
      if (!decoded.ok()) return decoded.status();
      raster = std::move(decoded).value();
      break;
    }
    case ImageFormat::kDicom: {
      Result<DicomFile> file = DicomFile::Parse(*bytes, path);
      if (!file.ok()) return file.status();
      bytes->clear();
      bytes->shrink_to_fit();
      Result<Json> metadata = file->Metadata({.keep_phi = options_.keep_phi});
      if (!metadata.ok()) return metadata.status();
      // The limits before the pixels are decoded: Columns (0028,0011) × Rows (0028,0010).
      const int64_t columns = FirstUs(*metadata, "00280011");
      const int64_t rows = FirstUs(*metadata, "00280010");
      if (columns > 0 && rows > 0) {
        const uint64_t pixels = static_cast<uint64_t>(columns) * static_cast<uint64_t>(rows);
        if (columns > options_.limits.max_side || rows > options_.limits.max_side ||
            pixels > options_.limits.max_pixels) {
          return Status::InvalidArgument(path + ": DICOM image of " + std::to_string(columns) + "x" +
                                         std::to_string(rows) + " pixels is over the limit of " +
                                         std::to_string(options_.limits.max_side) + " pixels a side and " +
                                         std::to_string(options_.limits.max_pixels) +
                                         " pixels; refused before decoding");
        }
      }
      Result<RenderedFrame> frame = file->RenderFirstFrame();
      if (!frame.ok()) return frame.status();
      image.dicom = Json{{"metadata", std::move(metadata).value()},
                         {"transfer_syntax", frame->transfer_syntax_uid},
                         {"photometric", frame->photometric},
                         {"voi", frame->voi},
                         {"frames", frame->frames}};
      raster = std::move(static_cast<Raster&>(*frame));
      break;
    }
    case ImageFormat::kUnknown:
      return Status::InvalidArgument(path + ": not a PNG, JPEG or DICOM image (recognised by content, not by name)");
  }
  if (!raster.valid()) return Status::InvalidArgument(path + ": the decoded image is empty or inconsistent");
  if (Status s = Finish(image, std::move(raster), options_.max_side); !s.ok()) {
    return Status::InvalidArgument(path + ": " + s.message());
  }
  return Add(std::move(image));
}

Result<std::shared_ptr<const StoredImage>> ImageStore::AddGenerated(Raster raster, const std::string& label,
                                                                    const std::string& origin) {
  if (!raster.valid()) {
    return Status::InvalidArgument("image '" + label + "' from " + origin + ": sizes and pixels disagree (" +
                                   std::to_string(raster.width) + "x" + std::to_string(raster.height) + " x " +
                                   std::to_string(raster.channels) + " channels, " +
                                   std::to_string(raster.pixels.size()) + " bytes)");
  }
  StoredImage image;
  image.label = label;
  image.origin = origin;
  image.source_format = ImageFormat::kPng;
  if (Status s = Finish(image, std::move(raster), options_.max_side); !s.ok()) return s;
  return Add(std::move(image));
}

Result<std::shared_ptr<const StoredImage>> ImageStore::Add(StoredImage image) {
  std::lock_guard<std::mutex> lock(mu_);
  image.id = "img" + std::to_string(images_.size() + 1);
  if (image.origin != "user" && !options_.output_dir.empty()) {
    const std::string file =
        (std::filesystem::path(options_.output_dir) / (image.id + "-" + SafeLabel(image.label) + ".png")).string();
    if (Status s = WriteFileAtomic(file, image.png); !s.ok()) return s;
    image.path = file;
  }
  auto stored = std::make_shared<const StoredImage>(std::move(image));
  images_.push_back(stored);
  return stored;
}

Result<std::shared_ptr<const StoredImage>> ImageStore::Get(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string ids;
  for (const auto& image : images_) {
    if (image->id == id) return image;
    ids += (ids.empty() ? "" : ", ") + image->id;
  }
  return Status::NotFound("no image with id '" + id + "' (" +
                          (ids.empty() ? std::string("there are no images") : "the images are " + ids) + ")");
}

std::vector<std::shared_ptr<const StoredImage>> ImageStore::All() const {
  std::lock_guard<std::mutex> lock(mu_);
  return images_;
}

std::shared_ptr<const StoredImage> ImageStore::UserPath(const std::string& path) const {
  std::vector<std::shared_ptr<const StoredImage>> users;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& image : images_) {
      if (image->origin != "user") continue;
      if (image->path == path) return image;
      users.push_back(image);
    }
  }
  // Outside the lock: canonical paths ask the file system.
  for (const auto& image : users) {
    if (SameFile(image->path, path)) return image;
  }
  return nullptr;
}

}  // namespace medreact::imaging
