#include "core/data_dir.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace medreact {
namespace {

std::string FindDataDir() {
  if (const char* env = std::getenv("MEDREACT_DATA_DIR"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path beside = exe.parent_path().parent_path() / "data";
    if (std::filesystem::is_directory(beside, ec)) return beside.string();
  }
  return std::string(MEDREACT_SOURCE_DIR) + "/data";
}

}  // namespace

const std::string& DataDir() {
  static const std::string dir = FindDataDir();
  return dir;
}

std::string DataPath(std::string_view relative) { return DataDir() + "/" + std::string(relative); }

}  // namespace medreact
