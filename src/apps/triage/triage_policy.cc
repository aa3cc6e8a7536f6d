// Triage policy: keyword base priority, risk adjustment and the result JSON.
//
// The priority tiers mirror the ACR Actionable Reporting Work Group's three
// categories of actionable imaging findings (Larson et al., J Am Coll Radiol
// 2014): category 1 needs communication and action within minutes (here
// CRITICAL), category 2 within hours (HIGH RISK), category 3 within days
// (ROUTINE). The keyword lists below place common findings into those tiers;
// they are deliberately explicit so a reviewer can audit every entry.
#include "apps/triage/triage_policy.h"

#include <algorithm>
#include <cctype>

namespace medreact {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// True when `word` occurs in `segment` as a whole word (or phrase).
bool HasWord(std::string_view segment, std::string_view word) {
  for (size_t pos = segment.find(word); pos != std::string_view::npos; pos = segment.find(word, pos + 1)) {
    const bool starts = pos == 0 || !IsWordChar(segment[pos - 1]);
    const size_t end = pos + word.size();
    const bool ends = end >= segment.size() || !IsWordChar(segment[end]);
    if (starts && ends) return true;
  }
  return false;
}

// A sentence ends at ; ! ? newline, or a period not followed by a digit ("2.3").
bool IsSentenceEnd(std::string_view text, size_t i) {
  const char c = text[i];
  if (c == ';' || c == '!' || c == '?' || c == '\n') return true;
  if (c != '.') return false;
  return i + 1 >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i + 1]));
}

constexpr std::string_view kClauseBreaks[] = {" but ", " however", " although ", " though ", " whereas "};

// [start, end) of the clause around `pos` in lower-case `text`.
std::pair<size_t, size_t> ClauseAround(std::string_view text, size_t pos) {
  size_t start = pos;
  while (start > 0 && !IsSentenceEnd(text, start - 1)) --start;
  size_t end = pos;
  while (end < text.size() && !IsSentenceEnd(text, end)) ++end;
  for (std::string_view brk : kClauseBreaks) {
    const size_t before = text.substr(start, pos - start).rfind(brk);
    if (before != std::string_view::npos) start = std::max(start, start + before + brk.size());
    const size_t after = text.substr(pos, end - pos).find(brk);
    if (after != std::string_view::npos) end = std::min(end, pos + after);
  }
  return {start, end};
}

bool NegatedAt(std::string_view text, size_t pos, size_t term_size) {
  if (pos >= 4 && (text.substr(pos - 4, 4) == "non-" || text.substr(pos - 4, 4) == "non ")) return true;
  auto [start, end] = ClauseAround(text, pos);
  const std::string_view before = text.substr(start, pos - start);
  for (std::string_view cue : {"no", "not", "without", "negative for", "absence of", "free of", "ruled out",
                               "rule out", "resolved"}) {
    if (HasWord(before, cue)) return true;
  }
  const size_t after_start = std::min(end, pos + term_size);
  const std::string_view after = text.substr(after_start, end - after_start);
  if (HasWord(after, "cannot be excluded") || HasWord(after, "not excluded")) return false;
  for (std::string_view cue : {"ruled out", "excluded", "not seen", "not identified", "not present", "absent",
                               "has resolved"}) {
    if (HasWord(after, cue)) return true;
  }
  return false;
}

// One keyword rule: a term, its tier and why it sits there.
struct KeywordRule {
  const char* term;
  int priority;
  const char* rationale;
};

