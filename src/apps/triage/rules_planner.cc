// The rules planner: explicit, cited clinical rules in place of a model.
//
// Every turn is recomputed from the conversation alone: Evaluate() walks the
// rules that match the findings, asks for each observation it needs (a tool
// call keyed by name + canonical arguments) and, when every observation is
// in, concludes. The first observation still missing becomes the next call,
// so the planner never repeats a call and its order is fixed by the rule
// order below. Tool results are read as the fhir pack's JSON
// (tools/fhir/fhir_pack.h); an "Error: ..." observation is noted and the
// rule concludes without that fact. The findings are read by FindingsReader
// over the shared lexicon (findings_lexicon.h): negated, hypothetical and
// historical mentions trigger nothing, and the treatment-failure rules fire
// only on an event that is happening now (a chronic or known clot or infarct
// was there before the therapy failed).
#include "apps/triage/rules_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <utility>

#include "apps/common/planner_support.h"
#include "apps/triage/findings_lexicon.h"
#include "apps/triage/findings_reader.h"
#include "apps/triage/triage_prompts.h"
#include "apps/triage/triage_policy.h"
#include "core/text_util.h"

namespace medreact {
namespace {

constexpr int kMaxTurns = 8;          // the final answer comes by this turn
constexpr int kBatchFromTurn = 5;     // from this turn on, all pending calls go together
constexpr const char* kIdPrefix = "rules_";

// Citations, general (guideline and year), shown in final_fields.sources.
constexpr const char* kSourceVte =
    "ACCP/CHEST Antithrombotic Therapy for VTE Disease guideline (2016; 2021 update): VTE despite therapeutic "
    "anticoagulation is treatment failure";
constexpr const char* kSourceInr =
    "ACCP/CHEST evidence-based guidelines on oral anticoagulant therapy (9th ed., 2012): warfarin target INR 2.0-3.0";
constexpr const char* kSourceStroke =
    "AHA/ASA Guideline for the Prevention of Stroke in Patients With Stroke and TIA (2021): ischemic events on "
    "antithrombotic therapy";
constexpr const char* kSourceRate =
    "ESC Guidelines for the management of atrial fibrillation (2020; 2024): beta-blocker rate control, resting "
    "heart rate > 100/min is tachycardia";
constexpr const char* kSourceBleed =
    "AHA/ASA Guideline for the Management of Spontaneous Intracerebral Hemorrhage (2022) and ACC Expert Consensus "
    "Decision Pathway on Bleeding in Patients on Oral Anticoagulants (2020): antithrombotic reversal";
constexpr const char* kSourceContrast =
    "ACR Manual on Contrast Media and ACR-NKF consensus on IV iodinated contrast in kidney disease (2020): check "
    "eGFR before contrast";

constexpr const char* kSourceRenalAnticoag =
    "Renally cleared anticoagulants' labels (dabigatran, edoxaban, rivaroxaban, apixaban, enoxaparin, "
    "fondaparinux: dose by CrCl) with KDIGO 2012 AKI guideline and ACR-NKF 2020 contrast consensus";

using Observation = ToolObservation;

struct Conversation {
  std::string findings;
  std::map<std::string, Observation> known;  // call key → observation
  int turns = 0;                             // planner turns so far
  int calls = 0;                             // planner calls so far (for ids)
};

std::string CallKey(const std::string& name, const std::string& arguments) {
  Result<Json> args = ParseJson(arguments.empty() ? "{}" : arguments);
  return name + "|" + (args.ok() ? CanonicalJson(*args) : arguments);
}

bool IsPlannerCall(const ToolCall& call) { return call.id.rfind(kIdPrefix, 0) == 0; }

Conversation ReadConversation(const std::vector<Message>& messages) {
  Conversation conv;
  std::map<std::string, std::string> key_of_id;
  std::string last_user;
  bool findings_fixed = false;
  for (const Message& m : messages) {
    if (m.role == Role::kUser) {
      if (!findings_fixed) last_user = m.content;
    } else if (m.role == Role::kAssistant && m.has_tool_calls()) {
      bool ours = false;
      for (const ToolCall& call : m.tool_calls) {
        key_of_id[call.id] = CallKey(call.name, call.arguments);
        if (IsPlannerCall(call)) {
          ours = true;
          ++conv.calls;
        }
      }
      if (ours) {
        ++conv.turns;
        findings_fixed = true;  // the task is the user message before our first call
      }
    } else if (m.role == Role::kTool) {
      auto it = key_of_id.find(m.tool_call_id);
      if (it == key_of_id.end()) continue;
      conv.known[it->second] = ReadToolObservation(m.content);
    }
  }
  conv.findings = last_user;
  return conv;
}

std::string FormatNumber(const Json& value) {
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  if (value.is_number()) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%g", value.get<double>());
    return buffer;
  }
  if (value.is_string()) return value.get<std::string>();
  return DumpJson(value);
}

// A medication class check, as read from check_medication_status.
struct MedicationFact {
  bool checked = false;  // a result (ok) is in
  bool active = false;   // is_currently_active
  std::string drug;      // first active order's name
  std::string note;      // stopped orders, or the error
};

MedicationFact ReadMedication(const Observation* obs, const std::string& drug_class) {
  MedicationFact fact;
  if (!obs) return fact;
  if (!obs->ok) {
    fact.note = "check_medication_status(" + drug_class + ") failed: " + obs->error;
    return fact;
  }
  fact.checked = true;
  fact.active = obs->value.value("is_currently_active", false) == true;
  std::vector<std::string> inactive;
  if (auto it = obs->value.find("medications"); it != obs->value.end() && it->is_array()) {
    for (const Json& med : *it) {
      const std::string status = med.value("status", Json()).is_string() ? med["status"].get<std::string>() : "";
      const std::string name = med.value("name", Json()).is_string() ? med["name"].get<std::string>() : "?";
      if (status == "active") {
        if (fact.drug.empty()) fact.drug = name;
      } else {
        inactive.push_back(name + " (" + (status.empty() ? "no status" : status) + ")");
      }
    }
  }
  if (fact.active && fact.drug.empty()) fact.drug = drug_class;
  if (!inactive.empty()) {
    std::string list;
    for (const std::string& item : inactive) list += (list.empty() ? "" : ", ") + item;
    fact.note = "Not current " + drug_class + " therapy: " + list;
  }
  return fact;
}

// The newest lab whose name contains one of `needles` (lower case), from
// values or latest_outside_window.
const Json* FindLab(const Observation* obs, std::initializer_list<const char*> needles) {
  if (!obs || !obs->ok) return nullptr;
  auto matches = [&](const Json& lab) {
    if (!lab.is_object() || !lab.contains("name") || !lab["name"].is_string()) return false;
    const std::string name = AsciiLower(lab["name"].get<std::string>());
    return std::any_of(needles.begin(), needles.end(),
                       [&](const char* n) { return name.find(n) != std::string::npos; });
  };
  if (auto it = obs->value.find("values"); it != obs->value.end() && it->is_array()) {
    for (const Json& lab : *it) {
      if (matches(lab)) return &lab;
    }
  }
  if (auto it = obs->value.find("latest_outside_window"); it != obs->value.end() && matches(*it)) return &*it;
  return nullptr;
}

std::string LabText(const Json& lab) {
  std::string text = lab.value("name", std::string("lab")) + " " + FormatNumber(lab.value("value", Json()));
  // UCUM annotations such as "{INR}" or "{ratio}" are not units a reader needs.
  if (lab.contains("unit") && lab["unit"].is_string() && !lab["unit"].get<std::string>().empty() &&
      lab["unit"].get<std::string>().front() != '{') {
    text += " " + lab["unit"].get<std::string>();
  }
  if (lab.contains("date") && lab["date"].is_string()) text += " on " + lab["date"].get<std::string>();
  if (lab.contains("flag") && lab["flag"].is_string() && lab["flag"] != "unknown") {
    text += " (" + lab["flag"].get<std::string>() + ")";
  }
  return text;
}

// The findings each rule reads (findings_lexicon.h), in the order used to
// name the finding.
const std::vector<const FindingConcept*>& VteFindings() {
  static const std::vector<const FindingConcept*> f = {&PulmonaryEmbolism(), &VenousThrombosis(),
                                                       &ThrombusUnnamedSite()};
  return f;
}
const std::vector<const FindingConcept*>& StrokeFindings() {
  static const std::vector<const FindingConcept*> f = {&IschemicStroke(), &LargeVesselOcclusion(),
                                                       &TransientIschemicAttack()};
  return f;
}
const std::vector<const FindingConcept*>& BleedFindings() {
  static const std::vector<const FindingConcept*> f = {&SubduralHematoma(), &EpiduralHematoma(),
                                                       &SubarachnoidHemorrhage(), &IntracranialHemorrhage(),
                                                       &OtherBleeding()};
  return f;
}
const std::vector<std::pair<std::string, std::string>> kCardiacTerms = {
    {"cardiomegaly", "Cardiomegaly"}, {"pericardial effusion", "Pericardial effusion"},
    {"myocardi", "Myocardial finding"}, {"cardiac", "Cardiac finding"}, {"coronary", "Coronary finding"},
    {"heart failure", "Heart failure"}, {"ventricular", "Ventricular finding"}};
const std::vector<std::string> kTachycardiaTerms = {"tachycard", "rapid ventricular response", "tachyarrhythmia"};
const std::vector<std::string> kIschemiaTerms = {"myocardial ischemi", "myocardial ischaemi", "ischemi",
                                                 "ischaemi", "myocardial infarct"};
// A contrast study named by its kind (issue 24): iodinated-contrast CT and
// catheter studies as reports name them (ACR Manual on Contrast Media, 2024;
// RadLex procedure names). "Non-contrast", "without contrast" are negated by
// the reader; "with and without contrast" is a contrast study.
const std::vector<std::string> kContrastTerms = {
    "contrast",  "cta",        "ctpa",         "ctv",        "cect",       "angiogra",   "angiograph",
    "ct angio",  "venogra",    "venograph",    "arteriogra", "aortogra",   "phlebogra",  "urogra",
    "enhanced ct", "post-contrast", "postcontrast", "contrast-enhanced", "iodinated", "omnipaque", "iohexol",
    "iopamidol", "iodixanol"};
// Anticoagulants cleared by the kidney, with the share and the label's renal
// limit: dabigatran ~80 % (Pradaxa label: avoid CrCl < 30 in AF on P-gp
// inhibitors; contraindicated < 30 in the EU SmPC), edoxaban ~50 % (Savaysa
// label: reduce at CrCl 15-50), rivaroxaban ~33 % (Xarelto label: avoid CrCl
// < 15), apixaban ~27 % (Eliquis label: dose by creatinine >= 1.5 mg/dL with
// age or weight), enoxaparin and dalteparin (Lovenox, Fragmin labels: adjust
// at CrCl < 30), fondaparinux (Arixtra label: contraindicated CrCl < 30).
const std::vector<std::string> kRenallyClearedAnticoagulants = {
    "dabigatran", "pradaxa", "edoxaban", "savaysa", "lixiana", "rivaroxaban", "xarelto", "apixaban", "eliquis",
    "enoxaparin", "lovenox", "dalteparin", "fragmin", "tinzaparin", "fondaparinux", "arixtra"};

// Treatment failure needs an event on the therapy: a finding that is
// happening now (acute, subacute or not dated). A chronic, known or
// historical clot or infarct was there before, so it is not a new event
// despite the therapy (ACCP/CHEST: failure is new or extending VTE on
// therapeutic anticoagulation; AHA/ASA 2021: a recurrent ischemic event).
bool IsNewEvent(const FindingMention& m) { return m.affirmed() && IsCurrentEvent(m.temporality); }

// Bleeding on an antithrombotic needs a reversal/hold decision whenever blood
// is present: a new or known bleed, or a chronic collection that can still
// expand (a chronic subdural hematoma: Kolias, Nat Rev Neurol 2014), but not
// a scar of an old bleed ("remote hemorrhage", hemosiderin).
bool IsPresentBleed(const FindingMention& m) {
  if (!m.affirmed() || m.temporality == Temporality::kHistorical) return false;
  return m.temporality != Temporality::kChronic || m.chronic_is_present;
}

// What a rule read in the findings: the first mention that triggers it, and
// the first that did not only because of its age.
struct RuleFinding {
  std::optional<FindingMention> trigger;
  std::optional<FindingMention> dated_out;
};

RuleFinding ReadRuleFinding(const FindingsReader& reader, const std::vector<const FindingConcept*>& findings,
                            bool (*triggers)(const FindingMention&)) {
  RuleFinding out;
  for (const FindingConcept* finding : findings) {
    for (FindingMention& m : reader.Read(*finding)) {
      if (!out.trigger && triggers(m)) {
        out.trigger = m;
      } else if (!out.dated_out && m.affirmed() && !triggers(m)) {
        out.dated_out = std::move(m);
      }
    }
  }
  return out;
}

// The finding's name in the assessment: its label, qualified when the text
// hedges or dates it ("Pulmonary embolism (possible)", "Subdural hematoma
// (chronic)").
std::string Named(const FindingMention& m) {
  std::string name = m.label;
  std::vector<std::string> notes;
  if (m.uncertain) notes.push_back("possible");
  if (m.temporality == Temporality::kChronic || m.temporality == Temporality::kKnown) {
    notes.push_back(std::string(TemporalityName(m.temporality)));
  }
  for (size_t i = 0; i < notes.size(); ++i) name += (i == 0 ? " (" : ", ") + notes[i];
  if (!notes.empty()) name += ")";
  return name;
}

struct Decision {
  std::vector<std::pair<std::string, Json>> pending;  // calls still needed, in order
  std::vector<std::string> matched;                   // rule ids
  std::string deciding_rule;                          // first rule that raised urgency
  std::vector<std::string> critical;
  std::vector<std::string> sentences;
  std::vector<std::string> sources;
  bool increase = false;
};

class Evaluator {
 public:
  explicit Evaluator(const Conversation& conv) : conv_(conv), reader_(conv.findings) {}

