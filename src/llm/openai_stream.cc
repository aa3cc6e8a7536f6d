// StreamAccumulator: delta accumulation for streamed Chat Completions, over
// the shared SSE framing (llm/sse.h).
//
// Each event's data is a JSON chunk, or "[DONE]" at the end.
//
// A chunk is {"choices":[{"delta":{...},"finish_reason":...}],"usage":...,
// "model":...}. Text deltas are appended. Tool-call deltas are accumulated
// per slot keyed by "index" (missing index: matched by id, else by position);
// id, type and name are set once and never erased by a later "" or null;
// argument fragments are concatenated, and an arguments object given whole
// wins over fragments. finish_reason is recorded, never trusted to say whether
// there are calls. A usage-only chunk (empty choices) records usage; an
// "error" object ends the stream with that message. Finish() assembles the
// same JSON shape a non-streamed reply has and runs ParseChatCompletion on it,
// so both paths mint ids and report empty replies identically.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "llm/sse.h"
#include "medreact/openai.h"

namespace medreact {

// More tool calls than any real reply makes; a stream asking for more is
// malformed (and would otherwise grow without bound).
constexpr int kMaxToolCalls = 256;

struct StreamAccumulator::Impl {
  struct Slot {
    std::string id;
    std::string type;
    std::string name;
    std::string arguments;              // concatenated string fragments
    std::optional<Json> arguments_whole;  // an arguments value given as an object
  };

  SseDecoder sse;
  SseDecoder::Handler on_event = [this](SseEvent&& event) { return Dispatch(event.data, event.at_end); };
  bool any_event = false;
  bool done = false;
  bool failed = false;
  Status failure;
  std::string error;

  // Accumulated message.
  std::string content;
  std::map<int, Slot> slots;
  int last_slot = -1;
  std::string finish_reason;
  std::string model;
  Json usage;  // null until reported
  std::function<void(std::string_view)> on_text;

  bool Fail(Status status) {
    failed = true;
    error = status.message();
    failure = std::move(status);
    return false;
  }

  bool FeedBytes(std::string_view bytes) {
    if (done) return true;  // whatever follows [DONE] is not part of the reply
    sse.Feed(bytes, on_event);
    return !failed;
  }

  // Handles one event's data. At end of stream an event without its closing
  // blank line is accepted if its data is whole.
  bool Dispatch(const std::string& event, bool at_end) {
    if (done) return false;  // whatever follows [DONE] is not part of the reply
    std::string_view trimmed = event;
    while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\t')) trimmed.remove_suffix(1);
    if (trimmed.empty()) return true;
    any_event = true;
    if (trimmed == "[DONE]") {
      done = true;
      return false;  // stop decoding
    }
    Result<Json> chunk = ParseJson(event);
    if (!chunk.ok()) {
      if (at_end) {
        return Fail(Status::Unavailable("stream truncated mid-event (" + std::to_string(event.size()) +
                                        " bytes of its data received)"));
      }
      return Fail(Status::ParseError("stream event is not valid JSON: " + chunk.status().message()));
    }
    try {
      return ProcessChunk(*chunk);
    } catch (const std::exception& e) {  // defensive: nlohmann accessors on odd shapes
      return Fail(Status::ParseError(std::string("stream chunk: ") + e.what()));
    }
  }

  bool ProcessChunk(const Json& chunk) {
    if (!chunk.is_object()) {
      return Fail(Status::ParseError(std::string("stream chunk is not a JSON object but ") +
                                     (chunk.is_array() ? "an array" : chunk.is_string() ? "a string" : "a scalar")));
    }
    if (auto err = chunk.find("error"); err != chunk.end() && !err->is_null()) {
      std::string message;
      if (err->is_string()) {
        message = err->get<std::string>();
      } else if (err->is_object() && err->contains("message") && (*err)["message"].is_string()) {
        message = (*err)["message"].get<std::string>();
      } else {
        message = DumpJson(*err);
      }
      return Fail(Status::Unavailable("server error in stream: " + Preview(message, 300)));
    }
    if (auto m = chunk.find("model"); m != chunk.end() && m->is_string() && model.empty()) {
      model = m->get<std::string>();
    }
    if (auto u = chunk.find("usage"); u != chunk.end() && u->is_object()) usage = *u;
    auto choices = chunk.find("choices");
    if (choices == chunk.end() || !choices->is_array() || choices->empty()) return true;
    const Json* choice = &(*choices)[0];
    for (const Json& c : *choices) {
      if (c.is_object() && ExactInteger(c.value("index", Json()), 0, 0)) {
        choice = &c;
        break;
      }
    }
    if (!choice->is_object()) return true;
    auto delta = choice->find("delta");
    if (delta == choice->end() || !delta->is_object()) delta = choice->find("message");
    if (delta != choice->end() && delta->is_object()) {
      if (auto text = delta->find("content"); text != delta->end() && text->is_string()) {
        const std::string& piece = text->get_ref<const std::string&>();
        if (!piece.empty()) {
          content += piece;
          if (on_text) on_text(piece);
        }
      }
      if (auto calls = delta->find("tool_calls"); calls != delta->end() && calls->is_array()) {
        for (size_t i = 0; i < calls->size() && i < kMaxToolCalls; ++i) {
          if (!MergeToolCall((*calls)[i], static_cast<int>(i), calls->size())) return false;
        }
      }
    }
    if (auto reason = choice->find("finish_reason"); reason != choice->end() && reason->is_string()) {
      if (!reason->get_ref<const std::string&>().empty()) finish_reason = reason->get<std::string>();
    }
    return true;
  }

