// Where the shipped test fixtures are (tests/fixtures, see its NOTICE).
#ifndef MEDREACT_TESTS_TESTING_FIXTURES_H_
#define MEDREACT_TESTS_TESTING_FIXTURES_H_

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "testing/build_paths.h"

namespace medreact::testing {

inline const std::string kSyntheaDir = MEDREACT_SOURCE_DIR + "/tests/fixtures/synthea";

// Every Synthea bundle, sorted by name. Empty if the fixtures are missing,
// which the tests that use it report as a failure (they ship with the repo).
inline std::vector<std::filesystem::path> SyntheaBundles() {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& file : std::filesystem::directory_iterator(kSyntheaDir, ec)) {
    if (file.path().extension() == ".json") out.push_back(file.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_FIXTURES_H_