  Decision Run() {
    const RuleFinding vte = Read(VteFindings(), IsNewEvent);
    if (vte.trigger) {
      Vte(*vte.trigger);
    } else if (vte.dated_out) {
      NotANewEvent(*vte.dated_out, "anticoagulation-failure", kSourceVte);
    } else {
      NonDiagnostic();
    }
    const RuleFinding stroke = Read(StrokeFindings(), IsNewEvent);
    const RuleFinding bleed = Read(BleedFindings(), IsPresentBleed);
    // A stroke named only as "stroke"/"CVA" alongside a hemorrhage is a
    // hemorrhagic stroke: the bleeding rule applies, not the ischemic one.
    if (stroke.trigger && !(stroke.trigger->label == "Stroke" && bleed.trigger)) {
      Stroke(*stroke.trigger);
    } else if (!stroke.trigger && stroke.dated_out) {
      NotANewEvent(*stroke.dated_out, "antithrombotic-failure", kSourceStroke);
    }
    if (std::string f = FirstLabel(kCardiacTerms); !f.empty()) Cardiac(f);
    if (bleed.trigger) {
      Bleed(Named(*bleed.trigger));
    } else if (bleed.dated_out) {
      d_.sentences.push_back(Named(*bleed.dated_out) + " read as " + DescribeMention(*bleed.dated_out) +
                             ": the scar of an old bleed, not blood to reverse; bleeding rule not applied.");
    }
    if (!FirstAffirmedTerm(kContrastTerms).empty()) Contrast();
    if (d_.matched.empty() && !d_.sentences.empty()) {
      d_.sentences.push_back("No escalation rule applies; no risk adjustment.");
    } else if (d_.matched.empty()) {
      d_.sentences.push_back("No planner rule applies to these findings (no thrombosis, stroke, tachycardic "
                             "cardiac, bleeding or contrast-study finding); no risk adjustment.");
    }
    return std::move(d_);
  }

