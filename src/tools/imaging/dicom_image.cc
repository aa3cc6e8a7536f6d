// DICOM reading and rendering over DCMTK (dcmdata, dcmimgle, dcmimage, the
// JPEG / JPEG-LS / RLE decoders). PNG writing is image_codec.cc's.
//
// The bytes are read whole (ReadUserFile: type check, size cap) and parsed
// from memory, so a file and a fuzzer's bytes take the same path. DCMTK's
// DcmFileFormat::read detects the preamble/meta header itself (ERM_autoDetect,
// its default) and the dataset's VR and byte order when no meta header says
// it; a file without meta header is first sniffed for a plausible first tag so
// that a text file is "not DICOM" rather than a garbage dataset.
#include "tools/imaging/dicom_image.h"

#include <mutex>
#include <sstream>
#include <utility>

#include <dcmtk/config/osconfig.h>  // first of DCMTK's headers, always
#include <dcmtk/dcmdata/dcdatset.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcistrmb.h>
#include <dcmtk/dcmdata/dcrledrg.h>
#include <dcmtk/dcmdata/dcxfer.h>
#include <dcmtk/dcmimage/diregist.h>  // colour images (RGB, palette, YBR) for DicomImage
#include <dcmtk/dcmimgle/dcmimage.h>
#include <dcmtk/dcmjpeg/djdecode.h>
#include <dcmtk/dcmjpls/djdecode.h>
#include <dcmtk/oflog/oflog.h>

#include "core/file_io.h"
#include "tools/imaging/dicom_metadata.h"

