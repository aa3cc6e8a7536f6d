// NoteFacts: the anthropometric facts the offline extraction planner reads
// from a clinical note with explicit patterns — age, sex, weight, height or
// length, BMI, usual weight and weight loss, intake as a share of needs,
// stated percentiles and z-scores with the indicator they belong to.
//
// This is pattern matching, not understanding: English only, one patient per
// note, the first value of each kind wins (notes usually give the current
// measurement first), and negation is not detected ("no weight loss" yields
// no weight-loss fact only because no number follows). The planner says so
// in its result. Pure function; thread-safe.
#ifndef MEDREACT_APPS_EXTRACT_NOTE_FACTS_H_
#define MEDREACT_APPS_EXTRACT_NOTE_FACTS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace medreact {

struct StatedScore {
  double value = 0;       // a percentile (0-100) or a z-score
  std::string indicator;  // growth indicator name (growth_zscore's enum), "" when the note does not say
  std::string quote;      // the words matched, for the evidence
};

struct NoteFacts {
  std::optional<double> age_months;       // "3-year-old", "18 months old", "aged 70"
  std::string sex;                        // "male", "female" or ""
  std::optional<double> weight_kg;        // current weight (g and lb converted)
  std::optional<double> height_cm;        // height or length (m, in converted)
  bool recumbent_length = false;          // the note says "length" (infants)
  std::optional<double> bmi;              // stated BMI (kg/m²)
  std::optional<double> usual_weight_kg;  // "usual weight 74 kg", "from 74 kg to 64 kg"
  std::optional<double> weight_loss_percent;  // stated, or from usual and current weight
  std::optional<double> weight_loss_months;   // "over 5 months", "in the past 6 weeks"
  std::optional<double> intake_percent;       // "about 40% of estimated needs"
  std::string intake_quote;                   // the words matched ("less than 50% of his usual intake")
  std::optional<double> intake_weeks;         // how long intake has been low
  bool inflammation = false;              // acute or chronic disease with inflammation named
  std::string inflammation_quote;
  std::vector<StatedScore> percentiles;
  std::vector<StatedScore> zscores;

  bool pediatric() const { return age_months && *age_months < 240; }  // under 20 years
};

NoteFacts ReadNoteFacts(std::string_view note);

// The growth indicator named in `text` nearest to its end ("" when none):
// "weight-for-length" → weight_for_length, "BMI" → bmi_for_age, ...
std::string IndicatorNamedIn(std::string_view text);

}  // namespace medreact

#endif  // MEDREACT_APPS_EXTRACT_NOTE_FACTS_H_
