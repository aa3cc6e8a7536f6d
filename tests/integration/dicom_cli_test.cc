// `medreact dicom`: PNG of Columns × Rows, DICOM JSON with and without PHI,
// files 0600, exit codes and messages for bad input.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <string>

#include "testing/build_paths.h"
#include "medreact/json.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::TempDir;

const std::string kDir = MEDREACT_SOURCE_DIR + "/tests/fixtures/dicom/";

struct PngHeader {
  bool ok = false;
  uint32_t width = 0;
  uint32_t height = 0;
  int colour_type = -1;
};

// The IHDR chunk, which PNG puts first after the 8-byte signature.
PngHeader ReadPngHeader(const std::string& path) {
  const std::string png = ReadFileOrEmpty(path);
  PngHeader header;
  if (png.size() < 33 || png.compare(0, 8, std::string("\x89PNG\r\n\x1a\n", 8)) != 0 || png.compare(12, 4, "IHDR") != 0) {
    return header;
  }
  auto be32 = [&](size_t at) {
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(png[at + i]);
    return v;
  };
  header = {.ok = true, .width = be32(16), .height = be32(20), .colour_type = static_cast<uint8_t>(png[25])};
  return header;
}

int Mode(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int>(st.st_mode & 0777) : -1;
}

TEST(DicomCliTest, WritesPngOfColumnsByRowsForEveryFixture) {
  TempDir dir;
  const std::pair<const char*, std::pair<uint32_t, uint32_t>> cases[] = {
      {"CR-MONO1-10-chest.dcm", {440, 440}}, {"CR_6154_16x16.dcm", {16, 16}}, {"CT_small.dcm", {128, 128}}};
  for (const auto& [name, size] : cases) {
    SCOPED_TRACE(name);
    const std::string out = dir.File(std::string(name) + ".png");
    testing::ProcessResult r = RunCommand({MEDREACT_BINARY, "dicom", kDir + name, "--png", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    PngHeader header = ReadPngHeader(out);
    ASSERT_TRUE(header.ok);
    EXPECT_EQ(header.width, size.first);
    EXPECT_EQ(header.height, size.second);
    EXPECT_EQ(header.colour_type, 0);
    EXPECT_EQ(Mode(out), 0600);
    EXPECT_NE(r.err.find(std::to_string(size.first) + "x" + std::to_string(size.second)), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("MONOCHROME"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("transfer syntax 1.2.840.10008.1.2"), std::string::npos) << r.err;
  }
}

TEST(DicomCliTest, JsonWithoutPhiByDefaultAndWithKeepPhi) {
  TempDir dir;
  testing::ProcessResult r = RunCommand({MEDREACT_BINARY, "dicom", kDir + "CR_6154_16x16.dcm", "--png",
                                         dir.File("a.png"), "--json", dir.File("a.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Mode(dir.File("a.json")), 0600);
  Result<Json> deidentified = ParseJson(ReadFileOrEmpty(dir.File("a.json")));
  ASSERT_TRUE(deidentified.ok());
  EXPECT_FALSE((*deidentified)["00100010"].contains("Value"));
  EXPECT_EQ(ReadFileOrEmpty(dir.File("a.json")).find("Archibald"), std::string::npos);
  EXPECT_EQ(ReadFileOrEmpty(dir.File("a.json")).find("77654033"), std::string::npos);
  EXPECT_EQ(ReadFileOrEmpty(dir.File("a.json")).find("7FE00010"), std::string::npos);

  r = RunCommand({MEDREACT_BINARY, "dicom", kDir + "CR_6154_16x16.dcm", "--png", dir.File("b.png"), "--json",
                  dir.File("b.json"), "--keep-phi"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Result<Json> kept = ParseJson(ReadFileOrEmpty(dir.File("b.json")));
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ((*kept)["00100010"]["Value"][0]["Alphabetic"], "Doe^Archibald");
  EXPECT_EQ((*kept)["00100020"]["Value"][0], "77654033");
}

TEST(DicomCliTest, BadInputExitsTwoWithTheReasonAndWritesNothing) {
  TempDir dir;
  dir.Write("note.txt", "not an image\n");
  const std::string ct = ReadFileOrEmpty(kDir + "CT_small.dcm");
  dir.Write("half.dcm", ct.substr(0, ct.size() / 2));
  const std::pair<std::string, std::string> cases[] = {
      {dir.File("missing.dcm"), "does not exist"},
      {dir.File("note.txt"), "not a DICOM file"},
      {dir.File("half.dcm"), "truncated"},
  };
  for (const auto& [input, reason] : cases) {
    SCOPED_TRACE(input);
    testing::ProcessResult r = RunCommand({MEDREACT_BINARY, "dicom", input, "--png", dir.File("x.png")});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("W: "), std::string::npos) << "DCMTK's logger is silenced: " << r.err;
    EXPECT_EQ(Mode(dir.File("x.png")), -1);
  }
  // An output folder that does not exist: refused before reading.
  testing::ProcessResult r =
      RunCommand({MEDREACT_BINARY, "dicom", kDir + "CT_small.dcm", "--png", dir.File("no/such/dir/x.png")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // --png is required.
  r = RunCommand({MEDREACT_BINARY, "dicom", kDir + "CT_small.dcm"});
  EXPECT_NE(r.exit_code, 0);
}

}  // namespace
}  // namespace medreact