  static std::string StringOrEmpty(const Json& object, const char* key) {
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : "";
  }

  // Slot keys stay in [0, kMaxToolCalls]: an index outside that range is
  // treated as absent, so a hostile index cannot overflow the next-slot count.
  int SlotFor(const Json& delta, int position, size_t count) {
    if (std::optional<int64_t> index = ExactInteger(delta.value("index", Json()), 0, kMaxToolCalls - 1)) {
      return static_cast<int>(*index);
    }
    std::string id = StringOrEmpty(delta, "id");
    int next = slots.empty() ? 0 : slots.rbegin()->first + 1;
    if (!id.empty()) {
      for (const auto& [key, slot] : slots) {
        if (slot.id == id) return key;
      }
      // A new id opens a new slot unless its positional slot is still unnamed.
      auto positional = slots.find(count > 1 ? position : last_slot);
      if (positional != slots.end() && positional->second.id.empty()) return positional->first;
      return next;
    }
    if (count > 1) return position;
    return last_slot >= 0 ? last_slot : 0;
  }

  bool MergeToolCall(const Json& delta, int position, size_t count) {
    if (!delta.is_object()) return true;
    int key = SlotFor(delta, position, count);
    if (slots.size() >= kMaxToolCalls && !slots.count(key)) {
      return Fail(Status::ParseError("the stream opened more than " + std::to_string(kMaxToolCalls) +
                                     " tool calls in one reply"));
    }
    last_slot = key;
    Slot& slot = slots[key];
    if (slot.id.empty()) slot.id = StringOrEmpty(delta, "id");
    if (slot.type.empty()) slot.type = StringOrEmpty(delta, "type");
    auto function = delta.find("function");
    if (function == delta.end() || !function->is_object()) return true;
    if (slot.name.empty()) slot.name = StringOrEmpty(*function, "name");
    auto args = function->find("arguments");
    if (args == function->end() || args->is_null()) return true;
    if (args->is_string()) {
      slot.arguments += args->get_ref<const std::string&>();
    } else {
      slot.arguments_whole = *args;
    }
    return true;
  }

  Result<ModelResponse> Finish() {
    if (failed) return failure;
    if (!done) sse.Finish(on_event);
    if (failed) return failure;
    if (!any_event) return Status::Unavailable("stream ended without any event");
    if (!done && finish_reason.empty()) {
      return Status::Unavailable("stream truncated: it ended before [DONE] or a finish_reason (" +
                                 std::to_string(content.size()) + " bytes of text and " +
                                 std::to_string(slots.size()) + " tool call(s) received)");
    }
    Json message{{"role", "assistant"}};
    message["content"] = content.empty() ? Json(nullptr) : Json(content);
    Json calls = Json::array();
    for (const auto& [key, slot] : slots) {
      Json function{{"name", slot.name}};
      function["arguments"] = slot.arguments_whole ? *slot.arguments_whole : Json(slot.arguments);
      calls.push_back({{"id", slot.id},
                       {"type", slot.type.empty() ? "function" : slot.type},
                       {"function", std::move(function)}});
    }
    if (!calls.empty()) message["tool_calls"] = std::move(calls);
    Json choice{{"index", 0}, {"message", std::move(message)}};
    choice["finish_reason"] = finish_reason.empty() ? Json(nullptr) : Json(finish_reason);
    Json body{{"choices", Json::array({std::move(choice)})}};
    if (!model.empty()) body["model"] = model;
    if (!usage.is_null()) body["usage"] = usage;
    return ParseChatCompletion(body);
  }
};

StreamAccumulator::StreamAccumulator() : impl_(std::make_unique<Impl>()) {}
StreamAccumulator::~StreamAccumulator() = default;

bool StreamAccumulator::Feed(std::string_view bytes) {
  if (impl_->failed) return false;
  return impl_->FeedBytes(bytes);
}

Result<ModelResponse> StreamAccumulator::Finish() { return impl_->Finish(); }

const std::string& StreamAccumulator::error() const { return impl_->error; }

bool StreamAccumulator::done() const { return impl_->done; }

void StreamAccumulator::set_on_text(std::function<void(std::string_view)> fn) {
  impl_->on_text = std::move(fn);
}

}  // namespace medreact
