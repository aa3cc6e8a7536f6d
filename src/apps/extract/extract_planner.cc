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
#include <set>
#include <utility>

#include "apps/common/planner_support.h"
#include "apps/extract/extract_prompts.h"
#include "apps/extract/extract_plan_support.h"
#include "apps/extract/medical_functions.h"
#include "apps/extract/note_facts.h"
#include "apps/extract/schema_fill.h"
#include "tools/growth/growth_plausibility.h"
#include "tools/growth/growth_tables.h"

namespace medreact {
namespace {

constexpr int kMaxTurns = 6;  // retrieve, compute, interpret, answer, with room for one tool error
constexpr const char* kIdPrefix = "plan_";
constexpr double kCdcFromMonths = 24;  // WHO standards under 2 y, CDC 2000 from 2 y (MMWR 2010;59(RR-9))

// GLIM 2019 (Cederholm et al., Clin Nutr 2019;38:1-9), Table 1 and Table 3.
constexpr const char* kGlimSource = "GLIM criteria (Cederholm T, et al. Clin Nutr 2019;38:1-9)";

using Observation = ToolObservation;
using extract_plan::ArrayField;
using extract_plan::Call;
using extract_plan::CallKey;
using extract_plan::Conversation;
using extract_plan::Fmt;
using extract_plan::Rank;
using extract_plan::Readable;
using extract_plan::ReadConversation;
using extract_plan::SeverityOf;
using extract_plan::ShortToolError;

// ASPEN/AND 2014 (Becker et al., J Acad Nutr Diet 2014;114:1988-2000), Table 2, indicators when two or
// more data points are available: weight loss (2-20 years) of 5 % / 7.5 % / 10 % of usual body weight is
// mild / moderate / severe; inadequate intake of 51-75 % / 26-50 % / <= 25 % of estimated energy or protein
// needs is mild / moderate / severe. The consensus covers 1 month to 18 years.
constexpr const char* kAspenSource =
    "ASPEN/AND 2014 pediatric malnutrition consensus (Becker P, et al. J Acad Nutr Diet 2014;114:1988-2000)";
constexpr double kAspenFromMonths = 1;

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
    const Observation* obs = Lookup(tool, args);
    if (obs && !obs->ok) notes_.push_back(tool + " failed: " + obs->error);
    return obs && obs->ok ? obs : nullptr;
  }

  // The observation of a call, failed or not, asking for it when missing (nullptr then, and when
  // the tool is not offered).
  const Observation* Lookup(const std::string& tool, const Json& args) {
    if (!Offered(tool)) return nullptr;
    auto it = conv_.known.find(CallKey(tool, args));
    if (it != conv_.known.end()) return &it->second;
    pending_.emplace_back(tool, args);
    return nullptr;
  }

  // The population the criteria are chosen by: a child under 18 years
  // (ASPEN/AND), an adult from 18 (GLIM), unknown when the note gives
  // neither an age nor a word that settles it.
  Population Who() const { return facts_.population(); }

  void Run() {
    if (ran_) return;
    ran_ = true;
    const Population who = Who();
    findings_.population = PopulationName(who);
    findings_.age_months = facts_.age_months;
    findings_.sex = facts_.sex;
    findings_.bmi = facts_.bmi;
    findings_.weight_loss_percent = facts_.weight_loss_percent;
    if (facts_.age_months) {
      notes_.push_back("age " + Fmt(*facts_.age_months, 1) + " months, read from \"" + facts_.age_quote + "\"");
    }
    if (facts_.chronological_age_months && facts_.gestational_weeks) {
      notes_.push_back("corrected age " + Fmt(*facts_.age_months, 1) + " months used for every age-based z-score: born at " +
                       Fmt(*facts_.gestational_weeks, 1) + " weeks (\"" + facts_.gestation_quote + "\"), chronological age " +
                       Fmt(*facts_.chronological_age_months, 1) + " months (AAP 2004: corrected to 24 months)");
    }
    for (const std::string& problem : facts_.problems) notes_.push_back(problem);
    for (const std::string& unusable : facts_.unusable) notes_.push_back(unusable);
    if (who == Population::kUnknown) {
      Undetermined("the note gives no age (nor a date of birth with a visit date, nor a word such as infant, "
                   "toddler or woman): child or adult criteria cannot be chosen, so nothing was graded");
      Summarise();
      return;
    }
    Retrieve(who == Population::kPediatric);
    if (who == Population::kPediatric) {
      Pediatric();
    } else {
      Adult();
    }
    if (!findings_.flags.empty()) {
      Undetermined("a value in the note is implausible (" + JoinFlags() +
                   "): no classification is given until it is re-checked");
    }
    Summarise();
  }

