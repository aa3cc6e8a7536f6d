// The source tree's path. See bench_paths.h; CMakeLists.txt defines
// MEDREACT_BENCH_SOURCE_DIR for this file alone.
#include "bench_paths.h"

namespace medreact::bench {
const std::string& BenchSourceDir() {
  static const std::string path = MEDREACT_BENCH_SOURCE_DIR;
  return path;
}
}  // namespace medreact::bench
