// FillSchema: the offline planner's last step — the user's JSON Schema filled
// from what the plan found, by the names (and descriptions) of its fields.
//
// A field is matched by words in its name or description: booleans naming
// malnutrition/diagnosis/present → the diagnosis; severity/grade/stage → the
// severity (mapped onto the field's enum); percentile, bmi, weight loss, age,
// sex → those numbers; phenotypic / etiologic / indicators / criteria /
// evidence lists → the findings; flags / warnings / implausible → the values
// flagged as implausible; sources / citations / references → the retrieved
// guideline passages; rationale / summary / explanation / reasoning → the
// summary sentence. Objects are filled recursively; an array of objects gets
// one item per z-score, each naming its own indicator.
//
// A z-score or percentile field is filled only with the indicator it names,
// explicitly (FieldIndicator): by an "x-medreact-indicator" annotation in the
// field's schema, else by the indicator's name or standard abbreviation in
// the field's name ("bmi_for_age_z", "whz", "WFL percentile"), else in its
// description. "weight_for_height" is not "weight_for_length" (different
// WHO tables, for children measured standing or lying); a field naming both
// ("weight_for_length_or_height_z", "wfl/h") takes either. A field naming no
// indicator ("z_score") and a field whose indicator was not computed stay
// null (or out); the filler never puts one indicator's number in another's
// field, and never invents a number.
//
// When the findings are not assessable (no age, or a value flagged
// implausible), no classification is written: a diagnosis boolean and a
// severity are null when the schema allows it, the severity takes an enum
// option such as "indeterminate" or "unknown" when there is one, and are left
// out otherwise (the validator then names them: a missing answer is better
// than a wrong one). A field matching nothing is left out, or, when required,
// set to null if the schema allows null and to "not documented in the note"
// if it is a string; anything else stays missing and the validator names it.
#ifndef MEDREACT_APPS_EXTRACT_SCHEMA_FILL_H_
#define MEDREACT_APPS_EXTRACT_SCHEMA_FILL_H_

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "medreact/json.h"

namespace medreact {

struct ZFinding {
  std::string indicator;              // growth indicator name
  double z = 0;
  bool computed = false;              // from the measurements (else stated in the note)
  std::optional<double> percentile;
  std::string origin;                 // how it was obtained, one phrase
  std::string band;                   // ASPEN/AND (or WHO) band, "" when not interpreted
  std::string band_system;            // which system gave the band
};

struct ExtractionFindings {
  std::string population;             // "pediatric", "adult" or "unknown"
  // False when no classification may be given: the age is unknown, or a
  // value is flagged implausible. malnutrition is then nullopt and severity
  // "indeterminate".
  bool assessable = true;
  std::optional<bool> malnutrition;
  std::string severity;               // "none", "mild", "moderate", "severe", "indeterminate"
  std::vector<std::string> flags;     // implausible or impossible values, one sentence each
  std::string undetermined_reason;    // why not assessable, when not
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

// The growth indicator a field names explicitly ("" when none): the
// "x-medreact-indicator" annotation, else its name, else its description.
// Besides the indicator names of growth_zscore, it may return
// "weight_for_length_or_height" or "length_or_height_for_age".
std::string FieldIndicator(const std::string& name, const Json& field_schema);

// Every indicator a z-score or percentile field of `schema` names (nested
// objects included), so the planner computes what the schema asks for.
std::set<std::string> RequestedIndicators(const Json& schema);

// Whether a finding of `indicator` may fill a field naming `wanted`.
bool IndicatorFills(const std::string& wanted, const std::string& indicator);

}  // namespace medreact

#endif  // MEDREACT_APPS_EXTRACT_SCHEMA_FILL_H_
