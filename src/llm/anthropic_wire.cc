#include "llm/anthropic_wire.h"

#include <map>
#include <utility>
#include <vector>

#include "core/text_util.h"
#include "llm/retry.h"
#include "llm/sse.h"

namespace medreact {
namespace {

Json TextBlock(const std::string& text) { return Json{{"type", "text"}, {"text", text}}; }

// An image part as an image block: base64 from a data: URL, else a URL source.
Json ImageBlock(const std::string& url) {
  constexpr std::string_view kData = "data:";
  const size_t comma = url.find(',');
  if (StartsWith(url, kData) && comma != std::string::npos) {
    std::string media = url.substr(kData.size(), comma - kData.size());
    const size_t semi = media.find(';');
    if (semi != std::string::npos) media.resize(semi);
    return Json{{"type", "image"},
                {"source", {{"type", "base64"}, {"media_type", media}, {"data", url.substr(comma + 1)}}}};
  }
  return Json{{"type", "image"}, {"source", {{"type", "url"}, {"url", url}}}};
}

// The arguments as an object for "input": {} when they are not a JSON object.
Json InputOf(const std::string& arguments) {
  Result<Json> parsed = ParseJson(arguments);
  if (parsed.ok() && parsed->is_object()) return std::move(*parsed);
  return Json::object();
}

// Appends one message, merging it into the last when the roles match.
void AppendMessage(Json& messages, const std::string& role, Json blocks) {
  if (blocks.empty()) return;
  if (!messages.empty() && messages.back().at("role") == role) {
    Json& last = messages.back()["content"];
    for (Json& block : blocks) last.push_back(std::move(block));
    return;
  }
  messages.push_back(Json{{"role", role}, {"content", std::move(blocks)}});
}

int64_t EstimateCacheTokens(size_t bytes) { return static_cast<int64_t>(bytes / 4); }

// The API's usage counts, kept as they come: input_tokens excludes the
// prompt-cache tokens, which are counted apart.
struct WireUsage {
  int64_t input = -1;  // -1: not reported yet
  int64_t cache_creation = 0;
  int64_t cache_read = 0;
  int64_t output = 0;

