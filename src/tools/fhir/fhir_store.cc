// Loading and indexing a FHIR R4 record.
//
// The wire formats: a Bundle is {"resourceType": "Bundle", "type": ...,
// "entry": [{"fullUrl": ..., "resource": {...}}, ...]}; Synthea writes
// transaction bundles whose entries have fullUrl "urn:uuid:<id>" and whose
// references use that form. Servers write "Type/id" references (searchset) and
// bulk export writes NDJSON, one resource per line. Both reference forms are
// indexed. Dates follow FHIR's date/dateTime grammar: YYYY, YYYY-MM,
// YYYY-MM-DD, or YYYY-MM-DDThh:mm:ss[.fff](Z|+hh:mm|-hh:mm).
#include "tools/fhir/fhir_store.h"

#include "core/file_io.h"
#include "core/json_filter.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <utility>

namespace medreact {
namespace {

using std::chrono::sys_days;
using std::chrono::sys_seconds;

bool IsDigits(std::string_view text, size_t pos, size_t count) {
  if (pos + count > text.size()) return false;
  for (size_t i = pos; i < pos + count; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  }
  return true;
}

int Number(std::string_view text, size_t pos, size_t count) {
  int value = 0;
  for (size_t i = pos; i < pos + count; ++i) value = value * 10 + (text[i] - '0');
  return value;
}

// A plausible FHIR resource type name: an upper-case ASCII letter then letters.
bool LooksLikeResourceType(const std::string& type) {
  if (type.empty() || !std::isupper(static_cast<unsigned char>(type[0]))) return false;
  return std::all_of(type.begin(), type.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
}

// Why `value` cannot be a resource, or "" when it can.
std::string ResourceProblem(const Json& value) {
  if (!value.is_object()) return std::string("not a JSON object (") + value.type_name() + ")";
  auto it = value.find("resourceType");
  if (it == value.end()) return "no resourceType";
  if (!it->is_string()) return "resourceType is not a string";
  if (!LooksLikeResourceType(it->get<std::string>())) {
    return "resourceType '" + Preview(it->get<std::string>(), 40) + "' is not a FHIR resource type";
  }
  return "";
}

// The types whose dates are clinical events (billing and admin are not).
bool IsClinicalType(const std::string& type) {
  static const char* const kTypes[] = {"Observation",      "Encounter",         "Condition",
                                       "MedicationRequest", "Procedure",         "DiagnosticReport",
                                       "Immunization",     "AllergyIntolerance", "ImagingStudy",
                                       "MedicationAdministration", "MedicationStatement"};
  return std::any_of(std::begin(kTypes), std::end(kTypes), [&](const char* t) { return type == t; });
}

// The fields a clinical date is read from: dates, and periods with a start
// and an end.
constexpr const char* kDateFields[] = {"effectiveDateTime", "effectiveInstant", "issued",
                                       "onsetDateTime",     "recordedDate",     "abatementDateTime",
                                       "authoredOn",        "performedDateTime", "occurrenceDateTime",
                                       "started"};
constexpr const char* kPeriodFields[] = {"period", "effectivePeriod", "performedPeriod", "onsetPeriod"};

// The latest dated field of a clinical resource, with its text.
std::optional<std::pair<sys_seconds, std::string>> LatestClinicalDate(const Json& resource) {
  if (!resource.is_object() || !IsClinicalType(StringField(resource, "resourceType"))) return std::nullopt;
  std::optional<std::pair<sys_seconds, std::string>> best;
  auto consider = [&](const Json& holder, const char* key) {
    std::string text = StringField(holder, key);
    if (text.empty()) return;
    if (auto at = ParseFhirInstant(text); at && (!best || *at > best->first)) best = {{*at, text}};
  };
  for (const char* key : kDateFields) consider(resource, key);
  for (const char* period : kPeriodFields) {
    auto it = resource.find(period);
    if (it != resource.end() && it->is_object()) {
      consider(*it, "start");
      consider(*it, "end");
    }
  }
  return best;
}

// What the store needs of a resource it will drop (KeepOnly): its type, id
// and date fields, so that counts, references, the as-of date and the
// warnings come out as from the whole resource.
Json Stub(const Json& resource) {
  Json stub = Json::object();
  for (const char* key : {"resourceType", "id"}) {
    if (auto it = resource.find(key); it != resource.end()) stub[key] = *it;
  }
  for (const char* key : kDateFields) {
    if (auto it = resource.find(key); it != resource.end()) stub[key] = *it;
  }
  for (const char* key : kPeriodFields) {
    if (auto it = resource.find(key); it != resource.end()) stub[key] = *it;
  }
  return stub;
}

// True for a resource of a valid type outside `keep`: a stub will do.
bool Droppable(const Json& resource, const std::set<std::string>& keep) {
  return ResourceProblem(resource).empty() && keep.count(resource["resourceType"].get<std::string>()) == 0;
}

// A parser callback replacing each Bundle entry's resource of a type outside
// `keep` by its Stub as soon as it is read, so the whole record is never
// built; `stubbed` says whether it did.
Json::parser_callback_t StubbingFilter(const std::set<std::string>& keep, bool& stubbed) {
  return [&keep, &stubbed, keys = std::vector<std::string>()](int depth, Json::parse_event_t event,
                                                              Json& parsed) mutable {
    const auto d = static_cast<size_t>(depth);
    if (event == Json::parse_event_t::key) {
      if (keys.size() <= d) keys.resize(d + 1);
      keys[d] = parsed.get<std::string>();
    } else if (event == Json::parse_event_t::object_end && depth == 3 && keys.size() > 3 &&
               keys[1] == "entry" && keys[3] == "resource" && Droppable(parsed, keep)) {
      parsed = Stub(parsed);  // root → "entry" array → entry object → "resource"
      stubbed = true;
    }
    return true;
  };
}

// Parses a Bundle through StubbingFilter; any other document whole.
Result<Json> ParseBundleKeeping(std::string_view text, const std::set<std::string>& keep) {
  bool stubbed = false;
  Result<Json> document = ParseJsonFiltered(text, StubbingFilter(keep, stubbed));
  if (document.ok() && stubbed && StringField(*document, "resourceType") != "Bundle") {
    return ParseJson(text);  // a single resource is kept whole
  }
  return document;
}

// The same from the file itself, read as it is parsed, so its text is never
// held: a regular file within kMaxRecordBytes holding a Bundle. Anything else
// (a folder, a parse error, NDJSON, a single resource) is an error, and the
// caller takes the reading path that says why.
Result<Json> ParseBundleFileKeeping(const std::string& path, const std::set<std::string>& keep) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return Status::NotFound("cannot open");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) > kMaxRecordBytes) {
    ::close(fd);
    return Status::InvalidArgument("not a regular file within the size limit");
  }
  std::FILE* file = ::fdopen(fd, "rb");
  if (file == nullptr) {
    ::close(fd);
    return Status::Unavailable("cannot read");
  }
  bool stubbed = false;
  Result<Json> document = ParseJsonFileFiltered(file, StubbingFilter(keep, stubbed));
  std::fclose(file);
  if (document.ok() && StringField(*document, "resourceType") != "Bundle") {
    return Status::InvalidArgument("not a Bundle");
  }
  return document;
}

}  // namespace

