// The calculator pack's building blocks (issue 4): a calculator is data — its
// inputs with units, its citation — plus a pure compute function. From that
// one definition come the tool's JSON Schema, unit conversion, the
// missing-input error, and the result shape:
//
//   {"calculator": name, "value": 72.4, "unit": "mL/min", "terms": {...},
//    "explanation": "one line", "interpretation": "...", "citation": "...",
//    "inputs": {canonical inputs used}}
//
// A numeric argument is a number in the canonical unit, or {"value": x,
// "unit": "µmol/L"} in any accepted unit (units.h). Booleans that are score
// criteria default to false (absent) when not given; every other input is
// required unless declared optional, and missing ones are named in one error
// so the model can look them up or ask.
#ifndef MEDREACT_TOOLS_CALC_CALCULATOR_H_
#define MEDREACT_TOOLS_CALC_CALCULATOR_H_

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "medreact/json.h"
#include "medreact/status.h"
#include "tools/calc/units.h"

namespace medreact::calc {

enum class InputType {
  kNumber,   // a measurement (Dimension gives its unit) or a unitless number
  kInteger,  // a count (e.g. drinks per week, cycle length in days)
  kBoolean,  // a criterion present or absent
  kChoice,   // one of `choices` (e.g. "none", "mild", "moderate")
  kDate,     // "YYYY-MM-DD" (MM/DD/YYYY also accepted)
  kSex,      // "male" | "female" (case-insensitive; "M"/"F" accepted)
};

struct CalcInput {
  std::string name;          // the argument name, snake_case
  InputType type = InputType::kNumber;
  std::string description;   // what it is; the unit is added automatically
  Dimension dimension = Dimension::kNone;
  std::vector<std::string> choices;  // kChoice, lower case
  bool required = true;      // kBoolean inputs are never required (absent = false)
  // Plausible range in the canonical unit; outside → an error suggesting a
  // unit mistake. Unset = no check.
  std::optional<double> min, max;
  // Other names for this input, used when mapping free-form entity names
  // (e.g. MedCalc-Bench's "Heart Rate or Pulse") to it. Lower case.
  std::vector<std::string> aliases;
};

// Validated, converted arguments handed to a compute function.
class CalcArgs {
 public:
  bool Has(const std::string& name) const { return values_.contains(name); }
  double Number(const std::string& name) const;      // kNumber/kInteger, canonical unit
  int Integer(const std::string& name) const;
  bool Flag(const std::string& name) const;          // kBoolean; false when absent
  const std::string& Choice(const std::string& name) const;  // kChoice / kSex, lower case
  bool IsFemale() const { return Choice("sex") == "female"; }
  std::chrono::sys_days Date(const std::string& name) const;
  // Numbers with a default when absent (optional inputs).
  double NumberOr(const std::string& name, double fallback) const {
    return Has(name) ? Number(name) : fallback;
  }
  const Json& values() const { return values_; }  // canonical inputs, for the result
  Json& mutable_values() { return values_; }

 private:
  Json values_ = Json::object();
};

struct CalcOutput {
  double value = 0;
  std::string unit;             // "" for scores
  std::string text;             // non-numeric answers (dates "YYYY-MM-DD", "(weeks, days)")
  Json terms = Json::object();  // intermediate terms / points per criterion
  std::string explanation;      // one line: the formula with the numbers
  std::string interpretation;   // band or meaning, with its source, when one exists
};

struct Calculator {
  std::string name;         // tool name, snake_case
  std::string title;        // e.g. "Creatinine Clearance (Cockcroft-Gault)"
  std::string description;  // what it computes and when to use it
  std::string citation;     // the published formula
  int medcalc_id = 0;       // MedCalc-Bench "Calculator ID"; 0 when not in the benchmark
  std::vector<CalcInput> inputs;
  std::function<Result<CalcOutput>(const CalcArgs&)> compute;
};

// Every calculator, in a stable order. Each group file (calc_*.cc) adds its own.
const std::vector<Calculator>& AllCalculators();
const Calculator* FindCalculator(const std::string& name);
const Calculator* FindCalculatorByMedcalcId(int id);

// The tool's JSON Schema (object; units in descriptions; anyOf number |
// {value, unit} for measurements; enum for choices).
Json CalculatorSchema(const Calculator& calculator);

// Checks and converts `args` (already schema-valid or not: this re-checks),
// then computes. Errors: missing inputs (all named), unknown units, values
// out of the plausible range, bad dates or choices, compute failures (e.g.
// division by zero). The result JSON is the shape documented above.
Result<Json> RunCalculator(const Calculator& calculator, const Json& args);

// Converts arguments only (used by RunCalculator and by the benchmark mapper).
Result<CalcArgs> PrepareArgs(const Calculator& calculator, const Json& args);

// Rounds for display in explanations: `digits` decimals, trailing zeros trimmed.
std::string Num(double value, int digits = 2);

// Group registration hooks (one per calc_*.cc file), called by AllCalculators.
void AddRenalCalculators(std::vector<Calculator>& out);         // calc_renal.cc
void AddBodyCalculators(std::vector<Calculator>& out);          // calc_body.cc: BMI, BSA, weights, MAP, QTc, fluids
void AddChemistryCalculators(std::vector<Calculator>& out);     // calc_chemistry.cc: gaps, osmolality, corrections, LDL...
void AddDateDoseCalculators(std::vector<Calculator>& out);      // calc_dates_doses.cc: pregnancy dates, steroids, MME
void AddRiskScoreCalculators(std::vector<Calculator>& out);     // calc_scores.cc: CHA2DS2-VASc, Wells, HEART, ...
void AddAcuteScoreCalculators(std::vector<Calculator>& out);    // calc_scores_acute.cc: CURB-65, SIRS, Charlson, ...
void AddSeverityScoreCalculators(std::vector<Calculator>& out); // calc_severity.cc: APACHE II, SOFA, PSI, ...

}  // namespace medreact::calc

#endif  // MEDREACT_TOOLS_CALC_CALCULATOR_H_