 private:
  RuleFinding Read(const std::vector<const FindingConcept*>& findings, bool (*triggers)(const FindingMention&)) const {
    return ReadRuleFinding(reader_, findings, triggers);
  }

  // The label of the first affirmed term, or "".
  std::string FirstLabel(const std::vector<std::pair<std::string, std::string>>& terms) const {
    for (const auto& [term, label] : terms) {
      for (const FindingMention& m : reader_.Read(term)) {
        if (m.affirmed()) return label;
      }
    }
    return "";
  }

  std::string FirstAffirmedTerm(const std::vector<std::string>& terms) const {
    for (const std::string& term : terms) {
      for (const FindingMention& m : reader_.Read(term)) {
        if (m.affirmed()) return term;
      }
    }
    return "";
  }

  // A PE the study could not assess ("cannot be excluded due to motion"): not
  // a clot, so no failure rule; the assessment says so (issue 24).
  void NonDiagnostic() {
    for (const FindingMention& m : reader_.Read(PulmonaryEmbolism())) {
      if (!m.nondiagnostic || m.negated || m.hypothetical) continue;
      d_.sentences.push_back(m.label + " read as " + DescribeMention(m) + " (\"" + m.clause +
                             "\"): a non-diagnostic segment is not a clot, so the anticoagulation-failure rule does "
                             "not apply; the question may need further imaging.");
      AddSource(kSourceVte);
      return;
    }
  }

