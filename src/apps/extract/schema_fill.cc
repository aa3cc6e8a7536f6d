#include "apps/extract/schema_fill.h"
#include "core/text_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace medreact {
namespace {

constexpr const char* kNotDocumented = "not documented in the note";

// The words of a field: its name split on every character that is not a
// letter or digit and on camelCase, lower case, padded with spaces
// ("bmiForAge_z" → " bmi for age z ", "wfl/h" → " wfl h ").
std::string Words(const std::string& text) {
  std::string out = " ";
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (i > 0 && std::isupper(c) && std::islower(static_cast<unsigned char>(text[i - 1]))) out += ' ';
    if (std::isalnum(c)) {
      out += static_cast<char>(std::tolower(c));
    } else if (out.back() != ' ') {
      out += ' ';
    }
  }
  if (out.back() != ' ') out += ' ';
  return out;
}

std::string FieldText(const std::string& name) { return Words(name); }

// The user's schema is read through these: a keyword of another type than
// JSON Schema gives it (valid JSON, e.g. "properties": [] or a sub-schema
// that is `true`) reads as absent instead of throwing.
const Json& Member(const Json& schema, const char* key, Json::value_t type) {
  static const Json kAbsent;
  if (!schema.is_object()) return kAbsent;
  auto it = schema.find(key);
  return it != schema.end() && it->type() == type ? *it : kAbsent;
}
const Json& Properties(const Json& schema) {
  static const Json kEmpty = Json::object();
  const Json& p = Member(schema, "properties", Json::value_t::object);
  return p.is_null() ? kEmpty : p;
}
const Json& Enum(const Json& schema) {
  static const Json kEmpty = Json::array();
  const Json& e = Member(schema, "enum", Json::value_t::array);
  return e.is_null() ? kEmpty : e;
}

std::string DescriptionText(const Json& schema) { return Words(StringOr(schema, "description")); }

bool Has(const std::string& text, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return text.find(w) != std::string::npos; });
}

std::set<std::string> Types(const Json& schema) {
  std::set<std::string> types;
  static const Json kAbsent;
  const Json& type = schema.is_object() && schema.contains("type") ? schema["type"] : kAbsent;
  if (type.is_string()) types.insert(type.get<std::string>());
  if (type.is_array()) {
    for (const Json& t : type) {
      if (t.is_string()) types.insert(t.get<std::string>());
    }
  }
  if (types.empty() && !Enum(schema).empty()) types.insert("string");
  if (types.empty() && !Properties(schema).empty()) types.insert("object");
  return types;
}

double Round(double value, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(value * scale) / scale;
}

// The enum value that says `wanted` ("moderate", "none", "male"), or null.
Json PickEnum(const Json& options, const std::string& wanted) {
  const std::vector<std::string> none_words = {"none", "no malnutrition", "not malnourished", "absent", "normal", "no"};
  for (const Json& option : options) {
    if (!option.is_string()) continue;
    const std::string o = AsciiLower(option.get<std::string>());
    if (wanted == "none") {
      for (const std::string& w : none_words) {
        if (o == w || o.rfind(w + " ", 0) == 0) return option;
      }
    } else if (o == wanted || o.find(wanted) != std::string::npos) {
      return option;
    }
  }
  // GLIM stages: "stage 1" is moderate, "stage 2" severe (Cederholm 2019).
  for (const Json& option : options) {
    if (!option.is_string()) continue;
    const std::string o = AsciiLower(option.get<std::string>());
    if ((wanted == "moderate" && o.find("stage 1") != std::string::npos) ||
        (wanted == "severe" && o.find("stage 2") != std::string::npos)) {
      return option;
    }
  }
  return nullptr;
}

Json StringOrEnum(const Json& schema, const std::string& value) {
  if (!Enum(schema).empty()) return PickEnum(Enum(schema), value);
  return value;
}

struct IndicatorPhrase {
  const char* words;  // as Words() writes them, padded
  const char* indicator;
};

