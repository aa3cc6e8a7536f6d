// Tool packs by name: the one place the CLI and apps turn "--tools util,..."
// into registered tools. A pack is a group of tools with one domain; packs
// that reach the network or the filesystem are opt-in and say so here.
#ifndef MEDREACT_TOOLS_PACKS_H_
#define MEDREACT_TOOLS_PACKS_H_

#include <string>
#include <vector>

#include "medreact/status.h"
#include "medreact/tool_registry.h"

namespace medreact {

struct PackInfo {
  std::string name;
  std::string description;
};

// Every known pack, in a stable order.
std::vector<PackInfo> KnownPacks();

// Splits "a,b, c" into names; empty items are dropped.
std::vector<std::string> SplitPackList(const std::string& list);

// Registers the named packs. An unknown name → InvalidArgument listing the known ones.
Status RegisterPacks(ToolRegistry& registry, const std::vector<std::string>& packs);

}  // namespace medreact

#endif  // MEDREACT_TOOLS_PACKS_H_
