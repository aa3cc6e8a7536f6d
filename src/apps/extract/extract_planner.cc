// The offline extraction planner (extract_planner.h). Every Complete() reads
// the conversation (its own earlier calls and their observations, by call
// key), works out which calls of the plan are still missing, and either asks
// for all of them in one turn (they are independent within a step) or, when
// nothing is missing, writes the answer.
#include "apps/extract/extract_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "apps/common/planner_support.h"
#include "apps/extract/medical_functions.h"
#include "apps/extract/note_facts.h"
#include "apps/extract/schema_fill.h"

namespace medreact {
namespace {

constexpr int kMaxTurns = 6;  // retrieve, compute, interpret, answer, with room for one tool error
constexpr const char* kIdPrefix = "plan_";
constexpr double kCdcFromMonths = 24;  // WHO standards under 2 y, CDC 2000 from 2 y (MMWR 2010;59(RR-9))

// GLIM 2019 (Cederholm et al., Clin Nutr 2019;38:1-9), Table 1 and Table 3.
constexpr const char* kGlimSource = "GLIM criteria (Cederholm T, et al. Clin Nutr 2019;38:1-9)";

using Observation = ToolObservation;

struct Conversation {
  std::map<std::string, Observation> known;  // call key → observation
  int turns = 0;
  int calls = 0;
};

std::string CallKey(const std::string& name, const Json& args) { return name + "|" + CanonicalJson(args); }

Conversation ReadConversation(const std::vector<Message>& messages) {
  Conversation conv;
  std::map<std::string, std::string> key_of_id;
  for (const Message& m : messages) {
    if (m.role == Role::kAssistant && m.has_tool_calls()) {
      bool ours = false;
      for (const ToolCall& call : m.tool_calls) {
        Result<Json> args = ParseJson(call.arguments.empty() ? "{}" : call.arguments);
        key_of_id[call.id] = call.name + "|" + (args.ok() ? CanonicalJson(*args) : call.arguments);
        if (call.id.rfind(kIdPrefix, 0) == 0) {
          ours = true;
          ++conv.calls;
        }
      }
      if (ours) ++conv.turns;
    } else if (m.role == Role::kTool) {
      auto it = key_of_id.find(m.tool_call_id);
      if (it == key_of_id.end()) continue;
      conv.known[it->second] = ReadToolObservation(m.content);
    }
  }
  return conv;
}

std::string Fmt(double value, int digits) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, value);
  return buffer;
}

std::string Readable(std::string indicator) {
  std::replace(indicator.begin(), indicator.end(), '_', '-');
  if (indicator.rfind("bmi", 0) == 0) indicator = "BMI" + indicator.substr(3);
  return indicator;
}

Json Call(const std::string& function, Json parameters) {
  return Json{{"function_name", function}, {"parameters", std::move(parameters)}};
}

// The severity word of a band ("moderate malnutrition" → "moderate"), "" when none.
std::string SeverityOf(const std::string& band) {
  for (const char* word : {"severe", "moderate", "mild"}) {
    if (band.find(word) != std::string::npos) return word;
  }
  return "";
}

int Rank(const std::string& severity) {
  return severity == "severe" ? 3 : severity == "moderate" ? 2 : severity == "mild" ? 1 : 0;
}

class Planner {
 public:
  Planner(const ExtractionTask& task, const NoteFacts& facts, const Conversation& conv,
          const std::vector<std::string>& tools)
      : task_(task), facts_(facts), conv_(conv), tools_(tools) {}

  // The calls still missing, in plan order, and the findings so far.
  std::vector<std::pair<std::string, Json>> Pending() {
    Run();
    return pending_;
  }
  ExtractionFindings Findings() {
    Run();
    return findings_;
  }
  std::vector<std::string> Notes() {
    Run();
    return notes_;
  }

 private:
  bool Offered(const std::string& tool) const { return std::find(tools_.begin(), tools_.end(), tool) != tools_.end(); }

  // The observation of a call, asking for it when missing (nullptr then).
  const Observation* Need(const std::string& tool, const Json& args) {
    if (!Offered(tool)) return nullptr;
    auto it = conv_.known.find(CallKey(tool, args));
    if (it == conv_.known.end()) {
      pending_.emplace_back(tool, args);
      return nullptr;
    }
    if (!it->second.ok) notes_.push_back(tool + " failed: " + it->second.error);
    return it->second.ok ? &it->second : nullptr;
  }

