// The safety floor on a model's triage decision: see safety_floor.h.
//
// The floor's findings are the tier-1 findings of the keyword base priority
// (triage_policy.cc) that are acute events: PE and intracranial blood
// (acute or undated), LVO, an infarct stated acute. Known, chronic,
// historical, negated, hypothetical and non-diagnostic mentions set no floor.
// Evidence is read with the same reader from the run's tool results: an
// affirmed mention of the same concept in what a tool returned (a Condition,
// an earlier study's conclusion) shows the finding was on record before.
#include "apps/triage/safety_floor.h"

#include <algorithm>
#include <cctype>

#include "apps/triage/findings_lexicon.h"
#include "apps/triage/findings_reader.h"
#include "apps/triage/triage_policy.h"
#include "core/text_util.h"
#include "medreact/json.h"

namespace medreact {
namespace {

struct FloorConcept {
  const FindingConcept& (*finding)();
  bool undated_is_acute;  // an undated mention is an acute event (PE, blood); an undated infarct is not
  std::vector<std::string_view> words;  // how a critical finding may name it besides its labels
};

const std::vector<FloorConcept>& FloorConcepts() {
  static const std::vector<FloorConcept> concepts = {
      {PulmonaryEmbolism, true, {"pulmonary", "embolism", "emboli", "embolus", "thrombus", "clot", "thromboembolism"}},
      {LargeVesselOcclusion, true, {"occlusion", "vessel", "lvo", "stroke", "ischemic", "ischaemic"}},
      {IschemicStroke, false, {"stroke", "infarct", "infarction", "ischemic", "ischaemic", "ischemia", "cva"}},
      {SubduralHematoma, true, {"subdural", "hematoma", "haematoma", "hemorrhage", "haemorrhage", "bleed", "bleeding"}},
      {EpiduralHematoma, true, {"epidural", "hematoma", "haematoma", "hemorrhage", "haemorrhage", "bleed", "bleeding"}},
      {SubarachnoidHemorrhage, true, {"subarachnoid", "hemorrhage", "haemorrhage", "bleed", "bleeding"}},
      {IntracranialHemorrhage, true, {"intracranial", "hemorrhage", "haemorrhage", "bleed", "bleeding", "hematoma"}},
  };
  return concepts;
}

// Other findings a critical finding may name when the reader read them.
const std::vector<std::pair<const FindingConcept& (*)(), std::vector<std::string_view>>>& OtherNamedConcepts() {
  static const std::vector<std::pair<const FindingConcept& (*)(), std::vector<std::string_view>>> concepts = {
      {VenousThrombosis, {"thrombosis", "thrombus", "clot", "venous", "vte", "deep", "vein"}},
      {ThrombusUnnamedSite, {"thrombus", "thrombosis", "clot", "embolism"}},
      {TransientIschemicAttack, {"transient", "ischemic", "attack"}},
      {OtherBleeding, {"hemorrhage", "haemorrhage", "bleed", "bleeding", "hematoma", "haematoma"}},
  };
  return concepts;
}

// Words a critical finding uses to say what a finding means, not what it
// is: never flagged. Drug names, lab values and conditions are not here.
bool IsGlueWord(std::string_view w) {
  static const std::vector<std::string_view> glue = {
      "the", "and", "with", "without", "for", "from", "despite", "while", "due", "after", "before", "into", "not",
      "active", "current", "currently", "ongoing", "possible", "probable", "suspected", "likely", "acute", "subacute",
      "chronic", "known", "new", "recent", "old", "anticoagulation", "anticoagulant", "anticoagulants",
      "anticoagulated", "antiplatelet", "antiplatelets", "antithrombotic", "therapy", "therapeutic",
      "subtherapeutic", "supratherapeutic", "treatment", "failure", "failed", "risk", "high", "low", "elevated",
      "raised", "reduced", "decreased", "increased", "level", "levels", "rate", "control", "renal", "function",
      "renally", "cleared", "review", "urgent", "urgently", "reversal", "needs", "need", "requires", "consider",
      "dose", "dosing", "patient", "finding", "findings", "study", "contrast", "bleeding", "hemorrhage",
      "haemorrhage", "under", "over", "range", "target", "within", "above", "below", "normal", "abnormal",
      "critical", "priority", "escalate", "escalation", "tachycardia", "on", "of", "in", "at", "to", "by", "or",
      "no", "is", "as", "mg", "ml", "dl", "min", "mmol", "umol", "ng", "units", "unit", "oral", "tablet",
      "tablets", "daily", "hour", "hours", "extended", "release", "left", "right", "bilateral", "small", "large",
      "mass", "effect", "shift", "midline", "recorded", "documented", "noted", "seen", "reported", "previously",
      "prior", "previous", "earlier", "since", "date", "dated", "history", "record", "records", "months", "month",
      "days", "day", "weeks", "week", "ago", "year", "years", "same", "unchanged", "stable", "resolved",
      "resolving", "improving", "worsening", "present", "absent", "confirmed", "consistent", "compatible",
      "evidence", "sign", "signs", "suggests", "suggesting", "indicates", "indicating", "shows", "showing",
      "requiring", "immediate", "immediately", "emergency", "emergent", "attention", "management", "clinical",
      "correlation", "follow", "imaging", "repeat", "event", "events", "episode", "episodes", "ongoing",
      "persistent", "recurrent", "recurrence", "progression", "extension", "extending", "possible", "unclear",
      "this", "that", "these", "those", "who", "which", "has", "have", "had", "was", "were", "are", "been", "being",
      "but", "also", "given", "because", "per", "than", "more", "less", "very", "vs", "versus"};
  return std::find(glue.begin(), glue.end(), w) != glue.end();
}

void CollectStrings(const Json& value, const std::string& key, std::string& out, int depth) {
  if (depth > 32) return;
  // Echoes of what was asked (a query, its expansion to ingredient names) and
  // the tools' own notes are not what the record holds.
  if (key == "query" || key == "expanded_to" || key == "note" || key == "as_of_source" || key == "hint") return;
  if (value.is_string()) {
    out += value.get<std::string>();
    out += ".\n";
  } else if (value.is_number()) {
    out += DumpJson(value);
    out += "\n";
  } else if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) CollectStrings(it.value(), it.key(), out, depth + 1);
  } else if (value.is_array()) {
    for (const Json& item : value) CollectStrings(item, key, out, depth + 1);
  }
}

