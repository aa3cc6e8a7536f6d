// The Chat Completions wire mapping: ModelRequest -> request body, and a
// non-streamed response body -> ModelResponse.
//
// Request: {"model", "messages", "tools", "tool_choice", "response_format",
// "temperature", "max_tokens", "stream", "stream_options"}, each optional field
// present only when set (response_format is the caller's object, as is). Messages are {"role","content"}; a user turn with images carries a
// content array of {"type":"text"} and {"type":"image_url"} parts; an assistant
// turn with calls has "content": null when it has no text and "tool_calls":
// [{"id","type":"function","function":{"name","arguments"}}] where arguments is
// always a JSON *string* holding an object (invalid arguments are re-sent as
// "{}" because the tool result already told the model what was wrong); a tool
// turn is {"role":"tool","tool_call_id","content"}.
//
// Response: choices[0].message. Servers disagree on the details, so the parser
// accepts content as a string, null, absent or an array of text parts;
// function.arguments as a string or an object; a missing id (minted); the
// legacy single "function_call"; and "usage", "finish_reason", "model" when
// present. A body with "error" is a server error, a body with no choices a
// parse error; a reply with neither text nor calls is an OK response carrying
// parse_error so the agent can tell the model. The streaming accumulator
// (openai_stream.cc) builds its result through ParseChatCompletion too, so both
// paths produce identical responses.
//
// ChatCompletionsBodyText (openai_wire.h) writes the same body as text from
// per-message and per-tool-list pieces that a ChatBodyCache keeps, so the
// history is serialised once, not on every call.

#include "llm/openai_wire.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/text_util.h"
#include "medreact/openai.h"

