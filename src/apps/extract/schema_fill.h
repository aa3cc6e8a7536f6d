// FillSchema: the offline planner's last step — the user's JSON Schema filled
// from what the plan found, by the names (and descriptions) of its fields.
//
// A field is matched by words in its name or description: booleans naming
// malnutrition/diagnosis/present → the diagnosis; severity/grade/stage → the
// severity (mapped onto the field's enum); z-score, percentile, bmi, weight
// loss, age, sex → those numbers; phenotypic / etiologic / indicators /
// criteria / evidence lists → the findings; sources / citations / references
// → the retrieved guideline passages; rationale / summary / explanation /
// reasoning → the summary sentence. Objects are filled recursively; an array
// of objects gets one item per z-score. A field matching nothing is left out,
// or, when required, set to null if the schema allows null and to "not
// documented in the note" if it is a string; anything else stays missing and
// the validator names it. The filler never invents a number.
#ifndef MEDREACT_APPS_EXTRACT_SCHEMA_FILL_H_
#define MEDREACT_APPS_EXTRACT_SCHEMA_FILL_H_

#include <optional>
#include <string>
#include <vector>

#include "medreact/json.h"

namespace medreact {

struct ZFinding {
  std::string indicator;              // growth indicator name
  double z = 0;
  std::optional<double> percentile;
  std::string origin;                 // how it was obtained, one phrase
  std::string band;                   // ASPEN/AND (or WHO) band, "" when not interpreted
  std::string band_system;            // which system gave the band
};

struct ExtractionFindings {
  std::string population;             // "pediatric" or "adult"
  bool malnutrition = false;
  std::string severity;               // "none", "mild", "moderate", "severe"
  std::vector<ZFinding> zscores;
  std::optional<double> bmi;
  std::optional<double> weight_loss_percent;
  std::optional<double> age_months;
  std::string sex;
  std::vector<std::string> phenotypic;  // GLIM phenotypic criteria met (adult)
  std::vector<std::string> etiologic;   // GLIM etiologic criteria met (adult)
  std::vector<std::string> indicators;  // one sentence per indicator, for evidence lists
  std::vector<std::string> sources;     // "file > heading" of retrieved passages
  std::string summary;                  // one or two sentences
};

Json FillSchema(const Json& schema, const ExtractionFindings& findings);

}  // namespace medreact

#endif  // MEDREACT_APPS_EXTRACT_SCHEMA_FILL_H_
