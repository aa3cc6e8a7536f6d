// Severity scores (issue 4): Child-Pugh, Glasgow Coma Score, APACHE II,
// Pneumonia Severity Index (PSI/PORT), SOFA. `terms` holds each component's
// points; every band and threshold below carries its source. Conventions for
// unrecorded items are stated in each calculator's description.
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

CalcInput Diastolic(bool required = true) {
  return Measurement("diastolic_bp", "Diastolic blood pressure.", Dimension::kPressure, 0, 200,
                     {"diastolic blood pressure", "dbp"}, required);
}
CalcInput Fio2() {
  return Measurement("fio2", "Fraction of inspired oxygen in % (a value <= 1 is read as a fraction).",
                     Dimension::kPercent, 0.2, 100, {"fio₂", "fio2"});
}
CalcInput Pao2(bool required) {
  return Measurement("pao2", "Arterial PaO2.", Dimension::kPressure, 10, 700,
                     {"partial pressure of oxygen (pao₂) for apache ii", "pao₂", "pao2"}, required);
}
CalcInput Gcs() {
  return Measurement("gcs", "Glasgow Coma Score (3-15).", Dimension::kNone, 3, 15, {"glasgow coma score", "gcs"});
}
CalcInput Creatinine(bool required) {
  return Measurement("creatinine", "Serum creatinine.", Dimension::kCreatinine, 0.05, 40,
                     {"creatinine", "serum creatinine"}, required);
}
CalcInput Bilirubin() {
  return Measurement("bilirubin", "Total bilirubin.", Dimension::kBilirubin, 0.05, 80,
                     {"bilirubin", "total bilirubin"});
}
CalcInput Ph(bool required) {
  return Measurement("ph", "Arterial pH.", Dimension::kNone, 6.5, 8.0, {"ph", "arterial ph"}, required);
}

// FiO2 as a percentage: a value <= 1 is a fraction.
double Fio2Percent(const CalcArgs& a) {
  const double v = a.Number("fio2");
  return v <= 1.0 ? v * 100.0 : v;
}

// First band whose lower bound `value` reaches; bands in descending order of bound.
struct Band {
  double at_least;
  int points;
};
int Banded(double value, std::initializer_list<Band> bands, int below_all) {
  for (const Band& b : bands) {
    if (value >= b.at_least) return b.points;
  }
  return below_all;
}

// ---- Child-Pugh -------------------------------------------------------------------

Result<CalcOutput> ChildPugh(const CalcArgs& a) {
  const double bili = a.Number("bilirubin");
  const double alb = a.Number("albumin");
  const double inr = a.Number("inr");
  // Unrecorded ascites or encephalopathy count as none (MedCalc-Bench's convention; see the description).
  const std::string ascites = a.Has("ascites") ? a.Choice("ascites") : "absent";
  const std::string enceph = a.Has("encephalopathy") ? a.Choice("encephalopathy") : "none";
  Tally t("Child-Pugh");
  // Pugh RNH et al., Br J Surg 1973;60:646-9 (INR in place of prothrombin time, as commonly used):
  // bilirubin < 2 / 2-3 / > 3 mg/dL; albumin > 3.5 / 2.8-3.5 / < 2.8 g/dL; INR < 1.7 / 1.7-2.3 / > 2.3;
  // ascites none / slight / moderate; encephalopathy none / grade 1-2 / grade 3-4 → 1 / 2 / 3 points each.
  t.Add("bilirubin", bili < 2 ? 1 : bili <= 3 ? 2 : 3, "bilirubin " + Num(bili, 2));
  t.Add("albumin", alb > 3.5 ? 1 : alb >= 2.8 ? 2 : 3, "albumin " + Num(alb, 2));
  t.Add("inr", inr < 1.7 ? 1 : inr <= 2.3 ? 2 : 3, "INR " + Num(inr, 2));
  t.Add("ascites", ascites == "absent" || ascites == "none" ? 1 : ascites == "slight" || ascites == "mild" ? 2 : 3,
        "ascites " + ascites);
  t.Add("encephalopathy", enceph == "grade 1-2" ? 2 : enceph == "grade 3-4" ? 3 : 1, "encephalopathy " + enceph);
  const double s = t.total();
  // Pugh 1973 grades: A 5-6, B 7-9, C 10-15.
  return t.Finish(s <= 6 ? "Child-Pugh class A (5-6; Pugh 1973)"
                  : s <= 9 ? "Child-Pugh class B (7-9; Pugh 1973)"
                           : "Child-Pugh class C (10-15; Pugh 1973)");
}

