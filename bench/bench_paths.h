// Where the source tree is, for the benchmarks that read its fixtures. The
// path is compiled into bench_paths.cc alone (not passed to every benchmark
// file as a -D definition), so ccache serves the other files in another
// checkout too.
#ifndef MEDREACT_BENCH_BENCH_PATHS_H_
#define MEDREACT_BENCH_BENCH_PATHS_H_

#include <string>

namespace medreact::bench {
const std::string& BenchSourceDir();
}  // namespace medreact::bench

#define MEDREACT_SOURCE_DIR (::medreact::bench::BenchSourceDir())

#endif  // MEDREACT_BENCH_BENCH_PATHS_H_
