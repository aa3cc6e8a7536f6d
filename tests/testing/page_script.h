// Runs one of the page's browser tests (tests/node/page_*.mjs, over
// tests/node/lib/harness.mjs): node drives Debian's chromium through
// playwright-core against a real `medreact serve` it starts itself. The
// screenshots land in <build>/page-screenshots/ (the test artefacts).
//
//   PAGE_SCRIPT_OR_SKIP(result, "page_worklist.mjs", {});
//   EXPECT_PAGE_PASSED(result);
#ifndef MEDREACT_TESTS_TESTING_PAGE_SCRIPT_H_
#define MEDREACT_TESTS_TESTING_PAGE_SCRIPT_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "testing/build_paths.h"
#include "testing/subprocess.h"

namespace medreact::testing {

// Why the browser tests cannot run here, or "" when they can.
inline std::string PageScriptSkipReason() {
  if (!std::filesystem::exists("/usr/bin/chromium")) {
    return "no /usr/bin/chromium: `make test` installs Debian's chromium for the page's browser tests";
  }
  if (!std::filesystem::is_directory(MEDREACT_SOURCE_DIR + "/tests/node/node_modules/playwright-core")) {
    return "tests/node/node_modules/playwright-core is missing: run `make node-deps` (npm ci)";
  }
  if (!std::filesystem::exists("/usr/bin/node")) return "no /usr/bin/node on this machine";
  return "";
}

inline std::string PageArtifactsDir() {
  return std::filesystem::path(MEDREACT_BINARY).parent_path().string() + "/page-screenshots";
}

// Runs tests/node/<script> with `args`; its temporary folder is removed after.
inline ProcessResult RunPageScript(const std::string& script, const std::vector<std::string>& args = {},
                                   std::chrono::seconds timeout = std::chrono::seconds(240)) {
  TempDir tmp;
  std::vector<std::string> argv = {"/usr/bin/node", MEDREACT_SOURCE_DIR + "/tests/node/" + script};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv,
                    {{"MEDREACT_BINARY", MEDREACT_BINARY},
                     {"MEDREACT_MOCK_LLM", MEDREACT_MOCK_LLM_BINARY},
                     {"MEDREACT_SOURCE_DIR", MEDREACT_SOURCE_DIR},
                     {"MEDREACT_PAGE_ARTIFACTS", PageArtifactsDir()},
                     {"MEDREACT_TMP", tmp.path()}},
                    timeout);
}

}  // namespace medreact::testing

#define PAGE_SCRIPT_OR_SKIP(result, script, ...)                                    \
  if (const std::string why = ::medreact::testing::PageScriptSkipReason(); !why.empty()) \
    GTEST_SKIP() << why;                                                            \
  const ::medreact::testing::ProcessResult result = ::medreact::testing::RunPageScript(script, ##__VA_ARGS__)

#define EXPECT_PAGE_PASSED(result)                                                              \
  do {                                                                                          \
    EXPECT_EQ((result).exit_code, 0) << "stdout:\n" << (result).out << "\nstderr:\n" << (result).err; \
    EXPECT_THAT((result).out, ::testing::HasSubstr("all checks passed")) << (result).out << (result).err; \
  } while (0)

#endif  // MEDREACT_TESTS_TESTING_PAGE_SCRIPT_H_