// ---- Glasgow Coma Score ------------------------------------------------------------

Result<CalcOutput> GlasgowComa(const CalcArgs& a) {
  // Teasdale G, Jennett B, Lancet 1974;2:81-4; scored 3-15 (Teasdale G et al., Acta Neurochir Suppl 1979;28:13-6).
  const std::string& eye = a.Choice("eye");
  const std::string& verbal = a.Choice("verbal");
  const std::string& motor = a.Choice("motor");
  std::vector<std::string> untestable;
  auto score = [&untestable](const std::string& component, const std::string& value,
                             const std::vector<std::string>& ladder) {  // ladder: best response first
    if (value == "not testable") {
      untestable.push_back(component);
      return static_cast<int>(ladder.size());  // assumed normal (see the description)
    }
    for (size_t i = 0; i < ladder.size(); ++i) {
      if (ladder[i] == value) return static_cast<int>(ladder.size() - i);
    }
    return 1;
  };
  const int e = score("eye", eye, {"eyes open spontaneously", "eye opening to verbal command", "eye opening to pain",
                                   "no eye opening"});
  const int v = score("verbal", verbal, {"oriented", "confused", "inappropriate words", "incomprehensible sounds",
                                         "no verbal response"});
  const int m = score("motor", motor, {"obeys commands", "localizes pain", "withdrawal from pain", "flexion to pain",
                                       "extension to pain", "no motor response"});
  CalcOutput out;
  out.value = e + v + m;
  out.terms = {{"eye", e}, {"verbal", v}, {"motor", m}};
  auto part = [&untestable](const char* letter, const char* component, int points) {
    const bool nt = std::find(untestable.begin(), untestable.end(), component) != untestable.end();
    return std::string(letter) + (nt ? "NT" : std::to_string(points));
  };
  out.explanation = "GCS = E" + std::to_string(e) + " + V" + std::to_string(v) + " + M" + std::to_string(m) + " = " +
                    Num(out.value, 0) + " (" + part("E", "eye", e) + " " + part("V", "verbal", v) + " " +
                    part("M", "motor", m) + ")";
  // Head injury severity by GCS: 13-15 mild, 9-12 moderate, <= 8 severe (Teasdale & Jennett 1974; Rimel RW et al.,
  // Neurosurgery 1982;11:344-51).
  out.interpretation = out.value <= 8 ? "Severe (<= 8)" : out.value <= 12 ? "Moderate (9-12)" : "Mild (13-15)";
  if (!untestable.empty()) {
    out.terms["not_testable"] = untestable;
    out.interpretation += "; a component was not testable: the total assumes it normal and is an upper bound "
                          "(Teasdale G et al., Lancet Neurol 2014;13:844-54 advise reporting the components "
                          "instead of a total)";
  }
  return out;
}

// ---- APACHE II ----------------------------------------------------------------------

