// The general agent (seed 004): any tool packs, any question, any model.
//
//   Result<std::shared_ptr<ToolRegistry>> tools = ChatTools({"util", "calc"}, context);
//   RunResult r = RunChat(model, *tools, "What is 17 * 23?", options);
//   RunResult r = RunChat(model, *tools, {.message = "Any effusion?", .images = {stored->Part()}}, options);
#ifndef MEDREACT_APPS_CHAT_CHAT_APP_H_
#define MEDREACT_APPS_CHAT_CHAT_APP_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "medreact/agent.h"
#include "tools/packs.h"

namespace medreact {

// The named packs, plus those the context implies: naming a record adds
// `fhir`, a corpus or hints file adds `rag`. The packs' own errors
// (unknown name, unreadable record) as InvalidArgument / their load error.
// `tool_packs`, when given, receives each tool's pack (for approval rules).
Result<std::shared_ptr<ToolRegistry>> ChatTools(std::vector<std::string> packs, const PackContext& context,
                                                std::map<std::string, std::string>* tool_packs = nullptr);

// One run of the agent with `options` (the default system prompt when empty).
RunResult RunChat(std::shared_ptr<ChatModel> model, std::shared_ptr<const ToolRegistry> tools,
                  const std::string& message, const AgentOptions& options);
// The same with a whole request: the message plus image parts (sent with the
// user turn, once per run) and any earlier history. The caller checks that
// the model takes images (ModelCapabilities::images) when there are some.
RunResult RunChat(std::shared_ptr<ChatModel> model, std::shared_ptr<const ToolRegistry> tools, RunRequest request,
                  const AgentOptions& options);

// What rebuilds a chat run for `medreact runs resume` (the run store's
// inputs, issue 14): the message, the packs, the paths the user gave (made
// absolute, so a resume from another folder finds them), the system prompt,
// the agent's limits and the approval rules (approval_policy.h), so a
// resumed run waits for the same calls. The model is stored apart; no API
// key is here.
struct ChatInputs {
  std::string message;
  std::vector<std::string> packs;
  PackContext context;  // fhir_path, as_of, corpus_dir, extras_path only
  AgentOptions options;  // system_prompt and the limits only (no hooks)
  std::vector<std::string> require_approval;  // the approval rules, checked
};
Json ChatInputsToJson(const ChatInputs& inputs);
// InvalidArgument naming the field when `json` is not a chat run's inputs.
Result<ChatInputs> ChatInputsFromJson(const Json& json);

// Goes on with a stored chat run from its checkpoint (Agent::Resume), with
// the tools and options it was started with.
RunResult ResumeChat(std::shared_ptr<ChatModel> model, std::shared_ptr<const ToolRegistry> tools,
                     const RunState& state, const AgentOptions& options);

}  // namespace medreact

#endif  // MEDREACT_APPS_CHAT_CHAT_APP_H_
