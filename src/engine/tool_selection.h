// Tool selection for small context windows: which of a registry's tools one
// model request offers when they do not all fit the model's window.
//
// Small local models run with 4k–8k tokens of context, and a pack of tools
// can need far more (the calculator pack: about 33k tokens of schemas, 14k
// shortened). SelectTools offers every tool when they fit (in the shortened
// form the context fitting would send). Otherwise, within a token budget (a
// share of the window), in this order: the finishing tools, every tool the
// model has already called, the tools find_tools brought up, then the rest
// ranked by BM25 over each tool's name, description and parameter names
// against the task and the recent messages, as many as fit; and find_tools,
// through which the model asks for more. Deterministic (no model call; ties
// keep registration order). Tokens are estimated as llm/context_fit.h does.
//
// ToolOffer is a run's state around it: the tools find_tools asked for, the
// registry the run's calls execute against (the agent's tools plus
// find_tools, built when first needed). Its find_tools may be called from a
// pool thread while the loop's thread reads the requested tools: guarded by
// a mutex. Pure functions otherwise.
#ifndef MEDREACT_ENGINE_TOOL_SELECTION_H_
#define MEDREACT_ENGINE_TOOL_SELECTION_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "medreact/message.h"
#include "medreact/tool_registry.h"
#include "medreact/tool_spec.h"

namespace medreact {

inline constexpr char kFindToolsName[] = "find_tools";

// The find_tools tool's spec (a "query" string argument).
ToolSpec FindToolsSpec();

// One scored tool: its index in the specs and the query terms that matched
// best (at most three, strongest first).
struct ToolScore {
  size_t index = 0;
  double score = 0;
  std::vector<std::string> terms;
};

// BM25 of each tool (name split at '_', description, parameter names) against
// `query`; only tools with a positive score, best first, ties in spec order.
std::vector<ToolScore> RankTools(const std::vector<ToolSpec>& specs, const std::string& query);

struct ToolSelectionInput {
  const std::vector<ToolSpec>* specs = nullptr;   // the registry's, registration order
  std::vector<std::string> finish_tools;          // always offered
  std::vector<std::string> used;                  // tools called so far: always offered
  std::vector<std::string> requested;             // brought up by find_tools: offered next
  std::string query;                              // the task and the recent messages' text
  int64_t window = 0;                             // the model's context window; 0: unknown
  int64_t message_tokens = 0;                     // the messages' estimate
  int64_t reply_tokens = 0;                       // kept for the reply
};

struct OfferedTool {
  std::string name;
  std::string reason;  // "finishing tool", "already used", "rank 3 for 'creatinine clearance'", ...
};

struct ToolSelection {
  bool all = true;                 // every tool is offered (fits, or the window is unknown)
  std::vector<ToolSpec> specs;     // what the request offers (find_tools last when partial)
  std::vector<OfferedTool> offered;
  size_t total = 0;                // tools in the registry
  int64_t budget = 0;              // tokens for tools (partial selection)
  int64_t tokens = 0;              // estimated tokens of `specs` in shortened form
  std::string problem;             // non-empty: a kept tool alone did not fit the budget
  // One line for the trace: counts, budget and each tool's reason.
  std::string Summary() const;
};

// The share of the window (after the reply's reserve) the tools may take
// when they do not all fit: 40 %, and never more than what the messages leave.
int64_t ToolBudget(int64_t window, int64_t reply_tokens, int64_t message_tokens);

ToolSelection SelectTools(const ToolSelectionInput& in);

// A run's tool offer (see the file comment).
class ToolOffer {
 public:
  ToolOffer(std::shared_ptr<const ToolRegistry> tools, std::vector<std::string> finish_tools);

  // The tools for the next request over `messages` (the history as sent).
  ToolSelection Select(const std::vector<Message>& messages, int64_t window, int64_t reply_tokens);

  // The registry the run's tool calls execute against: the agent's, plus
  // find_tools once a selection was partial.
  std::shared_ptr<const ToolRegistry> registry() const;

  // find_tools: the best matches for `query` among the tools not offered in
  // the last request; they are offered on the next one.
  Json FindTools(const std::string& query);

 private:
  struct Shared;
  std::shared_ptr<const ToolRegistry> tools_;
  std::vector<std::string> finish_tools_;
  std::shared_ptr<Shared> shared_;
  std::vector<std::string> used_;                  // tools called so far, in order of first use
  std::shared_ptr<const ToolRegistry> extended_;  // built on the first partial selection
};

}  // namespace medreact

#endif  // MEDREACT_ENGINE_TOOL_SELECTION_H_