Result<CalcOutput> Apache2(const CalcArgs& a) {
  const double age = a.Number("age");
  const double temp = a.Number("temperature");
  const double hr = a.Number("heart_rate");
  const double rr = a.Number("respiratory_rate");
  const double ph = a.Number("ph");
  const double na = a.Number("sodium");
  const double k = a.Number("potassium");
  const double scr = a.Number("creatinine");
  const double hct = a.Number("hematocrit");
  const double wbc = a.Number("wbc");
  const double gcs = a.Number("gcs");
  const double fio2 = Fio2Percent(a);
  double map = 0;
  if (a.Has("mean_arterial_pressure")) {
    map = a.Number("mean_arterial_pressure");
  } else if (a.Has("systolic_bp") && a.Has("diastolic_bp")) {
    map = (a.Number("systolic_bp") + 2.0 * a.Number("diastolic_bp")) / 3.0;
  } else {
    return Status::InvalidArgument("give mean_arterial_pressure, or systolic_bp and diastolic_bp");
  }
  Tally t("APACHE II");
  // Knaus WA, Draper EA, Wagner DP, Zimmerman JE, Crit Care Med 1985;13:818-29: acute physiology points (worst
  // value in the first 24 h), age points and chronic health points. Bands from the APACHE II table.
  t.Add("age", Banded(age, {{75, 6}, {65, 5}, {55, 3}, {45, 2}}, 0), "age " + Num(age, 1));
  t.Add("temperature", Banded(temp, {{41, 4}, {39, 3}, {38.5, 1}, {36, 0}, {34, 1}, {32, 2}, {30, 3}}, 4),
        "temperature " + Num(temp, 1) + " °C");
  t.Note("mean_arterial_pressure", map);
  t.Add("mean_arterial_pressure", Banded(map, {{160, 4}, {130, 3}, {110, 2}, {70, 0}, {50, 2}}, 4),
        "MAP " + Num(map, 1));
  t.Add("heart_rate", Banded(hr, {{180, 4}, {140, 3}, {110, 2}, {70, 0}, {55, 2}, {40, 3}}, 4), "HR " + Num(hr, 0));
  t.Add("respiratory_rate", Banded(rr, {{50, 4}, {35, 3}, {25, 1}, {12, 0}, {10, 1}, {6, 2}}, 4), "RR " + Num(rr, 0));
  // Oxygenation: FiO2 >= 0.5 → A-a gradient points; FiO2 < 0.5 → PaO2 points.
  if (fio2 >= 50) {
    double aa = 0;
    if (a.Has("aa_gradient")) {
      aa = a.Number("aa_gradient");
    } else if (a.Has("pao2") && a.Has("paco2")) {
      // Alveolar gas equation at sea level: PAO2 = FiO2 x (760 - 47) - PaCO2 / 0.8.
      aa = fio2 / 100.0 * (760.0 - 47.0) - a.Number("paco2") / 0.8 - a.Number("pao2");
    } else {
      return Status::InvalidArgument("FiO2 >= 50 % scores the A-a gradient: give aa_gradient, or pao2 and paco2");
    }
    t.Note("aa_gradient", aa);
    t.Add("oxygenation", Banded(aa, {{500, 4}, {350, 3}, {200, 2}}, 0), "A-a gradient " + Num(aa, 0));
  } else {
    if (!a.Has("pao2")) return Status::InvalidArgument("FiO2 < 50 % scores PaO2: give pao2");
    const double pao2 = a.Number("pao2");
    t.Add("oxygenation", pao2 > 70 ? 0 : pao2 >= 61 ? 1 : pao2 >= 55 ? 3 : 4, "PaO2 " + Num(pao2, 0));
  }
  t.Add("ph", Banded(ph, {{7.7, 4}, {7.6, 3}, {7.5, 1}, {7.33, 0}, {7.25, 2}, {7.15, 3}}, 4), "pH " + Num(ph, 2));
  t.Add("sodium", Banded(na, {{180, 4}, {160, 3}, {155, 2}, {150, 1}, {130, 0}, {120, 2}, {111, 3}}, 4),
        "Na " + Num(na, 0));
  t.Add("potassium", Banded(k, {{7, 4}, {6, 3}, {5.5, 1}, {3.5, 0}, {3, 1}, {2.5, 2}}, 4), "K " + Num(k, 1));
  // Creatinine points double in acute renal failure.
  const bool arf = a.Flag("acute_renal_failure");
  const int cr_points = Banded(scr, {{3.5, 4}, {2, 3}, {1.5, 2}, {0.6, 0}}, 2) * (arf ? 2 : 1);
  t.Add("creatinine", cr_points, "creatinine " + Num(scr, 2) + (arf ? " (x2, acute renal failure)" : ""));
  t.Add("hematocrit", Banded(hct, {{60, 4}, {50, 2}, {46, 1}, {30, 0}, {20, 2}}, 4), "Hct " + Num(hct, 1));
  t.Add("wbc", Banded(wbc, {{40, 4}, {20, 2}, {15, 1}, {3, 0}, {1, 2}}, 4), "WBC " + Num(wbc, 1));
  t.Add("gcs", 15 - gcs, "15 - GCS " + Num(gcs, 0));
  // Chronic health: severe organ insufficiency or immunocompromise → 5 (nonoperative or emergency
  // postoperative) or 2 (elective postoperative).
  if (a.Flag("chronic_organ_insufficiency")) {
    if (!a.Has("admission_type")) {
      return Status::InvalidArgument(
          "chronic_organ_insufficiency is true: give admission_type (nonoperative, emergency postoperative or "
          "elective postoperative) to score chronic health");
    }
    const std::string& type = a.Choice("admission_type");
    t.Add("chronic_health", type == "elective postoperative" || type == "elective" ? 2 : 5,
          "chronic health (" + type + ")");
  } else {
    t.Add("chronic_health", 0, "");
  }
  const double s = t.total();
  // Knaus 1985 hospital death rate by score, nonoperative admissions: 0-4 4 %, 5-9 8 %, 10-14 15 %, 15-19 25 %,
  // 20-24 40 %, 25-29 55 %, 30-34 ~75 %, >= 35 ~85 %.
  const char* risk = s < 5 ? "4" : s < 10 ? "8" : s < 15 ? "15" : s < 20 ? "25" : s < 25 ? "40" : s < 30 ? "55"
                     : s < 35 ? "75" : "85";
  return t.Finish(std::string("Hospital mortality about ") + risk + " % for nonoperative patients (Knaus 1985)");
}