// --- Helpers ----------------------------------------------------------------

std::optional<sys_seconds> ParseFhirInstant(std::string_view text) {
  using namespace std::chrono;
  if (!IsDigits(text, 0, 4)) return std::nullopt;
  int y = Number(text, 0, 4);
  unsigned m = 1, d = 1;
  size_t pos = 4;
  if (pos < text.size()) {
    if (text[pos] != '-' || !IsDigits(text, pos + 1, 2)) return std::nullopt;
    m = static_cast<unsigned>(Number(text, pos + 1, 2));
    pos += 3;
  }
  if (pos < text.size()) {
    if (text[pos] != '-' || !IsDigits(text, pos + 1, 2)) return std::nullopt;
    d = static_cast<unsigned>(Number(text, pos + 1, 2));
    pos += 3;
  }
  const year_month_day ymd{year{y}, month{m}, day{d}};
  if (!ymd.ok()) return std::nullopt;
  sys_seconds result = sys_days(ymd);
  if (pos == text.size()) return result;
  // Time part: Thh:mm[:ss[.fff]] then a zone.
  if (text[pos] != 'T' || !IsDigits(text, pos + 1, 2) || pos + 3 >= text.size() || text[pos + 3] != ':' ||
      !IsDigits(text, pos + 4, 2)) {
    return std::nullopt;
  }
  int hh = Number(text, pos + 1, 2), mm = Number(text, pos + 4, 2), ss = 0;
  pos += 6;
  if (pos < text.size() && text[pos] == ':') {
    if (!IsDigits(text, pos + 1, 2)) return std::nullopt;
    ss = Number(text, pos + 1, 2);
    pos += 3;
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
    }
  }
  if (hh > 24 || mm > 59 || ss > 60) return std::nullopt;
  result += hours(hh) + minutes(mm) + seconds(ss);
  if (pos == text.size()) return result;  // no zone: read as UTC
  if (text[pos] == 'Z' && pos + 1 == text.size()) return result;
  if ((text[pos] == '+' || text[pos] == '-') && pos + 6 == text.size() && IsDigits(text, pos + 1, 2) &&
      text[pos + 3] == ':' && IsDigits(text, pos + 4, 2)) {
    const minutes offset = hours(Number(text, pos + 1, 2)) + minutes(Number(text, pos + 4, 2));
    return text[pos] == '+' ? result - offset : result + offset;
  }
  return std::nullopt;
}

