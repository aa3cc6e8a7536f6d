// Chemistry calculators: anion gap and its delta / albumin-corrected forms,
// serum osmolality, corrected calcium and sodium, free water deficit, LDL
// (Friedewald), HOMA-IR, FIB-4 and MELD Na (OPTN/UNOS 2016). Each cites its
// published formula; MedCalc-Bench ids in `medcalc_id`.
#include <algorithm>
#include <cmath>

#include "tools/calc/calc_common.h"
#include "tools/calc/calculator.h"

namespace medreact::calc {
namespace {

// Conventional normal values used by the gap formulas (Wrenn K, Ann Emerg Med 1990;19:1310-3;
// Figge J et al., Crit Care Med 1998;26:1807-10): anion gap 12 mEq/L, bicarbonate 24 mEq/L, albumin 4 g/dL.
constexpr double kNormalAnionGap = 12.0;
constexpr double kNormalBicarbonate = 24.0;
constexpr double kNormalAlbumin = 4.0;

CalcInput Sodium() {
  return {.name = "sodium",
          .description = "Serum sodium.",
          .dimension = Dimension::kElectrolyte,
          .min = 80,
          .max = 200,
          .aliases = {"sodium", "serum sodium"}};
}
CalcInput Chloride() {
  return {.name = "chloride",
          .description = "Serum chloride.",
          .dimension = Dimension::kElectrolyte,
          .min = 50,
          .max = 160,
          .aliases = {"chloride", "serum chloride"}};
}
CalcInput Bicarbonate() {
  return {.name = "bicarbonate",
          .description = "Serum bicarbonate (total CO2).",
          .dimension = Dimension::kElectrolyte,
          .min = 1,
          .max = 60,
          .aliases = {"bicarbonate", "serum bicarbonate", "hco3", "total co2"}};
}
CalcInput Albumin() {
  return {.name = "albumin",
          .description = "Serum albumin.",
          .dimension = Dimension::kAlbumin,
          .min = 0.5,
          .max = 7,
          .aliases = {"albumin", "serum albumin"}};
}
CalcInput Glucose() {
  return {.name = "glucose",
          .description = "Serum or plasma glucose.",
          .dimension = Dimension::kGlucose,
          .min = 10,
          .max = 5000,
          .aliases = {"glucose", "serum glucose", "blood glucose"}};
}

// --- the anion gap family -------------------------------------------------------

struct Gap {
  double anion_gap = 0;
  double corrected_gap = 0;  // albumin-corrected when albumin is used, else = anion_gap
  double bicarbonate = 0;
  std::string line;  // the formula with numbers
};

Gap ComputeGap(const CalcArgs& a, bool albumin_corrected) {
  Gap g;
  const double na = a.Number("sodium");
  const double cl = a.Number("chloride");
  g.bicarbonate = a.Number("bicarbonate");
  g.anion_gap = na - (cl + g.bicarbonate);
  g.corrected_gap = g.anion_gap;
  g.line = "AG = " + Num(na, 1) + " - (" + Num(cl, 1) + " + " + Num(g.bicarbonate, 1) + ") = " + Num(g.anion_gap, 2);
  if (albumin_corrected) {
    const double alb = a.Number("albumin");
    g.corrected_gap = g.anion_gap + 2.5 * (kNormalAlbumin - alb);
    g.line += "; albumin-corrected AG = " + Num(g.anion_gap, 2) + " + 2.5 x (4 - " + Num(alb, 2) +
              ") = " + Num(g.corrected_gap, 2);
  }
  return g;
}

// Kraut JA, Madias NE, Clin J Am Soc Nephrol 2007;2:162-74: the normal gap is laboratory-specific,
// classically 12 +/- 4 mEq/L (Oh MS, Carroll HJ, N Engl J Med 1977;297:814-7).
std::string GapInterpretation(double gap) {
  if (gap > 16) return "> 16 mEq/L: elevated (classical range 8-16; Oh & Carroll 1977): high-anion-gap acidosis";
  if (gap < 8) return "< 8 mEq/L: low (classical range 8-16; consider hypoalbuminaemia, paraproteins, lab error)";
  return "8-16 mEq/L: within the classical reference range (Oh & Carroll 1977; laboratory-specific)";
}

// Rastegar A. Use of the delta AG / delta HCO3- ratio in the diagnosis of mixed acid-base disorders.
// J Am Soc Nephrol 2007;18:2429-31 (bands as commonly applied, e.g. by MDCalc).
std::string DeltaRatioInterpretation(double ratio) {
  if (ratio < 0.4) return "< 0.4: hyperchloraemic normal-anion-gap acidosis (Rastegar 2007)";
  if (ratio < 0.8) return "0.4-0.8: combined high- and normal-anion-gap acidosis (Rastegar 2007)";
  if (ratio <= 2.0) return "0.8-2.0: uncomplicated high-anion-gap acidosis (Rastegar 2007)";
  return "> 2.0: high-anion-gap acidosis with a concurrent metabolic alkalosis or pre-existing compensated "
         "respiratory acidosis (Rastegar 2007)";
}

enum class GapKind { kAnionGap, kDeltaGap, kDeltaRatio };

Result<CalcOutput> GapCalc(const CalcArgs& a, GapKind kind, bool albumin_corrected) {
  const Gap g = ComputeGap(a, albumin_corrected);
  const std::string gap_name = albumin_corrected ? "albumin-corrected AG" : "AG";
  CalcOutput out;
  out.terms["anion_gap"] = g.anion_gap;
  if (albumin_corrected) out.terms["albumin_corrected_anion_gap"] = g.corrected_gap;
  switch (kind) {
    case GapKind::kAnionGap:
      out.value = g.corrected_gap;
      out.unit = "mEq/L";
      out.explanation = g.line + " mEq/L";
      out.interpretation = albumin_corrected ? GapInterpretation(g.corrected_gap) + " (after albumin correction)"
                                             : GapInterpretation(g.corrected_gap);
      break;
    case GapKind::kDeltaGap:
      out.value = g.corrected_gap - kNormalAnionGap;
      out.unit = "mEq/L";
      out.terms["delta_bicarbonate"] = kNormalBicarbonate - g.bicarbonate;
      out.explanation = g.line + "; delta gap = " + Num(g.corrected_gap, 2) + " - 12 = " + Num(out.value, 2) + " mEq/L";
      out.interpretation = "Excess anion gap over the normal 12 mEq/L; compare with the bicarbonate fall (24 - " +
                           Num(g.bicarbonate, 1) + " = " + Num(kNormalBicarbonate - g.bicarbonate, 1) +
                           " mEq/L); see the delta ratio (Rastegar 2007)";
      break;
    case GapKind::kDeltaRatio: {
      const double delta_gap = g.corrected_gap - kNormalAnionGap;
      const double delta_hco3 = kNormalBicarbonate - g.bicarbonate;
      if (std::fabs(delta_hco3) < 1e-9) {
        return Status::InvalidArgument("bicarbonate is 24 mEq/L: the delta ratio's denominator (24 - HCO3) is zero");
      }
      out.value = delta_gap / delta_hco3;
      out.unit = "";
      out.terms["delta_gap"] = delta_gap;
      out.terms["delta_bicarbonate"] = delta_hco3;
      out.explanation = g.line + "; delta ratio = (" + Num(g.corrected_gap, 2) + " - 12) / (24 - " +
                        Num(g.bicarbonate, 1) + ") = " + Num(delta_gap, 2) + " / " + Num(delta_hco3, 2) + " = " +
                        Num(out.value, 3);
      out.interpretation = DeltaRatioInterpretation(out.value);
      if (delta_hco3 < 0) out.interpretation += "; bicarbonate above 24, the ratio is not meaningful for an acidosis";
      break;
    }
  }
  return out;
}

// --- corrections, osmolality ---------------------------------------------------------

Result<CalcOutput> CorrectedCalcium(const CalcArgs& a) {
  const double ca = a.Number("calcium");
  const double alb = a.Number("albumin");
  const double normal = a.NumberOr("normal_albumin", kNormalAlbumin);
  CalcOutput out;
  out.value = ca + 0.8 * (normal - alb);
  out.unit = "mg/dL";
  out.terms = {{"normal_albumin_g_dl", normal}, {"corrected_calcium_mmol_l", out.value / 4.008}};
  out.explanation = "Corrected Ca = " + Num(ca, 2) + " + 0.8 x (" + Num(normal, 1) + " - " + Num(alb, 2) +
                    ") = " + Num(out.value, 2) + " mg/dL";
  return out;
}

Result<CalcOutput> CorrectedSodium(const CalcArgs& a) {
  const double na = a.Number("sodium");
  const double glu = a.Number("glucose");
  const std::string method = a.Has("method") ? a.Choice("method") : "hillier";
  const double factor = method == "katz" ? 0.016 : 0.024;  // mEq/L per mg/dL of glucose above 100
  CalcOutput out;
  out.value = na + factor * (glu - 100.0);
  out.unit = "mEq/L";
  out.terms = {{"factor_per_100_mg_dl", factor * 100.0}, {"method", method}};
  out.explanation = "Corrected Na (" + std::string(method == "katz" ? "Katz" : "Hillier") + ") = " + Num(na, 1) +
                    " + " + Num(factor, 3) + " x (" + Num(glu, 1) + " - 100) = " + Num(out.value, 2) + " mEq/L";
  return out;
}

Result<CalcOutput> SerumOsmolality(const CalcArgs& a) {
  const double na = a.Number("sodium");
  const double bun = a.Number("bun");
  const double glu = a.Number("glucose");
  CalcOutput out;
  out.value = 2.0 * na + bun / 2.8 + glu / 18.0;
  out.unit = "mOsm/kg";
  out.terms = {{"two_sodium", 2.0 * na}, {"bun_term", bun / 2.8}, {"glucose_term", glu / 18.0}};
  out.explanation = "Osm = 2 x " + Num(na, 1) + " + " + Num(bun, 1) + "/2.8 + " + Num(glu, 1) +
                    "/18 = " + Num(out.value, 1) + " mOsm/kg";
  // Reference interval 275-295 mOsm/kg (Tietz Textbook of Clinical Chemistry and Molecular Diagnostics).
  out.interpretation = out.value < 275   ? "< 275 mOsm/kg: low (reference 275-295; Tietz)"
                       : out.value > 295 ? "> 295 mOsm/kg: high (reference 275-295; Tietz)"
                                         : "275-295 mOsm/kg: within the reference interval (Tietz)";
  return out;
}

Result<CalcOutput> FreeWaterDeficit(const CalcArgs& a) {
  const double age = a.Number("age");
  const double weight = a.Number("weight");
  const double na = a.Number("sodium");
  const double target = a.NumberOr("target_sodium", 140.0);
  const bool female = a.IsFemale();
  // Total body water fraction (Adrogue & Madias 2000): children 0.6; adults < 65 y men 0.6, women 0.5;
  // elderly men 0.5, elderly women 0.45.
  double fraction = 0.6;
  std::string group = "child";
  if (age >= 18) {
    const bool elderly = age >= 65;
    fraction = elderly ? (female ? 0.45 : 0.5) : (female ? 0.5 : 0.6);
    group = std::string(elderly ? "elderly " : "adult ") + (female ? "woman" : "man");
  }
  CalcOutput out;
  out.value = fraction * weight * (na / target - 1.0);
  out.unit = "L";
  out.terms = {{"total_body_water_fraction", fraction},
               {"total_body_water_l", fraction * weight},
               {"group", group},
               {"target_sodium", target}};
  out.explanation = "FWD = " + Num(fraction, 2) + " x " + Num(weight, 2) + " kg x (" + Num(na, 1) + "/" +
                    Num(target, 0) + " - 1) = " + Num(out.value, 2) + " L (" + group + ")";
  if (out.value < 0) out.interpretation = "Negative: sodium below target, a free water excess rather than a deficit";
  return out;
}

// --- lipids, insulin resistance, liver -------------------------------------------------

Result<CalcOutput> LdlFriedewald(const CalcArgs& a) {
  const double tc = a.Number("total_cholesterol");
  const double hdl = a.Number("hdl_cholesterol");
  const double tg = a.Number("triglycerides");
  CalcOutput out;
  out.value = tc - hdl - tg / 5.0;
  out.unit = "mg/dL";
  out.terms = {{"vldl_estimate", tg / 5.0}, {"ldl_mmol_l", out.value / 38.67}};
  out.explanation =
      "LDL = " + Num(tc, 1) + " - " + Num(hdl, 1) + " - " + Num(tg, 1) + "/5 = " + Num(out.value, 1) + " mg/dL";
  // NCEP ATP III (JAMA 2001;285:2486-97) LDL categories; Friedewald 1972: invalid when TG >= 400 mg/dL.
  out.interpretation = out.value < 100   ? "< 100 mg/dL: optimal (NCEP ATP III)"
                       : out.value < 130 ? "100-129 mg/dL: near optimal (NCEP ATP III)"
                       : out.value < 160 ? "130-159 mg/dL: borderline high (NCEP ATP III)"
                       : out.value < 190 ? "160-189 mg/dL: high (NCEP ATP III)"
                                         : ">= 190 mg/dL: very high (NCEP ATP III)";
  if (tg >= 400) {
    out.interpretation =
        "Triglycerides >= 400 mg/dL: the Friedewald estimate is not valid (Friedewald 1972); measure LDL directly. " +
        out.interpretation;
  }
  return out;
}

Result<CalcOutput> HomaIr(const CalcArgs& a) {
  const double glu = a.Number("glucose");
  const double ins = a.Number("insulin");
  CalcOutput out;
  out.value = ins * glu / 405.0;  // = insulin (µU/mL) x glucose (mmol/L) / 22.5
  out.unit = "";
  out.terms = {{"glucose_mmol_l", glu / 18.0}};
  out.explanation = "HOMA-IR = " + Num(ins, 2) + " µIU/mL x " + Num(glu, 1) + " mg/dL / 405 = " + Num(out.value, 3);
  return out;
}

Result<CalcOutput> Fib4(const CalcArgs& a) {
  const double age = a.Number("age");
  const double ast = a.Number("ast");
  const double alt = a.Number("alt");
  const double plt = a.Number("platelets");
  CalcOutput out;
  out.value = age * ast / (plt * std::sqrt(alt));
  out.unit = "";
  out.terms = {{"sqrt_alt", std::sqrt(alt)}};
  out.explanation = "FIB-4 = (" + Num(age, 1) + " x " + Num(ast, 1) + ") / (" + Num(plt, 1) + " x sqrt(" + Num(alt, 1) +
                    ")) = " + Num(out.value, 3);
  // Sterling RK et al., Hepatology 2006;43:1317-25: < 1.45 excludes, > 3.25 predicts advanced fibrosis.
  out.interpretation = out.value < 1.45   ? "< 1.45: advanced fibrosis unlikely (Sterling 2006)"
                       : out.value > 3.25 ? "> 3.25: advanced fibrosis likely (Sterling 2006)"
                                          : "1.45-3.25: indeterminate (Sterling 2006)";
  return out;
}

// OPTN/UNOS MELD(Na), policy 9.1.D as implemented January 2016.
Result<CalcOutput> MeldNa(const CalcArgs& a) {
  double cr = a.Number("creatinine");
  double bili = a.Number("bilirubin");
  double inr = a.Number("inr");
  double na = a.Number("sodium");
  const bool dialysis = a.Flag("dialysis_twice_past_week") || a.Flag("cvvhd_24h_past_week");
  CalcOutput out;
  // Bounds: values below 1.0 are set to 1.0; creatinine capped at 4.0 and set to 4.0 on dialysis; Na 125-137.
  cr = dialysis ? 4.0 : std::clamp(cr, 1.0, 4.0);
  bili = std::max(bili, 1.0);
  inr = std::max(inr, 1.0);
  na = std::clamp(na, 125.0, 137.0);
  const double raw = 0.957 * std::log(cr) + 0.378 * std::log(bili) + 1.120 * std::log(inr) + 0.643;
  const double meld_i = std::round(raw * 10.0) / 10.0 * 10.0;  // round to the tenth, then x 10
  double meld = meld_i;
  if (meld_i > 11) meld = meld_i + 1.32 * (137.0 - na) - 0.033 * meld_i * (137.0 - na);
  meld = std::min(meld, 40.0);
  out.value = std::round(meld);
  out.unit = "";
  out.terms = {{"creatinine_used", cr}, {"bilirubin_used", bili}, {"inr_used", inr},          {"sodium_used", na},
               {"dialysis", dialysis},  {"meld_i", meld_i},       {"meld_na_unrounded", meld}};
  out.explanation = "MELD(i) = 10 x round(0.957 ln " + Num(cr, 2) + " + 0.378 ln " + Num(bili, 2) + " + 1.120 ln " +
                    Num(inr, 2) + " + 0.643, 1) = " + Num(meld_i, 1) +
                    (meld_i > 11 ? "; MELD-Na = " + Num(meld_i, 1) + " + 1.32 x (137 - " + Num(na, 0) + ") - 0.033 x " +
                                       Num(meld_i, 1) + " x (137 - " + Num(na, 0) + ")"
                                 : std::string("; <= 11, no sodium term")) +
                    " = " + Num(out.value, 0);
  // 3-month mortality by MELD class: Wiesner R et al., Gastroenterology 2003;124:91-6 (MELD, not MELD-Na).
  out.interpretation = out.value < 10   ? "< 10: ~2 % 3-month mortality (Wiesner 2003)"
                       : out.value < 20 ? "10-19: ~6 % 3-month mortality (Wiesner 2003)"
                       : out.value < 30 ? "20-29: ~20 % 3-month mortality (Wiesner 2003)"
                       : out.value < 40 ? "30-39: ~53 % 3-month mortality (Wiesner 2003)"
                                        : ">= 40: ~71 % 3-month mortality (Wiesner 2003)";
  return out;
}

CalcInput Chem(std::string name, std::string description, Dimension d, double min, double max,
               std::vector<std::string> aliases) {
  return {.name = std::move(name),
          .description = std::move(description),
          .dimension = d,
          .min = min,
          .max = max,
          .aliases = std::move(aliases)};
}

Calculator GapCalculator(std::string name, std::string title, std::string description, std::string citation, int id,
                         GapKind kind, bool albumin) {
  std::vector<CalcInput> inputs = {Sodium(), Chloride(), Bicarbonate()};
  if (albumin) inputs.push_back(Albumin());
  return {.name = std::move(name),
          .title = std::move(title),
          .description = std::move(description),
          .citation = std::move(citation),
          .medcalc_id = id,
          .inputs = std::move(inputs),
          .compute = [kind, albumin](const CalcArgs& a) { return GapCalc(a, kind, albumin); }};
}

const char kAnionGapCite[] =
    "Emmett M, Narins RG. Clinical use of the anion gap. Medicine (Baltimore) 1977;56:38-54. Reference range: Oh MS, "
    "Carroll HJ. The anion gap. N Engl J Med 1977;297:814-7.";
const char kDeltaCite[] =
    " Delta gap and ratio: Wrenn K. The delta (delta) gap: an approach to mixed acid-base disorders. Ann Emerg Med "
    "1990;19:1310-3; Rastegar A. Use of the delta AG/delta HCO3- ratio in the diagnosis of mixed acid-base "
    "disorders. J Am Soc Nephrol 2007;18:2429-31.";
const char kFiggeCite[] =
    " Albumin correction (+2.5 mEq/L per g/dL below 4): Figge J, Jabor A, Kazda A, Fencl V. Anion gap and "
    "hypoalbuminemia. Crit Care Med 1998;26:1807-10.";

}  // namespace

void AddChemistryCalculators(std::vector<Calculator>& out) {
  out.push_back({
      .name = "calcium_correction_albumin",
      .title = "Calcium Correction for Hypoalbuminemia (Payne)",
      .description = "Albumin-corrected total calcium in mg/dL: Ca + 0.8 x (normal albumin 4 g/dL - albumin). Use "
                     "when albumin is low and ionised calcium is not available.",
      .citation = "Payne RB, Little AJ, Williams RB, Milner JR. Interpretation of serum calcium in patients with "
                  "abnormal serum proteins. Br Med J 1973;4:643-6.",
      .medcalc_id = 7,
      .inputs = {Chem("calcium", "Total serum calcium.", Dimension::kCalcium, 2, 20, {"calcium", "serum calcium"}),
                 Albumin(),
                 {.name = "normal_albumin",
                  .description = "Normal albumin to correct to (default 4 g/dL).",
                  .dimension = Dimension::kAlbumin,
                  .required = false,
                  .min = 3,
                  .max = 5}},
      .compute = CorrectedCalcium,
  });
  out.push_back({
      .name = "fib4_index",
      .title = "Fibrosis-4 (FIB-4) Index for Liver Fibrosis",
      .description = "FIB-4 = age x AST / (platelets (10^9/L) x sqrt(ALT)); estimates advanced liver fibrosis "
                     "(e.g. in hepatitis C or fatty liver disease).",
      .citation = "Sterling RK, Lissen E, Clumeck N, et al. Development of a simple noninvasive index to predict "
                  "significant fibrosis in patients with HIV/HCV coinfection. Hepatology 2006;43:1317-25.",
      .medcalc_id = 19,
      .inputs = {AgeInput(),
                 Chem("ast", "Aspartate aminotransferase.", Dimension::kEnzyme, 1, 50000,
                      {"aspartate aminotransferase", "ast"}),
                 Chem("alt", "Alanine aminotransferase.", Dimension::kEnzyme, 1, 50000,
                      {"alanine aminotransferase", "alt"}),
                 Chem("platelets", "Platelet count.", Dimension::kCellCount, 1, 3000, {"platelet count", "platelets"})},
      .compute = Fib4,
  });
  out.push_back({
      .name = "meld_na",
      .title = "MELD Na (UNOS/OPTN, 2016)",
      .description = "MELD-Na score (6-40) for end-stage liver disease as OPTN allocates livers since 2016: "
                     "creatinine, bilirubin, INR and sodium with OPTN bounds, creatinine set to 4.0 after dialysis "
                     "twice or 24 h of CVVHD in the past week.",
      .citation = "Kim WR, Biggins SW, Kremers WK, et al. Hyponatremia and mortality among patients on the "
                  "liver-transplant waiting list. N Engl J Med 2008;359:1018-26. Rules as implemented: OPTN Policy "
                  "9.1.D (MELD), January 2016. MELD: Kamath PS et al., Hepatology 2001;33:464-70. Mortality bands: "
                  "Wiesner R et al., Gastroenterology 2003;124:91-6.",
      .medcalc_id = 23,
      .inputs = {Chem("creatinine", "Serum creatinine.", Dimension::kCreatinine, 0.05, 40,
                      {"creatinine", "serum creatinine"}),
                 Chem("bilirubin", "Total bilirubin.", Dimension::kBilirubin, 0.05, 80,
                      {"bilirubin", "total bilirubin"}),
                 Chem("inr", "International normalised ratio.", Dimension::kNone, 0.5, 20,
                      {"international normalized ratio", "inr"}),
                 Sodium(),
                 {.name = "dialysis_twice_past_week",
                  .type = InputType::kBoolean,
                  .description = "Dialysis at least twice in the past week.",
                  .aliases = {"dialysis at least twice in the past week"}},
                 {.name = "cvvhd_24h_past_week",
                  .type = InputType::kBoolean,
                  .description = "Continuous veno-venous haemodialysis for >= 24 hours in the past week.",
                  .aliases = {"continuous veno-venous hemodialysis for ≥24 hours in the past week"}}},
      .compute = MeldNa,
  });
  out.push_back({
      .name = "sodium_correction_hyperglycemia",
      .title = "Sodium Correction for Hyperglycemia",
      .description = "Sodium corrected for hyperglycaemia in mEq/L: Na + 0.024 x (glucose - 100) (Hillier, "
                     "default) or 0.016 x (glucose - 100) (Katz).",
      .citation = "Hillier TA, Abbott RD, Barrett EJ. Hyponatremia: evaluating the correction factor for "
                  "hyperglycemia. Am J Med 1999;106:399-403. Option: Katz MA. Hyperglycemia-induced hyponatremia - "
                  "calculation of expected serum sodium depression. N Engl J Med 1973;289:843-4.",
      .medcalc_id = 26,
      .inputs = {Sodium(),
                 Glucose(),
                 {.name = "method",
                  .type = InputType::kChoice,
                  .description = "hillier (2.4 mEq/L per 100 mg/dL, default) or katz (1.6).",
                  .choices = {"hillier", "katz"},
                  .required = false}},
      .compute = CorrectedSodium,
  });
  out.push_back({
      .name = "serum_osmolality",
      .title = "Serum Osmolality (calculated)",
      .description = "Calculated serum osmolality in mOsm/kg: 2 x Na + BUN/2.8 + glucose/18. Compare with the "
                     "measured value for the osmolal gap.",
      .citation = "Dorwart WV, Chalmers L. Comparison of methods for calculating serum osmolality from chemical "
                  "concentrations, and the prognostic value of such calculations. Clin Chem 1975;21:190-4.",
      .medcalc_id = 30,
      .inputs = {Sodium(),
                 Chem("bun", "Blood urea nitrogen.", Dimension::kUrea, 1, 300,
                      {"blood urea nitrogen (bun)", "blood urea nitrogen", "bun"}),
                 Glucose()},
      .compute = SerumOsmolality,
  });
  out.push_back({
      .name = "homa_ir",
      .title = "HOMA-IR (Homeostatic Model Assessment for Insulin Resistance)",
      .description = "HOMA-IR = fasting insulin (µIU/mL) x fasting glucose (mg/dL) / 405; higher means more "
                     "insulin resistance.",
      .citation = "Matthews DR, Hosker JP, Rudenski AS, Naylor BA, Treacher DF, Turner RC. Homeostasis model "
                  "assessment: insulin resistance and beta-cell function from fasting plasma glucose and insulin "
                  "concentrations in man. Diabetologia 1985;28:412-9.",
      .medcalc_id = 31,
      .inputs = {Chem("insulin", "Fasting insulin.", Dimension::kInsulin, 0.1, 3000, {"insulin", "fasting insulin"}),
                 Glucose()},
      .compute = HomaIr,
  });
  out.push_back({
      .name = "free_water_deficit",
      .title = "Free Water Deficit",
      .description = "Free water deficit in litres: total body water x (Na/140 - 1), total body water = weight x "
                     "0.6 (children, adult men), 0.5 (adult women, elderly men) or 0.45 (elderly women, >= 65 y).",
      .citation = "Adrogue HJ, Madias NE. Hypernatremia. N Engl J Med 2000;342:1493-9.",
      .medcalc_id = 38,
      .inputs = {AgeInput(),
                 {.name = "sex", .type = InputType::kSex, .description = "Sex.", .aliases = {"sex", "gender"}},
                 {.name = "weight",
                  .description = "Body weight.",
                  .dimension = Dimension::kMass,
                  .min = 0.2,
                  .max = 400,
                  .aliases = {"weight", "body weight"}},
                 Sodium(),
                 {.name = "target_sodium",
                  .description = "Target sodium (default 140 mEq/L).",
                  .dimension = Dimension::kElectrolyte,
                  .required = false,
                  .min = 120,
                  .max = 160}},
      .compute = FreeWaterDeficit,
  });
  out.push_back(GapCalculator("anion_gap", "Anion Gap",
                              "Serum anion gap in mEq/L: Na - (Cl + HCO3). Screens a metabolic acidosis for "
                              "unmeasured anions.",
                              kAnionGapCite, 39, GapKind::kAnionGap, false));
  out.push_back({
      .name = "ldl_friedewald",
      .title = "LDL Cholesterol, calculated (Friedewald)",
      .description = "LDL cholesterol in mg/dL = total cholesterol - HDL - triglycerides/5 (all mg/dL); not valid "
                     "when triglycerides are >= 400 mg/dL.",
      .citation = "Friedewald WT, Levy RI, Fredrickson DS. Estimation of the concentration of low-density "
                  "lipoprotein cholesterol in plasma, without use of the preparative ultracentrifuge. Clin Chem "
                  "1972;18:499-502. Categories: NCEP ATP III, JAMA 2001;285:2486-97.",
      .medcalc_id = 44,
      .inputs = {Chem("total_cholesterol", "Total cholesterol.", Dimension::kCholesterol, 20, 2000,
                      {"total cholesterol", "cholesterol"}),
                 Chem("hdl_cholesterol", "HDL cholesterol.", Dimension::kCholesterol, 2, 300,
                      {"high-density lipoprotein cholesterol", "hdl cholesterol", "hdl"}),
                 Chem("triglycerides", "Triglycerides.", Dimension::kTriglycerides, 5, 20000,
                      {"triglycerides", "triglyceride"})},
      .compute = LdlFriedewald,
  });
  out.push_back(GapCalculator("delta_gap", "Delta Gap",
                              "Delta gap in mEq/L = anion gap - 12: the excess anion gap, to compare with the fall in "
                              "bicarbonate in a high-anion-gap acidosis.",
                              std::string(kAnionGapCite) + kDeltaCite, 63, GapKind::kDeltaGap, false));
  out.push_back(GapCalculator("delta_ratio", "Delta Ratio",
                              "Delta ratio = (anion gap - 12) / (24 - HCO3): separates pure high-anion-gap acidosis "
                              "from mixed disorders.",
                              std::string(kAnionGapCite) + kDeltaCite, 64, GapKind::kDeltaRatio, false));
  out.push_back(GapCalculator("albumin_corrected_anion_gap", "Albumin Corrected Anion Gap",
                              "Anion gap corrected for albumin in mEq/L: Na - (Cl + HCO3) + 2.5 x (4 - albumin g/dL). "
                              "Use when albumin is low (low albumin hides unmeasured anions).",
                              std::string(kAnionGapCite) + kFiggeCite, 65, GapKind::kAnionGap, true));
  out.push_back(GapCalculator("albumin_corrected_delta_gap", "Albumin Corrected Delta Gap",
                              "Albumin-corrected anion gap - 12, in mEq/L.",
                              std::string(kAnionGapCite) + kDeltaCite + kFiggeCite, 66, GapKind::kDeltaGap, true));
  out.push_back(GapCalculator("albumin_corrected_delta_ratio", "Albumin Corrected Delta Ratio",
                              "(Albumin-corrected anion gap - 12) / (24 - HCO3).",
                              std::string(kAnionGapCite) + kDeltaCite + kFiggeCite, 67, GapKind::kDeltaRatio, true));
}

}  // namespace medreact::calc
