// ToolRegistry: registration, argument validation and guarded execution.
//
// Each tool's parameters schema is compiled once (JsonSchema), in Register(),
// and kept beside the tool; the compiled schema is only read afterwards, so
// Execute() may run on many threads at once. Validation problems come back as
// short "<JSON pointer>: <problem>" items (json_schema.h) because the text goes
// straight back to the model, which has to fix its call from it alone.
#include "medreact/tool_registry.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <string_view>
#include <utility>

#include "core/text_util.h"
#include "medreact/json_schema.h"
namespace medreact {

struct ToolRegistry::Entry {
  std::unique_ptr<Tool> tool;
  JsonSchema schema;  // compiled once from tool->spec().parameters
};

namespace {

constexpr size_t kMaxListedProblems = 8;
constexpr size_t kMaxProblemChars = 1200;  // the problem list, before the closing hint

std::string Quoted(std::string_view name) { return "'" + Preview(name, 64) + "'"; }

bool IsValidToolName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-';
  });
}



// ---- Unknown tools ---------------------------------------------------------

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string Normalized(std::string_view name) {
  std::string out;
  for (char c : name) out += c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The registered name the model most likely meant: same name up to case or
// '-'/'_', a namespaced form ("functions.calculator"), or a near typo.
std::string ClosestName(const std::string& wanted, const std::vector<std::string>& names) {
  if (wanted.size() > 200) return {};
  const std::string norm = Normalized(wanted);
  std::string best;
  size_t best_distance = 3;
  for (const std::string& name : names) {
    const std::string candidate = Normalized(name);
    const size_t n = candidate.size();
    if (norm.size() > n && norm.compare(norm.size() - n, n, candidate) == 0 &&
        (norm[norm.size() - n - 1] == '.' || norm[norm.size() - n - 1] == ':')) {
      return name;
    }
    // Up to one edit per four characters (at most two), so short names do
    // not "match" unrelated ones.
    size_t distance = EditDistance(norm, candidate);
    if (distance <= std::clamp<size_t>(n / 4, 1, 2) && distance < best_distance) {
      best_distance = distance;
      best = name;
    }
  }
  return best;
}

// ---- Argument parsing ------------------------------------------------------

}  // namespace

// ---- ToolRegistry ----------------------------------------------------------

ToolRegistry::ToolRegistry() = default;
ToolRegistry::~ToolRegistry() = default;

Status ToolRegistry::Register(std::unique_ptr<Tool> tool) {
  if (!tool) return Status::InvalidArgument("Cannot register a null tool");
  const ToolSpec& spec = tool->spec();
  if (!IsValidToolName(spec.name)) {
    return Status::InvalidArgument("Invalid tool name " + Quoted(spec.name) +
                                   ": must match ^[a-zA-Z0-9_-]{1,64}$");
  }
  if (tools_.count(spec.name) > 0) {
    return Status::InvalidArgument("Tool '" + spec.name + "' is already registered");
  }
  const Json& params = spec.parameters;
  if (!params.is_object() || params.value("type", Json()) != "object") {
    return Status::InvalidArgument("Tool '" + spec.name +
                                   "': parameters must be a JSON Schema object with \"type\": \"object\"");
  }
  Result<JsonSchema> schema = JsonSchema::Compile(params);
  if (!schema.ok()) {
    return Status::InvalidArgument("Tool '" + spec.name + "': parameters are not a valid JSON Schema: " +
                                   schema.status().message());
  }
  auto entry = std::make_unique<Entry>(Entry{std::move(tool), std::move(*schema)});
  order_.push_back(entry->tool->spec().name);
  tools_.emplace(order_.back(), std::move(entry));
  std::lock_guard<std::mutex> lock(specs_mu_);
  shared_specs_ = {};  // rebuilt with the new tool on the next SharedSpecs()
  return Status::OK();
}

const Tool* ToolRegistry::Find(const std::string& name) const {
  auto it = tools_.find(name);
  return it == tools_.end() ? nullptr : it->second->tool.get();
}

std::vector<ToolSpec> ToolRegistry::Specs() const {
  std::vector<ToolSpec> specs;
  specs.reserve(order_.size());
  for (const std::string& name : order_) specs.push_back(tools_.at(name)->tool->spec());
  return specs;
}

ToolSpecList ToolRegistry::SharedSpecs() const {
  std::lock_guard<std::mutex> lock(specs_mu_);
  if (shared_specs_.empty() && !order_.empty()) shared_specs_ = Specs();
  return shared_specs_;
}

std::vector<std::string> ToolRegistry::Names() const { return order_; }

Result<Json> ToolRegistry::ValidateArguments(const std::string& tool_name,
                                             const std::string& arguments) const {
  auto it = tools_.find(tool_name);
  if (it == tools_.end()) {
    std::string message = "Unknown tool " + Quoted(tool_name) + ".";
    if (order_.empty()) return Status::NotFound(message + " No tools are available; answer without calling one.");
    if (std::string guess = ClosestName(tool_name, order_); !guess.empty()) {
      message += " Did you mean '" + guess + "'?";
    }
    return Status::NotFound(message + " Valid tools: " + Join(order_, ", ") + ".");
  }
  const Entry& entry = *it->second;
  const std::string name = Quoted(tool_name);

  Json args = Json::object();
  std::string_view text = TrimView(arguments);
  if (!text.empty()) {
    Result<Json> parsed = ParseJson(text);  // depth and number guards
    if (!parsed.ok()) {
      return Status::InvalidArgument("Arguments for " + name + " are not valid JSON: " + parsed.status().message() +
                                     " (received: " + Preview(text, 80) +
                                     "); send a JSON object matching the tool's parameters.");
    }
    args = std::move(parsed).value();
  }
  if (!args.is_object()) {
    return Status::InvalidArgument("Arguments for " + name + " must be a JSON object, got " + DescribeJsonValue(args) +
                                   "; send a JSON object matching the tool's parameters.");
  }

  std::vector<SchemaProblem> problems = entry.schema.Validate(args);
  if (problems.empty()) return args;
  return Status::InvalidArgument("Invalid arguments for " + name + ": " +
                                 JoinSchemaProblems(problems, kMaxListedProblems, kMaxProblemChars) +
                                 ". Fix the arguments to match the tool's parameters and call it again.");
}

ToolResult ToolRegistry::Execute(const ToolCall& call, const ToolContext& ctx) const {
  Result<Json> args = ValidateArguments(call.name, call.arguments);
  if (!args.ok()) return ToolResult::Error(args.status().message());
  if (ctx.cancel.cancelled()) return ToolResult::Error("Cancelled before start");
  if (ctx.deadline.expired()) return ToolResult::Error("Timed out before start");

  Tool& tool = *tools_.at(call.name)->tool;
  try {
    return tool.Run(*args, ctx);
  } catch (const std::exception& e) {
    return ToolResult::Error("Tool '" + call.name + "' failed: " + Preview(e.what(), 500));
  } catch (...) {
    return ToolResult::Error("Tool '" + call.name + "' failed with an unknown exception");
  }
}

}  // namespace medreact