// Lower-case words and numbers of `text` ("inr", "5.2", "124").
std::vector<std::string> Tokens(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  auto flush = [&] {
    while (!word.empty() && word.back() == '.') word.pop_back();
    if (!word.empty()) out.push_back(word);
    word.clear();
  };
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || (c == '.' && !word.empty() && std::isdigit(static_cast<unsigned char>(word.back())))) {
      word += static_cast<char>(std::tolower(u));
    } else {
      flush();
    }
  }
  flush();
  return out;
}

bool IsNumber(std::string_view w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
}

// True when `word` is in `haystack` (lower case): whole, or for a long word
// its stem without the last two letters ("emboli" for "embolism").
bool Mentioned(std::string_view haystack, const std::string& word) {
  if (haystack.find(word) != std::string_view::npos) return true;
  return word.size() >= 7 && !IsNumber(word) && haystack.find(word.substr(0, word.size() - 2)) != std::string_view::npos;
}

// The text of one successful tool result: its JSON's strings and numbers,
// one per line, or the content as it is when it is no JSON.
std::string ResultText(const ToolResultRecord& result) {
  Result<Json> parsed = ParseJson(result.content);
  if (!parsed.ok()) return result.content + "\n";
  std::string out;
  CollectStrings(*parsed, "", out, 0);
  return out;
}

}  // namespace

ReaderFloor AcuteCriticalFloor(std::string_view findings) {
  ReaderFloor floor;
  const FindingsReader reader(findings);
  for (const std::string& sentence : reader.LimitedSentences(PulmonaryArteryContext())) {
    if (floor.open_question.empty()) floor.open_question = "\"" + sentence + "\"";
  }
  for (const FloorConcept& c : FloorConcepts()) {
    for (const FindingMention& m : reader.Read(c.finding())) {
      if (m.nondiagnostic && !m.negated && !m.hypothetical && floor.open_question.empty()) {
        floor.open_question = std::string(c.finding().label) + " " + DescribeMention(m) + " (\"" + m.clause + "\")";
      }
      if (!m.affirmed() || floor.priority == kPriorityCritical) continue;
      const bool acute = m.temporality == Temporality::kAcute ||
                         (c.undated_is_acute && (m.temporality == Temporality::kUnspecified ||
                                                 m.temporality == Temporality::kSubacute));
      if (!acute) continue;
      floor.priority = kPriorityCritical;
      floor.finding = m.label;
      floor.text = m.text;
      floor.concept_id = std::string(c.finding().id);
    }
  }
  return floor;
}

