#include "apps/chat/chat_app.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "tools/fhir/fhir_rest.h"

namespace medreact {

Result<std::shared_ptr<ToolRegistry>> ChatTools(std::vector<std::string> packs, const PackContext& context,
                                                std::map<std::string, std::string>* tool_packs) {
  auto add_once = [&packs](const std::string& pack) {
    if (std::find(packs.begin(), packs.end(), pack) == packs.end()) packs.push_back(pack);
  };
  if (!context.fhir_path.empty()) add_once("fhir");  // naming a record means using it
  if (!context.corpus_dir.empty() || !context.extras_path.empty()) add_once("rag");  // likewise a corpus
  auto registry = std::make_shared<ToolRegistry>();
  if (Status s = RegisterPacks(*registry, packs, context, tool_packs); !s.ok()) return s;
  return registry;
}

RunResult RunChat(std::shared_ptr<ChatModel> model, std::shared_ptr<const ToolRegistry> tools,
                  const std::string& message, const AgentOptions& options) {
  return RunChat(std::move(model), std::move(tools), RunRequest{.message = message}, options);
}

RunResult RunChat(std::shared_ptr<ChatModel> model, std::shared_ptr<const ToolRegistry> tools, RunRequest request,
                  const AgentOptions& options) {
  AgentOptions named = options;
  if (named.agent_name.empty()) named.agent_name = "chat";
  Agent agent(std::move(model), std::move(tools), std::move(named));
  return agent.Run(request);
}

namespace {

// A path as the user gave it, made absolute (lexically: the file may be gone
// by the time a resume reads it, which then fails naming it).
std::string AbsolutePath(const std::string& path) {
  if (path.empty() || IsFhirPatientUrl(path)) return path;  // a record on a FHIR server
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

Status BadInputs(const std::string& field, const std::string& want) {
  return Status::InvalidArgument("chat run inputs: '" + field + "' must be " + want);
}

// An integer field in [lo, hi]; absent: the fallback.
Result<int64_t> IntField(const Json& j, const char* key, int64_t fallback, int64_t lo, int64_t hi) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  std::optional<int64_t> v = ExactInteger(*it, lo, hi);
  if (!v) return BadInputs(std::string("options.") + key, "an integer in [" + std::to_string(lo) + ", " +
                                                           std::to_string(hi) + "]");
  return *v;
}

}  // namespace

Json ChatInputsToJson(const ChatInputs& in) {
  const AgentOptions& o = in.options;
  Json options{{"max_steps", o.max_steps},
               {"timeout_ms", o.timeout.count()},
               {"tool_timeout_ms", o.tool_timeout.count()},
               {"token_budget", o.token_budget},
               {"tool_call_budget", o.tool_call_budget},
               {"max_parallel_tools", o.max_parallel_tools},
               {"stream", o.stream}};
  if (o.temperature) options["temperature"] = *o.temperature;
  if (o.max_tokens) options["max_tokens"] = *o.max_tokens;
  return Json{{"message", in.message},
              {"packs", in.packs},
              {"fhir", AbsolutePath(in.context.fhir_path)},
              {"as_of", in.context.as_of},
              {"corpus", AbsolutePath(in.context.corpus_dir)},
              {"extras", AbsolutePath(in.context.extras_path)},
              {"system_prompt", o.system_prompt},
              {"require_approval", in.require_approval},
              {"options", std::move(options)}};
}

Result<ChatInputs> ChatInputsFromJson(const Json& j) {
  if (!j.is_object()) return BadInputs("(root)", "an object");
  ChatInputs in;
  auto message = j.find("message");
  if (message == j.end() || !message->is_string()) return BadInputs("message", "a string");
  in.message = message->get<std::string>();
  auto packs = j.find("packs");
  if (packs == j.end() || !packs->is_array()) return BadInputs("packs", "an array of pack names");
  for (const Json& p : *packs) {
    if (!p.is_string()) return BadInputs("packs", "an array of pack names");
    in.packs.push_back(p.get<std::string>());
  }
  in.context.fhir_path = StringOr(j, "fhir");
  in.context.as_of = StringOr(j, "as_of");
  in.context.corpus_dir = StringOr(j, "corpus");
  in.context.extras_path = StringOr(j, "extras");
  in.options.system_prompt = StringOr(j, "system_prompt");
  if (auto rules = j.find("require_approval"); rules != j.end()) {  // absent in runs stored before approval
    if (!rules->is_array()) return BadInputs("require_approval", "an array of approval rules");
    for (const Json& r : *rules) {
      if (!r.is_string()) return BadInputs("require_approval", "an array of approval rules");
      in.require_approval.push_back(r.get<std::string>());
    }
  }
  static const Json kNone = Json::object();
  auto found = j.find("options");
  const Json& o = found != j.end() && found->is_object() ? *found : kNone;
  AgentOptions& out = in.options;
  Result<int64_t> max_steps = IntField(o, "max_steps", out.max_steps, 1, 1'000'000);
  Result<int64_t> timeout = IntField(o, "timeout_ms", out.timeout.count(), 0, INT64_MAX / 2);
  Result<int64_t> tool_timeout = IntField(o, "tool_timeout_ms", out.tool_timeout.count(), 0, INT64_MAX / 2);
  Result<int64_t> tokens = IntField(o, "token_budget", out.token_budget, 0, INT64_MAX);
  Result<int64_t> calls = IntField(o, "tool_call_budget", out.tool_call_budget, 0, INT32_MAX);
  Result<int64_t> parallel = IntField(o, "max_parallel_tools", out.max_parallel_tools, 1, 1024);
  for (const auto* r : {&max_steps, &timeout, &tool_timeout, &tokens, &calls, &parallel}) {
    if (!r->ok()) return r->status();
  }
  out.max_steps = static_cast<int>(*max_steps);
  out.timeout = Millis(*timeout);
  out.tool_timeout = Millis(*tool_timeout);
  out.token_budget = *tokens;
  out.tool_call_budget = static_cast<int>(*calls);
  out.max_parallel_tools = static_cast<int>(*parallel);
  out.stream = BoolOr(o, "stream", false);
  if (auto t = o.find("temperature"); t != o.end()) {
    if (!t->is_number()) return BadInputs("options.temperature", "a number");
    out.temperature = t->get<double>();
  }
  if (o.contains("max_tokens")) {
    Result<int64_t> max_tokens = IntField(o, "max_tokens", 0, 1, INT32_MAX);
    if (!max_tokens.ok()) return max_tokens.status();
    out.max_tokens = static_cast<int>(*max_tokens);
  }
  return in;
}

RunResult ResumeChat(std::shared_ptr<ChatModel> model, std::shared_ptr<const ToolRegistry> tools,
                     const RunState& state, const AgentOptions& options) {
  AgentOptions named = options;
  if (named.agent_name.empty()) named.agent_name = "chat";
  Agent agent(std::move(model), std::move(tools), std::move(named));
  return agent.Resume(state);
}

}  // namespace medreact
