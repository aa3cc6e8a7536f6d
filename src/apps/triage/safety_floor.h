// The safety floor on a model's triage decision (issue 24, item 6).
//
//   SafetyReview review = ReviewModelDecision(findings, base, "DECREASE", run);
//   // review.priority: the final priority; review.reasons: why a person must look
//
// A model may raise a priority freely. It may lower one below what the
// findings reader gives for an acute critical finding (acute or undated PE,
// acute bleed inside the head, large vessel occlusion, acute infarct) only
// with supporting evidence from the run's own tool results: the record names
// the same finding already (a recorded condition, an earlier study's
// conclusion), so the finding is known or old. Without it the priority is
// held at the reader's level and the case is flagged for a person
// (`needs_review`). A model's `critical_findings` that name a drug, lab value
// or condition that neither the findings nor any tool result of the run
// contains are flagged too. A non-diagnostic study segment
// (FindingMention::nondiagnostic) is flagged as worth a look.
//
// Why: ACR category 1 findings need communication within minutes (Larson
// PA et al., J Am Coll Radiol 2014;11:552); the decision to defer one must
// rest on facts a person can check, not on a model's word. Pure functions,
// thread-safe.
#ifndef MEDREACT_APPS_TRIAGE_SAFETY_FLOOR_H_
#define MEDREACT_APPS_TRIAGE_SAFETY_FLOOR_H_

#include <string>
#include <string_view>
#include <vector>

#include "apps/triage/triage_policy.h"
#include "medreact/agent.h"

namespace medreact {

// The lowest urgency the findings allow a model to set without evidence.
struct ReaderFloor {
  int priority = kPriorityRoutine;  // kPriorityCritical when an acute critical finding is read
  std::string finding;        // its label ("Pulmonary embolism")
  std::string text;           // the words as written ("filling defects")
  std::string concept_id;     // the lexicon concept ("pulmonary_embolism")
  std::string open_question;  // a non-diagnostic segment's description, or ""
};

// Reads the findings for an acute critical finding (FindingsReader over the
// lexicon): the floor a model's DECREASE may not cross without evidence.
ReaderFloor AcuteCriticalFloor(std::string_view findings);

// What the run's tools returned: the text of every successful tool result
// (string values of their JSON, without echoed queries and notes), one per line.
std::string ToolResultText(const RunResult& run);

// The tool result that supports lowering `floor`'s finding: "tool: quoted
// words" when the record names the same finding, or "" when none does.
std::string SupportingEvidence(const RunResult& run, const ReaderFloor& floor);

// The words of `critical_findings` (drug names, numbers, conditions) that
// neither the findings nor any tool result of the run contains: one entry per
// critical finding that names one ("'INR 5.2': 5.2 not returned by any tool").
std::vector<std::string> UnsupportedCriticalFindings(std::string_view findings, const RunResult& run,
                                                     const std::vector<std::string>& critical_findings);

struct SafetyReview {
  int priority = kPriorityRoutine;   // the final priority after the floor
  bool held = false;                 // the model's decrease was not applied
  std::string evidence;              // the evidence a decrease stood on, or ""
  std::vector<std::string> reasons;  // why a person must review; empty = none
};

// The final priority for `adjusted` (base with the model's adjustment
// applied), with the floor and the critical-findings check.
SafetyReview ReviewModelDecision(std::string_view findings, int adjusted, std::string_view adjustment,
                                 const RunResult& run, const std::vector<std::string>& critical_findings);

}  // namespace medreact

#endif  // MEDREACT_APPS_TRIAGE_SAFETY_FLOOR_H_
