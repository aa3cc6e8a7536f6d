// The built-in finishing tools. Their Run() only echoes the answer back: the
// agent notices the call by name (AgentOptions::finish_tools) and ends the run
// with the validated arguments, so the answer is exactly what the model wrote.
#include "medreact/agent.h"

namespace medreact {

Status RegisterFinishTools(ToolRegistry& registry) {
  ToolSpec final_answer{
      "final_answer",
      "Give the final answer to the user and end the task. Call this once you have "
      "enough information; the 'answer' text is shown to the user as is.",
      Json::parse(R"({"type":"object","properties":{"answer":{"type":"string",
        "description":"The complete final answer."}},"required":["answer"]})")};
  ToolSpec terminate{
      "terminate",
      "End the task when it is complete or cannot be completed. Give the reason, and the "
      "answer if there is one.",
      Json::parse(R"({"type":"object","properties":{"reason":{"type":"string",
        "description":"Why the task ends (e.g. 'completed', 'cannot be completed: ...')."},
        "answer":{"type":"string","description":"The final answer, if any."}},
        "required":["reason"]})")};
  // Seed 004's special tool: terminate_and_answer("4", "high", "Simple arithmetic").
  ToolSpec terminate_and_answer{
      "terminate_and_answer",
      "Give the final answer with how confident you are and why, and end the task.",
      Json::parse(R"({"type":"object","properties":{
        "answer":{"type":"string","description":"The complete final answer."},
        "confidence":{"type":"string","enum":["high","medium","low"],
          "description":"How sure the answer is, given what the tools showed."},
        "reasoning":{"type":"string","description":"In one or two sentences, why this is the answer."}},
        "required":["answer","confidence","reasoning"]})")};
  auto echo = [](const Json& args, const ToolContext&) {
    if (args.contains("answer") && args["answer"].is_string()) {
      return ToolResult::Ok(args["answer"].get<std::string>());
    }
    return ToolResult::Ok(args.value("reason", std::string("terminated")));
  };
  if (Status s = registry.Register(MakeFunctionTool(std::move(final_answer), echo)); !s.ok()) return s;
  if (Status s = registry.Register(MakeFunctionTool(std::move(terminate_and_answer), echo)); !s.ok()) return s;
  return registry.Register(MakeFunctionTool(std::move(terminate), echo));
}

}  // namespace medreact
