// Where this build's source tree and binaries are, for the tests.
//
// The paths are compiled into one file (build_paths.cc) rather than passed to
// every test file as -D definitions: a test file's compile then holds no
// absolute path, so ccache serves it from the cache in another checkout (CI's
// fresh clone) as it does here.
#ifndef MEDREACT_TESTS_TESTING_BUILD_PATHS_H_
#define MEDREACT_TESTS_TESTING_BUILD_PATHS_H_

#include <string>

namespace medreact::testing {

const std::string& BuildSourceDir();      // the source tree (the repository's root)
const std::string& BuildBinary();         // the medreact binary
const std::string& BuildMockLlmBinary();  // the scripted model server's binary
const std::string& BuildCmakeCommand();   // the cmake that configured this build

}  // namespace medreact::testing

#define MEDREACT_SOURCE_DIR (::medreact::testing::BuildSourceDir())
#define MEDREACT_BINARY (::medreact::testing::BuildBinary())
#define MEDREACT_MOCK_LLM_BINARY (::medreact::testing::BuildMockLlmBinary())
#define MEDREACT_CMAKE_COMMAND (::medreact::testing::BuildCmakeCommand())

#endif  // MEDREACT_TESTS_TESTING_BUILD_PATHS_H_
