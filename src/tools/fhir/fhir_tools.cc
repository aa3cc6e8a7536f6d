#include "tools/fhir/fhir_tools.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace medreact::fhir_tools {
namespace {

using std::chrono::sys_days;

using std::chrono::sys_days;
using std::chrono::sys_seconds;

constexpr const char* kRxNormSystem = "http://www.nlm.nih.gov/research/umls/rxnorm";
constexpr size_t kMaxItems = 50;

Json Rounded(double value) {
  if (!std::isfinite(value)) return nullptr;
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4g", value);
  const double rounded = std::strtod(buffer, nullptr);
  // Whole numbers print as integers (142, not 142.0).
  if (rounded == std::floor(rounded) && std::fabs(rounded) < 1e15) return static_cast<int64_t>(rounded);
  return rounded;
}

// The dated part of an Observation: effective[x], else issued.
std::optional<std::pair<sys_seconds, std::string>> ObservationDate(const Json& obs) {
  std::string text = StringField(obs, "effectiveDateTime");
  if (text.empty()) text = StringField(obs, "effectiveInstant");
  if (text.empty() && obs.contains("effectivePeriod")) text = StringField(obs["effectivePeriod"], "start");
  if (text.empty()) text = StringField(obs, "issued");
  auto at = ParseFhirInstant(text);
  auto day = ParseFhirDate(text);
  if (!at || !day) return std::nullopt;
  return std::make_pair(*at, FormatDate(*day));
}

// value[x] as {value, unit}.
std::pair<Json, std::string> ValueOf(const Json& holder) {
  if (auto it = holder.find("valueQuantity"); it != holder.end() && it->is_object()) {
    Json value = it->contains("value") && (*it)["value"].is_number() ? Rounded((*it)["value"].get<double>()) : Json();
    std::string unit = StringField(*it, "unit");
    if (unit.empty()) unit = StringField(*it, "code");
    return {value, unit};
  }
  if (auto it = holder.find("valueCodeableConcept"); it != holder.end()) return {ConceptText(*it), ""};
  for (const char* key : {"valueString", "valueInteger", "valueBoolean"}) {
    if (auto it = holder.find(key); it != holder.end()) return {*it, ""};
  }
  return {nullptr, ""};
}

// "high", "low", "normal", ... from interpretation, else reference range.
std::string Flag(const Json& holder, const Json& value) {
  if (auto it = holder.find("interpretation"); it != holder.end() && it->is_array()) {
    static const std::pair<const char*, const char*> kCodes[] = {
        {"HH", "critical high"}, {"LL", "critical low"}, {"AA", "critical abnormal"}, {"H", "high"},
        {"L", "low"},            {"A", "abnormal"},      {"N", "normal"}};
    for (const Json& concept_json : *it) {
      const std::string code = ConceptCode(concept_json);
      for (const auto& [interpretation, flag] : kCodes) {
        if (code == interpretation) return flag;
      }
    }
  }
  if (auto it = holder.find("referenceRange"); it != holder.end() && it->is_array() && !it->empty() &&
                                               value.is_number()) {
    const Json& range = (*it)[0];
    const double v = value.get<double>();
    auto bound = [&](const char* key) -> std::optional<double> {
      if (range.contains(key) && range[key].is_object() && range[key].contains("value") &&
          range[key]["value"].is_number()) {
        return range[key]["value"].get<double>();
      }
      return std::nullopt;
    };
    auto low = bound("low"), high = bound("high");
    if (low || high) {
      if (low && v < *low) return "low";
      if (high && v > *high) return "high";
      return "normal";
    }
  }
  return "unknown";
}

bool IsVoided(const Json& resource) {
  const std::string status = StringField(resource, "status");
  return status == "entered-in-error" || status == "cancelled";
}

}  // namespace

