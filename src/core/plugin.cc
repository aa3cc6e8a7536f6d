#include "core/plugin.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

// Where an installed build puts its modules, relative to the executable's
// folder, and absolute (MEDREACT_PLUGIN_INSTALL_DIR); CMakeLists.txt passes
// the ones GNUInstallDirs gives.
#ifndef MEDREACT_PLUGIN_RELDIR
#define MEDREACT_PLUGIN_RELDIR "../lib/medreact"
#endif

namespace medreact {

std::vector<std::string> PluginDirs() {
  if (const char* env = ::secure_getenv("MEDREACT_PLUGIN_DIR"); env != nullptr && *env != '\0') return {env};
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
#ifdef MEDREACT_PLUGIN_INSTALL_DIR
    return {MEDREACT_PLUGIN_INSTALL_DIR};
#else
    return {};
#endif
  }
  const std::filesystem::path dir = exe.parent_path();
  std::vector<std::string> dirs = {dir.string(), (dir / MEDREACT_PLUGIN_RELDIR).lexically_normal().string()};
#ifdef MEDREACT_PLUGIN_INSTALL_DIR
  // A program of the library's user, installed elsewhere than medreact.
  if (MEDREACT_PLUGIN_INSTALL_DIR != dirs[1]) dirs.emplace_back(MEDREACT_PLUGIN_INSTALL_DIR);
#endif
  return dirs;
}

Result<PluginLibrary> LoadPlugin(std::string_view file_name) {
  const std::vector<std::string> dirs = PluginDirs();
  if (dirs.empty()) {
    return Status::Unavailable(std::string(file_name) + " not found: the executable's folder is unknown "
                               "(/proc not mounted?); set MEDREACT_PLUGIN_DIR");
  }
  std::string first_error;
  for (const std::string& dir : dirs) {
    const std::string path = dir + "/" + std::string(file_name);
    std::error_code ec;
    const bool exists = std::filesystem::exists(path, ec);
    if (void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL); handle != nullptr) {
      return PluginLibrary{.handle = handle, .path = path};
    }
    const char* why = ::dlerror();
    const std::string reason = why != nullptr ? why : path + ": cannot be loaded";
    // A file that is there but does not load says more than the ones absent.
    if (exists) return Status::Unavailable(reason);
    if (first_error.empty()) first_error = reason;
  }
  std::string searched;
  for (const std::string& dir : dirs) searched += (searched.empty() ? "" : ", ") + dir;
  return Status::Unavailable(first_error + " (searched " + searched + "; set MEDREACT_PLUGIN_DIR to its folder)");
}

}  // namespace medreact
