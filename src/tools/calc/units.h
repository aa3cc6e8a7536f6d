// Units for the calculator pack: each numeric input has a Dimension with one
// canonical unit (the unit the published formula uses) and the alternative
// spellings and units clinicians and notes use, converted on the way in.
//
//   Result<double> mg_dl = ToCanonical(Dimension::kCreatinine, 88.4, "µmol/L");  // 1.0
//
// Unit strings are matched after normalisation: case, spaces, "µ"/"μ"/"mc"
// → "u", "per" → "/", plural and common misspellings ("lbs", "msec",
// "degrees celsisus"). Molar ↔ mass conversions are analyte-specific and use
// the molar masses cited in units.cc.
#ifndef MEDREACT_TOOLS_CALC_UNITS_H_
#define MEDREACT_TOOLS_CALC_UNITS_H_

#include <string>
#include <string_view>
#include <vector>

#include "medreact/status.h"

namespace medreact::calc {

enum class Dimension {
  kNone,           // a unitless number (score item, ratio, INR, pH)
  kMass,           // kg
  kLength,         // cm
  kTemperature,    // °C
  kAge,            // years
  kDuration,       // ms (ECG intervals)
  kRate,           // /min (heart rate, respiratory rate)
  kPressure,       // mmHg
  kPercent,        // % (a fraction 0-1 given without unit stays as given)
  kElectrolyte,    // mmol/L (= mEq/L for monovalent ions: Na, K, Cl, HCO3)
  kCreatinine,     // mg/dL
  kUrea,           // mg/dL of urea nitrogen (BUN)
  kGlucose,        // mg/dL
  kCalcium,        // mg/dL
  kBilirubin,      // mg/dL
  kAlbumin,        // g/dL
  kHemoglobin,     // g/dL
  kCholesterol,    // mg/dL (total, HDL, LDL)
  kTriglycerides,  // mg/dL
  kInsulin,        // µIU/mL
  kCellCount,      // 10^3/µL (= 10^9/L): platelets, white cells
  kEnzyme,         // U/L (AST, ALT)
  kDose,           // mg
  kBmi,            // kg/m²
  kInfusionRate,   // µg/kg/min (vasoactive drug doses)
  kUrineOutput,    // mL/day
  kDoseRate,       // µg/h (transdermal patches: fentanyl)
};

// The canonical unit's display string, e.g. "mg/dL"; "" for kNone.
std::string CanonicalUnit(Dimension dimension);

// The accepted unit spellings (for schemas and error messages), canonical first.
std::vector<std::string> AcceptedUnits(Dimension dimension);

// Converts `value` in `unit` to the canonical unit. An empty unit means the
// canonical one. InvalidArgument naming the accepted units when `unit` is not
// one of them.
Result<double> ToCanonical(Dimension dimension, double value, std::string_view unit);

// The normalised form used for matching ("µmol/L" → "umol/l").
std::string NormalizeUnit(std::string_view unit);

}  // namespace medreact::calc

#endif  // MEDREACT_TOOLS_CALC_UNITS_H_
