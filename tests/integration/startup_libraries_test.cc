// Which shared objects a medreact process maps (issue 22, start-up): commands
// that read no image must not load DCMTK and what it pulls in (ICU, libxml2,
// libtiff, libwebp, CharLS...), which live behind the DICOM plugin
// (medreact_dicom.so, loaded on first use), and commands that talk to no model
// must not load libcurl (loaded at the first HTTP request). Speed is not
// asserted here (docs/benchmarks.md, "Start-up"): what is loaded is.
//
// The dynamic loader reports every object it maps, at start-up and through
// dlopen, when LD_DEBUG=files; LD_DEBUG_OUTPUT sends the report to
// <prefix>.<pid> instead of stderr. That is the loader's own bookkeeping, so it
// holds under AddressSanitizer too (the sanitizer build runs this test).
#include <dirent.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using testing::EnvList;
using testing::MockLlmProcess;
using testing::ProcessResult;
using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::TempDir;

const std::string kSource = MEDREACT_SOURCE_DIR;

// The file names (no folder) of every shared object the command's process
// mapped, from the loader's report; `result` gets the command's outcome.
std::set<std::string> LoadedObjects(const std::vector<std::string>& argv, ProcessResult* result) {
  TempDir report;
  const EnvList env = {{"LD_DEBUG", "files"}, {"LD_DEBUG_OUTPUT", report.File("ld")}};
  *result = RunCommand(argv, env);
  std::set<std::string> names;
  const std::regex file_line(R"(file=(\S+) \[\d+\];\s+(needed by|dynamically loaded by))");
  DIR* dir = ::opendir(report.path().c_str());
  if (dir == nullptr) return names;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string text = ReadFileOrEmpty(report.File(entry->d_name));
    for (std::sregex_iterator it(text.begin(), text.end(), file_line), end; it != end; ++it) {
      const std::string path = (*it)[1];
      names.insert(path.substr(path.find_last_of('/') + 1));
    }
  }
  ::closedir(dir);
  return names;
}

// The objects in `names` whose file name starts with one of `prefixes`.
std::vector<std::string> Matching(const std::set<std::string>& names, const std::vector<std::string>& prefixes) {
  std::vector<std::string> found;
  for (const std::string& name : names) {
    for (const std::string& prefix : prefixes) {
      if (name.rfind(prefix, 0) == 0) found.push_back(name);
    }
  }
  return found;
}

std::string Listed(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// DCMTK's libraries and the heavy ones it pulls in, and the plugin itself.
const std::vector<std::string> kImagingOnly = {
    "medreact_dicom", "libdcm", "libofstd", "liboflog", "libi2d", "libijg", "libicu", "libxml2",
    "libtiff", "libwebp", "libLerc", "libdeflate", "libjbig", "liblzma", "libopenjp", "libcharls"};
const std::vector<std::string> kHttpOnly = {"libcurl", "libssl", "libcrypto", "libgnutls", "libnghttp2"};

// A command that reads no image and talks to no model.
void ExpectNeither(const std::vector<std::string>& argv, const std::string& what) {
  ProcessResult r;
  const std::set<std::string> loaded = LoadedObjects(argv, &r);
  ASSERT_EQ(r.exit_code, 0) << what << ": " << r.err;
  ASSERT_FALSE(loaded.empty()) << what << ": the loader reported nothing (LD_DEBUG ignored?)";
  EXPECT_EQ(Listed(Matching(loaded, kImagingOnly)), "") << what << " mapped imaging libraries";
  EXPECT_EQ(Listed(Matching(loaded, kHttpOnly)), "") << what << " mapped HTTP libraries";
}

TEST(StartupLibrariesTest, HelpCalcTriageAndExtractMapNoImagingNorHttpLibraries) {
  ExpectNeither({MEDREACT_BINARY, "--help"}, "--help");
  ExpectNeither({MEDREACT_BINARY, "calc", "body_mass_index", "--args", R"({"weight": 70, "height": 175})"}, "calc");
  const std::string worklist_case = kSource + "/examples/worklist/01-pe-on-warfarin/";
  ExpectNeither({MEDREACT_BINARY, "triage", "--no-store", "--fhir", worklist_case + "fhir.json", "--findings-file",
                 worklist_case + "findings.txt"},
                "triage (rules planner)");
  TempDir dir;
  ExpectNeither({MEDREACT_BINARY, "extract", "--no-store", "--note", kSource + "/examples/extract/pediatric-malnutrition.txt",
                 "--schema", kSource + "/examples/extract/pediatric-malnutrition.schema.json", "--corpus",
                 kSource + "/data/guidelines", "--rag-db", dir.File("rag.sqlite"), "--out", dir.File("result.json")},
                "extract (offline plan)");
}

TEST(StartupLibrariesTest, OneShotChatMapsHttpButNoImagingLibraries) {
  MockLlmProcess mock(R"({"select": "by_turn", "responses": [{"message": {"content": "Hello."}}]})");
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  for (const std::vector<std::string>& store : std::vector<std::vector<std::string>>{
           {"--no-store"}, {"--store", dir.File("runs.sqlite")}}) {
    std::vector<std::string> argv = {MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--model", "mock"};
    argv.insert(argv.end(), store.begin(), store.end());
    argv.push_back("hi");
    ProcessResult r;
    const std::set<std::string> loaded = LoadedObjects(argv, &r);
    ASSERT_EQ(r.exit_code, 0) << store[0] << ": " << r.err;
    EXPECT_EQ(r.out, "Hello.\n");
    EXPECT_EQ(Listed(Matching(loaded, kImagingOnly)), "") << "chat " << store[0] << " mapped imaging libraries";
    EXPECT_EQ(Listed(Matching(loaded, {"libcurl"})), "libcurl.so.4") << "the report misses the dlopen of libcurl";
  }
}

// The control: the same report does see the plugin and DCMTK when a DICOM
// file is read, so the tests above cannot pass by seeing nothing.
TEST(StartupLibrariesTest, DicomLoadsThePluginAndDcmtkOnUse) {
  TempDir dir;
  ProcessResult r;
  const std::set<std::string> loaded = LoadedObjects(
      {MEDREACT_BINARY, "dicom", kSource + "/tests/fixtures/dicom/CT_small.dcm", "--png", dir.File("ct.png")}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Listed(Matching(loaded, {"medreact_dicom"})), "medreact_dicom.so");
  EXPECT_NE(Listed(Matching(loaded, {"libdcmdata"})), "");
}

// Without the plugin DICOM is refused with the loader's reason, never a crash,
// and the rest of the binary works.
TEST(StartupLibrariesTest, MissingPluginIsAClearError) {
  TempDir empty;
  const EnvList env = {{"MEDREACT_PLUGIN_DIR", empty.path()}};
  ProcessResult r = RunCommand(
      {MEDREACT_BINARY, "dicom", kSource + "/tests/fixtures/dicom/CT_small.dcm", "--png", empty.File("ct.png")}, env);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.term_signal, 0);
  EXPECT_NE(r.err.find("DICOM support is not available: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(empty.File("medreact_dicom.so")), std::string::npos) << r.err;
  EXPECT_EQ(RunCommand({MEDREACT_BINARY, "--help"}, env).exit_code, 0);
}

}  // namespace
}  // namespace medreact
