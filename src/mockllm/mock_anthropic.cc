#include "mockllm/mock_anthropic.h"

#include <algorithm>

#include "mockllm/mock_response.h"

namespace medreact::mockllm {
namespace {

std::string Dump(const OrderedJson& value) {
  return value.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

int64_t RoughTokens(size_t chars) { return static_cast<int64_t>((chars + 3) / 4); }

std::string ArgumentsText(const MockToolCall& call) {
  return call.arguments.is_string() ? call.arguments.get<std::string>() : DumpJson(call.arguments);
}

std::string ContentText(const MockEntry& entry) {
  return entry.content.is_string() ? entry.content.get<std::string>() : "";
}

OrderedJson StopReason(const MockEntry& entry) {
  if (!entry.finish_reason.is_string()) return nullptr;
  const std::string reason = entry.finish_reason.get<std::string>();
  if (reason == "tool_calls") return "tool_use";
  if (reason == "stop") return "end_turn";
  if (reason == "length") return "max_tokens";
  return reason;
}

OrderedJson UsageOf(const MockEntry& entry, const Json& request) {
  if (entry.usage.has_value()) return OrderedJson(*entry.usage);
  size_t prompt_chars = 0;
  if (request.is_object()) {
    for (const char* key : {"system", "tools", "messages"}) {
      if (request.contains(key)) prompt_chars += DumpJson(request.at(key)).size();
    }
  }
  size_t completion_chars = ContentText(entry).size();
  for (const MockToolCall& call : entry.tool_calls) completion_chars += call.name.size() + ArgumentsText(call).size();
  return OrderedJson{{"input_tokens", RoughTokens(prompt_chars)}, {"output_tokens", RoughTokens(completion_chars)}};
}

std::string ToolId(const MockToolCall& call, size_t index, int64_t sequence) {
  return call.id.value_or("toolu_mock_" + std::to_string(sequence) + "_" + std::to_string(index));
}

std::string Frame(const std::string& event, const std::string& data, bool crlf) {
  const char* nl = crlf ? "\r\n" : "\n";
  std::string out;
  if (!event.empty()) out += "event: " + event + nl;
  out += "data: " + data + nl + nl;
  return out;
}

}  // namespace

std::string AnthropicErrorBodyText(const std::string& message, const std::string& type) {
  return Dump(OrderedJson{{"type", "error"}, {"error", OrderedJson{{"type", type}, {"message", message}}}});
}

std::string AnthropicMessageBody(const MockEntry& entry, const Json& request, int64_t sequence) {
  OrderedJson content = OrderedJson::array();
  if (!ContentText(entry).empty()) content.push_back(OrderedJson{{"type", "text"}, {"text", ContentText(entry)}});
  for (size_t i = 0; i < entry.tool_calls.size(); ++i) {
    const MockToolCall& call = entry.tool_calls[i];
    OrderedJson input = call.arguments.is_string() ? OrderedJson::object() : OrderedJson(call.arguments);
    if (call.arguments.is_string()) {
      Result<Json> parsed = ParseJson(call.arguments.get<std::string>());
      if (parsed.ok()) input = OrderedJson(*parsed);
    }
    content.push_back(OrderedJson{
        {"type", "tool_use"}, {"id", ToolId(call, i, sequence)}, {"name", call.name}, {"input", std::move(input)}});
  }
  OrderedJson body{{"id", "msg_mock_" + std::to_string(sequence)},
                   {"type", "message"},
                   {"role", "assistant"},
                   {"model", entry.model},
                   {"content", std::move(content)},
                   {"stop_reason", StopReason(entry)},
                   {"stop_sequence", nullptr}};
  if (!(entry.usage.has_value() && entry.usage->is_null())) body["usage"] = UsageOf(entry, request);
  return Dump(body);
}

std::vector<std::string> AnthropicStreamFrames(const MockEntry& entry, const Json& request, int64_t sequence) {
  std::vector<std::pair<std::string, std::string>> events;  // (event name, data)
  auto add = [&](const OrderedJson& data) { events.emplace_back(data.at("type").get<std::string>(), Dump(data)); };
  if (entry.kind == MockEntry::Kind::kChunks) {
    for (const Json& chunk : entry.chunks) {
      if (chunk.is_object() && chunk.contains("type") && chunk.at("type").is_string()) {
        events.emplace_back(chunk.at("type").get<std::string>(), DumpJson(chunk));
      } else {
        events.emplace_back("", chunk.is_string() ? chunk.get<std::string>() : DumpJson(chunk));
      }
    }
  } else {
    OrderedJson usage = UsageOf(entry, request);
    OrderedJson start_usage = usage.is_object() ? usage : OrderedJson::object();
    if (start_usage.is_object()) start_usage["output_tokens"] = 1;
    add(OrderedJson{{"type", "message_start"},
                    {"message", OrderedJson{{"id", "msg_mock_" + std::to_string(sequence)},
                                            {"type", "message"},
                                            {"role", "assistant"},
                                            {"model", entry.model},
                                            {"content", OrderedJson::array()},
                                            {"stop_reason", nullptr},
                                            {"usage", start_usage}}}});
    add(OrderedJson{{"type", "ping"}});
    const size_t piece = static_cast<size_t>(std::max(1, entry.fragment_chars));
    int index = 0;
    if (!ContentText(entry).empty()) {
      add(OrderedJson{{"type", "content_block_start"}, {"index", index},
                      {"content_block", OrderedJson{{"type", "text"}, {"text", ""}}}});
      for (const std::string& text : SplitUtf8(ContentText(entry), piece)) {
        add(OrderedJson{{"type", "content_block_delta"}, {"index", index},
                        {"delta", OrderedJson{{"type", "text_delta"}, {"text", text}}}});
      }
      add(OrderedJson{{"type", "content_block_stop"}, {"index", index}});
      ++index;
    }
    for (size_t i = 0; i < entry.tool_calls.size(); ++i, ++index) {
      const MockToolCall& call = entry.tool_calls[i];
      add(OrderedJson{{"type", "content_block_start"}, {"index", index},
                      {"content_block", OrderedJson{{"type", "tool_use"}, {"id", ToolId(call, i, sequence)},
                                                    {"name", call.name}, {"input", OrderedJson::object()}}}});
      for (const std::string& part : SplitUtf8(ArgumentsText(call), piece)) {
        add(OrderedJson{{"type", "content_block_delta"}, {"index", index},
                        {"delta", OrderedJson{{"type", "input_json_delta"}, {"partial_json", part}}}});
      }
      add(OrderedJson{{"type", "content_block_stop"}, {"index", index}});
    }
    OrderedJson delta_usage = OrderedJson::object();
    if (usage.is_object() && usage.contains("output_tokens")) delta_usage["output_tokens"] = usage["output_tokens"];
    add(OrderedJson{{"type", "message_delta"},
                    {"delta", OrderedJson{{"stop_reason", StopReason(entry)}, {"stop_sequence", nullptr}}},
                    {"usage", delta_usage}});
    add(OrderedJson{{"type", "message_stop"}});
  }
  if (entry.truncate_after.has_value()) events.resize(std::min(events.size(), *entry.truncate_after));
  std::vector<std::string> frames;
  frames.reserve(events.size());
  for (const auto& [name, data] : events) frames.push_back(Frame(name, data, entry.crlf));
  return frames;
}

}  // namespace medreact::mockllm
