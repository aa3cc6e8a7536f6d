// Guards for JsonSchema (json_schema_guard.h): the checks that keep hostile
// schemas and values from sending valijson into unbounded recursion.
#include "engine/json_schema_guard.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/text_util.h"
#include "engine/regex_cost.h"

namespace medreact {
namespace {

// "an object", "a string", ...: what a JSON value is, for messages.
std::string KindOf(const Json& value) {
  switch (value.type()) {
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::null: return "null";
    default: return "a number";
  }
}

Status SchemaError(std::string message) { return Status::InvalidArgument(std::move(message)); }

std::string Where(const std::string& pointer) { return pointer.empty() ? "(root)" : Preview(pointer, 120); }

// RFC 6901 escaping of one reference token.
std::string EscapeToken(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

// The pointer as valijson reads it: it also %-decodes each token, so '%' must be written %25.
std::string ValijsonPointer(const std::string& pointer) {
  std::string out;
  for (char c : pointer) {
    if (c == '%') out += "%25";
    else out += c;
  }
  return out;
}

// The schema document's size and depth, without recursion.
Status CheckPatternCost(const std::string& pattern, const std::string& where) {
  const std::string problem = RegexCostProblem(pattern);
  if (problem.empty()) return Status::OK();
  if (problem.find("repetition count") == 0 || problem.find("back-reference") != std::string::npos) {
    return SchemaError(where + " has " + problem + "; use a number of at most " + std::to_string(kMaxRegexCount));
  }
  return SchemaError(where + " has " + problem + ", which can take exponential time to match; write each repeated "
                     "part so it can match only one way (e.g. \"(a|b)*\" with alternatives that begin with different "
                     "characters, \"[a-z0-9]*\" instead of \"([a-z]|[0-9])*\", \"a+\" instead of \"(a+)+\")");
}

Status CheckDocumentShapeImpl(const Json& root) {
  struct Item {
    const Json* node;
    int depth;
    int parent;       // index into `items`, -1 for the root
    std::string key;  // escaped token under the parent
  };
  std::vector<Item> items;
  std::vector<int> stack;
  items.push_back({&root, 1, -1, ""});
  stack.push_back(0);
  auto pointer_of = [&items](int i) {
    std::vector<const std::string*> keys;
    for (; items[i].parent >= 0; i = items[i].parent) keys.push_back(&items[i].key);
    std::string out;
    for (auto it = keys.rbegin(); it != keys.rend(); ++it) out += "/" + **it;
    return out;
  };
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    if (items.size() > kMaxDocumentValues) {
      return SchemaError("the schema is too large: more than " + std::to_string(kMaxDocumentValues) +
                         " JSON values; split it or remove what the validation does not need");
    }
    if (items[i].depth > kMaxDocumentDepth) {
      return SchemaError("the schema is nested deeper than " + std::to_string(kMaxDocumentDepth) +
                         " JSON levels (at " + Where(pointer_of(i)) + "); flatten it");
    }
    const Json& node = *items[i].node;
    const int depth = items[i].depth;
    if (node.is_structured() && items.size() + node.size() > kMaxDocumentValues) {
      return SchemaError("the schema is too large: more than " + std::to_string(kMaxDocumentValues) +
                         " JSON values; split it or remove what the validation does not need");
    }
    if (node.is_object()) {
      for (auto it = node.begin(); it != node.end(); ++it) {
        items.push_back({&it.value(), depth + 1, i, EscapeToken(it.key())});
        stack.push_back(static_cast<int>(items.size() - 1));
      }
    } else if (node.is_array()) {
      for (size_t k = 0; k < node.size(); ++k) {
        items.push_back({&node[k], depth + 1, i, std::to_string(k)});
        stack.push_back(static_cast<int>(items.size() - 1));
      }
    }
  }
  return Status::OK();
}

// Every edge out of a node: (target, steps into the value).
std::vector<std::pair<int, bool>> Edges(const SchemaNode& n) {
  std::vector<std::pair<int, bool>> out;
  if (n.ref >= 0) {
    out.emplace_back(n.ref, false);
    return out;
  }
  for (int c : n.same) out.emplace_back(c, false);
  for (const auto& [name, c] : n.properties) out.emplace_back(c, true);
  for (int c : n.pattern_properties) out.emplace_back(c, true);
  for (int c : n.tuple) out.emplace_back(c, true);
  for (int c : {n.additional_properties, n.items, n.additional_items, n.contains, n.property_names}) {
    if (c >= 0) out.emplace_back(c, true);
  }
  return out;
}

}  // namespace

Result<std::pair<const Json*, std::string>> ResolveLocalRef(const Json& root, const std::string& ref,
                                                            const std::string& at) {
  const std::string quoted = "\"$ref\": \"" + Preview(ref, 80) + "\" at " + Where(at);
  if (ref.empty() || ref[0] != '#') {
    return SchemaError(quoted + " refers to another document; schemas are never fetched: copy the definition "
                       "under \"definitions\" and point to it as \"#/definitions/<name>\"");
  }
  const std::string fragment = ref.substr(1);
  if (fragment.empty()) return std::make_pair(&root, std::string());
  if (fragment[0] != '/') {
    return SchemaError(quoted + " is not a JSON pointer; write \"#\" for the whole schema or \"#/definitions/" +
                       Preview(fragment, 40) + "\" for a definition");
  }
  const Json* node = &root;
  std::string canonical;
  size_t start = 1;
  while (true) {
    const size_t slash = fragment.find('/', start);
    const std::string raw = fragment.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (raw.empty()) {
      return SchemaError(quoted + " has an empty segment (\"//\" or a trailing \"/\"); remove it");
    }
    // "~1" is '/', "~0" is '~' (RFC 6901), then %XX (a URI fragment), in valijson's order.
    std::string tilde;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '~') {
        tilde += raw[i];
      } else if (i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        tilde += raw[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        return SchemaError(quoted + " has \"~\" not followed by 0 or 1; write \"~0\" for '~' and \"~1\" for '/'");
      }
    }
    std::string token;
    for (size_t i = 0; i < tilde.size(); ++i) {
      if (tilde[i] != '%') {
        token += tilde[i];
        continue;
      }
      auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
      if (i + 2 >= tilde.size() || !hex(tilde[i + 1]) || !hex(tilde[i + 2])) {
        return SchemaError(quoted + " has a \"%\" not followed by two hex digits; write \"%25\" for '%'");
      }
      token += static_cast<char>(std::stoi(tilde.substr(i + 1, 2), nullptr, 16));
      i += 2;
    }
    const std::string here = Where(canonical);
    if (node->is_object()) {
      auto it = node->find(token);
      if (it == node->end()) {
        return SchemaError(quoted + " points nowhere: " + here + " has no member \"" + Preview(token, 60) +
                           "\"; fix the pointer or add the definition");
      }
      node = &*it;
    } else if (node->is_array()) {
      const bool digits = token.size() < 10 && std::all_of(token.begin(), token.end(), [](char c) {
                            return std::isdigit(static_cast<unsigned char>(c)) != 0;
                          });
      if (!digits || std::stoul(token) >= node->size()) {
        return SchemaError(quoted + " points nowhere: " + here + " is an array of " + std::to_string(node->size()) +
                           " items and \"" + Preview(token, 20) + "\" is not one of its indices");
      }
      node = &(*node)[std::stoul(token)];
    } else {
      return SchemaError(quoted + " points nowhere: " + here + " is " + KindOf(*node) +
                         ", which has no members");
    }
    canonical += "/" + EscapeToken(token);
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (!node->is_object() && !node->is_boolean()) {
    return SchemaError(quoted + " points to " + Where(canonical) + ", which is " + KindOf(*node) +
                       ", not a schema; point it at an object such as {\"type\": \"string\"}");
  }
  return std::make_pair(node, canonical);
}

namespace {

// Builds the graph of the subschemas reachable from the root, as valijson's
// parser (draft 7) walks them.
class SchemaGraphBuilder {
 public:
  explicit SchemaGraphBuilder(const Json& root) : root_(root) {}

