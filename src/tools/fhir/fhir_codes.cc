// Clinical code tables, each entry with its source.
//
// Lab codes: LOINC (Regenstrief Institute, https://loinc.org), cited as
// "LOINC <code> (<long common name>)". The serum/plasma code and the whole
// blood code of the same analyte are both listed because Synthea writes the
// blood variants (as the bundles in tests/fixtures/synthea show). Vital signs: the HL7 FHIR R4
// Vital Signs profile (https://hl7.org/fhir/R4/observation-vitalsigns.html)
// plus the codes Synthea actually writes.
//
// Medication classes: WHO ATC classification (https://www.whocc.no/atc_ddd_index/);
// RxNorm ingredient (TTY=IN) codes from the NLM RxNorm browser, listed only for
// the common ingredients; every ingredient also matches by name, which is what
// works on Synthea (it codes clinical drugs such as 855332 "Warfarin Sodium 5 MG
// Oral Tablet", not ingredients).
#include "tools/fhir/fhir_codes.h"

#include <algorithm>
#include <cctype>

#include "tools/fhir/fhir_store.h"

namespace medreact {
namespace {

constexpr std::string_view kLoincSystem = "http://loinc.org";

// True when `needle` occurs in `haystack` at the start of a word.
bool ContainsWordStart(std::string_view haystack, std::string_view needle) {
  for (size_t pos = haystack.find(needle); pos != std::string_view::npos; pos = haystack.find(needle, pos + 1)) {
    if (pos == 0 || !std::isalnum(static_cast<unsigned char>(haystack[pos - 1]))) return true;
  }
  return false;
}

// Hyphens read as spaces, so "beta-blocker" equals "beta blocker".
std::string AliasForm(std::string_view text) {
  std::string out = NormalizeText(text);
  std::replace(out.begin(), out.end(), '-', ' ');
  return out;
}

}  // namespace

const std::vector<LabCategory>& LabCategories() {
  static const std::vector<LabCategory> kCategories = {
      {"Cardiac",
       {
           {"10839-9", "Troponin I"},  // LOINC 10839-9 (Troponin I.cardiac [Mass/volume] in Serum or Plasma)
           {"42757-5", "Troponin I"},  // LOINC 42757-5 (Troponin I.cardiac [Mass/volume] in Blood)
           {"89579-7", "Troponin I"},  // LOINC 89579-7 (Troponin I.cardiac [Mass/volume] in Serum or Plasma by High sensitivity method)
           {"6598-7", "Troponin T"},   // LOINC 6598-7 (Troponin T.cardiac [Mass/volume] in Serum or Plasma)
           {"67151-1", "Troponin T"},  // LOINC 67151-1 (Troponin T.cardiac [Mass/volume] in Serum or Plasma by High sensitivity method)
           {"30934-4", "BNP"},         // LOINC 30934-4 (Natriuretic peptide B [Mass/volume] in Serum or Plasma)
           {"42637-9", "BNP"},         // LOINC 42637-9 (Natriuretic peptide B [Mass/volume] in Blood)
           {"33762-6", "NT-proBNP"},   // LOINC 33762-6 (Natriuretic peptide.B prohormone N-Terminal [Mass/volume] in Serum or Plasma)
       },
       {{"troponin i", "Troponin I"}, {"troponin t", "Troponin T"}, {"troponin", "Troponin"},
        {"nt-probnp", "NT-proBNP"}, {"natriuretic peptide.b prohormone", "NT-proBNP"},
        {"natriuretic peptide b", "BNP"}, {"bnp", "BNP"}}},
      {"Coag",
       {
           {"6301-6", "INR"},          // LOINC 6301-6 (INR in Platelet poor plasma by Coagulation assay)
           {"34714-6", "INR"},         // LOINC 34714-6 (INR in Blood by Coagulation assay)
           {"5902-2", "PT"},           // LOINC 5902-2 (Prothrombin time (PT))
           {"3173-2", "aPTT"},         // LOINC 3173-2 (aPTT in Blood by Coagulation assay)
           {"14979-9", "aPTT"},        // LOINC 14979-9 (aPTT in Platelet poor plasma by Coagulation assay)
           {"48065-7", "D-dimer"},     // LOINC 48065-7 (Fibrin D-dimer FEU [Mass/volume] in Platelet poor plasma)
           {"48066-5", "D-dimer"},     // LOINC 48066-5 (Fibrin D-dimer DDU [Mass/volume] in Platelet poor plasma)
           {"3255-7", "Fibrinogen"},   // LOINC 3255-7 (Fibrinogen [Mass/volume] in Platelet poor plasma by Coagulation assay)
           // Not listed: 7799-0 (could not confirm its long name here); other
           // D-dimer codes still match by display text.
       },
       {{"inr", "INR"}, {"international normalized ratio", "INR"}, {"prothrombin time", "PT"},
        {"aptt", "aPTT"}, {"partial thromboplastin", "aPTT"}, {"d-dimer", "D-dimer"}, {"d dimer", "D-dimer"},
        {"fibrinogen", "Fibrinogen"}}},
      {"Renal",
       {
           {"2160-0", "Creatinine"},   // LOINC 2160-0 (Creatinine [Mass/volume] in Serum or Plasma)
           {"38483-4", "Creatinine"},  // LOINC 38483-4 (Creatinine [Mass/volume] in Blood)
           {"33914-3", "eGFR"},        // LOINC 33914-3 (Glomerular filtration rate/1.73 sq M.predicted [Volume Rate/Area] in Serum or Plasma by Creatinine-based formula (MDRD))
           {"48642-3", "eGFR"},        // LOINC 48642-3 (Glomerular filtration rate/1.73 sq M.predicted among non-blacks [Volume Rate/Area] in Serum, Plasma or Blood by Creatinine-based formula (MDRD))
           {"48643-1", "eGFR"},        // LOINC 48643-1 (Glomerular filtration rate/1.73 sq M.predicted among blacks [Volume Rate/Area] in Serum, Plasma or Blood by Creatinine-based formula (MDRD))
           {"62238-1", "eGFR"},        // LOINC 62238-1 (Glomerular filtration rate/1.73 sq M.predicted [Volume Rate/Area] in Serum, Plasma or Blood by Creatinine-based formula (CKD-EPI))
           {"98979-8", "eGFR"},        // LOINC 98979-8 (Glomerular filtration rate/1.73 sq M.predicted [Volume Rate/Area] in Serum, Plasma or Blood by Creatinine-based formula (CKD-EPI 2021))
           {"3094-0", "BUN"},          // LOINC 3094-0 (Urea nitrogen [Mass/volume] in Serum or Plasma)
           {"6299-2", "BUN"},          // LOINC 6299-2 (Urea nitrogen [Mass/volume] in Blood)
       },
       {{"creatinine", "Creatinine"}, {"glomerular filtration", "eGFR"}, {"egfr", "eGFR"},
        {"urea nitrogen", "BUN"}, {"bun", "BUN"}}},
      {"CBC",
       {
           {"718-7", "Hemoglobin"},    // LOINC 718-7 (Hemoglobin [Mass/volume] in Blood)
           {"4544-3", "Hematocrit"},   // LOINC 4544-3 (Hematocrit [Volume Fraction] of Blood by Automated count)
           {"20570-8", "Hematocrit"},  // LOINC 20570-8 (Hematocrit [Volume Fraction] of Blood); in Synthea
           {"6690-2", "WBC"},          // LOINC 6690-2 (Leukocytes [#/volume] in Blood by Automated count)
           {"26464-8", "WBC"},         // LOINC 26464-8 (Leukocytes [#/volume] in Blood); in Synthea
           {"777-3", "Platelets"},     // LOINC 777-3 (Platelets [#/volume] in Blood by Automated count)
           {"26515-7", "Platelets"},   // LOINC 26515-7 (Platelets [#/volume] in Blood)
       },
       {{"hemoglobin", "Hemoglobin"}, {"haemoglobin", "Hemoglobin"}, {"hematocrit", "Hematocrit"},
        {"leukocytes", "WBC"}, {"white blood cell", "WBC"}, {"wbc", "WBC"}, {"platelets", "Platelets"},
        {"platelet count", "Platelets"}}},
      {"Metabolic",
       {
           {"2345-7", "Glucose"},      // LOINC 2345-7 (Glucose [Mass/volume] in Serum or Plasma)
           {"2339-0", "Glucose"},      // LOINC 2339-0 (Glucose [Mass/volume] in Blood)
           {"2951-2", "Sodium"},       // LOINC 2951-2 (Sodium [Moles/volume] in Serum or Plasma)
           {"2947-0", "Sodium"},       // LOINC 2947-0 (Sodium [Moles/volume] in Blood)
           {"2823-3", "Potassium"},    // LOINC 2823-3 (Potassium [Moles/volume] in Serum or Plasma)
           {"6298-4", "Potassium"},    // LOINC 6298-4 (Potassium [Moles/volume] in Blood)
           {"2075-0", "Chloride"},     // LOINC 2075-0 (Chloride [Moles/volume] in Serum or Plasma)
           {"2069-3", "Chloride"},     // LOINC 2069-3 (Chloride [Moles/volume] in Blood); in Synthea
           {"2028-9", "CO2"},          // LOINC 2028-9 (Carbon dioxide, total [Moles/volume] in Serum or Plasma)
           {"20565-8", "CO2"},         // LOINC 20565-8 (Carbon dioxide, total [Moles/volume] in Blood); in Synthea
           {"1963-8", "Bicarbonate"},  // LOINC 1963-8 (Bicarbonate [Moles/volume] in Serum or Plasma)
           {"17861-6", "Calcium"},     // LOINC 17861-6 (Calcium [Mass/volume] in Serum or Plasma)
           {"49765-1", "Calcium"},     // LOINC 49765-1 (Calcium [Mass/volume] in Blood); in Synthea
       },
       {{"glucose", "Glucose"}, {"sodium", "Sodium"}, {"potassium", "Potassium"}, {"chloride", "Chloride"},
        {"bicarbonate", "Bicarbonate"}, {"carbon dioxide", "CO2"}, {"calcium", "Calcium"}}},
      {"Hepatic",
       {
           {"1742-6", "ALT"},          // LOINC 1742-6 (Alanine aminotransferase [Enzymatic activity/volume] in Serum or Plasma)
           {"1920-8", "AST"},          // LOINC 1920-8 (Aspartate aminotransferase [Enzymatic activity/volume] in Serum or Plasma)
           {"1975-2", "Bilirubin"},    // LOINC 1975-2 (Bilirubin.total [Mass/volume] in Serum or Plasma)
           {"42719-5", "Bilirubin"},   // LOINC 42719-5 (Bilirubin.total [Mass/volume] in Blood); in Synthea
           {"6768-6", "Alkaline phosphatase"},  // LOINC 6768-6 (Alkaline phosphatase [Enzymatic activity/volume] in Serum or Plasma)
           {"1751-7", "Albumin"},      // LOINC 1751-7 (Albumin [Mass/volume] in Serum or Plasma)
       },
       {{"alanine aminotransferase", "ALT"}, {"alt", "ALT"}, {"aspartate aminotransferase", "AST"}, {"ast", "AST"},
        {"bilirubin", "Bilirubin"}, {"alkaline phosphatase", "Alkaline phosphatase"}, {"albumin", "Albumin"}}},
      {"Lipids",
       {
           {"2093-3", "Total cholesterol"},  // LOINC 2093-3 (Cholesterol [Mass/volume] in Serum or Plasma)
           {"18262-6", "LDL"},         // LOINC 18262-6 (Cholesterol in LDL [Mass/volume] in Serum or Plasma by Direct assay)
           {"13457-7", "LDL"},         // LOINC 13457-7 (Cholesterol in LDL [Mass/volume] in Serum or Plasma by calculation)
           {"2085-9", "HDL"},          // LOINC 2085-9 (Cholesterol in HDL [Mass/volume] in Serum or Plasma)
           {"2571-8", "Triglycerides"},  // LOINC 2571-8 (Triglyceride [Mass/volume] in Serum or Plasma)
       },
       {{"ldl", "LDL"}, {"low density lipoprotein", "LDL"}, {"hdl", "HDL"}, {"high density lipoprotein", "HDL"},
        {"triglyceride", "Triglycerides"}, {"cholesterol", "Total cholesterol"}}},
      {"Diabetes",
       {
           {"4548-4", "HbA1c"},        // LOINC 4548-4 (Hemoglobin A1c/Hemoglobin.total in Blood)
           {"17856-6", "HbA1c"},       // LOINC 17856-6 (Hemoglobin A1c/Hemoglobin.total in Blood by HPLC)
       },
       {{"a1c", "HbA1c"}, {"hba1c", "HbA1c"}, {"glycated hemoglobin", "HbA1c"}}},
  };
  return kCategories;
}

std::vector<std::string> LabCategoryNames() {
  std::vector<std::string> names;
  for (const LabCategory& category : LabCategories()) names.emplace_back(category.name);
  return names;
}

const LabCategory* FindLabCategory(std::string_view name) {
  const std::string wanted = NormalizeText(name);
  for (const LabCategory& category : LabCategories()) {
    if (NormalizeText(category.name) == wanted) return &category;
  }
  return nullptr;
}

std::optional<LabMatch> ClassifyLab(const Json& code) {
  // 1. By LOINC code (any coding of the concept).
  if (code.is_object() && code.contains("coding") && code["coding"].is_array()) {
    for (const Json& coding : code["coding"]) {
      const std::string system = StringField(coding, "system");
      const std::string value = StringField(coding, "code");
      if (value.empty() || (!system.empty() && system != kLoincSystem)) continue;
      for (const LabCategory& category : LabCategories()) {
        for (const LabCode& lab : category.codes) {
          if (value == lab.loinc) return LabMatch{&category, lab.name, value, true};
        }
      }
    }
  }
  // 2. By display text. Specimens other than blood are never blood chemistry,
  // and HbA1c must win over hemoglobin, so Diabetes is tried first.
  std::string text = NormalizeText(ConceptText(code));
  if (text.empty()) return std::nullopt;
  for (const char* other : {"urine", "stool", "feces", "microalbumin", "cerebral spinal", "csf"}) {
    if (text.find(other) != std::string::npos) return std::nullopt;
  }
  const auto& categories = LabCategories();
  std::vector<const LabCategory*> order;
  for (const LabCategory& category : categories) {
    if (std::string_view(category.name) == "Diabetes") order.insert(order.begin(), &category);
    else order.push_back(&category);
  }
  for (const LabCategory* category : order) {
    for (const auto& [keyword, name] : category->keywords) {
      if (ContainsWordStart(text, keyword)) {
        return LabMatch{category, name, ConceptCode(code, kLoincSystem), false};
      }
    }
  }
  return std::nullopt;
}

const std::vector<VitalSignCode>& VitalSignCodes() {
  static const std::vector<VitalSignCode> kVitals = {
      {"heart_rate", {"8867-4"}},           // LOINC 8867-4 (Heart rate)
      {"respiratory_rate", {"9279-1"}},     // LOINC 9279-1 (Respiratory rate)
      // LOINC 59408-5 (Oxygen saturation in Arterial blood by Pulse oximetry),
      // LOINC 2708-6 (Oxygen saturation in Arterial blood)
      {"oxygen_saturation", {"59408-5", "2708-6"}},
      // LOINC 8310-5 (Body temperature), LOINC 8331-1 (Oral temperature), which Synthea writes
      {"body_temperature", {"8310-5", "8331-1"}},
      {"systolic_bp", {"8480-6"}},          // LOINC 8480-6 (Systolic blood pressure)
      {"diastolic_bp", {"8462-4"}},         // LOINC 8462-4 (Diastolic blood pressure)
      {"body_weight", {"29463-7"}},         // LOINC 29463-7 (Body weight)
      {"body_height", {"8302-2"}},          // LOINC 8302-2 (Body height)
      {"bmi", {"39156-5"}},                 // LOINC 39156-5 (Body mass index (BMI) [Ratio])
  };
  return kVitals;
}

const std::vector<MedicationClass>& MedicationClasses() {
  static const std::vector<MedicationClass> kClasses = {
      {"anticoag",
       {"anticoag", "anticoagulant", "anticoagulants", "anticoagulation", "blood thinner", "blood thinners"},
       {"warfarin", "heparin", "enoxaparin", "dalteparin", "tinzaparin", "fondaparinux", "rivaroxaban", "apixaban",
        "edoxaban", "dabigatran"},
       // warfarin 11289, heparin 5224, enoxaparin 67108, apixaban 1364430.
       // Rivaroxaban and dabigatran match by name only (codes not confirmed here).
       {"11289", "5224", "67108", "1364430"},
       "WHO ATC B01AA (vitamin K antagonists), B01AB (heparin group), B01AE (direct thrombin inhibitors), "
       "B01AF (direct factor Xa inhibitors)"},
      {"antiplatelet",
       {"antiplatelet", "antiplatelets", "anti platelet", "antiplatelet agent", "antiplatelet agents"},
       {"aspirin", "acetylsalicylic", "clopidogrel", "prasugrel", "ticagrelor", "dipyridamole"},
       {"1191", "32968"},  // aspirin 1191, clopidogrel 32968
       "WHO ATC B01AC (platelet aggregation inhibitors excl. heparin)"},
      {"beta",
       {"beta", "beta blocker", "beta blockers", "beta adrenergic blocker", "beta adrenergic blocking agent"},
       {"metoprolol", "atenolol", "carvedilol", "bisoprolol", "propranolol", "labetalol", "nebivolol"},
       {"6918", "1202", "20352"},  // metoprolol 6918, atenolol 1202, carvedilol 20352
       "WHO ATC C07 (beta blocking agents)"},
      {"statin",
       {"statin", "statins", "hmg coa reductase inhibitor", "hmg coa reductase inhibitors"},
       // "simvistatin": Synthea's misspelling of simvastatin ("Simvistatin 10 MG"), kept on purpose.
       {"atorvastatin", "simvastatin", "simvistatin", "rosuvastatin", "pravastatin", "lovastatin", "pitavastatin",
        "fluvastatin"},
       {"83367", "36567", "301542"},  // atorvastatin 83367, simvastatin 36567, rosuvastatin 301542
       "WHO ATC C10AA (HMG CoA reductase inhibitors)"},
      {"ace",
       {"ace", "ace inhibitor", "ace inhibitors", "acei", "ace i"},
       {"lisinopril", "enalapril", "ramipril", "captopril", "benazepril", "quinapril", "perindopril"},
       {"29046"},  // lisinopril 29046
       "WHO ATC C09A (ACE inhibitors, plain)"},
      {"arb",
       {"arb", "arbs", "angiotensin receptor blocker", "angiotensin receptor blockers",
        "angiotensin ii receptor blocker", "angiotensin ii receptor blockers"},
       {"losartan", "valsartan", "irbesartan", "candesartan", "olmesartan", "telmisartan"},
       {"52175"},  // losartan 52175
       "WHO ATC C09C (angiotensin II receptor blockers, plain)"},
      {"insulin",
       {"insulin", "insulins"},
       {"insulin"},
       {},
       "WHO ATC A10A (insulins and analogues)"},
  };
  return kClasses;
}

MedicationQuery ExpandMedicationQuery(std::string_view query) {
  MedicationQuery result;
  result.query = std::string(query);
  const std::string alias = AliasForm(query);
  for (const MedicationClass& medication_class : MedicationClasses()) {
    const bool is_class = std::any_of(medication_class.aliases.begin(), medication_class.aliases.end(),
                                      [&](const char* a) { return alias == a; });
    if (!is_class) continue;
    result.class_name = medication_class.name;
    result.ingredients.assign(medication_class.ingredients.begin(), medication_class.ingredients.end());
    result.rxnorm.assign(medication_class.rxnorm.begin(), medication_class.rxnorm.end());
    return result;
  }
  if (!NormalizeText(query).empty()) result.ingredients.push_back(NormalizeText(query));
  return result;
}

bool MatchesMedication(const MedicationQuery& query, std::string_view medication_text,
                       const std::vector<std::string>& rxnorm_codes) {
  const std::string text = NormalizeText(medication_text);
  for (const std::string& ingredient : query.ingredients) {
    if (text.find(ingredient) != std::string::npos) return true;
  }
  for (const std::string& code : rxnorm_codes) {
    if (std::find(query.rxnorm.begin(), query.rxnorm.end(), code) != query.rxnorm.end()) return true;
  }
  return false;
}

}  // namespace medreact