  void Merge(const Json& usage) {
    if (!usage.is_object()) return;
    auto get = [&](const char* key, int64_t* out) {
      if (std::optional<int64_t> n = ExactInteger(usage.value(key, Json()), 0)) *out = *n;
    };
    get("input_tokens", &input);
    get("cache_creation_input_tokens", &cache_creation);
    get("cache_read_input_tokens", &cache_read);
    get("output_tokens", &output);
  }
  // prompt_tokens counts every prompt token, cached or not.
  Usage ToUsage() const {
    Usage u;
    if (input >= 0) u.prompt_tokens = input + cache_creation + cache_read;
    u.completion_tokens = output;
    u.total_tokens = u.prompt_tokens + u.completion_tokens;
    return u;
  }
};

}  // namespace

std::string MapAnthropicStopReason(const std::string& stop_reason) {
  if (stop_reason == "end_turn" || stop_reason == "stop_sequence") return "stop";
  if (stop_reason == "tool_use") return "tool_calls";
  if (stop_reason == "max_tokens") return "length";
  return stop_reason;
}

bool IsRetryableAnthropicError(const std::string& type) {
  return type == "overloaded_error" || type == "rate_limit_error" || type == "api_error" || type == "timeout_error";
}

Json BuildAnthropicMessagesBody(const ModelRequest& request, const AnthropicBodyOptions& options) {
  Json body = Json::object();
  body["model"] = options.model;
  body["max_tokens"] = request.max_tokens.value_or(options.default_max_tokens);
  if (request.temperature) body["temperature"] = *request.temperature;
  if (request.stream) body["stream"] = true;

  size_t prefix_bytes = 0;
  if (!request.tools.empty()) {
    Json tools = Json::array();
    for (const ToolSpec& spec : request.tools) {
      Json tool{{"name", spec.name}, {"input_schema", spec.parameters}};
      if (!spec.description.empty()) tool["description"] = spec.description;
      prefix_bytes += DumpJson(tool).size();
      tools.push_back(std::move(tool));
    }
    if (EstimateCacheTokens(prefix_bytes) >= options.cache_min_tokens) {
      tools.back()["cache_control"] = Json{{"type", "ephemeral"}};
    }
    body["tools"] = std::move(tools);
    if (request.tool_choice == "auto") body["tool_choice"] = Json{{"type", "auto"}};
    if (request.tool_choice == "required") body["tool_choice"] = Json{{"type", "any"}};
    if (request.tool_choice == "none") body["tool_choice"] = Json{{"type", "none"}};
  }

  Json system = Json::array();
  Json messages = Json::array();
  for (const Message& m : request.messages) {
    switch (m.role) {
      case Role::kSystem:
        if (!m.content.empty()) {
          prefix_bytes += m.content.size();
          system.push_back(TextBlock(m.content));
        }
        break;
      case Role::kUser: {
        Json blocks = Json::array();
        for (const ContentPart& part : m.images) {
          if (part.kind == ContentPart::Kind::kImage) blocks.push_back(ImageBlock(part.image_url));
          if (part.kind == ContentPart::Kind::kText && !part.text.empty()) blocks.push_back(TextBlock(part.text));
        }
        // The API refuses empty text blocks: an empty turn says so in words.
        if (!m.content.empty() || blocks.empty()) {
          blocks.push_back(TextBlock(m.content.empty() ? "(empty)" : m.content));
        }
        AppendMessage(messages, "user", std::move(blocks));
        break;
      }
      case Role::kAssistant: {
        Json blocks = Json::array();
        if (!m.content.empty()) blocks.push_back(TextBlock(m.content));
        for (const ToolCall& call : m.tool_calls) {
          blocks.push_back(
              Json{{"type", "tool_use"}, {"id", call.id}, {"name", call.name}, {"input", InputOf(call.arguments)}});
        }
        AppendMessage(messages, "assistant", std::move(blocks));  // an empty turn is left out
        break;
      }
      case Role::kTool:
        AppendMessage(messages, "user",
                      Json::array({Json{{"type", "tool_result"},
                                        {"tool_use_id", m.tool_call_id},
                                        {"content", m.content.empty() ? "(no output)" : m.content}}}));
        break;
    }
  }
  if (!system.empty()) {
    if (EstimateCacheTokens(prefix_bytes) >= options.cache_min_tokens) {
      system.back()["cache_control"] = Json{{"type", "ephemeral"}};
    }
    body["system"] = std::move(system);
  }
  body["messages"] = std::move(messages);
  return body;
}

Result<AnthropicReply> ParseAnthropicMessage(const Json& body) {
  if (!body.is_object()) return Status::ParseError("Anthropic response: expected a JSON object");
  const std::string type = body.value("type", "");
  if (type == "error") {
    const Json error = body.value("error", Json::object());
    const std::string etype = error.is_object() ? error.value("type", "unknown") : "unknown";
    const std::string text = ServerErrorText(DumpJson(body));
    Status status = IsRetryableAnthropicError(etype) ? Status::Unavailable("Anthropic " + etype + ": " + text)
                                                     : Status::InvalidArgument("Anthropic " + etype + ": " + text);
    return status;
  }
  if (type != "message") return Status::ParseError("Anthropic response: expected type \"message\", got '" + type + "'");
  AnthropicReply reply;
  ModelResponse& out = reply.response;
  const Json content = body.value("content", Json::array());
  if (!content.is_array()) return Status::ParseError("Anthropic response: content is not an array");
  out.message.role = Role::kAssistant;
  for (const Json& block : content) {
    if (!block.is_object()) continue;
    const std::string kind = block.value("type", "");
    if (kind == "text") {
      out.message.content += block.value("text", "");
    } else if (kind == "tool_use") {
      ToolCall call;
      call.id = block.value("id", "");
      if (call.id.empty()) call.id = MintToolCallId();
      call.name = block.value("name", "");
      call.arguments = DumpJson(block.value("input", Json::object()));
      out.message.tool_calls.push_back(std::move(call));
    }  // thinking and other blocks are not part of the reply
  }
  const Json stop = body.value("stop_reason", Json());
  if (stop.is_string()) out.finish_reason = MapAnthropicStopReason(stop.get<std::string>());
  out.model = body.value("model", "");
  WireUsage usage;
  usage.Merge(body.value("usage", Json()));
  out.usage = usage.ToUsage();
  reply.cache_creation_tokens = usage.cache_creation;
  reply.cache_read_tokens = usage.cache_read;
  if (out.message.content.empty() && out.message.tool_calls.empty() && out.finish_reason != "length") {
    out.parse_error = "the model's reply had no text and no tool call";
  }
  return reply;
}

struct AnthropicStreamAccumulator::Impl {
  struct Block {
    std::string type;
    std::string text;
    std::string id;
    std::string name;
    std::string partial_json;
    Json start_input;
  };
  SseDecoder decoder;
  std::map<int64_t, Block> blocks;  // by index: the reply's order
  std::function<void(std::string_view)> on_text;
  std::string error;
  bool retryable = false;
  bool started = false;
  bool stopped = false;
  std::string stop_reason;
  std::string model;
  WireUsage usage;

  bool Fail(std::string why, bool can_retry = false) {
    error = std::move(why);
    retryable = can_retry;
    return false;
  }