  Result<SchemaGraph> Build() {
    Add(&root_, "");
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      if (Status s = Expand(i); !s.ok()) return s;
    }
    if (Status s = CheckRefsAvoidData(); !s.ok()) return s;
    for (const SchemaNode& n : graph_.nodes) graph_.regex = graph_.regex || n.matches_strings || n.matches_keys;
    return std::move(graph_);
  }

 private:
  int Add(const Json* json, std::string pointer) {
    auto [it, inserted] = index_.emplace(json, static_cast<int>(graph_.nodes.size()));
    if (inserted) {
      SchemaNode node;
      node.json = json;
      node.pointer = std::move(pointer);
      graph_.nodes.push_back(std::move(node));
    }
    return it->second;
  }

  // A child schema; -1 when it is not an object or a boolean (valijson says why).
  int Child(const Json& json, const std::string& pointer) {
    return json.is_object() || json.is_boolean() ? Add(&json, pointer) : -1;
  }

  // A "$ref" into "enum", "const", "default" or "examples" would make valijson
  // read data as a schema (and the copy it parses drops "id" from schemas).
  Status CheckRefsAvoidData() const {
    for (const SchemaNode& node : graph_.nodes) {
      if (node.ref < 0) continue;
      const SchemaNode& target = graph_.nodes[node.ref];
      const Json* at = &root_;
      std::string walked;
      size_t start = 1;
      while (start <= target.pointer.size()) {
        if (data_.count(at)) {
          return SchemaError("\"$ref\" at " + Where(node.pointer) + " points into data (" + Where(walked) +
                             " is an \"enum\", \"const\", \"default\" or \"examples\" value), not a schema; "
                             "move the schema under \"definitions\" and point there");
        }
        const size_t slash = std::min(target.pointer.find('/', start), target.pointer.size());
        std::string token = target.pointer.substr(start, slash - start);
        walked += "/" + token;
        std::string key;  // unescape ~1 and ~0 (the pointer is canonical)
        for (size_t k = 0; k < token.size(); ++k) {
          if (token[k] == '~' && k + 1 < token.size()) {
            key += token[k + 1] == '1' ? '/' : '~';
            ++k;
          } else {
            key += token[k];
          }
        }
        at = at->is_object() ? &(*at)[key] : &(*at)[std::stoul(key)];
        start = slash + 1;
      }
      if (data_.count(at)) {
        return SchemaError("\"$ref\" at " + Where(node.pointer) + " points to an \"enum\", \"const\", "
                           "\"default\" or \"examples\" value, not a schema; move the schema under "
                           "\"definitions\" and point there");
      }
    }
    return Status::OK();
  }

