// The fhir pack: the tool specs written for the model and the registration.
// The tools themselves are in fhir_tools.cc.
#include "tools/fhir/fhir_pack.h"

#include <utility>

#include "medreact/tool.h"
#include "tools/fhir/fhir_codes.h"
#include "tools/fhir/fhir_tools.h"

namespace medreact {
namespace {

using namespace fhir_tools;  // NOLINT: the Run functions and index types of this pack

ToolSpec NoArgSpec(const char* name, const char* description) {
  return {name, description, {{"type", "object"}, {"properties", Json::object()}, {"additionalProperties", false}}};
}

Json LookbackSchema(int default_days) {
  return {{"type", "integer"},
          {"minimum", 1},
          {"maximum", 36500},
          {"description", "How many days back from the record's as_of date to look. Default: " +
                              std::to_string(default_days) + "."}};
}


// --- Specs ------------------------------------------------------------------

std::vector<std::unique_ptr<Tool>> MakeTools(std::shared_ptr<const Shared> shared) {
  std::vector<std::unique_ptr<Tool>> tools;
  std::string categories;
  for (const std::string& name : LabCategoryNames()) categories += (categories.empty() ? "" : ", ") + name;

  tools.push_back(MakeFunctionTool(
      NoArgSpec("get_patient_manifest",
                "Overview of the patient's record: call it FIRST, before any other FHIR tool, to learn what data "
                "exists. Returns {patient_id, demographics{age, gender, birth_date}, resource_counts{Condition: n, "
                "MedicationRequest: n, Observation: n, ...}, available_lab_categories [e.g. \"Renal\", \"CBC\"], "
                "as_of, as_of_source}. as_of is the date treated as today by every other tool (the record's latest "
                "clinical date unless configured); age is computed at as_of."),
      [shared](const Json&, const ToolContext&) { return RunManifest(*shared); }));

  ToolSpec history = {"search_clinical_history",
                      "Searches the patient's conditions (problem list and diagnoses) by keyword, case-insensitive "
                      "partial match. Use it when findings suggest a relevant history: prior clots, cancer, diabetes, "
                      "heart failure. Use partial terms to catch variants: \"thrombo\" matches thrombosis and "
                      "thromboembolism, \"embol\" embolism, \"malignan\" malignancy/malignant, \"diabet\" "
                      "diabetes/diabetic, \"fibrillation\" atrial fibrillation. Returns {query, match_count, "
                      "conditions: [{display, code, status (active/resolved/...), onset_date, abatement_date}], "
                      "truncated}, newest first, at most 50.",
                      {{"type", "object"},
                       {"properties",
                        {{"query",
                          {{"type", "string"},
                           {"minLength", 1},
                           {"maxLength", 200},
                           {"description", "A keyword or word stem, e.g. \"thrombo\"."}}}}},
                       {"required", {"query"}},
                       {"additionalProperties", false}}};
  tools.push_back(MakeFunctionTool(std::move(history), [shared](const Json& args, const ToolContext&) {
    return RunSearchHistory(*shared, args);
  }));

  ToolSpec labs = {"get_recent_labs",
                   "Lab results of one category within lookback_days (default 90) before as_of, newest first. "
                   "Categories: Cardiac (troponin I/T, BNP, NT-proBNP), Coag (INR, PT, aPTT, D-dimer, fibrinogen), "
                   "Renal (creatinine, eGFR, BUN), CBC (hemoglobin, hematocrit, WBC, platelets), Metabolic (glucose, "
                   "sodium, potassium, chloride, CO2, calcium), Hepatic (ALT, AST, bilirubin, alkaline phosphatase, "
                   "albumin), Lipids, Diabetes (HbA1c). When to use: PE/clot or anticoagulant found -> \"Coag\"; "
                   "cardiac finding -> \"Cardiac\"; contrast study planned -> \"Renal\"; bleeding -> \"CBC\" and "
                   "\"Coag\". Returns {category, lookback_days, as_of, values: [{name, loinc, value, unit, date, "
                   "flag (high/low/normal/critical high/critical low/abnormal/unknown)}]}. When nothing falls in "
                   "the window it says so and gives latest_outside_window (the most recent older value).",
                   {{"type", "object"},
                    {"properties",
                     {{"category",
                       {{"type", "string"},
                        {"minLength", 1},
                        {"maxLength", 40},
                        {"description", "One of: " + categories + "."}}},
                      {"lookback_days", LookbackSchema(90)}}},
                    {"required", {"category"}},
                    {"additionalProperties", false}}};
  tools.push_back(MakeFunctionTool(std::move(labs), [shared](const Json& args, const ToolContext&) {
    return RunRecentLabs(*shared, args);
  }));

  ToolSpec meds = {"check_medication_status",
                   "Whether the patient is on a medication or a drug class, from MedicationRequest orders. CRITICAL "
                   "for treatment failure: a clot on an active anticoagulant is anticoagulation failure. When to "
                   "use: PE/DVT -> \"anticoag\" (then get_recent_labs \"Coag\"); stroke/TIA -> \"antiplatelet\" and "
                   "\"anticoag\"; cardiac/tachycardia -> \"beta\"; lipids -> \"statin\". Classes expand to their "
                   "ingredients: anticoag (warfarin, heparin, enoxaparin, rivaroxaban, apixaban, ...), antiplatelet "
                   "(aspirin, clopidogrel, ...), beta (metoprolol, atenolol, carvedilol, ...), statin, ace, arb, "
                   "insulin; any other text is matched as a drug name. Returns {query, expanded_to, found, "
                   "medications: [{name, rxnorm, status, start_date, end_date, dosage}], is_currently_active}. "
                   "is_currently_active is true only when an order has status \"active\"; stopped, completed or "
                   "cancelled orders are listed but are NOT current therapy.",
                   {{"type", "object"},
                    {"properties",
                     {{"medication_name",
                       {{"type", "string"},
                        {"minLength", 1},
                        {"maxLength", 100},
                        {"description", "A drug (\"warfarin\") or a class (\"anticoag\", \"beta\", \"statin\")."}}}}},
                    {"required", {"medication_name"}},
                    {"additionalProperties", false}}};
  tools.push_back(MakeFunctionTool(std::move(meds), [shared](const Json& args, const ToolContext&) {
    return RunMedicationStatus(*shared, args);
  }));

  ToolSpec vitals = {"get_vital_signs",
                     "The latest vital signs within lookback_days (default 30) before as_of: heart_rate, "
                     "respiratory_rate, oxygen_saturation, body_temperature, systolic_bp, diastolic_bp, body_weight, "
                     "body_height, bmi, each {value, unit, date} or null. Use it for tachycardia, hypotension or "
                     "hypoxia checks and for weight-based doses. Values older than the window are listed under "
                     "latest_outside_window.",
                     {{"type", "object"},
                      {"properties", {{"lookback_days", LookbackSchema(30)}}},
                      {"additionalProperties", false}}};
  tools.push_back(MakeFunctionTool(std::move(vitals), [shared](const Json& args, const ToolContext&) {
    return RunVitalSigns(*shared, args);
  }));

  ToolSpec allergies = {"check_allergies",
                        "Recorded allergies and intolerances, optionally filtered by substance (partial, "
                        "case-insensitive: \"contrast\", \"penicillin\", \"iodine\"). Use it before suggesting "
                        "contrast or a drug. Returns {query, match_count, allergies: [{substance, type, category, "
                        "criticality, clinical_status, verification_status, recorded_date, reactions}]}.",
                        {{"type", "object"},
                         {"properties",
                          {{"substance",
                            {{"type", "string"},
                             {"maxLength", 100},
                             {"description", "Optional substance to filter by. Default: all allergies."}}}}},
                         {"additionalProperties", false}}};
  tools.push_back(MakeFunctionTool(std::move(allergies), [shared](const Json& args, const ToolContext&) {
    return RunAllergies(*shared, args);
  }));

  tools.push_back(MakeFunctionTool(
      NoArgSpec("get_imaging_history",
                "Prior imaging: ImagingStudy records and imaging DiagnosticReports, newest first. Use it to compare "
                "a new finding with earlier studies. Returns {count, studies: [{kind, date, modalities, body_sites, "
                "description, status, ...}], truncated}."),
      [shared](const Json&, const ToolContext&) { return RunImagingHistory(*shared); }));
  return tools;
}

}  // namespace

std::vector<std::string> FhirPackToolNames() {
  return {"get_patient_manifest", "search_clinical_history", "get_recent_labs", "check_medication_status",
          "get_vital_signs",      "check_allergies",         "get_imaging_history"};
}

std::set<std::string> FhirPackResourceTypes() {
  // Medication: what a MedicationRequest's medicationReference resolves to.
  return {"Patient",      "Observation",        "Condition",    "MedicationRequest",
          "Medication",   "AllergyIntolerance", "ImagingStudy", "DiagnosticReport"};
}

Status RegisterFhirPack(ToolRegistry& registry, std::shared_ptr<const FhirStore> store) {
  if (!store) return Status::InvalidArgument("fhir pack: no FHIR store");
  for (const std::string& name : FhirPackToolNames()) {
    if (registry.Find(name)) return Status::InvalidArgument("fhir pack: tool '" + name + "' is already registered");
  }
  auto shared = std::make_shared<Shared>();
  shared->index = BuildIndex(*store);
  shared->store = std::move(store);
  for (std::unique_ptr<Tool>& tool : MakeTools(shared)) {
    if (Status s = registry.Register(std::move(tool)); !s.ok()) return s.WithContext("fhir pack");
  }
  return Status::OK();
}

}  // namespace medreact
