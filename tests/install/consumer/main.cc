// A program built against the installed package: a tool registry with one
// function tool, called directly and then by an agent whose "model" is a
// two-line script (no server). Prints what the install test checks.
#include <cstdio>
#include <memory>

#include "medreact/agent.h"
#include "medreact/tool_registry.h"

namespace {

// Asks for bmi once, then answers with what the tool returned.
class ScriptedModel : public medreact::ChatModel {
 public:
  medreact::Result<medreact::ModelResponse> Complete(const medreact::ModelRequest& request,
                                                     const medreact::ModelCallContext&) override {
    medreact::ModelResponse response;
    const medreact::Message& last = request.messages.back();
    if (last.role == medreact::Role::kTool) {
      response.message = medreact::Message::Assistant("BMI " + last.content);
    } else {
      response.message = medreact::Message::Assistant(
          "", {{.id = "call_1", .name = "bmi", .arguments = R"({"weight_kg": 82, "height_m": 1.74})"}});
    }
    return response;
  }
  std::string name() const override { return "scripted"; }
  std::string protocol() const override { return "scripted"; }
};

}  // namespace

int main() {
  auto tools = std::make_shared<medreact::ToolRegistry>();
  medreact::Json params = medreact::Json::parse(R"({"type": "object", "required": ["weight_kg", "height_m"],
      "properties": {"weight_kg": {"type": "number"}, "height_m": {"type": "number"}}})");
  medreact::Status s = tools->Register(medreact::MakeFunctionTool(
      {"bmi", "Body mass index from weight (kg) and height (m).", params},
      [](const medreact::Json& args, const medreact::ToolContext&) {
        const double w = args["weight_kg"], h = args["height_m"];
        char text[32];
        std::snprintf(text, sizeof text, "%.1f", w / (h * h));
        return medreact::ToolResult::Ok(text);
      }));
  if (!s.ok()) {
    std::printf("register: %s\n", s.ToString().c_str());
    return 1;
  }
  medreact::ToolResult direct =
      tools->Execute({.id = "c0", .name = "bmi", .arguments = R"({"weight_kg": 82, "height_m": 1.74})"}, {});
  std::printf("tool: %s\n", direct.ok ? direct.content.c_str() : direct.error.c_str());

  medreact::Agent agent(std::make_shared<ScriptedModel>(), tools, {.max_steps = 4});
  medreact::RunResult r = agent.Run({.message = "Weight 82 kg, height 1.74 m: BMI?"});
  std::printf("agent: %s: %s\n", medreact::RunStatusName(r.status), r.answer.c_str());
  std::printf("data: %s\n", CONSUMER_DATA_DIR);
  return r.status == medreact::RunStatus::kFinished ? 0 : 1;
}
