// core/plugin.h: where modules are looked for and what a failed load says;
// and DicomSupport() with the DICOM plugin beside this binary. (The commands'
// side, a missing plugin and which objects are mapped, is
// integration/startup_libraries_test.cc.)
#include "core/plugin.h"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "testing/subprocess.h"
#include "tools/imaging/dicom_image.h"

namespace medreact {
namespace {

// Sets MEDREACT_PLUGIN_DIR for one test and puts back what was there.
class ScopedPluginDir {
 public:
  explicit ScopedPluginDir(const std::string& dir) {
    if (const char* old = std::getenv("MEDREACT_PLUGIN_DIR")) old_ = old;
    ::setenv("MEDREACT_PLUGIN_DIR", dir.c_str(), 1);
  }
  ~ScopedPluginDir() {
    if (old_) {
      ::setenv("MEDREACT_PLUGIN_DIR", old_->c_str(), 1);
    } else {
      ::unsetenv("MEDREACT_PLUGIN_DIR");
    }
  }

 private:
  std::optional<std::string> old_;
};

std::string ExecutableFolder() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path().string();
}

TEST(PluginTest, TheEnvironmentFolderIsTheOnlyOneSearched) {
  ScopedPluginDir env("/opt/medreact-plugins");
  EXPECT_EQ(PluginDirs(), std::vector<std::string>{"/opt/medreact-plugins"});
}

TEST(PluginTest, WithoutItTheExecutablesFolderComesFirstThenTheInstalledOne) {
  ScopedPluginDir env("");  // empty counts as unset
  const std::vector<std::string> dirs = PluginDirs();
  ASSERT_GE(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], ExecutableFolder());
  EXPECT_EQ(std::filesystem::path(dirs[1]).filename(), "medreact") << dirs[1];
}

TEST(PluginTest, AMissingModuleNamesTheFoldersSearched) {
  testing::TempDir dir;
  ScopedPluginDir env(dir.path());
  Result<PluginLibrary> library = LoadPlugin("medreact_no_such_plugin.so");
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(library.status().message().find(dir.File("medreact_no_such_plugin.so")), std::string::npos)
      << library.status().message();
  EXPECT_NE(library.status().message().find("MEDREACT_PLUGIN_DIR"), std::string::npos);
}

TEST(PluginTest, AFileThatIsNoModuleIsRefusedWithTheLoadersReason) {
  testing::TempDir dir;
  dir.Write("medreact_fake.so", "not an ELF file\n");
  ScopedPluginDir env(dir.path());
  Result<PluginLibrary> library = LoadPlugin("medreact_fake.so");
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(library.status().message().find(dir.File("medreact_fake.so")), std::string::npos)
      << library.status().message();
  EXPECT_EQ(library.status().message().find("searched"), std::string::npos)  // the file was there
      << library.status().message();
}

TEST(PluginTest, TheDicomPluginBesideThisBinaryLoads) {
  ASSERT_TRUE(std::filesystem::exists(ExecutableFolder() + "/" MEDREACT_DICOM_PLUGIN_FILE));
  EXPECT_TRUE(imaging::DicomSupport().ok()) << imaging::DicomSupport().ToString();
}

}  // namespace
}  // namespace medreact
