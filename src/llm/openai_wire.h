// The Chat Completions request body as text, built from pieces that a
// ChatBodyCache keeps across calls.
//
// A run's requests differ from the previous one by the newest messages only;
// serialising the whole history and the tool specs again on every call made
// the cost of a long run grow with the square of its length. The cache keeps
// each message's wire JSON keyed by the message's whole content (a hash to
// find it, an equality check to be sure: a message that changed, or another
// with the same hash, is never given the wrong text) and each tool list's
// wire JSON keyed by the list's identity (ToolSpecList::SameAs; the cache
// holds the list, so the identity cannot be reused). A request naming an
// append-only conversation (ModelRequest::conversation_id) is cheaper still:
// the cache keeps that conversation's serialised messages as one text and
// only serialises the messages added since, so the per-call cost left is
// one copy of the history's text into the body (checked: the count must fit
// and the last kept message must hash the same, else the messages are
// looked at one by one). The text is the same, byte for byte, as
// DumpJson(BuildChatCompletionsBody(request, model)).
//
// Memory is bounded: past kMaxBytes of kept messages the cache starts afresh
// (the next call of a run then serialises its history once more), and it
// keeps the last kToolSlots tool lists and kConversationSlots conversations. Thread-safe: one client may serve
// many concurrent runs.
#ifndef MEDREACT_LLM_OPENAI_WIRE_H_
#define MEDREACT_LLM_OPENAI_WIRE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

#include "medreact/model.h"

namespace medreact {

class ChatBodyCache {
 public:
  static constexpr size_t kMaxBytes = size_t{32} << 20;
  static constexpr size_t kToolSlots = 8;
  static constexpr size_t kConversationSlots = 64;

  // Appends the request's messages' wire JSON, comma-separated, to `out`.
  void AppendMessages(const ModelRequest& request, std::string& out);

  // Appends the message's wire JSON to `out`.
  void AppendMessage(const Message& message, std::string& out);
  // Appends the tool list's wire JSON (an array) to `out`.
  void AppendTools(const ToolSpecList& tools, std::string& out);
  // The size of the last body built: the next one's is most likely a little
  // more, so it is reserved at once instead of grown by doubling.
  size_t last_body_size() const { return last_body_size_.load(std::memory_order_relaxed); }
  void set_last_body_size(size_t n) { last_body_size_.store(n, std::memory_order_relaxed); }

 private:
  struct Entry {
    Message message;
    std::string text;
  };
  struct Conversation {
    uint64_t id = 0;
    size_t count = 0;      // messages in `text`
    size_t last_hash = 0;  // MessageHash of message count - 1
    std::string text;      // their wire JSON, comma-separated
  };
  void Trim(size_t incoming);  // REQUIRES: mu_ held
  std::mutex mu_;
  std::unordered_multimap<size_t, Entry> messages_;  // by MessageHash
  size_t bytes_ = 0;                                 // content and text kept in messages_
  std::deque<std::pair<ToolSpecList, std::string>> tools_;  // newest last
  std::deque<Conversation> conversations_;                  // newest last
  std::atomic<size_t> last_body_size_{0};
};

// DumpJson(BuildChatCompletionsBody(request, model)), with the messages and
// the tools taken from `cache` when it has them.
std::string ChatCompletionsBodyText(const ModelRequest& request, const std::string& model, ChatBodyCache& cache);

}  // namespace medreact

#endif  // MEDREACT_LLM_OPENAI_WIRE_H_