  std::string JoinFlags() const {
    std::string out;
    for (const std::string& f : findings_.flags) out += (out.empty() ? "" : "; ") + f;
    return out;
  }

  void Undetermined(const std::string& why) {
    findings_.assessable = false;
    findings_.malnutrition.reset();
    findings_.severity = "indeterminate";
    if (findings_.undetermined_reason.empty()) findings_.undetermined_reason = why;
    notes_.push_back(why);
  }

  void Retrieve(bool child) {
    const std::string query = child ? "ASPEN pediatric malnutrition z-score severity indicators WHO cut-offs"
                                    : "GLIM adult malnutrition phenotypic etiologic criteria weight loss BMI severity";
    Json rag_args = {{"query", query}, {"purpose", "criteria for the extraction"}};
    if (const Observation* obs = Need("query_rag", rag_args)) {
      for (const Json& hit : ArrayField(obs->value, "results")) {
        std::string source = StringOr(hit, "source");
        const std::string heading = StringOr(hit, "heading");
        if (!heading.empty()) source += " > " + heading;
        if (!source.empty() && findings_.sources.size() < 3) findings_.sources.push_back(source);
      }
    }
    Json keywords = child ? Json::array({"malnutrition", "pediatric", "z-score", "percentile"})
                          : Json::array({"malnutrition", "adult", "GLIM", "weight loss"});
    Need("query_extras", Json{{"keywords", keywords}});
  }

  void AddZ(const std::string& indicator, double z, std::optional<double> percentile, const std::string& origin,
            bool computed) {
    ZFinding finding{indicator, z, computed, percentile, origin, "", ""};
    findings_.zscores.push_back(std::move(finding));
  }

  void Pediatric() {
    // Stated z-scores and percentiles first: the note's own numbers. A stated z beyond the WHO
    // biologically-implausible cut-offs is flagged, never graded (WHO Anthro / AnthroPlus manuals).
    for (const StatedScore& s : facts_.zscores) {
      if (const auto indicator = ParseGrowthIndicator(s.indicator)) {
        const auto [low, high] = WhoBivLimits(*indicator);
        if (s.value < low || s.value > high) {
          findings_.flags.push_back("stated " + Readable(s.indicator) + " z " + Fmt(s.value, 2) +
                                    " is beyond the WHO cut-offs for biologically implausible values (" +
                                    Fmt(low, 0) + " to +" + Fmt(high, 0) + ")");
          continue;
        }
      }
      AddZ(s.indicator, s.value, std::nullopt, "stated in the note (\"" + s.quote + "\")", false);
    }
    for (const StatedScore& s : facts_.percentiles) {
      const Json args = Call("percentile_to_zscore", {{"percentile", s.value}});
      if (const Observation* obs = Need(kCallMedicalFunctionTool, args); obs && obs->value.contains("z")) {
        AddZ(s.indicator, NumberOr(obs->value, "z", 0), s.value,
             "from the percentile stated in the note (\"" + s.quote + "\")", false);
      }
    }
    ComputeGrowth();
    Interpret();
    WeightLossAndIntake();
    WeightGainUnderTwo();
    Grade();
    RequireCompleteEvidence();
    if (!aspen_graded_ && aspen_.empty() && findings_.flags.empty()) {
      Undetermined("no indicator the ASPEN/AND criteria grade (weight-for-length, BMI-for-age, length/height-for-age, "
                   "weight loss, intake) could be established from the note");
    }
  }

  // Computed even when the note states a percentile for the same indicator: "below the 3rd
  // percentile" is a bound, the measurement gives the value; the worse of the two grades.
  void Growth(const std::string& indicator, Json params) {
    const Observation* obs = Lookup(kCallMedicalFunctionTool, Call("growth_zscore", std::move(params)));
    if (obs && !obs->ok) {
      // growth_zscore refuses a measurement no child can have (growth_plausibility.h): a flag. Any
      // other refusal (a length outside the table, say) only leaves the indicator out.
      const std::string error = ShortToolError(obs->error);
      if (error.find("is not a possible") != std::string::npos) {
        findings_.flags.push_back(Readable(indicator) + " not computed: " + error);
      } else {
        notes_.push_back(Readable(indicator) + " not computed: " + error);
      }
      return;
    }
    if (!obs || !obs->value.contains("z") || !obs->value["z"].is_number()) return;
    // A z beyond the WHO/CDC biologically-implausible cut-offs is a measurement, age or unit error
    // until re-checked: flagged, never a finding.
    if (BoolOr(obs->value, "biologically_implausible", false)) {
      const double z = NumberOr(obs->value, "z", 0);
      const Json& plausibility = obs->value.contains("plausibility") ? obs->value["plausibility"] : Json();
      std::string detail = StringOr(plausibility, "statistic", "z") + " " + Fmt(NumberOr(plausibility, "value", z), 2);
      findings_.flags.push_back(Readable(indicator) + " z " + Fmt(z, 2) + " is biologically implausible (" +
                                (StringOr(obs->value, "reference") == "cdc" ? "CDC " : "WHO ") + detail +
                                " is beyond the published cut-off): re-check the measurement, its unit, the age and "
                                "the sex" + (z < -3 ? "; if confirmed, it is below every malnutrition cut-off" : ""));
      return;
    }
    std::optional<double> percentile;
    if (obs->value.contains("percentile") && obs->value["percentile"].is_number()) {
      percentile = obs->value["percentile"].get<double>();
    }
    AddZ(indicator, NumberOr(obs->value, "z", 0), percentile,
         "computed from the measurements (" + StringOr(obs->value, "table", "growth table") + ")", true);
  }

