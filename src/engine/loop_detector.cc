#include "engine/loop_detector.h"

#include "medreact/json.h"

namespace medreact {
namespace {

std::string CallFingerprint(const ToolCall& call) {
  auto parsed = ParseJson(call.arguments);
  return "call:" + call.name + ":" + (parsed.ok() ? CanonicalJson(*parsed) : call.arguments);
}

}  // namespace

LoopDetector::Verdict LoopDetector::Observe(const Message& assistant, std::string* what) {
  std::vector<std::pair<std::string, std::string>> prints;  // fingerprint, description
  if (assistant.has_tool_calls()) {
    for (const auto& call : assistant.tool_calls) {
      prints.emplace_back(CallFingerprint(call),
                          "the tool call '" + call.name + "' with the same arguments");
    }
  } else {
    prints.emplace_back("text:" + assistant.content, "the same reply");
  }
  Verdict verdict = Verdict::kOk;
  for (const auto& [print, description] : prints) {
    int n = ++counts_[print];
    if (n < threshold_) continue;
    if (nudged_.count(print) == 0) {
      nudged_.insert(print);
      if (verdict == Verdict::kOk) {
        verdict = Verdict::kNudge;
        if (what) *what = description;
      }
    } else {
      verdict = Verdict::kStuck;
      if (what) *what = description;
      break;
    }
  }
  return verdict;
}

std::string LoopNudgeMessage(const std::string& what, int times) {
  return "You have repeated " + what + " " + std::to_string(times) +
         " times; repeating it will not give new information. Use what you already know: "
         "try a different tool or different arguments, or give your final answer now.";
}

}  // namespace medreact