// Ordered: the first affirmed term wins, so specific phrases come before the
// general stems that contain them ("tension pneumothorax" before "pneumothorax").
const KeywordRule kKeywordRules[] = {
    // CRITICAL: immediately life-threatening, treatment within minutes to hours.
    {"pulmonary embol", 1, "pulmonary embolism: untreated PE carries high early mortality (ESC 2019 acute PE guideline)"},
    {"saddle embol", 1, "saddle embolus: massive PE risk, haemodynamic collapse"},
    {"pe", 1, "pulmonary embolism (PE): untreated PE carries high early mortality (ESC 2019 acute PE guideline)"},
    {"aortic dissection", 1, "aortic dissection: mortality rises hourly without surgery (ESC 2014 aortic guideline)"},
    {"dissecting aneurysm", 1, "dissecting aneurysm: aortic dissection equivalent"},
    {"ruptured aneurysm", 1, "ruptured aneurysm: exsanguination risk"},
    {"aortic rupture", 1, "aortic rupture: exsanguination risk"},
    {"intracranial hemorrhage", 1, "intracranial hemorrhage: expansion and herniation risk (AHA/ASA 2022 ICH guideline)"},
    {"intracranial haemorrhage", 1, "intracranial haemorrhage: expansion and herniation risk (AHA/ASA 2022 ICH guideline)"},
    {"intracerebral hemorrhage", 1, "intracerebral hemorrhage: expansion and herniation risk (AHA/ASA 2022 ICH guideline)"},
    {"intracerebral haemorrhage", 1, "intracerebral haemorrhage: expansion and herniation risk (AHA/ASA 2022 ICH guideline)"},
    {"intraparenchymal hemorrhage", 1, "intraparenchymal hemorrhage: expansion and herniation risk"},
    {"subarachnoid hemorrhage", 1, "subarachnoid hemorrhage: aneurysmal rebleeding risk"},
    {"subarachnoid haemorrhage", 1, "subarachnoid haemorrhage: aneurysmal rebleeding risk"},
    {"subdural hematoma", 1, "subdural hematoma: mass effect and herniation risk"},
    {"subdural haematoma", 1, "subdural haematoma: mass effect and herniation risk"},
    {"epidural hematoma", 1, "epidural hematoma: rapid deterioration, neurosurgical emergency"},
    {"epidural haematoma", 1, "epidural haematoma: rapid deterioration, neurosurgical emergency"},
    {"ich", 1, "intracranial hemorrhage (ICH): expansion and herniation risk"},
    {"tension pneumothorax", 1, "tension pneumothorax: obstructive shock, needs immediate decompression"},
    {"acute ischemic stroke", 1, "acute ischemic stroke: time-dependent reperfusion window (AHA/ASA 2019 acute stroke guideline)"},
    {"acute ischaemic stroke", 1, "acute ischaemic stroke: time-dependent reperfusion window (AHA/ASA 2019 acute stroke guideline)"},
    {"acute stroke", 1, "acute stroke: time-dependent reperfusion window (AHA/ASA 2019 acute stroke guideline)"},
    {"acute infarct", 1, "acute infarct: time-dependent reperfusion window"},
    {"large vessel occlusion", 1, "large vessel occlusion: thrombectomy candidate, minutes matter (AHA/ASA 2019)"},
    {"lvo", 1, "large vessel occlusion (LVO): thrombectomy candidate, minutes matter (AHA/ASA 2019)"},
    {"pneumoperitoneum", 1, "pneumoperitoneum: hollow viscus perforation until proven otherwise"},
    {"free air", 1, "free air: hollow viscus perforation until proven otherwise"},
    {"free intraperitoneal air", 1, "free intraperitoneal air: hollow viscus perforation"},
    {"perforat", 1, "perforation: peritonitis and sepsis risk, surgical emergency"},
    // HIGH RISK: urgent, action within hours.
    {"deep vein thrombosis", 2, "deep vein thrombosis: needs anticoagulation, risk of PE (CHEST 2016/2021 VTE guideline)"},
    {"deep venous thrombosis", 2, "deep venous thrombosis: needs anticoagulation, risk of PE (CHEST 2016/2021 VTE guideline)"},
    {"dvt", 2, "DVT: needs anticoagulation, risk of PE (CHEST 2016/2021 VTE guideline)"},
    {"thrombus", 2, "thrombus: embolic risk, needs anticoagulation review"},
    {"thrombos", 2, "thrombosis: embolic risk, needs anticoagulation review"},
    {"embol", 2, "embolism: ischaemic risk in the territory supplied"},
    {"stroke", 2, "stroke (not stated acute): needs secondary prevention review"},
    {"infarct", 2, "infarct (not stated acute): needs clinical correlation"},
    {"hemorrhage", 2, "hemorrhage: may need reversal or intervention"},
    {"haemorrhage", 2, "haemorrhage: may need reversal or intervention"},
    {"hematoma", 2, "hematoma: may expand, check antithrombotics"},
    {"haematoma", 2, "haematoma: may expand, check antithrombotics"},
    {"bleed", 2, "bleeding: may need reversal or intervention"},
    {"pneumothorax", 2, "pneumothorax (not tension): may enlarge, may need drainage (BTS 2023 pleural guideline)"},
    {"fracture", 2, "fracture: needs orthopaedic review, stabilisation and analgesia"},
    {"pneumonia", 2, "pneumonia: needs antibiotics within hours, sepsis risk"},
    {"consolidation", 2, "consolidation: possible pneumonia, needs clinical correlation"},
    {"malignan", 2, "suspected malignancy: needs expedited work-up (ACR actionable finding category 2-3)"},
    {"neoplasm", 2, "neoplasm: needs expedited work-up"},
    {"carcinoma", 2, "carcinoma: needs expedited work-up"},
    {"metasta", 2, "metastasis: needs expedited oncology work-up"},
    {"tumor", 2, "tumor: needs expedited work-up"},
    {"tumour", 2, "tumour: needs expedited work-up"},
    {"mass", 2, "mass: malignancy must be excluded, expedited work-up"},
    {"pericardial effusion", 2, "pericardial effusion: tamponade risk if large or rapid"},
    {"aneurysm", 2, "aneurysm: rupture risk depends on size, needs vascular review"},
    {"abscess", 2, "abscess: needs drainage and antibiotics"},
    {"appendicitis", 2, "appendicitis: surgical review within hours"},
    {"obstruction", 2, "obstruction: risk of ischaemia or perforation"},
};