  // A clot or infarct the text dates as chronic, known or historical: the
  // failure rule does not apply, and the assessment says why.
  void NotANewEvent(const FindingMention& m, const char* rule, const char* source) {
    d_.sentences.push_back(m.label + " read as " + DescribeMention(m) + " (\"" + m.clause +
                           "\"): not a new event on current therapy, so the " + rule + " rule does not apply.");
    AddSource(source);
  }

  // The observation for a call, or null after queueing the call as pending.
  const Observation* Need(const std::string& name, Json args = Json::object()) {
    const std::string key = name + "|" + CanonicalJson(args);
    if (auto it = conv_.known.find(key); it != conv_.known.end()) return &it->second;
    const bool queued = std::any_of(d_.pending.begin(), d_.pending.end(), [&](const auto& p) {
      return p.first + "|" + CanonicalJson(p.second) == key;
    });
    if (!queued) d_.pending.emplace_back(name, std::move(args));
    return nullptr;
  }

  MedicationFact Medication(const std::string& drug_class) {
    MedicationFact fact = ReadMedication(Need("check_medication_status", {{"medication_name", drug_class}}),
                                         drug_class);
    if (!fact.note.empty()) d_.sentences.push_back(fact.note + ".");
    return fact;
  }

  void NoteLabError(const Observation* obs, const std::string& category) {
    if (obs && !obs->ok) d_.sentences.push_back("get_recent_labs(" + category + ") failed: " + obs->error + ".");
  }