// Longest first; each phrase matched is blanked before shorter ones are
// tried, so "weight for length or height" is not also "weight for length".
// Abbreviations: WHO Anthro (WAZ, LAZ/HAZ, WLZ/WHZ, BAZ, HCZ) and common
// clinical use (WFL, WFH, WFA, LFA, HFA, BMIZ, OFC).
constexpr IndicatorPhrase kIndicatorPhrases[] = {
    {" weight for length or height ", "weight_for_length_or_height"},
    {" weight for length height ", "weight_for_length_or_height"},
    {" weight for height or length ", "weight_for_length_or_height"},
    {" wfl h ", "weight_for_length_or_height"},
    {" wflh ", "weight_for_length_or_height"},
    {" wfh l ", "weight_for_length_or_height"},
    {" length or height for age ", "length_or_height_for_age"},
    {" length height for age ", "length_or_height_for_age"},
    {" lhfa ", "length_or_height_for_age"},
    {" lhaz ", "length_or_height_for_age"},
    {" weight for length ", "weight_for_length"},
    {" weight for height ", "weight_for_height"},
    {" length for age ", "length_for_age"},
    {" height for age ", "height_for_age"},
    {" stature for age ", "height_for_age"},
    {" weight for age ", "weight_for_age"},
    {" body mass index for age ", "bmi_for_age"},
    {" bmi for age ", "bmi_for_age"},
    {" head circumference for age ", "head_circumference_for_age"},
    {" head circumference ", "head_circumference_for_age"},
    {" wfl ", "weight_for_length"},
    {" wlz ", "weight_for_length"},
    {" wfh ", "weight_for_height"},
    {" whz ", "weight_for_height"},
    {" lfa ", "length_for_age"},
    {" laz ", "length_for_age"},
    {" hfa ", "height_for_age"},
    {" haz ", "height_for_age"},
    {" wfa ", "weight_for_age"},
    {" waz ", "weight_for_age"},
    {" baz ", "bmi_for_age"},
    {" bmiz ", "bmi_for_age"},
    {" bmi ", "bmi_for_age"},
    {" body mass index ", "bmi_for_age"},
    {" hcz ", "head_circumference_for_age"},
    {" ofc ", "head_circumference_for_age"},
};

const std::set<std::string>& KnownIndicators() {
  static const std::set<std::string> kKnown = {
      "weight_for_age", "length_for_age", "height_for_age", "bmi_for_age", "head_circumference_for_age",
      "weight_for_length", "weight_for_height", "weight_for_length_or_height", "length_or_height_for_age"};
  return kKnown;
}

// The one indicator `words` name; "" when none or when two different ones.
std::string IndicatorInWords(std::string words) {
  std::string found;
  for (const IndicatorPhrase& p : kIndicatorPhrases) {
    const std::string phrase = p.words;
    for (size_t at = words.find(phrase); at != std::string::npos; at = words.find(phrase)) {
      if (!found.empty() && found != p.indicator) return "";
      found = p.indicator;
      words.replace(at + 1, phrase.size() - 2, std::string(phrase.size() - 2, '#'));
    }
  }
  return found;
}

// Words of a z-score or percentile field.
bool NamesZ(const std::string& words) {
  return Has(words, {" z ", "zscore", " sds ", " whz ", " waz ", " haz ", " laz ", " baz ", " bmiz ", " wlz ", " hcz ",
                     " lhaz "});
}
bool NamesPercentile(const std::string& words) { return Has(words, {"percentile", "centile"}); }

class Filler {
 public:
  explicit Filler(const ExtractionFindings& f) : f_(f) {}

  Json Object(const Json& schema) const {
    Json out = Json::object();
    const Json& props = Properties(schema);
    std::set<std::string> required;
    for (const Json& r : Member(schema, "required", Json::value_t::array)) {
      if (r.is_string()) required.insert(r.get<std::string>());
    }
    for (const auto& [name, sub] : props.items()) {
      Json value = Field(name, sub);
      if (value.is_discarded() || (value.is_null() && !Types(sub).contains("null"))) {
        if (!required.contains(name)) continue;
        if (Types(sub).contains("null")) value = nullptr;
        else if (Types(sub).contains("string") && Enum(sub).empty()) value = kNotDocumented;
        else continue;  // missing: the validator names it
      }
      out[name] = std::move(value);
    }
    return out;
  }

 private:
  // Json::value_t::discarded marks "nothing to say".
  static Json Nothing() { return Json(Json::value_t::discarded); }

  Json Field(const std::string& name, const Json& schema) const {
    const std::set<std::string> types = Types(schema);
    const std::string n = FieldText(name);
    const std::string d = DescriptionText(schema);
    if (types.contains("object") && !Properties(schema).empty()) return Object(schema);
    if (types.contains("array")) return Array(n + d, Member(schema, "items", Json::value_t::object));
    if (types.contains("boolean")) {
      if (Has(n + d, {"malnutrition", "malnourish", "diagnos", "present", "meets", "undernutrition"})) {
        if (f_.malnutrition && f_.assessable) return *f_.malnutrition;
        return types.contains("null") ? Json(nullptr) : Nothing();  // no classification: see the header
      }
      if (Has(n + d, {"implausible", "flag", "warning", "data quality"})) return !f_.flags.empty();
      return Nothing();
    }
    if (types.contains("number") || types.contains("integer")) return Number(name, n, d, schema, types);
    if (types.contains("string")) return Text(n, d, schema);
    return Nothing();
  }