  void Run() {
    if (ran_) return;
    ran_ = true;
    findings_.population = facts_.pediatric() ? "pediatric" : "adult";
    findings_.age_months = facts_.age_months;
    findings_.sex = facts_.sex;
    findings_.bmi = facts_.bmi;
    findings_.weight_loss_percent = facts_.weight_loss_percent;
    Retrieve();
    if (facts_.pediatric()) {
      Pediatric();
    } else {
      Adult();
    }
    Summarise();
  }

  void Retrieve() {
    const bool child = facts_.pediatric();
    const std::string query = child ? "ASPEN pediatric malnutrition z-score severity indicators WHO cut-offs"
                                    : "GLIM adult malnutrition phenotypic etiologic criteria weight loss BMI severity";
    Json rag_args = {{"query", query}, {"purpose", "criteria for the extraction"}};
    if (const Observation* obs = Need("query_rag", rag_args)) {
      for (const Json& hit : obs->value.value("results", Json::array())) {
        std::string source = hit.value("source", std::string());
        const std::string heading = hit.value("heading", std::string());
        if (!heading.empty()) source += " > " + heading;
        if (!source.empty() && findings_.sources.size() < 3) findings_.sources.push_back(source);
      }
    }
    Json keywords = child ? Json::array({"malnutrition", "pediatric", "z-score", "percentile"})
                          : Json::array({"malnutrition", "adult", "GLIM", "weight loss"});
    Need("query_extras", Json{{"keywords", keywords}});
  }

  void AddZ(const std::string& indicator, double z, std::optional<double> percentile, const std::string& origin) {
    findings_.zscores.push_back({indicator, z, percentile, origin, "", ""});
  }

  void Pediatric() {
    // Stated z-scores and percentiles first: the note's own numbers.
    for (const StatedScore& s : facts_.zscores) AddZ(s.indicator, s.value, std::nullopt, "stated in the note");
    for (const StatedScore& s : facts_.percentiles) {
      const Json args = Call("percentile_to_zscore", {{"percentile", s.value}});
      if (const Observation* obs = Need(kCallMedicalFunctionTool, args); obs && obs->value.contains("z")) {
        AddZ(s.indicator, obs->value["z"].get<double>(), s.value, "from the percentile stated in the note (\"" + s.quote + "\")");
      }
    }
    ComputeGrowth();
    Interpret();
  }

  // Computed even when the note states a percentile for the same indicator: "below the 3rd
  // percentile" is a bound, the measurement gives the value; the worse of the two grades.
  void Growth(const std::string& indicator, Json params) {
    if (const Observation* obs = Need(kCallMedicalFunctionTool, Call("growth_zscore", std::move(params)));
        obs && obs->value.contains("z") && obs->value["z"].is_number()) {
      // A z beyond the WHO/CDC biologically-implausible cut-offs is a
      // measurement, age or unit error until re-checked: never a finding.
      if (BoolOr(obs->value, "biologically_implausible", false)) {
        notes_.push_back(indicator + " not used: " +
                         StringOr(obs->value, "warning", "the z-score is biologically implausible") +
                         " (re-check the measurement, the age and the units)");
        return;
      }
      std::optional<double> percentile;
      if (obs->value.contains("percentile") && obs->value["percentile"].is_number()) {
        percentile = obs->value["percentile"].get<double>();
      }
      AddZ(indicator, obs->value["z"].get<double>(), percentile,
           "computed from the measurements (" + obs->value.value("table", std::string("growth table")) + ")");
    }
  }

  void ComputeGrowth() {
    if (!facts_.age_months || facts_.sex.empty()) {
      if (facts_.weight_kg) notes_.push_back("no z-score computed: the note's age or sex was not found");
      return;
    }
    const double age = *facts_.age_months;
    const std::string reference = age < kCdcFromMonths ? "who" : "cdc";
    const Json base = {{"reference", reference}, {"sex", facts_.sex}};
    if (facts_.weight_kg && facts_.height_cm) {
      Json p = base;
      if (age < kCdcFromMonths) {
        p["indicator"] = "weight_for_length";
        p["length_cm"] = *facts_.height_cm;
        p["value"] = *facts_.weight_kg;
        Growth("weight_for_length", p);
      } else {
        const double bmi = *facts_.weight_kg / std::pow(*facts_.height_cm / 100.0, 2);
        if (!findings_.bmi) findings_.bmi = bmi;
        p["indicator"] = "bmi_for_age";
        p["age_months"] = age;
        p["value"] = std::round(bmi * 100) / 100;
        Growth("bmi_for_age", p);
      }
    }
    if (facts_.height_cm) {
      const std::string indicator = age < kCdcFromMonths ? "length_for_age" : "height_for_age";
      Json p = base;
      p["indicator"] = indicator;
      p["age_months"] = age;
      p["value"] = *facts_.height_cm;
      Growth(indicator, p);
    }
    if (facts_.weight_kg) {
      Json p = base;
      p["indicator"] = "weight_for_age";
      p["age_months"] = age;
      p["value"] = *facts_.weight_kg;
      Growth("weight_for_age", p);
    }
  }

