// Which tool calls wait for a person's approval (issue 14): the rules behind
// AgentOptions::needs_approval, as the user writes them on the command line
// (--require-approval RULE, repeatable) or in an approval file
// ({"require_approval": ["network", "pack:literature", "calculator"]}).
//
// Rules:
//   all          every tool call (the finishing tools never wait)
//   network      the tools of packs that may reach the network (PackInfo::network: literature)
//   writes       tools with side effects: those declaring ToolSpec::idempotent false (they
//                write, send or order). None of the built-in packs has one today; an app's
//                own tools may.
//   pack:NAME    every tool of the pack NAME
//   tool:NAME    one tool (a bare NAME means the same)
//
// A rule naming a pack that does not exist, or a tool the run does not have,
// is an error, never silently nothing: a typo must not let a call run
// unreviewed. The rules are stored with a run's inputs, so a resumed run
// waits for the same calls.
#ifndef MEDREACT_APPS_COMMON_APPROVAL_POLICY_H_
#define MEDREACT_APPS_COMMON_APPROVAL_POLICY_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "medreact/json.h"
#include "medreact/message.h"
#include "medreact/status.h"
#include "medreact/tool_registry.h"
#include "medreact/tool_spec.h"

namespace medreact {

// The rules of an approval file: {"require_approval": [RULE, ...]}. Errors
// (unreadable, not JSON, wrong shape) name the file and the field.
Result<std::vector<std::string>> LoadApprovalFile(const std::string& path);

// Checks the rules' syntax and pack names (InvalidArgument naming the rule
// and the choices); returns them trimmed, duplicates dropped.
Result<std::vector<std::string>> CheckApprovalRules(const std::vector<std::string>& rules);

// The predicate for AgentOptions::needs_approval over a run's tools:
// `tool_packs` maps each registered tool to its pack (RegisterPacks). Null
// when there are no rules (nothing waits). InvalidArgument when a tool rule
// names a tool `tools` does not have (listing them).
Result<std::function<bool(const ToolCall&, const ToolSpec&)>> ApprovalPredicate(
    const std::vector<std::string>& rules, const ToolRegistry& tools,
    const std::map<std::string, std::string>& tool_packs);

}  // namespace medreact

#endif  // MEDREACT_APPS_COMMON_APPROVAL_POLICY_H_
