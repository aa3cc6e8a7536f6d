// The "fhir" tool pack: read-only clinical tools over one patient's FHIR
// record, with the names, arguments and output shapes of the Sentinel-X spec
// (seed 001, section 3):
//
//   get_patient_manifest()                          what data exists; call first
//   search_clinical_history(query)                  conditions by partial keyword
//   get_recent_labs(category, lookback_days?)       labs by category (LOINC-based)
//   check_medication_status(medication_name)        orders for a drug or a class
//   get_vital_signs(lookback_days?)                 latest vitals
//   check_allergies(substance?)                     AllergyIntolerance records
//   get_imaging_history()                           ImagingStudy / imaging reports
//
// Every date window ends at the store's as_of() date. The tools share an index
// built once at registration and the immutable store, so they are safe to run
// concurrently.
#ifndef MEDREACT_TOOLS_FHIR_FHIR_PACK_H_
#define MEDREACT_TOOLS_FHIR_FHIR_PACK_H_

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "medreact/status.h"
#include "medreact/tool_registry.h"
#include "tools/fhir/fhir_store.h"

namespace medreact {

// Registers every fhir tool, or none: fails without registering anything when
// a name is already taken or `store` is null.
Status RegisterFhirPack(ToolRegistry& registry, std::shared_ptr<const FhirStore> store);

// The names RegisterFhirPack adds, in registration order.
std::vector<std::string> FhirPackToolNames();

// Every resource type the pack's tools read (the manifest's counts and the
// as-of date come from the whole record through the store): a store reduced
// to them with FhirStore::KeepOnly gives the same results in less memory.
std::set<std::string> FhirPackResourceTypes();

}  // namespace medreact

#endif  // MEDREACT_TOOLS_FHIR_FHIR_PACK_H_
