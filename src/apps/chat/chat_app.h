// The general agent (seed 004): any tool packs, any question, any model.
//
//   Result<std::shared_ptr<ToolRegistry>> tools = ChatTools({"util", "calc"}, context);
//   RunResult r = RunChat(model, *tools, "What is 17 * 23?", options);
//   RunResult r = RunChat(model, *tools, {.message = "Any effusion?", .images = {stored->Part()}}, options);
#ifndef MEDREACT_APPS_CHAT_CHAT_APP_H_
#define MEDREACT_APPS_CHAT_CHAT_APP_H_

#include <memory>
#include <string>
#include <vector>

#include "medreact/agent.h"
#include "tools/packs.h"

namespace medreact {

// The named packs, plus those the context implies: naming a record adds
// `fhir`, a corpus or hints file adds `rag`. The packs' own errors
// (unknown name, unreadable record) as InvalidArgument / their load error.
Result<std::shared_ptr<ToolRegistry>> ChatTools(std::vector<std::string> packs, const PackContext& context);

// One run of the agent with `options` (the default system prompt when empty).
RunResult RunChat(std::shared_ptr<ChatModel> model, std::shared_ptr<const ToolRegistry> tools,
                  const std::string& message, const AgentOptions& options);
// The same with a whole request: the message plus image parts (sent with the
// user turn, once per run) and any earlier history. The caller checks that
// the model takes images (ModelCapabilities::images) when there are some.
RunResult RunChat(std::shared_ptr<ChatModel> model, std::shared_ptr<const ToolRegistry> tools, RunRequest request,
                  const AgentOptions& options);

}  // namespace medreact

#endif  // MEDREACT_APPS_CHAT_CHAT_APP_H_
