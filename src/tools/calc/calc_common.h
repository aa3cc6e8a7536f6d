// What the calculator group files (calc_*.cc) share: constructors for the
// common inputs (age, sex, vital signs), so that their names, units,
// plausible ranges and MedCalc-Bench aliases agree everywhere, and Tally, the
// point-by-point adder of the scores.
// Ranges are wide on purpose: they catch unit mistakes (a temperature of 98
// read as °C), not abnormal patients (a heart rate of 0 in cardiac arrest).
#ifndef MEDREACT_TOOLS_CALC_CALC_COMMON_H_
#define MEDREACT_TOOLS_CALC_CALC_COMMON_H_

#include <string>
#include <utility>
#include <vector>

#include "tools/calc/calculator.h"

namespace medreact::calc {

// A score criterion: present or absent (absent = false, never required).
inline CalcInput Criterion(std::string name, std::string description, std::vector<std::string> aliases = {}) {
  return {.name = std::move(name), .type = InputType::kBoolean, .description = std::move(description),
          .required = false, .aliases = std::move(aliases)};
}

// A measurement in `dimension`'s canonical unit, plausible in [min, max].
inline CalcInput Measurement(std::string name, std::string description, Dimension dimension, double min, double max,
                             std::vector<std::string> aliases, bool required = true) {
  return {.name = std::move(name), .description = std::move(description), .dimension = dimension,
          .required = required, .min = min, .max = max, .aliases = std::move(aliases)};
}

// One of `choices` (lower case).
inline CalcInput Pick(std::string name, std::string description, std::vector<std::string> choices,
                      std::vector<std::string> aliases, bool required = true) {
  return {.name = std::move(name), .type = InputType::kChoice, .description = std::move(description),
          .choices = std::move(choices), .required = required, .aliases = std::move(aliases)};
}

inline CalcInput AgeInput() { return Measurement("age", "Age.", Dimension::kAge, 0, 130, {"age"}); }

inline CalcInput SexInput() {
  return {.name = "sex", .type = InputType::kSex, .description = "Sex.", .aliases = {"sex", "gender"}};
}

inline CalcInput HeartRateInput() {
  return Measurement("heart_rate", "Heart rate (pulse).", Dimension::kRate, 0, 300,
                     {"heart rate or pulse", "heart rate", "pulse"});
}

inline CalcInput SystolicInput(bool required = true) {
  return Measurement("systolic_bp", "Systolic blood pressure.", Dimension::kPressure, 0, 300,
                     {"systolic blood pressure", "sbp"}, required);
}

inline CalcInput RespiratoryRateInput() {
  return Measurement("respiratory_rate", "Respiratory rate.", Dimension::kRate, 0, 100, {"respiratory rate", "rr"});
}

inline CalcInput TemperatureInput() {
  return Measurement("temperature", "Body temperature.", Dimension::kTemperature, 15, 46, {"temperature", "temp"});
}

// Adds up a score item by item: `terms` gets every item's points, the
// explanation lists those that scored.
class Tally {
 public:
  explicit Tally(std::string score) : score_(std::move(score)) {}

  void Add(const std::string& key, double points, const std::string& label) {
    out_.terms[key] = points;
    total_ += points;
    if (points != 0) parts_ += (parts_.empty() ? "" : ", ") + label + " " + (points > 0 ? "+" : "") + Num(points, 1);
  }
  // Records an intermediate value (not points) in `terms`.
  void Note(const std::string& key, const Json& value) { out_.terms[key] = value; }
  double total() const { return total_; }

  CalcOutput Finish(std::string interpretation, std::string unit = "") {
    out_.value = total_;
    out_.unit = std::move(unit);
    out_.explanation = score_ + ": " + (parts_.empty() ? "nothing scored" : parts_) + " = " + Num(total_, 1);
    out_.interpretation = std::move(interpretation);
    return std::move(out_);
  }

 private:
  std::string score_;
  std::string parts_;
  double total_ = 0;
  CalcOutput out_;
};

inline int Pts(bool present, int points) { return present ? points : 0; }

}  // namespace medreact::calc

#endif  // MEDREACT_TOOLS_CALC_CALC_COMMON_H_
