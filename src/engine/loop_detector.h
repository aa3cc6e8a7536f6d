// LoopDetector: notices an agent repeating itself (seed 004's is_stuck).
//
// Each assistant turn is reduced to fingerprints: one per tool call (name +
// canonical arguments, so {"a":1,"b":2} and {"b":2, "a":1} are the same call)
// or, for a turn without calls, its text. When a fingerprint has been seen
// `threshold` times the detector asks for a nudge (once per fingerprint); seen
// again after that nudge, it declares the run stuck. Not thread-safe.
#ifndef MEDREACT_ENGINE_LOOP_DETECTOR_H_
#define MEDREACT_ENGINE_LOOP_DETECTOR_H_

#include <map>
#include <set>
#include <string>

#include "medreact/message.h"

namespace medreact {

class LoopDetector {
 public:
  enum class Verdict { kOk, kNudge, kStuck };

  explicit LoopDetector(int threshold) : threshold_(threshold < 2 ? 2 : threshold) {}

  // Records one assistant turn. `what` receives a short description of the
  // repeated action for the nudge message (no argument values: they may hold
  // patient data).
  Verdict Observe(const Message& assistant, std::string* what);

  // Its memory, for a RunState, and back.
  const std::map<std::string, int>& counts() const { return counts_; }
  const std::set<std::string>& nudged() const { return nudged_; }
  void Restore(std::map<std::string, int> counts, std::set<std::string> nudged) {
    counts_ = std::move(counts);
    nudged_ = std::move(nudged);
  }

 private:
  int threshold_;
  std::map<std::string, int> counts_;
  std::set<std::string> nudged_;
};

// The user message that tells the model it is repeating itself.
std::string LoopNudgeMessage(const std::string& what, int times);

}  // namespace medreact

#endif  // MEDREACT_ENGINE_LOOP_DETECTOR_H_