namespace medreact::imaging {

// Once per process: DCMTK's logger to FATAL (it would otherwise print
// warnings and errors about hostile files on stderr) and the decoders.
// DCMTK's registrations are not themselves safe to race, hence call_once.
void InitDcmtk() {
  static std::once_flag once;
  std::call_once(once, [] {
    OFLog::configure(OFLogger::FATAL_LOG_LEVEL);
    DJDecoderRegistration::registerCodecs();
    DJLSDecoderRegistration::registerCodecs();
    DcmRLEDecoderRegistration::registerCodecs();
  });
}

struct DicomFile::Impl {
  std::string name;
  DcmFileFormat file;
};

namespace {

// Whether bytes without a "DICM" marker start like a dataset: the first tag's
// group is 0x0002 (meta) or 0x0008 (identifying), in either byte order, as
// every real headerless file we know of does (PS3.10 7.1 puts the meta group
// first; a bare dataset starts at its lowest group, almost always 0008).
bool LooksLikeBareDataset(std::string_view bytes) {
  if (bytes.size() < 8) return false;
  const auto b0 = static_cast<uint8_t>(bytes[0]);
  const auto b1 = static_cast<uint8_t>(bytes[1]);
  const unsigned little = b0 | (b1 << 8);
  const unsigned big = (b0 << 8) | b1;
  return little == 0x0002 || little == 0x0008 || big == 0x0002 || big == 0x0008;
}

bool HasPart10Marker(std::string_view bytes) {
  return bytes.size() >= 132 && bytes.substr(128, 4) == "DICM";
}

std::string XferDescription(E_TransferSyntax xfer) {
  DcmXfer x(xfer);
  return std::string(x.getXferID()) + " (" + x.getXferName() + ")";
}

}  // namespace

DicomFile::DicomFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DicomFile::DicomFile(DicomFile&&) noexcept = default;
DicomFile& DicomFile::operator=(DicomFile&&) noexcept = default;
DicomFile::~DicomFile() = default;

const std::string& DicomFile::name() const { return impl_->name; }

std::string DicomFile::TransferSyntaxUid() const {
  return DcmXfer(impl_->file.getDataset()->getOriginalXfer()).getXferID();
}

std::string DicomFile::TransferSyntaxName() const {
  return DcmXfer(impl_->file.getDataset()->getOriginalXfer()).getXferName();
}

Result<DicomFile> DicomFile::Read(const std::string& path) {
  Result<std::string> bytes = ReadUserFile(path, "DICOM file", kMaxDicomBytes);
  if (!bytes.ok()) return bytes.status();
  return Parse(*bytes, path);
}

Result<DicomFile> DicomFile::Parse(std::string_view bytes, std::string name) {
  InitDcmtk();
  if (!HasPart10Marker(bytes) && !LooksLikeBareDataset(bytes)) {
    return Status::InvalidArgument(name + ": not a DICOM file (no 'DICM' marker at byte 128 and no "
                                          "DICOM element at the start)");
  }
  auto impl = std::make_unique<Impl>();
  impl->name = std::move(name);
  DcmInputBufferStream stream;
  stream.setBuffer(bytes.data(), static_cast<offile_off_t>(bytes.size()));
  stream.setEos();
  impl->file.transferInit();
  OFCondition cond = impl->file.read(stream, EXS_Unknown, EGL_noChange, DCM_MaxReadLength);
  impl->file.transferEnd();
  if (cond.good()) cond = impl->file.loadAllDataIntoMemory();
  if (cond.bad()) {
    return Status::InvalidArgument(impl->name + ": not valid DICOM, truncated or corrupt (" + cond.text() + ")");
  }
  if (impl->file.getDataset()->card() == 0) {
    return Status::InvalidArgument(impl->name + ": not valid DICOM (no data elements after the header)");
  }
  return DicomFile(std::move(impl));
}

Result<RenderedFrame> DicomFile::RenderFirstFrame() {
  DcmDataset* dataset = impl_->file.getDataset();
  const std::string& name = impl_->name;
  const E_TransferSyntax xfer = dataset->getOriginalXfer();
  Uint16 rows = 0, columns = 0, samples = 1;
  if (dataset->findAndGetUint16(DCM_Rows, rows).bad() || dataset->findAndGetUint16(DCM_Columns, columns).bad() ||
      !dataset->tagExists(DCM_PixelData) || rows == 0 || columns == 0) {
    return Status::InvalidArgument(name + ": holds no image (Rows, Columns or Pixel Data missing or zero)");
  }
  dataset->findAndGetUint16(DCM_SamplesPerPixel, samples);
  if (uint64_t{rows} * columns * (samples == 0 ? 1 : samples) > kMaxDicomFramePixels) {
    return Status::InvalidArgument(name + ": frame of " + std::to_string(columns) + "x" + std::to_string(rows) +
                                   " is larger than this reader's limit");
  }
  // Compressed pixel data: decode here, so that a syntax without a decoder is
  // named rather than reported as a rendering failure.
  if (DcmXfer(xfer).isEncapsulated()) {
    OFCondition cond = dataset->chooseRepresentation(EXS_LittleEndianExplicit, nullptr);
    if (cond.bad() || !dataset->canWriteXfer(EXS_LittleEndianExplicit)) {
      return Status::InvalidArgument(name + ": transfer syntax " + XferDescription(xfer) +
                                     " is not supported or its pixel data cannot be decoded (" + cond.text() +
                                     "); supported: uncompressed, deflated, JPEG, JPEG-LS, RLE");
    }
  }
  RenderedFrame frame;
  frame.transfer_syntax_uid = TransferSyntaxUid();
  frame.transfer_syntax_name = TransferSyntaxName();
  OFString photometric;
  if (dataset->findAndGetOFString(DCM_PhotometricInterpretation, photometric).good()) {
    frame.photometric = photometric.c_str();
  }
  DicomImage image(dataset, dataset->getCurrentXfer(), 0UL, 0UL, 1UL);
  if (image.getStatus() != EIS_Normal) {
    return Status::InvalidArgument(name + ": cannot render the image (" + DicomImage::getString(image.getStatus()) +
                                   "; transfer syntax " + XferDescription(xfer) + ")");
  }
  frame.frames = image.getNumberOfFrames();
  frame.width = static_cast<int>(image.getWidth());
  frame.height = static_cast<int>(image.getHeight());
  if (image.isMonochrome()) {
    frame.channels = 1;
    image.getMinMaxValues(frame.min_value, frame.max_value);
    if (image.getVoiLutCount() > 0 && image.setVoiLut(1)) {
      frame.voi = "VOI LUT";
    } else if (image.getWindowCount() > 0 && image.setWindow(0)) {
      double center = 0, width = 0;
      image.getWindow(center, width);
      std::ostringstream text;
      text << "window " << center << "/" << width;
      frame.voi = text.str();
    } else {
      image.setMinMaxWindow(0);
      frame.voi = "min-max";
    }
  } else {
    frame.channels = 3;
  }
  const size_t expected = size_t{static_cast<size_t>(frame.width)} * frame.height * frame.channels;
  const void* data = image.getOutputData(8, 0, 0);
  if (data == nullptr || image.getOutputDataSize(8) < expected || expected == 0) {
    return Status::InvalidArgument(name + ": cannot render the first frame (" +
                                   DicomImage::getString(image.getStatus()) + "; transfer syntax " +
                                   XferDescription(xfer) + ")");
  }
  const auto* bytes = static_cast<const uint8_t*>(data);
  frame.pixels.assign(bytes, bytes + expected);
  return frame;
}

Result<Json> DicomFile::Metadata(const DicomMetadataOptions& options) const {
  return DatasetToJson(*impl_->file.getDataset(), impl_->name, options.keep_phi);
}

}  // namespace medreact::imaging
