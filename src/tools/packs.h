// Tool packs by name: the one place the CLI and apps turn "--tools util,..."
// into registered tools. A pack is a group of tools with one domain; packs
// that reach the network or the filesystem are opt-in and say so here.
#ifndef MEDREACT_TOOLS_PACKS_H_
#define MEDREACT_TOOLS_PACKS_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "medreact/status.h"
#include "medreact/tool_registry.h"
#include "tools/literature/literature_pack.h"

namespace medreact {

struct PackInfo {
  std::string name;
  std::string description;
  bool network = false;  // its tools may reach the network (the `network` approval class)
};

// Every known pack, in a stable order.
std::vector<PackInfo> KnownPacks();

// Splits "a,b, c" into names; empty items are dropped.
std::vector<std::string> SplitPackList(const std::string& list);

// Tools attached from outside the pack table (an MCP server's, mcp/mcp_attach.h):
// called with the registry, the context's on_warning and tool_packs.
using PackAttacher = std::function<Status(ToolRegistry& registry, const std::function<void(const std::string&)>& warn,
                                          std::map<std::string, std::string>* tool_packs)>;

// What packs that read data need. Everything is opt-in: a pack that reads a
// file gets it only from here, i.e. from a path the user gave.
struct PackContext {
  std::string fhir_path;  // FHIR bundle or NDJSON for the `fhir` pack. Default: none
  std::string as_of;      // "YYYY-MM-DD" for the `fhir` pack's "now". Default: latest date in the record
  std::string corpus_dir;   // guideline folder for the `rag` pack's query_rag. Default: none
  std::string extras_path;  // hints file (JSON) for the `rag` pack's query_extras. Default: none
  // The `literature` pack's options: online or cache-only (the default), the
  // cache file, base URLs, NCBI key and e-mail, and the on_evidence hook the
  // research app subscribes to. Default: offline, default cache, no hook
  LiteraturePackOptions literature;
  // Receives what loading skipped and why (e.g. a corpus file that links out
  // of the corpus, or one over the size limit). Default: none (dropped)
  std::function<void(const std::string&)> on_warning;
  // Run after the named packs, in order: tools from outside the pack table
  // (--mcp servers). Not kept with a stored run: a resumed run has none of
  // them. Default: none
  std::vector<PackAttacher> attach;
};

// Registers the named packs. An unknown name → InvalidArgument listing the
// known ones; `fhir` without a bundle path, or `rag` with neither a corpus
// nor an extras file → InvalidArgument; a bundle, corpus or hints file that
// cannot be read → its load error; `literature` with a base URL that is not
// http(s) → InvalidArgument.
// `tool_packs`, when given, receives each registered tool's pack (tool name
// → pack name), for rules by pack (approval). Then context.attach, in order.
Status RegisterPacks(ToolRegistry& registry, const std::vector<std::string>& packs,
                     const PackContext& context = {}, std::map<std::string, std::string>* tool_packs = nullptr);

}  // namespace medreact

#endif  // MEDREACT_TOOLS_PACKS_H_
