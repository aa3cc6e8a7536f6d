// Triage policy: keyword base priority, risk adjustment and the result JSON.
//
// The priority tiers mirror the ACR Actionable Reporting Work Group's three
// categories of actionable imaging findings (Larson et al., J Am Coll Radiol
// 2014): category 1 needs communication and action within minutes (here
// CRITICAL), category 2 within hours (HIGH RISK), category 3 within days
// (ROUTINE). The tables below place common findings into those tiers; they
// are deliberately explicit so a reviewer can audit every entry. Findings are
// read by the findings reader (findings_reader.h: negation, uncertainty,
// acute/chronic/historical) over the shared lexicon (findings_lexicon.cc: the
// synonyms and abbreviations of PE, DVT, stroke, ICH and its subtypes, with
// their sources).
#include "apps/triage/triage_policy.h"

#include <algorithm>
#include <cctype>

#include "apps/triage/findings_lexicon.h"
#include "apps/triage/findings_reader.h"
#include "apps/triage/safety_floor.h"
#include "core/text_util.h"

namespace medreact {
namespace {

// True when `word` is a whole word of `lower` ("segmental" is not in "subsegmental").
bool HasWord(std::string_view lower, std::string_view word) {
  for (size_t pos = lower.find(word); pos != std::string_view::npos; pos = lower.find(word, pos + 1)) {
    const bool starts = pos == 0 || !std::isalnum(static_cast<unsigned char>(lower[pos - 1]));
    const size_t end = pos + word.size();
    const bool ends = end >= lower.size() || !std::isalpha(static_cast<unsigned char>(lower[end]));
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

// A finding's tiers by how the text dates it (findings_reader.h). `acute` when
// stated acute or new; `unspecified` when no age is given or subacute;
// `chronic` for an old finding. A known, unchanged finding takes the
// unspecified tier but never CRITICAL (see KnownTier); a historical mention
// ("history of PE") gives no tier at all: it is not a finding of this study.
struct ConceptTier {
  const FindingConcept& (*finding)();
  int acute;
  int unspecified;
  int chronic;
  const char* rationale;              // for the acute tier (and the unspecified one when the same)
  const char* chronic_rationale;      // for the chronic tier
  const char* unspecified_rationale = nullptr;  // when the unspecified tier differs
};

// Ordered by tier so that, between equal tiers, the more specific finding
// names the rationale. Sources of the terms: findings_lexicon.cc.
const ConceptTier kConceptTiers[] = {
    {PulmonaryEmbolism, 1, 1, 3,
     "pulmonary embolism: untreated PE carries high early mortality (ESC 2019 acute PE guideline)",
     "chronic thromboembolic disease is not a new clot and needs no action within hours; it is referred for CTEPH "
     "work-up at a pulmonary hypertension centre (ESC/ERS 2022 PH guideline), ACR category 3 (days)"},
    {LargeVesselOcclusion, 1, 1, 3,
     "large vessel occlusion: thrombectomy candidate, minutes matter (AHA/ASA 2019 acute stroke guideline)",
     "chronic arterial occlusion: no reperfusion window; secondary prevention at routine pace (AHA/ASA 2021)"},
    {SubduralHematoma, 1, 1, 2, "subdural hematoma: mass effect and herniation risk (AHA/ASA 2022 ICH guideline)",
     "chronic subdural hematoma: a present collection that can expand or rebleed, neurosurgical review within "
     "hours rather than minutes (Kolias, Nat Rev Neurol 2014;10:570)"},
    {EpiduralHematoma, 1, 1, 2, "epidural hematoma: rapid deterioration, neurosurgical emergency (BTF 2006)",
     "chronic epidural hematoma: a present collection, neurosurgical review within hours (BTF 2006)"},
    {SubarachnoidHemorrhage, 1, 1, 3,
     "subarachnoid hemorrhage: aneurysmal rebleeding risk (AHA/ASA 2023 aSAH guideline)",
     "old subarachnoid blood products (siderosis): a sequela, no action within hours"},
    {IntracranialHemorrhage, 1, 1, 3,
     "intracranial hemorrhage: expansion and herniation risk (AHA/ASA 2022 ICH guideline)",
     "old hemorrhage (hemosiderin, encephalomalacia): a sequela, no action within hours"},
    {IschemicStroke, 1, 2, 3,
     "acute ischemic stroke: time-dependent reperfusion window (AHA/ASA 2019 acute stroke guideline)",
     "old infarct: a scar, no reperfusion question; secondary prevention at routine pace (AHA/ASA 2021)",
     "infarct not stated acute (or subacute): past the reperfusion window, needs secondary prevention review "
     "within hours (AHA/ASA 2021)"},
    {VenousThrombosis, 2, 2, 3, "venous thrombosis: needs anticoagulation, risk of PE (CHEST 2016/2021 VTE guideline)",
     "chronic (post-thrombotic) venous change: not a new clot, no anticoagulation decision within hours (CHEST "
     "2016)"},
    {ThrombusUnnamedSite, 2, 2, 3, "thrombus: embolic risk, needs anticoagulation review",
     "chronic thrombus: not a new clot, no anticoagulation decision within hours"},
    {OtherBleeding, 2, 2, 3, "hemorrhage: may need reversal or intervention (ACC 2020 bleeding pathway)",
     "old hemorrhage or hematoma: no reversal question within hours"},
};

// One keyword rule: a term, its tier and why it sits there. Read with the
// same reader: negated, hypothetical and historical mentions do not count; a
// chronic one ("old fracture", "chronic dissection") is ROUTINE; a known one
// is never CRITICAL.
struct KeywordRule {
  const char* term;
  int priority;
  const char* rationale;
};

// Ordered: between equal tiers the first listed names the rationale, so
// specific phrases come before the general stems that contain them
// ("tension pneumothorax" before "pneumothorax").
const KeywordRule kKeywordRules[] = {
    // CRITICAL: immediately life-threatening, treatment within minutes to hours.
    {"aortic dissection", 1, "aortic dissection: mortality rises hourly without surgery (ESC 2014 aortic guideline)"},
    {"dissecting aneurysm", 1, "dissecting aneurysm: aortic dissection equivalent"},
    {"ruptured aneurysm", 1, "ruptured aneurysm: exsanguination risk"},
    {"aortic rupture", 1, "aortic rupture: exsanguination risk"},
    {"tension pneumothorax", 1, "tension pneumothorax: obstructive shock, needs immediate decompression"},
    {"air embol", 1, "air embolism: obstructive shock (Mirski, Anesthesiology 2007;106:164)"},
    {"pneumoperitoneum", 1, "pneumoperitoneum: hollow viscus perforation until proven otherwise"},
    {"free air", 1, "free air: hollow viscus perforation until proven otherwise"},
    {"free intraperitoneal air", 1, "free intraperitoneal air: hollow viscus perforation"},
    {"perforat", 1, "perforation: peritonitis and sepsis risk, surgical emergency"},
    // Tamponade physiology: an emergency needing drainage (ESC 2015 pericardial
    // guideline, Adler Y et al., Eur Heart J 2015;36:2921-2964). A chamber's
    // diastolic collapse is its echo and CT sign.
    {"tamponade", 1, "cardiac tamponade: obstructive shock, needs urgent pericardiocentesis (ESC 2015 pericardial "
                     "guideline)"},
    {"diastolic collapse", 1, "diastolic chamber collapse: tamponade physiology (ESC 2015 pericardial guideline)"},
    {"right ventricular collapse", 1, "right ventricular collapse: tamponade physiology (ESC 2015)"},
    {"right atrial collapse", 1, "right atrial collapse: tamponade physiology (ESC 2015)"},
    // HIGH RISK: urgent, action within hours.
    {"septic embol", 2, "septic emboli: endocarditis work-up and antibiotics within hours"},
    {"fat embol", 2, "fat embolism: respiratory failure risk after long-bone fracture"},
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
    {"aneurysm", 2, "aneurysm: rupture risk depends on size, needs vascular review"},
    {"abscess", 2, "abscess: needs drainage and antibiotics"},
    {"appendicitis", 2, "appendicitis: surgical review within hours"},
    {"obstruction", 2, "obstruction: risk of ischaemia or perforation"},
};

// A finding whose tier depends on the size the text states (issue 24): a
// "trace" effusion is no finding to act on within hours. 0 = no tier
// (ROUTINE). Size words: findings_cues.cc (SizeWords), with their sources.
struct SizedRule {
  const char* term;
  int trace;      // trace, trivial, minimal, tiny
  int small;      // small, mild
  int unstated;   // no size word
  int moderate;
  int large;      // large, massive, huge, sizable
  const char* rationale;
};

const SizedRule kSizedRules[] = {
    // ESC 2015 pericardial guideline (Adler, Eur Heart J 2015;36:2921): a
    // trivial effusion (a trace, physiological fluid) is no finding to act
    // on; any measurable one (small < 10 mm included: this project's worklist
    // examples 03 and 13 keep a small effusion beside cardiomegaly at HIGH
    // RISK) needs echocardiography and a cause within hours (tamponade risk;
    // tamponade itself is CRITICAL by keyword).
    {"pericardial effusion", 0, 2, 2, 2, 2,
     "pericardial effusion: tamponade risk, needs echocardiography within hours (ESC 2015 pericardial "
     "guideline)"},
    // BTS 2023 pleural guideline (Roberts, Thorax 2023;78:s1): a large or
    // massive effusion (breathlessness, mediastinal shift) needs drainage
    // within hours; a trace to moderate one is worked up at routine pace.
    {"pleural effusion", 0, 0, 0, 0, 2,
     "large pleural effusion: may need therapeutic drainage within hours (BTS 2023 pleural guideline)"},
    {"hydrothorax", 0, 0, 0, 0, 2, "large hydrothorax: may need drainage within hours (BTS 2023 pleural guideline)"},
};

// True when a limitation's words name the subsegmental level and no level
// above it ("subsegmental branches suboptimally opacified"), so the central
// to segmental arteries were assessed.
bool SubsegmentalOnly(std::string_view where) {
  const std::string lower = AsciiLower(where);
  if (!HasWord(lower, "subsegmental")) return false;
  for (const char* level : {"main", "central", "lobar", "lobe", "segmental", "interlobar", "hilar", "trunk",
                            "whole", "entire", "study", "exam", "examination"}) {
    if (HasWord(lower, level)) return false;
  }
  return true;
}

// A known finding (reported before, unchanged) was communicated when it was
// new: it keeps its tier but is never CRITICAL, because ACR category 1 is for
// new or unexpected findings needing action within minutes (Larson PA et al.,
// J Am Coll Radiol 2014).
int KnownTier(int unspecified) { return std::max(unspecified, kPriorityHighRisk); }

// The tier one mention earns, or 0 when it earns none. `rationale` receives
// the reason, qualified by what the reader saw.
int MentionTier(const FindingMention& m, int acute, int unspecified, int chronic, const char* rationale,
                const char* chronic_rationale, std::string* why) {
  if (!m.affirmed() || m.temporality == Temporality::kHistorical) return 0;
  int tier = unspecified;
  std::string reason = rationale;
  switch (m.temporality) {
    case Temporality::kAcute:
      tier = acute;
      break;
    case Temporality::kKnown:
      tier = KnownTier(unspecified);
      if (tier != unspecified) {
        reason = std::string("known finding, reported before (\"") + m.temporal_cue +
                 "\"): already communicated when new, so HIGH RISK rather than CRITICAL (ACR category 1 is for "
                 "new findings); " + rationale;
      }
      break;
    case Temporality::kChronic:
      tier = chronic;
      reason = std::string("read as ") + DescribeMention(m) + ": " + chronic_rationale;
      break;
    default:
      break;
  }
  if (m.uncertain && m.temporality != Temporality::kChronic) {
    reason += "; described as possible (\"" + m.uncertainty_cue +
              "\"): a hedged finding is acted on as if present until excluded";
  }
  *why = std::move(reason);
  return tier;
}

std::string Upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
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
  return HasAffirmedMention(text, term);
}

std::string FirstAffirmed(std::string_view text, const std::vector<std::string>& terms) {
  const FindingsReader reader(text);
  for (const std::string& term : terms) {
    for (const FindingMention& m : reader.Read(term)) {
      if (m.affirmed()) return term;
    }
  }
  return "";
}

int BasePriorityFromFindings(std::string_view findings, std::string* why) {
  const FindingsReader reader(findings);
  int best = kPriorityRoutine;
  std::string best_why;
  // The most urgent tier any mention earns; between equals, the first found.
  auto consider = [&](int tier, const std::string& term, const std::string& reason) {
    if (tier == 0 || tier >= best) return;
    best = tier;
    best_why = PriorityName(tier) + " by keyword \"" + term + "\": " + reason;
  };
  // Non-diagnostic segments (issue 24): not a finding, never the finding's
  // tier and never a clot for the rules. Where the limitation reaches the
  // segmental arteries or above (or names no level), the PE question stays
  // open: further imaging within hours, HIGH RISK (ACR Appropriateness
  // Criteria, Suspected PE, 2022; PIOPED II: Stein, N Engl J Med
  // 2006;354:2317). Limited at the subsegmental level only: an isolated
  // subsegmental question, ROUTINE (ACCP/CHEST 2016, Kearon, Chest
  // 2016;149:315, on isolated subsegmental PE), said in the rationale.
  std::string open_question;
  auto limitation = [&](const std::string& what, std::string_view where, const std::string& term) {
    if (SubsegmentalOnly(where)) {
      if (open_question.empty()) {
        open_question = "ROUTINE: " + what + ", at the subsegmental level only: an isolated subsegmental question "
                        "is not a finding (ACCP/CHEST 2016 on isolated subsegmental PE); worth a person's review";
      }
      return;
    }
    consider(kPriorityHighRisk, term,
             what + ": not a finding, but the study leaves the question open; further imaging within hours (ACR "
                    "Appropriateness Criteria, Suspected PE, 2022; PIOPED II)");
  };
  for (const std::string& sentence : reader.LimitedSentences(PulmonaryArteryContext())) {
    limitation("non-diagnostic segment of the pulmonary arteries (\"" + sentence + "\")", sentence,
               "non-diagnostic");
  }
  for (const ConceptTier& rule : kConceptTiers) {
    for (const FindingMention& m : reader.Read(rule.finding())) {
      std::string reason;
      if (m.nondiagnostic && !m.negated && !m.hypothetical) {
        if (rule.acute == kPriorityCritical) {
          limitation(std::string(rule.finding().label) + " " + DescribeMention(m), m.clause, m.term);
        }
        continue;
      }
      const bool acute = m.temporality == Temporality::kAcute;
      const char* rationale = acute || !rule.unspecified_rationale ? rule.rationale : rule.unspecified_rationale;
      int tier = MentionTier(m, rule.acute, rule.unspecified, rule.chronic, rationale, rule.chronic_rationale, &reason);
      // A large or massive bleed outside the head is a threat to life
      // (haemorrhagic shock): massive haemothorax (ATLS 10th ed., 2018),
      // life-threatening bleeding (ACC 2020, Tomaselli, J Am Coll Cardiol
      // 2020;76:594). Size never lowers a bleed's tier: a trace of SAH stays CRITICAL.
      if (&rule.finding() == &OtherBleeding() && tier == kPriorityHighRisk && m.amount == Amount::kLarge &&
          m.temporality != Temporality::kKnown) {
        tier = kPriorityCritical;
        reason = "\"" + m.amount_cue + "\" " + m.label + ": a large bleed is a threat to life (haemorrhagic shock; "
                 "ATLS 10th ed., ACC 2020 bleeding pathway); " + reason;
      }
      consider(tier, m.term, reason);
    }
  }
  for (const SizedRule& rule : kSizedRules) {
    for (const FindingMention& m : reader.Read(rule.term)) {
      const int sized = m.amount == Amount::kTrace      ? rule.trace
                        : m.amount == Amount::kSmall    ? rule.small
                        : m.amount == Amount::kModerate ? rule.moderate
                        : m.amount == Amount::kLarge    ? rule.large
                                                        : rule.unstated;
      if (sized == 0) continue;
      std::string reason;
      const int tier = MentionTier(m, sized, sized, kPriorityRoutine, rule.rationale,
                                   "an old finding needs no action within hours", &reason);
      if (!m.amount_cue.empty()) reason = "size \"" + m.amount_cue + "\": " + reason;
      consider(tier, rule.term, reason);
    }
  }
  for (const KeywordRule& rule : kKeywordRules) {
    for (const FindingMention& m : reader.Read(rule.term)) {
      std::string reason;
      const int tier = MentionTier(m, rule.priority, rule.priority, kPriorityRoutine, rule.rationale,
                                   "an old finding needs no action within hours", &reason);
      consider(tier, rule.term, reason);
    }
  }
  if (why) {
    if (best_why.empty() && !open_question.empty()) best_why = open_question;
    *why = best_why.empty() ? "ROUTINE: no critical or high-risk finding read in the findings (negated, historical "
                              "and chronic mentions do not raise the priority)"
                            : best_why;
  }
  return best;
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
  // Why a person must look at this result (safety_floor.h); empty = none.
  std::vector<std::string> review_reasons;
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
    // The safety floor: a model's decrease below an acute critical finding
    // stands only on the run's own tool results; invented critical findings
    // are flagged (issue 24).
    std::vector<std::string> critical;
    for (const auto& item : reasoning["critical_findings"]) critical.push_back(item.get<std::string>());
    SafetyReview review = ReviewModelDecision(findings, priority, adjustment, *run, critical);
    const int adjusted = priority;
    priority = review.priority;
    review_reasons = std::move(review.reasons);
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
    if (review.held) {
      rationale += " Risk adjustment " + adjustment + " would give " + std::to_string(adjusted) + " (" +
                   PriorityName(adjusted) + "), below the findings' acute critical finding with no tool result "
                   "supporting it: held at " + std::to_string(priority) + " (" + PriorityName(priority) +
                   ") for a person to review.";
    } else {
      rationale += " Risk adjustment " + adjustment + ": final priority " + std::to_string(priority) + " (" +
                   PriorityName(priority) + ").";
      if (!review.evidence.empty()) rationale += " The decrease stands on the record: " + review.evidence + ".";
    }
  } else {
    rationale += " Agent skipped (static baseline).";
    if (const ReaderFloor floor = AcuteCriticalFloor(findings); !floor.open_question.empty()) {
      review_reasons.push_back("non-diagnostic study segment: " + floor.open_question +
                               "; not read as a finding, the clinical question may still be open");
    }
  }
  Json reasons = Json::array();
  for (const std::string& r : review_reasons) reasons.push_back(r);
  return OrderedJson{{"patient_id", std::string(patient_id)},
          {"priority_level", priority},
          {"base_priority", base},
          {"rationale", rationale},
          {"visual_findings", std::string(findings)},
          {"findings_summary", Summarize(findings)},
          {"agent_reasoning", reasoning},
          {"needs_review", !review_reasons.empty()},
          {"review_reasons", reasons}};
}

}  // namespace medreact
