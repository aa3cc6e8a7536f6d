// DICOM images: read a file, render its first frame to 8-bit pixels (a
// Raster, written as PNG by image_codec.h's EncodePng), and dump its
// attributes as DICOM JSON without patient identifiers.
//
// DicomFile reads every encoding DCMTK reads: a Part 10 file (128-byte
// preamble, "DICM", file meta header) or a bare dataset without them
// (CR-MONO1-10-chest.dcm), implicit or explicit VR, little or big endian,
// deflated, and the compressed syntaxes whose decoders ship with DCMTK
// (JPEG baseline/extended/lossless, JPEG-LS, RLE). Others (JPEG 2000, HTJ2K,
// MPEG, ...) are refused with a Status naming the file and the syntax.
//
// RenderFirstFrame follows the grey pipeline of PS3.4 N.2 through DCMTK's
// DicomImage: Modality LUT (Rescale Slope/Intercept or a Modality LUT
// Sequence), then the first VOI LUT of the file, else its first Window
// Center/Width, else a min-max window over the frame's modality values (the
// whole range of the frame mapped onto 0..255: a readable picture, not a
// clinical window). MONOCHROME1 is inverted so that 255 is always white.
// Colour images (RGB, PALETTE COLOR, YBR_*) come out as interleaved RGB.
//
// DCMTK is not linked into medreact: it lives in the DICOM plugin,
// medreact_dicom.so (dicom_plugin/, behind the C table of
// dicom_plugin_abi.h), loaded the first time a file is parsed (core/plugin.h
// says where it is looked for), so commands that read no DICOM never map
// DCMTK and the libraries it pulls in. Without the plugin every call returns
// Unavailable "DICOM support is not available: <the loader's reason>".
//
// Hostile input gives a Status, never a crash; DCMTK's own logger is silenced
// (FATAL only) the first time the plugin is used. A DicomFile is
// thread-compatible (one thread at a time); distinct DicomFiles may be used
// from different threads (loading and codec registration are done once,
// thread-safely).
#ifndef MEDREACT_TOOLS_IMAGING_DICOM_IMAGE_H_
#define MEDREACT_TOOLS_IMAGING_DICOM_IMAGE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/json.h"
#include "medreact/status.h"
#include "tools/imaging/dicom_plugin_abi.h"
#include "tools/imaging/image_codec.h"

namespace medreact::imaging {

// A DICOM file larger than this is refused before it is read: 1 GiB.
inline constexpr size_t kMaxDicomBytes = size_t{1} << 30;
// A frame with more pixels than this is refused before it is decoded
// (Rows × Columns × samples): 2^28, e.g. 16384 × 16384.
inline constexpr uint64_t kMaxDicomFramePixels = MEDREACT_DICOM_MAX_FRAME_PIXELS;

// The first frame, rendered: a Raster (image_codec.h) of Columns × Rows
// pixels, grey (1 channel) or RGB (3, interleaved), plus how it was made.
struct RenderedFrame : Raster {
  unsigned long frames = 0;            // Number of Frames in the file (1 when absent)
  std::string photometric;             // Photometric Interpretation as stored, e.g. "MONOCHROME1"
  std::string transfer_syntax_uid;     // e.g. "1.2.840.10008.1.2.4.70"
  std::string transfer_syntax_name;    // DCMTK's name for it, e.g. "JPEG Lossless, Non-hierarchical, ..."
  std::string voi;                     // how grey was windowed: "VOI LUT", "window C/W", "min-max", "" (colour)
  double min_value = 0;                // grey: the frame's smallest value after the Modality LUT (e.g. HU;
                                       // DCMTK keeps these as integers: a non-integral rescale is truncated)
  double max_value = 0;                // grey: its largest
};

struct DicomMetadataOptions {
  // Keep the attributes PS3.15 Annex E's Basic Application Level
  // Confidentiality Profile removes or empties (patient, physicians,
  // institution, dates, UIDs, private tags). Default: false.
  bool keep_phi = false;
};

class DicomFile {
 public:
  // Reads `path` (a regular file of at most kMaxDicomBytes). NotFound when it
  // does not exist; InvalidArgument when it is not DICOM, is truncated or is
  // corrupt, naming the path and the problem; Unavailable when the DICOM
  // plugin cannot be loaded.
  static Result<DicomFile> Read(const std::string& path);
  // The same from bytes in memory; `name` names them in errors.
  static Result<DicomFile> Parse(std::string_view bytes, std::string name);

  DicomFile(DicomFile&&) noexcept;
  DicomFile& operator=(DicomFile&&) noexcept;
  ~DicomFile();

  const std::string& name() const;
  std::string TransferSyntaxUid() const;
  std::string TransferSyntaxName() const;

  // The first frame as 8-bit grey or RGB (see the file comment).
  // InvalidArgument naming the file when it holds no image, its transfer
  // syntax has no decoder here, or its pixel data cannot be decoded.
  // Decompresses the file's pixel data in place (hence not const).
  Result<RenderedFrame> RenderFirstFrame();

  // The dataset as DICOM JSON (PS3.18 F.2): {"ggggeeee": {"vr", "Value"}},
  // sequences nested, PN values as {"Alphabetic": ...}. Pixel data, overlay
  // and waveform data and any binary value over 1 KiB are left out (small
  // binary values are kept as InlineBinary). Without keep_phi the Annex E
  // attributes are removed (action X, and the U of UIDs) or emptied
  // (action Z) at every nesting level, and all private attributes removed
  // (dicom_metadata.cc holds the table and its source).
  Result<Json> Metadata(const DicomMetadataOptions& options) const;

 private:
  struct Impl;
  explicit DicomFile(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A frame is written as PNG with EncodePng(const Raster&) (image_codec.h).

// OK when DICOM can be read in this process (loads the plugin the first time);
// otherwise Unavailable "DICOM support is not available: <reason>".
Status DicomSupport();

// For a binary that links the plugin's code instead of loading it (the fuzz
// target `dicom`): DicomFile uses `api` (medreact_dicom_api(...)) from now on.
// REQUIRES: called before the first DICOM parse; `api` outlives the process.
void UseLinkedDicomPlugin(const MedreactDicomApi* api);

}  // namespace medreact::imaging

#endif  // MEDREACT_TOOLS_IMAGING_DICOM_IMAGE_H_
