#include "testing/fake_model.h"

#include <set>

namespace medreact::testing {

std::string CheckHistory(const std::vector<Message>& messages) {
  for (size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    if (m.role == Role::kTool) {
      return "tool message at " + std::to_string(i) + " (" + m.tool_call_id + ") without its call";
    }
    if (m.role != Role::kAssistant || m.tool_calls.empty()) continue;
    std::set<std::string> ids;
    for (const auto& c : m.tool_calls) {
      if (c.id.empty()) return "assistant message at " + std::to_string(i) + " has a call without id";
      if (!ids.insert(c.id).second) return "duplicate call id " + c.id;
    }
    size_t j = i + 1;
    for (const auto& c : m.tool_calls) {
      if (j >= messages.size() || messages[j].role != Role::kTool || messages[j].tool_call_id != c.id) {
        return "call " + c.id + " of message " + std::to_string(i) + " is not answered in order";
      }
      ++j;
    }
    i = j - 1;
  }
  return "";
}

void FakeModel::Push(Reply reply) {
  std::lock_guard<std::mutex> lock(mu_);
  replies_.push_back(std::move(reply));
}

void FakeModel::PushText(std::string text, Usage usage) {
  Push([text, usage](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> {
    ModelResponse r;
    r.message = Message::Assistant(text);
    r.usage = usage;
    r.finish_reason = "stop";
    return r;
  });
}

void FakeModel::PushCalls(std::vector<std::pair<std::string, std::string>> calls, std::string text,
                          Usage usage) {
  int turn = ++pushed_calls_;
  Push([calls, text, usage, turn](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> {
    ModelResponse r;
    std::vector<ToolCall> tc;
    for (size_t i = 0; i < calls.size(); ++i) {
      tc.push_back({"c" + std::to_string(turn) + "_" + std::to_string(i), calls[i].first, calls[i].second});
    }
    r.message = Message::Assistant(text, std::move(tc));
    r.usage = usage;
    r.finish_reason = "tool_calls";
    return r;
  });
}

void FakeModel::PushError(Status status) {
  Push([status](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> { return status; });
}

void FakeModel::PushParseError(std::string raw, std::string error) {
  Push([raw, error](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> {
    ModelResponse r;
    r.message = Message::Assistant(raw);
    r.raw_text = raw;
    r.parse_error = error;
    return r;
  });
}

void FakeModel::SetDefault(Reply reply) {
  std::lock_guard<std::mutex> lock(mu_);
  default_ = std::move(reply);
}

Result<ModelResponse> FakeModel::Complete(const ModelRequest& request, const ModelCallContext& ctx) {
  Reply reply;
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(request);
    if (std::string err = CheckHistory(request.messages); !err.empty()) {
      history_errors_.push_back("request " + std::to_string(requests_.size()) + ": " + err);
    }
    if (!replies_.empty()) {
      reply = std::move(replies_.front());
      replies_.pop_front();
    } else {
      reply = default_;
    }
  }
  if (!reply) return Status::Unavailable("FakeModel: script exhausted");
  return reply(request, ctx);
}

std::vector<ModelRequest> FakeModel::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

std::vector<std::string> FakeModel::history_errors() const {
  std::lock_guard<std::mutex> lock(mu_);
  return history_errors_;
}

}  // namespace medreact::testing