// ---- PSI / PORT -------------------------------------------------------------------

Result<CalcOutput> Psi(const CalcArgs& a) {
  const double age = a.Number("age");
  const bool female = a.IsFemale();
  const double rr = a.Number("respiratory_rate");
  const double sbp = a.Number("systolic_bp");
  const double temp = a.Number("temperature");
  const double hr = a.Number("heart_rate");
  Tally t("PSI");
  // Fine MJ, Auble TE, Yealy DM et al., N Engl J Med 1997;336:243-50 (Table 2 points). Laboratory values not
  // obtained are taken as normal, as in the derivation.
  t.Add("age", female ? age - 10 : age, female ? "age " + Num(age, 0) + " - 10 (female)" : "age " + Num(age, 0));
  struct Item { const char* name; int points; const char* label; };
  static const Item kItems[] = {
      {"nursing_home_resident", 10, "nursing home resident"}, {"neoplastic_disease", 30, "neoplastic disease"},
      {"liver_disease", 20, "liver disease"}, {"congestive_heart_failure", 10, "heart failure"},
      {"cerebrovascular_disease", 10, "cerebrovascular disease"}, {"renal_disease", 10, "renal disease"},
      {"altered_mental_status", 20, "altered mental status"}, {"pleural_effusion", 10, "pleural effusion"}};
  for (const Item& item : kItems) t.Add(item.name, a.Flag(item.name) ? item.points : 0, item.label);
  t.Add("respiratory_rate", rr >= 30 ? 20 : 0, "RR " + Num(rr, 0) + " >= 30");
  t.Add("systolic_bp", sbp < 90 ? 20 : 0, "SBP " + Num(sbp, 0) + " < 90");
  t.Add("temperature", temp < 35 || temp >= 40 ? 15 : 0, "temperature " + Num(temp, 1) + " °C");
  t.Add("heart_rate", hr >= 125 ? 10 : 0, "pulse " + Num(hr, 0) + " >= 125");
  auto lab = [&a](const char* name, auto abnormal) { return a.Has(name) && abnormal(a.Number(name)); };
  t.Add("ph", lab("ph", [](double v) { return v < 7.35; }) ? 30 : 0, "pH < 7.35");
  t.Add("bun", lab("bun", [](double v) { return v >= 30; }) ? 20 : 0, "BUN >= 30 mg/dL");
  t.Add("sodium", lab("sodium", [](double v) { return v < 130; }) ? 20 : 0, "Na < 130");
  t.Add("glucose", lab("glucose", [](double v) { return v >= 250; }) ? 10 : 0, "glucose >= 250 mg/dL");
  t.Add("hematocrit", lab("hematocrit", [](double v) { return v < 30; }) ? 10 : 0, "Hct < 30 %");
  const bool hypoxemia =
      lab("pao2", [](double v) { return v < 60; }) || lab("oxygen_saturation", [](double v) { return v < 90; });
  t.Add("oxygenation", hypoxemia ? 10 : 0, "PaO2 < 60 mmHg or SaO2 < 90 %");
  std::vector<std::string> missing;
  for (const char* name : {"ph", "bun", "sodium", "glucose", "hematocrit"}) {
    if (!a.Has(name)) missing.push_back(name);
  }
  if (!a.Has("pao2") && !a.Has("oxygen_saturation")) missing.push_back("pao2");
  if (!missing.empty()) t.Note("assumed_normal", missing);
  const double s = t.total();
  // Fine 1997 risk classes (30-day mortality): II <= 70 (0.6 %), III 71-90 (0.9-2.8 %), IV 91-130 (8.2-9.3 %),
  // V > 130 (27-31 %). Class I (0.1 %) is assigned without scoring (age <= 50, no comorbidity or abnormal signs).
  return t.Finish(s <= 70    ? "Class I-II (<= 70): 30-day mortality 0.1-0.6 %, outpatient care (Fine 1997)"
                  : s <= 90  ? "Class III (71-90): 0.9-2.8 %, outpatient or brief admission (Fine 1997)"
                  : s <= 130 ? "Class IV (91-130): 8.2-9.3 %, inpatient (Fine 1997)"
                             : "Class V (> 130): 27-31 %, inpatient (Fine 1997)");
}

