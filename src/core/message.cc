#include "medreact/message.h"

#include <random>

namespace medreact {

const char* RoleName(Role role) {
  switch (role) {
    case Role::kSystem: return "system";
    case Role::kUser: return "user";
    case Role::kAssistant: return "assistant";
    case Role::kTool: return "tool";
  }
  return "user";
}

Message Message::System(std::string text) {
  Message m;
  m.role = Role::kSystem;
  m.content = std::move(text);
  return m;
}

Message Message::User(std::string text) {
  Message m;
  m.role = Role::kUser;
  m.content = std::move(text);
  return m;
}

Message Message::Assistant(std::string text, std::vector<ToolCall> calls) {
  Message m;
  m.role = Role::kAssistant;
  m.content = std::move(text);
  m.tool_calls = std::move(calls);
  return m;
}

Message Message::Tool(std::string tool_call_id, std::string tool_name, std::string content) {
  Message m;
  m.role = Role::kTool;
  m.tool_call_id = std::move(tool_call_id);
  m.name = std::move(tool_name);
  m.content = std::move(content);
  return m;
}

namespace {
// Counts come from servers; a sum that would overflow stays at the maximum.
int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return b > 0 ? INT64_MAX : INT64_MIN;
  return sum;
}
}  // namespace

Usage& Usage::operator+=(const Usage& other) {
  prompt_tokens = SaturatingAdd(prompt_tokens, other.prompt_tokens);
  completion_tokens = SaturatingAdd(completion_tokens, other.completion_tokens);
  total_tokens = SaturatingAdd(total_tokens, other.total_tokens);
  return *this;
}

Json ToJson(const ToolCall& call) {
  return Json{{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}};
}

Json ToJson(const Usage& usage) {
  return Json{{"prompt_tokens", usage.prompt_tokens},
              {"completion_tokens", usage.completion_tokens},
              {"total_tokens", usage.total_tokens}};
}

Json ToJson(const Message& message) {
  Json j{{"role", RoleName(message.role)}, {"content", message.content}};
  if (!message.images.empty()) j["images"] = message.images.size();
  if (!message.tool_calls.empty()) {
    Json calls = Json::array();
    for (const auto& c : message.tool_calls) calls.push_back(ToJson(c));
    j["tool_calls"] = std::move(calls);
  }
  if (message.role == Role::kTool) {
    j["tool_call_id"] = message.tool_call_id;
    j["name"] = message.name;
  }
  return j;
}

std::string MintToolCallId() {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_int_distribution<size_t> pick(0, sizeof(kAlphabet) - 2);
  std::string id = "call_";
  for (int i = 0; i < 24; ++i) id += kAlphabet[pick(rng)];
  return id;
}

}  // namespace medreact
