// The layer rule (cmake/check_layers.cmake), which the build runs before any
// layer compiles: the repository follows it, and a file that includes a
// layer above its own (or a public header or folder the rule does not know)
// stops the build with a message naming the file and the rule.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "testing/build_paths.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;

testing::ProcessResult Check(const std::string& root) {
  return testing::RunCommand({MEDREACT_CMAKE_COMMAND, "-DROOT=" + root, "-P",
                              std::string(MEDREACT_SOURCE_DIR) + "/cmake/check_layers.cmake"});
}

// A minimal tree: one file per layer, each including only downward.
void WriteGoodTree(const testing::TempDir& dir) {
  for (const char* d : {"src/core", "src/llm", "src/engine", "include/medreact"}) {
    std::filesystem::create_directories(dir.File(d));
  }
  dir.Write("include/medreact/json.h", "#pragma once\n");
  dir.Write("include/medreact/model.h", "#include \"medreact/json.h\"\n");
  dir.Write("src/core/a.cc", "#include \"medreact/json.h\"\n#include <vector>\n");
  dir.Write("src/llm/b.cc", "#include \"core/a.h\"\n#include \"medreact/model.h\"\n");
  dir.Write("src/engine/c.cc", "#include \"llm/b.h\"\n");
}

TEST(LayerRuleTest, TheRepositoryFollowsIt) {
  testing::ProcessResult r = Check(MEDREACT_SOURCE_DIR);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(LayerRuleTest, AnUpwardIncludeStopsTheBuildNamingTheFileAndTheRule) {
  testing::TempDir dir;
  WriteGoodTree(dir);
  ASSERT_EQ(Check(dir.path()).exit_code, 0);

  dir.Write("src/core/d.cc", "#include \"medreact/json.h\"\n  #  include \"engine/agent_loop.h\"\n");
  testing::ProcessResult r = Check(dir.path());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("src/core/d.cc (layer core) includes \"engine/agent_loop.h\" (layer engine)"));
  EXPECT_THAT(r.err, HasSubstr("core may include only core"));
}

TEST(LayerRuleTest, APublicHeaderOfAHigherLayerCountsAsThatLayer) {
  testing::TempDir dir;
  WriteGoodTree(dir);
  dir.Write("include/medreact/agent.h", "#include \"medreact/model.h\"\n");
  dir.Write("src/llm/e.cc", "#include \"medreact/agent.h\"\n");
  testing::ProcessResult r = Check(dir.path());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("src/llm/e.cc (layer llm) includes \"medreact/agent.h\" (layer engine)"));
}

TEST(LayerRuleTest, UnknownHeadersAndFoldersAreRefusedRatherThanLetThrough) {
  testing::TempDir dir;
  WriteGoodTree(dir);
  dir.Write("include/medreact/shiny.h", "#pragma once\n");
  std::filesystem::create_directories(dir.File("src/shiny"));
  dir.Write("src/shiny/s.cc", "#include \"apps/x.h\"\n");
  testing::ProcessResult r = Check(dir.path());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("include/medreact/shiny.h: a public header with no layer"));
  EXPECT_THAT(r.err, HasSubstr("src/shiny/: a folder that is no layer"));
}

}  // namespace
}  // namespace medreact