// ---- SOFA ------------------------------------------------------------------------

Result<CalcOutput> Sofa(const CalcArgs& a) {
  const double pao2 = a.Number("pao2");
  const double fio2 = Fio2Percent(a);
  const double platelets = a.Number("platelets");
  const double bili = a.Number("bilirubin");
  const double gcs = a.Number("gcs");
  const bool supported = a.Flag("mechanical_ventilation") || a.Flag("cpap");
  Tally t("SOFA");
  // Vincent JL, Moreno R, Takala J et al., Intensive Care Med 1996;22:707-10.
  const double ratio = pao2 / (fio2 / 100.0);
  t.Note("pao2_fio2_ratio", ratio);
  int resp = ratio < 100 ? 4 : ratio < 200 ? 3 : ratio < 300 ? 2 : ratio < 400 ? 1 : 0;
  if (!supported) resp = std::min(resp, 2);  // 3-4 points require respiratory support
  t.Add("respiration", resp, "PaO2/FiO2 " + Num(ratio, 0) + (supported ? " on support" : ""));
  t.Add("coagulation", platelets < 20 ? 4 : platelets < 50 ? 3 : platelets < 100 ? 2 : platelets < 150 ? 1 : 0,
        "platelets " + Num(platelets, 0));
  t.Add("liver", bili >= 12 ? 4 : bili >= 6 ? 3 : bili >= 2 ? 2 : bili >= 1.2 ? 1 : 0, "bilirubin " + Num(bili, 1));
  // Cardiovascular (vasoactive doses in µg/kg/min, given >= 1 h).
  const double dopamine = a.NumberOr("dopamine", 0);
  const double dobutamine = a.NumberOr("dobutamine", 0);
  const double epinephrine = a.NumberOr("epinephrine", 0);
  const double norepinephrine = a.NumberOr("norepinephrine", 0);
  bool low_map = a.Flag("hypotension");
  if (a.Has("mean_arterial_pressure")) {
    low_map = low_map || a.Number("mean_arterial_pressure") < 70;
  } else if (a.Has("systolic_bp") && a.Has("diastolic_bp")) {
    const double map = (a.Number("systolic_bp") + 2.0 * a.Number("diastolic_bp")) / 3.0;
    t.Note("mean_arterial_pressure", map);
    low_map = low_map || map < 70;
  }
  const int cardio = dopamine > 15 || epinephrine > 0.1 || norepinephrine > 0.1  ? 4
                     : dopamine > 5 || epinephrine > 0 || norepinephrine > 0     ? 3
                     : dopamine > 0 || dobutamine > 0                           ? 2
                     : low_map                                                  ? 1
                                                                                : 0;
  t.Add("cardiovascular", cardio, cardio >= 2 ? "vasoactive support" : "MAP < 70");
  t.Add("cns", gcs >= 15 ? 0 : gcs >= 13 ? 1 : gcs >= 10 ? 2 : gcs >= 6 ? 3 : 4, "GCS " + Num(gcs, 0));
  if (!a.Has("creatinine") && !a.Has("urine_output")) {
    return Status::InvalidArgument("the renal component needs creatinine or urine_output");
  }
  int renal = 0;
  std::string renal_label;
  if (a.Has("creatinine")) {
    const double scr = a.Number("creatinine");
    renal = scr >= 5 ? 4 : scr >= 3.5 ? 3 : scr >= 2 ? 2 : scr >= 1.2 ? 1 : 0;
    renal_label = "creatinine " + Num(scr, 2);
  }
  if (a.Has("urine_output")) {
    const double uo = a.Number("urine_output");
    const int uo_points = uo < 200 ? 4 : uo < 500 ? 3 : 0;
    if (uo_points > renal) renal = uo_points, renal_label = "urine output " + Num(uo, 0) + " mL/day";
  }
  t.Add("renal", renal, renal_label);
  const double s = t.total();
  // Ferreira FL et al., JAMA 2001;286:1754-8 (initial SOFA → ICU mortality): 0-6 < 10 %, 7-9 15-20 %, 10-12
  // 40-50 %, 13-14 50-60 %, 15 > 80 %, 16-24 > 90 %.
  return t.Finish(s <= 6    ? "Mortality < 10 % (initial SOFA 0-6; Ferreira 2001)"
                  : s <= 9  ? "Mortality 15-20 % (7-9; Ferreira 2001)"
                  : s <= 12 ? "Mortality 40-50 % (10-12; Ferreira 2001)"
                  : s <= 14 ? "Mortality 50-60 % (13-14; Ferreira 2001)"
                  : s <= 15 ? "Mortality > 80 % (15; Ferreira 2001)"
                            : "Mortality > 90 % (16-24; Ferreira 2001)");
}