  void Raise(const std::string& rule, std::initializer_list<std::string> findings, const char* source) {
    d_.increase = true;
    if (d_.deciding_rule.empty()) d_.deciding_rule = rule;
    for (const std::string& f : findings) {
      if (std::find(d_.critical.begin(), d_.critical.end(), f) == d_.critical.end()) d_.critical.push_back(f);
    }
    AddSource(source);
  }

  void AddSource(const char* source) {
    if (std::find(d_.sources.begin(), d_.sources.end(), source) == d_.sources.end()) d_.sources.push_back(source);
  }

  // Rule 1 (ACCP/CHEST VTE guideline): a new or extending clot on an active
  // anticoagulant is anticoagulation failure; with warfarin the INR tells
  // true failure (therapeutic 2.0-3.0) from under-anticoagulation. A chronic,
  // organized or known clot is not (IsNewEvent); a hedged one ("possible PE")
  // is, named as possible: it is acted on until excluded.
  void Vte(const FindingMention& mention) {
    const std::string finding = Named(mention);
    d_.matched.push_back("vte_anticoagulation");
    AddSource(kSourceVte);
    const Observation* manifest = Need("get_patient_manifest");
    if (manifest && !manifest->ok) d_.sentences.push_back("get_patient_manifest failed: " + manifest->error + ".");
    MedicationFact anticoag = Medication("anticoag");
    const Observation* coag = Need("get_recent_labs", {{"category", "Coag"}});
    NoteLabError(coag, "Coag");
    // The INR measures a vitamin K antagonist's effect only: its range is
    // read for warfarin and merely reported otherwise (DOACs, heparins).
    const bool vka = AsciiLower(anticoag.drug).find("warfarin") != std::string::npos;
    std::string inr_text;
    bool low_inr = false;
    if (const Json* inr = FindLab(coag, {"inr", "international normalized ratio"})) {
      inr_text = LabText(*inr);
      if ((*inr)["value"].is_number() && (vka || !anticoag.active)) {
        const double v = (*inr)["value"].get<double>();
        low_inr = v < 2.0;
        const char* range = v < 2.0 ? "subtherapeutic" : v <= 3.0 ? "therapeutic" : "supratherapeutic";
        inr_text += ", " + std::string(range) + " for warfarin (target 2.0-3.0)";
        AddSource(kSourceInr);
      }
    }
    if (anticoag.active) {
      // On warfarin a low INR means under-anticoagulation rather than true
      // failure. Both are a clot despite an active order, so both escalate.
      const bool under = low_inr && vka;
      Raise("vte_anticoagulation",
            {under ? "Subtherapeutic anticoagulation" : "Anticoagulation failure",
             finding + " on active " + anticoag.drug},
            kSourceVte);
      d_.sentences.push_back(finding + " despite active anticoagulation (" + anticoag.drug + ")" +
                             (!inr_text.empty() ? "; " + inr_text : vka ? "; no INR on record" : "") +
                             (under ? ": under-anticoagulation rather than true failure, escalate."
                                    : ": anticoagulation failure, escalate."));
    } else if (anticoag.checked) {
      d_.sentences.push_back(finding + " with no active anticoagulant: no treatment failure" +
                             (inr_text.empty() ? "." : " (" + inr_text + ")."));
    }
  }

