#include "engine/loop_detector.h"

#include <cstdint>
#include <string_view>

#include "medreact/json.h"

namespace medreact {
namespace {

// 64-bit FNV-1a as 16 hex digits. The detector's memory is part of every
// checkpoint (RunState::loop_counts), four or more a step: keyed by the
// whole arguments or reply text it grew by kilobytes a step; a digest keeps
// each key small. (A collision would only count two different calls as one:
// at 64 bits, not in any run's lifetime.)
std::string Digest(std::string_view text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<size_t>(i)] = kHex[h & 0xf];
  return out;
}

std::string CallFingerprint(const ToolCall& call) {
  auto parsed = ParseJson(call.arguments);
  return "call:" + call.name + ":" + Digest(parsed.ok() ? CanonicalJson(*parsed) : call.arguments);
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
    prints.emplace_back("text:" + Digest(assistant.content), "the same reply");
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
