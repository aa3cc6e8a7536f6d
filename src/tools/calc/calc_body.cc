// Body measurement and haemodynamic calculators: mean arterial pressure, BMI,
// body surface area, ideal / adjusted / target body weight, maintenance
// fluids (Holliday-Segar) and the five QT corrections (Bazett, Fridericia,
// Framingham, Hodges, Rautaharju). Each cites its published formula;
// MedCalc-Bench ids in `medcalc_id`.
#include <algorithm>
#include <cmath>

#include "tools/calc/calc_common.h"
#include "tools/calc/calculator.h"

namespace medreact::calc {
namespace {

constexpr double kCmPerInch = 2.54;

CalcInput Weight(const std::string& description = "Body weight (actual).") {
  // 0.2 kg admits extremely premature neonates; the benchmark gives neonatal weights in g.
  return {.name = "weight",
          .description = description,
          .dimension = Dimension::kMass,
          .min = 0.2,
          .max = 400,
          .aliases = {"weight", "body weight"}};
}
CalcInput Height() {
  return {.name = "height",
          .description = "Height (length for infants).",
          .dimension = Dimension::kLength,
          .min = 20,
          .max = 260,
          .aliases = {"height"}};
}
CalcInput HeartRate() {
  return {.name = "heart_rate",
          .description = "Heart rate at the time of the ECG.",
          .dimension = Dimension::kRate,
          .min = 20,
          .max = 300,
          .aliases = {"heart rate or pulse", "heart rate", "pulse"}};
}
CalcInput QtInterval() {
  return {.name = "qt_interval",
          .description = "Measured (uncorrected) QT interval.",
          .dimension = Dimension::kDuration,
          .min = 150,
          .max = 800,
          .aliases = {"qt interval", "qt"}};
}

// Ideal body weight, Devine 1974: 50 kg (men) or 45.5 kg (women) + 2.3 kg per inch over 5 feet.
double DevineIbw(bool female, double height_cm) {
  return (female ? 45.5 : 50.0) + 2.3 * (height_cm / kCmPerInch - 60.0);
}

// --- blood pressure, size -----------------------------------------------------

Result<CalcOutput> MeanArterialPressure(const CalcArgs& a) {
  const double sbp = a.Number("systolic_bp");
  const double dbp = a.Number("diastolic_bp");
  if (dbp > sbp) return Status::InvalidArgument("diastolic_bp is above systolic_bp (swapped?)");
  CalcOutput out;
  out.value = (2.0 * dbp + sbp) / 3.0;
  out.unit = "mmHg";
  out.terms = {{"pulse_pressure_mmhg", sbp - dbp}};
  out.explanation = "MAP = 2/3 x " + Num(dbp, 1) + " + 1/3 x " + Num(sbp, 1) + " = " + Num(out.value, 1) + " mmHg";
  // Surviving Sepsis Campaign 2021 (Evans L et al., Crit Care Med 2021;49:e1063-143): initial target MAP 65 mmHg.
  if (out.value < 65) {
    out.interpretation = "Below 65 mmHg, the initial MAP target in septic shock (Surviving Sepsis Campaign 2021)";
  }
  return out;
}

Result<CalcOutput> Bmi(const CalcArgs& a) {
  const double weight = a.Number("weight");
  const double h_m = a.Number("height") / 100.0;
  CalcOutput out;
  out.value = weight / (h_m * h_m);
  out.unit = "kg/m²";
  out.terms = {{"height_m", h_m}};
  out.explanation = "BMI = " + Num(weight, 2) + " kg / (" + Num(h_m, 3) + " m)^2 = " + Num(out.value, 2) + " kg/m²";
  // WHO adult classes: WHO Technical Report Series 894, 2000 (not for children: use BMI-for-age).
  out.interpretation = std::string("WHO adult class: ") +
                       (out.value < 18.5   ? "underweight (< 18.5)"
                        : out.value < 25.0 ? "normal (18.5-24.9)"
                        : out.value < 30.0 ? "overweight (25-29.9)"
                        : out.value < 35.0 ? "obese class I (30-34.9)"
                        : out.value < 40.0 ? "obese class II (35-39.9)"
                                           : "obese class III (>= 40)") +
                       " (WHO TRS 894, 2000; adults only)";
  return out;
}

Result<CalcOutput> BodySurfaceArea(const CalcArgs& a) {
  const double weight = a.Number("weight");
  const double height = a.Number("height");
  const std::string formula = a.Has("formula") ? a.Choice("formula") : "mosteller";
  CalcOutput out;
  out.unit = "m²";
  if (formula == "du_bois") {
    out.value = 0.007184 * std::pow(weight, 0.425) * std::pow(height, 0.725);
    out.explanation = "BSA (Du Bois) = 0.007184 x " + Num(weight, 2) + "^0.425 x " + Num(height, 1) +
                      "^0.725 = " + Num(out.value, 3) + " m²";
  } else {
    out.value = std::sqrt(weight * height / 3600.0);
    out.explanation = "BSA (Mosteller) = sqrt(" + Num(weight, 2) + " kg x " + Num(height, 1) +
                      " cm / 3600) = " + Num(out.value, 3) + " m²";
  }
  out.terms = {{"formula", formula}};
  return out;
}

Result<CalcOutput> IdealBodyWeight(const CalcArgs& a) {
  const double height = a.Number("height");
  const bool female = a.IsFemale();
  const double inches = height / kCmPerInch;
  CalcOutput out;
  out.value = DevineIbw(female, height);
  if (out.value <= 0) return Status::InvalidArgument("height too short for the Devine formula (result <= 0 kg)");
  out.unit = "kg";
  out.terms = {{"height_in", inches}, {"base_kg", female ? 45.5 : 50.0}};
  out.explanation = "IBW = " + std::string(female ? "45.5" : "50") + " kg + 2.3 kg x (" + Num(inches, 2) +
                    " in - 60) = " + Num(out.value, 2) + " kg";
  // Devine's formula was stated for heights of 5 ft (60 in) and above.
  if (inches < 60) out.interpretation = "Height under 60 in: outside the range the Devine formula was stated for";
  return out;
}

Result<CalcOutput> AdjustedBodyWeight(const CalcArgs& a) {
  const double height = a.Number("height");
  const double weight = a.Number("weight");
  const bool female = a.IsFemale();
  const double ibw = DevineIbw(female, height);
  CalcOutput out;
  out.value = ibw + 0.4 * (weight - ibw);
  out.unit = "kg";
  out.terms = {{"ideal_body_weight_kg", ibw}, {"height_in", height / kCmPerInch}};
  out.explanation = "ABW = IBW " + Num(ibw, 2) + " kg + 0.4 x (" + Num(weight, 2) + " - " + Num(ibw, 2) +
                    ") kg = " + Num(out.value, 2) + " kg";
  return out;
}

Result<CalcOutput> TargetWeight(const CalcArgs& a) {
  const double bmi = a.Number("target_bmi");
  const double h_m = a.Number("height") / 100.0;
  CalcOutput out;
  out.value = bmi * h_m * h_m;
  out.unit = "kg";
  out.terms = {{"height_m", h_m}};
  out.explanation =
      "Target weight = " + Num(bmi, 2) + " kg/m² x (" + Num(h_m, 3) + " m)^2 = " + Num(out.value, 2) + " kg";
  return out;
}

Result<CalcOutput> MaintenanceFluids(const CalcArgs& a) {
  const double w = a.Number("weight");
  CalcOutput out;
  // 4 mL/kg/h for the first 10 kg, 2 mL/kg/h for the next 10 kg, 1 mL/kg/h above 20 kg.
  const double first = std::min(w, 10.0) * 4.0;
  const double second = std::clamp(w - 10.0, 0.0, 10.0) * 2.0;
  const double rest = std::max(w - 20.0, 0.0) * 1.0;
  out.value = first + second + rest;
  out.unit = "mL/h";
  out.terms = {{"first_10_kg_ml_h", first},
               {"next_10_kg_ml_h", second},
               {"above_20_kg_ml_h", rest},
               {"ml_per_day", out.value * 24.0}};
  out.explanation = "4-2-1 rule for " + Num(w, 2) + " kg: " + Num(first, 1) + " + " + Num(second, 1) + " + " +
                    Num(rest, 1) + " = " + Num(out.value, 1) + " mL/h";
  return out;
}

// --- QT corrections -------------------------------------------------------------

// AHA/ACCF/HRS 2009 ECG standardisation (Rautaharju PM et al., Circulation 2009;119:e241-50): QTc >= 450 ms
// (men) / >= 460 ms (women) is prolonged, <= 390 ms short; AHA/ACCF 2010 statement on drug-induced
// arrhythmia (Drew BJ et al., Circulation 2010;121:1047-60): > 500 ms carries a high risk of torsade de pointes.
std::string QtcInterpretation(double qtc) {
  if (qtc > 500) return "> 500 ms: markedly prolonged, high risk of torsade de pointes (AHA/ACCF 2010)";
  if (qtc >= 460) return ">= 460 ms: prolonged (AHA/ACCF/HRS 2009 limits: 450 ms men, 460 ms women)";
  if (qtc >= 450) return "450-459 ms: prolonged in men, upper normal in women (AHA/ACCF/HRS 2009)";
  if (qtc <= 390) return "<= 390 ms: short QT (AHA/ACCF/HRS 2009)";
  return "Within normal limits (AHA/ACCF/HRS 2009: < 450 ms men, < 460 ms women)";
}

enum class QtFormula { kBazett, kFridericia, kFramingham, kHodges, kRautaharju };

Result<CalcOutput> Qtc(const CalcArgs& a, QtFormula formula) {
  const double hr = a.Number("heart_rate");
  const double qt = a.Number("qt_interval");
  const double rr = 60.0 / hr;  // RR interval in seconds
  CalcOutput out;
  out.unit = "ms";
  out.terms = {{"rr_interval_s", rr}};
  std::string formula_text;
  switch (formula) {
    case QtFormula::kBazett:
      out.value = qt / std::sqrt(rr);
      formula_text = "QTc = " + Num(qt, 1) + " / sqrt(" + Num(rr, 3) + " s)";
      break;
    case QtFormula::kFridericia:
      out.value = qt / std::cbrt(rr);
      formula_text = "QTc = " + Num(qt, 1) + " / cbrt(" + Num(rr, 3) + " s)";
      break;
    case QtFormula::kFramingham:
      out.value = qt + 154.0 * (1.0 - rr);
      formula_text = "QTc = " + Num(qt, 1) + " + 154 x (1 - " + Num(rr, 3) + " s)";
      break;
    case QtFormula::kHodges:
      out.value = qt + 1.75 * (hr - 60.0);
      formula_text = "QTc = " + Num(qt, 1) + " + 1.75 x (" + Num(hr, 1) + " - 60)";
      break;
    case QtFormula::kRautaharju:
      out.value = qt * (120.0 + hr) / 180.0;
      formula_text = "QTc = " + Num(qt, 1) + " x (120 + " + Num(hr, 1) + ") / 180";
      break;
  }
  out.explanation =
      formula_text + " = " + Num(out.value, 1) + " ms (RR = 60 / " + Num(hr, 1) + " = " + Num(rr, 3) + " s)";
  out.interpretation = QtcInterpretation(out.value);
  return out;
}

Calculator QtcCalculator(const std::string& name, const std::string& title, const std::string& formula,
                         const std::string& citation, int medcalc_id, QtFormula f) {
  return {
      .name = name,
      .title = title,
      .description = "Heart-rate-corrected QT interval in ms from the measured QT and heart rate (" + formula +
                     ", RR = 60/HR in seconds). Use to judge QT prolongation, e.g. before or on QT-prolonging drugs.",
      .citation = citation +
                  " Limits: Rautaharju PM et al., AHA/ACCF/HRS recommendations, Circulation "
                  "2009;119:e241-50.",
      .medcalc_id = medcalc_id,
      .inputs = {HeartRate(), QtInterval()},
      .compute = [f](const CalcArgs& a) { return Qtc(a, f); },
  };
}

}  // namespace

void AddBodyCalculators(std::vector<Calculator>& out) {
  out.push_back({
      .name = "mean_arterial_pressure",
      .title = "Mean Arterial Pressure (MAP)",
      .description = "Mean arterial pressure in mmHg from systolic and diastolic blood pressure: "
                     "MAP = 2/3 DBP + 1/3 SBP.",
      .citation = "The standard estimate MAP = DBP + (SBP - DBP)/3 (textbook physiology); see Meaney E, Alva F, "
                  "Moguel R, Meaney A, Alva J, Webel R. Formula and nomogram for the sphygmomanometric calculation "
                  "of the mean arterial pressure. Heart 2000;84:64.",
      .medcalc_id = 5,
      .inputs = {{.name = "systolic_bp",
                  .description = "Systolic blood pressure.",
                  .dimension = Dimension::kPressure,
                  .min = 30,
                  .max = 320,
                  .aliases = {"systolic blood pressure", "systolic bp", "sbp"}},
                 {.name = "diastolic_bp",
                  .description = "Diastolic blood pressure.",
                  .dimension = Dimension::kPressure,
                  .min = 10,
                  .max = 250,
                  .aliases = {"diastolic blood pressure", "diastolic bp", "dbp"}}},
      .compute = MeanArterialPressure,
  });
  out.push_back({
      .name = "body_mass_index",
      .title = "Body Mass Index (BMI)",
      .description = "BMI in kg/m² = weight / height², with the WHO adult weight class.",
      .citation = "Keys A, Fidanza F, Karvonen MJ, Kimura N, Taylor HL. Indices of relative weight and obesity. "
                  "J Chronic Dis 1972;25:329-43. Classes: WHO. Obesity: preventing and managing the global "
                  "epidemic. WHO Technical Report Series 894, 2000.",
      .medcalc_id = 6,
      .inputs = {Weight(), Height()},
      .compute = Bmi,
  });
  out.push_back({
      .name = "ideal_body_weight",
      .title = "Ideal Body Weight (Devine)",
      .description = "Ideal body weight in kg (Devine): 50 kg (men) or 45.5 kg (women) + 2.3 kg per inch of height "
                     "over 60 in. Used for drug dosing and ventilator tidal volumes.",
      .citation = "Devine BJ. Gentamicin therapy. Drug Intell Clin Pharm 1974;8:650-5.",
      .medcalc_id = 10,
      .inputs = {SexInput(), Height()},
      .compute = IdealBodyWeight,
  });
  out.push_back(QtcCalculator("qtc_bazett", "QTc, Bazett formula", "Bazett: QT / sqrt(RR)",
                              "Bazett HC. An analysis of the time-relations of electrocardiograms. Heart "
                              "1920;7:353-70.",
                              11, QtFormula::kBazett));
  out.push_back({
      .name = "maintenance_fluids",
      .title = "Maintenance Fluids (Holliday-Segar 4-2-1 rule)",
      .description = "Hourly maintenance fluid rate in mL/h from body weight: 4 mL/kg/h for the first 10 kg, "
                     "2 mL/kg/h for the next 10 kg, 1 mL/kg/h for each kg above 20.",
      .citation = "Holliday MA, Segar WE. The maintenance need for water in parenteral fluid therapy. Pediatrics "
                  "1957;19:823-32.",
      .medcalc_id = 22,
      .inputs = {Weight()},
      .compute = MaintenanceFluids,
  });
  out.push_back(QtcCalculator("qtc_fridericia", "QTc, Fridericia formula", "Fridericia: QT / RR^(1/3)",
                              "Fridericia LS. Die Systolendauer im Elektrokardiogramm bei normalen Menschen und bei "
                              "Herzkranken. Acta Med Scand 1920;53:469-86.",
                              56, QtFormula::kFridericia));
  out.push_back(QtcCalculator("qtc_framingham", "QTc, Framingham formula", "Framingham: QT + 154 x (1 - RR)",
                              "Sagie A, Larson MG, Goldberg RJ, Bengtson JR, Levy D. An improved method for adjusting "
                              "the QT interval for heart rate (the Framingham Heart Study). Am J Cardiol "
                              "1992;70:797-801.",
                              57, QtFormula::kFramingham));
  out.push_back(QtcCalculator("qtc_hodges", "QTc, Hodges formula", "Hodges: QT + 1.75 x (HR - 60)",
                              "Hodges M, Salerno D, Erlien D. Bazett's QT correction reviewed: evidence that a linear "
                              "QT correction for heart rate is better. J Am Coll Cardiol 1983;1:694 (abstract).",
                              58, QtFormula::kHodges));
  out.push_back(QtcCalculator("qtc_rautaharju", "QTc, Rautaharju formula", "Rautaharju: QT x (120 + HR) / 180",
                              "Rautaharju PM, Mason JW, Akiyama T. New age- and sex-specific criteria for QT "
                              "prolongation based on rate correction formulas that minimize bias at the upper normal "
                              "limits. Int J Cardiol 2014;174:535-40.",
                              59, QtFormula::kRautaharju));
  out.push_back({
      .name = "body_surface_area",
      .title = "Body Surface Area (Mosteller; Du Bois optional)",
      .description = "Body surface area in m², by default Mosteller: sqrt(height cm x weight kg / 3600). Used for "
                     "chemotherapy dosing and indexing cardiac output.",
      .citation = "Mosteller RD. Simplified calculation of body-surface area. N Engl J Med 1987;317:1098. Option: "
                  "Du Bois D, Du Bois EF. A formula to estimate the approximate surface area if height and weight "
                  "be known. Arch Intern Med 1916;17:863-71.",
      .medcalc_id = 60,
      .inputs = {Weight(),
                 Height(),
                 {.name = "formula",
                  .type = InputType::kChoice,
                  .description = "mosteller (default) or du_bois.",
                  .choices = {"mosteller", "du_bois"},
                  .required = false}},
      .compute = BodySurfaceArea,
  });
  out.push_back({
      .name = "target_weight",
      .title = "Target Weight for a Target BMI",
      .description = "The body weight in kg that gives a target BMI at the patient's height: target BMI x "
                     "height(m)².",
      .citation = "Rearranged BMI definition (weight / height²): Keys A et al. Indices of relative weight and "
                  "obesity. J Chronic Dis 1972;25:329-43.",
      .medcalc_id = 61,
      .inputs = {{.name = "target_bmi",
                  .description = "The target body mass index.",
                  .dimension = Dimension::kBmi,
                  .min = 10,
                  .max = 60,
                  .aliases = {"body mass index (bmi)", "target bmi", "bmi"}},
                 Height()},
      .compute = TargetWeight,
  });
  out.push_back({
      .name = "adjusted_body_weight",
      .title = "Adjusted Body Weight",
      .description = "Adjusted body weight in kg for dosing in obesity: IBW + 0.4 x (actual weight - IBW), with "
                     "the Devine ideal body weight.",
      .citation = "Traynor AM, Nafziger AN, Bertino JS Jr. Aminoglycoside dosing weight correction factors for "
                  "patients of various body sizes. Antimicrob Agents Chemother 1995;39:545-8. Ideal body weight: "
                  "Devine BJ, Drug Intell Clin Pharm 1974;8:650-5.",
      .medcalc_id = 62,
      .inputs = {SexInput(), Weight(), Height()},
      .compute = AdjustedBodyWeight,
  });
}

}  // namespace medreact::calc