  // Rule 2 (AHA/ASA 2021 secondary stroke prevention): an ischemic event on
  // active antiplatelet or anticoagulant therapy is a treatment failure; an
  // old infarct ("old lacunar infarct", "encephalomalacia from prior
  // infarct") is not an event on the current therapy.
  void Stroke(const FindingMention& mention) {
    const std::string finding = Named(mention);
    d_.matched.push_back("stroke_antithrombotic");
    AddSource(kSourceStroke);
    MedicationFact antiplatelet = Medication("antiplatelet");
    MedicationFact anticoag = Medication("anticoag");
    if (antiplatelet.active) {
      Raise("stroke_antithrombotic", {"Antiplatelet failure", finding + " on active " + antiplatelet.drug},
            kSourceStroke);
      d_.sentences.push_back(finding + " despite active antiplatelet therapy (" + antiplatelet.drug +
                             "): antiplatelet failure.");
    }
    if (anticoag.active) {
      Raise("stroke_antithrombotic", {"Anticoagulation failure", finding + " on active " + anticoag.drug},
            kSourceStroke);
      d_.sentences.push_back(finding + " despite active anticoagulation (" + anticoag.drug +
                             "): anticoagulation failure.");
    }
    if (!antiplatelet.active && !anticoag.active && antiplatelet.checked && anticoag.checked) {
      d_.sentences.push_back(finding + " with no active antiplatelet or anticoagulant: no treatment failure.");
    }
  }

  // Rule 3 (ESC AF guidelines 2020/2024): tachycardia (> 100/min) despite an
  // active beta-blocker is rate-control failure; troponin is reported.
  void Cardiac(const std::string& finding) {
    bool tachycardia = !FirstAffirmedTerm(kTachycardiaTerms).empty();
    const bool ischemia = !FirstAffirmedTerm(kIschemiaTerms).empty();
    std::string rate_text = tachycardia ? "tachycardia reported in the findings" : "";
    if (!tachycardia) {
      const Observation* vitals = Need("get_vital_signs");
      if (vitals && !vitals->ok) d_.sentences.push_back("get_vital_signs failed: " + vitals->error + ".");
      if (vitals && vitals->ok) {
        const Json hr = vitals->value.value("vitals", Json::object()).value("heart_rate", Json());
        if (hr.is_object() && hr.contains("value") && hr["value"].is_number()) {
          const double rate = hr["value"].get<double>();
          rate_text = "heart rate " + FormatNumber(hr["value"]) + "/min on " + hr.value("date", std::string("?"));
          tachycardia = rate > 100;
        } else {
          rate_text = "no heart rate in the vitals window";
        }
      }
      if (!vitals) return;  // the rest depends on the heart rate
    }
    if (!tachycardia && !ischemia) {
      d_.sentences.push_back(finding + " without tachycardia or ischemia (" + rate_text +
                             "): rate-control rule not applicable.");
      return;
    }
    d_.matched.push_back("cardiac_rate_control");
    AddSource(kSourceRate);
    MedicationFact beta = Medication("beta");
    const Observation* cardiac = Need("get_recent_labs", {{"category", "Cardiac"}});
    NoteLabError(cardiac, "Cardiac");
    std::string troponin;
    if (const Json* lab = FindLab(cardiac, {"troponin"})) troponin = "; " + LabText(*lab);
    if (beta.active && tachycardia) {
      Raise("cardiac_rate_control", {"Rate control failure", "Tachycardia on active " + beta.drug}, kSourceRate);
      d_.sentences.push_back(finding + " with " + rate_text + " despite active beta-blocker (" + beta.drug + ")" +
                             troponin + ": rate control failure.");
    } else if (beta.checked) {
      d_.sentences.push_back(finding + " (" + rate_text + (ischemia ? ", ischemia mentioned" : "") + ")" +
                             (beta.active ? " on " + beta.drug + " without tachycardia" : " with no active beta-blocker") +
                             troponin + ": no rate-control failure.");
    }
  }

