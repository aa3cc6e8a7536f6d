// FhirStore: one patient's FHIR R4 record, loaded and indexed once, then
// read-only.
//
// Accepts a Bundle (transaction, collection, batch, searchset: each entry's
// `resource`), a single resource, or NDJSON (one resource per line). At load it
// indexes resources by type, by "Type/id" and by fullUrl / "urn:uuid:<id>", so a
// reference written either way resolves in one hash lookup, and it picks the
// patient (the first Patient resource). A file that is not JSON or not FHIR is
// an error naming the file and the problem; a damaged entry or NDJSON line is
// skipped and described in warnings(), and the rest stays usable.
//
// "Now" for the clinical tools is as_of(): a configured date, or by default the
// latest clinical date found in the record (Synthea sample data is years old,
// so the wall clock would put every lab outside any lookback window).
//
// Thread-safety: after loading (and SetAsOf, which is setup), a FhirStore is
// immutable and every const method is safe to call from several threads.
#ifndef MEDREACT_TOOLS_FHIR_FHIR_STORE_H_
#define MEDREACT_TOOLS_FHIR_FHIR_STORE_H_

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "medreact/json.h"
#include "medreact/status.h"

namespace medreact {

class FhirStore {
 public:
  // Reads and parses `path`: JSON (Bundle or resource) or, if the name ends in
  // .ndjson or the text is not one JSON document, NDJSON. Errors name the file
  // (a folder, a missing file or one over kMaxRecordBytes is an error) and
  // never quote its content.
  static Result<FhirStore> LoadFile(const std::string& path);
  // The same, then KeepOnly(keep_types); the resources of other types are
  // reduced to what the store needs of them as they are parsed, and a Bundle
  // is parsed from the file as it is read, so neither the whole record nor
  // its text is ever in memory (errors are the unfiltered load's).
  static Result<FhirStore> LoadFile(const std::string& path, const std::set<std::string>& keep_types);
  // The same from text: NDJSON when `ndjson`, else JSON, falling back to
  // NDJSON when the text is not one JSON document but its first line is.
  static Result<FhirStore> FromText(std::string_view text, const std::string& source, bool ndjson = false);
  // `source` names the input in error messages and warnings. The resources
  // are moved out of `document`: pass it with std::move when it is not needed
  // afterwards, so a record is never held twice.
  static Result<FhirStore> FromJson(Json document, const std::string& source = "FHIR JSON");
  static Result<FhirStore> FromNdjson(std::string_view text, const std::string& source = "FHIR NDJSON");

  const std::string& source() const { return source_; }

  // Every resource, in input order.
  const std::vector<Json>& resources() const { return resources_; }
  // The resources of one type, in input order (empty when none).
  std::vector<const Json*> OfType(const std::string& type) const;
  // {resourceType: count} over every resource read, KeepOnly's dropped ones included.
  std::map<std::string, size_t> ResourceCounts() const;

  // Drops the resources of every type not in `types` (setup, before the store
  // is shared): a reader that needs only those (the fhir pack,
  // FhirPackResourceTypes) then holds a fraction of the record. A Synthea
  // record is mostly billing (Claim, ExplanationOfBenefit) and encounters, and
  // a parsed resource takes ~7 times its compact text. What was computed from
  // every resource stays: ResourceCounts, as_of, the warnings.
  void KeepOnly(const std::set<std::string>& types);

  // Resolves "Type/id", "urn:uuid:<id>", a fullUrl, or an absolute URL ending
  // in Type/id. Returns nullptr when nothing matches (contained "#id" included).
  const Json* Resolve(const std::string& reference) const;

  // The first Patient resource, or nullptr; patient_id() is "" without one.
  const Json* patient() const;
  const std::string& patient_id() const { return patient_id_; }

  // Entries or lines that were skipped, each naming its index or line number.
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Adds a warning about the record as a whole (setup: a FHIR server's
  // OperationOutcome warning when the record was read over REST).
  void AddWarning(std::string warning) { warnings_.push_back(std::move(warning)); }

  // The date treated as today by the tools.
  std::chrono::sys_days as_of() const { return as_of_; }
  std::string as_of_date() const;                                 // "YYYY-MM-DD"
  const std::string& as_of_source() const { return as_of_source_; }  // "configured" | "latest clinical date in record" | ...
  void SetAsOf(std::chrono::sys_days day);
  // Accepts "YYYY-MM-DD" (or a FHIR dateTime; its date part is used).
  Status SetAsOf(std::string_view date);

 private:
  FhirStore() = default;
  // `keep`: null, or the types to keep (LoadFile's filtered form).
  static Result<FhirStore> Load(const std::string& path, const std::set<std::string>* keep);
  static Result<FhirStore> Read(std::string_view text, const std::string& source, bool ndjson,
                                const std::set<std::string>* keep);
  static Result<FhirStore> FromNdjson(std::string_view text, const std::string& source,
                                      const std::set<std::string>* keep);
  // Appends a resource (already checked to be an object with resourceType).
  void Add(Json resource, const std::string& full_url);
  // Builds the patient and as_of fields once every resource is in.
  void Finish();

  std::string source_;
  std::vector<Json> resources_;
  std::unordered_map<std::string, std::vector<size_t>> by_type_;
  std::unordered_map<std::string, size_t> by_reference_;
  std::map<std::string, size_t> counts_;  // by type, every resource read
  std::optional<size_t> patient_index_;
  std::string patient_id_;
  std::vector<std::string> warnings_;
  std::chrono::sys_days as_of_{};
  std::string as_of_source_;
};

// --- Helpers shared by the FHIR tools --------------------------------------

// A FHIR date or dateTime ("2019", "2019-03", "2019-03-04",
// "2019-03-04T06:12:43.273+01:00", "...Z") as a UTC instant; a date alone is
// midnight UTC. nullopt when the text is not one.
std::optional<std::chrono::sys_seconds> ParseFhirInstant(std::string_view text);
// The calendar date as written (the local date of a dateTime; a partial date
// is its first day). nullopt when the text is not a FHIR date.
std::optional<std::chrono::sys_days> ParseFhirDate(std::string_view text);
std::string FormatDate(std::chrono::sys_days day);  // "YYYY-MM-DD"
// Completed years from `birth` to `at`.
int AgeInYears(std::chrono::sys_days birth, std::chrono::sys_days at);

// Lower-case (ASCII), zero-width characters (U+200B, U+200C, U+200D, U+FEFF)
// removed, runs of whitespace collapsed to one space, ends trimmed.
std::string NormalizeText(std::string_view text);

// A string member of `object`, or "" when absent or not a string.
std::string StringField(const Json& object, const char* key);
// object[key] when both are JSON objects, else an empty object: a record's
// fields are read through this so that a value of another type (valid JSON,
// wrong shape) reads as absent instead of throwing.
const Json& ObjectField(const Json& object, const char* key);
// The text to show for a CodeableConcept: text, else the first coding's
// display, else its code.
std::string ConceptText(const Json& codeable);
// The code of the first coding in `system` (any system when empty), or "".
std::string ConceptCode(const Json& codeable, std::string_view system = {});
// The latest clinical instant a resource carries (effective, issued, period,
// onset, authoredOn, ...), or nullopt. Billing resources carry none.
std::optional<std::chrono::sys_seconds> ClinicalInstant(const Json& resource);

}  // namespace medreact

#endif  // MEDREACT_TOOLS_FHIR_FHIR_STORE_H_
