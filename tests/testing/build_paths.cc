// The build's paths. See build_paths.h; CMakeLists.txt defines the four
// MEDREACT_BUILD_* macros for this file alone.
#include "testing/build_paths.h"

namespace medreact::testing {

const std::string& BuildSourceDir() {
  static const std::string path = MEDREACT_BUILD_SOURCE_DIR;
  return path;
}
const std::string& BuildBinary() {
  static const std::string path = MEDREACT_BUILD_BINARY;
  return path;
}
const std::string& BuildMockLlmBinary() {
  static const std::string path = MEDREACT_BUILD_MOCK_LLM_BINARY;
  return path;
}
const std::string& BuildCmakeCommand() {
  static const std::string path = MEDREACT_BUILD_CMAKE_COMMAND;
  return path;
}

}  // namespace medreact::testing
