// DicomFile over the four fixtures in tests/fixtures/dicom (see its NOTICE and
// the shared data README for each file's quirk), files made here with DCMTK's
// own encoders (RLE, JPEG-LS) and hostile bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcdatset.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcpixel.h>
#include <dcmtk/dcmdata/dcpixseq.h>
#include <dcmtk/dcmdata/dcpxitem.h>
#include <dcmtk/dcmdata/dcrleerg.h>
#include <dcmtk/dcmjpls/djencode.h>

#include "testing/build_paths.h"
#include "medreact/json.h"
#include "testing/subprocess.h"
#include "tools/imaging/dicom_image.h"

namespace medreact::imaging {
namespace {

const std::string kDir = MEDREACT_SOURCE_DIR + "/tests/fixtures/dicom/";

RenderedFrame Render(const std::string& path) {
  Result<DicomFile> file = DicomFile::Read(path);
  EXPECT_TRUE(file.ok()) << file.status().message();
  if (!file.ok()) return {};
  Result<RenderedFrame> frame = file->RenderFirstFrame();
  EXPECT_TRUE(frame.ok()) << frame.status().message();
  return frame.ok() ? *frame : RenderedFrame{};
}

Json Metadata(const std::string& path, bool keep_phi) {
  Result<DicomFile> file = DicomFile::Read(path);
  EXPECT_TRUE(file.ok()) << file.status().message();
  if (!file.ok()) return Json::object();
  Result<Json> json = file->Metadata({.keep_phi = keep_phi});
  EXPECT_TRUE(json.ok()) << json.status().message();
  return json.ok() ? *json : Json::object();
}

int FirstInt(const Json& metadata, const char* tag) {
  return metadata.at(tag).at("Value").at(0).get<int>();
}

std::vector<uint8_t> Base64Decode(const std::string& text) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<uint8_t> out;
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    const size_t value = kAlphabet.find(c);
    if (value == std::string::npos) continue;  // '=' and line breaks
    buffer = (buffer << 6) | static_cast<uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

// The stored values of a 16-bit unsigned little-endian frame in a pydicom
// DICOM JSON companion (InlineBinary of 7FE00010).
std::vector<int> StoredValues(const std::string& json_path) {
  Result<Json> json = ParseJson(testing::ReadFileOrEmpty(json_path));
  EXPECT_TRUE(json.ok());
  if (!json.ok()) return {};
  std::vector<uint8_t> bytes = Base64Decode(json->at("7FE00010").at("InlineBinary").get<std::string>());
  std::vector<int> values;
  for (size_t i = 0; i + 1 < bytes.size(); i += 2) values.push_back(bytes[i] | (bytes[i + 1] << 8));
  return values;
}

std::string Bytes(const std::string& path) { return testing::ReadFileOrEmpty(path); }

// The same file with its Photometric Interpretation MONOCHROME1 → MONOCHROME2
// (same length), rendered.
RenderedFrame RenderAsMonochrome2(const std::string& path) {
  std::string bytes = Bytes(path);
  const size_t at = bytes.find("MONOCHROME1");
  EXPECT_NE(at, std::string::npos);
  if (at != std::string::npos) bytes[at + 10] = '2';
  Result<DicomFile> file = DicomFile::Parse(bytes, path);
  EXPECT_TRUE(file.ok()) << file.status().message();
  if (!file.ok()) return {};
  Result<RenderedFrame> frame = file->RenderFirstFrame();
  EXPECT_TRUE(frame.ok()) << frame.status().message();
  return frame.ok() ? *frame : RenderedFrame{};
}

TEST(DicomTest, EveryFixtureDecodesToColumnsByRows) {
  for (const char* name : {"CR-MONO1-10-chest.dcm", "CR-ModalitySequenceLUT.dcm", "CR_6154_16x16.dcm", "CT_small.dcm"}) {
    SCOPED_TRACE(name);
    RenderedFrame frame = Render(kDir + name);
    Json meta = Metadata(kDir + name, false);
    ASSERT_TRUE(meta.contains("00280011") && meta.contains("00280010"));
    EXPECT_EQ(frame.width, FirstInt(meta, "00280011"));
    EXPECT_EQ(frame.height, FirstInt(meta, "00280010"));
    EXPECT_EQ(frame.channels, 1);
    EXPECT_EQ(frame.pixels.size(), static_cast<size_t>(frame.width) * frame.height);
    EXPECT_EQ(frame.frames, 1u);
    EXPECT_FALSE(frame.voi.empty());
    EXPECT_GT(*std::max_element(frame.pixels.begin(), frame.pixels.end()),
              *std::min_element(frame.pixels.begin(), frame.pixels.end()));
  }
}

TEST(DicomTest, HeaderlessImplicitFileIsReadAndReported) {
  RenderedFrame frame = Render(kDir + "CR-MONO1-10-chest.dcm");
  EXPECT_EQ(frame.width, 440);
  EXPECT_EQ(frame.height, 440);
  EXPECT_EQ(frame.photometric, "MONOCHROME1");
  EXPECT_EQ(frame.transfer_syntax_uid, "1.2.840.10008.1.2");
  EXPECT_NE(frame.transfer_syntax_name.find("Implicit"), std::string::npos);
}

TEST(DicomTest, Monochrome1IsInvertedAgainstMonochrome2) {
  for (const char* name : {"CR-MONO1-10-chest.dcm", "CR_6154_16x16.dcm"}) {
    SCOPED_TRACE(name);
    RenderedFrame mono1 = Render(kDir + name);
    RenderedFrame mono2 = RenderAsMonochrome2(kDir + name);
    ASSERT_EQ(mono1.pixels.size(), mono2.pixels.size());
    ASSERT_FALSE(mono1.pixels.empty());
    for (size_t i = 0; i < mono1.pixels.size(); ++i) {
      ASSERT_NEAR(mono1.pixels[i] + mono2.pixels[i], 255, 1) << "pixel " << i;
    }
  }
}

// CR_6154_16x16: stored values in its JSON companion (pydicom), Rescale
// Slope 0.684 / Intercept 200, Window 1600/2800, MONOCHROME1. Expected grey
// by PS3.3 C.11.2.1.2.1 (linear window), then inverted.
TEST(DicomTest, SixteenBySixteenMatchesRescaleWindowAndInversionOfItsStoredValues) {
  std::vector<int> stored = StoredValues(kDir + "CR_6154_16x16.dcm.json");
  ASSERT_EQ(stored.size(), 256u);
  RenderedFrame frame = Render(kDir + "CR_6154_16x16.dcm");
  ASSERT_EQ(frame.pixels.size(), 256u);
  EXPECT_EQ(frame.voi, "window 1600/2800");
  const double center = 1600, width = 2800;
  for (size_t i = 0; i < stored.size(); ++i) {
    const double value = stored[i] * 0.684 + 200;
    double grey = ((value - (center - 0.5)) / (width - 1) + 0.5) * 255;
    grey = std::clamp(grey, 0.0, 255.0);
    ASSERT_NEAR(frame.pixels[i], 255 - grey, 1.01) << "pixel " << i << " stored " << stored[i];
  }
  const auto [lo, hi] = std::minmax_element(stored.begin(), stored.end());
  // DCMTK holds modality values as integers (truncated).
  EXPECT_NEAR(frame.min_value, *lo * 0.684 + 200, 1.0);
  EXPECT_NEAR(frame.max_value, *hi * 0.684 + 200, 1.0);
}

// CT_small: Rescale Intercept -1024, slope 1 (Hounsfield units); signed stored values.
TEST(DicomTest, CtSmallRescaleIsApplied) {
  std::vector<int> stored = StoredValues(kDir + "CT_small.dcm.json");
  ASSERT_EQ(stored.size(), 128u * 128u);
  for (int& v : stored) v = static_cast<int16_t>(v);  // Pixel Representation 1
  RenderedFrame frame = Render(kDir + "CT_small.dcm");
  const auto [lo, hi] = std::minmax_element(stored.begin(), stored.end());
  EXPECT_DOUBLE_EQ(frame.min_value, *lo - 1024.0);
  EXPECT_DOUBLE_EQ(frame.max_value, *hi - 1024.0);
  EXPECT_EQ(frame.voi, "min-max");
  EXPECT_EQ(frame.photometric, "MONOCHROME2");
}

// CR-ModalitySequenceLUT: JPEG Lossless with a Modality LUT Sequence; the
// values after the LUT lie in the LUT's output range, not the stored range.
TEST(DicomTest, ModalityLutSequenceJpegLosslessFile) {
  RenderedFrame frame = Render(kDir + "CR-ModalitySequenceLUT.dcm");
  EXPECT_EQ(frame.transfer_syntax_uid, "1.2.840.10008.1.2.4.70");
  Json meta = Metadata(kDir + "CR-ModalitySequenceLUT.dcm", false);
  ASSERT_TRUE(meta.contains("00283000"));
  const Json& item = meta["00283000"]["Value"].at(0);
  const Json& descriptor = item.at("00283002").at("Value");
  const int entries = descriptor.at(0).get<int>() == 0 ? 65536 : descriptor.at(0).get<int>();
  const int bits = descriptor.at(2).get<int>();
  EXPECT_GT(entries, 1);
  EXPECT_GE(frame.min_value, 0);
  EXPECT_LE(frame.max_value, std::pow(2.0, bits) - 1);
  EXPECT_LT(frame.min_value, frame.max_value);
}

TEST(DicomTest, MetadataIsDicomJsonWithoutPhiByDefault) {
  Json meta = Metadata(kDir + "CT_small.dcm", false);
  for (const auto& [tag, attribute] : meta.items()) {
    SCOPED_TRACE(tag);
    ASSERT_EQ(tag.size(), 8u);
    EXPECT_EQ(tag.find_first_not_of("0123456789ABCDEF"), std::string::npos);
    ASSERT_TRUE(attribute.is_object());
    ASSERT_TRUE(attribute.contains("vr"));
    EXPECT_EQ(attribute["vr"].get<std::string>().size(), 2u);
    if (attribute.contains("Value")) {
      EXPECT_TRUE(attribute["Value"].is_array());
    }
    EXPECT_NE(tag.rfind("7FE0", 0), 0u) << "pixel data left out";
    const unsigned group = std::stoul(tag.substr(0, 4), nullptr, 16);
    EXPECT_EQ(group % 2, 0u) << "private attribute kept";
  }
  // Annex E "Z": present and empty; "X"/"U": absent.
  for (const char* emptied : {"00100010", "00100020", "00100030", "00100040", "00080020", "00200010"}) {
    ASSERT_TRUE(meta.contains(emptied)) << emptied;
    EXPECT_FALSE(meta[emptied].contains("Value")) << emptied;
  }
  for (const char* removed : {"00101002", "00101010", "00080018", "0020000D", "0020000E", "00080080", "00080021"}) {
    EXPECT_FALSE(meta.contains(removed)) << removed;
  }
  EXPECT_EQ(meta.dump().find("CompressedSamples"), std::string::npos);
  EXPECT_EQ(meta.dump().find("1CT1"), std::string::npos);
  EXPECT_EQ(meta.dump().find("ABCD1234"), std::string::npos) << "nested Other Patient IDs Sequence";
  EXPECT_EQ(meta["00080060"]["Value"][0], "CT");
}

TEST(DicomTest, KeepPhiKeepsIdentifiersAndMatchesPydicomsJson) {
  Json meta = Metadata(kDir + "CT_small.dcm", true);
  Result<Json> expected = ParseJson(Bytes(kDir + "CT_small.dcm.json"));
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(meta["00100010"]["Value"][0]["Alphabetic"], "CompressedSamples^CT1");
  EXPECT_EQ(meta["00100020"]["Value"][0], "1CT1");
  // Nested sequence, private tags, UIDs, descriptions: as pydicom read them.
  for (const char* tag : {"00100010", "00100020", "00101002", "0020000D", "00080018", "00081030", "00280010"}) {
    SCOPED_TRACE(tag);
    ASSERT_TRUE(meta.contains(tag));
    EXPECT_EQ(meta[tag]["vr"], (*expected)[tag]["vr"]);
    EXPECT_EQ(meta[tag]["Value"], (*expected)[tag]["Value"]);
  }
  bool has_private = false;
  for (const auto& [tag, attribute] : meta.items()) has_private |= std::stoul(tag.substr(0, 4), nullptr, 16) % 2 == 1;
  EXPECT_TRUE(has_private);
  EXPECT_FALSE(meta.contains("7FE00010"));
}

TEST(DicomTest, HostileInputsGiveClearErrors) {
  testing::TempDir dir;
  const std::string ct = Bytes(kDir + "CT_small.dcm");
  dir.Write("text.dcm", "this is a note, not an image\n");
  dir.Write("short.dcm", ct.substr(0, 300));
  dir.Write("half.dcm", ct.substr(0, ct.size() / 2));
  dir.Write("empty.dcm", "");
  for (const char* name : {"text.dcm", "short.dcm", "half.dcm", "empty.dcm"}) {
    SCOPED_TRACE(name);
    Result<DicomFile> file = DicomFile::Read(dir.File(name));
    std::string message;
    if (file.ok()) {
      Result<RenderedFrame> frame = file->RenderFirstFrame();
      ASSERT_FALSE(frame.ok());
      message = frame.status().message();
    } else {
      message = file.status().message();
    }
    EXPECT_NE(message.find(name), std::string::npos) << message;
  }
  Result<DicomFile> text = DicomFile::Read(dir.File("text.dcm"));
  EXPECT_NE(text.status().message().find("not a DICOM file"), std::string::npos);
  Result<DicomFile> half = DicomFile::Read(dir.File("half.dcm"));
  EXPECT_NE(half.status().message().find("truncated"), std::string::npos) << half.status().message();
  EXPECT_EQ(DicomFile::Read(dir.File("missing.dcm")).status().code(), StatusCode::kNotFound);
}

// Encodes CT_small with DCMTK's own encoder into `xfer`, saved in `dir`.
std::string Encode(const testing::TempDir& dir, const std::string& name, E_TransferSyntax xfer) {
  DcmFileFormat file;
  EXPECT_TRUE(file.loadFile((kDir + "CT_small.dcm").c_str()).good());
  EXPECT_TRUE(file.getDataset()->chooseRepresentation(xfer, nullptr).good());
  EXPECT_TRUE(file.saveFile(dir.File(name).c_str(), xfer).good());
  return dir.File(name);
}

TEST(DicomTest, OtherSyntaxesWrittenByDcmtkDecodeToTheSamePixels) {
  DcmRLEEncoderRegistration::registerCodecs();
  DJLSEncoderRegistration::registerCodecs();
  testing::TempDir dir;
  RenderedFrame plain = Render(kDir + "CT_small.dcm");
  const std::pair<const char*, E_TransferSyntax> cases[] = {
      {"rle.dcm", EXS_RLELossless},           {"jls.dcm", EXS_JPEGLSLossless},
      {"be.dcm", EXS_BigEndianExplicit},      {"implicit.dcm", EXS_LittleEndianImplicit},
      {"deflated.dcm", EXS_DeflatedLittleEndianExplicit}};
  for (const auto& [name, xfer] : cases) {
    SCOPED_TRACE(name);
    RenderedFrame frame = Render(Encode(dir, name, xfer));
    EXPECT_EQ(frame.transfer_syntax_uid, DcmXfer(xfer).getXferID());
    EXPECT_EQ(frame.pixels, plain.pixels);
    EXPECT_DOUBLE_EQ(frame.min_value, plain.min_value);
  }
}

TEST(DicomTest, UnsupportedTransferSyntaxIsNamed) {
  // A JPEG 2000 file (no decoder in DCMTK's free toolkit) with one junk fragment.
  testing::TempDir dir;
  DcmFileFormat file;
  DcmDataset* ds = file.getDataset();
  ds->putAndInsertString(DCM_SOPClassUID, "1.2.840.10008.5.1.4.1.1.7");
  ds->putAndInsertString(DCM_PhotometricInterpretation, "MONOCHROME2");
  ds->putAndInsertUint16(DCM_SamplesPerPixel, 1);
  ds->putAndInsertUint16(DCM_Rows, 4);
  ds->putAndInsertUint16(DCM_Columns, 4);
  ds->putAndInsertUint16(DCM_BitsAllocated, 8);
  ds->putAndInsertUint16(DCM_BitsStored, 8);
  ds->putAndInsertUint16(DCM_HighBit, 7);
  ds->putAndInsertUint16(DCM_PixelRepresentation, 0);
  auto* sequence = new DcmPixelSequence(DCM_PixelSequenceTag);
  sequence->insert(new DcmPixelItem(DCM_PixelItemTag));  // empty offset table
  auto* fragment = new DcmPixelItem(DCM_PixelItemTag);
  const Uint8 junk[8] = {0xFF, 0x4F, 0xFF, 0x51, 1, 2, 3, 4};
  fragment->putUint8Array(junk, 8);
  sequence->insert(fragment);
  auto* pixels = new DcmPixelData(DCM_PixelData);
  pixels->putOriginalRepresentation(EXS_JPEG2000LosslessOnly, nullptr, sequence);
  ds->insert(pixels);
  ASSERT_TRUE(file.saveFile(dir.File("j2k.dcm").c_str(), EXS_JPEG2000LosslessOnly).good());

  Result<DicomFile> read = DicomFile::Read(dir.File("j2k.dcm"));
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->TransferSyntaxUid(), "1.2.840.10008.1.2.4.90");
  Result<RenderedFrame> frame = read->RenderFirstFrame();
  ASSERT_FALSE(frame.ok());
  EXPECT_NE(frame.status().message().find("1.2.840.10008.1.2.4.90"), std::string::npos) << frame.status().message();
  EXPECT_NE(frame.status().message().find("not supported"), std::string::npos);
  EXPECT_NE(frame.status().message().find("j2k.dcm"), std::string::npos);
}

// An 8-bit colour dataset of 2 × 1 pixels, red then blue, in `photometric`.
std::string SaveColour(const testing::TempDir& dir, const char* name, const char* photometric) {
  DcmFileFormat file;
  DcmDataset* ds = file.getDataset();
  ds->putAndInsertString(DCM_SOPClassUID, "1.2.840.10008.5.1.4.1.1.7");
  ds->putAndInsertUint16(DCM_Rows, 1);
  ds->putAndInsertUint16(DCM_Columns, 2);
  ds->putAndInsertUint16(DCM_BitsAllocated, 8);
  ds->putAndInsertUint16(DCM_BitsStored, 8);
  ds->putAndInsertUint16(DCM_HighBit, 7);
  ds->putAndInsertUint16(DCM_PixelRepresentation, 0);
  ds->putAndInsertString(DCM_PhotometricInterpretation, photometric);
  if (std::string(photometric) == "PALETTE COLOR") {
    // Two entries: 0 → red, 1 → blue (16-bit LUT data, descriptor {entries, first, bits}).
    ds->putAndInsertUint16(DCM_SamplesPerPixel, 1);
    const Uint16 descriptor[3] = {2, 0, 16};
    const Uint16 red[2] = {0xFFFF, 0}, green[2] = {0, 0}, blue[2] = {0, 0xFFFF};
    ds->putAndInsertUint16Array(DCM_RedPaletteColorLookupTableDescriptor, descriptor, 3);
    ds->putAndInsertUint16Array(DCM_GreenPaletteColorLookupTableDescriptor, descriptor, 3);
    ds->putAndInsertUint16Array(DCM_BluePaletteColorLookupTableDescriptor, descriptor, 3);
    ds->putAndInsertUint16Array(DCM_RedPaletteColorLookupTableData, red, 2);
    ds->putAndInsertUint16Array(DCM_GreenPaletteColorLookupTableData, green, 2);
    ds->putAndInsertUint16Array(DCM_BluePaletteColorLookupTableData, blue, 2);
    const Uint8 pixels[2] = {0, 1};
    ds->putAndInsertUint8Array(DCM_PixelData, pixels, 2);
  } else {
    ds->putAndInsertUint16(DCM_SamplesPerPixel, 3);
    ds->putAndInsertUint16(DCM_PlanarConfiguration, 0);
    // RGB red, blue; YBR_FULL (PS3.3 C.7.6.3.1.2) of the same colours.
    const Uint8 rgb[6] = {255, 0, 0, 0, 0, 255};
    const Uint8 ybr[6] = {76, 85, 255, 29, 255, 107};
    ds->putAndInsertUint8Array(DCM_PixelData, std::string(photometric) == "RGB" ? rgb : ybr, 6);
  }
  EXPECT_TRUE(file.saveFile(dir.File(name).c_str(), EXS_LittleEndianExplicit).good());
  return dir.File(name);
}

TEST(DicomTest, ColourModelsComeOutAsRgb) {
  testing::TempDir dir;
  const std::pair<const char*, const char*> cases[] = {
      {"rgb.dcm", "RGB"}, {"ybr.dcm", "YBR_FULL"}, {"palette.dcm", "PALETTE COLOR"}};
  for (const auto& [name, photometric] : cases) {
    SCOPED_TRACE(photometric);
    RenderedFrame frame = Render(SaveColour(dir, name, photometric));
    EXPECT_EQ(frame.channels, 3);
    EXPECT_EQ(frame.photometric, photometric);
    ASSERT_EQ(frame.pixels.size(), 6u);
    const int expected[6] = {255, 0, 0, 0, 0, 255};
    for (int i = 0; i < 6; ++i) EXPECT_NEAR(frame.pixels[i], expected[i], 2) << i;
    EXPECT_TRUE(EncodePng(frame).ok());
  }
}

// Every prefix of two fixtures (in steps) and bytes flipped in the header:
// a Status or a frame, never a crash.
TEST(DicomTest, PrefixesAndFlippedBytesNeverCrash) {
  for (const char* name : {"CR_6154_16x16.dcm", "CT_small.dcm"}) {
    const std::string bytes = Bytes(kDir + name);
    for (size_t cut = 0; cut < bytes.size(); cut += (cut < 1024 ? 7 : 401)) {
      Result<DicomFile> file = DicomFile::Parse(std::string_view(bytes).substr(0, cut), name);
      if (!file.ok()) continue;
      (void)file->Metadata({});
      (void)file->RenderFirstFrame();
    }
    for (size_t at = 128; at < std::min<size_t>(bytes.size(), 1400); at += 3) {
      std::string flipped = bytes;
      flipped[at] = static_cast<char>(flipped[at] ^ 0xFF);
      Result<DicomFile> file = DicomFile::Parse(flipped, name);
      if (!file.ok()) continue;
      (void)file->Metadata({.keep_phi = true});
      Result<RenderedFrame> frame = file->RenderFirstFrame();
      if (frame.ok()) {
        EXPECT_EQ(frame->pixels.size(), static_cast<size_t>(frame->width) * frame->height * frame->channels);
      }
    }
  }
}

TEST(DicomTest, PngHasTheFramesSizeAndKind) {
  RenderedFrame frame = Render(kDir + "CT_small.dcm");
  Result<std::string> png = EncodePng(frame);
  ASSERT_TRUE(png.ok()) << png.status().message();
  ASSERT_GT(png->size(), 33u);
  EXPECT_EQ(png->substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png->substr(12, 4), "IHDR");
  auto be32 = [&](size_t at) {
    return (uint32_t{static_cast<uint8_t>((*png)[at])} << 24) | (uint32_t{static_cast<uint8_t>((*png)[at + 1])} << 16) |
           (uint32_t{static_cast<uint8_t>((*png)[at + 2])} << 8) | uint32_t{static_cast<uint8_t>((*png)[at + 3])};
  };
  EXPECT_EQ(be32(16), 128u);
  EXPECT_EQ(be32(20), 128u);
  EXPECT_EQ((*png)[24], 8);  // bit depth
  EXPECT_EQ((*png)[25], 0);  // colour type: grey
  RenderedFrame rgb{Raster{.width = 2, .height = 1, .channels = 3, .pixels = {255, 0, 0, 0, 0, 255}}};
  Result<std::string> colour = EncodePng(rgb);
  ASSERT_TRUE(colour.ok());
  EXPECT_EQ((*colour)[25], 2);  // colour type: RGB
  RenderedFrame bad{Raster{.width = 3, .height = 3, .channels = 1, .pixels = {1, 2}}};
  EXPECT_FALSE(EncodePng(bad).ok());
}

}  // namespace
}  // namespace medreact::imaging