  // Rule 4 (AHA/ASA 2022 ICH guideline; ACC 2020 bleeding pathway): bleeding
  // on an active anticoagulant or antiplatelet needs urgent reversal review.
  // That includes a chronic subdural hematoma: a present collection that can
  // expand, where antithrombotics are held or reversed before drainage
  // (Kolias, Nat Rev Neurol 2014;10:570); not the scar of a remote bleed.
  void Bleed(const std::string& finding) {
    d_.matched.push_back("bleed_antithrombotic");
    AddSource(kSourceBleed);
    MedicationFact anticoag = Medication("anticoag");
    MedicationFact antiplatelet = Medication("antiplatelet");
    std::vector<std::string> drugs;
    if (anticoag.active) drugs.push_back(anticoag.drug);
    if (antiplatelet.active) drugs.push_back(antiplatelet.drug);
    if (!drugs.empty()) {
      std::string list;
      for (const std::string& d : drugs) list += (list.empty() ? "" : " and ") + d;
      Raise("bleed_antithrombotic", {"Hemorrhage on anticoagulant/antiplatelet therapy", finding + " on active " + list},
            kSourceBleed);
      d_.sentences.push_back(finding + " on active " + list + ": consider urgent reversal.");
    } else if (anticoag.checked && antiplatelet.checked) {
      d_.sentences.push_back(finding + " with no active anticoagulant or antiplatelet.");
    }
  }

  // Rule 5 (ACR contrast manual; ACR-NKF 2020): report renal function for a
  // contrast study; no adjustment by itself.
  void Contrast() {
    d_.matched.push_back("contrast_renal");
    AddSource(kSourceContrast);
    const Observation* renal = Need("get_recent_labs", {{"category", "Renal"}});
    NoteLabError(renal, "Renal");
    if (!renal || !renal->ok) return;
    std::string parts;
    if (const Json* cr = FindLab(renal, {"creatinine"})) parts = LabText(*cr);
    if (const Json* gfr = FindLab(renal, {"egfr", "glomerular filtration"})) {
      parts += (parts.empty() ? "" : "; ") + LabText(*gfr);
    }
    d_.sentences.push_back("Contrast study: " + (parts.empty() ? "no creatinine or eGFR on record" : parts) +
                           " (renal function for contrast safety; no adjustment by itself).");
    if (!RenalImpairment(renal)) return;
    // Reduced kidney function after iodinated contrast on an anticoagulant the
    // kidney clears: the drug accumulates (labels above) while contrast may
    // worsen the injury (ACR-NKF 2020; KDIGO 2012 AKI guideline): dose and
    // bleeding review within hours.
    MedicationFact anticoag = Medication("anticoag");
    if (!anticoag.active) return;
    const std::string drug = AsciiLower(anticoag.drug);
    const bool renal_drug = std::any_of(kRenallyClearedAnticoagulants.begin(), kRenallyClearedAnticoagulants.end(),
                                        [&](const std::string& d) { return drug.find(d) != std::string::npos; });
    if (!renal_drug) return;
    d_.matched.push_back("contrast_renal_anticoagulant");
    AddSource(kSourceRenalAnticoag);
    Raise("contrast_renal_anticoagulant",
          {"Reduced renal function on renally cleared anticoagulant", anticoag.drug + " with " + parts},
          kSourceRenalAnticoag);
    d_.sentences.push_back("Reduced renal function (" + parts + ") after contrast on a renally cleared anticoagulant (" +
                           anticoag.drug + "): accumulation and bleeding risk, review the dose.");
  }