  bool OnEvent(SseEvent&& event) {
    Result<Json> parsed = ParseJson(event.data);
    if (!parsed.ok() || !parsed->is_object()) {
      return Fail("Anthropic stream: event '" + event.name + "' is not a JSON object");
    }
    const Json& data = *parsed;
    const std::string type = data.value("type", event.name);
    if (type == "ping") return true;
    if (type == "error") {
      const Json e = data.value("error", Json::object());
      const std::string etype = e.is_object() ? e.value("type", "unknown") : "unknown";
      return Fail("Anthropic stream error event " + etype + ": " + ServerErrorText(event.data),
                  IsRetryableAnthropicError(etype));
    }
    if (type == "message_start") {
      started = true;
      const Json message = data.value("message", Json::object());
      if (message.is_object()) {
        model = message.value("model", "");
        usage.Merge(message.value("usage", Json()));
      }
      return true;
    }
    if (!started) return Fail("Anthropic stream: '" + type + "' before message_start");
    const std::optional<int64_t> index = ExactInteger(data.value("index", Json()), 0, 1'000'000);
    if (type == "content_block_start") {
      const Json block = data.value("content_block", Json::object());
      if (!index || !block.is_object()) return Fail("Anthropic stream: content_block_start without index or block");
      Block& b = blocks[*index];
      b.type = block.value("type", "");
      b.id = block.value("id", "");
      b.name = block.value("name", "");
      b.start_input = block.value("input", Json());
      b.text = block.value("text", "");
      if (b.type == "text" && !b.text.empty() && on_text) on_text(b.text);
      return true;
    }
    if (type == "content_block_delta") {
      const Json delta = data.value("delta", Json::object());
      if (!index || !delta.is_object()) return Fail("Anthropic stream: content_block_delta without index or delta");
      auto it = blocks.find(*index);
      if (it == blocks.end()) {
        return Fail("Anthropic stream: delta for block " + std::to_string(*index) + " before its start");
      }
      const std::string dtype = delta.value("type", "");
      if (dtype == "text_delta") {
        const std::string text = delta.value("text", "");
        it->second.text += text;
        if (on_text && !text.empty()) on_text(text);
      } else if (dtype == "input_json_delta") {
        it->second.partial_json += delta.value("partial_json", "");
      }  // thinking and signature deltas are not part of the reply
      return true;
    }
    if (type == "content_block_stop") return true;
    if (type == "message_delta") {
      const Json delta = data.value("delta", Json::object());
      if (delta.is_object() && delta.value("stop_reason", Json()).is_string()) {
        stop_reason = delta.at("stop_reason").get<std::string>();
      }
      usage.Merge(data.value("usage", Json()));
      return true;
    }
    if (type == "message_stop") {
      stopped = true;
      return true;
    }
    return true;  // an event type added later: ignored, as the API asks
  }
};

AnthropicStreamAccumulator::AnthropicStreamAccumulator() : impl_(std::make_unique<Impl>()) {}
AnthropicStreamAccumulator::~AnthropicStreamAccumulator() = default;

bool AnthropicStreamAccumulator::Feed(std::string_view bytes) {
  return impl_->decoder.Feed(bytes, [this](SseEvent&& e) { return impl_->OnEvent(std::move(e)); });
}

const std::string& AnthropicStreamAccumulator::error() const { return impl_->error; }
bool AnthropicStreamAccumulator::error_retryable() const { return impl_->retryable; }
void AnthropicStreamAccumulator::set_on_text(std::function<void(std::string_view)> fn) {
  impl_->on_text = std::move(fn);
}

Result<AnthropicReply> AnthropicStreamAccumulator::Finish() {
  Impl& s = *impl_;
  if (s.error.empty()) s.decoder.Finish([this](SseEvent&& e) { return impl_->OnEvent(std::move(e)); });
  if (!s.error.empty()) {
    return s.retryable ? Status::Unavailable(s.error) : Status::ParseError(s.error);
  }
  if (!s.started) return Status::Unavailable("Anthropic stream ended without any event");
  if (!s.stopped) return Status::Unavailable("Anthropic stream was cut before message_stop");
  AnthropicReply reply;
  ModelResponse& out = reply.response;
  out.message.role = Role::kAssistant;
  for (auto& [index, b] : s.blocks) {
    if (b.type == "text") {
      out.message.content += b.text;
    } else if (b.type == "tool_use") {
      ToolCall call;
      call.id = b.id.empty() ? MintToolCallId() : b.id;
      call.name = b.name;
      if (!b.partial_json.empty()) {
        call.arguments = b.partial_json;  // as received: the agent reports invalid JSON to the model
      } else {
        call.arguments = b.start_input.is_object() ? DumpJson(b.start_input) : "{}";
      }
      out.message.tool_calls.push_back(std::move(call));
    }
  }
  out.finish_reason = MapAnthropicStopReason(s.stop_reason);
  out.model = s.model;
  out.usage = s.usage.ToUsage();
  reply.cache_creation_tokens = s.usage.cache_creation;
  reply.cache_read_tokens = s.usage.cache_read;
  if (out.message.content.empty() && out.message.tool_calls.empty() && out.finish_reason != "length") {
    out.parse_error = "the model's reply had no text and no tool call";
  }
  return reply;
}

}  // namespace medreact
