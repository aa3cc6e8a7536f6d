// Renal function calculators: Cockcroft-Gault creatinine clearance,
// CKD-EPI 2021 eGFR, MDRD eGFR, fractional excretion of sodium. Each cites
// its published equation; MedCalc-Bench ids in `medcalc_id`.
#include <algorithm>
#include <cmath>

#include "tools/calc/calc_common.h"
#include "tools/calc/calculator.h"

namespace medreact::calc {
namespace {

CalcInput Creatinine() {
  return {.name = "creatinine", .description = "Serum creatinine.", .dimension = Dimension::kCreatinine,
          .min = 0.05, .max = 40, .aliases = {"creatinine", "serum creatinine", "pre-operative creatinine"}};
}

// KDIGO 2012 CKD guideline, GFR categories (mL/min/1.73 m²).
std::string GfrCategory(double gfr) {
  const char* band = gfr >= 90   ? "G1 (normal or high, >= 90)"
                     : gfr >= 60 ? "G2 (mildly decreased, 60-89)"
                     : gfr >= 45 ? "G3a (mildly to moderately decreased, 45-59)"
                     : gfr >= 30 ? "G3b (moderately to severely decreased, 30-44)"
                     : gfr >= 15 ? "G4 (severely decreased, 15-29)"
                                 : "G5 (kidney failure, < 15)";
  return std::string("KDIGO 2012 GFR category ") + band;
}

// Ideal body weight, Devine 1974 (Drug Intell Clin Pharm 8:650): 50 kg (men)
// or 45.5 kg (women) + 2.3 kg per inch over 5 feet.
double DevineIbw(bool female, double height_cm) { return (female ? 45.5 : 50.0) + 2.3 * (height_cm / 2.54 - 60.0); }

Result<CalcOutput> CockcroftGault(const CalcArgs& a) {
  const double age = a.Number("age");
  const double weight = a.Number("weight");
  const double scr = a.Number("creatinine");
  const bool female = a.IsFemale();
  CalcOutput out;
  double used = weight;
  std::string basis = a.Has("weight_basis") ? a.Choice("weight_basis") : "auto";
  if (basis == "auto" && !a.Has("height")) basis = "actual";
  if (basis != "actual") {
    if (!a.Has("height")) return Status::InvalidArgument("weight_basis '" + basis + "' needs height");
    const double h = a.Number("height");
    const double ibw = DevineIbw(female, h);
    const double abw = ibw + 0.4 * (weight - ibw);
    const double bmi = weight / std::pow(h / 100.0, 2);
    out.terms["bmi"] = bmi;
    out.terms["ideal_body_weight_kg"] = ibw;
    out.terms["adjusted_body_weight_kg"] = abw;
    if (basis == "ideal") {
      used = ibw;
    } else if (basis == "adjusted") {
      used = abw;
    } else {
      // Weight by BMI class (Winter MA et al., Pharmacotherapy 2012;32:604-12;
      // as MDCalc applies it): underweight → actual; normal → min(ideal,
      // actual); overweight or obese → adjusted.
      if (bmi < 18.5) {
        used = weight, basis = "actual (BMI < 18.5)";
      } else if (bmi < 25) {
        used = std::min(ibw, weight), basis = "min(ideal, actual) (BMI 18.5-24.9)";
      } else {
        used = abw, basis = "adjusted (BMI >= 25)";
      }
    }
  }
  const double sex_factor = female ? 0.85 : 1.0;
  out.value = (140.0 - age) * used * sex_factor / (72.0 * scr);
  out.unit = "mL/min";
  out.terms["weight_used_kg"] = used;
  out.terms["weight_basis"] = basis;
  out.terms["sex_factor"] = sex_factor;
  out.explanation = "CrCl = (140 - " + Num(age, 1) + ") x " + Num(used, 2) + " kg x " + Num(sex_factor) + " / (72 x " +
                    Num(scr, 2) + " mg/dL) = " + Num(out.value, 1) + " mL/min (" + basis + " weight)";
  return out;
}

Result<CalcOutput> CkdEpi2021(const CalcArgs& a) {
  const double age = a.Number("age");
  const double scr = a.Number("creatinine");
  const bool female = a.IsFemale();
  const double kappa = female ? 0.7 : 0.9;
  const double alpha = female ? -0.241 : -0.302;
  const double ratio = scr / kappa;
  CalcOutput out;
  out.value = 142.0 * std::pow(std::min(ratio, 1.0), alpha) * std::pow(std::max(ratio, 1.0), -1.200) *
              std::pow(0.9938, age) * (female ? 1.012 : 1.0);
  out.unit = "mL/min/1.73 m²";
  out.terms = {{"kappa", kappa}, {"alpha", alpha}, {"scr_over_kappa", ratio}, {"sex_factor", female ? 1.012 : 1.0}};
  out.explanation = "eGFR = 142 x min(" + Num(scr, 2) + "/" + Num(kappa, 1) + ", 1)^" + Num(alpha, 3) + " x max(" +
                    Num(scr, 2) + "/" + Num(kappa, 1) + ", 1)^-1.200 x 0.9938^" + Num(age, 1) +
                    (female ? " x 1.012" : "") + " = " + Num(out.value, 1);
  out.interpretation = GfrCategory(out.value);
  return out;
}

Result<CalcOutput> Mdrd(const CalcArgs& a) {
  const double age = a.Number("age");
  const double scr = a.Number("creatinine");
  const bool female = a.IsFemale();
  const bool black = a.Flag("black_race");
  CalcOutput out;
  out.value = 175.0 * std::pow(scr, -1.154) * std::pow(age, -0.203) * (female ? 0.742 : 1.0) * (black ? 1.212 : 1.0);
  out.unit = "mL/min/1.73 m²";
  out.terms = {{"sex_factor", female ? 0.742 : 1.0}, {"race_factor", black ? 1.212 : 1.0}};
  out.explanation = "eGFR = 175 x " + Num(scr, 2) + "^-1.154 x " + Num(age, 1) + "^-0.203" +
                    (female ? " x 0.742" : "") + (black ? " x 1.212" : "") + " = " + Num(out.value, 1);
  out.interpretation = GfrCategory(out.value);
  return out;
}

Result<CalcOutput> Fena(const CalcArgs& a) {
  const double u_na = a.Number("urine_sodium");
  const double p_na = a.Number("sodium");
  const double u_cr = a.Number("urine_creatinine");
  const double p_cr = a.Number("creatinine");
  CalcOutput out;
  out.value = (u_na * p_cr) / (p_na * u_cr) * 100.0;
  out.unit = "%";
  out.explanation = "FENa = (" + Num(u_na, 1) + " x " + Num(p_cr, 2) + ") / (" + Num(p_na, 1) + " x " + Num(u_cr, 2) +
                    ") x 100 = " + Num(out.value, 2) + " %";
  // Espinel CH, JAMA 1976;236:579-81; Miller TR et al., Ann Intern Med 1978;89:47-50.
  out.interpretation = out.value < 1.0   ? "< 1 %: suggests a prerenal cause (in oliguric AKI, off diuretics)"
                       : out.value > 2.0 ? "> 2 %: suggests intrinsic renal injury (e.g. acute tubular necrosis)"
                                         : "1-2 %: indeterminate";
  return out;
}

}  // namespace

void AddRenalCalculators(std::vector<Calculator>& out) {
  out.push_back({
      .name = "creatinine_clearance_cockcroft_gault",
      .title = "Creatinine Clearance (Cockcroft-Gault)",
      .description = "Estimated creatinine clearance in mL/min, used for drug dosing. With height, the weight used "
                     "follows the BMI class (actual if underweight, the lesser of ideal and actual if normal, adjusted "
                     "if overweight or obese); without height, actual weight.",
      .citation = "Cockcroft DW, Gault MH. Prediction of creatinine clearance from serum creatinine. Nephron "
                  "1976;16:31-41. Weight by BMI: Winter MA et al., Pharmacotherapy 2012;32:604-12. Ideal body "
                  "weight: Devine BJ, Drug Intell Clin Pharm 1974;8:650-5.",
      .medcalc_id = 2,
      .inputs = {AgeInput(), SexInput(),
                 {.name = "weight", .description = "Body weight.", .dimension = Dimension::kMass, .min = 0.5,
                  .max = 400, .aliases = {"weight", "body weight"}},
                 Creatinine(),
                 {.name = "height", .description = "Height (enables the BMI-based weight choice).",
                  .dimension = Dimension::kLength, .required = false, .min = 30, .max = 250,
                  .aliases = {"height"}},
                 {.name = "weight_basis", .type = InputType::kChoice,
                  .description = "Which weight to use: auto (by BMI class when height is given), actual, ideal or "
                                 "adjusted.",
                  .choices = {"auto", "actual", "ideal", "adjusted"}, .required = false}},
      .compute = CockcroftGault,
  });
  out.push_back({
      .name = "egfr_ckd_epi_2021",
      .title = "eGFR, CKD-EPI 2021 creatinine equation (race-free)",
      .description = "Estimated GFR in mL/min/1.73 m² from serum creatinine, age and sex (adults), with the KDIGO "
                     "GFR category.",
      .citation = "Inker LA et al. New creatinine- and cystatin C-based equations to estimate GFR without race. "
                  "N Engl J Med 2021;385:1737-49. Categories: KDIGO 2012 CKD guideline, Kidney Int Suppl 2013;3:1-150.",
      .medcalc_id = 3,
      .inputs = {AgeInput(), SexInput(), Creatinine()},
      .compute = CkdEpi2021,
  });
  out.push_back({
      .name = "egfr_mdrd",
      .title = "eGFR, MDRD study equation (IDMS-traceable, 4 variables)",
      .description = "Estimated GFR in mL/min/1.73 m² (175 x Scr^-1.154 x age^-0.203 x 0.742 if female). The "
                     "race coefficient is historical and off unless black_race is true.",
      .citation = "Levey AS et al. Expressing the MDRD study equation for estimating GFR with standardized serum "
                  "creatinine values. Clin Chem 2007;53:766-72.",
      .medcalc_id = 9,
      .inputs = {AgeInput(), SexInput(), Creatinine(),
                 {.name = "black_race", .type = InputType::kBoolean,
                  .description = "Apply the original equation's race coefficient (1.212).", .required = false,
                  .aliases = {"race"}}},
      .compute = Mdrd,
  });
  out.push_back({
      .name = "fractional_excretion_sodium",
      .title = "Fractional Excretion of Sodium (FENa)",
      .description = "FENa in % from urine and serum sodium and creatinine; separates prerenal from intrinsic "
                     "acute kidney injury (unreliable on diuretics).",
      .citation = "Espinel CH. The FENa test. JAMA 1976;236:579-81.",
      .medcalc_id = 40,
      .inputs = {{.name = "sodium", .description = "Serum sodium.", .dimension = Dimension::kElectrolyte,
                  .min = 80, .max = 200, .aliases = {"sodium", "serum sodium"}},
                 Creatinine(),
                 {.name = "urine_sodium", .description = "Urine sodium.", .dimension = Dimension::kElectrolyte,
                  .min = 0, .max = 400, .aliases = {"urine sodium"}},
                 {.name = "urine_creatinine", .description = "Urine creatinine.", .dimension = Dimension::kCreatinine,
                  .min = 1, .max = 1000, .aliases = {"urine creatinine"}}},
      .compute = Fena,
  });
}

}  // namespace medreact::calc
