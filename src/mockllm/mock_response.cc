// Chat Completions bodies and SSE frames for scripted entries.
//
// Output objects are ordered_json so the bytes read like a real server's
// (id, object, created, model, choices, usage). Values the script gave
// (content, arguments objects, usage) are copied as they are: the point of
// the mock is to hand clients exactly the shapes under test, odd ones
// included. Token counts, when the script gives none, are a rough four
// characters per token — enough for budget code to see non-zero numbers.
#include "mockllm/mock_response.h"

#include <algorithm>
#include <deque>

namespace medreact::mockllm {
namespace {

constexpr int64_t kCreated = 1700000000;  // fixed so that golden outputs stay stable

std::string Dump(const OrderedJson& value) {
  return value.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

int64_t RoughTokens(size_t chars) { return static_cast<int64_t>((chars + 3) / 4); }

OrderedJson UsageFor(const MockEntry& entry, const Json& request) {
  if (entry.usage.has_value()) return OrderedJson(*entry.usage);
  size_t prompt_chars = 0;
  if (request.is_object() && request.contains("messages")) {
    prompt_chars = DumpJson(request.at("messages")).size();
  }
  size_t completion_chars = entry.content.is_string() ? entry.content.get<std::string>().size() : 0;
  for (const MockToolCall& call : entry.tool_calls) {
    completion_chars += call.name.size();
    completion_chars += call.arguments.is_string() ? call.arguments.get<std::string>().size()
                                                   : DumpJson(call.arguments).size();
  }
  const int64_t prompt = RoughTokens(prompt_chars);
  const int64_t completion = RoughTokens(completion_chars);
  return OrderedJson{
      {"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", prompt + completion}};
}

OrderedJson Envelope(const MockEntry& entry, int64_t sequence, const char* object) {
  return OrderedJson{{"id", "chatcmpl-mock-" + std::to_string(sequence)},
                     {"object", object},
                     {"created", kCreated},
                     {"model", entry.model}};
}

// One streamed chunk carrying `delta` (and finish_reason, null until the end).
std::string DeltaChunk(const MockEntry& entry, int64_t sequence, OrderedJson delta,
                       const OrderedJson& finish_reason) {
  OrderedJson chunk = Envelope(entry, sequence, "chat.completion.chunk");
  chunk["choices"] = OrderedJson::array(
      {OrderedJson{{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", finish_reason}}});
  return Dump(chunk);
}

// The deltas of one tool call: its header, then its argument fragments.
std::deque<OrderedJson> ToolCallDeltas(const MockEntry& entry, const MockToolCall& call, int index) {
  std::deque<OrderedJson> out;
  OrderedJson header{{"index", index}};
  if (call.id.has_value()) header["id"] = *call.id;
  header["type"] = "function";
  header["function"] = OrderedJson{{"name", call.name}, {"arguments", ""}};
  out.push_back(std::move(header));

  std::vector<OrderedJson> fragments;
  if (call.arguments.is_string()) {
    for (std::string& piece : SplitUtf8(call.arguments.get<std::string>(),
                                        static_cast<size_t>(entry.fragment_chars))) {
      fragments.emplace_back(std::move(piece));
    }
  } else {
    fragments.emplace_back(call.arguments);  // an object goes whole, as an object
  }
  for (OrderedJson& fragment : fragments) {
    OrderedJson delta{{"index", index}};
    if (entry.repeat_name_empty) {
      delta["id"] = "";
      delta["function"] = OrderedJson{{"name", ""}, {"arguments", std::move(fragment)}};
    } else {
      delta["function"] = OrderedJson{{"arguments", std::move(fragment)}};
    }
    out.push_back(std::move(delta));
  }
  return out;
}

std::vector<std::string> MessagePayloads(const MockEntry& entry, const Json& request,
                                         int64_t sequence) {
  std::vector<std::string> out;
  const OrderedJson null_reason = nullptr;
  out.push_back(DeltaChunk(entry, sequence, OrderedJson{{"role", "assistant"}}, null_reason));

  if (entry.content.is_string()) {
    for (std::string& piece : SplitUtf8(entry.content.get<std::string>(),
                                        static_cast<size_t>(entry.fragment_chars))) {
      out.push_back(DeltaChunk(entry, sequence, OrderedJson{{"content", std::move(piece)}}, null_reason));
    }
  }

  std::vector<std::deque<OrderedJson>> calls;
  for (size_t i = 0; i < entry.tool_calls.size(); ++i) {
    calls.push_back(ToolCallDeltas(entry, entry.tool_calls[i], static_cast<int>(i)));
  }
  auto emit = [&](OrderedJson tool_delta) {
    OrderedJson delta{{"tool_calls", OrderedJson::array({std::move(tool_delta)})}};
    out.push_back(DeltaChunk(entry, sequence, std::move(delta), null_reason));
  };
  if (entry.interleave) {
    // Round robin: one piece of each call in turn until all are drained.
    for (bool any = true; any;) {
      any = false;
      for (auto& queue : calls) {
        if (queue.empty()) continue;
        emit(std::move(queue.front()));
        queue.pop_front();
        any = true;
      }
    }
  } else {
    for (auto& queue : calls) {
      for (OrderedJson& piece : queue) emit(std::move(piece));
    }
  }

  out.push_back(DeltaChunk(entry, sequence, OrderedJson::object(), OrderedJson(entry.finish_reason)));

  bool include_usage = false;
  if (request.is_object() && request.contains("stream_options")) {
    const Json& options = request.at("stream_options");
    include_usage = options.is_object() && options.contains("include_usage") &&
                    options.at("include_usage") == true;
  }
  const bool usage_omitted = entry.usage.has_value() && entry.usage->is_null();
  if (include_usage && !usage_omitted) {
    OrderedJson chunk = Envelope(entry, sequence, "chat.completion.chunk");
    chunk["choices"] = OrderedJson::array();
    chunk["usage"] = UsageFor(entry, request);
    out.push_back(Dump(chunk));
  }
  return out;
}

}  // namespace

std::string ErrorBodyText(const std::string& message, const std::string& type) {
  return Dump(OrderedJson{
      {"error", OrderedJson{{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}}}});
}

std::string CompletionBody(const MockEntry& entry, const Json& request, int64_t sequence) {
  OrderedJson message{{"role", "assistant"}, {"content", OrderedJson(entry.content)}};
  if (!entry.tool_calls.empty()) {
    OrderedJson calls = OrderedJson::array();
    for (const MockToolCall& call : entry.tool_calls) {
      OrderedJson out;
      if (call.id.has_value()) out["id"] = *call.id;
      out["type"] = "function";
      out["function"] = OrderedJson{{"name", call.name}, {"arguments", OrderedJson(call.arguments)}};
      calls.push_back(std::move(out));
    }
    message["tool_calls"] = std::move(calls);
  }
  OrderedJson body = Envelope(entry, sequence, "chat.completion");
  body["choices"] = OrderedJson::array({OrderedJson{
      {"index", 0}, {"message", std::move(message)}, {"finish_reason", OrderedJson(entry.finish_reason)}}});
  if (!(entry.usage.has_value() && entry.usage->is_null())) body["usage"] = UsageFor(entry, request);
  return Dump(body);
}

std::vector<std::string> StreamFrames(const MockEntry& entry, const Json& request,
                                      int64_t sequence) {
  std::vector<std::string> payloads;
  if (entry.kind == MockEntry::Kind::kChunks) {
    for (const Json& chunk : entry.chunks) {
      payloads.push_back(chunk.is_string() ? chunk.get<std::string>() : DumpJson(chunk));
    }
  } else {
    payloads = MessagePayloads(entry, request, sequence);
  }
  if (entry.truncate_after.has_value()) {
    payloads.resize(std::min(payloads.size(), *entry.truncate_after));
  } else if (entry.done) {
    payloads.emplace_back("[DONE]");
  }
  std::vector<std::string> frames;
  frames.reserve(payloads.size());
  for (const std::string& payload : payloads) frames.push_back(FrameSse(payload, entry.crlf));
  return frames;
}

std::string FrameSse(std::string_view payload, bool crlf) {
  std::string frame = "data: ";
  frame += payload;
  frame += crlf ? "\r\n\r\n" : "\n\n";
  return frame;
}

std::vector<std::string> SplitUtf8(std::string_view text, size_t max_chars) {
  std::vector<std::string> out;
  if (max_chars == 0) max_chars = 1;
  std::string piece;
  size_t chars = 0;
  for (char c : text) {
    const bool starts_char = (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    if (starts_char && chars == max_chars) {
      out.push_back(std::move(piece));
      piece.clear();
      chars = 0;
    }
    if (starts_char) ++chars;
    piece += c;
  }
  if (!piece.empty()) out.push_back(std::move(piece));
  return out;
}

}  // namespace medreact::mockllm
