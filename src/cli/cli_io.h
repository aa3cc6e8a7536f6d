// Small input/output helpers shared by the commands.
#ifndef MEDREACT_CLI_CLI_IO_H_
#define MEDREACT_CLI_CLI_IO_H_

#include <cstdio>
#include <string>
#include <string_view>

#include "core/file_io.h"
#include "core/text_util.h"
#include "medreact/status.h"

namespace medreact::cli {

// The whole file, or standard input for "-", checked and capped as
// ReadUserFile does (a folder, a missing file or one over `max_bytes` is an
// error naming the path). `what` names the input in messages ("note").
inline Result<std::string> ReadInputFile(const std::string& path, std::string_view what,
                                         size_t max_bytes = kMaxTextInputBytes) {
  if (path == "-") return ReadUserStream(stdin, what, max_bytes);
  return ReadUserFile(path, what, max_bytes);
}

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_CLI_IO_H_