FhirIndex BuildIndex(const FhirStore& store) {
  FhirIndex index;
  for (const Json* obs : store.OfType("Observation")) {
    if (IsVoided(*obs)) continue;
    auto date = ObservationDate(*obs);
    if (!date) continue;
    const ObservationValue dated{obs, obs, date->first, date->second};
    const Json code = obs->value("code", Json::object());
    if (auto match = ClassifyLab(code)) index.labs.push_back({dated, *match});
    auto add_vitals = [&](const Json& holder, const Json& holder_code) {
      const std::string loinc = ConceptCode(holder_code, "http://loinc.org");
      for (const VitalSignCode& vital : VitalSignCodes()) {
        if (std::find(vital.loinc.begin(), vital.loinc.end(), loinc) != vital.loinc.end()) {
          ObservationValue v = dated;
          v.holder = &holder;
          index.vitals.push_back({v, vital.key});
        }
      }
    };
    add_vitals(*obs, code);
    if (auto it = obs->find("component"); it != obs->end() && it->is_array()) {
      for (const Json& component : *it) add_vitals(component, ObjectField(component, "code"));
    }
  }
  auto newest_first = [](const auto& a, const auto& b) { return a.value.at > b.value.at; };
  std::stable_sort(index.labs.begin(), index.labs.end(), newest_first);
  std::stable_sort(index.vitals.begin(), index.vitals.end(), newest_first);
  return index;
}

// Whole days from `day` to as_of (negative when after as_of).
namespace {

long DaysBefore(const FhirStore& store, const std::string& date) {
  auto day = ParseFhirDate(date);
  return day ? static_cast<long>((store.as_of() - *day).count()) : 0;
}

bool InWindow(const FhirStore& store, const std::string& date, int lookback_days) {
  const long before = DaysBefore(store, date);
  return before >= 0 && before <= lookback_days;
}

std::string DatePart(const std::string& text) {
  auto day = ParseFhirDate(text);
  return day ? FormatDate(*day) : text;
}

Json NullIfEmpty(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }


}  // namespace

// --- get_patient_manifest ---------------------------------------------------

ToolResult RunManifest(const Shared& shared) {
  const FhirStore& store = *shared.store;
  Json demographics = Json::object();
  if (const Json* patient = store.patient()) {
    const std::string birth = StringField(*patient, "birthDate");
    const std::string deceased = StringField(*patient, "deceasedDateTime");
    demographics["gender"] = NullIfEmpty(StringField(*patient, "gender"));
    demographics["birth_date"] = NullIfEmpty(birth);
    auto at = store.as_of();
    if (auto died = ParseFhirDate(deceased); died && *died < at) at = *died;
    auto born = ParseFhirDate(birth);
    demographics["age"] = born ? Json(AgeInYears(*born, at)) : Json(nullptr);
    if (!deceased.empty() || (patient->contains("deceasedBoolean") && (*patient)["deceasedBoolean"] == true)) {
      demographics["deceased"] = true;
      demographics["deceased_date"] = NullIfEmpty(DatePart(deceased));
    }
  }
  Json counts = Json::object();
  for (const auto& [type, count] : store.ResourceCounts()) counts[type] = count;
  Json categories = Json::array();
  for (const std::string& name : LabCategoryNames()) {
    const bool present = std::any_of(shared.index.labs.begin(), shared.index.labs.end(),
                                     [&](const LabEntry& lab) { return name == lab.match.category->name; });
    if (present) categories.push_back(name);
  }
  Json result = {{"patient_id", NullIfEmpty(store.patient_id())},
                 {"demographics", demographics},
                 {"resource_counts", counts},
                 {"available_lab_categories", categories},
                 {"as_of", store.as_of_date()},
                 {"as_of_source", store.as_of_source()}};
  if (!store.warnings().empty()) result["load_warnings"] = store.warnings().size();
  return ToolResult::OkJson(result);
}

// --- search_clinical_history ------------------------------------------------

