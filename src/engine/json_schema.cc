// JsonSchema (json_schema.h): valijson behind a small interface, behind the
// guards of json_schema_guard.h (which keep hostile schemas and values from
// hanging or crashing it), and the rewriting of valijson's messages into
// "<pointer>: <problem>" items.
#include "medreact/json_schema.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <regex>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

#ifndef VALIJSON_USE_EXCEPTIONS
#define VALIJSON_USE_EXCEPTIONS 1  // without it valijson aborts on bad schemas
#endif
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "core/text_util.h"
#include "engine/json_schema_guard.h"

namespace medreact {

namespace {

constexpr size_t kMaxValuePreview = 40;

// ---- Registration checks ---------------------------------------------------

// valijson compiles "pattern" regexes lazily, during validation; compile them
// now so a bad pattern fails Register() instead of every later call.
Status CheckRegexes(const Json& node) {
  if (node.is_array()) {
    for (const Json& item : node) {
      if (Status s = CheckRegexes(item); !s.ok()) return s;
    }
    return Status::OK();
  }
  if (!node.is_object()) return Status::OK();
  std::vector<std::string> patterns;
  if (auto it = node.find("pattern"); it != node.end() && it->is_string()) {
    patterns.push_back(it->get<std::string>());
  }
  if (auto it = node.find("patternProperties"); it != node.end() && it->is_object()) {
    for (const auto& [key, unused] : it->items()) patterns.push_back(key);
  }
  for (const std::string& pattern : patterns) {
    try {
      std::regex compiled(pattern);
    } catch (const std::exception& e) {
      return Status::InvalidArgument("invalid regex '" + Preview(pattern, 60) + "': " + e.what());
    }
  }
  for (const auto& [key, child] : node.items()) {
    if (key == "enum" || key == "const" || key == "default" || key == "examples") continue;
    if (Status s = CheckRegexes(child); !s.ok()) return s;
  }
  return Status::OK();
}

Status CompileSchema(const Json& parameters, valijson::Schema& schema) {
  try {
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter adapter(parameters);
    parser.populateSchema(adapter, schema);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(e.what());
  } catch (...) {
    return Status::InvalidArgument("unknown error while parsing the schema");
  }
  return CheckRegexes(parameters);
}

std::string TypeName(const Json& value) {
  if (value.is_number_integer()) return "integer";
  if (value.is_number()) return "number";
  return value.type_name();
}

std::string ValuePreviewImpl(const Json& value) {
  if (value.is_object()) return "object";
  if (value.is_array()) return "array";
  return TypeName(value) + " " + Preview(DumpJson(value), kMaxValuePreview);
}

// ---- Validation errors -----------------------------------------------------

// valijson's context is {"<root>", "[name]", "[0]", ...}; these are the
// unwrapped property names and array indices.
std::vector<std::string> Segments(const std::vector<std::string>& context) {
  std::vector<std::string> out;
  for (size_t i = 1; i < context.size(); ++i) {
    const std::string& part = context[i];
    bool bracketed = part.size() >= 2 && part.front() == '[' && part.back() == ']';
    out.push_back(bracketed ? part.substr(1, part.size() - 2) : part);
  }
  return out;
}

std::string Pointer(const std::vector<std::string>& segments) {
  if (segments.empty()) return "(root)";
  std::string out;
  for (const std::string& segment : segments) {
    out += '/';
    for (char c : segment) {
      if (c == '~') out += "~0";
      else if (c == '/') out += "~1";
      else out += c;
    }
  }
  return out;
}

bool IsIndex(const std::string& s) {
  auto digit = [](unsigned char c) { return std::isdigit(c) != 0; };
  return !s.empty() && s.size() < 10 && std::all_of(s.begin(), s.end(), digit);
}

// The instance value at `segments`, or nullptr.
const Json* ValueAt(const Json& root, const std::vector<std::string>& segments) {
  const Json* node = &root;
  for (const std::string& segment : segments) {
    if (node->is_object()) {
      auto it = node->find(segment);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array() && IsIndex(segment) && std::stoul(segment) < node->size()) {
      node = &(*node)[std::stoul(segment)];
    } else {
      return nullptr;
    }
  }
  return node;
}

// `node` with its "$ref"s followed (Compile() checked they resolve); nullptr
// when the result is not a schema object.
const Json* FollowRefs(const Json& root, const Json* node) {
  for (int hops = 0; hops <= kMaxSchemaDepth && node && node->is_object(); ++hops) {
    auto ref = node->find("$ref");
    if (ref == node->end()) return node;
    if (!ref->is_string()) return nullptr;
    Result<std::pair<const Json*, std::string>> target = ResolveLocalRef(root, ref->get<std::string>(), "");
    node = target.ok() ? target->first : nullptr;
  }
  return nullptr;
}

// The subschema that governs `segments`, following "$ref", "properties",
// "items" and "additionalProperties"; nullptr when it cannot be told simply
// (combinators), in which case messages stay generic.
const Json* SchemaAt(const Json& root, const std::vector<std::string>& segments) {
  const Json* node = FollowRefs(root, &root);
  for (const std::string& segment : segments) {
    if (!node) return nullptr;
    auto props = node->find("properties");
    auto items = node->find("items");
    auto extra = node->find("additionalProperties");
    if (props != node->end() && props->is_object() && props->contains(segment)) {
      node = &(*props)[segment];
    } else if (items != node->end() && items->is_object() && IsIndex(segment)) {
      node = &*items;
    } else if (items != node->end() && items->is_array() && IsIndex(segment) &&
               std::stoul(segment) < items->size()) {
      node = &(*items)[std::stoul(segment)];
    } else if (extra != node->end() && extra->is_object()) {
      node = &*extra;
    } else {
      return nullptr;
    }
    node = FollowRefs(root, node);
  }
  return node;
}

std::string QuotedBetween(const std::string& text, size_t from) {
  size_t open = text.find('\'', from);
  size_t close = text.rfind('\'');
  if (open == std::string::npos || close <= open) return {};
  return text.substr(open + 1, close - open - 1);
}

struct Problem {
  std::string pointer;
  std::string text;
  bool operator<(const Problem& o) const { return std::tie(pointer, text) < std::tie(o.pointer, o.text); }
};

class ProblemWriter {
 public:
  ProblemWriter(const Json& schema, const Json& args) : schema_(schema), args_(args) {}