  // Reduced kidney function in a renal panel: eGFR below 30 (KDIGO G4-G5), a
  // creatinine the record flags high (KDIGO 2012 AKI guideline) or, unflagged,
  // one of 1.5 mg/dL or more (Eliquis label's dose-reduction criterion).
  static bool RenalImpairment(const Observation* renal) {
    if (const Json* gfr = FindLab(renal, {"egfr", "glomerular filtration"})) {
      if (gfr->contains("value") && (*gfr)["value"].is_number() && (*gfr)["value"].get<double>() < 30) return true;
    }
    if (const Json* cr = FindLab(renal, {"creatinine"})) {
      const std::string flag = AsciiLower(StringOr(*cr, "flag"));
      if (flag.find("high") != std::string::npos) return true;
      // Apixaban's label threshold, where the record gives no flag.
      const bool mg_dl = AsciiLower(StringOr(*cr, "unit")) == "mg/dl";
      if (mg_dl && cr->contains("value") && (*cr)["value"].is_number() && (*cr)["value"].get<double>() >= 1.5) {
        return true;
      }
    }
    return false;
  }

  const Conversation& conv_;
  const FindingsReader reader_;  // the findings, read once per turn
  Decision d_;
};

class RulesPlanner : public ChatModel {
 public:
  Result<ModelResponse> Complete(const ModelRequest& request, const ModelCallContext&) override {
    const Conversation conv = ReadConversation(request.messages);
    Decision decision = Evaluator(conv).Run();
    ModelResponse response;
    response.model = name();
    const int turn = conv.turns + 1;
    if (!decision.pending.empty() && turn < kMaxTurns && !request.tools.empty()) {
      std::vector<ToolCall> calls;
      const size_t count = turn >= kBatchFromTurn ? decision.pending.size() : 1;
      for (size_t i = 0; i < count; ++i) {
        const auto& [tool, args] = decision.pending[i];
        calls.push_back({kIdPrefix + std::to_string(conv.calls + static_cast<int>(i) + 1), tool, DumpJson(args)});
      }
      response.message = Message::Assistant("", std::move(calls));
      response.finish_reason = "tool_calls";
      return response;
    }
    Final(conv, decision, response);
    return response;
  }

  std::string name() const override { return "rules-planner"; }
  std::string protocol() const override { return "rules"; }
  ModelCapabilities capabilities() const override { return {.tool_calling = ToolCalling::kPlanner}; }

 private:
  static void Final(const Conversation& conv, const Decision& decision, ModelResponse& response) {
    const std::string adjustment = decision.increase ? "INCREASE" : "NONE";
    std::string text;
    for (const std::string& s : decision.sentences) text += (text.empty() ? "" : " ") + s;
    if (!decision.pending.empty()) {
      std::string missing;
      for (const auto& [tool, args] : decision.pending) {
        missing += (missing.empty() ? "" : ", ") + tool + DumpJson(args);
      }
      text += " Not checked (tools unavailable or turn limit): " + missing + ".";
    }
    if (conv.findings.empty()) text = "No imaging findings were given. " + text;
    text += " Risk adjustment: " + adjustment + ".";
    Json critical = Json::array();
    for (const std::string& c : decision.critical) critical.push_back(c);
    std::string rule = decision.deciding_rule;
    if (rule.empty()) rule = decision.matched.empty() ? "no_rule" : decision.matched.front();
    // The assessment is a call of the finishing tool, validated like a model's.
    const Json args = {{"final_assessment", Trim(text)},
                       {"risk_adjustment", adjustment},
                       {"critical_findings", critical},
                       {"rule", rule},
                       {"rules_matched", decision.matched},
                       {"sources", decision.sources}};
    response.message = Message::Assistant("", {ToolCall{kIdPrefix + std::to_string(conv.calls + 1),
                                                        kSubmitAssessmentTool, DumpJson(args)}});
    response.finish_reason = "tool_calls";
  }
};

}  // namespace

std::unique_ptr<ChatModel> MakeTriageRulesPlanner() { return std::make_unique<RulesPlanner>(); }

}  // namespace medreact
