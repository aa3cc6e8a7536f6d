#include "tools/calc/units.h"

#include <cctype>
#include <functional>

namespace medreact::calc {
namespace {

// One accepted unit: its display spelling, the normalised spellings that
// mean it, and the conversion to the canonical unit.
struct UnitRule {
  std::string display;
  std::vector<std::string> spellings;  // normalised (see NormalizeUnit)
  std::function<double(double)> to_canonical;
};

std::function<double(double)> Times(double factor) {
  return [factor](double v) { return v * factor; };
}

const std::function<double(double)> kSame = [](double v) { return v; };

// Molar masses and factors (g/mol): creatinine 113.12 (1 mg/dL = 88.42 µmol/L);
// urea nitrogen 28.014 (1 mmol/L urea = 2.801 mg/dL BUN); glucose 180.16
// (1 mmol/L = 18.016 mg/dL); calcium 40.08 (1 mmol/L = 4.008 mg/dL, 1 mEq/L =
// 2.004 mg/dL); bilirubin 584.66 (1 mg/dL = 17.1 µmol/L); cholesterol 386.65
// (1 mmol/L = 38.67 mg/dL); triglycerides as triolein 885.4 (1 mmol/L = 88.57
// mg/dL); haemoglobin per haem 16,114 (1 mmol/L = 1.611 g/dL); insulin
// 1 µIU/mL = 6.00 pmol/L (Heinemann L, Diabetes Care 2010;33:e83). Sources:
// AMA Manual of Style SI conversion table; IUPAC-IFCC recommendations.
const std::vector<UnitRule>& Rules(Dimension d) {
  static const std::vector<UnitRule> kNone = {};
  static const std::vector<UnitRule> kMass = {
      {"kg", {"kg", "kgs", "kilogram", "kilograms"}, kSame},
      {"g", {"g", "gram", "grams"}, Times(0.001)},
      {"lb", {"lb", "lbs", "pound", "pounds"}, Times(0.45359237)},
      {"oz", {"oz", "ounce", "ounces"}, Times(0.028349523125)}};
  static const std::vector<UnitRule> kLength = {
      {"cm", {"cm", "centimeter", "centimeters", "centimetre", "centimetres"}, kSame},
      {"m", {"m", "meter", "meters", "metre", "metres"}, Times(100.0)},
      {"mm", {"mm", "millimeter", "millimeters"}, Times(0.1)},
      {"in", {"in", "inch", "inches", "\""}, Times(2.54)},
      {"ft", {"ft", "foot", "feet", "'"}, Times(30.48)}};
  static const std::vector<UnitRule> kTemperature = {
      {"°C", {"c", "°c", "degc", "celsius", "degreescelsius", "degreecelsius", "degreescelsisus", "degreescelcius"},
       kSame},
      {"°F", {"f", "°f", "degf", "fahrenheit", "degreesfahrenheit", "degreefahrenheit", "degreesfarenheit",
            "degreesfahreinheit"},
       [](double v) { return (v - 32.0) * 5.0 / 9.0; }},
      {"K", {"k", "kelvin"}, [](double v) { return v - 273.15; }}};
  static const std::vector<UnitRule> kAge = {
      {"years", {"years", "year", "yr", "yrs", "y", "yo", "yearsold"}, kSame},
      {"months", {"months", "month", "mo", "mos"}, Times(1.0 / 12.0)},
      {"weeks", {"weeks", "week", "wk", "wks"}, Times(7.0 / 365.25)},
      {"days", {"days", "day", "d"}, Times(1.0 / 365.25)}};
  static const std::vector<UnitRule> kDuration = {
      {"ms", {"ms", "msec", "msecs", "millisecond", "milliseconds"}, kSame},
      {"s", {"s", "sec", "secs", "second", "seconds"}, Times(1000.0)}};
  static const std::vector<UnitRule> kRate = {
      {"/min", {"/min", "bpm", "beats/min", "beats/minute", "beat/min", "breaths/min", "breaths/minute",
                "breath/min", "/minute", "rpm"},
       kSame}};
  static const std::vector<UnitRule> kPressure = {
      {"mmHg", {"mmhg", "torr"}, kSame},
      {"kPa", {"kpa"}, Times(7.500615758)},
      {"cmH2O", {"cmh2o"}, Times(0.7355592)}};
  static const std::vector<UnitRule> kPercent = {{"%", {"%", "pct"}, kSame}};
  static const std::vector<UnitRule> kElectrolyte = {
      {"mmol/L", {"mmol/l", "meq/l", "mm/l", "mmol"}, kSame}};
  static const std::vector<UnitRule> kCreatinine = {
      {"mg/dL", {"mg/dl"}, kSame}, {"µmol/L", {"umol/l", "mmol/m3"}, Times(1.0 / 88.42)},
      {"mmol/L", {"mmol/l"}, Times(1000.0 / 88.42)}};
  static const std::vector<UnitRule> kUrea = {
      {"mg/dL", {"mg/dl"}, kSame}, {"mmol/L", {"mmol/l"}, Times(2.801)}};
  static const std::vector<UnitRule> kGlucose = {
      {"mg/dL", {"mg/dl"}, kSame}, {"mmol/L", {"mmol/l"}, Times(18.016)}};
  static const std::vector<UnitRule> kCalcium = {
      {"mg/dL", {"mg/dl"}, kSame}, {"mmol/L", {"mmol/l"}, Times(4.008)}, {"mEq/L", {"meq/l"}, Times(2.004)}};
  static const std::vector<UnitRule> kBilirubin = {
      {"mg/dL", {"mg/dl"}, kSame}, {"µmol/L", {"umol/l"}, Times(1.0 / 17.1)}};
  static const std::vector<UnitRule> kAlbumin = {
      {"g/dL", {"g/dl"}, kSame}, {"g/L", {"g/l"}, Times(0.1)}, {"mg/dL", {"mg/dl"}, Times(0.001)}};
  static const std::vector<UnitRule> kHemoglobin = {
      {"g/dL", {"g/dl"}, kSame}, {"g/L", {"g/l"}, Times(0.1)}, {"mmol/L", {"mmol/l"}, Times(1.611)}};
  static const std::vector<UnitRule> kCholesterol = {
      {"mg/dL", {"mg/dl"}, kSame}, {"mmol/L", {"mmol/l"}, Times(38.67)}};
  static const std::vector<UnitRule> kTriglycerides = {
      {"mg/dL", {"mg/dl"}, kSame}, {"mmol/L", {"mmol/l"}, Times(88.57)}};
  static const std::vector<UnitRule> kInsulin = {
      {"µIU/mL", {"uiu/ml", "uu/ml", "miu/l", "uui/ml", "uunits/ml", "uiu/l*1000"}, kSame},
      {"pmol/L", {"pmol/l"}, Times(1.0 / 6.0)}};
  static const std::vector<UnitRule> kCellCount = {
      {"10^3/µL", {"10^3/ul", "10^9/l", "x10^3/ul", "x10^9/l", "k/ul", "10e3/ul", "10e9/l", "thousand/ul",
                   "10³/ul", "10⁹/l", "x10³/ul", "x10⁹/l", "giga/l"},
       kSame},
      {"/µL", {"/ul", "ul", "cells/ul", "/mm3", "mm3", "cells/mm3", "/mm^3", "count/ul",
                "m^3", "/m^3"},  // MedCalc-Bench writes "m^3" for mm^3; no count is given per cubic metre
       Times(0.001)},
      {"/mL", {"/ml", "ml", "cells/ml", "count/ml", "cm^3", "/cm^3", "cm3"}, Times(1e-6)},
      {"/L", {"/l", "cells/l", "l", "count/l"}, Times(1e-9)}};
  static const std::vector<UnitRule> kEnzyme = {{"U/L", {"u/l", "iu/l", "units/l", "unit/l"}, kSame}};
  static const std::vector<UnitRule> kDose = {
      {"mg", {"mg", "milligram", "milligrams"}, kSame},
      {"µg", {"ug", "microgram", "micrograms"}, Times(0.001)},
      {"g", {"g", "gram", "grams"}, Times(1000.0)}};
  static const std::vector<UnitRule> kBmi = {{"kg/m²", {"kg/m2", "kg/m^2", "kg/m²"}, kSame}};
  static const std::vector<UnitRule> kInfusionRate = {
      {"µg/kg/min", {"ug/kg/min", "mc/kg/min", "ug/kg/minute"}, kSame},
      {"mg/kg/min", {"mg/kg/min"}, Times(1000.0)},
      {"µg/kg/h", {"ug/kg/h", "ug/kg/hr", "ug/kg/hour"}, Times(1.0 / 60.0)}};
  static const std::vector<UnitRule> kUrineOutput = {
      {"mL/day", {"ml/day", "ml/d", "ml/24h", "ml/24hr", "ml/24hours"}, kSame},
      {"L/day", {"l/day", "l/d", "l/24h", "l/24hr"}, Times(1000.0)},
      {"mL/h", {"ml/h", "ml/hr", "ml/hour"}, Times(24.0)}};
  static const std::vector<UnitRule> kDoseRate = {
      {"µg/h", {"ug/h", "ug/hr", "ug/hour", "ug/hours"}, kSame},
      {"mg/h", {"mg/h", "mg/hr", "mg/hour"}, Times(1000.0)}};
  switch (d) {
    case Dimension::kNone: return kNone;
    case Dimension::kMass: return kMass;
    case Dimension::kLength: return kLength;
    case Dimension::kTemperature: return kTemperature;
    case Dimension::kAge: return kAge;
    case Dimension::kDuration: return kDuration;
    case Dimension::kRate: return kRate;
    case Dimension::kPressure: return kPressure;
    case Dimension::kPercent: return kPercent;
    case Dimension::kElectrolyte: return kElectrolyte;
    case Dimension::kCreatinine: return kCreatinine;
    case Dimension::kUrea: return kUrea;
    case Dimension::kGlucose: return kGlucose;
    case Dimension::kCalcium: return kCalcium;
    case Dimension::kBilirubin: return kBilirubin;
    case Dimension::kAlbumin: return kAlbumin;
    case Dimension::kHemoglobin: return kHemoglobin;
    case Dimension::kCholesterol: return kCholesterol;
    case Dimension::kTriglycerides: return kTriglycerides;
    case Dimension::kInsulin: return kInsulin;
    case Dimension::kCellCount: return kCellCount;
    case Dimension::kEnzyme: return kEnzyme;
    case Dimension::kDose: return kDose;
    case Dimension::kBmi: return kBmi;
    case Dimension::kInfusionRate: return kInfusionRate;
    case Dimension::kUrineOutput: return kUrineOutput;
    case Dimension::kDoseRate: return kDoseRate;
  }
  return kNone;
}

}  // namespace

std::string NormalizeUnit(std::string_view unit) {
  std::string s;
  for (size_t i = 0; i < unit.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(unit[i]);
    // µ (U+00B5, C2 B5) and μ (U+03BC, CE BC) → u
    if (i + 1 < unit.size() && ((c == 0xC2 && static_cast<unsigned char>(unit[i + 1]) == 0xB5) ||
                                (c == 0xCE && static_cast<unsigned char>(unit[i + 1]) == 0xBC))) {
      s += 'u';
      ++i;
      continue;
    }
    if (std::isspace(c) || c == '.' || c == '_') continue;
    s += static_cast<char>(std::tolower(c));
  }
  // "per" → "/", "mc" prefix (mcg, mcmol) → "u", "liter(s)" → "l", "deciliter" → "dl".
  auto replace_all = [&s](const std::string& from, const std::string& to) {
    for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
      s.replace(pos, from.size(), to);
    }
  };
  replace_all("percent", "%");
  replace_all("per", "/");
  replace_all("deciliters", "dl");
  replace_all("deciliter", "dl");
  replace_all("liters", "l");
  replace_all("liter", "l");
  replace_all("litres", "l");
  replace_all("litre", "l");
  replace_all("mcg", "ug");
  replace_all("mcmol", "umol");
  replace_all("mcl", "ul");
  replace_all("×", "x");
  if (s.size() > 1 && s.back() == 's' && (s == "mins" || s == "hrs")) s.pop_back();
  return s;
}

std::string CanonicalUnit(Dimension dimension) {
  const auto& rules = Rules(dimension);
  return rules.empty() ? "" : rules.front().display;
}

std::vector<std::string> AcceptedUnits(Dimension dimension) {
  std::vector<std::string> out;
  for (const UnitRule& r : Rules(dimension)) out.push_back(r.display);
  return out;
}

Result<double> ToCanonical(Dimension dimension, double value, std::string_view unit) {
  const auto& rules = Rules(dimension);
  const std::string norm = NormalizeUnit(unit);
  if (norm.empty() || rules.empty()) return value;
  for (const UnitRule& rule : rules) {
    for (const std::string& spelling : rule.spellings) {
      if (norm == spelling) return rule.to_canonical(value);
    }
  }
  std::string accepted;
  for (const UnitRule& r : rules) accepted += (accepted.empty() ? "" : ", ") + r.display;
  return Status::InvalidArgument("unit '" + std::string(unit) + "' is not accepted here (accepted: " + accepted + ")");
}

}  // namespace medreact::calc