  void Add(const std::vector<std::string>& segments, const std::string& description) {
    const Json* sub = SchemaAt(schema_, segments);
    const Json* value = ValueAt(args_, segments);
    if (StartsWith(description, "Missing required property")) {
      std::vector<std::string> child = segments;
      child.push_back(QuotedBetween(description, 0));
      Push(child, "missing required property");
    } else if (StartsWith(description, "Object contains a property that could not be validated")) {
      AddUnexpected(segments, QuotedBetween(description, description.find(": '")), sub, value);
    } else if (StartsWith(description, "Value type not permitted")) {
      std::string text = "wrong type";
      if (sub && sub->contains("type")) text = "expected " + TypeList((*sub)["type"]);
      if (value) text += ", got " + ValuePreviewImpl(*value);
      Push(segments, text);
    } else if (StartsWith(description, "Failed to match against any enum values")) {
      std::string text = "value not allowed";
      if (sub && sub->contains("enum") && (*sub)["enum"].is_array()) {
        std::vector<std::string> allowed;
        for (const Json& option : (*sub)["enum"]) allowed.push_back(DumpJson(option));
        text = "must be one of " + Preview(Join(allowed, ", "), 200);
      }
      if (value) text += "; got " + Preview(DumpJson(*value), kMaxValuePreview);
      Push(segments, text);
    } else if (StartsWith(description, "Expected number ")) {
      Push(segments, Bound(description) + (value ? ", got " + Preview(DumpJson(*value), 30) : ""));
    } else {
      std::string text = description;
      if (!text.empty() && text.back() == '.') text.pop_back();
      if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
      Push(segments, text);
    }
  }

  const std::vector<Problem>& problems() const { return problems_; }

 private:
  void Push(const std::vector<std::string>& segments, std::string text) {
    Problem problem{Pointer(segments), std::move(text)};
    if (seen_.insert(problem).second) problems_.push_back(std::move(problem));
  }

  // valijson names only the first unexpected property; list all of them
  // when the schema is simple enough to tell.
  void AddUnexpected(const std::vector<std::string>& segments, const std::string& reported,
                     const Json* sub, const Json* value) {
    static const Json kNoProperties = Json::object();
    const Json* props = &kNoProperties;
    if (sub && sub->contains("properties") && (*sub)["properties"].is_object()) props = &(*sub)["properties"];
    std::vector<std::string> allowed;
    for (const auto& [key, unused] : props->items()) allowed.push_back(key);
    std::vector<std::string> extras;
    if (sub && value && value->is_object() && !sub->contains("patternProperties")) {
      for (const auto& [key, unused] : value->items()) {
        if (!props->contains(key)) extras.push_back(key);
      }
    }
    if (extras.empty()) extras.push_back(reported);
    std::string text = "unexpected property";
    if (sub) text += allowed.empty() ? " (this object takes no properties)"
                                     : " (allowed: " + Preview(Join(allowed, ", "), 200) + ")";
    for (const std::string& extra : extras) {
      std::vector<std::string> child = segments;
      child.push_back(extra);
      Push(child, text);
    }
  }

