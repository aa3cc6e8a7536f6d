#include "core/data_dir.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

// The installed data folder, set by the build (CMakeLists.txt, install block);
// a build that defines none looks only in the other places.
#ifndef MEDREACT_INSTALL_DATA_DIR
#define MEDREACT_INSTALL_DATA_DIR ""
#endif

namespace medreact {

std::string FindDataDir(const DataDirInputs& in) {
  if (!in.env.empty()) return in.env;
  std::error_code ec;
  auto is_folder = [&ec](const std::filesystem::path& p) { return std::filesystem::is_directory(p, ec); };
  if (!in.executable.empty()) {
    const std::filesystem::path prefix = std::filesystem::path(in.executable).parent_path().parent_path();
    if (is_folder(prefix / "data")) return (prefix / "data").string();
    const std::filesystem::path installed = prefix / "share" / "medreact" / "data";
    if (is_folder(installed)) return installed.string();
  }
  if (!in.install_dir.empty() && is_folder(in.install_dir)) return in.install_dir;
  return in.source_dir;
}

const std::string& DataDir() {
  static const std::string dir = [] {
    DataDirInputs in{.install_dir = MEDREACT_INSTALL_DATA_DIR,
                     .source_dir = std::string(MEDREACT_SOURCE_DIR) + "/data"};
    if (const char* env = std::getenv("MEDREACT_DATA_DIR"); env != nullptr) in.env = env;
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) in.executable = exe.string();
    return FindDataDir(in);
  }();
  return dir;
}

std::string DataPath(std::string_view relative) { return DataDir() + "/" + std::string(relative); }

}  // namespace medreact
