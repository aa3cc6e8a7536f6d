// ImageStore: the images of one run, by id.
//
// Every image a run sees enters here once: the files the user named (PNG,
// JPEG or DICOM, recognised by content) and the images tools make (masks,
// annotated pictures). Each gets an id ("img1", "img2", ... in order of
// arrival) and is kept as:
//   - `raster`: the pixels the run works on, downscaled once so that the
//     longer side is at most `max_side` (default 1024 px): what the model sees,
//     what the imaging endpoints receive, what boxes and masks refer to;
//   - `png` and `data_url`: that raster encoded once, as a PNG and as a
//     "data:image/png;base64,..." URL, so every model turn and every tool
//     call reuses the same bytes (nothing is re-encoded per turn);
//   - for DICOM: the de-identified metadata (DICOM JSON, PS3.15 Annex E
//     profile unless keep_phi) and how the frame was rendered.
// Tools receive image ids, never paths: the only paths the store reads are
// the ones the user gave (AddFile), and `UserPath` answers whether a path is
// one of them (dicom_processor accepts only those). Images a tool makes are
// written, when an output folder is set, as <folder>/<id>-<label>.png with
// mode 0600, and their path is kept for the user.
//
// Thread-safe: tools of one turn add and read images concurrently. Stored
// images are immutable and shared (shared_ptr<const StoredImage>).
#ifndef MEDREACT_TOOLS_IMAGING_IMAGE_STORE_H_
#define MEDREACT_TOOLS_IMAGING_IMAGE_STORE_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "medreact/json.h"
#include "medreact/message.h"
#include "medreact/status.h"
#include "tools/imaging/image_codec.h"

namespace medreact::imaging {

struct StoredImage {
  std::string id;               // "img1", ...
  std::string label;            // the file's base name, or what made it ("annotated", "mask-heart")
  std::string origin;           // "user" (a file the user gave) or the tool's name
  ImageFormat source_format = ImageFormat::kUnknown;  // kPng for generated images
  int original_width = 0;       // before downscaling
  int original_height = 0;
  Raster raster;                // downscaled (see above); what everything refers to
  std::string png;              // raster as PNG bytes, encoded once
  std::string data_url;         // "data:image/png;base64,<png>", encoded once
  std::string path;             // the user's path (origin "user"), or the written file; "" when not written
  Json dicom;                   // DICOM only: {"metadata": DICOM JSON, "transfer_syntax", "photometric", "voi", "frames"}; else null

  // Scale from raster pixels to original pixels (original_width / raster.width).
  double scale() const;
  // The OpenAI image_url content part for this image.
  ContentPart Part() const;
  // {"image_id","label","origin","width","height","original_width","original_height","format"[,"path"]}:
  // what a tool result or the --out JSON says of the image (no pixels).
  Json Describe() const;
};

struct ImageStoreOptions {
  int max_side = 1024;         // longer side after downscaling; <= 0 keeps the original size. Default: 1024
  ImageLimits limits;          // refused before decoding when over. Default: 16384 px a side, 10^8 px
  size_t max_file_bytes = size_t{256} << 20;  // a user file larger than this is refused. Default: 256 MiB
  bool keep_phi = false;       // DICOM metadata with patient identifiers. Default: false (removed)
  std::string output_dir;      // where generated images are written; "" = not written. Default: ""
};

class ImageStore {
 public:
  explicit ImageStore(ImageStoreOptions options = {});

  // Reads a file the user named: sniffed by content (PNG, JPEG, DICOM first
  // frame), checked against the limits before decoding, downscaled, encoded.
  // NotFound when missing; InvalidArgument naming the file for a directory, an
  // empty or oversized file, a file that is none of the three formats ("not a
  // PNG, JPEG or DICOM image"), a corrupt one, or a DICOM transfer syntax
  // DCMTK cannot decode (named).
  Result<std::shared_ptr<const StoredImage>> AddFile(const std::string& path);
  // The same for a file's content read elsewhere (a resumed run's kept
  // copy): stored as if read from `path` (its label, its UserPath).
  Result<std::shared_ptr<const StoredImage>> AddFileBytes(std::string content, const std::string& path);

  // Adds an image a tool made (origin = the tool's name). Downscaled like the
  // others; written to the output folder when one is set.
  // InvalidArgument when !raster.valid().
  Result<std::shared_ptr<const StoredImage>> AddGenerated(Raster raster, const std::string& label,
                                                          const std::string& origin);

  // The image with this id, or NotFound listing the ids there are.
  Result<std::shared_ptr<const StoredImage>> Get(const std::string& id) const;

  // Every image, in order of arrival.
  std::vector<std::shared_ptr<const StoredImage>> All() const;

  // The stored image whose user path is `path` (as given, or the same file
  // by canonical path), or null: the check that a path came from the user.
  std::shared_ptr<const StoredImage> UserPath(const std::string& path) const;

  const ImageStoreOptions& options() const { return options_; }

 private:
  Result<std::shared_ptr<const StoredImage>> Add(StoredImage image);

  const ImageStoreOptions options_;
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<const StoredImage>> images_;
};

}  // namespace medreact::imaging

#endif  // MEDREACT_TOOLS_IMAGING_IMAGE_STORE_H_
