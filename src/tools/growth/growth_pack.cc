// The growth pack's tool definitions: specs written for the model, thin Run
// functions over growth_tables (which table, L/M/S) and lms (the arithmetic),
// and the cited malnutrition bands.
//
// Measurement position (WHO 2006, "Length/height-for-age"; WHO Anthro): the
// WHO 0-5 y standard is recumbent length to day 730 and standing height from
// day 731, standing height being 0.7 cm less than recumbent length. A WHO
// length_for_age at 731 days or older is converted to height (-0.7 cm), a
// height_for_age below 731 days to length (+0.7 cm), and the result says so.
// CDC has separate infant (length) and 2-20 y (stature) files; the indicator
// picks one and nothing is converted.
//
// Numbers are returned at full precision; only the "summary" text rounds.
#include "tools/growth/growth_pack.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "core/text_util.h"
#include "medreact/tool.h"
#include "tools/growth/growth_plausibility.h"
#include "tools/growth/growth_tables.h"
#include "tools/growth/lms.h"

namespace medreact {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPositionCorrectionCm = 0.7;  // WHO 2006: length = height + 0.7 cm
constexpr double kWhoHeightFromDay = 731;

constexpr const char* kDiagnosisCaution =
    "One z-score is one indicator. A malnutrition diagnosis needs more than one indicator (e.g. weight-for-length/"
    "height or BMI-for-age together with length/height-for-age, mid-upper arm circumference, weight-gain "
    "velocity, weight loss or intake; ASPEN/AND 2014 lists the combinations) and a clinical assessment; "
    "overweight likewise. Mid-upper arm circumference is not tabled by these tools.";

// ---- Text helpers ------------------------------------------------------------

std::string Format(const char* format, double value) {
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

std::string FormatZ(double z) { return Format("%.2f", z); }

std::string FormatPercentile(double percentile) {
  if (percentile >= 0.1 && percentile <= 99.9) return Format("%.1f", percentile);
  return Format("%.3g", percentile);
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::optional<double> OptionalNumber(const Json& args, const char* key) {
  if (auto it = args.find(key); it != args.end() && it->is_number()) return it->get<double>();
  return std::nullopt;
}

Json IndicatorEnum() {
  Json names = Json::array();
  for (GrowthIndicator indicator : AllGrowthIndicators()) names.push_back(GrowthIndicatorName(indicator));
  return names;
}

std::string SignedLimit(double limit) { return (limit > 0 ? "+" : "") + Format("%g", limit); }

// ---- growth_zscore -----------------------------------------------------------

constexpr const char* kZscoreDescription =
    "Computes a child's growth z-score and percentile for one measurement from the CDC 2000 or WHO 2006/2007 "
    "LMS reference tables. Use it for every pediatric weight, length/height, BMI or head circumference instead "
    "of estimating from memory. WHO is the usual choice from birth to 2 years (and internationally to 5 years, "
    "WHO 2007 reference to 19 years); CDC for ages 2-20 years in the US. Give reference, indicator, sex, value "
    "(kg for weight, cm for length, height and head circumference, kg/m2 for BMI) and where the child is: "
    "exactly one of age_months or age_days for the *_for_age indicators, length_cm for weight_for_length, "
    "height_cm for weight_for_height. length_for_age means recumbent length, height_for_age standing height. "
    "Coverage: CDC weight_for_age 0-240 months, length_for_age 0-35.5 months, height_for_age 24-240 months, "
    "bmi_for_age 24-240.5 months, head_circumference_for_age 0-36 months, weight_for_length 45-103.5 cm, "
    "weight_for_height 77-121.5 cm; WHO weight_for_age 0-120 months, length_for_age 0-60 months, "
    "height_for_age 0-228 months, bmi_for_age 0-228 months, head_circumference_for_age 0-60 months, "
    "weight_for_length 45-110 cm, weight_for_height 65-120 cm. For WHO under 5 years a length measured lying at "
    "2 years or older, or a height measured standing under 2 years, is converted with WHO's 0.7 cm rule. "
    "Returns {z, percentile, biologically_implausible, table, L, M, S, method, citation, summary, ...}, e.g. "
    "{\"reference\": \"who\", \"indicator\": \"weight_for_age\", \"sex\": \"female\", \"age_months\": 12, "
    "\"value\": 7.0} gives z -2.05, percentile 2.0. A value no child can measure (e.g. a weight in grams given as "
    "kg) is an error; a z beyond the published cut-offs for biologically implausible values (WHO: z; CDC: modified "
    "z) comes back with biologically_implausible: true and a plausibility object: re-check the measurement, its "
    "unit, the age and the sex, and do not grade or report it. To grade malnutrition from the z, call "
    "interpret_zscore_malnutrition.";

ToolSpec ZscoreSpec() {
  ToolSpec spec;
  spec.name = "growth_zscore";
  spec.description = kZscoreDescription;
  spec.parameters = {
      {"type", "object"},
      {"properties",
       {{"reference",
         {{"type", "string"},
          {"enum", {"cdc", "who"}},
          {"description", "Growth reference: \"who\" (WHO Child Growth Standards 2006, 0-5 y, and WHO Growth "
                          "Reference 2007, 5-19 y) or \"cdc\" (CDC 2000 growth charts, 0-20 y)."}}},
        {"indicator",
         {{"type", "string"},
          {"enum", IndicatorEnum()},
          {"description", "What was measured against what: weight_for_age, length_for_age (lying), "
                          "height_for_age (standing), bmi_for_age, head_circumference_for_age, "
                          "weight_for_length (lying length), weight_for_height (standing height)."}}},
        {"sex", {{"type", "string"}, {"enum", {"male", "female"}}, {"description", "The child's sex."}}},
        {"value",
         {{"type", "number"},
          {"exclusiveMinimum", 0},
          {"description", "The measurement: weight in kg (weight_for_age, weight_for_length, weight_for_height), "
                          "length, height or head circumference in cm, BMI in kg/m2."}}},
        {"age_months",
         {{"type", "number"},
          {"minimum", 0},
          {"description", "Age in months (decimals allowed; 1 month = 30.4375 days) for the *_for_age "
                          "indicators. Give this or age_days, not both."}}},
        {"age_days",
         {{"type", "number"},
          {"minimum", 0},
          {"description", "Age in days since birth for the *_for_age indicators. Give this or age_months, not "
                          "both."}}},
        {"length_cm",
         {{"type", "number"},
          {"exclusiveMinimum", 0},
          {"description", "Recumbent length in cm, for weight_for_length only."}}},
        {"height_cm",
         {{"type", "number"},
          {"exclusiveMinimum", 0},
          {"description", "Standing height in cm, for weight_for_height only."}}}}},
      {"required", {"reference", "indicator", "sex", "value"}},
      {"additionalProperties", false}};
  return spec;
}

// The measurement's position from the arguments, or an error telling the
// model what to pass.
Result<GrowthPosition> PositionFromArgs(const Json& args, GrowthIndicator indicator) {
  const std::string name = GrowthIndicatorName(indicator);
  GrowthPosition position;
  if (IsAgeIndicator(indicator)) {
    auto months = OptionalNumber(args, "age_months");
    auto days = OptionalNumber(args, "age_days");
    if (months && days) {
      return Status::InvalidArgument("give exactly one of age_months or age_days for " + name + ", not both");
    }
    if (!months && !days) {
      return Status::InvalidArgument(name + " needs the child's age: pass age_months (e.g. 18.5) or age_days "
                                            "(e.g. 563)");
    }
    const char* field = months ? "/age_months" : "/age_days";
    const double age = months ? *months : *days;
    if (!std::isfinite(age) || age < 0) {
      return Status::InvalidArgument(std::string(field) + " must be the age since birth, 0 or more, got " +
                                     Format("%g", age) + "; check the date of birth and the date of measurement");
    }
    position.age_months = months ? *months : *days / kDaysPerMonth;
    position.age_days = days ? *days : *months * kDaysPerMonth;
    return position;
  }
  const bool by_length = indicator == GrowthIndicator::kWeightForLength;
  const char* wanted = by_length ? "length_cm" : "height_cm";
  const char* other = by_length ? "height_cm" : "length_cm";
  auto cm = OptionalNumber(args, wanted);
  if (!cm) {
    if (OptionalNumber(args, other)) {
      return Status::InvalidArgument(name + " takes " + wanted + ", not " + other + ": use " +
                                     (by_length ? "weight_for_height for a standing height"
                                                : "weight_for_length for a recumbent length") +
                                     ", or pass the measurement as " + wanted);
    }
    return Status::InvalidArgument(name + " needs " + wanted + " (the child's " +
                                   (by_length ? "recumbent length" : "standing height") + " in cm)");
  }
  if (OptionalNumber(args, other)) {
    return Status::InvalidArgument(name + " takes " + wanted + " only; remove " + other);
  }
  if (Status s = CheckPossibleLengthCm(*cm, std::string("/") + wanted); !s.ok()) return s;
  position.length_cm = *cm;
  return position;
}

ToolResult RunZscore(const Json& args) {
  const auto reference = ParseGrowthReference(args.value("reference", ""));
  const auto indicator = ParseGrowthIndicator(args.value("indicator", ""));
  const auto sex = ParseGrowthSex(args.value("sex", ""));
  if (!reference) return ToolResult::Error("/reference must be \"cdc\" or \"who\"");
  if (!indicator) return ToolResult::Error("/indicator is not a known indicator");
  if (!sex) return ToolResult::Error("/sex must be \"male\" or \"female\"");
  const double value = args.value("value", 0.0);
  if (!(value > 0) && std::isfinite(value)) {
    return ToolResult::Error("/value must be a positive measurement (kg, cm or kg/m2), got " +
                             Format("%g", value));
  }
  if (Status s = CheckPhysicallyPossible(*indicator, value); !s.ok()) return ToolResult::Error(s.message());
  Result<GrowthPosition> position = PositionFromArgs(args, *indicator);
  if (!position.ok()) return ToolResult::Error(position.status().message());
  Result<GrowthLookup> lookup = FindGrowthLms(*reference, *indicator, *sex, *position);
  if (!lookup.ok()) return ToolResult::Error(lookup.status().message());

  // WHO 0-5 y: convert lying length / standing height to the table's position.
  double measured = value;
  std::string adjustment;
  const bool who_length_table = *reference == GrowthReference::kWho && lookup->spec->axis == GrowthAxis::kAgeDays &&
                                (*indicator == GrowthIndicator::kLengthForAge ||
                                 *indicator == GrowthIndicator::kHeightForAge);
  if (who_length_table) {
    const bool under_two = *position->age_days < kWhoHeightFromDay;
    if (*indicator == GrowthIndicator::kLengthForAge && !under_two) {
      measured = value - kPositionCorrectionCm;
      adjustment = "recumbent length at 2 years or older: 0.7 cm subtracted to compare with the WHO standing-height "
                   "standard (WHO 2006)";
    } else if (*indicator == GrowthIndicator::kHeightForAge && under_two) {
      measured = value + kPositionCorrectionCm;
      adjustment = "standing height under 2 years: 0.7 cm added to compare with the WHO recumbent-length standard "
                   "(WHO 2006)";
    }
  }

  const Lms& lms = lookup->lms;
  const bool restricted = lookup->spec->restricted_tails;
  const double z = restricted ? WhoRestrictedZ(measured, lms) : LmsZ(measured, lms);
  const double percentile = NormalCdf(z) * 100;
  const std::string table = BaseName(lookup->table->file);

  Json result = {{"z", z},
                 {"percentile", percentile},
                 {"reference", GrowthReferenceName(*reference)},
                 {"indicator", GrowthIndicatorName(*indicator)},
                 {"sex", GrowthSexName(*sex)},
                 {"value", value},
                 {"unit", GrowthValueUnit(*indicator)},
                 {"table", table},
                 {"L", lms.l},
                 {"M", lms.m},
                 {"S", lms.s},
                 {"method", restricted ? "LMS with WHO restricted tails" : "LMS"},
                 {"citation", lookup->spec->citation}};
  std::string where;
  if (IsAgeIndicator(*indicator)) {
    result["age_months"] = *position->age_months;
    result["age_days"] = *position->age_days;
    where = Format("%.4g", *position->age_months) + " months";
  } else {
    const char* key = *indicator == GrowthIndicator::kWeightForLength ? "length_cm" : "height_cm";
    result[key] = *position->length_cm;
    where = Format("%.4g", *position->length_cm) + " cm";
  }
  if (!adjustment.empty()) {
    result["value_used"] = measured;
    result["adjustment"] = adjustment;
  }
  // A z this far out is far more often a wrong unit, a typo, or a wrong age or
  // sex than a child: flagged (growth_plausibility.h), never described as a
  // position in the reference range.
  const GrowthBiv biv = CheckBiologicallyPlausible(*reference, *indicator, z, measured, lms);
  if (*reference == GrowthReference::kCdc) result["modified_z"] = CdcModifiedZ(measured, lms);
  result["biologically_implausible"] = biv.implausible;
  const std::string head = std::string(*reference == GrowthReference::kWho ? "WHO " : "CDC ") +
                           GrowthIndicatorName(*indicator) + ", " + GrowthSexName(*sex) + ", " + where + ": " +
                           Format("%g", value) + " " + GrowthValueUnit(*indicator);
  if (!biv.implausible) {
    result["summary"] = head + " is z = " + FormatZ(z) + ", percentile " + FormatPercentile(percentile) + " (" +
                        table + ")";
    return ToolResult::OkJson(result);
  }
  const std::string limit = biv.direction == "low" ? biv.statistic + " < " + SignedLimit(biv.low)
                                                   : biv.statistic + " > " + SignedLimit(biv.high);
  const std::string reference_name = *reference == GrowthReference::kWho ? "WHO" : "CDC";
  result["plausibility"] = {{"flag", biv.direction == "low" ? "implausibly_low" : "implausibly_high"},
                            {"statistic", biv.statistic},
                            {"value", biv.value},
                            {"limits", {biv.low, biv.high}},
                            {"source", biv.source}};
  result["warning"] = "biologically implausible: " + biv.statistic + " = " + FormatZ(biv.value) + " is beyond the " +
                      reference_name + " cut-off (" + limit + ") for " + GrowthIndicatorName(*indicator) +
                      ". This is almost always a measurement or entry error: check the unit (g vs kg, lb vs kg, mm "
                      "vs cm, m vs cm), the decimal point, the age and the sex, then recompute. Do not grade or "
                      "report this z-score.";
  result["summary"] = head + " gives z = " + FormatZ(z) + ": BIOLOGICALLY IMPLAUSIBLE (" + reference_name + " flags " +
                      limit + "); re-check the measurement, its unit, the age and the sex; not to be graded or "
                      "reported (" + table + ")";
  return ToolResult::OkJson(result);
}

// ---- percentile_to_zscore / zscore_to_percentile -----------------------------

ToolSpec PercentileToZSpec() {
  ToolSpec spec;
  spec.name = "percentile_to_zscore";
  spec.description =
      "Converts a percentile (0-100, exclusive) of a normal distribution to its z-score with the exact inverse "
      "normal function (not a lookup table), e.g. {\"percentile\": 97.5} gives {\"z\": 1.959963984540054}; the "
      "3rd percentile is z -1.88. Use it to compare a percentile from a chart with a z-score cut-off.";
  spec.parameters = {{"type", "object"},
                     {"properties",
                      {{"percentile",
                        {{"type", "number"},
                         {"exclusiveMinimum", 0},
                         {"exclusiveMaximum", 100},
                         {"description", "The percentile in percent, strictly between 0 and 100 (e.g. 3, 50, "
                                         "97.5, 0.001)."}}}}},
                     {"required", {"percentile"}},
                     {"additionalProperties", false}};
  return spec;
}

ToolResult RunPercentileToZ(const Json& args) {
  const double percentile = args.value("percentile", std::nan(""));
  if (!(percentile > 0 && percentile < 100)) {
    return ToolResult::Error("/percentile must be strictly between 0 and 100, got " + Format("%g", percentile));
  }
  const double z = NormalQuantile(percentile / 100);
  return ToolResult::OkJson({{"percentile", percentile}, {"z", z}});
}

ToolSpec ZToPercentileSpec() {
  ToolSpec spec;
  spec.name = "zscore_to_percentile";
  spec.description =
      "Converts a z-score to its percentile (0-100) under the standard normal distribution, e.g. {\"z\": -2} "
      "gives {\"percentile\": 2.275}. Use it to express a z-score as a percentile for a report.";
  spec.parameters = {{"type", "object"},
                     {"properties",
                      {{"z", {{"type", "number"}, {"description", "The z-score (standard deviation score)."}}}}},
                     {"required", {"z"}},
                     {"additionalProperties", false}};
  return spec;
}

ToolResult RunZToPercentile(const Json& args) {
  const double z = args.value("z", std::nan(""));
  if (!std::isfinite(z)) return ToolResult::Error("/z must be a finite number");
  return ToolResult::OkJson({{"z", z}, {"percentile", NormalCdf(z) * 100}});
}

// ---- interpret_zscore_malnutrition -------------------------------------------

// Who defines a band, for whom, and where it is written.
struct BandSystem {
  const char* name;
  const char* applies_to;
  double min_age_months;  // inclusive
  double max_age_months;  // exclusive; the 1e-9 below makes "to 18 years" and "to 19 years" inclusive
  const char* source;
};

constexpr BandSystem kAspen = {
    "ASPEN/AND 2014 pediatric malnutrition consensus", "1 month to 18 years, one measurement", 1, 216 + 1e-9,
    "Becker P, Carney LN, Corkins MR, et al. Consensus statement of the Academy of Nutrition and Dietetics/"
    "American Society for Parenteral and Enteral Nutrition: indicators recommended for the identification and "
    "documentation of pediatric malnutrition (undernutrition). J Acad Nutr Diet 2014;114:1988-2000 (Table: "
    "primary indicators when only one data point is available)"};
constexpr BandSystem kWhoUnder5 = {
    "WHO Child Growth Standards 2006", "children under 5 years", 0, 61,
    "WHO Multicentre Growth Reference Study Group, WHO Child Growth Standards 2006; cut-offs as in WHO Training "
    "Course on Child Growth Assessment, Module C: Interpreting growth indicators (Geneva: WHO, 2008) and WHO/"
    "UNICEF, WHO child growth standards and the identification of severe acute malnutrition in infants and "
    "children (2009)"};
constexpr BandSystem kWho5To19 = {
    "WHO Growth Reference 2007", "5 to 19 years", 61, 228 + 1e-9,
    "de Onis M, Onyango AW, Borghi E, et al. Development of a WHO growth reference for school-aged children and "
    "adolescents. Bull World Health Organ 2007;85:660-7; cut-offs as in the WHO AnthroPlus manual (Geneva: "
    "WHO, 2009)"};

constexpr unsigned Bit(GrowthIndicator indicator) { return 1u << static_cast<unsigned>(indicator); }

constexpr unsigned kWeightForStature =
    Bit(GrowthIndicator::kWeightForLength) | Bit(GrowthIndicator::kWeightForHeight);
constexpr unsigned kStatureForAge = Bit(GrowthIndicator::kLengthForAge) | Bit(GrowthIndicator::kHeightForAge);
constexpr unsigned kBmi = Bit(GrowthIndicator::kBmiForAge);
constexpr unsigned kWeightForAgeBit = Bit(GrowthIndicator::kWeightForAge);

// One band: z in the interval (lower, upper) with the given inclusivity.
struct Band {
  const BandSystem* system;
  unsigned indicators;  // Bit() mask
  double lower;
  bool lower_inclusive;
  double upper;
  bool upper_inclusive;
  const char* label;
  const char* criterion;
};

// The bands, cited by system (see BandSystem::source). ASPEN's bands include
// their upper end (z -2 to -2.9 is moderate: -2 itself is moderate); WHO's
// are "below -2" and "above +2" (-2 itself is not wasted).
constexpr Band kBands[] = {
    // ASPEN/AND 2014: weight-for-length/height and BMI-for-age z.
    {&kAspen, kWeightForStature | kBmi, -kInf, false, -3, true, "severe malnutrition", "z <= -3"},
    {&kAspen, kWeightForStature | kBmi, -3, false, -2, true, "moderate malnutrition", "-3 < z <= -2 (-2 to -2.9)"},
    {&kAspen, kWeightForStature | kBmi, -2, false, -1, true, "mild malnutrition", "-2 < z <= -1 (-1 to -1.9)"},
    // ASPEN/AND 2014: length/height-for-age z, severe only ("no data" for mild and moderate).
    {&kAspen, kStatureForAge, -kInf, false, -3, true, "severe malnutrition (severe stunting)", "z <= -3"},
    // WHO 2006, under 5 years.
    {&kWhoUnder5, kWeightForStature | kBmi, -kInf, false, -3, false, "severe wasting", "z < -3"},
    {&kWhoUnder5, kWeightForStature | kBmi, -3, true, -2, false, "wasting (moderate)", "-3 <= z < -2"},
    {&kWhoUnder5, kWeightForStature | kBmi, 2, false, 3, true, "overweight", "2 < z <= 3"},
    {&kWhoUnder5, kWeightForStature | kBmi, 3, false, kInf, false, "obesity", "z > 3"},
    {&kWhoUnder5, kWeightForAgeBit, -kInf, false, -3, false, "severely underweight", "z < -3"},
    {&kWhoUnder5, kWeightForAgeBit, -3, true, -2, false, "underweight (moderate)", "-3 <= z < -2"},
    {&kWhoUnder5, kStatureForAge, -kInf, false, -3, false, "severely stunted", "z < -3"},
    {&kWhoUnder5, kStatureForAge, -3, true, -2, false, "stunted (moderate)", "-3 <= z < -2"},
    // WHO 2007, 5-19 years (weight-for-age to 10 years only; no weight-for-height reference).
    {&kWho5To19, kBmi, -kInf, false, -3, false, "severe thinness", "z < -3"},
    {&kWho5To19, kBmi, -3, true, -2, false, "thinness", "-3 <= z < -2"},
    {&kWho5To19, kBmi, 1, false, 2, true, "overweight", "1 < z <= 2"},
    {&kWho5To19, kBmi, 2, false, kInf, false, "obesity", "z > 2"},
    {&kWho5To19, kStatureForAge, -kInf, false, -3, false, "severely stunted", "z < -3"},
    {&kWho5To19, kStatureForAge, -3, true, -2, false, "stunted (moderate)", "-3 <= z < -2"},
    {&kWho5To19, kWeightForAgeBit, -kInf, false, -3, false, "severely underweight", "z < -3"},
    {&kWho5To19, kWeightForAgeBit, -3, true, -2, false, "underweight (moderate)", "-3 <= z < -2"},
};

bool InBand(const Band& band, double z) {
  const bool above_lower = band.lower_inclusive ? z >= band.lower : z > band.lower;
  const bool below_upper = band.upper_inclusive ? z <= band.upper : z < band.upper;
  return above_lower && below_upper;
}

ToolSpec InterpretSpec() {
  ToolSpec spec;
  spec.name = "interpret_zscore_malnutrition";
  spec.description =
      "Grades one growth z-score against published malnutrition cut-offs: the ASPEN/AND 2014 pediatric "
      "consensus (weight-for-length/height and BMI-for-age: -1 to -1.9 mild, -2 to -2.9 moderate, <= -3 severe; "
      "length/height-for-age <= -3 severe) and WHO (under 5 years: < -2 wasting, underweight or stunting, < -3 "
      "severe, > +2 overweight, > +3 obesity; 5-19 years: BMI-for-age < -2 thinness, < -3 severe thinness, > +1 "
      "overweight, > +2 obesity). Pass age_months to get only the bands that apply at that age. Returns "
      "{classifications: [{system, applies_to, band, criterion, source}], notes, caution}. One z-score is one "
      "indicator: a diagnosis needs more than one indicator and a clinical assessment, and the result says so. "
      "Get the z from growth_zscore first. A biologically implausible z is refused, not graded: beyond the WHO "
      "cut-offs (weight_for_age < -6 or > +5, length/height_for_age < -6 or > +6, the others < -5 or > +5), or "
      "flagged by growth_zscore (pass its biologically_implausible).";
  spec.parameters = {
      {"type", "object"},
      {"properties",
       {{"z", {{"type", "number"}, {"description", "The z-score, e.g. from growth_zscore."}}},
        {"indicator",
         {{"type", "string"},
          {"enum", IndicatorEnum()},
          {"description", "The indicator the z-score belongs to."}}},
        {"age_months",
         {{"type", "number"},
          {"minimum", 0},
          {"description", "The child's age in months; selects the WHO under-5 or 5-19 year cut-offs and whether "
                          "ASPEN (1 month to 18 years) applies. Default: all systems are shown, each labelled."}}},
        {"biologically_implausible",
         {{"type", "boolean"},
          {"description", "growth_zscore's biologically_implausible for this z; true is refused (the measurement "
                          "must be re-checked, not graded). Default: false."}}},
        // Seed 002 calls this tool as interpret_zscore_malnutrition({"zscore": -1.88,
        // "measurement_type": "weight-for-height"}): its names are accepted too.
        {"zscore", {{"type", "number"}, {"description", "Another name for z (seed 002's)."}}},
        {"measurement_type",
         {{"type", "string"},
          {"description", "Another name for indicator (seed 002's), hyphens allowed: 'weight-for-height', "
                          "'bmi-for-age', ..."}}}}},
      {"allOf",
       {{{"anyOf", {{{"required", {"z"}}}, {{"required", {"zscore"}}}}}},
        {{"anyOf", {{{"required", {"indicator"}}}, {{"required", {"measurement_type"}}}}}}}},
      {"additionalProperties", false}};
  return spec;
}

// z or seed 002's zscore; the indicator or seed 002's measurement_type
// ("weight-for-height" → weight_for_height). Both names with different values: an error.
Result<std::pair<double, std::string>> InterpretInputs(const Json& args) {
  if (args.contains("z") && args.contains("zscore") && args["z"] != args["zscore"]) {
    return Status::InvalidArgument("give the z-score once: z and zscore differ");
  }
  const double z = args.contains("z") ? args.value("z", std::nan("")) : args.value("zscore", std::nan(""));
  std::string indicator = args.value("indicator", "");
  if (args.contains("measurement_type")) {
    std::string named = AsciiLower(args.value("measurement_type", ""));
    std::replace_if(named.begin(), named.end(), [](char c) { return c == '-' || c == ' '; }, '_');
    if (!indicator.empty() && indicator != named) {
      return Status::InvalidArgument("give the indicator once: indicator and measurement_type differ");
    }
    indicator = named;
  }
  return std::make_pair(z, indicator);
}

ToolResult RunInterpret(const Json& args) {
  Result<std::pair<double, std::string>> inputs = InterpretInputs(args);
  if (!inputs.ok()) return ToolResult::Error(inputs.status().message());
  const double z = inputs->first;
  if (!std::isfinite(z)) return ToolResult::Error("/z must be a finite number");
  const auto indicator = ParseGrowthIndicator(inputs->second);
  if (!indicator) return ToolResult::Error("/indicator is not a known indicator");
  const auto age = OptionalNumber(args, "age_months");
  if (age && (!std::isfinite(*age) || *age < 0)) {
    return ToolResult::Error("/age_months must be the age since birth, 0 or more, got " + Format("%g", *age));
  }
  // Biologically implausible values are not graded (growth_plausibility.h).
  const auto [low, high] = WhoBivLimits(*indicator);
  const bool flagged = args.value("biologically_implausible", false);
  if (flagged || z < low || z > high) {
    const std::string why =
        flagged ? "growth_zscore flagged it as biologically implausible"
                : "it is beyond the WHO cut-off for biologically implausible values (z " +
                      (z < low ? "< " + SignedLimit(low) : "> " + SignedLimit(high)) + " for " +
                      GrowthIndicatorName(*indicator) + "; WHO Anthro and AnthroPlus software manuals)";
    return ToolResult::Error("z = " + FormatZ(z) + " is not graded: " + why + ". Such a value is almost always a "
                             "measurement or entry error, not a child: re-check the measurement and its unit (g vs "
                             "kg, lb vs kg, mm vs cm, m vs cm), the age and the sex, recompute with growth_zscore, "
                             "and report the value as implausible rather than as a malnutrition grade.");
  }

  Json classifications = Json::array();
  Json notes = Json::array();
  for (const BandSystem* system : {&kAspen, &kWhoUnder5, &kWho5To19}) {
    const std::string label = std::string(system->name) + " (" + system->applies_to + ")";
    if (age && (*age < system->min_age_months || *age >= system->max_age_months)) continue;
    bool has_bands = false;
    const Band* match = nullptr;
    for (const Band& band : kBands) {
      if (band.system != system || !(band.indicators & Bit(*indicator))) continue;
      has_bands = true;
      if (InBand(band, z)) match = &band;
    }
    if (!has_bands) {
      notes.push_back(label + " has no band for " + GrowthIndicatorName(*indicator) + ".");
      continue;
    }
    classifications.push_back({{"system", system->name},
                               {"applies_to", system->applies_to},
                               {"band", match ? match->label : "none (outside this system's bands)"},
                               {"criterion", match ? match->criterion : ""},
                               {"source", system->source}});
  }
  if (!age) notes.push_back("No age_months given: every system is shown; use the one for the child's age.");
  if (age && *age > 228) notes.push_back("WHO child cut-offs end at 19 years; adult BMI categories apply after.");
  if (*indicator == GrowthIndicator::kHeadCircumferenceForAge) {
    notes.push_back("Head circumference-for-age is not a malnutrition indicator; a z below -2 or above +2 is "
                    "usually read as micro- or macrocephaly.");
  }
  if (*indicator == GrowthIndicator::kWeightForAge) {
    notes.push_back("Weight-for-age cannot tell thin from short; prefer weight-for-length/height or BMI-for-age.");
  }
  Json result = {{"z", z},
                 {"indicator", GrowthIndicatorName(*indicator)},
                 {"classifications", classifications},
                 {"notes", notes},
                 {"caution", kDiagnosisCaution}};
  if (age) result["age_months"] = *age;
  return ToolResult::OkJson(result);
}

}  // namespace

std::vector<std::string> GrowthPackToolNames() {
  return {"growth_zscore", "percentile_to_zscore", "zscore_to_percentile", "interpret_zscore_malnutrition"};
}

Status RegisterGrowthPack(ToolRegistry& registry) {
  for (const std::string& name : GrowthPackToolNames()) {
    if (registry.Find(name)) return Status::InvalidArgument("growth pack: tool '" + name + "' is already registered");
  }
  auto wrap = [](ToolResult (*run)(const Json&)) {
    return [run](const Json& args, const ToolContext&) { return run(args); };
  };
  std::pair<ToolSpec, ToolResult (*)(const Json&)> tools[] = {
      {ZscoreSpec(), RunZscore},
      {PercentileToZSpec(), RunPercentileToZ},
      {ZToPercentileSpec(), RunZToPercentile},
      {InterpretSpec(), RunInterpret},
  };
  for (auto& [spec, run] : tools) {
    if (Status s = registry.Register(MakeFunctionTool(std::move(spec), wrap(run))); !s.ok()) {
      return s.WithContext("growth pack");
    }
  }
  return Status::OK();
}

}  // namespace medreact