  Status Expand(size_t i) {
    SchemaNode node = graph_.nodes[i];  // a copy: Add() may grow the vector
    const Json& j = *node.json;
    if (!j.is_object()) return Status::OK();
    const std::string& p = node.pointer;
    for (const char* key : {"enum", "const", "default", "examples"}) {
      if (auto it = j.find(key); it != j.end()) data_.insert(&*it);
    }
    auto push = [](std::vector<int>& into, int child) {
      if (child >= 0) into.push_back(child);
    };
    if (auto ref = j.find("$ref"); ref != j.end()) {
      if (!ref->is_string()) {
        return SchemaError("\"$ref\" at " + Where(p) + " must be a string such as \"#/definitions/name\", got " +
                           KindOf(*ref));
      }
      Result<std::pair<const Json*, std::string>> target = ResolveLocalRef(root_, ref->get<std::string>(), p);
      if (!target.ok()) return target.status();
      node.ref = Add(target->first, target->second);
      graph_.nodes[i] = std::move(node);
      return Status::OK();
    }
    for (const char* key : {"allOf", "anyOf", "oneOf"}) {
      if (auto it = j.find(key); it != j.end() && it->is_array()) {
        for (size_t k = 0; k < it->size(); ++k) {
          push(node.same, Child((*it)[k], p + "/" + key + "/" + std::to_string(k)));
        }
      }
    }
    if (auto it = j.find("not"); it != j.end()) push(node.same, Child(*it, p + "/not"));
    if (auto it = j.find("if"); it != j.end()) {
      push(node.same, Child(*it, p + "/if"));
      for (const char* key : {"then", "else"}) {
        if (auto branch = j.find(key); branch != j.end()) push(node.same, Child(*branch, p + "/" + key));
      }
    }
    if (auto it = j.find("dependencies"); it != j.end() && it->is_object()) {
      for (auto d = it->begin(); d != it->end(); ++d) {
        push(node.same, Child(d.value(), p + "/dependencies/" + EscapeToken(d.key())));
      }
    }
    if (auto it = j.find("items"); it != j.end()) {
      if (it->is_array()) {
        for (size_t k = 0; k < it->size(); ++k) push(node.tuple, Child((*it)[k], p + "/items/" + std::to_string(k)));
        if (auto extra = j.find("additionalItems"); extra != j.end()) {
          node.additional_items = Child(*extra, p + "/additionalItems");
        }
      } else {
        node.items = Child(*it, p + "/items");
      }
    }
    if (auto it = j.find("contains"); it != j.end()) node.contains = Child(*it, p + "/contains");
    if (auto it = j.find("properties"); it != j.end() && it->is_object()) {
      for (auto prop = it->begin(); prop != it->end(); ++prop) {
        const int c = Child(prop.value(), p + "/properties/" + EscapeToken(prop.key()));
        if (c >= 0) node.properties[prop.key()] = c;
      }
    }
    if (auto it = j.find("patternProperties"); it != j.end() && it->is_object()) {
      for (auto prop = it->begin(); prop != it->end(); ++prop) {
        if (prop.key().size() > kMaxPatternChars) {
          return SchemaError("a patternProperties key at " + Where(p) + " is " + std::to_string(prop.key().size()) +
                             " characters long; at most " + std::to_string(kMaxPatternChars) + " are supported");
        }
        if (Status cost = CheckPatternCost(prop.key(), "a patternProperties key at " + Where(p)); !cost.ok()) {
          return cost;
        }
        push(node.pattern_properties, Child(prop.value(), p + "/patternProperties/" + EscapeToken(prop.key())));
      }
      node.matches_keys = true;
    }
    if (auto it = j.find("additionalProperties"); it != j.end()) {
      node.additional_properties = Child(*it, p + "/additionalProperties");
    }
    if (auto it = j.find("propertyNames"); it != j.end()) node.property_names = Child(*it, p + "/propertyNames");
    if (auto it = j.find("pattern"); it != j.end() && it->is_string()) {
      if (it->get_ref<const std::string&>().size() > kMaxPatternChars) {
        return SchemaError("\"pattern\" at " + Where(p) + " is " +
                           std::to_string(it->get_ref<const std::string&>().size()) + " characters long; at most " +
                           std::to_string(kMaxPatternChars) + " are supported");
      }
      if (Status cost = CheckPatternCost(it->get_ref<const std::string&>(), "\"pattern\" at " + Where(p));
          !cost.ok()) {
        return cost;
      }
      node.matches_strings = true;
    }
    if (auto it = j.find("format"); it != j.end() && it->is_string()) {
      const std::string& format = it->get_ref<const std::string&>();
      if (format == "date" || format == "time" || format == "date-time") node.matches_strings = true;
    }
    graph_.nodes[i] = std::move(node);
    return Status::OK();
  }

