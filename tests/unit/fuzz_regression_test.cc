// Replays the committed fuzz inputs through the fuzz target bodies
// (fuzz/fuzz_bodies.h), so that `make test` catches a regression without a
// fuzzing build: every crash reproducer in fuzz/regressions/<target>/ and every
// hand-written seed in fuzz/seeds/<target>/ is one test. A reproducer that
// crashes the process (stack overflow, abort, uncaught exception) fails its
// test only: ctest runs each test in its own process.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "testing/build_paths.h"
#include "fuzz/fuzz_bodies.h"

namespace medreact::fuzz {
namespace {

namespace fs = std::filesystem;

struct ReplayCase {
  std::string target;
  FuzzBody body = nullptr;
  fs::path file;
  std::string label;  // unique, [A-Za-z0-9_]: the test's name
};

// gtest prints the parameter on failure.
void PrintTo(const ReplayCase& c, std::ostream* os) { *os << c.file.string(); }

fs::path FuzzDir() { return fs::path(MEDREACT_SOURCE_DIR) / "fuzz"; }

std::string Sanitize(const std::string& text) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

std::vector<ReplayCase> CommittedInputs() {
  std::vector<ReplayCase> cases;
  std::set<std::string> labels;
  for (const FuzzTarget& target : FuzzTargets()) {
    for (const char* kind : {"regressions", "seeds"}) {
      fs::path dir = FuzzDir() / kind / std::string(target.name);
      std::error_code ec;
      if (!fs::is_directory(dir, ec)) continue;
      std::vector<fs::path> files;
      for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
        if (entry.is_regular_file() && entry.path().filename().string()[0] != '.') files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
      for (const fs::path& file : files) {
        std::string label = std::string(kind) + "_" + std::string(target.name) + "_" + Sanitize(file.filename().string());
        for (int n = 2; labels.count(label); ++n) label += "_" + std::to_string(n);
        labels.insert(label);
        cases.push_back({std::string(target.name), target.body, file, label});
      }
    }
  }
  return cases;
}

class FuzzReplay : public ::testing::TestWithParam<ReplayCase> {};

TEST_P(FuzzReplay, RunsCleanly) {
  const ReplayCase& c = GetParam();
  std::ifstream in(c.file, std::ios::binary);
  ASSERT_TRUE(in) << "cannot read " << c.file;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(c.body(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), 0) << c.file;
}

INSTANTIATE_TEST_SUITE_P(Committed, FuzzReplay, ::testing::ValuesIn(CommittedInputs()),
                         [](const ::testing::TestParamInfo<ReplayCase>& info) { return info.param.label; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FuzzReplay);

// Every target has hand-written seeds, and every folder under fuzz/seeds and
// fuzz/regressions names a target (a typo would silently skip its files).
TEST(FuzzCorpus, SeedAndRegressionFoldersMatchTheTargets) {
  std::set<std::string> names;
  for (const FuzzTarget& target : FuzzTargets()) {
    names.insert(std::string(target.name));
    EXPECT_TRUE(fs::is_directory(FuzzDir() / "seeds" / std::string(target.name))) << target.name << " has no seeds";
  }
  for (const char* kind : {"regressions", "seeds"}) {
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(FuzzDir() / kind, ec)) {
      if (entry.is_directory()) {
        EXPECT_TRUE(names.count(entry.path().filename().string())) << entry.path();
      }
    }
  }
}

}  // namespace
}  // namespace medreact::fuzz