std::string Upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string Trim(std::string_view text) {
  size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  return std::string(text.substr(b, e - b));
}

// The first sentence of the findings, at most 240 characters.
std::string Summarize(std::string_view findings) {
  const std::string text = Trim(findings);
  size_t end = 0;
  while (end < text.size() && !IsSentenceEnd(text, end)) ++end;
  std::string first = Trim(std::string_view(text).substr(0, end));
  if (first.size() > 240) first = first.substr(0, 237) + "...";
  return first;
}

Json StringList(const Json& value) {
  Json out = Json::array();
  if (!value.is_array()) return out;
  for (const Json& item : value) {
    if (item.is_string()) out.push_back(item);
  }
  return out;
}

}  // namespace

bool MentionsAffirmed(std::string_view text, std::string_view term) {
  if (term.empty()) return false;
  const std::string lower = Lower(text);
  const std::string needle = Lower(term);
  const bool whole_word = needle.size() <= 3;
  for (size_t pos = lower.find(needle); pos != std::string::npos; pos = lower.find(needle, pos + 1)) {
    if (pos > 0 && IsWordChar(lower[pos - 1])) continue;
    const size_t end = pos + needle.size();
    if (whole_word && end < lower.size() && IsWordChar(lower[end])) continue;
    if (!NegatedAt(lower, pos, needle.size())) return true;
  }
  return false;
}

std::string FirstAffirmed(std::string_view text, const std::vector<std::string>& terms) {
  for (const std::string& term : terms) {
    if (MentionsAffirmed(text, term)) return term;
  }
  return "";
}

int BasePriorityFromFindings(std::string_view findings, std::string* why) {
  for (const KeywordRule& rule : kKeywordRules) {
    if (MentionsAffirmed(findings, rule.term)) {
      if (why) {
        *why = PriorityName(rule.priority) + " by keyword \"" + rule.term + "\": " + rule.rationale;
      }
      return rule.priority;
    }
  }
  if (why) *why = "ROUTINE: no critical or high-risk keyword found in the findings";
  return kPriorityRoutine;
}

