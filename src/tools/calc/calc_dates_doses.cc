// Pregnancy dating (due date, conception date, gestational age) and dose
// conversions (corticosteroid equivalents, morphine milligram equivalents).
// Each cites its source; MedCalc-Bench ids in `medcalc_id`. Dates come back
// in `text` as YYYY-MM-DD; gestational age as "(W weeks, D days)" with the
// numbers in `terms`.
#include <array>
#include <cmath>
#include <cstdio>

#include "tools/calc/calculator.h"

namespace medreact::calc {
namespace {

using std::chrono::days;
using std::chrono::sys_days;

std::string FormatDate(sys_days d) {
  const std::chrono::year_month_day ymd(d);
  char text[16];
  std::snprintf(text, sizeof(text), "%04d-%02u-%02u", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()));
  return text;
}

CalcInput Lmp() {
  return {.name = "last_menstrual_period",
          .type = InputType::kDate,
          .description = "First day of the last menstrual period.",
          .aliases = {"last menstrual date", "last menstrual period", "lmp"}};
}
CalcInput CycleLength() {
  return {.name = "cycle_length",
          .type = InputType::kInteger,
          .description = "Usual menstrual cycle length in days (default 28).",
          .required = false,
          .min = 18,
          .max = 60,
          .aliases = {"cycle length", "menstrual cycle length"}};
}

// Ovulation is taken as 14 days before the next menses (a luteal phase of ~14 days; Lenton EA et al.,
// Br J Obstet Gynaecol 1984;91:685-9), so a cycle longer or shorter than 28 days moves ovulation, conception
// and the due date by the difference.
int CycleShift(const CalcArgs& a) { return a.Has("cycle_length") ? a.Integer("cycle_length") - 28 : 0; }

Result<CalcOutput> DueDate(const CalcArgs& a) {
  const sys_days lmp = a.Date("last_menstrual_period");
  const int shift = CycleShift(a);
  const sys_days edd = lmp + days(280 + shift);
  CalcOutput out;
  out.text = FormatDate(edd);
  out.value = 280 + shift;
  out.unit = "";
  out.terms = {{"days_after_lmp", 280 + shift},
               {"cycle_adjustment_days", shift},
               {"unadjusted_due_date", FormatDate(lmp + days(280))}};
  out.explanation = "EDD = LMP " + FormatDate(lmp) + " + 280 days" +
                    (shift == 0 ? std::string()
                                : (shift > 0 ? " + " : " - ") + std::to_string(std::abs(shift)) + " days (cycle " +
                                      std::to_string(28 + shift) + " vs 28)") +
                    " = " + out.text;
  return out;
}

Result<CalcOutput> ConceptionDate(const CalcArgs& a) {
  const sys_days lmp = a.Date("last_menstrual_period");
  const std::string method = a.Has("method") ? a.Choice("method") : "cycle_adjusted";
  const int shift = method == "lmp_plus_14" ? 0 : CycleShift(a);
  const int offset = 14 + shift;
  CalcOutput out;
  out.text = FormatDate(lmp + days(offset));
  out.value = offset;
  out.unit = "";
  out.terms = {{"days_after_lmp", offset}, {"cycle_adjustment_days", shift}, {"method", method}};
  out.explanation =
      "Conception = LMP " + FormatDate(lmp) + " + 14 days" +
      (shift == 0 ? std::string()
                  : (shift > 0 ? " + " : " - ") + std::to_string(std::abs(shift)) +
                        " days (ovulation 14 days before the next menses, cycle " + std::to_string(28 + shift) + ")") +
      " = " + out.text;
  return out;
}

Result<CalcOutput> GestationalAge(const CalcArgs& a) {
  const sys_days lmp = a.Date("last_menstrual_period");
  const sys_days today = a.Date("current_date");
  const int total = static_cast<int>((today - lmp).count());
  if (total < 0) return Status::InvalidArgument("current_date is before last_menstrual_period");
  const int weeks = total / 7;
  const int rest = total % 7;
  CalcOutput out;
  out.text = "(" + std::to_string(weeks) + " weeks, " + std::to_string(rest) + " days)";
  out.value = total;
  out.unit = "";
  out.terms = {{"weeks", weeks}, {"days", rest}, {"total_days", total}};
  out.explanation = FormatDate(today) + " - LMP " + FormatDate(lmp) + " = " + std::to_string(total) +
                    " days = " + std::to_string(weeks) + " weeks " + std::to_string(rest) + " days";
  // ACOG Committee Opinion 700 (2017) / ACOG-SMFM 2013 term definitions by completed weeks.
  out.interpretation = weeks < 14   ? "First trimester (< 14 weeks)"
                       : weeks < 28 ? "Second trimester (14-27 weeks)"
                       : weeks < 37 ? "Third trimester, preterm (28-36 weeks)"
                       : weeks < 39 ? "Early term (37 0/7 - 38 6/7 weeks; ACOG 2013)"
                       : weeks < 41 ? "Full term (39 0/7 - 40 6/7 weeks; ACOG 2013)"
                       : weeks < 42 ? "Late term (41 0/7 - 41 6/7 weeks; ACOG 2013)"
                                    : "Post-term (>= 42 weeks; ACOG 2013)";
  return out;
}

// --- corticosteroids ------------------------------------------------------------

// Equivalent glucocorticoid doses in mg (Meikle & Tyler 1977; Liu et al. 2013): oral and IV routes of the
// same drug are taken as equivalent.
struct Steroid {
  const char* name;
  double equivalent_mg;
};
constexpr std::array<Steroid, 8> kSteroids = {{{"betamethasone", 0.75},
                                               {"cortisone", 25},
                                               {"dexamethasone", 0.75},
                                               {"hydrocortisone", 20},
                                               {"methylprednisolone", 4},
                                               {"prednisolone", 5},
                                               {"prednisone", 5},
                                               {"triamcinolone", 4}}};

std::vector<std::string> SteroidChoices() {
  std::vector<std::string> out;
  for (const Steroid& s : kSteroids) {
    out.push_back(s.name);
    out.push_back(std::string(s.name) + " po");
    out.push_back(std::string(s.name) + " iv");
  }
  return out;
}

// "prednisone", "prednisone po" and "prednisone iv" all name prednisone.
const Steroid* FindSteroid(const std::string& choice) {
  for (const Steroid& s : kSteroids) {
    const std::string name = s.name;
    if (choice == name || choice.rfind(name + " ", 0) == 0) return &s;
  }
  return nullptr;
}

Result<CalcOutput> SteroidConversion(const CalcArgs& a) {
  const Steroid* from = FindSteroid(a.Choice("from_steroid"));
  const Steroid* to = FindSteroid(a.Choice("to_steroid"));
  if (from == nullptr || to == nullptr) return Status::InvalidArgument("unknown steroid");
  const double dose = a.Number("dose");
  const double factor = to->equivalent_mg / from->equivalent_mg;
  CalcOutput out;
  out.value = dose * factor;
  out.unit = "mg";
  out.terms = {{"from_equivalent_mg", from->equivalent_mg},
               {"to_equivalent_mg", to->equivalent_mg},
               {"factor", factor},
               {"prednisone_equivalent_mg", dose * 5.0 / from->equivalent_mg}};
  out.explanation = Num(dose, 3) + " mg " + from->name + " x (" + Num(to->equivalent_mg, 2) + " mg " + to->name +
                    " / " + Num(from->equivalent_mg, 2) + " mg " + from->name + ") = " + Num(out.value, 3) + " mg " +
                    to->name;
  out.interpretation =
      "Equivalent glucocorticoid (anti-inflammatory) dose; mineralocorticoid effect and duration of "
      "action differ between drugs";
  return out;
}

// --- opioids: morphine milligram equivalents --------------------------------------

struct Opioid {
  const char* key;  // input name prefix
  const char* label;
  const char* unit;    // per dose, as given
  double factor_2022;  // MME per unit (CDC 2022, Table 1); fentanyl buccal from CDC 2016
  double factor_2016;  // CDC 2016; methadone: see MethadoneFactor2016
  std::vector<std::string> dose_aliases;
  std::vector<std::string> per_day_aliases;
};

const std::vector<Opioid>& Opioids() {
  static const std::vector<Opioid> kOpioids = {
      {"codeine", "codeine", "mg", 0.15, 0.15, {"codeine dose"}, {"codeine dose per day"}},
      {"fentanyl_buccal",
       "fentanyl buccal/sublingual",
       "µg",
       0.13,
       0.13,
       {"fentanyl buccal dose"},
       {"fentanyl buccal dose per day"}},
      {"fentanyl_patch",
       "fentanyl transdermal",
       "µg/h",
       2.4,
       2.4,
       {"fentanyl patch dose"},
       {"fentanyl patch dose per day"}},
      {"hydrocodone", "hydrocodone", "mg", 1.0, 1.0, {"hydrocodone dose"}, {"hydrocodone dose per day"}},
      {"hydromorphone", "hydromorphone", "mg", 5.0, 4.0, {"hydromorphone dose"}, {"hydromorphone dose per day"}},
      {"methadone", "methadone", "mg", 4.7, 0, {"methadone dose"}, {"methadone dose per day"}},
      {"morphine", "morphine", "mg", 1.0, 1.0, {"morphine dose"}, {"morphine dose per day"}},
      {"oxycodone", "oxycodone", "mg", 1.5, 1.5, {"oxycodone dose"}, {"oxycodone dose per day"}},
      {"oxymorphone", "oxymorphone", "mg", 3.0, 3.0, {"oxymorphone dose"}, {"oxymorphone dose per day"}},
      {"tapentadol", "tapentadol", "mg", 0.4, 0.4, {"tapentadol dose"}, {"tapentadol dose per day"}},
      {"tramadol", "tramadol", "mg", 0.2, 0.1, {"tramadol dose"}, {"tramadol dose per day"}},
  };
  return kOpioids;
}

// CDC 2016: methadone's factor rises with the daily dose (1-20 mg: 4; 21-40: 8; 41-60: 10; > 60: 12).
double MethadoneFactor2016(double mg_per_day) {
  return mg_per_day <= 20 ? 4.0 : mg_per_day <= 40 ? 8.0 : mg_per_day <= 60 ? 10.0 : 12.0;
}

Result<CalcOutput> MorphineEquivalents(const CalcArgs& a) {
  const bool cdc2016 = a.Has("guideline") && a.Choice("guideline") == "cdc_2016";
  CalcOutput out;
  out.unit = "MME/day";
  std::vector<std::string> missing;
  std::string sum;
  double total = 0;
  for (const Opioid& o : Opioids()) {
    const std::string key = o.key;
    const bool patch = key == "fentanyl_patch";
    if (!a.Has(key + "_dose")) continue;
    double per_dose = a.Number(key + "_dose");
    if (key == "fentanyl_buccal") per_dose *= 1000.0;  // canonical mg → µg, the unit of its factor
    double per_day = 1;
    if (patch) {
      per_day = a.NumberOr("fentanyl_patches", 1.0);
    } else if (a.Has(key + "_doses_per_day")) {
      per_day = a.Number(key + "_doses_per_day");
    } else {
      missing.push_back(key + "_doses_per_day");
      continue;
    }
    const double daily = per_dose * per_day;
    const double factor =
        key == "methadone" && cdc2016 ? MethadoneFactor2016(daily) : (cdc2016 ? o.factor_2016 : o.factor_2022);
    const double mme = daily * factor;
    total += mme;
    out.terms[key + "_mme_per_day"] = mme;
    out.terms[key + "_factor"] = factor;
    sum += (sum.empty() ? "" : " + ") + std::string(o.label) + " " + Num(per_dose, 2) + " " + o.unit + " x " +
           Num(per_day, 2) + (patch ? " patch(es)" : "/day") + " x " + Num(factor, 2);
  }
  if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
    return Status::InvalidArgument("missing required input" + std::string(missing.size() > 1 ? "s" : "") + ": " + list +
                                   " (how many doses a day)");
  }
  if (sum.empty()) {
    return Status::InvalidArgument(
        "no opioid given: pass at least one <drug>_dose with its <drug>_doses_per_day "
        "(e.g. oxycodone_dose, oxycodone_doses_per_day)");
  }
  out.value = total;
  out.terms["guideline"] = cdc2016 ? "cdc_2016" : "cdc_2022";
  out.explanation = "MME/day = " + sum + " = " + Num(total, 1);
  // CDC 2022 (Dowell D et al., MMWR Recomm Rep 2022;71(RR-3)), recommendation 4: benefits rarely grow and
  // overdose risk rises from 50 MME/day; CDC 2016 (Dowell D et al., MMWR Recomm Rep 2016;65(RR-1)),
  // recommendation 5: avoid or carefully justify >= 90 MME/day.
  out.interpretation = total >= 90   ? ">= 90 MME/day: avoid or carefully justify (CDC 2016); high overdose risk"
                       : total >= 50 ? "50-89 MME/day: increased overdose risk; reassess benefits and risks (CDC 2022)"
                                     : "< 50 MME/day (CDC 2022: reassess before increasing to >= 50 MME/day)";
  return out;
}

