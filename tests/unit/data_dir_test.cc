// Where the runtime tables are looked up (core/data_dir.h): the variable, a
// build folder in the checkout, the installed layout (<prefix>/bin →
// <prefix>/share/medreact/data), the configured install folder, the checkout.
#include "core/data_dir.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "testing/subprocess.h"

namespace medreact {
namespace {

namespace fs = std::filesystem;

TEST(DataDirTest, TheVariableWinsAsGiven) {
  EXPECT_EQ(FindDataDir({.env = "/somewhere", .executable = "/usr/bin/medreact", .source_dir = "/src/data"}),
            "/somewhere");
}

TEST(DataDirTest, ABuildFolderInTheCheckoutUsesTheCheckoutsData) {
  testing::TempDir dir;
  fs::create_directories(dir.File("build"));
  fs::create_directories(dir.File("data"));
  EXPECT_EQ(FindDataDir({.executable = dir.File("build/medreact"), .source_dir = "/elsewhere/data"}),
            dir.File("data"));
}

TEST(DataDirTest, AnInstalledBinaryFindsTheInstalledData) {
  testing::TempDir prefix;
  fs::create_directories(prefix.File("bin"));
  fs::create_directories(prefix.File("share/medreact/data/growth"));
  EXPECT_EQ(fs::canonical(FindDataDir({.executable = prefix.File("bin/medreact"), .source_dir = "/gone/data"})),
            fs::canonical(prefix.File("share/medreact/data")));
}

TEST(DataDirTest, AProgramElsewhereFindsTheConfiguredInstallFolderThenTheCheckout) {
  testing::TempDir prefix;
  fs::create_directories(prefix.File("share/medreact/data"));
  const std::string installed = prefix.File("share/medreact/data");
  EXPECT_EQ(FindDataDir({.executable = "/opt/tool/bin/tool", .install_dir = installed, .source_dir = "/src/data"}),
            installed);
  // An install folder that does not exist (installed elsewhere with --prefix): the checkout.
  EXPECT_EQ(FindDataDir({.executable = "/opt/tool/bin/tool", .install_dir = prefix.File("nope"),
                         .source_dir = "/src/data"}),
            "/src/data");
}

TEST(DataDirTest, TheTestBinaryFindsTheGrowthTables) {
  EXPECT_TRUE(fs::is_regular_file(DataPath("growth/NOTICE"))) << DataDir();
}

}  // namespace
}  // namespace medreact