  const Json& root_;
  SchemaGraph graph_;
  std::unordered_map<const Json*, int> index_;
  std::unordered_set<const Json*> data_;  // "enum"/"const"/"default"/"examples" values of the subschemas
};

// A loop of edges that never step into the value ($ref, allOf, not, ...):
// validation would apply the same schemas to the same value forever.
Status CheckNoStuckLoop(const SchemaGraph& graph) {
  const size_t n = graph.nodes.size();
  std::vector<uint8_t> state(n, 0);  // 0 new, 1 on the path, 2 done
  std::vector<int> position(n, -1);  // index in `path` while on it
  for (size_t start = 0; start < n; ++start) {
    if (state[start] != 0) continue;
    std::vector<std::pair<int, size_t>> path;  // node, next edge
    std::vector<std::vector<int>> next;        // same-value successors of each node on the path
    auto enter = [&](int v) {
      state[v] = 1;
      position[v] = static_cast<int>(path.size());
      path.emplace_back(v, 0);
      std::vector<int> out;
      for (const auto& [to, steps] : Edges(graph.nodes[v])) {
        if (!steps) out.push_back(to);
      }
      next.push_back(std::move(out));
    };
    enter(static_cast<int>(start));
    while (!path.empty()) {
      auto& [v, e] = path.back();
      if (e < next.back().size()) {
        const int w = next.back()[e++];
        if (state[w] == 0) {
          enter(w);
        } else if (state[w] == 1) {
          std::vector<std::string> names;
          bool only_refs = true;
          for (size_t k = static_cast<size_t>(position[w]); k < path.size(); ++k) {
            const SchemaNode& node = graph.nodes[path[k].first];
            names.push_back(Where(node.pointer));
            only_refs = only_refs && node.ref >= 0;
          }
          names.push_back(Where(graph.nodes[w].pointer));
          const std::string loop = Preview(Join(names, " -> "), 400);
          if (only_refs) {
            return SchemaError("$ref cycle: " + loop + " point to each other and never to a schema; point one of "
                               "them at a real schema (e.g. {\"type\": \"object\", ...})");
          }
          return SchemaError("the schema loops without progress: " + loop + " apply to the same value forever "
                             "(through $ref, allOf/anyOf/oneOf, not, if/then/else or dependencies); a recursive "
                             "schema must recurse through properties or items so each step goes one level deeper");
        }
      } else {
        state[v] = 2;
        position[v] = -1;
        path.pop_back();
        next.pop_back();
      }
    }
  }
  return Status::OK();
}

// Strongly connected components (Tarjan, iterative), then the longest path
// through the components with each weighted by its size: no traversal that
// enters each subschema at most once can go deeper. Sets graph.recursive.
Status CheckSchemaDepth(SchemaGraph& graph) {
  const int n = static_cast<int>(graph.nodes.size());
  std::vector<std::vector<int>> adj(n);
  for (int v = 0; v < n; ++v) {
    for (const auto& [to, steps] : Edges(graph.nodes[v])) {
      adj[v].push_back(to);
      if (to == v) graph.recursive = true;
    }
  }
  std::vector<int> index(n, -1), low(n, 0), comp(n, -1);
  std::vector<bool> on_stack(n, false);
  std::vector<int> stack;
  std::vector<std::vector<int>> members;  // components, sinks first
  int counter = 0;
  for (int s = 0; s < n; ++s) {
    if (index[s] != -1) continue;
    std::vector<std::pair<int, size_t>> calls{{s, 0}};
    index[s] = low[s] = counter++;
    stack.push_back(s);
    on_stack[s] = true;
    while (!calls.empty()) {
      const int v = calls.back().first;
      if (calls.back().second < adj[v].size()) {
        const int w = adj[v][calls.back().second++];
        if (index[w] == -1) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack[w] = true;
          calls.emplace_back(w, 0);
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      if (low[v] == index[v]) {
        std::vector<int> group;
        int w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = false;
          comp[w] = static_cast<int>(members.size());
          group.push_back(w);
        } while (w != v);
        if (group.size() > 1) graph.recursive = true;
        members.push_back(std::move(group));
      }
      calls.pop_back();
      if (!calls.empty()) low[calls.back().first] = std::min(low[calls.back().first], low[v]);
    }
  }
  // Components come out sinks first, so every successor's depth is known.
  std::vector<int> depth(members.size(), 0), deeper(members.size(), -1);
  for (size_t c = 0; c < members.size(); ++c) {
    int best = 0;
    for (int v : members[c]) {
      for (int w : adj[v]) {
        if (comp[w] != static_cast<int>(c) && depth[comp[w]] > best) {
          best = depth[comp[w]];
          deeper[c] = comp[w];
        }
      }
    }
    depth[c] = static_cast<int>(members[c].size()) + best;
  }
  const int root = comp[0];
  if (depth[root] <= kMaxSchemaDepth) return Status::OK();
  // Name a subschema where the path passes the limit.
  int c = root, seen = 0;
  while (deeper[c] >= 0 && seen + static_cast<int>(members[c].size()) <= kMaxSchemaDepth) {
    seen += static_cast<int>(members[c].size());
    c = deeper[c];
  }
  return SchemaError("the schema nests too deeply: a path through its subschemas (properties, items, allOf/anyOf/"
                     "oneOf, $ref, ...) is " + std::to_string(depth[root]) + " subschemas long, more than the " +
                     std::to_string(kMaxSchemaDepth) + " supported (schemas that refer to each other count once "
                     "each), passing the limit at " + Where(graph.nodes[members[c].front()].pointer) +
                     "; flatten it");
}

// The document valijson parses: every "$ref" canonical, every "id" dropped.
Result<Json> ValijsonDocument(const Json& document, const SchemaGraph& graph) {
  Json copy = document;
  try {
    for (const SchemaNode& node : graph.nodes) {
      if (!node.json->is_object()) continue;
      Json& target = copy.at(Json::json_pointer(node.pointer));
      if (node.ref >= 0) target["$ref"] = "#" + ValijsonPointer(graph.nodes[node.ref].pointer);
      if (auto id = target.find("id"); id != target.end() && id->is_string()) target.erase(id);
    }
  } catch (const std::exception& e) {
    return Status::Internal(std::string("preparing the schema for validation failed: ") + e.what());
  }
  return copy;
}

// ---- Validation guards ----------------------------------------------------------

// The pointer to `target` (a value's address, or a member name's when `key`) in
// `root`, found without recursion.
std::string PointerTo(const Json& root, const void* target, bool key) {
  struct Item {
    const Json* node;
    std::string pointer;
  };
  std::vector<Item> stack{{&root, ""}};
  while (!stack.empty()) {
    Item item = std::move(stack.back());
    stack.pop_back();
    if (!key && item.node == target) return item.pointer;
    if (item.node->is_object()) {
      for (auto it = item.node->begin(); it != item.node->end(); ++it) {
        std::string child = item.pointer + "/" + EscapeToken(it.key());
        if (key && &it.key() == target) return child;
        stack.push_back({&it.value(), std::move(child)});
      }
    } else if (item.node->is_array()) {
      for (size_t k = 0; k < item.node->size(); ++k) {
        stack.push_back({&(*item.node)[k], item.pointer + "/" + std::to_string(k)});
      }
    }
  }
  return "";
}

// The first place nested deeper than kMaxValueDepth, or nothing.
std::optional<SchemaProblem> CheckValueDepth(const Json& value) {
  std::vector<std::pair<const Json*, int>> stack{{&value, 1}};
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    if (depth > kMaxValueDepth) {
      return SchemaProblem{Preview(PointerTo(value, node, false), 120),
                           "nested deeper than " + std::to_string(kMaxValueDepth) +
                               " levels, more than any schema here checks; flatten the value"};
    }
    if (node->is_structured()) {
      for (const Json& child : *node) stack.emplace_back(&child, depth + 1);
    }
  }
  return std::nullopt;
}