ToolResult RunSearchHistory(const Shared& shared, const Json& args) {
  const std::string query = args.at("query").get<std::string>();
  const std::string needle = NormalizeText(query);
  if (needle.empty()) return ToolResult::Error("query is empty; pass a keyword such as \"thrombo\" or \"diabet\".");
  std::vector<std::pair<sys_seconds, Json>> found;
  for (const Json* condition : shared.store->OfType("Condition")) {
    if (ConceptCode(condition->value("verificationStatus", Json::object())) == "entered-in-error") continue;
    const Json code = condition->value("code", Json::object());
    std::string haystack = NormalizeText(ConceptText(code));
    if (code.contains("coding") && code["coding"].is_array()) {
      for (const Json& coding : code["coding"]) haystack += " | " + NormalizeText(StringField(coding, "display"));
    }
    if (haystack.find(needle) == std::string::npos) continue;
    std::string onset = StringField(*condition, "onsetDateTime");
    if (onset.empty()) onset = StringField(*condition, "recordedDate");
    const std::string abatement = StringField(*condition, "abatementDateTime");
    std::string status = ConceptCode(condition->value("clinicalStatus", Json::object()));
    if (status.empty() && !abatement.empty()) status = "resolved";
    Json item = {{"display", ConceptText(code)},
                 {"code", NullIfEmpty(ConceptCode(code))},
                 {"status", NullIfEmpty(status)},
                 {"onset_date", onset.empty() ? Json(nullptr) : Json(DatePart(onset))},
                 {"abatement_date", abatement.empty() ? Json(nullptr) : Json(DatePart(abatement))}};
    found.emplace_back(ParseFhirInstant(onset).value_or(sys_seconds{}), std::move(item));
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  Json conditions = Json::array();
  for (size_t i = 0; i < found.size() && i < kMaxItems; ++i) conditions.push_back(found[i].second);
  Json result = {{"query", query}, {"match_count", found.size()}, {"conditions", conditions}};
  result["truncated"] = found.size() > kMaxItems;
  if (found.empty()) {
    result["note"] = "No condition matches '" + query +
                     "'. Try a shorter partial term (\"thrombo\", \"embol\", \"malignan\", \"diabet\").";
  }
  return ToolResult::OkJson(result);
}

// --- get_recent_labs --------------------------------------------------------

Json LabJson(const LabEntry& lab) {
  auto [value, unit] = ValueOf(*lab.value.holder);
  const Json code = lab.value.resource->value("code", Json::object());
  Json item = {{"name", lab.match.name},
               {"loinc", NullIfEmpty(lab.match.loinc)},
               {"value", value},
               {"unit", unit},
               {"date", lab.value.date},
               {"flag", Flag(*lab.value.holder, value)}};
  if (!lab.match.by_code) item["matched_by"] = "display text: " + ConceptText(code);
  return item;
}

ToolResult RunRecentLabs(const Shared& shared, const Json& args) {
  const FhirStore& store = *shared.store;
  const std::string requested = args.at("category").get<std::string>();
  const LabCategory* category = FindLabCategory(requested);
  if (!category) {
    std::string valid;
    for (const std::string& name : LabCategoryNames()) valid += (valid.empty() ? "" : ", ") + name;
    return ToolResult::Error("Unknown lab category '" + requested + "'. Valid categories: " + valid + ".");
  }
  const int lookback = args.value("lookback_days", 90);
  Json values = Json::array();
  size_t in_window = 0;
  const LabEntry* latest_outside = nullptr;
  for (const LabEntry& lab : shared.index.labs) {
    if (lab.match.category != category) continue;
    if (InWindow(store, lab.value.date, lookback)) {
      if (++in_window <= 2 * kMaxItems) values.push_back(LabJson(lab));
    } else if (!latest_outside && DaysBefore(store, lab.value.date) > lookback) {
      latest_outside = &lab;
    }
  }
  Json result = {{"category", category->name},
                 {"lookback_days", lookback},
                 {"as_of", store.as_of_date()},
                 {"values", values}};
  result["truncated"] = in_window > 2 * kMaxItems;
  if (in_window == 0) {
    std::string note = std::string("No ") + category->name + " labs in the " + std::to_string(lookback) +
                       " days up to " + store.as_of_date() + ".";
    if (latest_outside) {
      Json outside = LabJson(*latest_outside);
      outside["days_before_as_of"] = DaysBefore(store, latest_outside->value.date);
      result["latest_outside_window"] = outside;
      note += " The most recent one is older: see latest_outside_window (raise lookback_days to see more).";
    } else {
      note += " The record holds none at all.";
    }
    result["note"] = note;
  }
  return ToolResult::OkJson(result);
}

// --- check_medication_status ------------------------------------------------

// The medication's display text and RxNorm codes, following medicationReference.
std::pair<std::string, std::vector<std::string>> MedicationIdentity(const FhirStore& store, const Json& request) {
  const Json* codeable = nullptr;
  std::string fallback;
  if (auto it = request.find("medicationCodeableConcept"); it != request.end()) {
    codeable = &*it;
  } else if (auto ref = request.find("medicationReference"); ref != request.end() && ref->is_object()) {
    fallback = StringField(*ref, "display");
    if (const Json* medication = store.Resolve(StringField(*ref, "reference"))) {
      if (auto code = medication->find("code"); code != medication->end()) codeable = &*code;
    }
  }
  std::string text = codeable ? ConceptText(*codeable) : "";
  std::vector<std::string> rxnorm;
  if (codeable && codeable->contains("coding") && (*codeable)["coding"].is_array()) {
    for (const Json& coding : (*codeable)["coding"]) {
      const std::string display = StringField(coding, "display");
      if (!display.empty() && NormalizeText(text).find(NormalizeText(display)) == std::string::npos) {
        text += (text.empty() ? "" : " / ") + display;
      }
      if (StringField(coding, "system") == kRxNormSystem && coding.contains("code")) {
        rxnorm.push_back(StringField(coding, "code"));
      }
    }
  }
  if (text.empty()) text = fallback;
  return {text, rxnorm};
}

Json DosageText(const Json& request) {
  auto it = request.find("dosageInstruction");
  if (it == request.end() || !it->is_array() || it->empty()) return nullptr;
  const Json& dosage = (*it)[0];
  if (std::string text = StringField(dosage, "text"); !text.empty()) return text;
  std::string out;
  if (dosage.contains("doseAndRate") && dosage["doseAndRate"].is_array() && !dosage["doseAndRate"].empty()) {
    const Json& dose = ObjectField(dosage["doseAndRate"][0], "doseQuantity");
    if (dose.contains("value") && dose["value"].is_number()) {
      char number[32];
      std::snprintf(number, sizeof(number), "%.4g", dose["value"].get<double>());
      out = number;
      std::string unit = StringField(dose, "unit");
      out += unit.empty() ? " dose" : " " + unit;
    }
  }
  const Json& repeat = ObjectField(ObjectField(dosage, "timing"), "repeat");
  if (repeat.contains("frequency") && repeat.contains("period")) {
    out += (out.empty() ? "" : ", ") + repeat["frequency"].dump() + " time(s) per " + repeat["period"].dump() + " " +
           StringField(repeat, "periodUnit");
  }
  if (BoolOr(dosage, "asNeededBoolean", false)) out += out.empty() ? "as needed" : ", as needed";
  return out.empty() ? Json(nullptr) : Json(out);
}

ToolResult RunMedicationStatus(const Shared& shared, const Json& args) {
  const FhirStore& store = *shared.store;
  const std::string name = args.at("medication_name").get<std::string>();
  const MedicationQuery query = ExpandMedicationQuery(name);
  if (query.ingredients.empty()) return ToolResult::Error("medication_name is empty; pass a drug or a class.");
  std::vector<std::pair<sys_seconds, Json>> found;
  bool active = false;
  for (const Json* request : store.OfType("MedicationRequest")) {
    auto [text, rxnorm] = MedicationIdentity(store, *request);
    if (!MatchesMedication(query, text, rxnorm)) continue;
    const std::string status = StringField(*request, "status");
    const Json& validity = ObjectField(ObjectField(*request, "dispenseRequest"), "validityPeriod");
    std::string start = StringField(*request, "authoredOn");
    if (start.empty()) start = StringField(validity, "start");
    const std::string end = StringField(validity, "end");
    active = active || status == "active";
    Json item = {{"name", text},
                 {"rxnorm", rxnorm.empty() ? Json(nullptr) : Json(rxnorm.front())},
                 {"status", NullIfEmpty(status)},
                 {"start_date", start.empty() ? Json(nullptr) : Json(DatePart(start))},
                 {"end_date", end.empty() ? Json(nullptr) : Json(DatePart(end))},
                 {"dosage", DosageText(*request)}};
    found.emplace_back(ParseFhirInstant(start).value_or(sys_seconds{}), std::move(item));
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  Json medications = Json::array();
  for (size_t i = 0; i < found.size() && i < kMaxItems; ++i) medications.push_back(found[i].second);
  Json result = {{"query", name},
                 {"expanded_to", query.ingredients},
                 {"found", !found.empty()},
                 {"medications", medications},
                 {"is_currently_active", active}};
  if (!query.class_name.empty()) result["class"] = query.class_name;
  result["truncated"] = found.size() > kMaxItems;
  if (found.empty()) {
    result["note"] = "No MedicationRequest matches; the record shows no order for " + name + ".";
  } else if (!active) {
    result["note"] = "Orders exist but none has status 'active' (stopped/completed orders are not current therapy).";
  }
  return ToolResult::OkJson(result);
}

// --- get_vital_signs --------------------------------------------------------

ToolResult RunVitalSigns(const Shared& shared, const Json& args) {
  const FhirStore& store = *shared.store;
  const int lookback = args.value("lookback_days", 30);
  Json vitals = Json::object(), outside = Json::object(), missing = Json::array();
  for (const VitalSignCode& code : VitalSignCodes()) {
    const VitalEntry* latest_in = nullptr;
    const VitalEntry* latest_out = nullptr;
    for (const VitalEntry& entry : shared.index.vitals) {
      if (entry.key != code.key) continue;
      if (InWindow(store, entry.value.date, lookback)) {
        latest_in = &entry;
        break;
      }
      if (!latest_out && DaysBefore(store, entry.value.date) > lookback) latest_out = &entry;
    }
    auto to_json = [](const VitalEntry& entry) {
      auto [value, unit] = ValueOf(*entry.value.holder);
      return Json{{"value", value}, {"unit", unit}, {"date", entry.value.date}};
    };
    if (latest_in) {
      vitals[code.key] = to_json(*latest_in);
    } else {
      vitals[code.key] = nullptr;
      missing.push_back(code.key);
      if (latest_out) outside[code.key] = to_json(*latest_out);
    }
  }
  Json result = {{"lookback_days", lookback}, {"as_of", store.as_of_date()}, {"vitals", vitals}};
  if (!missing.empty()) {
    result["not_in_window"] = missing;
    if (!outside.empty()) result["latest_outside_window"] = outside;
  }
  return ToolResult::OkJson(result);
}

// --- check_allergies --------------------------------------------------------

ToolResult RunAllergies(const Shared& shared, const Json& args) {
  const std::string substance = args.value("substance", "");
  const std::string needle = NormalizeText(substance);
  Json allergies = Json::array();
  const auto records = shared.store->OfType("AllergyIntolerance");
  for (const Json* allergy : records) {
    const Json code = allergy->value("code", Json::object());
    Json reactions = Json::array();
    std::string haystack = NormalizeText(ConceptText(code));
    if (auto it = allergy->find("reaction"); it != allergy->end() && it->is_array()) {
      for (const Json& reaction : *it) {
        haystack += " | " + NormalizeText(ConceptText(ObjectField(reaction, "substance")));
        if (reaction.contains("manifestation") && reaction["manifestation"].is_array()) {
          for (const Json& m : reaction["manifestation"]) reactions.push_back(ConceptText(m));
        }
      }
    }
    if (!needle.empty() && haystack.find(needle) == std::string::npos) continue;
    const std::string recorded = StringField(*allergy, "recordedDate");
    allergies.push_back({{"substance", ConceptText(code)},
                         {"type", NullIfEmpty(StringField(*allergy, "type"))},
                         {"category", allergy->value("category", Json::array())},
                         {"criticality", NullIfEmpty(StringField(*allergy, "criticality"))},
                         {"clinical_status", NullIfEmpty(ConceptCode(allergy->value("clinicalStatus", Json::object())))},
                         {"verification_status",
                          NullIfEmpty(ConceptCode(allergy->value("verificationStatus", Json::object())))},
                         {"recorded_date", recorded.empty() ? Json(nullptr) : Json(DatePart(recorded))},
                         {"reactions", reactions}});
  }
  Json result = {{"query", needle.empty() ? Json(nullptr) : Json(substance)},
                 {"match_count", allergies.size()},
                 {"allergies", allergies}};
  if (records.empty()) {
    result["note"] = "The record holds no AllergyIntolerance; absence of a record does not prove no allergy.";
  } else if (allergies.empty()) {
    result["note"] = "No recorded allergy matches '" + substance + "'.";
  }
  return ToolResult::OkJson(result);
}

// --- get_imaging_history ----------------------------------------------------

bool IsImagingReport(const Json& report) {
  auto it = report.find("category");
  if (it == report.end()) return false;
  const Json categories = it->is_array() ? *it : Json::array({*it});
  for (const Json& category : categories) {
    const std::string code = ConceptCode(category);
    // HL7 v2-0074 diagnostic service sections: RAD radiology, RX radiograph,
    // CT, NMR (MRI), NMS (nuclear medicine), US, VUS, CUS, OUS (ultrasound);
    // LOINC LP29684-5 is the Radiology part code used by US Core.
    for (const char* imaging : {"RAD", "RX", "CT", "NMR", "NMS", "US", "VUS", "CUS", "OUS", "LP29684-5"}) {
      if (code == imaging) return true;
    }
  }
  return false;
}

ToolResult RunImagingHistory(const Shared& shared) {
  const FhirStore& store = *shared.store;
  std::vector<std::pair<sys_seconds, Json>> found;
  for (const Json* study : store.OfType("ImagingStudy")) {
    const std::string started = StringField(*study, "started");
    Json modalities = Json::array(), body_sites = Json::array();
    auto add_unique = [](Json& list, const std::string& value) {
      if (!value.empty() && std::find(list.begin(), list.end(), Json(value)) == list.end()) list.push_back(value);
    };
    if (auto it = study->find("modality"); it != study->end() && it->is_array()) {
      for (const Json& m : *it) add_unique(modalities, StringField(m, "code"));
    }
    std::string series_text;  // a series description, else an instance title ("Image of arm")
    if (auto it = study->find("series"); it != study->end() && it->is_array()) {
      for (const Json& series : *it) {
        add_unique(modalities, StringField(ObjectField(series, "modality"), "code"));
        add_unique(body_sites, StringField(ObjectField(series, "bodySite"), "display"));
        if (series_text.empty()) series_text = StringField(series, "description");
        if (series_text.empty() && series.contains("instance") && series["instance"].is_array() &&
            !series["instance"].empty()) {
          series_text = StringField(series["instance"][0], "title");
        }
      }
    }
    std::string description = StringField(*study, "description");
    if (description.empty() && study->contains("procedureCode") && (*study)["procedureCode"].is_array() &&
        !(*study)["procedureCode"].empty()) {
      description = ConceptText((*study)["procedureCode"][0]);
    }
    if (description.empty()) description = series_text;
    Json item = {{"kind", "ImagingStudy"},
                 {"date", started.empty() ? Json(nullptr) : Json(DatePart(started))},
                 {"modalities", modalities},
                 {"body_sites", body_sites},
                 {"description", NullIfEmpty(description)},
                 {"status", NullIfEmpty(StringField(*study, "status"))},
                 {"number_of_series", study->value("numberOfSeries", Json())},
                 {"number_of_instances", study->value("numberOfInstances", Json())}};
    found.emplace_back(ParseFhirInstant(started).value_or(sys_seconds{}), std::move(item));
  }
  for (const Json* report : store.OfType("DiagnosticReport")) {
    if (!IsImagingReport(*report)) continue;
    auto date = ObservationDate(*report);
    Json item = {{"kind", "DiagnosticReport"},
                 {"date", date ? Json(date->second) : Json(nullptr)},
                 {"description", ConceptText(report->value("code", Json::object()))},
                 {"status", NullIfEmpty(StringField(*report, "status"))},
                 {"conclusion", NullIfEmpty(StringField(*report, "conclusion"))}};
    found.emplace_back(date ? date->first : sys_seconds{}, std::move(item));
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  Json studies = Json::array();
  for (size_t i = 0; i < found.size() && i < kMaxItems; ++i) studies.push_back(found[i].second);
  Json result = {{"count", found.size()}, {"studies", studies}, {"truncated", found.size() > kMaxItems}};
  if (found.empty()) result["note"] = "The record holds no ImagingStudy and no imaging DiagnosticReport.";
  return ToolResult::OkJson(result);
}

}  // namespace medreact::fhir_tools