  // What to compute: the standard indicators for the age (WHO under 24 months: weight-for-length,
  // length-for-age, weight-for-age; CDC from 24 months: BMI-for-age, stature-for-age, weight-for-age;
  // head circumference when measured), plus every indicator a field of the schema names that is defined
  // at this age for what was measured. Each indicator is computed with its own table.
  void ComputeGrowth() {
    const bool weight = facts_.weight_kg.has_value();
    const bool stature = facts_.height_cm.has_value();
    const bool bmi = findings_.bmi.has_value() || (weight && stature);
    if (facts_.sex.empty()) {
      if (weight || stature || bmi) notes_.push_back("no z-score computed: the note does not say the child's sex");
      return;
    }
    std::set<std::string> wanted = RequestedIndicators(task_.schema);
    if (!facts_.age_months) {
      // Only weight-for-length needs no age, and only for a child surely under 24 months.
      if (facts_.AgeSurelyUnder(kCdcFromMonths) && weight && stature) {
        Json p = {{"reference", "who"}, {"sex", facts_.sex}, {"indicator", "weight_for_length"},
                  {"length_cm", *facts_.height_cm}, {"value", *facts_.weight_kg}};
        Growth("weight_for_length", p);
      }
      notes_.push_back("the note gives no exact age (\"" + facts_.age_word +
                       "\"): no age-based z-score was computed (weight-for-age, length/height-for-age, BMI-for-age)");
      return;
    }
    const double age = *facts_.age_months;
    const bool infant = age < kCdcFromMonths;
    const std::string reference = infant ? "who" : "cdc";
    // The stature measure: as the note says, else as measured at that age (lying under 24 months).
    const bool lying = facts_.stature_measure.empty() ? infant : facts_.stature_measure == "length";
    std::set<std::string> plan;
    if (weight) plan.insert("weight_for_age");
    if (stature) plan.insert(infant ? "length_for_age" : "height_for_age");
    if (infant && weight && stature) plan.insert("weight_for_length");
    if (!infant && bmi) plan.insert("bmi_for_age");
    if (facts_.head_circumference_cm) plan.insert("head_circumference_for_age");
    for (const std::string& w : wanted) {
      if (w == "weight_for_length_or_height") plan.insert(infant ? "weight_for_length" : "weight_for_height");
      else if (w == "length_or_height_for_age") plan.insert(infant ? "length_for_age" : "height_for_age");
      else plan.insert(w);
    }
    for (const std::string& indicator : plan) {
      Json p = {{"reference", reference}, {"sex", facts_.sex}, {"indicator", indicator}};
      std::string why_not;
      if (indicator == "weight_for_age") {
        if (!weight) why_not = "no current weight in the note";
        p["age_months"] = age;
        if (weight) p["value"] = *facts_.weight_kg;
      } else if (indicator == "length_for_age" || indicator == "height_for_age") {
        const bool asks_length = indicator == "length_for_age";
        if (!stature) {
          why_not = "no current length or height in the note";
        } else if (asks_length && !infant && !(lying && age < 36)) {
          why_not = "length-for-age is for a child measured lying (CDC to 36 months, WHO under 24 months); this "
                    "child is " + Fmt(age, 1) + " months old" + (lying ? "" : " and measured standing");
        } else if (!asks_length && infant) {
          why_not = "under 24 months the WHO standard is length-for-age (measured lying)";
        }
        // WHO under 24 months: a standing height is passed as height_for_age (the tool adds 0.7 cm).
        const std::string used = infant && !lying && asks_length ? "height_for_age" : indicator;
        p["indicator"] = used;
        p["age_months"] = age;
        if (stature) p["value"] = *facts_.height_cm;
        if (why_not.empty()) {
          Growth(used, p);
          continue;
        }
      } else if (indicator == "weight_for_length") {
        if (!weight || !stature) why_not = "weight and length are both needed";
        else if (!infant) why_not = "weight-for-length is the WHO standard under 24 months; from 24 months it is "
                                    "weight-for-height (standing) or BMI-for-age";
        if (weight && stature) {
          p["length_cm"] = *facts_.height_cm;
          p["value"] = *facts_.weight_kg;
        }
      } else if (indicator == "weight_for_height") {
        if (!weight || !stature) why_not = "weight and height are both needed";
        else if (infant) why_not = "weight-for-height is not used under 24 months (WHO: weight-for-length, lying)";
        else if (age >= 60) why_not = "the CDC weight-for-stature chart is for 2 to 5 years (BMI-for-age after)";
        if (weight && stature) {
          p["height_cm"] = *facts_.height_cm;
          p["value"] = *facts_.weight_kg;
        }
      } else if (indicator == "bmi_for_age") {
        // Computed from weight and stature when both are given, else the stated BMI.
        std::optional<double> value = findings_.bmi;
        if (weight && stature) {
          value = *facts_.weight_kg / std::pow(*facts_.height_cm / 100.0, 2);
          if (!findings_.bmi) findings_.bmi = value;
        }
        if (!value) why_not = "no BMI, or weight and height, in the note";
        p["age_months"] = age;
        if (value) p["value"] = std::round(*value * 100) / 100;
      } else if (indicator == "head_circumference_for_age") {
        if (!facts_.head_circumference_cm) why_not = "no head circumference in the note";
        else if (!infant && age >= 36) why_not = "the CDC head-circumference chart ends at 36 months";
        p["age_months"] = age;
        if (facts_.head_circumference_cm) p["value"] = *facts_.head_circumference_cm;
      }
      if (!why_not.empty()) {
        if (wanted.contains(indicator)) notes_.push_back(Readable(indicator) + " not computed: " + why_not);
        continue;
      }
      Growth(indicator, p);
    }
  }

