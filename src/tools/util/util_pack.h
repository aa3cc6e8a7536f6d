// The "util" tool pack: general-purpose tools that need no clinical data, so
// `medreact chat` can do something real against any model server.
//
//   current_time  the date and time now, in UTC or at a given UTC offset
//   calculator    safe arithmetic (see calculator.h for the grammar)
//
// Both tools are pure functions of their arguments (and, for current_time, of
// the injected clock), so they are safe to run concurrently. The clock must be
// thread-safe too.
#ifndef MEDREACT_TOOLS_UTIL_UTIL_PACK_H_
#define MEDREACT_TOOLS_UTIL_UTIL_PACK_H_

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "medreact/status.h"
#include "medreact/tool_registry.h"

namespace medreact {

struct UtilPackOptions {
  // What current_time reports. Default: the system clock.
  std::function<std::chrono::system_clock::time_point()> now;
};

// Registers every util tool, or none: fails without registering anything when
// one of the names is already taken.
Status RegisterUtilPack(ToolRegistry& registry, const UtilPackOptions& options = {});

// The names RegisterUtilPack adds, in registration order.
std::vector<std::string> UtilPackToolNames();

}  // namespace medreact

#endif  // MEDREACT_TOOLS_UTIL_UTIL_PACK_H_
