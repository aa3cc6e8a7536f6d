#include "llm/context_fit.h"

#include <algorithm>

#include "llm/window.h"

namespace medreact {
namespace {

constexpr int64_t kBytesPerToken = 3;
constexpr int64_t kTokensPerMessage = 8;
constexpr size_t kShortDescription = 160;

int64_t MessageTokens(const Message& m) {
  int64_t bytes = static_cast<int64_t>(m.content.size());
  for (const ToolCall& c : m.tool_calls) bytes += static_cast<int64_t>(c.name.size() + c.arguments.size()) + 16;
  return kTokensPerMessage + bytes / kBytesPerToken;
}

int64_t ToolTokens(const std::vector<ToolSpec>& tools) {
  int64_t bytes = 0;
  for (const ToolSpec& t : tools) bytes += static_cast<int64_t>(t.name.size() + t.description.size() + DumpJson(t.parameters).size()) + 32;
  return bytes / kBytesPerToken;
}

// The first sentence, at most kShortDescription bytes (cut at a space).
std::string FirstSentence(const std::string& text) {
  size_t end = text.find(". ");
  end = end == std::string::npos ? text.size() : end + 1;
  if (end > kShortDescription) {
    end = text.rfind(' ', kShortDescription);
    if (end == std::string::npos) end = kShortDescription;
  }
  return text.substr(0, end);
}

void DropSchemaDescriptions(Json& schema) {
  if (schema.is_object()) {
    schema.erase("description");
    for (auto& [key, value] : schema.items()) DropSchemaDescriptions(value);
  } else if (schema.is_array()) {
    for (Json& item : schema) DropSchemaDescriptions(item);
  }
}

}  // namespace

int64_t ModelContextWindow(ChatModel& model, const ModelCallContext& ctx) {
  if (auto* source = dynamic_cast<ContextWindowSource*>(&model)) return source->ContextWindow(ctx);
  return model.capabilities().context_tokens;
}

int64_t EstimateToolTokens(const std::vector<ToolSpec>& tools) { return ToolTokens(tools); }

int64_t EstimateMessageTokens(const std::vector<Message>& messages) {
  int64_t total = 0;
  for (const Message& m : messages) total += MessageTokens(m);
  return total;
}

ToolSpec ShortenedToolSpec(const ToolSpec& tool) {
  ToolSpec shorter = tool;
  shorter.description = FirstSentence(shorter.description);
  if (shorter.parameters.contains("properties")) DropSchemaDescriptions(shorter.parameters["properties"]);
  return shorter;
}

int64_t EstimateTokens(const ModelRequest& request) {
  int64_t total = ToolTokens(request.tools);
  for (const Message& m : request.messages) total += MessageTokens(m);
  return total;
}

int64_t ReplyReserve(const ModelRequest& request, int64_t context_tokens) {
  if (request.max_tokens && *request.max_tokens > 0) return *request.max_tokens;
  return std::min<int64_t>(1024, context_tokens / 4);
}

Result<std::optional<ModelRequest>> FitToContext(const ModelRequest& original, int64_t context_tokens,
                                                 std::vector<std::string>* changes) {
  const int64_t budget = context_tokens - ReplyReserve(original, context_tokens);
  const int64_t needed = EstimateTokens(original);
  if (needed <= budget) return std::optional<ModelRequest>();
  ModelRequest request = original;

  // 1. Shorter tool descriptions.
  if (!request.tools.empty()) {
    std::vector<ToolSpec> shorter;
    for (const ToolSpec& tool : request.tools) shorter.push_back(ShortenedToolSpec(tool));
    request.tools = std::move(shorter);
    if (changes) changes->push_back("tool descriptions shortened to fit the context window");
    if (EstimateTokens(request) <= budget) return std::optional<ModelRequest>(std::move(request));
  }
  // 2. Older history left out, newest kept, groups intact: no longer the
  // append-only conversation a client may have kept.
  request.conversation_id = 0;
  const std::vector<Message> all = request.messages;
  size_t head = 0;
  if (head < all.size() && all[head].role == Role::kSystem) ++head;
  if (head < all.size() && all[head].role == Role::kUser) ++head;
  for (size_t recent = all.size() - head; recent-- > 1;) {
    request.messages = WindowMessages(all, recent);
    if (EstimateTokens(request) <= budget) {
      if (changes) {
        changes->push_back("history windowed to the last " + std::to_string(request.messages.size() - head) +
                           " messages to fit the context window");
      }
      return std::optional<ModelRequest>(std::move(request));
    }
  }
  const int64_t smallest = EstimateTokens(request);
  return Status::InvalidArgument(
      "the request does not fit the model's context window: it needs about " + std::to_string(needed) +
      " tokens (" + std::to_string(smallest) + " with shortened tool descriptions and only the system prompt, the task "
      "and the newest turn), but the window is " + std::to_string(context_tokens) + " tokens of which " +
      std::to_string(context_tokens - budget) +
      " are kept for the reply. Use a server with a larger context (llama.cpp: --ctx-size), fewer tools or a "
      "shorter input");
}

}  // namespace medreact