  void Interpret() {
    for (ZFinding& z : findings_.zscores) {
      if (z.indicator.empty()) {
        notes_.push_back("a z-score of " + Fmt(z.z, 2) + " was not interpreted: the note does not say which indicator");
        continue;
      }
      if (z.indicator == "bmi_for_age" && facts_.AgeSurelyUnder(kCdcFromMonths)) {
        z.band = "not graded under 2 years (ASPEN/AND grades weight-for-length there)";
        continue;
      }
      Json params = {{"z", std::round(z.z * 100) / 100}, {"indicator", z.indicator}};
      if (facts_.age_months) params["age_months"] = *facts_.age_months;
      const Observation* obs = Need(kCallMedicalFunctionTool, Call("interpret_zscore_malnutrition", params));
      if (!obs) continue;
      for (const Json& c : ArrayField(obs->value, "classifications")) {
        if (StringOr(c, "system").find("ASPEN") != std::string::npos) aspen_graded_ = true;  // a band, or "none"
      }
      // ASPEN/AND first (it grades mild/moderate/severe), WHO otherwise.
      for (const char* system : {"ASPEN", "WHO"}) {
        for (const Json& c : ArrayField(obs->value, "classifications")) {
          const std::string name = StringOr(c, "system");
          const std::string band = StringOr(c, "band");
          if (name.find(system) == std::string::npos || band.rfind("none", 0) == 0 || !z.band.empty()) continue;
          z.band = band;
          z.band_system = name;
        }
      }
      if (z.band.empty()) z.band = "no malnutrition band met";
    }
  }

  // ASPEN/AND indicators from two data points: weight loss (2-20 years) and intake.
  void WeightLossAndIntake() {
    if (facts_.weight_loss_percent && *facts_.weight_loss_percent > 0) {
      const double loss = *facts_.weight_loss_percent;
      if (facts_.AgeSurelyAtLeast(kCdcFromMonths)) {
        const std::string severity = loss >= 10 ? "severe" : loss >= 7.5 ? "moderate" : loss >= 5 ? "mild" : "";
        const std::string period = facts_.weight_loss_months ? " over " + Fmt(*facts_.weight_loss_months, 0) + " months" : "";
        std::string line = "weight loss " + Fmt(loss, 1) + " % of usual body weight" + period;
        if (!severity.empty()) {
          aspen_.push_back({severity, line + ": " + severity + " malnutrition (ASPEN/AND: 5 / 7.5 / 10 %)"});
        } else {
          findings_.indicators.push_back(line + ": below the ASPEN/AND mild threshold (5 %)");
        }
      } else {
        notes_.push_back("weight loss is an ASPEN/AND indicator from 2 years of age (under 2 years: weight-gain "
                         "velocity, not computed)");
      }
    }
    if (facts_.intake_percent && facts_.age_months && *facts_.age_months >= kAspenFromMonths) {
      const double intake = *facts_.intake_percent;
      const std::string severity = intake <= 25 ? "severe" : intake <= 50 ? "moderate" : intake <= 75 ? "mild" : "";
      if (!severity.empty()) {
        aspen_.push_back({severity, "intake " + facts_.intake_quote + ": " + severity +
                                        " malnutrition (ASPEN/AND: 51-75 / 26-50 / <= 25 % of needs)"});
      }
    }
  }