int ApplyRiskAdjustment(int base, std::string_view adjustment) {
  const int clamped_base = std::clamp(base, kPriorityCritical, kPriorityRoutine);
  const std::string word = Upper(Trim(adjustment));
  int delta = 0;
  if (word == "INCREASE") delta = -1;  // more urgent: a lower priority number
  if (word == "DECREASE") delta = 1;
  return std::clamp(clamped_base + delta, kPriorityCritical, kPriorityRoutine);
}

std::string PriorityName(int priority) {
  switch (priority) {
    case kPriorityCritical:
      return "CRITICAL";
    case kPriorityHighRisk:
      return "HIGH RISK";
    case kPriorityRoutine:
      return "ROUTINE";
    default:
      return "UNKNOWN";
  }
}

OrderedJson BuildTriageResult(std::string_view patient_id, std::string_view findings, int base_priority,
                       std::string_view base_rationale, const RunResult* run) {
  const int base = std::clamp(base_priority, kPriorityCritical, kPriorityRoutine);
  std::string rationale = "Visual analysis: base priority " + std::to_string(base) + " (" + PriorityName(base) + ")";
  if (!base_rationale.empty()) rationale += ": " + std::string(base_rationale);
  rationale += ".";

  OrderedJson reasoning = {{"iterations", 0},
                    {"tools_used", Json::array()},
                    {"critical_findings", Json::array()},
                    {"risk_adjustment", nullptr},
                    {"final_assessment", nullptr},
                    {"errors", nullptr}};
  int priority = base;
  if (run) {
    std::string adjustment = "NONE";
    std::string assessment = run->answer;
    if (run->final_fields.is_object()) {
      auto it = run->final_fields.find("risk_adjustment");
      if (it != run->final_fields.end() && it->is_string()) {
        const std::string word = Upper(Trim(it->get<std::string>()));
        if (word == "INCREASE" || word == "DECREASE") adjustment = word;
      }
      if (auto found = run->final_fields.find("critical_findings"); found != run->final_fields.end()) {
        reasoning["critical_findings"] = StringList(*found);
      }
      if (auto found = run->final_fields.find("final_assessment");
          found != run->final_fields.end() && found->is_string() && !Trim(found->get<std::string>()).empty()) {
        assessment = Trim(found->get<std::string>());
      }
    }
    priority = ApplyRiskAdjustment(base, adjustment);
    Json tools = Json::array();
    Json errors = Json::array();
    if (!run->error.empty()) errors.push_back(run->error);
    for (const StepRecord& step : run->trace.steps) {
      for (const ToolCall& call : step.assistant.tool_calls) tools.push_back(call.name);
      if (!step.model_error.empty()) errors.push_back("model: " + step.model_error);
      if (!step.parse_error.empty()) errors.push_back("unusable reply: " + step.parse_error);
      for (const ToolResultRecord& result : step.tool_results) {
        if (!result.ok) errors.push_back(result.name + ": " + result.error);
      }
    }
    reasoning["iterations"] = run->steps;
    reasoning["tools_used"] = tools;
    reasoning["risk_adjustment"] = adjustment;
    reasoning["final_assessment"] = assessment;
    reasoning["errors"] = errors.empty() ? Json(nullptr) : errors;
    rationale += " Agent assessment: " + assessment;
    if (!rationale.empty() && rationale.back() != '.') rationale += ".";
    rationale += " Risk adjustment " + adjustment + ": final priority " + std::to_string(priority) + " (" +
                 PriorityName(priority) + ").";
  } else {
    rationale += " Agent skipped (static baseline).";
  }
  return OrderedJson{{"patient_id", std::string(patient_id)},
          {"priority_level", priority},
          {"base_priority", base},
          {"rationale", rationale},
          {"visual_findings", std::string(findings)},
          {"findings_summary", Summarize(findings)},
          {"agent_reasoning", reasoning}};
}

}  // namespace medreact