  // The z-finding for a field naming `wanted`: computed from the measurements
  // before stated in the note.
  const ZFinding* ZFor(const std::string& wanted) const {
    const ZFinding* stated = nullptr;
    for (const ZFinding& z : f_.zscores) {
      if (!IndicatorFills(wanted, z.indicator)) continue;
      if (z.computed) return &z;
      if (!stated) stated = &z;
    }
    return stated;
  }

  Json Number(const std::string& name, const std::string& n, const std::string& d, const Json& schema,
              const std::set<std::string>& types) const {
    auto out = [&](std::optional<double> v, int digits) -> Json {
      if (!v) return types.contains("null") ? Json(nullptr) : Nothing();
      return types.contains("number") ? Json(Round(*v, digits)) : Json(static_cast<int64_t>(std::lround(*v)));
    };
    if (NamesZ(n) || NamesPercentile(n)) {
      const std::string wanted = FieldIndicator(name, schema);
      const ZFinding* z = wanted.empty() ? nullptr : ZFor(wanted);
      if (NamesPercentile(n)) return out(z ? z->percentile : std::nullopt, 1);
      return out(z ? std::optional<double>(z->z) : std::nullopt, 2);
    }
    if (Has(n, {"weight loss", "loss"})) return out(f_.weight_loss_percent, 1);
    if (Has(n, {" bmi ", "body mass"})) return out(f_.bmi, 1);
    if (Has(n, {" age "})) {
      if (!f_.age_months) return out(std::nullopt, 1);
      if (Has(n + d, {"month"})) return out(*f_.age_months, 1);
      return out(*f_.age_months / 12.0, 1);
    }
    return Nothing();
  }

  // The enum option (or text) saying no classification could be made.
  Json Undetermined(const Json& schema) const {
    if (!Enum(schema).empty()) {
      for (const Json& option : Enum(schema)) {
        if (!option.is_string()) continue;
        const std::string o = AsciiLower(option.get<std::string>());
        for (const char* word : {"indeterminate", "undetermined", "unknown", "not assessed", "not assessable",
                                 "cannot be determined", "insufficient", "unable"}) {
          if (o.find(word) != std::string::npos) return option;
        }
      }
      return Types(schema).contains("null") ? Json(nullptr) : Nothing();
    }
    return std::string("indeterminate");
  }

  std::string FlagsText() const {
    std::string joined;
    for (const std::string& flag : f_.flags) joined += (joined.empty() ? "" : "; ") + flag;
    return joined;
  }

  Json Text(const std::string& n, const std::string& d, const Json& schema) const {
    if (Has(n, {"severity", "grade", "stage", "degree"})) {
      return f_.assessable && f_.severity != "indeterminate" ? StringOrEnum(schema, f_.severity) : Undetermined(schema);
    }
    if (Has(n, {" sex ", "gender"})) return f_.sex.empty() ? Nothing() : StringOrEnum(schema, f_.sex);
    if (Has(n, {"population", "age group"})) return StringOrEnum(schema, f_.population);
    if (Has(n, {"implausible", "flag", "warning", "data quality"})) {
      return f_.flags.empty() ? Nothing() : Json(FlagsText());
    }
    if (Has(n, {"diagnos", "malnutrition", "status", "classification"})) {
      if (!f_.assessable) return Undetermined(schema);
      if (f_.severity == "indeterminate" && !Enum(schema).empty()) {
        Json v = PickEnum(Enum(schema), "malnutrition");
        return v.is_null() ? Undetermined(schema) : v;
      }
      const bool present = f_.malnutrition.value_or(false);
      if (!Enum(schema).empty()) {
        Json v = PickEnum(Enum(schema), present ? f_.severity : "none");
        if (!v.is_null()) return v;
        return PickEnum(Enum(schema), present ? "malnutrition" : "none");
      }
      if (present && f_.severity == "indeterminate") return std::string("malnutrition, severity not determined");
      return present ? f_.severity + " malnutrition" : std::string("no malnutrition");
    }
    if (Has(n + d, {"rationale", "summary", "explanation", "reasoning", "justification", "assessment", "evidence",
                    "comment", "note"})) {
      return f_.summary;
    }
    if (Has(n, {"source", "citation", "reference", "guideline"})) {
      std::string joined;
      for (const std::string& s : f_.sources) joined += (joined.empty() ? "" : "; ") + s;
      return joined.empty() ? Nothing() : Json(joined);
    }
    return Nothing();
  }

