// Cardiovascular and thrombosis risk scores (issue 4): CHA2DS2-VASc, Wells
// PE and DVT, RCRI, HEART, HAS-BLED, Caprini, Framingham hard CHD, PERC (the
// infection, bleeding and comorbidity scores are in calc_scores_acute.cc). Each criterion is an input
// (booleans: absent = not present, as the published scores and MedCalc-Bench
// treat an unrecorded finding); `terms` holds each criterion's points. Every
// weight and band below carries its source.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "tools/calc/calc_common.h"
#include "tools/calc/calculator.h"

namespace medreact::calc {
namespace {

// ---- inputs -------------------------------------------------------------------

CalcInput PriorDvt() {
  return Criterion("previous_dvt", "Previously documented deep vein thrombosis.",
                   {"previously documented deep vein thrombosis"});
}
CalcInput PriorPe() {
  return Criterion("previous_pe", "Previously documented pulmonary embolism.",
                   {"previously documented pulmonary embolism"});
}

// ---- CHA2DS2-VASc ---------------------------------------------------------------

Result<CalcOutput> Cha2ds2Vasc(const CalcArgs& a) {
  const double age = a.Number("age");
  Tally t("CHA2DS2-VASc");
  // Lip GYH et al., Chest 2010;137:263-72: C 1, H 1, A2 (>= 75) 2, D 1, S2 2, V 1, A (65-74) 1, Sc (female) 1.
  t.Add("congestive_heart_failure", Pts(a.Flag("congestive_heart_failure"), 1), "heart failure");
  t.Add("hypertension", Pts(a.Flag("hypertension"), 1), "hypertension");
  t.Add("age", age >= 75 ? 2 : age >= 65 ? 1 : 0, "age " + Num(age, 1));
  t.Add("diabetes", Pts(a.Flag("diabetes"), 1), "diabetes");
  t.Add("stroke_tia_thromboembolism", Pts(a.Flag("stroke") || a.Flag("tia") || a.Flag("thromboembolism"), 2),
        "prior stroke/TIA/thromboembolism");
  t.Add("vascular_disease", Pts(a.Flag("vascular_disease"), 1), "vascular disease");
  t.Add("female", Pts(a.IsFemale(), 1), "female");
  const int s = static_cast<int>(t.total()) - (a.IsFemale() ? 1 : 0);  // score without the sex point
  // ESC 2020 AF guideline (Hindricks G et al., Eur Heart J 2021;42:373-498): oral anticoagulation
  // recommended at >= 2 (men) / >= 3 (women), to be considered at 1 / 2; none at 0 / 1.
  return t.Finish(s >= 2   ? "High stroke risk: oral anticoagulation recommended (ESC 2020)"
                  : s == 1 ? "Intermediate: oral anticoagulation should be considered (ESC 2020)"
                           : "Low stroke risk: no antithrombotic therapy indicated (ESC 2020)");
}

// ---- Wells PE --------------------------------------------------------------------

Result<CalcOutput> WellsPe(const CalcArgs& a) {
  const double hr = a.Number("heart_rate");
  Tally t("Wells PE");
  // Wells PS et al., Thromb Haemost 2000;83:416-20.
  t.Add("dvt_signs", Pts(a.Flag("dvt_signs"), 3), "clinical signs of DVT");
  t.Add("pe_most_likely", Pts(a.Flag("pe_most_likely"), 3), "PE #1 diagnosis or equally likely");
  t.Add("heart_rate", hr > 100 ? 1.5 : 0, "heart rate " + Num(hr, 0) + " > 100");
  t.Add("immobilization_or_surgery", a.Flag("immobilization") || a.Flag("recent_surgery") ? 1.5 : 0,
        "immobilization >= 3 days or surgery in 4 weeks");
  t.Add("previous_pe_or_dvt", a.Flag("previous_pe") || a.Flag("previous_dvt") ? 1.5 : 0, "previous PE or DVT");
  t.Add("hemoptysis", Pts(a.Flag("hemoptysis"), 1), "hemoptysis");
  t.Add("malignancy", Pts(a.Flag("malignancy"), 1), "malignancy");
  const double s = t.total();
  // Wells 2000: three tiers < 2 low, 2-6 moderate, > 6 high; two tiers: > 4 PE likely, <= 4 unlikely.
  return t.Finish(std::string(s > 6 ? "High" : s >= 2 ? "Moderate" : "Low") + " clinical probability; PE " +
                  (s > 4 ? "likely (> 4)" : "unlikely (<= 4)") + " (Wells 2000)");
}

// ---- Wells DVT -------------------------------------------------------------------

Result<CalcOutput> WellsDvt(const CalcArgs& a) {
  Tally t("Wells DVT");
  // Wells PS et al., Lancet 1997;350:1795-8; previous DVT added in Wells PS et al., N Engl J Med 2003;349:1227-35.
  t.Add("active_cancer", Pts(a.Flag("active_cancer"), 1), "active cancer");
  t.Add("bedridden_or_major_surgery", Pts(a.Flag("bedridden_or_major_surgery") || a.Flag("major_surgery"), 1),
        "bedridden > 3 days or major surgery in 12 weeks");
  t.Add("calf_swelling", Pts(a.Flag("calf_swelling"), 1), "calf swelling > 3 cm");
  t.Add("collateral_veins", Pts(a.Flag("collateral_veins"), 1), "collateral superficial veins");
  t.Add("entire_leg_swollen", Pts(a.Flag("entire_leg_swollen"), 1), "entire leg swollen");
  t.Add("localized_tenderness", Pts(a.Flag("localized_tenderness"), 1), "tenderness along deep veins");
  t.Add("pitting_edema", Pts(a.Flag("pitting_edema"), 1), "pitting edema of the symptomatic leg");
  t.Add("paralysis_or_cast", Pts(a.Flag("paralysis_or_cast"), 1), "paralysis, paresis or cast");
  t.Add("previous_dvt", Pts(a.Flag("previous_dvt"), 1), "previous DVT");
  t.Add("alternative_diagnosis", a.Flag("alternative_diagnosis") ? -2 : 0, "alternative diagnosis as likely");
  const double s = t.total();
  // Wells 2003: >= 2 DVT likely, < 2 unlikely; Wells 1997 (3-tier): >= 3 high, 1-2 moderate, <= 0 low.
  return t.Finish(std::string(s >= 2 ? "DVT likely (>= 2)" : "DVT unlikely (< 2)") + "; " +
                  (s >= 3 ? "high" : s >= 1 ? "moderate" : "low") + " pretest probability (Wells 1997/2003)");
}

// ---- RCRI ------------------------------------------------------------------------

Result<CalcOutput> Rcri(const CalcArgs& a) {
  const double scr = a.Number("creatinine");
  Tally t("RCRI");
  // Lee TH et al., Circulation 1999;100:1043-9: one point each.
  t.Add("high_risk_surgery", Pts(a.Flag("high_risk_surgery"), 1), "high-risk surgery");
  t.Add("ischemic_heart_disease", Pts(a.Flag("ischemic_heart_disease"), 1), "ischemic heart disease");
  t.Add("heart_failure", Pts(a.Flag("heart_failure"), 1), "heart failure");
  t.Add("cerebrovascular_disease", Pts(a.Flag("cerebrovascular_disease"), 1), "cerebrovascular disease");
  t.Add("insulin", Pts(a.Flag("insulin"), 1), "insulin treatment");
  t.Add("creatinine", Pts(scr > 2.0, 1), "creatinine " + Num(scr, 2) + " > 2 mg/dL");
  const int s = static_cast<int>(t.total());
  // Lee 1999 validation cohort, major cardiac complications: class I 0.4 %, II 0.9 %, III 6.6 %, IV 11 %.
  static const char* kBands[] = {"Class I: 0.4 % major cardiac complications (Lee 1999)",
                                 "Class II: 0.9 % major cardiac complications (Lee 1999)",
                                 "Class III: 6.6 % major cardiac complications (Lee 1999)",
                                 "Class IV: 11 % major cardiac complications (Lee 1999)"};
  return t.Finish(kBands[s > 3 ? 3 : s]);
}

// ---- HEART -----------------------------------------------------------------------

Result<CalcOutput> Heart(const CalcArgs& a) {
  const double age = a.Number("age");
  Tally t("HEART");
  // Six AJ, Backus BE, Kelder JC, Neth Heart J 2008;16:191-6.
  const std::string& history = a.Choice("history");
  t.Add("history", history == "highly suspicious" ? 2 : history == "moderately suspicious" ? 1 : 0,
        "history " + history);
  const std::string& ecg = a.Choice("ecg");
  t.Add("ecg", ecg == "significant st deviation" ? 2 : ecg == "non-specific repolarization disturbance" ? 1 : 0,
        "ECG " + ecg);
  t.Add("age", age >= 65 ? 2 : age >= 45 ? 1 : 0, "age " + Num(age, 1));
  int factors = 0;
  for (const char* f : {"hypertension", "hypercholesterolemia", "diabetes", "obesity", "smoking", "family_history"}) {
    factors += a.Flag(f) ? 1 : 0;
  }
  const bool atherosclerosis = a.Flag("atherosclerotic_disease") || a.Flag("prior_stroke_or_tia");
  t.Note("risk_factor_count", factors);
  // Risk factors: none 0; 1-2 → 1; >= 3 or known atherosclerotic disease → 2 (Six 2008; Backus BE et al.,
  // Int J Cardiol 2013;168:2153-8).
  t.Add("risk_factors", atherosclerosis || factors >= 3 ? 2 : factors >= 1 ? 1 : 0,
        atherosclerosis ? std::string("known atherosclerotic disease") : Num(factors, 0) + " risk factor(s)");
  const std::string& trop = a.Choice("troponin");
  t.Add("troponin", trop == "greater than three times normal limit" ? 2 : trop == "less than or equal to normal limit" ? 0 : 1,
        "troponin " + trop);
  const double s = t.total();
  // Backus 2013: 0-3 low (MACE 1.7 %), 4-6 moderate (16.6 %), 7-10 high (50.1 %) 6-week MACE.
  return t.Finish(s <= 3   ? "Low risk: 6-week MACE 1.7 % (Backus 2013)"
                  : s <= 6 ? "Moderate risk: 6-week MACE 16.6 % (Backus 2013)"
                           : "High risk: 6-week MACE 50.1 % (Backus 2013)");
}

// ---- HAS-BLED --------------------------------------------------------------------

Result<CalcOutput> HasBled(const CalcArgs& a) {
  const double age = a.Number("age");
  const int drinks = a.Has("alcohol_drinks_per_week") ? a.Integer("alcohol_drinks_per_week") : 0;
  Tally t("HAS-BLED");
  // Pisters R et al., Chest 2010;138:1093-100: one point each; elderly = age > 65; alcohol = >= 8 drinks/week.
  t.Add("hypertension", Pts(a.Flag("hypertension"), 1), "hypertension");
  t.Add("renal_disease", Pts(a.Flag("renal_disease"), 1), "abnormal renal function");
  t.Add("liver_disease", Pts(a.Flag("liver_disease"), 1), "abnormal liver function");
  t.Add("stroke", Pts(a.Flag("stroke"), 1), "stroke");
  t.Add("bleeding", Pts(a.Flag("bleeding"), 1), "prior bleeding/predisposition");
  t.Add("labile_inr", Pts(a.Flag("labile_inr"), 1), "labile INR");
  t.Add("elderly", Pts(age > 65, 1), "age " + Num(age, 1) + " > 65");
  t.Add("drugs", Pts(a.Flag("drugs"), 1), "antiplatelet/NSAID use");
  t.Add("alcohol", Pts(a.Flag("alcohol_use") || drinks >= 8, 1), "alcohol >= 8 drinks/week");
  // Pisters 2010: >= 3 indicates high bleeding risk (caution and regular review).
  return t.Finish(t.total() >= 3 ? "High bleeding risk (>= 3; Pisters 2010)" : "Bleeding risk not high (< 3; Pisters 2010)");
}

// ---- Caprini ---------------------------------------------------------------------

Result<CalcOutput> Caprini(const CalcArgs& a) {
  const double age = a.Number("age");
  const double bmi = a.Number("bmi");
  Tally t("Caprini");
  // Caprini JA, Dis Mon 2005;51:70-8 (the 2005 risk assessment form): weights 1, 2, 3 and 5.
  t.Add("age", age >= 75 ? 3 : age > 60 ? 2 : age > 40 ? 1 : 0, "age " + Num(age, 1));
  const std::string surgery = a.Has("surgery_type") ? a.Choice("surgery_type") : "none";
  t.Add("surgery_type",
        surgery == "elective major lower extremity arthroplasty" ? 5
        : surgery == "major" || surgery == "laparoscopic" || surgery == "arthroscopic" ? 2
        : surgery == "minor" ? 1 : 0,
        surgery + " surgery");
  const std::string mobility = a.Has("mobility") ? a.Choice("mobility") : "normal";
  t.Add("mobility", mobility == "confined to bed >72 hours" ? 2 : mobility == "on bed rest" ? 1 : 0,
        "mobility " + mobility);
  t.Add("bmi", Pts(bmi > 25, 1), "BMI " + Num(bmi, 1) + " > 25");
  struct Item { const char* name; int points; const char* label; };
  static const Item kItems[] = {
      {"recent_major_surgery", 1, "major surgery < 1 month"},
      {"recent_chf", 1, "heart failure < 1 month"},
      {"recent_sepsis", 1, "sepsis < 1 month"},
      {"recent_pneumonia", 1, "pneumonia < 1 month"},
      {"plaster_cast", 2, "immobilizing plaster cast"},
      {"hip_pelvis_leg_fracture", 5, "hip, pelvis or leg fracture"},
      {"recent_stroke", 5, "stroke < 1 month"},
      {"multiple_trauma", 5, "multiple trauma < 1 month"},
      {"spinal_cord_injury", 5, "acute spinal cord injury with paralysis"},
      {"varicose_veins", 1, "varicose veins"},
      {"swollen_legs", 1, "swollen legs"},
      {"central_venous_access", 2, "central venous access"},
      {"family_history_thrombosis", 3, "family history of thrombosis"},
      {"factor_v_leiden", 3, "factor V Leiden"},
      {"prothrombin_20210a", 3, "prothrombin 20210A"},
      {"homocysteine", 3, "elevated homocysteine"},
      {"lupus_anticoagulant", 3, "lupus anticoagulant"},
      {"anticardiolipin", 3, "anticardiolipin antibody"},
      {"heparin_induced_thrombocytopenia", 3, "heparin-induced thrombocytopenia"},
      {"other_thrombophilia", 3, "other thrombophilia"},
      {"inflammatory_bowel_disease", 1, "inflammatory bowel disease"},
      {"acute_mi", 1, "acute myocardial infarction"},
      {"copd", 1, "COPD"},
      {"malignancy", 2, "malignancy"},
      {"pregnant_or_postpartum", 1, "pregnancy or postpartum"},
      {"pregnancy_loss_history", 1, "unexplained stillborn or recurrent abortion"},
      {"hormones", 1, "oral contraceptives or hormone therapy"},
      {"other_risk_factor", 1, "other risk factor"},
  };
  for (const Item& item : kItems) t.Add(item.name, Pts(a.Flag(item.name), item.points), item.label);
  // "History of DVT/PE" is one 3-point item on the 2005 form.
  t.Add("history_of_vte", Pts(a.Flag("previous_dvt") || a.Flag("previous_pe"), 3), "history of DVT/PE");
  const double s = t.total();
  // Caprini 2005 risk levels: 0-1 low, 2 moderate, 3-4 high, >= 5 highest.
  return t.Finish(s <= 1   ? "Low risk (0-1; Caprini 2005)"
                  : s == 2 ? "Moderate risk (2; Caprini 2005)"
                  : s <= 4 ? "High risk (3-4; Caprini 2005)"
                           : "Highest risk (>= 5; Caprini 2005)");
}

// ---- Framingham hard CHD ------------------------------------------------------------

Result<CalcOutput> FraminghamHardChd(const CalcArgs& a) {
  const double age = a.Number("age");
  const double tc = a.Number("total_cholesterol");
  const double hdl = a.Number("hdl_cholesterol");
  const double sbp = a.Number("systolic_bp");
  const bool treated = a.Flag("bp_treated");
  const bool smoker = a.Flag("smoker");
  const bool female = a.IsFemale();
  // NCEP ATP III 10-year hard CHD (MI or coronary death) risk equation (Framingham; JAMA 2001;285:2486-97, its
  // risk-assessment tool), cholesterol in mg/dL. The age in the age x smoker term is capped at 70 (men) / 78
  // (women).
  const double ln_age = std::log(age);
  const double ln_age_smoke = std::log(std::min(age, female ? 78.0 : 70.0));
  double sum = 0;
  double baseline = 0;
  if (female) {
    sum = 31.764001 * ln_age + 22.465206 * std::log(tc) - 1.187731 * std::log(hdl) + 2.552905 * std::log(sbp) +
          0.420251 * treated + 13.07543 * smoker - 5.060998 * ln_age * std::log(tc) -
          2.996945 * ln_age_smoke * smoker - 146.5933061;
    baseline = 0.98767;
  } else {
    sum = 52.00961 * ln_age + 20.014077 * std::log(tc) - 0.905964 * std::log(hdl) + 1.305784 * std::log(sbp) +
          0.241549 * treated + 12.096316 * smoker - 4.605038 * ln_age * std::log(tc) -
          2.84367 * ln_age_smoke * smoker - 2.93323 * ln_age * ln_age - 172.300168;
    baseline = 0.9402;
  }
  CalcOutput out;
  out.value = (1.0 - std::pow(baseline, std::exp(sum))) * 100.0;
  out.unit = "%";
  out.terms = {{"linear_predictor", sum}, {"baseline_survival", baseline}, {"smoker", smoker},
               {"bp_treated", treated}};
  out.explanation = "10-year hard CHD risk = (1 - " + Num(baseline, 5) + "^exp(" + Num(sum, 3) + ")) x 100 = " +
                    Num(out.value, 1) + " % (" + (female ? "women's" : "men's") + " equation, TC " + Num(tc, 0) +
                    ", HDL " + Num(hdl, 0) + " mg/dL, SBP " + Num(sbp, 0) + (treated ? " treated" : "") +
                    (smoker ? ", smoker" : "") + ")";
  // ATP III (JAMA 2001): < 10 % lower risk, 10-20 % intermediate, > 20 % CHD risk equivalent.
  out.interpretation = out.value > 20    ? "> 20 %: high risk, CHD risk equivalent (ATP III 2001)"
                       : out.value >= 10 ? "10-20 %: intermediate risk (ATP III 2001)"
                                         : "< 10 %: lower risk (ATP III 2001)";
  if (age < 20 || age > 79) out.interpretation += "; the equation was derived for ages 20-79";
  return out;
}

// ---- PERC ------------------------------------------------------------------------

Result<CalcOutput> Perc(const CalcArgs& a) {
  const double age = a.Number("age");
  const double hr = a.Number("heart_rate");
  const double sat = a.Number("oxygen_saturation");
  Tally t("PERC");
  // Kline JA et al., J Thromb Haemost 2004;2:1247-55: each criterion met counts 1.
  t.Add("age", Pts(age >= 50, 1), "age " + Num(age, 1) + " >= 50");
  t.Add("heart_rate", Pts(hr >= 100, 1), "HR " + Num(hr, 0) + " >= 100");
  t.Add("oxygen_saturation", Pts(sat < 95, 1), "SaO2 " + Num(sat, 1) + " % < 95");
  t.Add("unilateral_leg_swelling", Pts(a.Flag("unilateral_leg_swelling"), 1), "unilateral leg swelling");
  t.Add("hemoptysis", Pts(a.Flag("hemoptysis"), 1), "hemoptysis");
  t.Add("recent_surgery_or_trauma", Pts(a.Flag("recent_surgery_or_trauma"), 1), "recent surgery/trauma");
  t.Add("previous_pe_or_dvt", Pts(a.Flag("previous_pe") || a.Flag("previous_dvt"), 1), "prior PE or DVT");
  t.Add("hormone_use", Pts(a.Flag("hormone_use"), 1), "hormone use");
  // Kline 2004: with low clinical pretest probability, no criterion met rules out PE without testing.
  return t.Finish(t.total() == 0 ? "PERC negative: PE ruled out if pretest probability is low (Kline 2004)"
                                 : "PERC positive: PE cannot be ruled out by PERC (Kline 2004)");
}

}  // namespace

void AddRiskScoreCalculators(std::vector<Calculator>& out) {
  out.push_back({
      .name = "cha2ds2_vasc",
      .title = "CHA2DS2-VASc Score for Atrial Fibrillation Stroke Risk",
      .description = "Stroke risk score (0-9) in non-valvular atrial fibrillation, to decide on anticoagulation. "
                     "Unrecorded conditions count as absent.",
      .citation = "Lip GYH, Nieuwlaat R, Pisters R, Lane DA, Crijns HJGM. Refining clinical risk stratification for "
                  "predicting stroke and thromboembolism in atrial fibrillation using a novel risk factor-based "
                  "approach: the Euro Heart Survey on Atrial Fibrillation. Chest 2010;137:263-72.",
      .medcalc_id = 4,
      .inputs = {AgeInput(), SexInput(),
                 Criterion("congestive_heart_failure", "Congestive heart failure (or LV dysfunction).",
                           {"congestive heart faliure", "congestive heart failure"}),
                 Criterion("hypertension", "History of hypertension.", {"hypertension history", "hypertension"}),
                 Criterion("stroke", "Prior stroke.", {"stroke", "stroke history"}),
                 Criterion("tia", "Prior transient ischemic attack.", {"transient ischemic attacks history"}),
                 Criterion("thromboembolism", "Prior thromboembolism.", {"thromboembolism history"}),
                 Criterion("vascular_disease", "Vascular disease (prior MI, peripheral artery disease, aortic plaque).",
                           {"vascular disease history"}),
                 Criterion("diabetes", "Diabetes mellitus.", {"diabetes history", "diabetes mellitus"})},
      .compute = Cha2ds2Vasc,
  });
  out.push_back({
      .name = "wells_pe",
      .title = "Wells' Criteria for Pulmonary Embolism",
      .description = "Pretest probability of pulmonary embolism (0-12.5) from Wells' seven criteria. Unrecorded "
                     "criteria count as absent.",
      .citation = "Wells PS, Anderson DR, Rodger M et al. Derivation of a simple clinical model to categorize "
                  "patients probability of pulmonary embolism. Thromb Haemost 2000;83:416-20.",
      .medcalc_id = 8,
      .inputs = {HeartRateInput(),
                 Criterion("dvt_signs", "Clinical signs and symptoms of DVT.",
                           {"clinical signs and symptoms of deep vein thrombosis"}),
                 Criterion("pe_most_likely", "PE is the #1 diagnosis or equally likely.",
                           {"pulmonary embolism is #1 diagnosis or equally likely"}),
                 Criterion("immobilization", "Immobilization for at least 3 days.",
                           {"immobilization for at least 3 days"}),
                 Criterion("recent_surgery", "Surgery in the previous 4 weeks.", {"surgery in the previous 4 weeks"}),
                 PriorPe(), PriorDvt(),
                 Criterion("hemoptysis", "Hemoptysis.", {"hemoptysis"}),
                 Criterion("malignancy", "Malignancy with treatment within 6 months or palliative.",
                           {"malignancy with treatment within 6 months or palliative"})},
      .compute = WellsPe,
  });
  out.push_back({
      .name = "wells_dvt",
      .title = "Wells' Criteria for DVT",
      .description = "Pretest probability of deep vein thrombosis (-2 to 9) from Wells' criteria including "
                     "previous DVT. Unrecorded criteria count as absent.",
      .citation = "Wells PS, Anderson DR, Bormanis J et al. Value of assessment of pretest probability of deep-vein "
                  "thrombosis in clinical management. Lancet 1997;350:1795-8. Wells PS, Anderson DR, Rodger M et al. "
                  "Evaluation of D-dimer in the diagnosis of suspected deep-vein thrombosis. N Engl J Med "
                  "2003;349:1227-35.",
      .medcalc_id = 16,
      .inputs = {Criterion("active_cancer", "Active cancer (treatment within 6 months or palliative).",
                           {"active cancer"}),
                 Criterion("bedridden_or_major_surgery",
                           "Bedridden recently > 3 days or major surgery within 12 weeks.",
                           {"bedridden recently >3 days or major surgery within 12 weeks"}),
                 Criterion("major_surgery", "Major surgery within 12 weeks (same criterion as bedridden).",
                           {"major surgery within 12 weeks"}),
                 Criterion("calf_swelling", "Calf swelling > 3 cm compared with the other leg.",
                           {"calf swelling >3 centimeters compared to the other leg"}),
                 Criterion("collateral_veins", "Collateral (nonvaricose) superficial veins.",
                           {"collateral (nonvaricose) superficial veins present"}),
                 Criterion("entire_leg_swollen", "Entire leg swollen.", {"entire leg swollen"}),
                 Criterion("localized_tenderness", "Localized tenderness along the deep venous system.",
                           {"localized tenderness along the deep venous system"}),
                 Criterion("pitting_edema", "Pitting edema confined to the symptomatic leg.",
                           {"pitting edema, confined to symptomatic leg"}),
                 Criterion("paralysis_or_cast",
                           "Paralysis, paresis or recent plaster immobilization of the lower extremity.",
                           {"paralysis, paresis, or recent plaster immobilization of the lower extremity"}),
                 PriorDvt(),
                 Criterion("alternative_diagnosis", "Alternative diagnosis at least as likely as DVT (-2).",
                           {"alternative diagnosis to deep vein thrombosis as likely or more likely"})},
      .compute = WellsDvt,
  });
  out.push_back({
      .name = "revised_cardiac_risk_index",
      .title = "Revised Cardiac Risk Index for Pre-Operative Risk",
      .description = "Lee's index (0-6) of major cardiac complications after non-cardiac surgery. Unrecorded "
                     "criteria count as absent; creatinine is required.",
      .citation = "Lee TH, Marcantonio ER, Mangione CM et al. Derivation and prospective validation of a simple index "
                  "for prediction of cardiac risk of major noncardiac surgery. Circulation 1999;100:1043-9.",
      .medcalc_id = 17,
      .inputs = {Criterion("high_risk_surgery", "Elevated-risk surgery (intraperitoneal, intrathoracic or "
                                                "suprainguinal vascular).",
                           {"elevated-risk surgery"}),
                 Criterion("ischemic_heart_disease", "History of ischemic heart disease.",
                           {"history of ischemic heart disease"}),
                 Criterion("heart_failure", "History of congestive heart failure.",
                           {"congestive heart failure criteria for the cardiac risk index rule"}),
                 Criterion("cerebrovascular_disease", "History of stroke or TIA.",
                           {"cerebrovascular disease history", "history of cerebrovascular disease"}),
                 Criterion("insulin", "Pre-operative treatment with insulin.",
                           {"pre-operative treatment with insulin"}),
                 Measurement("creatinine", "Pre-operative serum creatinine.", Dimension::kCreatinine, 0.05, 40,
                             {"pre-operative creatinine", "creatinine"})},
      .compute = Rcri,
  });
  out.push_back({
      .name = "heart_score",
      .title = "HEART Score for Major Cardiac Events",
      .description = "History, ECG, Age, Risk factors, Troponin (0-10): 6-week risk of major adverse cardiac events "
                     "in emergency chest pain. Risk factors: hypertension, hypercholesterolemia, diabetes, obesity "
                     "(BMI > 30), smoking, family history; known atherosclerotic disease scores 2.",
      .citation = "Six AJ, Backus BE, Kelder JC. Chest pain in the emergency room: value of the HEART score. Neth "
                  "Heart J 2008;16:191-6. Backus BE et al. A prospective validation of the HEART score for chest pain "
                  "patients at the emergency department. Int J Cardiol 2013;168:2153-8.",
      .medcalc_id = 18,
      .inputs = {Pick("history", "Suspicion from the history.",
                      {"slightly suspicious", "moderately suspicious", "highly suspicious"}, {"suspicion history"}),
                 Pick("ecg", "ECG finding.",
                      {"normal", "non-specific repolarization disturbance", "significant st deviation"},
                      {"electrocardiogram test"}),
                 AgeInput(),
                 Pick("troponin", "Initial troponin relative to the normal limit.",
                      {"less than or equal to normal limit",
                       "between the normal limit or up to three times the normal limit",
                       "greater than three times normal limit"},
                      {"initial troponin"}),
                 Criterion("hypertension", "Hypertension.", {"hypertension history", "hypertension"}),
                 Criterion("hypercholesterolemia", "Hypercholesterolemia.", {"hypercholesterolemia"}),
                 Criterion("diabetes", "Diabetes mellitus.", {"diabetes mellitus criteria for cci rule", "diabetes"}),
                 Criterion("obesity", "Obesity (BMI > 30).", {"obesity"}),
                 Criterion("smoking", "Current or recent (< 3 months) smoker.", {"smoking"}),
                 Criterion("family_history", "Parent or sibling with cardiovascular disease before age 65.",
                           {"parent or sibling with cardiovascular disease before age 65"}),
                 Criterion("atherosclerotic_disease", "Known atherosclerotic disease (prior MI, PCI/CABG, "
                                                      "stroke/TIA, peripheral arterial disease).",
                           {"atherosclerotic disease"}),
                 Criterion("prior_stroke_or_tia", "Prior stroke or TIA (counts as atherosclerotic disease).",
                           {"transient ischemic attacks history"})},
      .compute = Heart,
  });
  out.push_back({
      .name = "has_bled",
      .title = "HAS-BLED Score for Major Bleeding Risk",
      .description = "One-year major bleeding risk (0-9) on anticoagulation for atrial fibrillation. Alcohol "
                     "scores at >= 8 drinks/week (or alcohol_use). Unrecorded criteria count as absent.",
      .citation = "Pisters R, Lane DA, Nieuwlaat R et al. A novel user-friendly score (HAS-BLED) to assess 1-year "
                  "risk of major bleeding in patients with atrial fibrillation. Chest 2010;138:1093-100.",
      .medcalc_id = 25,
      .inputs = {AgeInput(),
                 Criterion("hypertension", "Uncontrolled hypertension (SBP > 160 mmHg).",
                           {"hypertension history", "hypertension"}),
                 Criterion("renal_disease", "Abnormal renal function (dialysis, transplant, Cr > 2.26 mg/dL).",
                           {"renal disease criteria for the has-bled rule"}),
                 Criterion("liver_disease", "Abnormal liver function (cirrhosis, bilirubin > 2x or AST/ALT > 3x "
                                            "normal).",
                           {"liver disease criteria for the has-bled rule"}),
                 Criterion("stroke", "Prior stroke.", {"stroke", "stroke history"}),
                 Criterion("bleeding", "Prior major bleeding or predisposition to bleeding.",
                           {"prior major bleeding or predisposition to bleeding"}),
                 Criterion("labile_inr", "Labile INR (time in therapeutic range < 60 %).",
                           {"labile international normalized ratio"}),
                 Criterion("drugs", "Medication predisposing to bleeding (antiplatelets, NSAIDs).",
                           {"medication usage predisposing to bleeding"}),
                 {.name = "alcohol_drinks_per_week", .type = InputType::kInteger,
                  .description = "Alcoholic drinks per week (>= 8 scores).", .required = false, .min = 0, .max = 500,
                  .aliases = {"number of alcoholic drinks per week"}},
                 Criterion("alcohol_use", "Alcohol use >= 8 drinks/week, when the count is not known.")},
      .compute = HasBled,
  });
  out.push_back({
      .name = "caprini_vte",
      .title = "Caprini Score for Venous Thromboembolism (2005)",
      .description = "Caprini 2005 VTE risk assessment for surgical patients (sum of 1-5 point factors). Surgery "
                     "type and mobility default to none/normal; other factors count as absent when unrecorded.",
      .citation = "Caprini JA. Thrombosis risk assessment as a guide to quality patient care. Dis Mon "
                  "2005;51:70-8.",
      .medcalc_id = 36,
      .inputs = {AgeInput(), SexInput(),
                 Pick("surgery_type", "Type of surgery.",
                      {"none", "minor", "major", "laparoscopic", "arthroscopic",
                       "elective major lower extremity arthroplasty"},
                      {"surgery type"}, false),
                 Pick("mobility", "Mobility.", {"normal", "on bed rest", "confined to bed >72 hours"}, {"mobility"},
                      false),
                 Measurement("bmi", "Body mass index.", Dimension::kBmi, 8, 120, {"body mass index (bmi)", "bmi"}),
                 Criterion("recent_major_surgery", "Major surgery in the last month.",
                           {"major surgery in the last month"}),
                 Criterion("recent_chf", "Congestive heart failure in the last month.",
                           {"congestive heart failure in the last month"}),
                 Criterion("recent_sepsis", "Sepsis in the last month.", {"sepsis in the last month"}),
                 Criterion("recent_pneumonia", "Pneumonia in the last month.", {"pneumonia in the last month"}),
                 Criterion("plaster_cast", "Immobilizing plaster cast in the last month.",
                           {"immobilizing plaster cast in the last month"}),
                 Criterion("hip_pelvis_leg_fracture", "Hip, pelvis or leg fracture in the last month.",
                           {"hip, pelvis, or leg fracture in the last month"}),
                 Criterion("recent_stroke", "Stroke in the last month.", {"stroke in the last month"}),
                 Criterion("multiple_trauma", "Multiple trauma in the last month.",
                           {"multiple trauma in the last month"}),
                 Criterion("spinal_cord_injury", "Acute spinal cord injury causing paralysis in the last month.",
                           {"acute spinal cord injury causing paralysis in the last month"}),
                 Criterion("varicose_veins", "Varicose veins.", {"varicose veins"}),
                 Criterion("swollen_legs", "Current swollen legs.", {"current swollen legs"}),
                 Criterion("central_venous_access", "Current central venous access.",
                           {"current central venous access"}),
                 PriorDvt(), PriorPe(),
                 Criterion("family_history_thrombosis", "Family history of thrombosis.",
                           {"family history of thrombosis"}),
                 Criterion("factor_v_leiden", "Positive factor V Leiden.", {"positive factor v leiden"}),
                 Criterion("prothrombin_20210a", "Positive prothrombin 20210A.", {"positive prothrombin 20210a"}),
                 Criterion("homocysteine", "Elevated serum homocysteine.", {"elevated serum homocysteine"}),
                 Criterion("lupus_anticoagulant", "Positive lupus anticoagulant.", {"positive lupus anticoagulant"}),
                 Criterion("anticardiolipin", "Elevated anticardiolipin antibody.",
                           {"elevated anticardiolipin antibody"}),
                 Criterion("heparin_induced_thrombocytopenia", "Heparin-induced thrombocytopenia.",
                           {"heparin-induced thrombocytopenia"}),
                 Criterion("other_thrombophilia", "Other congenital or acquired thrombophilia.",
                           {"other congenital or acquired thrombophilia"}),
                 Criterion("inflammatory_bowel_disease", "History of inflammatory bowel disease.",
                           {"history of inflammatory bowel disease"}),
                 Criterion("acute_mi", "Acute myocardial infarction.", {"acute myocardial infarction"}),
                 Criterion("copd", "COPD (abnormal pulmonary function).", {"chronic obstructive pulmonary disease"}),
                 Criterion("malignancy", "Present or previous malignancy.", {"present or previous malignancy"}),
                 Criterion("pregnant_or_postpartum", "Pregnant or postpartum."),
                 Criterion("pregnancy_loss_history", "History of unexplained stillborn, recurrent spontaneous "
                                                     "abortion (>= 3) or premature birth with toxemia."),
                 Criterion("hormones", "Oral contraceptives or hormone replacement therapy."),
                 Criterion("other_risk_factor", "Other risk factor (1 point).")},
      .compute = Caprini,
  });
  out.push_back({
      .name = "framingham_hard_chd",
      .title = "Framingham Risk Score for Hard Coronary Heart Disease",
      .description = "10-year risk (%) of myocardial infarction or coronary death for adults 20-79 without heart "
                     "disease or diabetes (NCEP ATP III Framingham equation, cholesterol in mg/dL).",
      .citation = "Expert Panel on Detection, Evaluation, and Treatment of High Blood Cholesterol in Adults. Executive "
                  "summary of the third report of the NCEP (Adult Treatment Panel III). JAMA 2001;285:2486-97 (10-year "
                  "hard CHD risk equation of its risk-assessment tool, from Framingham Heart Study data; Wilson PWF et "
                  "al., Circulation 1998;97:1837-47).",
      .medcalc_id = 46,
      .inputs = {AgeInput(), SexInput(),
                 Measurement("total_cholesterol", "Total cholesterol.", Dimension::kCholesterol, 40, 1000,
                             {"total cholesterol"}),
                 Measurement("hdl_cholesterol", "HDL cholesterol.", Dimension::kCholesterol, 5, 200,
                             {"high-density lipoprotein cholesterol", "hdl cholesterol", "hdl"}),
                 SystolicInput(),
                 Criterion("bp_treated", "Blood pressure treated with medication.",
                           {"blood pressure being treated with medicines"}),
                 Criterion("smoker", "Current smoker.", {"smoker", "smoking"})},
      .compute = FraminghamHardChd,
  });
  out.push_back({
      .name = "perc_rule",
      .title = "PERC Rule for Pulmonary Embolism",
      .description = "Number of Pulmonary Embolism Rule-out Criteria met (0-8); 0 with low pretest probability rules "
                     "out PE. Unrecorded history items count as absent.",
      .citation = "Kline JA, Mitchell AM, Kabrhel C, Richman PB, Courtney DM. Clinical criteria to prevent unnecessary "
                  "diagnostic testing in emergency department patients with suspected pulmonary embolism. J Thromb "
                  "Haemost 2004;2:1247-55.",
      .medcalc_id = 48,
      .inputs = {AgeInput(), HeartRateInput(),
                 Measurement("oxygen_saturation", "Oxygen saturation on room air.", Dimension::kPercent, 30, 100,
                             {"o₂ saturation percentage", "o2 saturation percentage", "oxygen saturation", "spo2"}),
                 Criterion("unilateral_leg_swelling", "Unilateral leg swelling.", {"unilateral leg swelling"}),
                 Criterion("hemoptysis", "Hemoptysis.", {"hemoptysis"}),
                 Criterion("recent_surgery_or_trauma", "Surgery or trauma within 4 weeks.",
                           {"recent surgery or trauma"}),
                 PriorPe(), PriorDvt(),
                 Criterion("hormone_use", "Hormone use (oral contraceptives, hormone replacement, estrogen).",
                           {"hormone use"})},
      .compute = Perc,
  });
}

}  // namespace medreact::calc