  // ASPEN/AND 2014 (Becker, Table 3), under 2 years with two dated weights: weight-gain velocity < 75 / 50 /
  // 25 % of the norm is mild / moderate / severe, the norm being the WHO Child Growth Standards: Growth
  // velocity based on weight, length and head circumference (WHO 2009). Those velocity tables are not in the
  // project's data, so no percentage of the norm is computed. What is computable without them:
  //   - a loss: every WHO median weight increment from birth to 24 months is above zero, so a loss is below
  //     25 % of the norm whatever the norm's value: severe;
  //   - a gain: the decline in weight-for-age z between the two dates (WHO 2006 weight-for-age, the tables
  //     the project has), graded as ASPEN/AND's deceleration indicator (decline of 1 / 2 / 3 z mild /
  //     moderate / severe; Becker Table 3 states it for weight-for-length/height z, weight-for-age is the
  //     stand-in when only weights are dated). Said in the answer as such.
  void WeightGainUnderTwo() {
    if (!facts_.weight_kg || !facts_.age_months || *facts_.age_months >= kCdcFromMonths) return;
    const WeightPoint* earlier = nullptr;
    for (const WeightPoint& p : facts_.weight_history) {
      if (p.at_birth || (!p.dated && !p.months_ago)) continue;
      // The most recent earlier weight at least a month back (WHO 2009 velocity standards: 1-month weight
      // increments are the shortest interval tabulated), else the most recent.
      if (!earlier) earlier = &p;
      else if (p.months_ago && earlier->months_ago) {
        const bool p_ok = *p.months_ago >= 1, e_ok = *earlier->months_ago >= 1;
        if ((p_ok && !e_ok) || (p_ok == e_ok && *p.months_ago < *earlier->months_ago)) earlier = &p;
      }
    }
    if (!earlier) return;
    const double now = *facts_.weight_kg;
    const std::string period = earlier->months_ago ? " over " + Fmt(*earlier->months_ago, 1) + " months" : "";
    if (now < earlier->kg) {
      aspen_.push_back({"severe", "weight fell from " + Fmt(earlier->kg, 2) + " kg to " + Fmt(now, 2) + " kg" + period +
                                      " under 2 years: weight-gain velocity below 25 % of the norm (any loss is: WHO 2009 "
                                      "median increments are above zero to 24 months): severe malnutrition (ASPEN/AND 2014)"});
      return;
    }
    const ZFinding* z_now = nullptr;
    for (const ZFinding& z : findings_.zscores) {
      if (z.indicator == "weight_for_age" && z.computed) z_now = &z;
    }
    if (!earlier->months_ago || !z_now || facts_.sex.empty() || *earlier->months_ago > *facts_.age_months) {
      incomplete_.push_back("weight-gain velocity under 2 years could not be graded (the earlier weight's date or the "
                            "current weight-for-age is missing)");
      return;
    }
    const double then_age = *facts_.age_months - *earlier->months_ago;
    Json p = {{"reference", "who"}, {"sex", facts_.sex}, {"indicator", "weight_for_age"},
              {"age_months", std::round(then_age * 100) / 100}, {"value", earlier->kg}};
    const Observation* obs = Lookup(kCallMedicalFunctionTool, Call("growth_zscore", std::move(p)));
    if (!obs || !obs->ok || !obs->value.contains("z") || !obs->value["z"].is_number()) {
      if (obs) incomplete_.push_back("the earlier weight's weight-for-age z could not be computed");
      return;
    }
    const double decline = NumberOr(obs->value, "z", 0) - z_now->z;
    const std::string severity = decline >= 3 ? "severe" : decline >= 2 ? "moderate" : decline >= 1 ? "mild" : "";
    std::string line = "weight " + Fmt(earlier->kg, 2) + " kg to " + Fmt(now, 2) + " kg" + period +
                       ": weight-for-age z fell by " + Fmt(std::max(0.0, decline), 2) +
                       " (WHO 2006; ASPEN/AND 2014 deceleration: 1 / 2 / 3 z mild / moderate / severe, weight-for-age "
                       "standing in for weight-for-length; the WHO velocity tables are not available, so velocity as a "
                       "percentage of the norm was not computed)";
    if (!severity.empty()) aspen_.push_back({severity, line + ": " + severity + " malnutrition"});
    else findings_.indicators.push_back(line + ": no band met");
  }