  Json Array(const std::string& text, const Json& items) const {
    const std::set<std::string> item_types = Types(items);
    if (item_types.contains("object")) {
      if (!Has(text, {"z", "indicator", "measurement", "anthropometr", "score"})) return Nothing();
      Json out = Json::array();
      for (const ZFinding& z : f_.zscores) out.push_back(ItemObject(items, z));
      return out;
    }
    const std::vector<std::string>* list = nullptr;
    if (Has(text, {"implausible", "flag", "warning", "data quality"})) list = &f_.flags;
    else if (Has(text, {"phenotyp"})) list = &f_.phenotypic;
    else if (Has(text, {"etiolog", "aetiolog"})) list = &f_.etiologic;
    else if (Has(text, {"source", "citation", "reference", "guideline"})) list = &f_.sources;
    else if (Has(text, {"indicator", "criteri", "evidence", "finding"})) list = &f_.indicators;
    if (!list) return Nothing();
    Json out = Json::array();
    for (const std::string& s : *list) out.push_back(s);
    return out;
  }

  // One z-finding as an object of the item schema.
  Json ItemObject(const Json& schema, const ZFinding& z) const {
    Json out = Json::object();
    const Json& props = Properties(schema);
    for (const auto& [name, sub] : props.items()) {
      const std::string n = FieldText(name);
      const std::set<std::string> types = Types(sub);
      Json value = Nothing();
      if (Has(n, {"indicator", "measure", "type"}) && types.contains("string")) {
        value = StringOrEnum(sub, z.indicator);
      } else if (Has(n, {" z ", "zscore", "z score", "value"}) && (types.contains("number") || types.contains("integer"))) {
        value = Round(z.z, 2);
      } else if (Has(n, {"percentile", "centile"}) && types.contains("number")) {
        value = z.percentile ? Json(Round(*z.percentile, 1)) : Json(nullptr);
      } else if (Has(n, {"interpret", "band", "severity", "classification"}) && types.contains("string")) {
        value = z.band.empty() ? std::string("not interpreted") : z.band + (z.band_system.empty() ? "" : " (" + z.band_system + ")");
      } else if (Has(n, {"origin", "source", "method", "how"}) && types.contains("string")) {
        value = z.origin;
      }
      if (value.is_discarded() || (value.is_null() && !types.contains("null"))) continue;
      out[name] = std::move(value);
    }
    return out;
  }

  const ExtractionFindings& f_;
};

}  // namespace

Json FillSchema(const Json& schema, const ExtractionFindings& findings) {
  return Filler(findings).Object(schema);
}

std::string FieldIndicator(const std::string& name, const Json& field_schema) {
  const std::string annotated = StringOr(field_schema, "x-medreact-indicator");
  if (KnownIndicators().contains(annotated)) return annotated;
  if (std::string named = IndicatorInWords(FieldText(name)); !named.empty()) return named;
  return IndicatorInWords(DescriptionText(field_schema));
}

bool IndicatorFills(const std::string& wanted, const std::string& indicator) {
  if (wanted.empty() || indicator.empty()) return false;
  if (wanted == indicator) return true;
  if (wanted == "weight_for_length_or_height") return indicator == "weight_for_length" || indicator == "weight_for_height";
  if (wanted == "length_or_height_for_age") return indicator == "length_for_age" || indicator == "height_for_age";
  return false;
}

namespace {

void CollectRequested(const Json& schema, std::set<std::string>& out, int depth) {
  if (depth > 16) return;  // the schema was compiled and depth-checked; this only bounds the walk
  for (const auto& [name, sub] : Properties(schema).items()) {
    const std::set<std::string> types = Types(sub);
    if (types.contains("object")) CollectRequested(sub, out, depth + 1);
    const std::string n = FieldText(name);
    if ((types.contains("number") || types.contains("integer")) && (NamesZ(n) || NamesPercentile(n))) {
      if (std::string indicator = FieldIndicator(name, sub); !indicator.empty()) out.insert(indicator);
    }
  }
}

}  // namespace

std::set<std::string> RequestedIndicators(const Json& schema) {
  std::set<std::string> out;
  CollectRequested(schema, out, 0);
  return out;
}

}  // namespace medreact