  void Interpret() {
    for (ZFinding& z : findings_.zscores) {
      if (z.indicator.empty()) {
        notes_.push_back("a z-score of " + Fmt(z.z, 2) + " was not interpreted: the note does not say which indicator");
        continue;
      }
      Json params = {{"z", std::round(z.z * 100) / 100}, {"indicator", z.indicator}};
      if (facts_.age_months) params["age_months"] = *facts_.age_months;
      const Observation* obs = Need(kCallMedicalFunctionTool, Call("interpret_zscore_malnutrition", params));
      if (!obs) continue;
      // ASPEN/AND first (it grades mild/moderate/severe), WHO otherwise.
      for (const char* system : {"ASPEN", "WHO"}) {
        for (const Json& c : obs->value.value("classifications", Json::array())) {
          const std::string name = c.value("system", std::string());
          const std::string band = c.value("band", std::string());
          if (name.find(system) == std::string::npos || band.rfind("none", 0) == 0 || !z.band.empty()) continue;
          z.band = band;
          z.band_system = name;
        }
      }
      if (z.band.empty()) z.band = "within the reference range";
    }
    std::string worst = "none";
    for (const ZFinding& z : findings_.zscores) {
      // Only ASPEN/AND bands grade malnutrition; WHO's weight-for-age "underweight" alone does not.
      if (z.band_system.find("ASPEN") == std::string::npos) continue;
      const std::string s = SeverityOf(z.band);
      if (Rank(s) > Rank(worst)) worst = s;
    }
    findings_.severity = worst;
    findings_.malnutrition = worst != "none";
    for (const ZFinding& z : findings_.zscores) {
      std::string line = Readable(z.indicator.empty() ? "unknown indicator" : z.indicator) + " z = " + Fmt(z.z, 2);
      if (z.percentile) line += " (percentile " + Fmt(*z.percentile, 1) + ")";
      line += ", " + z.origin;
      if (!z.band.empty()) line += ": " + z.band + (z.band_system.empty() ? "" : " (" + z.band_system + ")");
      findings_.indicators.push_back(line);
    }
  }

  void Adult() {
    if (!facts_.age_months) {
      notes_.push_back("no age found in the note: adult (GLIM) criteria applied, with the BMI cut-offs for under 70 years");
    }
    const double age_years = facts_.age_months ? *facts_.age_months / 12 : 0;
    const bool older = age_years >= 70;
    if (!findings_.bmi && facts_.weight_kg && facts_.height_cm) {
      const Json args = Call("body_mass_index", {{"weight", *facts_.weight_kg}, {"height", *facts_.height_cm}});
      if (const Observation* obs = Need(kCallMedicalFunctionTool, args); obs && obs->value.contains("value")) {
        findings_.bmi = obs->value["value"].get<double>();
      }
    }
    // GLIM phenotypic criteria (Table 1): weight loss > 5 % within 6 months or > 10 % beyond 6 months;
    // BMI < 20 (< 70 y) or < 22 (>= 70 y), Western cut-offs. Stage 2 (Table 3): loss > 10 % within
    // 6 months or > 20 % beyond; BMI < 18.5 (< 70 y) or < 20 (>= 70 y).
    int stage = 0;
    if (facts_.weight_loss_percent) {
      const double loss = *facts_.weight_loss_percent;
      const bool within6 = !facts_.weight_loss_months || *facts_.weight_loss_months <= 6;
      const double moderate = within6 ? 5 : 10, severe = within6 ? 10 : 20;
      const std::string period = facts_.weight_loss_months ? " over " + Fmt(*facts_.weight_loss_months, 0) + " months" : "";
      if (loss > moderate) {
        findings_.phenotypic.push_back("weight loss " + Fmt(loss, 1) + " %" + period + " (GLIM: > " + Fmt(moderate, 0) +
                                       " %" + (within6 ? " within 6 months" : " beyond 6 months") + ")");
        stage = std::max(stage, loss > severe ? 2 : 1);
      }
    }
    if (findings_.bmi) {
      const double bmi = *findings_.bmi;
      const double low = older ? 22 : 20, very_low = older ? 20 : 18.5;
      if (bmi < low) {
        findings_.phenotypic.push_back("low BMI " + Fmt(bmi, 1) + " kg/m2 (GLIM: < " + Fmt(low, 0) + (older ? " at 70 y or older)" : " under 70 y)"));
        stage = std::max(stage, bmi < very_low ? 2 : 1);
      }
    }
    // GLIM etiologic criteria: intake <= 50 % of requirements for > 1 week (or any reduction > 2 weeks);
    // disease burden / inflammation.
    if (facts_.intake_percent && *facts_.intake_percent <= 50 && (!facts_.intake_weeks || *facts_.intake_weeks > 1)) {
      findings_.etiologic.push_back("reduced intake: " + facts_.intake_quote +
                                    (facts_.intake_weeks ? " for " + Fmt(*facts_.intake_weeks, 0) + " weeks" : ""));
    }
    if (facts_.inflammation) findings_.etiologic.push_back("disease burden/inflammation: " + facts_.inflammation_quote);
    findings_.malnutrition = !findings_.phenotypic.empty() && !findings_.etiologic.empty();
    findings_.severity = !findings_.malnutrition ? "none" : stage == 2 ? "severe" : "moderate";
    for (const std::string& p : findings_.phenotypic) findings_.indicators.push_back("phenotypic: " + p);
    for (const std::string& e : findings_.etiologic) findings_.indicators.push_back("etiologic: " + e);
    findings_.sources.push_back(kGlimSource);
  }

