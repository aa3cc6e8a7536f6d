#include "apps/common/approval_policy.h"

#include <algorithm>
#include <memory>
#include <set>

#include "core/file_io.h"
#include "core/text_util.h"
#include "tools/packs.h"

namespace medreact {
namespace {

constexpr size_t kMaxApprovalFileBytes = 64 * 1024;

std::string KnownPackList() {
  std::string out;
  for (const PackInfo& p : KnownPacks()) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

bool IsPack(const std::string& name) {
  for (const PackInfo& p : KnownPacks()) {
    if (p.name == name) return true;
  }
  return false;
}

// "tool:NAME" or a bare NAME → NAME; "" for the other kinds of rule.
std::string ToolOfRule(const std::string& rule) {
  if (rule.rfind("tool:", 0) == 0) return rule.substr(5);
  if (rule == "all" || rule == "network" || rule == "writes" || rule.rfind("pack:", 0) == 0) return "";
  return rule;
}

}  // namespace

Result<std::vector<std::string>> LoadApprovalFile(const std::string& path) {
  Result<std::string> text = ReadUserFile(path, "approval file", kMaxApprovalFileBytes);
  if (!text.ok()) return text.status();
  Result<Json> json = ParseJson(*text);
  if (!json.ok()) return json.status().WithContext("approval file '" + path + "'");
  const Json* rules = json->is_object() && json->contains("require_approval") ? &(*json)["require_approval"] : nullptr;
  if (!rules || !rules->is_array()) {
    return Status::InvalidArgument("approval file '" + path +
                                   "': expected {\"require_approval\": [RULE, ...]} (rules: all, network, writes, "
                                   "pack:NAME, tool:NAME)");
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < rules->size(); ++i) {
    if (!(*rules)[i].is_string()) {
      return Status::InvalidArgument("approval file '" + path + "': /require_approval/" + std::to_string(i) +
                                     " must be a string (a rule)");
    }
    out.push_back((*rules)[i].get<std::string>());
  }
  Result<std::vector<std::string>> checked = CheckApprovalRules(out);
  if (!checked.ok()) return checked.status().WithContext("approval file '" + path + "'");
  return checked;
}

Result<std::vector<std::string>> CheckApprovalRules(const std::vector<std::string>& rules) {
  std::vector<std::string> out;
  for (const std::string& raw : rules) {
    const std::string rule = Trim(raw);
    if (rule.empty())
      return Status::InvalidArgument(
          "an approval rule is empty (rules: all, network, writes, "
          "pack:NAME, tool:NAME)");
    if (rule.rfind("pack:", 0) == 0 && !IsPack(rule.substr(5))) {
      return Status::InvalidArgument("approval rule '" + Preview(rule, 80) +
                                     "' names no pack (known packs: " + KnownPackList() + ")");
    }
    if (rule.rfind("tool:", 0) == 0 && rule.size() == 5) {
      return Status::InvalidArgument("approval rule 'tool:' names no tool");
    }
    if (rule.find(':') != std::string::npos && rule.rfind("pack:", 0) != 0 && rule.rfind("tool:", 0) != 0) {
      return Status::InvalidArgument("approval rule '" + Preview(rule, 80) +
                                     "' is not one of: all, network, writes, pack:NAME, tool:NAME");
    }
    if (std::find(out.begin(), out.end(), rule) == out.end()) out.push_back(rule);
  }
  return out;
}

Result<std::function<bool(const ToolCall&, const ToolSpec&)>> ApprovalPredicate(
    const std::vector<std::string>& rules, const ToolRegistry& tools,
    const std::map<std::string, std::string>& tool_packs) {
  if (rules.empty()) return std::function<bool(const ToolCall&, const ToolSpec&)>();
  Result<std::vector<std::string>> checked = CheckApprovalRules(rules);
  if (!checked.ok()) return checked.status();
  const std::vector<std::string> names = tools.Names();
  for (const std::string& rule : *checked) {
    const std::string tool = ToolOfRule(rule);
    if (!tool.empty() && std::find(names.begin(), names.end(), tool) == names.end()) {
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
      return Status::InvalidArgument("approval rule '" + Preview(rule, 80) +
                                     "' names no tool of this run (tools: " + (list.empty() ? "none" : list) + ")");
    }
  }
  // Decide once per tool: the set of tool names that wait.
  std::set<std::string> network_packs;
  for (const PackInfo& p : KnownPacks()) {
    if (p.network) network_packs.insert(p.name);
  }
  auto waits = std::make_shared<std::set<std::string>>();
  for (const ToolSpec& spec : tools.Specs()) {
    auto pack = tool_packs.find(spec.name);
    const std::string pack_name = pack == tool_packs.end() ? "" : pack->second;
    for (const std::string& rule : *checked) {
      const bool match = rule == "all" || (rule == "network" && network_packs.count(pack_name)) ||
                         (rule == "writes" && !spec.idempotent) ||
                         (rule.rfind("pack:", 0) == 0 && rule.substr(5) == pack_name) || ToolOfRule(rule) == spec.name;
      if (match) {
        waits->insert(spec.name);
        break;
      }
    }
  }
  return std::function<bool(const ToolCall&, const ToolSpec&)>(
      [waits](const ToolCall& call, const ToolSpec&) { return waits->count(call.name) > 0; });
}

}  // namespace medreact
