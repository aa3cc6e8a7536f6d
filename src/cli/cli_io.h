// Small input/output helpers shared by the commands.
#ifndef MEDREACT_CLI_CLI_IO_H_
#define MEDREACT_CLI_CLI_IO_H_

#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "medreact/status.h"

namespace medreact::cli {

// The whole file, or standard input for "-". NotFound naming the path when it
// cannot be read.
inline Result<std::string> ReadInputFile(const std::string& path) {
  if (path == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read '" + path + "'");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline bool IsBlank(const std::string& text) { return text.find_first_not_of(" \t\r\n") == std::string::npos; }

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_CLI_IO_H_
