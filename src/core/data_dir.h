// Where the runtime data tables live: the repository's data/ directory
// (growth tables, the guideline starter corpus, ...). Looked up, in order:
//   1. $MEDREACT_DATA_DIR, when set and non-empty;
//   2. <directory of the running executable>/../data, when it exists (a build
//      directory inside the checkout, e.g. build/medreact → data/);
//   3. the checkout the binary was built from (compiled in).
// The result is computed once; thread-safe.
#ifndef MEDREACT_CORE_DATA_DIR_H_
#define MEDREACT_CORE_DATA_DIR_H_

#include <string>
#include <string_view>

namespace medreact {

const std::string& DataDir();

// DataDir() + "/" + relative.
std::string DataPath(std::string_view relative);

}  // namespace medreact

#endif  // MEDREACT_CORE_DATA_DIR_H_