std::vector<CalcInput> MmeInputs() {
  std::vector<CalcInput> inputs;
  for (const Opioid& o : Opioids()) {
    const std::string key = o.key;
    if (key == "fentanyl_patch") {
      inputs.push_back({.name = key + "_dose",
                        .description = "Fentanyl transdermal patch strength (per patch).",
                        .dimension = Dimension::kDoseRate,
                        .required = false,
                        .min = 1,
                        .max = 1000,
                        .aliases = o.dose_aliases});
      inputs.push_back({.name = "fentanyl_patches",
                        .description = "Number of fentanyl patches worn at the same time "
                                       "(default 1); the patch factor already covers a day.",
                        .required = false,
                        .min = 0,
                        .max = 10,
                        .aliases = o.per_day_aliases});
      continue;
    }
    inputs.push_back({.name = key + "_dose",
                      .description = std::string("Dose of ") + o.label + " per administration" +
                                     (key == "fentanyl_buccal" ? " (usually µg)." : "."),
                      .dimension = Dimension::kDose,
                      .required = false,
                      .min = 0,
                      .max = 5000,
                      .aliases = o.dose_aliases});
    inputs.push_back({.name = key + "_doses_per_day",
                      .description = std::string("Number of ") + o.label + " doses per day.",
                      .required = false,
                      .min = 0,
                      .max = 48,
                      .aliases = o.per_day_aliases});
  }
  inputs.push_back({.name = "guideline",
                    .type = InputType::kChoice,
                    .description = "Conversion factors: cdc_2022 (default) or cdc_2016 (tramadol 0.1, hydromorphone "
                                   "4, methadone by daily dose).",
                    .choices = {"cdc_2022", "cdc_2016"},
                    .required = false});
  return inputs;
}

}  // namespace