// What one check applies to: a value, or a member name (checked by "propertyNames").
struct Subject {
  const Json* value = nullptr;
  const std::string* name = nullptr;
  const void* address() const { return name ? static_cast<const void*>(name) : value; }
};

struct PairHash {
  size_t operator()(const std::pair<const void*, int>& p) const {
    return std::hash<const void*>()(p.first) * 31 + static_cast<size_t>(p.second);
  }
};

// Walks the (value, subschema) pairs valijson may visit, longest chain
// first-class: refuses a chain deeper than kMaxValidationDepth and strings or
// names too long for a regex. Empty when valijson may run.
std::vector<SchemaProblem> ProbeValidation(const SchemaGraph& graph, const Json& value) {
  std::unordered_map<std::pair<const void*, int>, int, PairHash> depth;  // finished: longest chain from here
  std::unordered_set<std::pair<const void*, int>, PairHash> active;
  std::vector<std::pair<const void*, bool>> too_long;                    // address, is a member name
  std::set<const void*> reported;

  auto successors = [&](const Subject& s, int n) {
    std::vector<std::pair<Subject, int>> out;
    const SchemaNode& node = graph.nodes[n];
    if (node.ref >= 0) {
      out.push_back({s, node.ref});
      return out;
    }
    for (int c : node.same) out.push_back({s, c});
    const std::string* text = s.name;
    if (!text && s.value->is_string()) text = &s.value->get_ref<const std::string&>();
    if (node.matches_strings && text && text->size() > kMaxMatchedChars && reported.insert(s.address()).second) {
      too_long.emplace_back(s.address(), s.name != nullptr);
    }
    if (s.name) return out;
    const Json& v = *s.value;
    if (v.is_object()) {
      for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string& name = it.key();
        if (node.matches_keys && name.size() > kMaxMatchedChars && reported.insert(&name).second) {
          too_long.emplace_back(&name, true);
        }
        const Subject member{&it.value(), nullptr};
        if (auto p = node.properties.find(name); p != node.properties.end()) out.push_back({member, p->second});
        for (int c : node.pattern_properties) out.push_back({member, c});
        if (node.additional_properties >= 0) out.push_back({member, node.additional_properties});
        if (node.property_names >= 0) out.push_back({Subject{nullptr, &name}, node.property_names});
      }
    } else if (v.is_array()) {
      for (size_t k = 0; k < v.size(); ++k) {
        const Subject item{&v[k], nullptr};
        if (node.items >= 0) out.push_back({item, node.items});
        if (k < node.tuple.size()) out.push_back({item, node.tuple[k]});
        if (k >= node.tuple.size() && !node.tuple.empty() && node.additional_items >= 0) {
          out.push_back({item, node.additional_items});
        }
        if (node.contains >= 0) out.push_back({item, node.contains});
      }
    }
    return out;
  };

  struct Frame {
    Subject subject;
    int node;
    std::vector<std::pair<Subject, int>> next;
    size_t at = 0;
    int longest = 0;  // of the finished successors
  };
  std::vector<Frame> stack;
  const Subject root{&value, nullptr};
  active.insert({root.address(), 0});
  stack.push_back({root, 0, successors(root, 0)});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.at < top.next.size()) {
      const auto [subject, node] = top.next[top.at++];
      const std::pair<const void*, int> key{subject.address(), node};
      if (auto done = depth.find(key); done != depth.end()) {
        top.longest = std::max(top.longest, done->second);
        continue;
      }
      if (active.count(key)) continue;  // cannot happen: loops without progress were refused at Compile()
      if (depth.size() + active.size() > kMaxValidationPairs) {
        return {{"(root)", "too large to check against this recursive or pattern-matching schema (more than " +
                               std::to_string(kMaxValidationPairs) + " value/subschema checks); send a smaller value"}};
      }
      active.insert(key);
      auto next = successors(subject, node);  // before push_back: `top` may move
      stack.push_back({subject, node, std::move(next)});
      continue;
    }
    const int chain = 1 + top.longest;
    const std::pair<const void*, int> key{top.subject.address(), top.node};
    depth[key] = chain;
    active.erase(key);
    stack.pop_back();
    if (!stack.empty()) stack.back().longest = std::max(stack.back().longest, chain);
  }

  std::vector<SchemaProblem> problems;
  const int longest = depth[{root.address(), 0}];
  if (longest > kMaxValidationDepth) {
    problems.push_back({"(root)", "nested too deeply for this recursive schema: checking it would go " +
                                      std::to_string(longest) + " subschemas deep, at most " +
                                      std::to_string(kMaxValidationDepth) + " are supported; nest the value less"});
  }
  for (const auto& [address, is_name] : too_long) {
    if (problems.size() >= 8) break;
    std::string pointer = PointerTo(value, address, is_name);
    const size_t size = is_name ? static_cast<const std::string*>(address)->size()
                                : static_cast<const Json*>(address)->get_ref<const std::string&>().size();
    problems.push_back({pointer.empty() ? "(root)" : Preview(pointer, 120),
                        std::string(is_name ? "the member name" : "the string") + " is " + std::to_string(size) +
                            " characters long, more than the " + std::to_string(kMaxMatchedChars) +
                            " a \"pattern\" or date/time \"format\" is checked on; shorten it"});
  }
  return problems;
}

}  // namespace

Status CheckSchemaShape(const Json& document) { return CheckDocumentShapeImpl(document); }

Result<GuardedSchema> GuardSchema(const Json& document) {
  Result<SchemaGraph> graph = SchemaGraphBuilder(document).Build();
  if (!graph.ok()) return graph.status();
  if (Status s = CheckNoStuckLoop(*graph); !s.ok()) return s;
  if (Status s = CheckSchemaDepth(*graph); !s.ok()) return s;
  Result<Json> parsed = ValijsonDocument(document, *graph);
  if (!parsed.ok()) return parsed.status();
  return GuardedSchema{std::move(*graph), std::move(*parsed)};
}

std::vector<SchemaProblem> GuardValue(const SchemaGraph& graph, const Json& value) {
  if (std::optional<SchemaProblem> deep = CheckValueDepth(value)) return {*deep};
  if (!graph.recursive && !graph.regex) return {};
  return ProbeValidation(graph, value);
}

}  // namespace medreact