  // "No malnutrition" only from a complete reading (issue 24): a number next to a measurement that could not be
  // used, or a criterion that could not be evaluated, makes it indeterminate and says what to re-check.
  void RequireCompleteEvidence() {
    if (!findings_.assessable || findings_.severity != "none") return;
    std::vector<std::string> why = facts_.unusable;
    why.insert(why.end(), incomplete_.begin(), incomplete_.end());
    if (facts_.weight_loss_unquantified) {
      why.push_back("weight loss is mentioned without an amount or earlier weights (a criterion of both ASPEN/AND "
                    "and GLIM): re-check the weights");
    }
    if (findings_.population == "pediatric") {
      bool weight_based = !aspen_.empty();
      for (const ZFinding& z : findings_.zscores) {
        if (z.indicator == "weight_for_length" || z.indicator == "weight_for_height" ||
            (z.indicator == "bmi_for_age" && !facts_.AgeSurelyUnder(kCdcFromMonths))) {
          weight_based = true;
        }
      }
      if (!weight_based && !facts_.weight_loss_percent && !facts_.intake_percent) {
        why.push_back("no weight-based indicator (weight-for-length under 2 years, BMI-for-age from 2 years) could be "
                      "established: re-check the weight and length or height");
      }
    }
    if (why.empty()) return;
    std::string joined;
    for (const std::string& w : why) joined += (joined.empty() ? "" : "; ") + w;
    Undetermined("no malnutrition band was met, but the reading is incomplete: " + joined);
  }

