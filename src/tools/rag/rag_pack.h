// The "rag" tool pack: guideline retrieval and task hints for an extraction
// agent, with the names and arguments of seed 002 (agentic extraction):
//
//   query_rag(query, purpose?, k?)   passages from the guideline corpus (RagIndex),
//                                    each with source file, heading path and score
//   query_extras(keywords)           short hints from the extras file (ExtrasFile)
//
// `purpose` is recorded in the result (and so in the trace) but does not change
// the ranking: the model's reason is useful to a reviewer, not to BM25.
// Both tools only read shared, thread-safe objects (RagIndex serialises its
// own database access; ExtrasFile is immutable), so they may run concurrently.
// The pack never opens files itself: the caller builds the index and loads the
// hints from paths the user gave.
#ifndef MEDREACT_TOOLS_RAG_RAG_PACK_H_
#define MEDREACT_TOOLS_RAG_RAG_PACK_H_

#include <memory>
#include <string>
#include <vector>

#include "medreact/status.h"
#include "medreact/tool_registry.h"
#include "tools/rag/extras.h"
#include "tools/rag/rag_index.h"

namespace medreact {

// Registers query_rag when `index` is set and query_extras when `extras` is
// set; fails without registering anything when both are null or a name is
// already taken.
Status RegisterRagPack(ToolRegistry& registry, std::shared_ptr<RagIndex> index,
                        std::shared_ptr<const ExtrasFile> extras);

// Every name the pack can add, in registration order.
std::vector<std::string> RagPackToolNames();

// The specs of every tool the pack can add (for catalogues: no index needed).
std::vector<ToolSpec> RagPackSpecs();

}  // namespace medreact

#endif  // MEDREACT_TOOLS_RAG_RAG_PACK_H_