namespace medreact {
namespace {

constexpr char kEmptyReplyError[] = "The model returned an empty reply (no text and no tool calls).";

// Arguments as re-sent in the history: the compact text of the object they
// parse to (keys in the model's order), or "{}" when they are not a JSON object.
std::string NormalizeArguments(const std::string& arguments) {
  Result<OrderedJson> parsed = ParseOrderedJson(arguments);  // depth and number guards
  if (!parsed.ok() || !parsed->is_object()) return "{}";
  return DumpJson(*parsed);
}

Json UserContent(const Message& message) {
  if (message.images.empty()) return message.content;
  Json parts = Json::array();
  if (!message.content.empty()) parts.push_back({{"type", "text"}, {"text", message.content}});
  for (const ContentPart& part : message.images) {
    if (part.kind == ContentPart::Kind::kText) {
      parts.push_back({{"type", "text"}, {"text", part.text}});
    } else {
      parts.push_back({{"type", "image_url"}, {"image_url", {{"url", part.image_url}}}});
    }
  }
  return parts;
}

Json MessageToWire(const Message& message) {
  Json out{{"role", RoleName(message.role)}};
  switch (message.role) {
    case Role::kSystem:
      out["content"] = message.content;
      break;
    case Role::kUser:
      out["content"] = UserContent(message);
      break;
    case Role::kAssistant: {
      if (message.content.empty() && message.has_tool_calls()) {
        out["content"] = nullptr;
      } else {
        out["content"] = message.content;
      }
      if (message.has_tool_calls()) {
        Json calls = Json::array();
        for (const ToolCall& call : message.tool_calls) {
          calls.push_back({{"id", call.id},
                           {"type", "function"},
                           {"function", {{"name", call.name},
                                         {"arguments", NormalizeArguments(call.arguments)}}}});
        }
        out["tool_calls"] = std::move(calls);
      }
      break;
    }
    case Role::kTool:
      out["tool_call_id"] = message.tool_call_id;
      out["content"] = message.content;
      break;
  }
  return out;
}

Json ToolsToWire(const std::vector<ToolSpec>& specs) {
  Json tools = Json::array();
  for (const ToolSpec& spec : specs) {
    tools.push_back({{"type", "function"},
                     {"function", {{"name", spec.name},
                                   {"description", spec.description},
                                   {"parameters", spec.parameters}}}});
  }
  return tools;
}

// A hash of what MessageToWire reads: each text's size and its first and
// last kHashedEnds bytes. Hashing whole texts cost as much as a long run's
// serialisation used to; two messages that differ only in the middle share a
// bucket, and the equality check (SameWire) tells them apart.
constexpr size_t kHashedEnds = 64;

size_t MessageHash(const Message& m) {
  const std::hash<std::string_view> hash;
  size_t h = static_cast<size_t>(m.role);
  auto mix = [&](std::string_view text) {
    h = (h ^ text.size()) * 0x100000001b3ULL;
    if (text.size() > 2 * kHashedEnds) {
      h = (h ^ hash(text.substr(0, kHashedEnds))) * 0x100000001b3ULL;
      text = text.substr(text.size() - kHashedEnds);
    }
    h = (h ^ hash(text)) * 0x100000001b3ULL;
  };
  mix(m.content);
  mix(m.tool_call_id);
  for (const ToolCall& call : m.tool_calls) {
    mix(call.id);
    mix(call.name);
    mix(call.arguments);
  }
  for (const ContentPart& part : m.images) {
    h ^= static_cast<size_t>(part.kind) + 1;
    mix(part.text);
    mix(part.image_url);
  }
  return h;
}

bool SameWire(const Message& a, const Message& b) {
  if (a.role != b.role || a.content != b.content || a.tool_call_id != b.tool_call_id ||
      a.tool_calls != b.tool_calls || a.images.size() != b.images.size()) {
    return false;
  }
  for (size_t i = 0; i < a.images.size(); ++i) {
    if (a.images[i].kind != b.images[i].kind || a.images[i].text != b.images[i].text ||
        a.images[i].image_url != b.images[i].image_url) {
      return false;
    }
  }
  return true;
}

size_t MessageBytes(const Message& m) {
  size_t n = m.content.size() + m.tool_call_id.size() + m.name.size();
  for (const ToolCall& call : m.tool_calls) n += call.id.size() + call.name.size() + call.arguments.size();
  for (const ContentPart& part : m.images) n += part.text.size() + part.image_url.size();
  return n;
}

// Text of a "content" value: a string, null, or an array of parts.
std::string ContentText(const Json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (!content.is_array()) return text;
  for (const Json& part : content) {
    if (part.is_string()) {
      text += part.get<std::string>();
    } else if (part.is_object()) {
      auto type = part.find("type");
      auto part_text = part.find("text");
      bool is_text = type == part.end() || (type->is_string() && (*type == "text" || *type == "output_text"));
      if (is_text && part_text != part.end() && part_text->is_string()) text += part_text->get<std::string>();
    }
  }
  return text;
}

std::string StringField(const Json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// A token count: a non-negative whole number below 2^53 (a server's 1e300 or
// -5 is not a count, and converting 1e300 to an integer is undefined
// behaviour); 0 otherwise.
int64_t CountField(const Json& object, const char* key) {
  constexpr int64_t kMaxCount = int64_t{1} << 53;
  const int64_t count = IntegerOr(object, key, 0);
  return count >= 0 && count < kMaxCount ? count : 0;
}

// Arguments as received: a string is kept verbatim, anything else is dumped.
std::string ArgumentsText(const Json& function) {
  if (!function.is_object()) return "";
  auto it = function.find("arguments");
  if (it == function.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  return DumpJson(*it);
}

// One entry of "tool_calls" (or a legacy "function_call" when `legacy`).
std::optional<ToolCall> ParseToolCall(const Json& entry, bool legacy) {
  if (!entry.is_object()) return std::nullopt;
  const Json* function = &entry;
  if (!legacy) {
    auto it = entry.find("function");
    if (it != entry.end() && it->is_object()) function = &*it;
  }
  ToolCall call;
  call.name = StringField(*function, "name");
  call.arguments = ArgumentsText(*function);
  if (call.name.empty() && call.arguments.empty()) return std::nullopt;
  call.id = legacy ? "" : StringField(entry, "id");
  if (call.id.empty()) call.id = MintToolCallId();
  return call;
}

std::string ErrorMessage(const Json& error) {
  if (error.is_string()) return error.get<std::string>();
  std::string message = StringField(error, "message");
  return message.empty() ? DumpJson(error) : message;
}

std::string DescribeKind(const Json& value) {
  if (value.is_array()) return "an array";
  if (value.is_string()) return "a string";
  if (value.is_number()) return "a number";
  if (value.is_boolean()) return "a boolean";
  return "null";
}

// The first few keys of an object, shortened: enough to see what a server
// sent instead, never its values (which may echo the prompt).
std::string KeyList(const Json& object) {
  std::string keys;
  int listed = 0;
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (listed++ == 8) {
      keys += ", ...";
      break;
    }
    keys += (keys.empty() ? "" : ", ") + Preview(it.key(), 40);
  }
  return keys.empty() ? "none" : keys;
}

Result<ModelResponse> ParseResponseBody(const Json& body) {
  if (!body.is_object()) {
    return Status::ParseError("chat completion is not a JSON object but " + DescribeKind(body));
  }
  if (auto error = body.find("error"); error != body.end() && !error->is_null()) {
    return Status::Unavailable("server error: " + Preview(ErrorMessage(*error), 300));
  }
  auto choices = body.find("choices");
  if (choices == body.end() || !choices->is_array() || choices->empty() || !(*choices)[0].is_object()) {
    return Status::ParseError("chat completion has no choices (top-level keys: " + KeyList(body) + ")");
  }
  const Json& choice = (*choices)[0];

  ModelResponse response;
  response.message.role = Role::kAssistant;
  response.finish_reason = StringField(choice, "finish_reason");
  response.model = StringField(body, "model");
  if (auto usage = body.find("usage"); usage != body.end() && usage->is_object()) {
    response.usage.prompt_tokens = CountField(*usage, "prompt_tokens");
    response.usage.completion_tokens = CountField(*usage, "completion_tokens");
    response.usage.total_tokens = CountField(*usage, "total_tokens");
    if (response.usage.total_tokens == 0) {
      response.usage.total_tokens = response.usage.prompt_tokens + response.usage.completion_tokens;
    }
  }

  auto message_it = choice.find("message");
  if (message_it != choice.end() && message_it->is_object()) {
    const Json& message = *message_it;
    if (auto content = message.find("content"); content != message.end()) {
      response.message.content = ContentText(*content);
    }
    if (auto calls = message.find("tool_calls"); calls != message.end() && calls->is_array()) {
      for (const Json& entry : *calls) {
        if (auto call = ParseToolCall(entry, /*legacy=*/false)) response.message.tool_calls.push_back(*call);
      }
    }
    if (!response.message.has_tool_calls()) {
      if (auto legacy = message.find("function_call"); legacy != message.end()) {
        if (auto call = ParseToolCall(*legacy, /*legacy=*/true)) response.message.tool_calls.push_back(*call);
      }
    }
  } else if (auto text = choice.find("text"); text != choice.end()) {
    response.message.content = ContentText(*text);  // legacy completions shape
  }

  if (IsBlank(response.message.content) && !response.message.has_tool_calls()) {
    response.parse_error = kEmptyReplyError;
  }
  return response;
}

}  // namespace

Json BuildChatCompletionsBody(const ModelRequest& request, const std::string& model) {
  Json body = Json::object();
  if (!model.empty()) body["model"] = model;
  Json messages = Json::array();
  for (const Message& message : request.messages) messages.push_back(MessageToWire(message));
  body["messages"] = std::move(messages);
  if (!request.tools.empty()) body["tools"] = ToolsToWire(request.tools);
  if (!request.tool_choice.empty()) body["tool_choice"] = request.tool_choice;
  if (!request.response_format.is_null()) body["response_format"] = request.response_format;
  if (request.temperature) body["temperature"] = *request.temperature;
  if (request.max_tokens) body["max_tokens"] = *request.max_tokens;
  if (request.stream) {
    body["stream"] = true;
    body["stream_options"] = {{"include_usage", true}};
  }
  return body;
}

void ChatBodyCache::Trim(size_t incoming) {
  if (bytes_ + incoming <= kMaxBytes) return;
  messages_.clear();
  conversations_.clear();  // a lent body is then simply not taken back
  bytes_ = 0;
}

std::string ChatBodyCache::BodyThroughMessages(const ModelRequest& request, const std::string& head) {
  const std::vector<Message>& messages = request.messages;
  const uint64_t id = request.conversation_id;
  std::string out;
  if (id == 0 || messages.empty()) {
    out.reserve(last_body_size() + 4096);  // a run's next body is its last one and a bit
    out += head;
    for (size_t i = 0; i < messages.size(); ++i) {
      if (i > 0) out += ',';
      AppendMessage(messages[i], out);
    }
    return out;
  }
  size_t kept = 0;       // messages already in `out`
  bool borrowed = false;  // `out` is the conversation's kept string
  bool busy = false;      // lent to another call: build this one afresh, keep nothing
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::find_if(conversations_.begin(), conversations_.end(),
                           [&](const Conversation& c) { return c.id == id; });
    if (it != conversations_.end() && it->lent) {
      busy = true;
    } else if (it != conversations_.end()) {
      if (it->count <= messages.size() && it->head_size == head.size() &&
          it->text.compare(0, head.size(), head) == 0 && MessageHash(messages[it->count - 1]) == it->last_hash) {
        out = std::move(it->text);
        kept = it->count;
        borrowed = true;
        it->lent = true;
      } else {  // not the conversation it claims to extend: forget it
        bytes_ -= it->end;
        conversations_.erase(it);
      }
    }
  }
  if (!borrowed) {
    out.reserve(last_body_size() + 4096);
    out += head;
  }
  const size_t added_from = out.size();
  for (size_t i = kept; i < messages.size(); ++i) {
    if (i > 0) out += ',';
    out += DumpJson(MessageToWire(messages[i]));
  }
  if (busy) return out;
  const size_t added = out.size() - added_from;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find_if(conversations_.begin(), conversations_.end(),
                         [&](const Conversation& c) { return c.id == id; });
  if (borrowed && it == conversations_.end()) return out;  // dropped meanwhile (Trim): nothing to return to
  if (!borrowed) {
    Trim(out.size());
    if (out.size() > kMaxBytes) return out;
    if (conversations_.size() == kConversationSlots) {
      bytes_ -= conversations_.front().end;
      conversations_.pop_front();
    }
    conversations_.push_back({.id = id, .head_size = head.size(), .lent = true});
    it = std::prev(conversations_.end());
  } else if (bytes_ + added > kMaxBytes) {  // too big to keep growing: stop keeping it
    bytes_ -= it->end;
    conversations_.erase(it);
    return out;
  }
  it->count = messages.size();
  it->last_hash = MessageHash(messages.back());
  bytes_ += out.size() - it->end;  // bytes_ sums the entries' `end`
  it->end = out.size();
  return out;
}

void ChatBodyCache::ReturnBody(uint64_t conversation_id, std::string body) {
  if (conversation_id == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find_if(conversations_.begin(), conversations_.end(),
                         [&](const Conversation& c) { return c.id == conversation_id; });
  if (it == conversations_.end() || !it->lent) return;
  if (body.size() < it->end) {  // not the body lent: forget the conversation
    bytes_ -= it->end;
    conversations_.erase(it);
    return;
  }
  body.resize(it->end);
  it->text = std::move(body);
  it->lent = false;
}

void ChatBodyCache::AppendMessage(const Message& message, std::string& out) {
  const size_t hash = MessageHash(message);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto [first, last] = messages_.equal_range(hash);
    for (auto it = first; it != last; ++it) {
      if (SameWire(it->second.message, message)) {
        out += it->second.text;
        return;
      }
    }
  }
  std::string text = DumpJson(MessageToWire(message));
  out += text;
  const size_t bytes = MessageBytes(message) + text.size();
  std::lock_guard<std::mutex> lock(mu_);
  Trim(bytes);
  if (bytes > kMaxBytes) return;
  messages_.emplace(hash, Entry{message, std::move(text)});
  bytes_ += bytes;
}

void ChatBodyCache::AppendTools(const ToolSpecList& tools, std::string& out) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [list, text] : tools_) {
      if (list.SameAs(tools)) {
        out += text;
        return;
      }
    }
  }
  std::string text = DumpJson(ToolsToWire(tools));
  out += text;
  std::lock_guard<std::mutex> lock(mu_);
  if (tools_.size() == kToolSlots) tools_.pop_front();
  tools_.emplace_back(tools, std::move(text));
}

