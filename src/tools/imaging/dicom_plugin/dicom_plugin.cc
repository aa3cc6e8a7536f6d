// The DICOM plugin (medreact_dicom.so): reading and rendering over DCMTK
// (dcmdata, dcmimgle, dcmimage, the JPEG / JPEG-LS / RLE decoders) behind the
// C table of dicom_plugin_abi.h. The host side, DicomFile (dicom_image.cc),
// reads the file, loads this module on first use and turns its answers into
// Status values; PNG writing is image_codec.cc's.
//
// The bytes are parsed from memory, so a file and a fuzzer's bytes take the
// same path. DCMTK's DcmFileFormat::read detects the preamble/meta header
// itself (ERM_autoDetect, its default) and the dataset's VR and byte order
// when no meta header says it; a file without meta header is first sniffed
// for a plausible first tag so that a text file is "not DICOM" rather than a
// garbage dataset. Every entry point catches everything (std::bad_alloc from
// a hostile length, anything DCMTK throws): nothing crosses the C boundary.
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <sstream>
#include <string>
#include <string_view>
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

#include "tools/imaging/dicom_plugin/dicom_metadata.h"
#include "tools/imaging/dicom_plugin_abi.h"

// The file behind the C handle: the parsed dataset and the strings and pixels
// handed out last (owned here, valid until the next call or the close).
struct MedreactDicomFile {
  std::string name;
  DcmFileFormat file;
  std::string transfer_syntax_uid;
  std::string transfer_syntax_name;
  std::string photometric;
  std::string voi;
  std::unique_ptr<DicomImage> image;  // the last rendering: its output buffer is the frame's pixels
};

