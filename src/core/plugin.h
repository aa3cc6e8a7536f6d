// Shared-library plugins: parts of medreact whose libraries are too costly to
// map at the start of every process (for DICOM, DCMTK and what it pulls in:
// 21 shared objects), built as modules and loaded with dlopen the first time
// they are needed, the way http_curl.cc loads libcurl.
//
// A plugin is a file name (e.g. "medreact_dicom.so") looked up in, in order:
//   1. $MEDREACT_PLUGIN_DIR when set and non-empty, and then nowhere else
//      (ignored in a set-user-ID process: secure_getenv);
//   2. the folder of the running executable (/proc/self/exe): a build tree,
//      where medreact, the tests and the benchmarks sit beside the modules;
//   3. the installed folder, relative to the executable's
//      (<bindir>/../lib/medreact unless the build says otherwise);
//   4. the installed folder as configured (<prefix>/<libdir>/medreact), for a
//      program of the library's user that lives elsewhere.
// It is loaded with RTLD_NOW | RTLD_LOCAL (a missing dependency or symbol is
// an error at load, not a crash later; its symbols do not leak into the
// process) and never unloaded. Thread-safe (dlopen is).
#ifndef MEDREACT_CORE_PLUGIN_H_
#define MEDREACT_CORE_PLUGIN_H_

#include <string>
#include <string_view>
#include <vector>

#include "medreact/status.h"

namespace medreact {

// The folders searched, in order (see above).
std::vector<std::string> PluginDirs();

// A loaded module and the path it was loaded from.
struct PluginLibrary {
  void* handle = nullptr;  // dlopen's handle, for dlsym
  std::string path;
};

// Loads `file_name` from the first of PluginDirs() that holds it.
// Unavailable when none does, or when the file found cannot be loaded (a
// library it needs is missing, a symbol is unresolved); the message is the
// loader's reason (dlerror), with the folders searched when no file was found.
Result<PluginLibrary> LoadPlugin(std::string_view file_name);

}  // namespace medreact

#endif  // MEDREACT_CORE_PLUGIN_H_