// The keys in the order DumpJson writes a Json object's (sorted), so that the
// text is BuildChatCompletionsBody's byte for byte.
std::string ChatCompletionsBodyText(const ModelRequest& request, const std::string& model, ChatBodyCache& cache) {
  // Keys in DumpJson's (sorted) order; everything before the first message is the head.
  std::string head = "{";
  if (request.max_tokens) head += "\"max_tokens\":" + DumpJson(Json(*request.max_tokens)) + ",";
  head += "\"messages\":[";
  std::string out = cache.BodyThroughMessages(request, head);
  auto key = [&](const char* name) {
    out += ',';
    out += '"';
    out += name;
    out += "\":";
  };
  out += ']';
  if (!model.empty()) {
    key("model");
    out += DumpJson(Json(model));
  }
  if (!request.response_format.is_null()) {  // part of the tail, like tool_choice: never cached
    key("response_format");
    out += DumpJson(request.response_format);
  }
  if (request.stream) {
    key("stream");
    out += "true";
    key("stream_options");
    out += R"({"include_usage":true})";
  }
  if (request.temperature) {
    key("temperature");
    out += DumpJson(Json(*request.temperature));
  }
  if (!request.tool_choice.empty()) {
    key("tool_choice");
    out += DumpJson(Json(request.tool_choice));
  }
  if (!request.tools.empty()) {
    key("tools");
    cache.AppendTools(request.tools, out);
  }
  out += '}';
  cache.set_last_body_size(out.size());
  return out;
}

Result<ModelResponse> ParseChatCompletion(const Json& body) {
  try {
    return ParseResponseBody(body);
  } catch (const std::exception& e) {  // defensive: nlohmann accessors on odd shapes
    return Status::ParseError(std::string("chat completion: ") + e.what());
  }
}

}  // namespace medreact