namespace medreact::imaging {
namespace {

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

void Write(const MedreactDicomText* text, std::string_view message) {
  if (text != nullptr && text->append != nullptr) text->append(text->context, message.data(), message.size());
}

// The result of an entry point: 0, or 1 with `message` written to `error`.
int Fail(const MedreactDicomText* error, std::string_view message) {
  Write(error, message);
  return 1;
}

// Runs `body` (returning 0 or Fail(...)) with every exception caught.
template <typename Body>
int Guarded(const MedreactDicomText* error, std::string_view name, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(error, std::string(name) + ": out of memory reading the DICOM data");
  } catch (const std::exception& e) {
    return Fail(error, std::string(name) + ": the DICOM reader failed (" + e.what() + ")");
  } catch (...) {
    return Fail(error, std::string(name) + ": the DICOM reader failed");
  }
}

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

int Parse(const char* data, size_t size, const char* name, MedreactDicomFile** out, const MedreactDicomText* error) {
  const std::string file_name = name != nullptr ? name : "DICOM data";
  return Guarded(error, file_name, [&] {
    InitDcmtk();
    const std::string_view bytes(data, data != nullptr ? size : 0);
    if (!HasPart10Marker(bytes) && !LooksLikeBareDataset(bytes)) {
      return Fail(error, file_name + ": not a DICOM file (no 'DICM' marker at byte 128 and no "
                                     "DICOM element at the start)");
    }
    auto file = std::make_unique<MedreactDicomFile>();
    file->name = file_name;
    DcmInputBufferStream stream;
    stream.setBuffer(bytes.data(), static_cast<offile_off_t>(bytes.size()));
    stream.setEos();
    file->file.transferInit();
    OFCondition cond = file->file.read(stream, EXS_Unknown, EGL_noChange, DCM_MaxReadLength);
    file->file.transferEnd();
    if (cond.good()) cond = file->file.loadAllDataIntoMemory();
    if (cond.bad()) {
      return Fail(error, file_name + ": not valid DICOM, truncated or corrupt (" + cond.text() + ")");
    }
    DcmDataset* dataset = file->file.getDataset();
    if (dataset->card() == 0) {
      return Fail(error, file_name + ": not valid DICOM (no data elements after the header)");
    }
    const DcmXfer xfer(dataset->getOriginalXfer());
    file->transfer_syntax_uid = xfer.getXferID();
    file->transfer_syntax_name = xfer.getXferName();
    *out = file.release();
    return 0;
  });
}

void Close(MedreactDicomFile* file) { delete file; }

const char* TransferSyntaxUid(const MedreactDicomFile* file) { return file->transfer_syntax_uid.c_str(); }

const char* TransferSyntaxName(const MedreactDicomFile* file) { return file->transfer_syntax_name.c_str(); }

// The grey pipeline of PS3.4 N.2 and the colour models, through DicomImage
// (dicom_image.h says which window is chosen and why).
int RenderFirstFrame(MedreactDicomFile* file, MedreactDicomFrame* frame, const MedreactDicomText* error) {
  const std::string& name = file->name;
  return Guarded(error, name, [&] {
    file->image.reset();  // the previous rendering (it refers to the dataset changed below)
    DcmDataset* dataset = file->file.getDataset();
    const E_TransferSyntax xfer = dataset->getOriginalXfer();
    Uint16 rows = 0, columns = 0, samples = 1;
    if (dataset->findAndGetUint16(DCM_Rows, rows).bad() || dataset->findAndGetUint16(DCM_Columns, columns).bad() ||
        !dataset->tagExists(DCM_PixelData) || rows == 0 || columns == 0) {
      return Fail(error, name + ": holds no image (Rows, Columns or Pixel Data missing or zero)");
    }
    dataset->findAndGetUint16(DCM_SamplesPerPixel, samples);
    if (uint64_t{rows} * columns * (samples == 0 ? 1 : samples) > MEDREACT_DICOM_MAX_FRAME_PIXELS) {
      return Fail(error, name + ": frame of " + std::to_string(columns) + "x" + std::to_string(rows) +
                             " is larger than this reader's limit");
    }
    // Compressed pixel data: decode here, so that a syntax without a decoder
    // is named rather than reported as a rendering failure.
    if (DcmXfer(xfer).isEncapsulated()) {
      OFCondition cond = dataset->chooseRepresentation(EXS_LittleEndianExplicit, nullptr);
      if (cond.bad() || !dataset->canWriteXfer(EXS_LittleEndianExplicit)) {
        return Fail(error, name + ": transfer syntax " + XferDescription(xfer) +
                               " is not supported or its pixel data cannot be decoded (" + cond.text() +
                               "); supported: uncompressed, deflated, JPEG, JPEG-LS, RLE");
      }
    }
    *frame = MedreactDicomFrame{};
    file->photometric.clear();
    file->voi.clear();
    OFString photometric;
    if (dataset->findAndGetOFString(DCM_PhotometricInterpretation, photometric).good()) {
      file->photometric = photometric.c_str();
    }
    file->image = std::make_unique<DicomImage>(dataset, dataset->getCurrentXfer(), 0UL, 0UL, 1UL);
    DicomImage& image = *file->image;
    if (image.getStatus() != EIS_Normal) {
      return Fail(error, name + ": cannot render the image (" + DicomImage::getString(image.getStatus()) +
                             "; transfer syntax " + XferDescription(xfer) + ")");
    }
    frame->frames = image.getNumberOfFrames();
    frame->width = static_cast<int32_t>(image.getWidth());
    frame->height = static_cast<int32_t>(image.getHeight());
    if (image.isMonochrome()) {
      frame->channels = 1;
      image.getMinMaxValues(frame->min_value, frame->max_value);
      if (image.getVoiLutCount() > 0 && image.setVoiLut(1)) {
        file->voi = "VOI LUT";
      } else if (image.getWindowCount() > 0 && image.setWindow(0)) {
        double center = 0, width = 0;
        image.getWindow(center, width);
        std::ostringstream text;
        text << "window " << center << "/" << width;
        file->voi = text.str();
      } else {
        image.setMinMaxWindow(0);
        file->voi = "min-max";
      }
    } else {
      frame->channels = 3;
    }
    const size_t expected = size_t{static_cast<size_t>(frame->width)} * frame->height * frame->channels;
    const void* data = image.getOutputData(8, 0, 0);
    if (data == nullptr || image.getOutputDataSize(8) < expected || expected == 0) {
      return Fail(error, name + ": cannot render the first frame (" + DicomImage::getString(image.getStatus()) +
                             "; transfer syntax " + XferDescription(xfer) + ")");
    }
    frame->pixels = static_cast<const uint8_t*>(data);
    frame->pixel_bytes = expected;
    frame->photometric = file->photometric.c_str();
    frame->voi = file->voi.c_str();
    return 0;
  });
}

int MetadataJson(const MedreactDicomFile* file, int keep_phi, const MedreactDicomText* out) {
  return Guarded(out, file->name, [&] {
    std::string text;
    // DCMTK's getDataset() has no const overload; DatasetToJson works on a copy.
    const DcmDataset& dataset = *const_cast<DcmFileFormat&>(file->file).getDataset();
    const bool ok = DatasetToJson(dataset, file->name, keep_phi != 0, &text);
    Write(out, text);
    return ok ? 0 : 1;
  });
}

constexpr MedreactDicomApi kApi = {
    .abi_version = MEDREACT_DICOM_ABI_VERSION,
    .parse = Parse,
    .close = Close,
    .transfer_syntax_uid = TransferSyntaxUid,
    .transfer_syntax_name = TransferSyntaxName,
    .render_first_frame = RenderFirstFrame,
    .metadata_json = MetadataJson,
};

}  // namespace
}  // namespace medreact::imaging

// The module's one exported symbol (the module is built with hidden
// visibility: nothing else is in its dynamic symbol table).
extern "C" __attribute__((visibility("default"))) const MedreactDicomApi* medreact_dicom_api(uint32_t abi_version) {
  return abi_version == MEDREACT_DICOM_ABI_VERSION ? &medreact::imaging::kApi : nullptr;
}
