// Fitting a request into a model's context window. Small local servers run
// with 2k–8k tokens of context; a request that does not fit is refused by the
// server (llama.cpp: HTTP 400 "exceeds the available context size") or,
// worse, silently truncated. When the window is known (llama.cpp's /props,
// or --context-size), the request is fitted before it is sent:
//   1. tool descriptions shortened to their first sentence, and the
//      descriptions inside their parameter schemas dropped;
//   2. older history left out, the system prompt and the task always kept and
//      a tool call never separated from its results (WindowMessages);
// and when even the system prompt, the task, the newest turn and the tools do
// not fit, the call fails saying so, with the numbers.
//
// Tokens are estimated, not counted: 1 token per 3 bytes of text and JSON
// (English prose runs about 4 bytes per token with Llama-family tokenizers,
// clinical text with numbers and abbreviations nearer 3), plus 8 per message
// for the chat template. The estimate errs towards too many tokens.
#ifndef MEDREACT_LLM_CONTEXT_FIT_H_
#define MEDREACT_LLM_CONTEXT_FIT_H_

#include <optional>
#include <string>
#include <vector>

#include "medreact/model.h"
#include "medreact/status.h"

namespace medreact {

int64_t EstimateTokens(const ModelRequest& request);

// The estimate's share of `tools` alone, and of messages alone (the engine's
// tool selection budgets with the same arithmetic).
int64_t EstimateToolTokens(const std::vector<ToolSpec>& tools);
int64_t EstimateMessageTokens(const std::vector<Message>& messages);

// The shortened form of a tool that step 1 below sends: the description's
// first sentence, no descriptions inside the parameter schema.
ToolSpec ShortenedToolSpec(const ToolSpec& tool);

// Tokens kept free for the reply: max_tokens when set, else a quarter of the
// window up to 1,024.
int64_t ReplyReserve(const ModelRequest& request, int64_t context_tokens);

// A model that can tell its context window before a call: the OpenAI client
// (given, or asked once from llama.cpp's /props) and the text protocol over
// it. The engine asks it (dynamic_cast from ChatModel) to choose the tools
// it offers; 0 when unknown. A mixin rather than a ChatModel method, so that
// the public interface stays as it is.
class ContextWindowSource {
 public:
  virtual ~ContextWindowSource() = default;
  virtual int64_t ContextWindow(const ModelCallContext& ctx) = 0;
};

// The window `model` reports (ContextWindowSource, else its capabilities).
int64_t ModelContextWindow(ChatModel& model, const ModelCallContext& ctx);

// Fits `request` into `context_tokens` (> 0) as above: nullopt when it fits
// as it is (nothing copied), else the fitted copy. `*changes` (may be null)
// receives what was done. InvalidArgument, naming the estimate and the
// window, when it cannot fit.
Result<std::optional<ModelRequest>> FitToContext(const ModelRequest& request, int64_t context_tokens,
                                                 std::vector<std::string>* changes);

}  // namespace medreact

#endif  // MEDREACT_LLM_CONTEXT_FIT_H_
