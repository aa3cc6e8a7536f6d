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
// append-only conversation (ModelRequest::conversation_id) costs less still:
// the cache keeps that conversation's body up to the end of its messages as
// one string and lends it as the next body, which only the new messages and
// the small tail are appended to; the client gives it back after sending
// (ReturnBody), cut back to the messages. So a long run's history is neither
// compared nor copied per call. The kept string is used only when the body's
// head (the keys before "messages") is the same, the kept count fits and the
// last kept message hashes the same; otherwise the body is built afresh. The
// text is the same, byte for byte, as DumpJson(BuildChatCompletionsBody(request,
// model)).
//
// Memory is bounded: past kMaxBytes of kept messages the cache starts afresh
// (the next call of a run then serialises its history once more), and it
// keeps the last kToolSlots tool lists and kConversationSlots conversations.
// Thread-safe: one client may serve many concurrent runs (a conversation lent
// to one call is built afresh for a concurrent one).
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

  // The body up to the end of the messages: `head` (everything before the
  // first message) then the messages' wire JSON, comma-separated. For a
  // conversation this is the kept string, lent: give the finished body back
  // with ReturnBody. REQUIRES: head ends with "[".
  std::string BodyThroughMessages(const ModelRequest& request, const std::string& head);
  // Takes back a body lent by BodyThroughMessages (no-op for one that was not).
  void ReturnBody(uint64_t conversation_id, std::string body);

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
    size_t count = 0;      // messages kept
    size_t last_hash = 0;  // MessageHash of message count - 1
    size_t head_size = 0;  // text[0, head_size) is the head
    size_t end = 0;        // text[0, end) is head + messages (the bytes counted)
    bool lent = false;     // text is out as a body
    std::string text;
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