void AddDateDoseCalculators(std::vector<Calculator>& out) {
  out.push_back({
      .name = "estimated_due_date",
      .title = "Estimated Due Date (Naegele's rule, cycle-adjusted)",
      .description = "Estimated due date from the last menstrual period: LMP + 280 days, moved by (cycle length - "
                     "28) days for a longer or shorter usual cycle. Returns the date as YYYY-MM-DD.",
      .citation =
          "Naegele's rule (LMP + 280 days) as in ACOG Committee Opinion No. 700: Methods for estimating "
          "the due date. Obstet Gynecol 2017;129:e150-4. Cycle adjustment (ovulation 14 days before menses): Lenton "
          "EA et al., Br J Obstet Gynaecol 1984;91:685-9.",
      .medcalc_id = 13,
      .inputs = {Lmp(), CycleLength()},
      .compute = DueDate,
  });
  out.push_back({
      .name = "steroid_conversion",
      .title = "Steroid Conversion (glucocorticoid equivalents)",
      .description = "Converts a dose of one systemic glucocorticoid into the equivalent dose of another "
                     "(equivalents: hydrocortisone 20 mg = cortisone 25 = prednisone 5 = prednisolone 5 = "
                     "methylprednisolone 4 = triamcinolone 4 = dexamethasone 0.75 = betamethasone 0.75). The route "
                     "suffix (po/iv) is accepted and does not change the factor.",
      .citation = "Meikle AW, Tyler FH. Potency and duration of action of glucocorticoids. Am J Med "
                  "1977;63:200-7; Liu D, Ahmet A, Ward L, et al. A practical guide to the monitoring and management "
                  "of the complications of systemic corticosteroid therapy. Allergy Asthma Clin Immunol 2013;9:30.",
      .medcalc_id = 24,
      .inputs = {{.name = "from_steroid",
                  .type = InputType::kChoice,
                  .description = "The steroid given.",
                  .choices = SteroidChoices(),
                  .aliases = {"input steroid"}},
                 {.name = "dose",
                  .description = "Dose of the steroid given.",
                  .dimension = Dimension::kDose,
                  .min = 0.01,
                  .max = 20000,
                  .aliases = {"input steroid"}},
                 {.name = "to_steroid",
                  .type = InputType::kChoice,
                  .description = "The steroid to convert to.",
                  .choices = SteroidChoices(),
                  .aliases = {"target steroid"}}},
      .compute = SteroidConversion,
  });
  out.push_back({
      .name = "morphine_milligram_equivalents",
      .title = "Morphine Milligram Equivalents (MME) per day",
      .description = "Total daily morphine milligram equivalents from each opioid's dose and doses per day, with "
                     "CDC 2022 conversion factors (cdc_2016 optional). Fentanyl patch in µg/h (factor 2.4), "
                     "buccal fentanyl in µg (0.13).",
      .citation = "Dowell D, Ragan KR, Jones CM, Baldwin GT, Chou R. CDC Clinical Practice Guideline for "
                  "Prescribing Opioids for Pain - United States, 2022. MMWR Recomm Rep 2022;71(No. RR-3):1-95 "
                  "(Table 1). Buccal fentanyl and the cdc_2016 option: Dowell D, Haegerich TM, Chou R. CDC "
                  "Guideline for Prescribing Opioids for Chronic Pain - United States, 2016. MMWR Recomm Rep "
                  "2016;65(No. RR-1):1-49.",
      .medcalc_id = 49,
      .inputs = MmeInputs(),
      .compute = MorphineEquivalents,
  });
  out.push_back({
      .name = "estimated_conception_date",
      .title = "Estimated Date of Conception",
      .description = "Estimated conception (ovulation) date from the last menstrual period: LMP + 14 days for a "
                     "28-day cycle, moved by (cycle length - 28) days (method cycle_adjusted, default), or always "
                     "LMP + 14 days (method lmp_plus_14). Returns YYYY-MM-DD.",
      .citation = "ACOG Committee Opinion No. 700: Methods for estimating the due date. Obstet Gynecol "
                  "2017;129:e150-4 (conception ~2 weeks after LMP in a 28-day cycle). Cycle adjustment (luteal "
                  "phase ~14 days): Lenton EA, Landgren BM, Sexton L. Normal variation in the length of the luteal "
                  "phase of the menstrual cycle. Br J Obstet Gynaecol 1984;91:685-9.",
      .medcalc_id = 68,
      .inputs = {Lmp(),
                 CycleLength(),
                 {.name = "method",
                  .type = InputType::kChoice,
                  .description = "cycle_adjusted (default) or lmp_plus_14 (ignore the cycle length).",
                  .choices = {"cycle_adjusted", "lmp_plus_14"},
                  .required = false}},
      .compute = ConceptionDate,
  });
  out.push_back({
      .name = "estimated_gestational_age",
      .title = "Estimated Gestational Age (by LMP)",
      .description = "Gestational age on a given date from the last menstrual period, as completed weeks and days; "
                     "text \"(W weeks, D days)\", terms weeks, days, total_days.",
      .citation = "ACOG Committee Opinion No. 700: Methods for estimating the due date. Obstet Gynecol "
                  "2017;129:e150-4. Term definitions: ACOG Committee Opinion No. 579: Definition of term pregnancy. "
                  "Obstet Gynecol 2013;122:1139-40.",
      .medcalc_id = 69,
      .inputs = {{.name = "current_date",
                  .type = InputType::kDate,
                  .description = "The date to date the pregnancy on.",
                  .aliases = {"current date", "today", "date"}},
                 Lmp()},
      .compute = GestationalAge,
  });
}

}  // namespace medreact::calc
