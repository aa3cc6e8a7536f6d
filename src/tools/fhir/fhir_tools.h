// The fhir pack's tool functions (private to src/tools/fhir/): the index
// built once at registration and one Run function per tool. fhir_pack.cc
// holds the specs the model sees and the registration.
//
// The index holds every lab Observation (classified by fhir_codes) and every
// vital-sign value (top-level or inside a panel's components), newest first,
// so a tool call is a scan of a short vector. Observations with status
// entered-in-error or cancelled are left out. Numbers are rounded to four
// significant digits for the model (Synthea writes 0.48307362750883603).
#ifndef MEDREACT_TOOLS_FHIR_FHIR_TOOLS_H_
#define MEDREACT_TOOLS_FHIR_FHIR_TOOLS_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "medreact/json.h"
#include "medreact/tool.h"
#include "tools/fhir/fhir_codes.h"
#include "tools/fhir/fhir_store.h"

namespace medreact::fhir_tools {

using std::chrono::sys_seconds;

// One dated value from an Observation (or one of its components).
struct ObservationValue {
  const Json* resource = nullptr;
  const Json* holder = nullptr;  // the Observation or the component holding the value
  sys_seconds at{};
  std::string date;  // "YYYY-MM-DD" as written
};

struct LabEntry {
  ObservationValue value;
  LabMatch match;
};

struct VitalEntry {
  ObservationValue value;
  std::string key;
};

struct FhirIndex {
  std::vector<LabEntry> labs;      // newest first
  std::vector<VitalEntry> vitals;  // newest first
};

struct Shared {
  std::shared_ptr<const FhirStore> store;
  FhirIndex index;
};

FhirIndex BuildIndex(const FhirStore& store);

ToolResult RunManifest(const Shared& shared);
ToolResult RunSearchHistory(const Shared& shared, const Json& args);
ToolResult RunRecentLabs(const Shared& shared, const Json& args);
ToolResult RunMedicationStatus(const Shared& shared, const Json& args);
ToolResult RunVitalSigns(const Shared& shared, const Json& args);
ToolResult RunAllergies(const Shared& shared, const Json& args);
ToolResult RunImagingHistory(const Shared& shared);

}  // namespace medreact::fhir_tools

#endif  // MEDREACT_TOOLS_FHIR_FHIR_TOOLS_H_
