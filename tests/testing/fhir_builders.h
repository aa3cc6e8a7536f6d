// Small builders for hand-made FHIR R4 test bundles: an entry with a
// urn:uuid fullUrl, a LOINC-coded quantity Observation and a MedicationRequest
// by text, all for the patient "urn:uuid:pat".
#ifndef MEDREACT_TESTS_TESTING_FHIR_BUILDERS_H_
#define MEDREACT_TESTS_TESTING_FHIR_BUILDERS_H_

#include <string>
#include <vector>

#include "medreact/json.h"

namespace medreact::testing {

inline Json Entry(Json resource) {
  const std::string id = resource["id"].get<std::string>();
  return {{"fullUrl", "urn:uuid:" + id}, {"resource", std::move(resource)}};
}

inline Json Observation(const std::string& id, const std::string& loinc, const std::string& display, double value,
                        const std::string& unit, const std::string& date) {
  return {{"resourceType", "Observation"},
          {"id", id},
          {"status", "final"},
          {"code",
           {{"coding", Json::array({{{"system", "http://loinc.org"}, {"code", loinc}, {"display", display}}})},
            {"text", display}}},
          {"subject", {{"reference", "urn:uuid:pat"}}},
          {"effectiveDateTime", date},
          {"valueQuantity", {{"value", value}, {"unit", unit}}}};
}

inline Json MedicationRequest(const std::string& id, const std::string& text, const std::string& status,
                              const std::string& authored = "2025-01-15") {
  return {{"resourceType", "MedicationRequest"},
          {"id", id},
          {"status", status},
          {"intent", "order"},
          {"medicationCodeableConcept", {{"text", text}}},
          {"subject", {{"reference", "urn:uuid:pat"}}},
          {"authoredOn", authored}};
}

// A collection Bundle: the Patient "pat" (female, born 1950-05-01), then `resources`.
inline Json PatientBundle(std::vector<Json> resources) {
  Json bundle = {{"resourceType", "Bundle"}, {"type", "collection"}, {"entry", Json::array()}};
  bundle["entry"].push_back(Entry({{"resourceType", "Patient"}, {"id", "pat"}, {"gender", "female"},
                                   {"birthDate", "1950-05-01"}}));
  for (Json& r : resources) bundle["entry"].push_back(Entry(std::move(r)));
  return bundle;
}

// Seed 001's example record: active warfarin and a therapeutic INR (2.3).
inline Json PeOnWarfarinBundle() {
  return PatientBundle({MedicationRequest("w", "Warfarin 5mg", "active"),
                        Observation("inr", "6301-6", "INR", 2.3, "{INR}", "2025-06-10")});
}

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_FHIR_BUILDERS_H_