std::optional<sys_days> ParseFhirDate(std::string_view text) {
  if (!ParseFhirInstant(text)) return std::nullopt;
  // The written date, before any zone shift: parse the date part alone.
  const size_t t = text.find('T');
  auto date_only = ParseFhirInstant(text.substr(0, t));
  if (!date_only) return std::nullopt;
  return std::chrono::floor<std::chrono::days>(*date_only);
}

std::string FormatDate(sys_days day) {
  const std::chrono::year_month_day ymd(day);
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  return buffer;
}

int AgeInYears(sys_days birth, sys_days at) {
  const std::chrono::year_month_day b(birth), a(at);
  int age = static_cast<int>(a.year()) - static_cast<int>(b.year());
  if (a.month() < b.month() || (a.month() == b.month() && a.day() < b.day())) --age;
  return age;
}

std::string NormalizeText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool pending_space = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    // U+200B..U+200D are E2 80 8B..8D; U+FEFF is EF BB BF; U+00A0 is C2 A0.
    if (c == 0xE2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80) {
      const unsigned char c3 = static_cast<unsigned char>(text[i + 2]);
      if (c3 >= 0x8B && c3 <= 0x8D) {
        i += 2;
        continue;
      }
    }
    if (c == 0xEF && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xBB &&
        static_cast<unsigned char>(text[i + 2]) == 0xBF) {
      i += 2;
      continue;
    }
    bool space = std::isspace(c) != 0;
    if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xA0) {
      space = true;
      ++i;
    }
    if (space) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(static_cast<char>(std::tolower(c)));
  }
  return out;
}