std::string ToolResultText(const RunResult& run) {
  std::string out;
  for (const StepRecord& step : run.trace.steps) {
    for (const ToolResultRecord& result : step.tool_results) {
      if (result.ok) out += ResultText(result);
    }
  }
  return out;
}

std::string SupportingEvidence(const RunResult& run, const ReaderFloor& floor) {
  if (floor.concept_id.empty()) return "";
  const FloorConcept* concept_entry = nullptr;
  for (const FloorConcept& c : FloorConcepts()) {
    if (c.finding().id == floor.concept_id) concept_entry = &c;
  }
  if (!concept_entry) return "";
  for (const StepRecord& step : run.trace.steps) {
    for (const ToolResultRecord& result : step.tool_results) {
      if (!result.ok) continue;
      const FindingsReader reader(ResultText(result));
      for (const FindingMention& m : reader.Read(concept_entry->finding())) {
        // The record names the finding (a condition, an earlier study): it was
        // known before this reading. A negated or asked-about mention is not.
        if (m.affirmed()) return result.name + ": \"" + m.clause + "\"";
      }
    }
  }
  return "";
}

std::vector<std::string> UnsupportedCriticalFindings(std::string_view findings, const RunResult& run,
                                                     const std::vector<std::string>& critical_findings) {
  std::string known = AsciiLower(findings) + "\n" + AsciiLower(ToolResultText(run));
  // The labels of what the reader read in the findings: "Pulmonary embolism" for "PE".
  const FindingsReader reader(findings);
  auto add_words = [&](const FindingConcept& c, const std::vector<std::string_view>& words) {
    for (const FindingMention& m : reader.Read(c)) {
      if (!m.affirmed()) continue;
      known += "\n" + AsciiLower(m.label) + " " + AsciiLower(c.label);
      for (std::string_view w : words) known += " " + std::string(w);
    }
  };
  for (const FloorConcept& c : FloorConcepts()) add_words(c.finding(), c.words);
  for (const auto& [finding, words] : OtherNamedConcepts()) add_words(finding(), words);

  // Bounds for a hostile reply: the first kMaxChecked findings, each read to
  // kMaxChars; more is itself worth a person's look.
  constexpr size_t kMaxChecked = 32;
  constexpr size_t kMaxChars = 400;
  std::vector<std::string> out;
  if (critical_findings.size() > kMaxChecked) {
    out.push_back(std::to_string(critical_findings.size()) + " critical findings; only the first " +
                  std::to_string(kMaxChecked) + " were checked against the tool results");
  }
  for (size_t i = 0; i < critical_findings.size() && i < kMaxChecked; ++i) {
    const std::string critical = critical_findings[i].substr(0, kMaxChars);
    std::vector<std::string> missing;
    for (const std::string& word : Tokens(critical)) {
      if (word.size() < 3 && !IsNumber(word)) continue;
      if (IsGlueWord(word) || Mentioned(known, word)) continue;
      if (std::find(missing.begin(), missing.end(), word) == missing.end()) missing.push_back(word);
    }
    if (missing.empty()) continue;
    out.push_back("critical finding \"" + Preview(critical, 120) + "\" names " + Join(missing, ", ") +
                  ", which neither the findings nor any tool result of the run contains");
  }
  return out;
}

SafetyReview ReviewModelDecision(std::string_view findings, int adjusted, std::string_view adjustment,
                                 const RunResult& run, const std::vector<std::string>& critical_findings) {
  SafetyReview review;
  review.priority = adjusted;
  const ReaderFloor floor = AcuteCriticalFloor(findings);
  const bool decrease = AsciiLower(Trim(adjustment)) == "decrease";
  if (decrease && adjusted > floor.priority) {
    review.evidence = SupportingEvidence(run, floor);
    if (review.evidence.empty()) {
      review.priority = floor.priority;
      review.held = true;
      review.reasons.push_back("the model lowered " + floor.finding + " (\"" + floor.text + "\") to " +
                               PriorityName(adjusted) + " with no tool result showing it known or old; held at " +
                               PriorityName(floor.priority) + " (the findings reader's level) for a person to decide");
    }
  }
  for (std::string& reason : UnsupportedCriticalFindings(findings, run, critical_findings)) {
    review.reasons.push_back(std::move(reason));
  }
  if (!floor.open_question.empty()) {
    review.reasons.push_back("non-diagnostic study segment: " + floor.open_question +
                             "; not read as a finding, the clinical question may still be open");
  }
  return review;
}

}  // namespace medreact
