// Acute-care scores (issue 4): Centor/McIsaac, Glasgow-Blatchford,
// FeverPAIN, CURB-65, SIRS, Charlson comorbidity index. Each criterion is an
// input (booleans: absent = not present, as the published scores and
// MedCalc-Bench treat an unrecorded finding); `terms` holds each criterion's
// points. Every weight and band below carries its source.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "tools/calc/calc_common.h"
#include "tools/calc/calculator.h"

namespace medreact::calc {
namespace {

CalcInput Bun() {
  return Measurement("bun", "Blood urea nitrogen (urea in mmol/L converts 1:1 as urea nitrogen).", Dimension::kUrea, 0,
                     300, {"blood urea nitrogen (bun)", "blood urea nitrogen", "bun", "urea"});
}

// ---- Centor / McIsaac ------------------------------------------------------------

Result<CalcOutput> McIsaac(const CalcArgs& a) {
  const double age = a.Number("age");
  const double temp = a.Number("temperature");
  Tally t("Centor (McIsaac)");
  // McIsaac WJ et al., CMAJ 1998;158:75-83: Centor criteria 1 each; age 3-14 +1, 15-44 0, >= 45 -1
  // (under 3 years the score was not derived; no age points are given).
  t.Add("age", age >= 3 && age < 15 ? 1 : age >= 45 ? -1 : 0, "age " + Num(age, 1));
  t.Add("temperature", Pts(temp > 38.0, 1), "temperature " + Num(temp, 1) + " > 38 °C");
  t.Add("cough_absent", Pts(a.Flag("cough_absent"), 1), "cough absent");
  t.Add("tonsillar_exudate_or_swelling", Pts(a.Flag("tonsillar_exudate_or_swelling"), 1), "tonsillar exudate/swelling");
  t.Add("tender_anterior_nodes", Pts(a.Flag("tender_anterior_nodes"), 1), "tender/swollen anterior nodes");
  const double s = t.total();
  // McIsaac WJ et al., JAMA 2004;291:1587-95: strep likelihood <= 0: 1-2.5 %, 1: 5-10 %, 2: 11-17 %,
  // 3: 28-35 %, >= 4: 51-53 %.
  return t.Finish(s <= 0   ? "Group A strep 1-2.5 %: no testing or antibiotics (McIsaac 2004)"
                  : s == 1 ? "Group A strep 5-10 %: no testing or antibiotics (McIsaac 2004)"
                  : s == 2 ? "Group A strep 11-17 %: test, treat if positive (McIsaac 2004)"
                  : s == 3 ? "Group A strep 28-35 %: test, treat if positive (McIsaac 2004)"
                           : "Group A strep 51-53 %: test or treat empirically (McIsaac 2004)");
}

// ---- Glasgow-Blatchford ------------------------------------------------------------

Result<CalcOutput> Blatchford(const CalcArgs& a) {
  const double bun = a.Number("bun");
  const double urea = bun / 2.801;  // mmol/L (the published table's unit)
  const double hb = a.Number("hemoglobin");
  const double sbp = a.Number("systolic_bp");
  const double hr = a.Number("heart_rate");
  const bool female = a.IsFemale();
  Tally t("Glasgow-Blatchford");
  // Blatchford O, Murray WR, Blatchford M, Lancet 2000;356:1318-21.
  t.Note("urea_mmol_per_l", urea);
  t.Add("urea", urea >= 25 ? 6 : urea >= 10 ? 4 : urea >= 8 ? 3 : urea >= 6.5 ? 2 : 0,
        "urea " + Num(urea, 1) + " mmol/L");
  const int hb_points = female ? (hb < 10 ? 6 : hb < 12 ? 1 : 0) : (hb < 10 ? 6 : hb < 12 ? 3 : hb < 13 ? 1 : 0);
  t.Add("hemoglobin", hb_points, "hemoglobin " + Num(hb, 1) + " g/dL");
  t.Add("systolic_bp", sbp < 90 ? 3 : sbp < 100 ? 2 : sbp < 110 ? 1 : 0, "SBP " + Num(sbp, 0));
  t.Add("heart_rate", Pts(hr >= 100, 1), "pulse " + Num(hr, 0) + " >= 100");
  t.Add("melena", Pts(a.Flag("melena"), 1), "melena");
  t.Add("syncope", Pts(a.Flag("syncope"), 2), "syncope");
  t.Add("hepatic_disease", Pts(a.Flag("hepatic_disease"), 2), "hepatic disease");
  t.Add("cardiac_failure", Pts(a.Flag("cardiac_failure"), 2), "cardiac failure");
  // Stanley AJ et al., Lancet 2009;373:42-7: a score of 0 identifies patients safe for outpatient management.
  return t.Finish(t.total() == 0 ? "Score 0: low risk, outpatient management possible (Stanley 2009)"
                                 : "Score > 0: admission for possible intervention (Stanley 2009)");
}

// ---- FeverPAIN -------------------------------------------------------------------

Result<CalcOutput> FeverPain(const CalcArgs& a) {
  Tally t("FeverPAIN");
  // Little P et al., BMJ 2013;347:f5806: one point each.
  t.Add("fever", Pts(a.Flag("fever"), 1), "fever in past 24 h");
  t.Add("purulence", Pts(a.Flag("purulence"), 1), "purulent tonsils");
  t.Add("attend_rapidly", Pts(a.Flag("attend_rapidly"), 1), "onset <= 3 days");
  t.Add("inflamed_tonsils", Pts(a.Flag("inflamed_tonsils"), 1), "severely inflamed tonsils");
  t.Add("no_cough_or_coryza", Pts(a.Flag("no_cough_or_coryza"), 1), "no cough or coryza");
  const double s = t.total();
  // Little 2013 strep isolation rates: 0-1 13-18 %, 2-3 34-40 %, 4-5 62-65 %; NICE NG84 (2018) antibiotic advice.
  return t.Finish(s <= 1   ? "Strep 13-18 %: no antibiotic (Little 2013; NICE NG84)"
                  : s <= 3 ? "Strep 34-40 %: consider no or a back-up antibiotic (Little 2013; NICE NG84)"
                           : "Strep 62-65 %: consider immediate or back-up antibiotic (Little 2013; NICE NG84)");
}

// ---- CURB-65 ---------------------------------------------------------------------

Result<CalcOutput> Curb65(const CalcArgs& a) {
  const double age = a.Number("age");
  const double bun = a.Number("bun");
  const double urea = bun / 2.801;
  const double rr = a.Number("respiratory_rate");
  const double sbp = a.Number("systolic_bp");
  const double dbp = a.Number("diastolic_bp");
  Tally t("CURB-65");
  // Lim WS et al., Thorax 2003;58:377-82: confusion; urea > 7 mmol/L (BUN > 19.6 mg/dL); RR >= 30;
  // SBP < 90 or DBP <= 60; age >= 65.
  t.Note("urea_mmol_per_l", urea);
  t.Add("confusion", Pts(a.Flag("confusion"), 1), "confusion");
  t.Add("urea", Pts(urea > 7.0, 1), "urea " + Num(urea, 1) + " mmol/L > 7");
  t.Add("respiratory_rate", Pts(rr >= 30, 1), "RR " + Num(rr, 0) + " >= 30");
  t.Add("blood_pressure", Pts(sbp < 90 || dbp <= 60, 1), "BP " + Num(sbp, 0) + "/" + Num(dbp, 0));
  t.Add("age", Pts(age >= 65, 1), "age " + Num(age, 1) + " >= 65");
  const double s = t.total();
  // Lim 2003 30-day mortality: 0 0.7 %, 1 2.1 %, 2 9.2 %, 3 14.5 %, 4 40 %, 5 57 %.
  return t.Finish(s <= 1   ? "Low risk (30-day mortality 0.7-2.1 %): consider home treatment (Lim 2003)"
                  : s == 2 ? "Moderate risk (9.2 %): consider hospital treatment (Lim 2003)"
                           : "Severe pneumonia (14.5-57 %): hospital, consider ICU at 4-5 (Lim 2003)");
}

// ---- SIRS ------------------------------------------------------------------------

Result<CalcOutput> Sirs(const CalcArgs& a) {
  const double temp = a.Number("temperature");
  const double hr = a.Number("heart_rate");
  const double rr = a.Number("respiratory_rate");
  const double wbc = a.Number("wbc");
  Tally t("SIRS");
  // Bone RC et al. (ACCP/SCCM), Chest 1992;101:1644-55: T > 38 or < 36 °C; HR > 90; RR > 20 or PaCO2 < 32 mmHg;
  // WBC > 12 or < 4 x10^9/L or > 10 % bands.
  t.Add("temperature", Pts(temp > 38 || temp < 36, 1), "temperature " + Num(temp, 1) + " °C");
  t.Add("heart_rate", Pts(hr > 90, 1), "HR " + Num(hr, 0) + " > 90");
  const bool resp = rr > 20 || (a.Has("paco2") && a.Number("paco2") < 32);
  t.Add("respiration", Pts(resp, 1), "RR " + Num(rr, 0) + (a.Has("paco2") ? " / PaCO2 " + Num(a.Number("paco2"), 0) : ""));
  const bool bands = a.Has("bands_percent") && a.Number("bands_percent") > 10;
  t.Add("white_cells", Pts(wbc > 12 || wbc < 4 || bands, 1), "WBC " + Num(wbc, 1) + " x10^9/L");
  const int n = static_cast<int>(t.total());
  // Bone 1992: SIRS = two or more criteria.
  return t.Finish(n >= 2 ? "SIRS present (>= 2 criteria; Bone 1992)" : "SIRS criteria not met (< 2; Bone 1992)");
}

// ---- Charlson --------------------------------------------------------------------

Result<CalcOutput> Charlson(const CalcArgs& a) {
  const double age = a.Number("age");
  Tally t("Charlson");
  // Charlson ME et al., J Chronic Dis 1987;40:373-83 (weights); age points Charlson M et al., J Clin Epidemiol
  // 1994;47:1245-51: 50-59 1, 60-69 2, 70-79 3, >= 80 4.
  t.Add("age", age >= 80 ? 4 : age >= 70 ? 3 : age >= 60 ? 2 : age >= 50 ? 1 : 0, "age " + Num(age, 1));
  struct Item { const char* name; int points; const char* label; };
  static const Item kItems[] = {
      {"myocardial_infarction", 1, "myocardial infarction"}, {"congestive_heart_failure", 1, "heart failure"},
      {"peripheral_vascular_disease", 1, "peripheral vascular disease"}, {"dementia", 1, "dementia"},
      {"copd", 1, "chronic pulmonary disease"}, {"connective_tissue_disease", 1, "connective tissue disease"},
      {"peptic_ulcer_disease", 1, "peptic ulcer"}, {"hemiplegia", 2, "hemiplegia"},
      {"moderate_severe_ckd", 2, "moderate-severe CKD"}, {"leukemia", 2, "leukemia"},
      {"lymphoma", 2, "lymphoma"}, {"aids", 6, "AIDS"}};
  for (const Item& item : kItems) t.Add(item.name, Pts(a.Flag(item.name), item.points), item.label);
  t.Add("cerebrovascular_disease", Pts(a.Flag("cerebrovascular_accident") || a.Flag("tia"), 1), "CVA or TIA");
  const std::string liver = a.Has("liver_disease") ? a.Choice("liver_disease") : "none";
  t.Add("liver_disease", liver == "mild" ? 1 : liver == "none" ? 0 : 3, liver + " liver disease");
  const std::string diabetes = a.Has("diabetes") ? a.Choice("diabetes") : "none or diet-controlled";
  t.Add("diabetes", diabetes == "end-organ damage" ? 2 : diabetes == "uncomplicated" ? 1 : 0, "diabetes " + diabetes);
  std::string tumor = a.Has("solid_tumor") ? a.Choice("solid_tumor") : "none";
  if (tumor == "true") tumor = "localized";
  if (tumor == "false") tumor = "none";
  t.Add("solid_tumor", tumor == "metastatic" ? 6 : tumor == "localized" ? 2 : 0, tumor + " solid tumor");
  const double s = t.total();
  // Estimated 10-year survival = 0.983^(e^(0.9 x CCI)) (Charlson 1987, as used by MDCalc).
  const double survival = std::pow(0.983, std::exp(0.9 * s)) * 100.0;
  t.Note("ten_year_survival_percent", survival);
  return t.Finish("Estimated 10-year survival " + Num(survival, 0) + " % (Charlson 1987)");
}

}  // namespace

void AddAcuteScoreCalculators(std::vector<Calculator>& out) {
  out.push_back({
      .name = "centor_mcisaac",
      .title = "Centor Score (Modified/McIsaac) for Strep Pharyngitis",
      .description = "Modified Centor score (-1 to 5) for group A streptococcal pharyngitis: the four Centor "
                     "criteria plus age. Unrecorded criteria count as absent.",
      .citation = "McIsaac WJ, White D, Tannenbaum D, Low DE. A clinical score to reduce unnecessary antibiotic use "
                  "in patients with sore throat. CMAJ 1998;158:75-83. Centor RM et al. Med Decis Making "
                  "1981;1:239-46.",
      .medcalc_id = 20,
      .inputs = {AgeInput(), TemperatureInput(),
                 Criterion("cough_absent", "Cough absent.", {"cough absent"}),
                 Criterion("tonsillar_exudate_or_swelling", "Exudate or swelling on tonsils.",
                           {"exudate or swelling on tonsils"}),
                 Criterion("tender_anterior_nodes", "Tender/swollen anterior cervical lymph nodes.",
                           {"tender/swollen anterior cervical lymph nodes"})},
      .compute = McIsaac,
  });

  out.push_back({
      .name = "glasgow_blatchford",
      .title = "Glasgow-Blatchford Bleeding Score (GBS)",
      .description = "Upper GI bleeding score (0-23) predicting need for intervention; 0 allows outpatient care. "
                     "BUN in mg/dL or urea in mmol/L. Unrecorded findings count as absent.",
      .citation = "Blatchford O, Murray WR, Blatchford M. A risk score to predict need for treatment for upper-"
                  "gastrointestinal haemorrhage. Lancet 2000;356:1318-21.",
      .medcalc_id = 27,
      .inputs = {SexInput(), Bun(),
                 Measurement("hemoglobin", "Hemoglobin.", Dimension::kHemoglobin, 1, 25, {"hemoglobin", "hgb"}),
                 SystolicInput(), HeartRateInput(),
                 Criterion("melena", "Melena.", {"melena present"}),
                 Criterion("syncope", "Presentation with syncope.", {"recent syncope"}),
                 Criterion("hepatic_disease", "Hepatic disease history.", {"hepatic disease history"}),
                 Criterion("cardiac_failure", "Cardiac failure present.", {"cardiac failure present"})},
      .compute = Blatchford,
  });

  out.push_back({
      .name = "feverpain",
      .title = "FeverPAIN Score for Strep Pharyngitis",
      .description = "FeverPAIN (0-5): Fever, Purulence, Attend rapidly (<= 3 days), severely Inflamed tonsils, No "
                     "cough or coryza; guides antibiotic prescribing in sore throat. Unrecorded items count as "
                     "absent.",
      .citation = "Little P, Hobbs FDR, Moore M et al. Clinical score and rapid antigen detection test to guide "
                  "antibiotic use for sore throats: randomised controlled trial of PRISM. BMJ 2013;347:f5806.",
      .medcalc_id = 33,
      .inputs = {Criterion("fever", "Fever in the past 24 hours.", {"fever in past 24 hours"}),
                 Criterion("purulence", "Purulent tonsils.", {"purulent tonsils"}),
                 Criterion("attend_rapidly", "Symptom onset <= 3 days.", {"symptom onset ≤3 days"}),
                 Criterion("inflamed_tonsils", "Severe tonsil inflammation.", {"severe tonsil inflammation"}),
                 Criterion("no_cough_or_coryza", "Absence of cough or coryza.", {"absence of cough or coryza"})},
      .compute = FeverPain,
  });

  out.push_back({
      .name = "curb_65",
      .title = "CURB-65 Score for Pneumonia Severity",
      .description = "Community-acquired pneumonia severity (0-5): Confusion, Urea > 7 mmol/L (BUN > 19.6 mg/dL), "
                     "RR >= 30, SBP < 90 or DBP <= 60, age >= 65. Confusion counts as absent when unrecorded.",
      .citation = "Lim WS, van der Eerden MM, Laing R et al. Defining community acquired pneumonia severity on "
                  "presentation to hospital: an international derivation and validation study. Thorax "
                  "2003;58:377-82.",
      .medcalc_id = 45,
      .inputs = {AgeInput(), Criterion("confusion", "New confusion.", {"confusion"}), Bun(), RespiratoryRateInput(), SystolicInput(),
                 Measurement("diastolic_bp", "Diastolic blood pressure.", Dimension::kPressure, 10, 200,
                             {"diastolic blood pressure", "dbp"})},
      .compute = Curb65,
  });

  out.push_back({
      .name = "sirs_criteria",
      .title = "SIRS Criteria",
      .description = "Number of systemic inflammatory response syndrome criteria met (0-4); >= 2 = SIRS. PaCO2 and "
                     "band percentage are optional (absent = not met).",
      .citation = "Bone RC, Balk RA, Cerra FB et al. Definitions for sepsis and organ failure and guidelines for the "
                  "use of innovative therapies in sepsis. ACCP/SCCM Consensus Conference. Chest 1992;101:1644-55.",
      .medcalc_id = 51,
      .inputs = {TemperatureInput(), HeartRateInput(), RespiratoryRateInput(),
                 Measurement("wbc", "White blood cell count.", Dimension::kCellCount, 0.05, 500,
                             {"white blood cell count", "wbc"}),
                 Measurement("paco2", "PaCO2.", Dimension::kPressure, 5, 200, {"paco₂", "paco2"}, false),
                 Measurement("bands_percent", "Immature (band) neutrophils.", Dimension::kPercent, 0, 100,
                             {"bands"}, false)},
      .compute = Sirs,
  });

  out.push_back({
      .name = "charlson_comorbidity_index",
      .title = "Charlson Comorbidity Index (CCI)",
      .description = "Age-adjusted Charlson index with the estimated 10-year survival. Liver disease, diabetes and "
                     "solid tumor are graded choices (absent when not given; solid_tumor 'true' = localized); other "
                     "conditions count as absent when unrecorded.",
      .citation = "Charlson ME, Pompei P, Ales KL, MacKenzie CR. A new method of classifying prognostic comorbidity "
                  "in longitudinal studies: development and validation. J Chronic Dis 1987;40:373-83. Age "
                  "adjustment: Charlson M et al., J Clin Epidemiol 1994;47:1245-51.",
      .medcalc_id = 32,
      .inputs = {AgeInput(),
                 Criterion("myocardial_infarction", "History of myocardial infarction.", {"myocardial infarction"}),
                 Criterion("congestive_heart_failure", "Congestive heart failure.",
                           {"congestive heart faliure", "congestive heart failure"}),
                 Criterion("peripheral_vascular_disease", "Peripheral vascular disease.",
                           {"peripheral vascular disease"}),
                 Criterion("cerebrovascular_accident", "Cerebrovascular accident.", {"cerebrovascular accident"}),
                 Criterion("tia", "Transient ischemic attack.", {"transient ischemic attacks history"}),
                 Criterion("dementia", "Dementia.", {"dementia"}),
                 Criterion("copd", "Chronic pulmonary disease.", {"chronic obstructive pulmonary disease"}),
                 Criterion("connective_tissue_disease", "Connective tissue disease.", {"connective tissue disease"}),
                 Criterion("peptic_ulcer_disease", "Peptic ulcer disease.", {"peptic ulcer disease"}),
                 Pick("liver_disease", "Liver disease: none, mild (chronic hepatitis, cirrhosis without portal "
                                       "hypertension) or moderate to severe (portal hypertension).",
                      {"none", "mild", "moderate", "moderate to severe", "severe"}, {"liver disease severity"}, false),
                 Pick("diabetes", "Diabetes mellitus.", {"none or diet-controlled", "uncomplicated", "end-organ damage"},
                      {"diabetes mellitus criteria for cci rule"}, false),
                 Criterion("hemiplegia", "Hemiplegia.", {"hemiplegia"}),
                 Criterion("moderate_severe_ckd", "Moderate to severe chronic kidney disease.",
                           {"moderate to severe chronic kidney disease"}),
                 Pick("solid_tumor", "Solid tumor: none, localized or metastatic ('true' = localized, 'false' = none).",
                      {"none", "localized", "metastatic", "true", "false"}, {"solid tumor"}, false),
                 Criterion("leukemia", "Leukemia.", {"leukemia"}),
                 Criterion("lymphoma", "Lymphoma.", {"lymphoma"}),
                 Criterion("aids", "AIDS.", {"aids"})},
      .compute = Charlson,
  });
}

}  // namespace medreact::calc
