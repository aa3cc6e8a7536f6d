#include "apps/extract/schema_fill.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace medreact {
namespace {

constexpr const char* kNotDocumented = "not documented in the note";

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The words of a field: its name split on '_', '-', ' ' and camelCase, plus its description's words.
std::string FieldText(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (i > 0 && std::isupper(static_cast<unsigned char>(c)) && std::islower(static_cast<unsigned char>(name[i - 1]))) {
      out += ' ';
    }
    out += (c == '_' || c == '-') ? ' ' : c;
  }
  out = " " + Lower(out) + " ";
  return out;
}

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

std::string DescriptionText(const Json& schema) {
  return " " + Lower(StringOr(schema, "description")) + " ";
}

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
    const std::string o = Lower(option.get<std::string>());
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
    const std::string o = Lower(option.get<std::string>());
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

// The z-finding a numeric field names by indicator words, else the worst one.
const ZFinding* ZFor(const std::string& text, const ExtractionFindings& f) {
  const ZFinding* worst = nullptr;
  for (const ZFinding& z : f.zscores) {
    std::string words = " " + z.indicator + " ";
    std::replace(words.begin(), words.end(), '_', ' ');
    if (text.find(words.substr(0, words.find(" for ") + 1)) != std::string::npos &&
        words.find(" for ") != std::string::npos) {
      return &z;
    }
    if (!worst || z.z < worst->z) worst = &z;
  }
  return worst;
}

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
      if (Has(n + d, {"malnutrition", "malnourish", "diagnos", "present", "meets", "undernutrition"})) return f_.malnutrition;
      return Nothing();
    }
    if (types.contains("number") || types.contains("integer")) return Number(n, d, types);
    if (types.contains("string")) return Text(n, d, schema);
    return Nothing();
  }

  Json Number(const std::string& n, const std::string& d, const std::set<std::string>& types) const {
    auto out = [&](std::optional<double> v, int digits) -> Json {
      if (!v) return Nothing();
      return types.contains("number") ? Json(Round(*v, digits)) : Json(static_cast<int64_t>(std::lround(*v)));
    };
    if (Has(n, {" z ", "zscore", "z score"})) {
      const ZFinding* z = ZFor(n + d, f_);
      return z ? out(z->z, 2) : Nothing();
    }
    if (Has(n, {"percentile", "centile"})) {
      const ZFinding* z = ZFor(n + d, f_);
      return z && z->percentile ? out(*z->percentile, 1) : Nothing();
    }
    if (Has(n, {"weight loss", "loss"})) return out(f_.weight_loss_percent, 1);
    if (Has(n, {"bmi", "body mass"})) return out(f_.bmi, 1);
    if (Has(n, {"age"})) {
      if (!f_.age_months) return Nothing();
      if (Has(n + d, {"month"})) return out(*f_.age_months, 1);
      return out(*f_.age_months / 12.0, 1);
    }
    return Nothing();
  }

  Json Text(const std::string& n, const std::string& d, const Json& schema) const {
    if (Has(n, {"severity", "grade", "stage", "degree"})) return StringOrEnum(schema, f_.severity);
    if (Has(n, {" sex ", "gender"})) return f_.sex.empty() ? Nothing() : StringOrEnum(schema, f_.sex);
    if (Has(n, {"population", "age group"})) return StringOrEnum(schema, f_.population);
    if (Has(n, {"diagnos", "malnutrition", "status", "classification"})) {
      if (!Enum(schema).empty()) {
        Json v = PickEnum(Enum(schema), f_.malnutrition ? f_.severity : "none");
        if (!v.is_null()) return v;
        return PickEnum(Enum(schema), f_.malnutrition ? "malnutrition" : "none");
      }
      return f_.malnutrition ? f_.severity + " malnutrition" : std::string("no malnutrition");
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
    if (Has(text, {"phenotyp"})) list = &f_.phenotypic;
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

}  // namespace medreact
