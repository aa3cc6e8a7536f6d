#include "llm/window.h"

namespace medreact {

std::vector<Message> WindowMessages(const std::vector<Message>& messages, size_t max_recent) {
  if (max_recent == 0) return messages;
  // The head that is always kept: a leading system message and the first user turn.
  size_t head = 0;
  if (head < messages.size() && messages[head].role == Role::kSystem) ++head;
  if (head < messages.size() && messages[head].role == Role::kUser) ++head;
  if (messages.size() - head <= max_recent) return messages;

  size_t cut = messages.size() - max_recent;
  // Never start inside a tool-call group: back up to the assistant turn that
  // made the calls.
  while (cut > head && messages[cut].role == Role::kTool) --cut;

  std::vector<Message> out(messages.begin(), messages.begin() + head);
  out.insert(out.end(), messages.begin() + cut, messages.end());
  return out;
}

}  // namespace medreact
