// Context windowing: which messages of a long conversation are sent to the model.
//
// Keeps the leading system message and the first user message (the task), and
// the most recent `max_recent` messages after them — moving the cut earlier
// when it would fall on a tool result, so an assistant turn with tool_calls is
// always followed by all of its results (invariant 5) and no tool message is
// ever sent without its call. Pure function.
#ifndef MEDREACT_LLM_WINDOW_H_
#define MEDREACT_LLM_WINDOW_H_

#include <cstddef>
#include <vector>

#include "medreact/message.h"

namespace medreact {

// max_recent == 0 → all messages.
std::vector<Message> WindowMessages(const std::vector<Message>& messages, size_t max_recent);

}  // namespace medreact

#endif  // MEDREACT_LLM_WINDOW_H_