  static std::string TypeList(const Json& type) {
    if (type.is_string()) return type.get<std::string>();
    std::vector<std::string> names;
    for (const Json& t : type.is_array() ? type : Json::array()) {
      if (t.is_string()) names.push_back(t.get<std::string>());
    }
    return names.empty() ? "another type" : Join(names, " or ");
  }

  // "Expected number less than or equal to 840.000000" -> "must be <= 840".
  static std::string Bound(const std::string& description) {
    static const std::pair<const char*, const char*> kForms[] = {
        {"Expected number less than or equal to ", "<="},
        {"Expected number less than ", "<"},
        {"Expected number greater than or equal to ", ">="},
        {"Expected number greater than ", ">"},
    };
    for (const auto& [prefix, op] : kForms) {
      if (!StartsWith(description, prefix)) continue;
      double bound = std::strtod(description.c_str() + std::string_view(prefix).size(), nullptr);
      char buffer[64];
      std::snprintf(buffer, sizeof(buffer), "%.15g", bound);
      return std::string("must be ") + op + " " + buffer;
    }
    return description;
  }

  const Json& schema_;
  const Json& args_;
  std::vector<Problem> problems_;
  std::set<Problem> seen_;
};

// A summary error ("Failed to validate item #2 in array.") that merely
// repeats a more specific error below it.
bool IsSummaryOfDeeperError(const valijson::ValidationResults::Error& error,
                            const valijson::ValidationResults& all) {
  if (!StartsWith(error.description, "Failed to validate")) return false;
  for (const auto& other : all) {
    if (other.context.size() > error.context.size() &&
        std::equal(error.context.begin(), error.context.end(), other.context.begin())) {
      return true;
    }
  }
  return false;
}

}  // namespace

struct JsonSchema::Impl {
  Json document;      // as given
  Json parsed;        // what valijson parsed (GuardSchema)
  SchemaGraph graph;  // nodes point into `document`
  valijson::Schema schema;
};

std::string DescribeJsonValue(const Json& value) { return ValuePreviewImpl(value); }

Result<JsonSchema> JsonSchema::Compile(const Json& schema) {
  // Shape first: copying a document nested without bound would itself recurse without bound.
  if (Status s = CheckSchemaShape(schema); !s.ok()) return s;
  auto impl = std::make_shared<Impl>();
  impl->document = schema;
  Result<GuardedSchema> guarded = GuardSchema(impl->document);
  if (!guarded.ok()) return guarded.status();
  impl->graph = std::move(guarded->graph);
  impl->parsed = std::move(guarded->parsed);
  if (Status s = CompileSchema(impl->parsed, impl->schema); !s.ok()) return s;
  return JsonSchema(std::move(impl));
}

const Json& JsonSchema::document() const { return impl_->document; }

std::vector<SchemaProblem> JsonSchema::Validate(const Json& value) const {
  if (std::vector<SchemaProblem> refused = GuardValue(impl_->graph, value); !refused.empty()) return refused;
  valijson::ValidationResults results;
  try {
    valijson::Validator validator(valijson::Validator::kStrongTypes);
    valijson::adapters::NlohmannJsonAdapter target(value);
    if (validator.validate(impl_->schema, target, &results)) return {};
  } catch (const std::exception& e) {
    return {{"(root)", std::string("could not be validated: ") + e.what()}};
  }
  ProblemWriter writer(impl_->document, value);
  for (const auto& error : results) {
    if (!IsSummaryOfDeeperError(error, results)) writer.Add(Segments(error.context), error.description);
  }
  std::vector<SchemaProblem> out;
  for (const Problem& p : writer.problems()) out.push_back({p.pointer, p.text});
  if (out.empty()) out.push_back({"(root)", "does not match the schema"});
  return out;
}

std::string JoinSchemaProblems(const std::vector<SchemaProblem>& problems, size_t max_listed, size_t max_chars) {
  std::string list;
  size_t listed = 0;
  for (const SchemaProblem& problem : problems) {
    if (listed == max_listed || list.size() > max_chars) break;
    if (listed > 0) list += "; ";
    list += problem.pointer + ": " + problem.text;
    ++listed;
  }
  if (listed < problems.size()) list += "; ... and " + std::to_string(problems.size() - listed) + " more";
  return list;
}

}  // namespace medreact
