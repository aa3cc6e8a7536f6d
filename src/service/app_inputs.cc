// Reading an app's JSON inputs. See app_inputs.h.
#include "service/app_inputs.h"

#include <limits.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>

#include "core/printable.h"
#include "core/text_util.h"

namespace medreact::service {
namespace {

std::string KindOf(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

std::string Quoted(const std::string& text) { return "'" + PrintableLine(Preview(text, 80)) + "'"; }

std::string Names(const Json& keys) {
  std::string out;
  for (const Json& k : keys) out += (out.empty() ? "" : ", ") + (k.is_string() ? k.get<std::string>() : DumpJson(k));
  return out;
}

bool IsPathSchema(const Json& schema) { return StringOr(schema, "format") == "path"; }

// The real path of `value` inside one of `roots`.
Result<std::string> InsideRoots(const std::string& value, const std::vector<std::string>& roots,
                                const std::string& path, std::string* field) {
  if (roots.empty()) {
    return InputError(field, path, "paths are not accepted here (no input roots are set: input_roots)");
  }
  if (value.empty() || value[0] != '/') return InputError(field, path, "must be an absolute path");
  char resolved[PATH_MAX];
  if (::realpath(value.c_str(), resolved) == nullptr) {
    return InputError(field, path, Quoted(value) + " cannot be resolved: " + std::strerror(errno));
  }
  const std::string real = resolved;
  for (const std::string& root : roots) {
    char root_real[PATH_MAX];
    if (root.empty() || ::realpath(root.c_str(), root_real) == nullptr) continue;
    const std::string r = root_real;
    if (real == r || (r == "/" ? true : real.compare(0, r.size() + 1, r + "/") == 0)) return real;
  }
  return InputError(field, path, "outside the input roots");
}

}  // namespace

Status InputError(std::string* field, const std::string& path, const std::string& what) {
  if (field) *field = path;
  return Status::InvalidArgument(path + ": " + what);
}

Status CheckAgainstSchema(const Json& schema, const Json& v, const std::string& path, std::string* field) {
  const std::string type = StringOr(schema, "type");
  if (type == "string") {
    if (!v.is_string()) return InputError(field, path, "must be a string, got " + KindOf(v));
    const std::string& s = v.get_ref<const std::string&>();
    if (IntegerOr(schema, "minLength", 0) > 0 && IsBlank(s)) return InputError(field, path, "must not be empty");
    if (const Json* e = schema.contains("enum") ? &schema["enum"] : nullptr; e && e->is_array()) {
      bool known = false;
      for (const Json& x : *e) known = known || (x.is_string() && x.get_ref<const std::string&>() == s);
      if (!known) return InputError(field, path, "must be one of " + Names(*e) + ", got " + Quoted(s));
    }
  } else if (type == "integer") {
    const std::optional<int64_t> n = ExactInteger(v);
    if (!n || !(v.is_number_integer() || v.is_number_unsigned())) {
      return InputError(field, path, "must be an integer, got " + KindOf(v));
    }
    const int64_t low = IntegerOr(schema, "minimum", INT64_MIN), high = IntegerOr(schema, "maximum", INT64_MAX);
    if (*n < low || *n > high) {
      return InputError(field, path,
                        "must be " + std::to_string(low) + ".." + std::to_string(high) + ", got " + std::to_string(*n));
    }
  } else if (type == "boolean") {
    if (!v.is_boolean()) return InputError(field, path, "must be true or false, got " + KindOf(v));
  } else if (type == "array") {
    if (!v.is_array()) return InputError(field, path, "must be an array, got " + KindOf(v));
    if (static_cast<int64_t>(v.size()) < IntegerOr(schema, "minItems", 0)) {
      return InputError(field, path, "must hold at least " + std::to_string(IntegerOr(schema, "minItems", 0)) +
                                         " item(s)");
    }
    const Json items = schema.value("items", Json::object());
    for (size_t i = 0; i < v.size(); ++i) {
      if (Status s = CheckAgainstSchema(items, v[i], path + "[" + std::to_string(i) + "]", field); !s.ok()) return s;
    }
  } else if (type == "object") {
    if (!v.is_object()) return InputError(field, path, "must be a JSON object, got " + KindOf(v));
    const Json* properties = schema.contains("properties") ? &schema["properties"] : nullptr;
    if (!properties || !properties->is_object()) return Status::OK();  // any object
    if (!BoolOr(schema, "additionalProperties", true)) {
      for (const auto& [key, value] : v.items()) {
        if (properties->contains(key)) continue;
        std::string known;
        for (const auto& [k, p] : properties->items()) known += (known.empty() ? "" : ", ") + k;
        return InputError(field, path + "." + PrintableLine(Preview(key, 60)), "unknown input (known: " + known + ")");
      }
    }
    for (const Json& key : schema.value("required", Json::array())) {
      if (key.is_string() && !v.contains(key.get<std::string>())) {
        return InputError(field, path + "." + key.get<std::string>(), "missing (required)");
      }
    }
    for (const auto& [key, value] : v.items()) {
      const Json property = properties->contains(key) ? (*properties)[key] : Json::object();
      if (Status s = CheckAgainstSchema(property, value, path + "." + key, field); !s.ok()) return s;
    }
  }
  return Status::OK();
}

Result<Json> ResolveInputPaths(const Json& schema, const Json& inputs, const std::vector<std::string>& roots,
                               std::string* field) {
  Json out = inputs;
  const Json properties = schema.value("properties", Json::object());
  for (const auto& [key, property] : properties.items()) {
    if (!out.contains(key)) continue;
    Json& value = out[key];
    if (IsPathSchema(property) && value.is_string()) {
      Result<std::string> real = InsideRoots(value.get<std::string>(), roots, "inputs." + key, field);
      if (!real.ok()) return real.status();
      value = *real;
    } else if (value.is_array() && IsPathSchema(property.value("items", Json::object()))) {
      for (size_t i = 0; i < value.size(); ++i) {
        if (!value[i].is_string()) continue;
        Result<std::string> real =
            InsideRoots(value[i].get<std::string>(), roots, "inputs." + key + "[" + std::to_string(i) + "]", field);
        if (!real.ok()) return real.status();
        value[i] = *real;
      }
    }
  }
  return out;
}

std::string InputText(const Json& inputs, const char* key, const std::string& fallback) {
  return StringOr(inputs, key, fallback);
}

std::optional<int64_t> InputInteger(const Json& inputs, const char* key) {
  if (!inputs.is_object() || !inputs.contains(key)) return std::nullopt;
  return ExactInteger(inputs[key]);
}

std::vector<std::string> InputTexts(const Json& inputs, const char* key) {
  std::vector<std::string> out;
  if (!inputs.is_object() || !inputs.contains(key) || !inputs[key].is_array()) return out;
  for (const Json& v : inputs[key]) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::string FieldNamed(const std::string& message, const std::vector<std::string>& keys,
                       const std::vector<std::pair<std::string, std::string>>& aliases) {
  for (const auto& [alias, key] : aliases) {
    if (message.find(alias) != std::string::npos) return "inputs." + key;
  }
  for (const std::string& key : keys) {
    if (message.find("(" + key + ")") != std::string::npos) return "inputs." + key;
  }
  return "";
}

}  // namespace medreact::service