std::string StringField(const Json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

const Json& ObjectField(const Json& object, const char* key) {
  static const Json kEmpty = Json::object();
  if (!object.is_object()) return kEmpty;
  auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

std::string ConceptText(const Json& codeable) {
  std::string text = StringField(codeable, "text");
  if (!text.empty()) return text;
  if (codeable.is_object() && codeable.contains("coding") && codeable["coding"].is_array()) {
    for (const Json& coding : codeable["coding"]) {
      if (std::string display = StringField(coding, "display"); !display.empty()) return display;
    }
    for (const Json& coding : codeable["coding"]) {
      if (std::string code = StringField(coding, "code"); !code.empty()) return code;
    }
  }
  return "";
}

std::string ConceptCode(const Json& codeable, std::string_view system) {
  if (!codeable.is_object() || !codeable.contains("coding") || !codeable["coding"].is_array()) return "";
  for (const Json& coding : codeable["coding"]) {
    if (system.empty() || StringField(coding, "system") == system) {
      if (std::string code = StringField(coding, "code"); !code.empty()) return code;
    }
  }
  return "";
}

std::optional<sys_seconds> ClinicalInstant(const Json& resource) {
  auto latest = LatestClinicalDate(resource);
  if (!latest) return std::nullopt;
  return latest->first;
}

// --- FhirStore --------------------------------------------------------------

Result<FhirStore> FhirStore::LoadFile(const std::string& path) { return Load(path, nullptr); }

Result<FhirStore> FhirStore::LoadFile(const std::string& path, const std::set<std::string>& keep_types) {
  return Load(path, &keep_types);
}

Result<FhirStore> FhirStore::Load(const std::string& path, const std::set<std::string>* keep) {
  const bool ndjson_name = path.size() >= 7 && path.compare(path.size() - 7, 7, ".ndjson") == 0;
  if (keep && !ndjson_name) {
    // The common case, a Bundle, parsed from the file: the record's text is
    // never held beside its values. Anything else takes the path below.
    if (Result<Json> document = ParseBundleFileKeeping(path, *keep); document.ok()) {
      Result<FhirStore> store = FromJson(std::move(*document), path);
      if (store.ok()) store->KeepOnly(*keep);
      return store;
    }
  }
  Result<std::string> text = ReadUserFile(path, "FHIR record", kMaxRecordBytes);
  if (!text.ok()) return text.status();
  return Read(*text, path, ndjson_name, keep);
}

Result<FhirStore> FhirStore::FromText(std::string_view text, const std::string& source, bool ndjson) {
  return Read(text, source, ndjson, nullptr);
}

Result<FhirStore> FhirStore::Read(std::string_view text, const std::string& source, bool ndjson,
                                  const std::set<std::string>* keep) {
  Result<FhirStore> store = Status::Internal("unset");
  if (ndjson) {
    store = FromNdjson(text, source, keep);
  } else if (Result<Json> document = keep ? ParseBundleKeeping(text, *keep) : ParseJson(text); document.ok()) {
    store = FromJson(std::move(*document), source);
  } else {
    // Several JSON objects one per line is NDJSON even without the extension.
    const size_t newline = text.find('\n');
    if (newline == std::string_view::npos || !ParseJson(text.substr(0, newline)).ok()) {
      return Status::ParseError("FHIR file '" + source + "' is not JSON: " + document.status().message());
    }
    store = FromNdjson(text, source, keep);
  }
  if (store.ok() && keep) store->KeepOnly(*keep);
  return store;
}

Result<FhirStore> FhirStore::FromJson(Json document, const std::string& source) {
  if (std::string problem = ResourceProblem(document); !problem.empty()) {
    return Status::InvalidArgument("'" + source + "' is JSON but not FHIR: " + problem +
                                   " (expected a Bundle or a single resource)");
  }
  FhirStore store;
  store.source_ = source;
  if (document["resourceType"] != "Bundle") {
    store.Add(std::move(document), "");
    store.Finish();
    return store;
  }
  const std::string type = StringField(document, "type");
  if (type != "transaction" && type != "collection" && type != "batch" && type != "searchset") {
    store.warnings_.push_back("Bundle type '" + type + "' read like a collection");
  }
  auto entries = document.find("entry");
  if (entries == document.end()) {
    store.warnings_.push_back("Bundle has no entries");
  } else if (!entries->is_array()) {
    return Status::InvalidArgument("'" + source + "': Bundle.entry is not an array");
  } else {
    for (size_t i = 0; i < entries->size(); ++i) {
      Json& entry = (*entries)[i];
      const std::string where = "entry " + std::to_string(i) + " skipped: ";
      if (!entry.is_object()) {
        store.warnings_.push_back(where + "not a JSON object");
        continue;
      }
      auto resource = entry.find("resource");
      if (resource == entry.end()) {
        store.warnings_.push_back(where + "no resource");
        continue;
      }
      if (std::string problem = ResourceProblem(*resource); !problem.empty()) {
        store.warnings_.push_back(where + "resource has " + problem);
        continue;
      }
      store.Add(std::move(*resource), StringField(entry, "fullUrl"));
    }
  }
  store.Finish();
  return store;
}

Result<FhirStore> FhirStore::FromNdjson(std::string_view text, const std::string& source) {
  return FromNdjson(text, source, nullptr);
}

Result<FhirStore> FhirStore::FromNdjson(std::string_view text, const std::string& source,
                                        const std::set<std::string>* keep) {
  FhirStore store;
  store.source_ = source;
  size_t line_number = 0, lines = 0;
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    ++lines;
    const std::string where = "line " + std::to_string(line_number) + " skipped: ";
    Result<Json> parsed = ParseJson(line);
    if (!parsed.ok()) {
      store.warnings_.push_back(where + parsed.status().message());
      continue;
    }
    if (std::string problem = ResourceProblem(*parsed); !problem.empty()) {
      store.warnings_.push_back(where + problem);
      continue;
    }
    store.Add(keep && Droppable(*parsed, *keep) ? Stub(*parsed) : std::move(parsed).value(), "");
  }
  if (store.resources_.empty()) {
    std::string detail = lines == 0 ? "it is empty" : "none of its " + std::to_string(lines) + " lines is a resource";
    if (!store.warnings_.empty()) detail += " (" + store.warnings_.front() + ")";
    return Status::InvalidArgument("'" + source + "' holds no FHIR resource: " + detail);
  }
  store.Finish();
  return store;
}

void FhirStore::Add(Json resource, const std::string& full_url) {
  const size_t index = resources_.size();
  const std::string type = resource["resourceType"].get<std::string>();
  const std::string id = StringField(resource, "id");
  resources_.push_back(std::move(resource));
  by_type_[type].push_back(index);
  ++counts_[type];
  // First resource wins on a duplicate key.
  if (!id.empty()) {
    by_reference_.emplace(type + "/" + id, index);
    by_reference_.emplace("urn:uuid:" + id, index);
  }
  if (!full_url.empty()) by_reference_.emplace(full_url, index);
}

void FhirStore::Finish() {
  if (auto it = by_type_.find("Patient"); it != by_type_.end() && !it->second.empty()) {
    patient_index_ = it->second.front();
    patient_id_ = StringField(resources_[*patient_index_], "id");
  }
  std::optional<std::pair<sys_seconds, std::string>> latest;
  for (const Json& resource : resources_) {
    auto date = LatestClinicalDate(resource);
    if (date && (!latest || date->first > latest->first)) latest = date;
  }
  if (latest) {
    as_of_ = ParseFhirDate(latest->second).value_or(std::chrono::floor<std::chrono::days>(latest->first));
    as_of_source_ = "latest clinical date in record";
  } else {
    as_of_ = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
    as_of_source_ = "today (no clinical date in record)";
  }
}

std::vector<const Json*> FhirStore::OfType(const std::string& type) const {
  std::vector<const Json*> out;
  if (auto it = by_type_.find(type); it != by_type_.end()) {
    out.reserve(it->second.size());
    for (size_t index : it->second) out.push_back(&resources_[index]);
  }
  return out;
}

std::map<std::string, size_t> FhirStore::ResourceCounts() const { return counts_; }

void FhirStore::KeepOnly(const std::set<std::string>& types) {
  constexpr size_t kDropped = static_cast<size_t>(-1);
  std::vector<size_t> moved_to(resources_.size(), kDropped);
  std::vector<Json> kept;
  for (size_t i = 0; i < resources_.size(); ++i) {
    if (types.count(StringField(resources_[i], "resourceType")) == 0) continue;
    moved_to[i] = kept.size();
    kept.push_back(std::move(resources_[i]));
  }
  resources_ = std::move(kept);
  for (auto it = by_type_.begin(); it != by_type_.end();) {
    if (types.count(it->first) == 0) {
      it = by_type_.erase(it);
      continue;
    }
    for (size_t& index : it->second) index = moved_to[index];
    ++it;
  }
  for (auto it = by_reference_.begin(); it != by_reference_.end();) {
    if (moved_to[it->second] == kDropped) {
      it = by_reference_.erase(it);
    } else {
      it->second = moved_to[it->second];
      ++it;
    }
  }
  if (patient_index_) {
    patient_index_ = moved_to[*patient_index_] == kDropped ? std::nullopt : std::optional(moved_to[*patient_index_]);
  }
}

const Json* FhirStore::Resolve(const std::string& reference) const {
  if (reference.empty() || reference[0] == '#') return nullptr;
  if (auto it = by_reference_.find(reference); it != by_reference_.end()) return &resources_[it->second];
  // An absolute URL (or one with a version): keep the last "Type/id".
  std::string_view ref = reference;
  if (size_t history = ref.find("/_history/"); history != std::string_view::npos) ref = ref.substr(0, history);
  const size_t slash = ref.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return nullptr;
  const size_t type_start = ref.rfind('/', slash - 1);
  const std::string key(ref.substr(type_start == std::string_view::npos ? 0 : type_start + 1));
  if (auto it = by_reference_.find(key); it != by_reference_.end()) return &resources_[it->second];
  return nullptr;
}

const Json* FhirStore::patient() const { return patient_index_ ? &resources_[*patient_index_] : nullptr; }

std::string FhirStore::as_of_date() const { return FormatDate(as_of_); }

void FhirStore::SetAsOf(sys_days day) {
  as_of_ = day;
  as_of_source_ = "configured";
}

Status FhirStore::SetAsOf(std::string_view date) {
  auto day = ParseFhirDate(date);
  if (!day) return Status::InvalidArgument("as-of date '" + std::string(date) + "' is not YYYY-MM-DD");
  SetAsOf(*day);
  return Status::OK();
}

}  // namespace medreact