  void Grade() {
    std::string worst = "none";
    const bool under_two = facts_.AgeSurelyUnder(kCdcFromMonths);
    for (const ZFinding& z : findings_.zscores) {
      // Only ASPEN/AND bands grade malnutrition; WHO's weight-for-age "underweight" alone does not.
      // ASPEN/AND grades weight-for-length under 2 years and BMI-for-age from 2 years: a BMI-for-age z
      // under 2 years (computed when the schema asks for it) is reported, not graded.
      if (under_two && z.indicator == "bmi_for_age") continue;
      if (z.band_system.find("ASPEN") != std::string::npos && Rank(SeverityOf(z.band)) > Rank(worst)) {
        worst = SeverityOf(z.band);
        decided_by_ = Readable(z.indicator) + " z = " + Fmt(z.z, 2) + " (" + z.origin + "; ASPEN/AND 2014: " +
                      AspenZBand(worst) + ")";
      }
    }
    for (const auto& [severity, line] : aspen_) {
      if (Rank(severity) > Rank(worst)) {
        worst = severity;
        decided_by_ = line;
      }
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
    for (const auto& entry : aspen_) findings_.indicators.push_back(entry.second);
    if (!aspen_.empty()) findings_.sources.push_back(kAspenSource);
    // Last, so nothing above overrides it. Neonates have their own indicators (Goldberg DL, Becker PJ,
    // Brigham K, et al. Identifying malnutrition in preterm and neonatal populations: recommended
    // indicators. J Acad Nutr Diet 2018;118:1571-82), not implemented here.
    if (facts_.age_months && *facts_.age_months < kAspenFromMonths) {
      Undetermined("the ASPEN/AND 2014 pediatric criteria apply from 1 month of age; neonatal malnutrition "
                   "criteria are not implemented");
    }
  }

  void Adult() {
    // GLIM's BMI cut-offs differ at 70 years: with the age unknown ("a woman"), only what holds on both
    // sides is used, and the rest is said.
    const bool age_known = facts_.age_months.has_value();
    const bool older = age_known && *facts_.age_months / 12 >= 70;
    // Beyond the extremes on record (heaviest 635 kg, tallest 272 cm: Guinness World Records; J. B.
    // Minnoch, R. Wadlow): a unit or entry error, flagged and not used.
    if (facts_.weight_kg && (*facts_.weight_kg < 2 || *facts_.weight_kg > 650)) {
      findings_.flags.push_back("weight " + Fmt(*facts_.weight_kg, 1) + " kg is not a possible adult weight (check the "
                                "unit: g, lb, kg)");
      return;
    }
    if (facts_.height_cm && (*facts_.height_cm < 50 || *facts_.height_cm > 275)) {
      findings_.flags.push_back("height " + Fmt(*facts_.height_cm, 1) + " cm is not a possible adult height (check "
                                "the unit: m, cm, in)");
      return;
    }
    if (!findings_.bmi && facts_.weight_kg && facts_.height_cm) {
      const Json args = Call("body_mass_index", {{"weight", *facts_.weight_kg}, {"height", *facts_.height_cm}});
      if (const Observation* obs = Need(kCallMedicalFunctionTool, args); obs && obs->value.contains("value")) {
        findings_.bmi = NumberOr(obs->value, "value", 0);
      }
    }
    if (findings_.bmi && (*findings_.bmi < 7 || *findings_.bmi > 200)) {
      // Beyond the extremes recorded in adults (the weights and heights above): a unit or entry error.
      findings_.flags.push_back("BMI " + Fmt(*findings_.bmi, 1) + " kg/m2 is not a possible adult BMI (check weight "
                                "and height units)");
      findings_.bmi.reset();
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
      // Unknown age: a criterion is met only when met on both sides of 70 (BMI < 20), and graded stage 2
      // only when stage 2 on both sides (BMI < 18.5).
      const double low = !age_known ? 20 : older ? 22 : 20;
      const double very_low = !age_known ? 18.5 : older ? 20 : 18.5;
      if (bmi < low) {
        findings_.phenotypic.push_back("low BMI " + Fmt(bmi, 1) + " kg/m2 (GLIM: < " + Fmt(low, 0) +
                                       (!age_known ? ", which holds at any adult age)"
                                                   : older ? " at 70 y or older)" : " under 70 y)"));
        stage = std::max(stage, bmi < very_low ? 2 : 1);
      } else if (!age_known && bmi < 22) {
        notes_.push_back("BMI " + Fmt(bmi, 1) + " meets GLIM's low-BMI criterion only at 70 years or older; the age "
                         "is not given, so it was not used");
      }
      if (!age_known && bmi >= 18.5 && bmi < 20) {
        notes_.push_back("BMI " + Fmt(bmi, 1) + " is GLIM stage 2 at 70 years or older; the age is not given, so "
                         "stage 1 was used");
      }
    }
    // GLIM etiologic criteria: intake <= 50 % of requirements for > 1 week (or any reduction > 2 weeks);
    // disease burden / inflammation.
    if (facts_.intake_percent && *facts_.intake_percent <= 50 && (!facts_.intake_weeks || *facts_.intake_weeks > 1)) {
      findings_.etiologic.push_back("reduced intake: " + facts_.intake_quote +
                                    (facts_.intake_weeks ? " for " + Fmt(*facts_.intake_weeks, 0) + " weeks" : ""));
    }
    if (facts_.inflammation) findings_.etiologic.push_back("disease burden/inflammation: " + facts_.inflammation_quote);
    const bool met = !findings_.phenotypic.empty() && !findings_.etiologic.empty();
    findings_.malnutrition = met;
    findings_.severity = !met ? "none" : stage == 2 ? "severe" : "moderate";
    for (const std::string& p : findings_.phenotypic) findings_.indicators.push_back("phenotypic: " + p);
    for (const std::string& e : findings_.etiologic) findings_.indicators.push_back("etiologic: " + e);
    findings_.sources.push_back(kGlimSource);
    if (!findings_.bmi && !facts_.weight_loss_percent) {
      Undetermined("no phenotypic measurement (BMI, weight and height, or weight loss) in the note: the GLIM "
                   "criteria cannot be applied");
      return;
    }
    // A phenotypic criterion without an etiologic one read is not "not met": the note may simply not say
    // (GLIM needs one of each; an abbreviation or a share of meals the reader missed must not reassure).
    if (!findings_.phenotypic.empty() && findings_.etiologic.empty()) {
      Undetermined("etiologic criterion not established: a GLIM phenotypic criterion is met (" + findings_.phenotypic[0] +
                   ") but neither reduced intake nor a disease with inflammation was read from the note; re-check "
                   "intake and diagnoses");
      return;
    }
    // With the age unknown, a decision that the 70-year cut-offs would change is not made.
    if (!age_known && findings_.bmi && !findings_.etiologic.empty()) {
      const double bmi = *findings_.bmi;
      if (!met && bmi >= 20 && bmi < 22) {
        Undetermined("GLIM is met at 70 years or older (BMI < 22) but not under 70 (BMI < 20), and the age is not "
                     "given");
      } else if (met && stage == 1 && bmi >= 18.5 && bmi < 20) {
        findings_.severity = "indeterminate";
        notes_.push_back("the GLIM stage depends on the age (stage 2 at 70 years or older), which is not given");
      }
    }
    RequireCompleteEvidence();
  }

  void Summarise() {
    std::string s;
    if (!findings_.assessable) {
      s = "Not assessable: " + findings_.undetermined_reason + ".";
      if (!findings_.zscores.empty()) {
        s += " Values found:";
        for (size_t i = 0; i < findings_.zscores.size(); ++i) {
          const ZFinding& z = findings_.zscores[i];
          s += std::string(i ? ";" : "") + " " + Readable(z.indicator.empty() ? "unknown indicator" : z.indicator) +
               " z = " + Fmt(z.z, 2) + " (" + z.origin + ")";
        }
        s += ".";
      }
    } else if (findings_.population == "pediatric") {
      if (findings_.zscores.empty() && aspen_.empty()) {
        s = "No anthropometric z-score, weight loss or intake could be established from the note.";
      } else {
        // The headline names the finding that sets the severity, then every indicator.
        s = findings_.malnutrition.value_or(false)
                ? Capital(findings_.severity) + " malnutrition by ASPEN/AND 2014, from " + decided_by_ +
                      ". All indicators: "
                : "No malnutrition band met by ASPEN/AND 2014: ";
        for (size_t i = 0; i < findings_.indicators.size(); ++i) s += (i ? "; " : "") + findings_.indicators[i];
        s += ".";
      }
      s += " One indicator is not a diagnosis; ASPEN/AND recommends more than one and a clinical assessment.";
    } else {
      const std::string stage = findings_.severity == "severe" ? "stage 2" : findings_.severity == "moderate" ? "stage 1"
                                                                             : "stage 1, or 2 at 70 years or older";
      s = findings_.malnutrition.value_or(false)
              ? (findings_.severity == "indeterminate" ? std::string("Malnutrition") : Capital(findings_.severity) +
                 " malnutrition") + " by GLIM (" + stage + "): "
              : "GLIM criteria not met (a phenotypic and an etiologic criterion are both needed): ";
      std::string parts;
      for (const std::string& i : findings_.indicators) parts += (parts.empty() ? "" : "; ") + i;
      s += parts.empty() ? "no criterion found in the note." : parts + ".";
    }
    if (facts_.chronological_age_months && facts_.gestational_weeks) {
      s += " Ages are corrected for prematurity: corrected age " + Fmt(*facts_.age_months, 1) + " months (born at " +
           Fmt(*facts_.gestational_weeks, 1) + " weeks; chronological " + Fmt(*facts_.chronological_age_months, 1) +
           " months).";
    }
    if (!task_.label.empty()) s += " Label given: " + task_.label + ".";
    findings_.summary = s;
  }

  // ASPEN/AND 2014's z-score band of a severity (Becker 2014, Table: weight-for-length/height and
  // BMI-for-age z -1 to -1.9 mild, -2 to -2.9 moderate, -3 or below severe; length/height-for-age
  // grades severe only; the bands themselves are in tools/growth/growth_pack.cc).
  static std::string AspenZBand(const std::string& severity) {
    if (severity == "mild") return "z -1 to -1.9 is mild";
    if (severity == "moderate") return "z -2 to -2.9 is moderate";
    return "z -3 or below is severe";
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
  std::vector<std::pair<std::string, std::string>> aspen_;  // (severity, sentence) from weight loss and intake
  bool aspen_graded_ = false;  // some z-score was graded by ASPEN/AND (a band or none)
  std::string decided_by_;     // the finding that set the severity, for the summary's headline
  std::vector<std::string> incomplete_;  // criteria that could not be evaluated, for RequireCompleteEvidence
  std::vector<std::string> notes_;
};

class ExtractionRulesPlanner : public ChatModel {
 public:
  explicit ExtractionRulesPlanner(ExtractionTask task) : task_(std::move(task)), facts_(ReadNoteFacts(task_.note)) {}

  Result<ModelResponse> Complete(const ModelRequest& request, const ModelCallContext&) override {
    const Conversation conv = ReadConversation(request.messages, kIdPrefix);
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
    // The answer is a call of the finishing tool, validated like a model's.
    const Json args = {{"json", FillSchema(task_.schema, findings)}, {"notes", planner.Notes()}};
    response.message =
        Message::Assistant("", {ToolCall{kIdPrefix + std::to_string(conv.calls + 1), kSubmitExtractionTool, DumpJson(args)}});
    response.finish_reason = "tool_calls";
    return response;
  }

  std::string name() const override { return "extraction-rules-planner"; }
  std::string protocol() const override { return "rules"; }
  ModelCapabilities capabilities() const override { return {.tool_calling = ToolCalling::kPlanner}; }

 private:
  ExtractionTask task_;
  NoteFacts facts_;
};

}  // namespace

std::unique_ptr<ChatModel> MakeExtractionRulesPlanner(const ExtractionTask& task) {
  return std::make_unique<ExtractionRulesPlanner>(task);
}

}  // namespace medreact
