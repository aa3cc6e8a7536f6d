// FakeModel: an in-process ChatModel for engine tests. Replays a queue of
// replies (responses or failures), records every request, and checks on every
// request that the history is one a strict server would accept: each
// assistant tool call answered by exactly one tool message with its id,
// directly after it, and no tool message without its call.
#ifndef MEDREACT_TESTS_TESTING_FAKE_MODEL_H_
#define MEDREACT_TESTS_TESTING_FAKE_MODEL_H_

#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "medreact/model.h"

namespace medreact::testing {

// "" when valid, else what is wrong.
std::string CheckHistory(const std::vector<Message>& messages);

class FakeModel : public ChatModel {
 public:
  using Reply = std::function<Result<ModelResponse>(const ModelRequest&, const ModelCallContext&)>;

  void Push(Reply reply);
  void PushText(std::string text, Usage usage = {});
  // calls: {name, arguments-json-text}; ids "c<step>_<i>" unless `ids` given.
  void PushCalls(std::vector<std::pair<std::string, std::string>> calls, std::string text = "",
                 Usage usage = {});
  void PushError(Status status);
  void PushParseError(std::string raw, std::string error);
  // When the queue is empty: this reply forever (e.g. the same call again). Default: error.
  void SetDefault(Reply reply);

  Result<ModelResponse> Complete(const ModelRequest& request, const ModelCallContext& ctx) override;
  std::string name() const override { return "fake"; }
  std::string protocol() const override { return "scripted"; }

  std::vector<ModelRequest> requests() const;
  std::vector<std::string> history_errors() const;  // one per invalid request

 private:
  mutable std::mutex mu_;
  std::deque<Reply> replies_;
  Reply default_;
  std::vector<ModelRequest> requests_;
  std::vector<std::string> history_errors_;
  int pushed_calls_ = 0;
};

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_FAKE_MODEL_H_
