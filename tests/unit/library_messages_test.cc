// Library messages name settings, not command-line flags: an HTTP client or a
// program linking medreact_lib cannot pass "--llm-url". Every string literal
// in src/ outside the CLI (src/cli/, and src/mockllm/main.cc, the mock
// server's own command line) is read, comments left out, and none may hold a
// "--flag" other than a flag of another program the message tells the user to
// give that program (llama-server's --jinja and --ctx-size). The CLI writes
// the flag in place of the setting (src/cli/setting_flags.h; its tests are in
// tests/integration/setting_flags_cli_test.cc).
#include "testing/build_paths.h"
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace medreact {
namespace {

namespace fs = std::filesystem;

// The string literals of C++ source text (ordinary and raw), without
// comments; escapes are kept as written.
std::vector<std::string> StringLiterals(const std::string& text) {
  std::vector<std::string> out;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) break;
    } else if (text.compare(i, 2, "/*") == 0) {
      i = text.find("*/", i + 2);
      if (i == std::string::npos) break;
      i += 2;
    } else if (text[i] == '\'' && i > 0 && std::isalnum(static_cast<unsigned char>(text[i - 1]))) {
      ++i;  // a digit separator (10'000)
    } else if (text[i] == '\'') {  // a character literal ('"' among them)
      size_t j = i + 1;
      while (j < n && text[j] != '\'') j += text[j] == '\\' ? 2 : 1;
      i = j + 1;
    } else if (text.compare(i, 2, "R\"") == 0 && (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])))) {
      const size_t open = text.find('(', i + 2);
      if (open == std::string::npos) break;
      const std::string close = ")" + text.substr(i + 2, open - i - 2) + "\"";
      const size_t end = text.find(close, open + 1);
      if (end == std::string::npos) break;
      out.push_back(text.substr(open + 1, end - open - 1));
      i = end + close.size();
    } else if (text[i] == '"') {
      size_t j = i + 1;
      while (j < n && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
      out.push_back(text.substr(i + 1, j - i - 1));
      i = j + 1;
    } else {
      ++i;
    }
  }
  return out;
}

TEST(LibraryMessagesTest, TheLiteralReaderSkipsCommentsAndReadsRawStrings) {
  const std::string code = "// \"--in-comment\"\nauto a = \"x --flag y\"; /* \"--block\" */ char q = '\"';\n"
                           "int n = 1'000; char s = '\\'';\n"
                           "auto b = R\"js(a \"--raw\" b)js\"; auto c = \"esc \\\" --after\";";
  EXPECT_EQ(StringLiterals(code),
            (std::vector<std::string>{"x --flag y", "a \"--raw\" b", "esc \\\" --after"}));
}

TEST(LibraryMessagesTest, NoLibraryStringNamesACommandLineFlag) {
  static const std::regex kFlag("(^|[^-A-Za-z0-9])(--[a-z][a-z0-9-]*)");
  static const std::set<std::string> kOtherPrograms = {"--jinja", "--ctx-size"};  // llama-server's
  const fs::path src = fs::path(MEDREACT_SOURCE_DIR) / "src";
  std::vector<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    const fs::path rel = fs::relative(entry.path(), src);
    const std::string ext = rel.extension().string();
    if (!entry.is_regular_file() || (ext != ".cc" && ext != ".h")) continue;
    if (*rel.begin() == "cli" || rel == fs::path("mockllm/main.cc")) continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    for (const std::string& literal : StringLiterals(text.str())) {
      for (auto it = std::sregex_iterator(literal.begin(), literal.end(), kFlag); it != std::sregex_iterator();
           ++it) {
        if (!kOtherPrograms.count((*it)[2])) found.push_back(rel.string() + ": \"" + literal + "\"");
      }
    }
  }
  EXPECT_THAT(found, ::testing::IsEmpty())
      << "name the setting in parentheses, e.g. \"the model URL (llm_url)\", and give it a row in "
         "src/cli/setting_flags.cc";
}

}  // namespace
}  // namespace medreact
