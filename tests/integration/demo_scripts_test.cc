// `make run`'s demos (examples/run.sh, examples/research/run.sh,
// examples/cxr/run.sh, examples/page.sh) and the chat demo keep what they write in the build
// folder they are given: their runs go to a store there (demo-runs.sqlite),
// never to the user's data or cache folders; cxr's result too (cxr-demo/). Each script
// runs for real against a build folder of links to the binaries, with HOME
// pointing at an empty folder that must stay empty.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "testing/build_paths.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

namespace fs = std::filesystem;
using testing::ProcessResult;
using testing::RunCommand;
using testing::TempDir;

// Everything under `dir`, as paths relative to it.
std::vector<std::string> FilesUnder(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    out.push_back(fs::relative(it->path(), dir).string());
  }
  return out;
}

class DemoScriptsTest : public ::testing::TestWithParam<const char*> {};

TEST_P(DemoScriptsTest, WritesOnlyIntoTheBuildFolder) {
  TempDir dir;
  fs::create_directories(dir.File("build"));
  fs::create_directories(dir.File("home"));
  fs::create_symlink(MEDREACT_BINARY, dir.File("build/medreact"));
  fs::create_symlink(MEDREACT_MOCK_LLM_BINARY, dir.File("build/medreact-mock-llm"));
  const std::string script = std::string(MEDREACT_SOURCE_DIR) + "/" + GetParam();
  ProcessResult r = RunCommand({"/bin/bash", script, dir.File("build")},
                               {{"HOME", dir.File("home")}, {"XDG_DATA_HOME", ""}, {"XDG_CACHE_HOME", ""}},
                               std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.out << "\n" << r.err;
  EXPECT_THAT(FilesUnder(dir.File("home")), ::testing::IsEmpty()) << "the demo wrote into the user's folders";
  EXPECT_TRUE(fs::is_regular_file(dir.File("build/demo-runs.sqlite"))) << r.out << "\n" << r.err;
  if (std::string(GetParam()) == "examples/cxr/run.sh") {
    EXPECT_TRUE(fs::is_regular_file(dir.File("build/cxr-demo/result.json"))) << r.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Demos, DemoScriptsTest,
                         ::testing::Values("examples/run.sh", "examples/research/run.sh", "examples/cxr/run.sh",
                                           "examples/chat/run.sh", "examples/page.sh"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           const fs::path path(info.param);
                           std::string name = path.parent_path().filename().string();
                           if (name != "examples") return name;
                           return path.stem() == "run" ? std::string("main") : path.stem().string();
                         });

}  // namespace
}  // namespace medreact
