// Where the runtime data tables live: the repository's data/ directory
// (growth tables, the guideline starter corpus, prompts, ...). Looked up, in
// order, the first that is a folder:
//   1. $MEDREACT_DATA_DIR, when set and non-empty (taken as is);
//   2. <directory of the running executable>/../data (a build directory
//      inside the checkout, e.g. build/medreact → data/);
//   3. <directory of the running executable>/../share/medreact/data (the
//      installed layout: <prefix>/bin/medreact → <prefix>/share/medreact/data,
//      also a program installed beside the library);
//   4. the install prefix's share/medreact/data as configured at build time
//      (a program elsewhere linking the installed library);
//   5. the checkout the library was built from (compiled in; taken as is).
// The result is computed once; thread-safe.
#ifndef MEDREACT_CORE_DATA_DIR_H_
#define MEDREACT_CORE_DATA_DIR_H_

#include <string>
#include <string_view>

namespace medreact {

const std::string& DataDir();

// DataDir() + "/" + relative.
std::string DataPath(std::string_view relative);

// The lookup above with its inputs given (DataDir passes the environment,
// /proc/self/exe and the compiled-in folders); for tests.
struct DataDirInputs {
  std::string env;          // $MEDREACT_DATA_DIR; "" = unset
  std::string executable;   // the running executable's path; "" = unknown
  std::string install_dir;  // <prefix>/share/medreact/data at build time; "" = none
  std::string source_dir;   // <checkout>/data
};
std::string FindDataDir(const DataDirInputs& inputs);

}  // namespace medreact

#endif  // MEDREACT_CORE_DATA_DIR_H_
