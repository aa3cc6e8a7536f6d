// NoteFacts: the anthropometric facts the offline extraction planner reads
// from a clinical note with explicit patterns — age (stated the ways
// clinicians write it, or from a date of birth and a visit date), sex,
// current weight and height or length, the weights of earlier dates, BMI,
// usual weight and weight loss, intake as a share of needs, and stated
// percentiles and z-scores with the indicator they belong to.
//
// This is pattern matching, not understanding: English only, one patient per
// note, the first current value of each kind wins, except weights with dates,
// which are ordered by date (the latest is current; note_history.cc). Ages of
// infants born before 37 weeks are corrected to 24 months (note_age.cc);
// intake and disease phrases are read in note_criteria.cc. What it will not do:
//   - guess an age. When no age is written (and no date of birth with a visit
//     date), age_months stays empty; words like "infant" or "toddler" give
//     an age band (age_min_months/age_max_months) and the population, never
//     an age. Ages that disagree (a stated age against the dates) are a
//     problem, and the age is left empty.
//   - take a historical value for a current one. A weight whose clause says
//     when it was taken in the past ("6 months ago", "at the last visit",
//     "usual", "at birth") is a WeightPoint in weight_history.
//   - take a number without its unit. "Wt 12" is not read, and is listed in
//     `unusable` (so the planner never answers "no malnutrition" over it).
// The numbers in patterns are bounded ({1,5} digits), so a hostile 4 MiB
// note cannot drive std::regex's recursive matcher deep. Pure function;
// thread-safe.
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

// A weight from before the visit: "weight 6 months ago was 12.6 kg",
// "usual weight 74 kg", "birth weight 3.2 kg".
struct WeightPoint {
  double kg = 0;
  std::optional<double> months_ago;  // when the note says; 0 < months_ago
  bool at_birth = false;             // a birth weight: never a baseline for weight loss
  bool usual = false;                // "usual", "baseline", "premorbid", "previous" (no date)
  bool dated = false;                // placed by a date, a month or a visit age ("in May", "at the 12-month visit")
  std::string quote;
};

enum class Population { kUnknown, kPediatric, kAdult };

// "pediatric", "adult", "unknown".
const char* PopulationName(Population population);

struct NoteFacts {
  // Age in months since birth, when the note states it or gives a date of
  // birth and a visit date; years and months add ("3 year 2 month" = 38).
  std::optional<double> age_months;
  std::string age_quote;                  // the words it was read from
  std::optional<double> age_min_months;   // a band from a word ("infant": 0-12), when no age
  std::optional<double> age_max_months;
  std::string age_word;                   // "infant", "toddler", "woman", ...
  // Born before 37 weeks and under 24 months: age_months is the corrected
  // age (chronological minus the weeks born before 40), the chronological
  // age is kept here, and gestational_weeks says how early.
  std::optional<double> gestational_weeks;
  std::optional<double> chronological_age_months;
  std::string gestation_quote;            // "ex-28 weeker", "born at 30 weeks", "ga 29 wks"
  std::string sex;                        // "male", "female" or ""
  std::optional<double> weight_kg;        // current weight (g, lb and oz converted)
  std::optional<double> height_cm;        // current height or length (m, mm, in, ft converted)
  // How the stature was measured: "length" (recumbent), "height" (standing)
  // or "" when the note does not say.
  std::string stature_measure;
  std::optional<double> head_circumference_cm;
  std::optional<double> bmi;              // stated BMI (kg/m²)
  std::vector<WeightPoint> weight_history;
  std::optional<double> usual_weight_kg;  // the baseline weight loss is measured from
  std::optional<double> weight_loss_percent;  // stated, or from the baseline and the current weight
  std::optional<double> weight_loss_months;   // over how long, when known
  std::optional<double> intake_percent;       // "about 40% of estimated needs"
  std::string intake_quote;                   // the words matched ("less than 50% of his usual intake")
  std::optional<double> intake_weeks;         // how long intake has been low
  bool inflammation = false;              // acute or chronic disease with inflammation named
  std::string inflammation_quote;         // "acute: pna", "chronic: squamous cell carcinoma", ...
  std::vector<StatedScore> percentiles;
  std::vector<StatedScore> zscores;
  std::vector<std::string> problems;      // what could not be read safely, one sentence each
  // Numbers next to a measurement that could not be used (an unknown or
  // misspelt unit, a value without its unit or label, a date that could not
  // be placed), one sentence each naming what to re-check. A reading with
  // one of these is incomplete: it never gives "no malnutrition".
  std::vector<std::string> unusable;
  // Weight loss named without an amount or weights to compute it from ("has
  // lost weight", "ongoing weight loss"), not negated: a criterion the
  // reading could not evaluate.
  bool weight_loss_unquantified = false;

  // Pediatric: under 18 years (ASPEN/AND's range; GLIM applies from 18), or a
  // child word whose band ends by 18 and no age. Adult: 18 years or more, or
  // an adult word and no age. Unknown otherwise.
  Population population() const;
  bool pediatric() const { return population() == Population::kPediatric; }
  // The age band the note allows: the age itself, else the word's band.
  bool AgeSurelyUnder(double months) const;
  bool AgeSurelyAtLeast(double months) const;
};

NoteFacts ReadNoteFacts(std::string_view note);

// The growth indicator named in `text` nearest to its end ("" when none):
// "weight-for-length" → weight_for_length, "BMI" → bmi_for_age, "WHZ" →
// weight_for_height, ...
std::string IndicatorNamedIn(std::string_view text);

}  // namespace medreact

#endif  // MEDREACT_APPS_EXTRACT_NOTE_FACTS_H_
