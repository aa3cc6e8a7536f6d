// The clinical vocabulary behind the FHIR tools: which LOINC codes make up a
// lab category, which vital-sign codes to read, and which ingredients make up
// a medication class. Every table entry cites its source in fhir_codes.cc.
//
// Labs match by LOINC code first; the display text is only a fallback for
// codes the tables do not list (normalised, so zero-width spaces in Synthea's
// displays do not matter). Medications match by ingredient name (a substring of
// the normalised medication text) or by RxNorm ingredient code.
//
// All tables are immutable statics: safe from any thread.
#ifndef MEDREACT_TOOLS_FHIR_FHIR_CODES_H_
#define MEDREACT_TOOLS_FHIR_FHIR_CODES_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/json.h"

namespace medreact {

struct LabCode {
  const char* loinc;
  const char* name;  // short clinical name shown to the model, e.g. "INR"
};

struct LabCategory {
  const char* name;  // "Cardiac", "Coag", ...
  std::vector<LabCode> codes;
  // Display fallback: normalised substrings -> the short name to report.
  std::vector<std::pair<const char*, const char*>> keywords;
};

// Cardiac, Coag, Renal, CBC, Metabolic, Hepatic, Lipids, Diabetes.
const std::vector<LabCategory>& LabCategories();
std::vector<std::string> LabCategoryNames();
// Case-insensitive lookup by name; nullptr when unknown.
const LabCategory* FindLabCategory(std::string_view name);

struct LabMatch {
  const LabCategory* category = nullptr;
  std::string name;   // short name ("Creatinine")
  std::string loinc;  // the LOINC code on the resource ("" when none)
  bool by_code = true;  // false when matched by display text
};
// Classifies an Observation.code CodeableConcept; nullopt when it is no lab
// the tables know.
std::optional<LabMatch> ClassifyLab(const Json& code);

struct VitalSignCode {
  const char* key;  // output key: "heart_rate", "systolic_bp", ...
  std::vector<const char*> loinc;
};
const std::vector<VitalSignCode>& VitalSignCodes();

struct MedicationClass {
  const char* name;                  // "anticoag"
  std::vector<const char*> aliases;  // normalised query words that mean the class
  std::vector<const char*> ingredients;  // normalised substrings of medication text
  std::vector<const char*> rxnorm;   // RxNorm ingredient (IN) codes
  const char* source;                // the classification cited
};
const std::vector<MedicationClass>& MedicationClasses();

struct MedicationQuery {
  std::string query;                     // as given
  std::string class_name;                // "" when the query is not a class
  std::vector<std::string> ingredients;  // normalised substrings to look for
  std::vector<std::string> rxnorm;       // codes to look for
};
// "anticoag", "blood thinner", "beta blocker" expand to their class; any other
// query is one ingredient (normalised), e.g. "Warfarin" -> {"warfarin"}.
MedicationQuery ExpandMedicationQuery(std::string_view query);
// True when a medication with this text and these RxNorm codes matches.
bool MatchesMedication(const MedicationQuery& query, std::string_view medication_text,
                       const std::vector<std::string>& rxnorm_codes);

}  // namespace medreact

#endif  // MEDREACT_TOOLS_FHIR_FHIR_CODES_H_