CalcInput Vasoactive(const char* name, const char* label, std::vector<std::string> aliases) {
  return Measurement(name, std::string(label) + " dose (absent = none).", Dimension::kInfusionRate, 0, 100,
                     std::move(aliases), false);
}

}  // namespace

void AddSeverityScoreCalculators(std::vector<Calculator>& out) {
  out.push_back({
      .name = "child_pugh",
      .title = "Child-Pugh Score for Cirrhosis Mortality",
      .description = "Child-Pugh score (5-15) and class A/B/C of cirrhosis severity from bilirubin, albumin, INR, "
                     "ascites and hepatic encephalopathy. Ascites and encephalopathy count as none when not "
                     "given; the laboratory values are required.",
      .citation = "Pugh RNH, Murray-Lyon IM, Dawson JL, Pietroni MC, Williams R. Transection of the oesophagus for "
                  "bleeding oesophageal varices. Br J Surg 1973;60:646-9. Child CG, Turcotte JG. Surgery and portal "
                  "hypertension. Major Probl Clin Surg 1964;1:1-85.",
      .medcalc_id = 15,
      .inputs = {Bilirubin(),
                 Measurement("albumin", "Serum albumin.", Dimension::kAlbumin, 0.5, 7, {"albumin", "serum albumin"}),
                 Measurement("inr", "International normalized ratio.", Dimension::kNone, 0.5, 15,
                             {"international normalized ratio", "inr"}),
                 Pick("ascites", "Ascites: absent, slight (mild) or moderate (moderate-severe).",
                      {"absent", "none", "slight", "mild", "moderate", "severe", "moderate to severe"}, {"ascites"},
                      false),
                 Pick("encephalopathy", "Hepatic encephalopathy grade.",
                      {"no encephalopathy", "grade 0", "none", "grade 1-2", "grade 3-4"}, {"encephalopathy"}, false)},
      .compute = ChildPugh,
  });
  out.push_back({
      .name = "glasgow_coma_score",
      .title = "Glasgow Coma Score (GCS)",
      .description = "Glasgow Coma Score (3-15) = eye (1-4) + verbal (1-5) + motor (1-6) best responses. A 'not "
                     "testable' component is assumed normal (MedCalc-Bench's convention) and flagged: the total is "
                     "then an upper bound and the components should be reported instead.",
      .citation = "Teasdale G, Jennett B. Assessment of coma and impaired consciousness. A practical scale. Lancet "
                  "1974;2:81-4. Teasdale G et al. The Glasgow Coma Scale at 40 years. Lancet Neurol "
                  "2014;13:844-54.",
      .medcalc_id = 21,
      .inputs = {Pick("eye", "Best eye response.",
                      {"eyes open spontaneously", "eye opening to verbal command", "eye opening to pain",
                       "no eye opening", "not testable"},
                      {"best eye response"}),
                 Pick("verbal", "Best verbal response.",
                      {"oriented", "confused", "inappropriate words", "incomprehensible sounds", "no verbal response",
                       "not testable"},
                      {"best verbal response"}),
                 Pick("motor", "Best motor response.",
                      {"obeys commands", "localizes pain", "withdrawal from pain", "flexion to pain",
                       "extension to pain", "no motor response", "not testable"},
                      {"best motor response"})},
      .compute = GlasgowComa,
  });
  out.push_back({
      .name = "apache_ii",
      .title = "APACHE II Score",
      .description = "APACHE II ICU severity score (0-71) from the worst values of the first 24 h: acute "
                     "physiology (oxygenation by A-a gradient when FiO2 >= 50 %, else by PaO2; creatinine points "
                     "doubled in acute renal failure; 15 - GCS), age, and chronic health (needs admission_type when "
                     "chronic_organ_insufficiency is true). MAP from mean_arterial_pressure or systolic/diastolic.",
      .citation = "Knaus WA, Draper EA, Wagner DP, Zimmerman JE. APACHE II: a severity of disease classification "
                  "system. Crit Care Med 1985;13:818-29.",
      .medcalc_id = 28,
      .inputs = {AgeInput(), TemperatureInput(),
                 Measurement("mean_arterial_pressure", "Mean arterial pressure (else from systolic/diastolic).",
                             Dimension::kPressure, 10, 250, {"mean arterial pressure", "map"}, false),
                 SystolicInput(false), Diastolic(false), HeartRateInput(), RespiratoryRateInput(), Fio2(), Pao2(false),
                 Measurement("aa_gradient", "Alveolar-arterial O2 gradient (used when FiO2 >= 50 %).",
                             Dimension::kPressure, -50, 800, {"a-a gradient", "aa gradient"}, false),
                 Measurement("paco2", "PaCO2 (to compute the A-a gradient when it is not given).",
                             Dimension::kPressure, 5, 200, {"paco₂", "paco2"}, false),
                 Ph(true),
                 Measurement("sodium", "Serum sodium.", Dimension::kElectrolyte, 80, 220, {"sodium", "serum sodium"}),
                 Measurement("potassium", "Serum potassium.", Dimension::kElectrolyte, 1, 12,
                             {"potassium", "serum potassium"}),
                 Creatinine(true),
                 Criterion("acute_renal_failure", "Acute renal failure (doubles creatinine points).",
                           {"acute renal failure"}),
                 Measurement("hematocrit", "Hematocrit.", Dimension::kPercent, 5, 80, {"hematocrit", "hct"}),
                 Measurement("wbc", "White blood cell count.", Dimension::kCellCount, 0.05, 500,
                             {"white blood cell count", "wbc"}),
                 Gcs(),
                 Criterion("chronic_organ_insufficiency",
                           "History of severe organ insufficiency (cirrhosis, NYHA IV, severe COPD, dialysis) or "
                           "immunocompromise.",
                           {"history of severe organ failure or immunocompromise"}),
                 Pick("admission_type", "Admission type (for chronic health points).",
                      {"nonoperative", "emergency postoperative", "elective postoperative", "emergency", "elective"},
                      {"surgery type"}, false)},
      .compute = Apache2,
  });
  out.push_back({
      .name = "pneumonia_severity_index",
      .title = "PSI Score: Pneumonia Severity Index for CAP",
      .description = "PORT/PSI points and risk class for community-acquired pneumonia. Demographics, comorbidities, "
                     "exam and labs; unrecorded comorbidities count as absent and laboratory values not obtained "
                     "(pH, BUN, sodium, glucose, hematocrit, PaO2/SaO2) as normal, as in the derivation.",
      .citation = "Fine MJ, Auble TE, Yealy DM et al. A prediction rule to identify low-risk patients with community-"
                  "acquired pneumonia. N Engl J Med 1997;336:243-50.",
      .medcalc_id = 29,
      .inputs = {AgeInput(), SexInput(),
                 Criterion("nursing_home_resident", "Nursing home resident.", {"nursing home resident"}),
                 Criterion("neoplastic_disease", "Neoplastic disease.", {"neoplastic disease"}),
                 Criterion("liver_disease", "Liver disease.", {"liver disease severity", "liver disease"}),
                 Criterion("congestive_heart_failure", "Congestive heart failure.",
                           {"congestive heart faliure", "congestive heart failure"}),
                 Criterion("cerebrovascular_disease", "Cerebrovascular disease.",
                           {"cerebrovascular disease history"}),
                 Criterion("renal_disease", "Renal disease.", {"renal disease"}),
                 Criterion("altered_mental_status", "Altered mental status.", {"altered mental status"}),
                 RespiratoryRateInput(), SystolicInput(), TemperatureInput(), HeartRateInput(), Ph(false),
                 Measurement("bun", "Blood urea nitrogen.", Dimension::kUrea, 0, 300,
                             {"blood urea nitrogen (bun)", "blood urea nitrogen", "bun"}, false),
                 Measurement("sodium", "Serum sodium.", Dimension::kElectrolyte, 80, 220, {"sodium", "serum sodium"},
                             false),
                 Measurement("glucose", "Serum glucose.", Dimension::kGlucose, 5, 3000, {"glucose", "serum glucose"},
                             false),
                 Measurement("hematocrit", "Hematocrit.", Dimension::kPercent, 5, 80, {"hematocrit", "hct"}, false),
                 Pao2(false),
                 Measurement("oxygen_saturation", "Arterial oxygen saturation (if PaO2 is not known).",
                             Dimension::kPercent, 30, 100, {"o₂ saturation percentage", "oxygen saturation"}, false),
                 Criterion("pleural_effusion", "Pleural effusion on x-ray.", {"pleural effusion on x-ray"})},
      .compute = Psi,
  });
  out.push_back({
      .name = "sofa",
      .title = "Sequential Organ Failure Assessment (SOFA) Score",
      .description = "SOFA score (0-24) of six organ systems. Respiratory 3-4 points need mechanical ventilation or "
                     "CPAP; cardiovascular from vasoactive doses (µg/kg/min; absent = none), else MAP < 70 (from "
                     "MAP, systolic/diastolic or the hypotension flag), else 0; renal from creatinine and/or urine "
                     "output (at least one needed).",
      .citation = "Vincent JL, Moreno R, Takala J et al. The SOFA (Sepsis-related Organ Failure Assessment) score to "
                  "describe organ dysfunction/failure. Intensive Care Med 1996;22:707-10.",
      .medcalc_id = 43,
      .inputs = {Pao2(true), Fio2(),
                 Criterion("mechanical_ventilation", "On mechanical ventilation.", {"on mechanical ventilation"}),
                 Criterion("cpap", "On continuous positive airway pressure.",
                           {"continous positive airway pressure", "continuous positive airway pressure"}),
                 Measurement("platelets", "Platelet count.", Dimension::kCellCount, 0.5, 3000,
                             {"platelet count", "platelets"}),
                 Bilirubin(), Gcs(),
                 Measurement("mean_arterial_pressure", "Mean arterial pressure.", Dimension::kPressure, 10, 250,
                             {"mean arterial pressure", "map"}, false),
                 SystolicInput(false), Diastolic(false),
                 Criterion("hypotension", "Hypotension (MAP < 70 mmHg).", {"hypotension"}),
                 Vasoactive("dopamine", "Dopamine", {"dopamine"}),
                 Vasoactive("dobutamine", "Dobutamine", {"dobutamine"}),
                 Vasoactive("epinephrine", "Epinephrine", {"epinephrine"}),
                 Vasoactive("norepinephrine", "Norepinephrine", {"norepinephrine"}),
                 Creatinine(false),
                 Measurement("urine_output", "Urine output per day.", Dimension::kUrineOutput, 0, 20000,
                             {"urine output"}, false)},
      .compute = Sofa,
  });
}

}  // namespace medreact::calc