  void Summarise() {
    std::string s;
    if (facts_.pediatric()) {
      if (findings_.zscores.empty()) {
        s = "No anthropometric z-score or percentile could be established from the note.";
      } else {
        s = findings_.malnutrition ? Capital(findings_.severity) + " malnutrition by ASPEN/AND 2014 single-measurement bands: "
                                   : "No malnutrition band met by ASPEN/AND 2014: ";
        for (size_t i = 0; i < findings_.indicators.size(); ++i) s += (i ? "; " : "") + findings_.indicators[i];
        s += ".";
      }
      s += " One indicator is not a diagnosis; ASPEN/AND recommends more than one and a clinical assessment.";
    } else {
      s = findings_.malnutrition
              ? Capital(findings_.severity) + " malnutrition by GLIM (stage " + (findings_.severity == "severe" ? "2" : "1") + "): "
              : "GLIM criteria not met (a phenotypic and an etiologic criterion are both needed): ";
      std::string parts;
      for (const std::string& i : findings_.indicators) parts += (parts.empty() ? "" : "; ") + i;
      s += parts.empty() ? "no criterion found in the note." : parts + ".";
    }
    if (!task_.label.empty()) s += " Label given: " + task_.label + ".";
    findings_.summary = s;
  }

  static std::string Capital(std::string s) {
    if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
    return s;
  }

  const ExtractionTask& task_;
  const NoteFacts& facts_;
  const Conversation& conv_;
  const std::vector<std::string>& tools_;
  bool ran_ = false;
  std::vector<std::pair<std::string, Json>> pending_;
  ExtractionFindings findings_;
  std::vector<std::string> notes_;
};

class ExtractionRulesPlanner : public ChatModel {
 public:
  explicit ExtractionRulesPlanner(ExtractionTask task) : task_(std::move(task)), facts_(ReadNoteFacts(task_.note)) {}

  Result<ModelResponse> Complete(const ModelRequest& request, const ModelCallContext&) override {
    const Conversation conv = ReadConversation(request.messages);
    std::vector<std::string> tools;
    for (const ToolSpec& spec : request.tools) tools.push_back(spec.name);
    Planner planner(task_, facts_, conv, tools);
    std::vector<std::pair<std::string, Json>> pending = planner.Pending();
    ModelResponse response;
    response.model = name();
    if (!pending.empty() && conv.turns + 1 < kMaxTurns) {
      std::vector<ToolCall> calls;
      int n = conv.calls;
      for (const auto& [tool, args] : pending) calls.push_back({kIdPrefix + std::to_string(++n), tool, DumpJson(args)});
      response.message = Message::Assistant("", std::move(calls));
      response.finish_reason = "tool_calls";
      return response;
    }
    const ExtractionFindings findings = planner.Findings();
    Json answer = FillSchema(task_.schema, findings);
    response.message = Message::Assistant(DumpJson(answer, 2));
    response.final_fields = {{"plan_notes", planner.Notes()}, {"population", findings.population}};
    response.finish_reason = "stop";
    return response;
  }

  std::string name() const override { return "extraction-rules-planner"; }
  std::string protocol() const override { return "rules"; }

 private:
  ExtractionTask task_;
  NoteFacts facts_;
};

}  // namespace

std::unique_ptr<ChatModel> MakeExtractionRulesPlanner(const ExtractionTask& task) {
  return std::make_unique<ExtractionRulesPlanner>(task);
}

}  // namespace medreact
