// RunState ⇄ JSON. Every read is typed and checked: a state file is outside
// input (it comes back from a store or a disk), so a wrong type or a missing
// field is an error naming the field, never an exception.
#include "medreact/run_state.h"

#include <algorithm>
#include <set>
#include <utility>

namespace medreact {
namespace {

Status Bad(const std::string& field, const std::string& want) {
  return Status::InvalidArgument("run state: '" + field + "' must be " + want);
}

Result<std::string> Str(const Json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return Bad(where + key, "a string");
  return it->get<std::string>();
}

Result<int64_t> Int(const Json& j, const char* key, const std::string& where, int64_t lo = 0,
                    int64_t hi = INT64_MAX) {
  auto it = j.find(key);
  std::optional<int64_t> v = it == j.end() ? std::nullopt : ExactInteger(*it, lo, hi);
  if (!v) return Bad(where + key, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return *v;
}

Result<double> Num(const Json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return Bad(where + key, "a number");
  return it->get<double>();
}

const Json& ArrayAt(const Json& j, const char* key) {
  static const Json kEmpty = Json::array();
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

Json UsageJson(const Usage& u) { return ToJson(u); }

Result<Usage> UsageFrom(const Json& j, const std::string& where) {
  if (!j.is_object()) return Bad(where, "an object");
  Usage u;
  auto p = Int(j, "prompt_tokens", where + "."), c = Int(j, "completion_tokens", where + "."),
       t = Int(j, "total_tokens", where + ".");
  if (!p.ok()) return p.status();
  if (!c.ok()) return c.status();
  if (!t.ok()) return t.status();
  u.prompt_tokens = *p, u.completion_tokens = *c, u.total_tokens = *t;
  return u;
}

Result<ToolCall> CallFrom(const Json& j, const std::string& where) {
  if (!j.is_object()) return Bad(where, "an object");
  auto id = Str(j, "id", where + "."), name = Str(j, "name", where + "."), args = Str(j, "arguments", where + ".");
  if (!id.ok()) return id.status();
  if (!name.ok()) return name.status();
  if (!args.ok()) return args.status();
  return ToolCall{*id, *name, *args};
}

Json RecordJson(const ToolResultRecord& r) {
  return Json{{"tool_call_id", r.tool_call_id}, {"name", r.name}, {"ok", r.ok},
              {"content", r.content}, {"error", r.error}, {"elapsed_ms", r.elapsed_ms}};
}

Result<ToolResultRecord> RecordFrom(const Json& j, const std::string& where) {
  if (!j.is_object()) return Bad(where, "an object");
  ToolResultRecord r;
  auto id = Str(j, "tool_call_id", where + "."), name = Str(j, "name", where + ".");
  if (!id.ok()) return id.status();
  if (!name.ok()) return name.status();
  auto ok = j.find("ok");
  if (ok == j.end() || !ok->is_boolean()) return Bad(where + ".ok", "a boolean");
  r.tool_call_id = *id, r.name = *name, r.ok = ok->get<bool>();
  r.content = StringOr(j, "content");
  r.error = StringOr(j, "error");
  r.elapsed_ms = NumberOr(j, "elapsed_ms", 0);
  return r;
}

Json StepJson(const StepRecord& s) {
  Json results = Json::array();
  for (const auto& r : s.tool_results) results.push_back(RecordJson(r));
  return Json{{"index", s.index}, {"kind", s.kind}, {"assistant", MessageToStateJson(s.assistant)},
              {"raw_text", s.raw_text}, {"finish_reason", s.finish_reason}, {"parse_error", s.parse_error},
              {"model_error", s.model_error}, {"tool_results", std::move(results)}, {"notes", s.notes},
              {"usage", UsageJson(s.usage)}, {"attempts", s.attempts}, {"model_ms", s.model_ms},
              {"elapsed_ms", s.elapsed_ms}};
}

Result<StepRecord> StepFrom(const Json& j, const std::string& where) {
  if (!j.is_object()) return Bad(where, "an object");
  StepRecord s;
  auto index = Int(j, "index", where + ".");
  if (!index.ok()) return index.status();
  s.index = static_cast<int>(std::min<int64_t>(*index, INT32_MAX));
  s.kind = StringOr(j, "kind", "step");
  auto assistant = j.find("assistant");
  if (assistant != j.end()) {
    Result<Message> m = MessageFromStateJson(*assistant);
    if (!m.ok()) return m.status().WithContext(where + ".assistant");
    s.assistant = std::move(*m);
  }
  s.raw_text = StringOr(j, "raw_text");
  s.finish_reason = StringOr(j, "finish_reason");
  s.parse_error = StringOr(j, "parse_error");
  s.model_error = StringOr(j, "model_error");
  const Json& results = ArrayAt(j, "tool_results");
  for (size_t i = 0; i < results.size(); ++i) {
    Result<ToolResultRecord> r = RecordFrom(results[i], where + ".tool_results[" + std::to_string(i) + "]");
    if (!r.ok()) return r.status();
    s.tool_results.push_back(std::move(*r));
  }
  for (const Json& n : ArrayAt(j, "notes")) {
    if (n.is_string()) s.notes.push_back(n.get<std::string>());
  }
  if (auto u = j.find("usage"); u != j.end()) {
    Result<Usage> usage = UsageFrom(*u, where + ".usage");
    if (!usage.ok()) return usage.status();
    s.usage = *usage;
  }
  s.attempts = static_cast<int>(IntegerOr(j, "attempts", 0));
  s.model_ms = NumberOr(j, "model_ms", 0);
  s.elapsed_ms = NumberOr(j, "elapsed_ms", 0);
  return s;
}

Json TraceJson(const RunTrace& t, bool with_steps = true, bool with_input = true) {
  Json steps = Json::array();
  if (with_steps) {
    for (const StepRecord& s : t.steps) steps.push_back(StepJson(s));
  }
  return Json{{"run_id", t.run_id}, {"status", t.status}, {"answer", t.answer}, {"error", t.error}, {"final_fields", t.final_fields},
              {"model", t.model}, {"protocol", t.protocol}, {"started_at", t.started_at},
              {"elapsed_ms", t.elapsed_ms}, {"usage", UsageJson(t.usage)},
              {"input", with_input ? t.input : Json::object()}, {"steps", std::move(steps)}};
}

const char* PhaseName(RunState::Phase p) { return p == RunState::Phase::kInTurn ? "in_turn" : "between_steps"; }

}  // namespace

Json MessageToStateJson(const Message& m) {
  Json j{{"role", RoleName(m.role)}, {"content", m.content}};
  if (!m.images.empty()) {
    Json parts = Json::array();
    for (const ContentPart& p : m.images) {
      parts.push_back(p.kind == ContentPart::Kind::kImage ? Json{{"image_url", p.image_url}} : Json{{"text", p.text}});
    }
    j["images"] = std::move(parts);
  }
  if (!m.tool_calls.empty()) {
    Json calls = Json::array();
    for (const ToolCall& c : m.tool_calls) calls.push_back(ToJson(c));
    j["tool_calls"] = std::move(calls);
  }
  if (!m.tool_call_id.empty()) j["tool_call_id"] = m.tool_call_id;
  if (!m.name.empty()) j["name"] = m.name;
  return j;
}

Result<Message> MessageFromStateJson(const Json& j) {
  if (!j.is_object()) return Bad("message", "an object");
  Message m;
  const std::string role = StringOr(j, "role");
  if (role == "system") {
    m.role = Role::kSystem;
  } else if (role == "user") {
    m.role = Role::kUser;
  } else if (role == "assistant") {
    m.role = Role::kAssistant;
  } else if (role == "tool") {
    m.role = Role::kTool;
  } else {
    return Bad("message.role", "system, user, assistant or tool");
  }
  m.content = StringOr(j, "content");
  for (const Json& p : ArrayAt(j, "images")) {
    ContentPart part;
    if (p.is_object() && p.contains("image_url")) {
      part.kind = ContentPart::Kind::kImage;
      part.image_url = StringOr(p, "image_url");
    } else {
      part.text = StringOr(p, "text");
    }
    m.images.push_back(std::move(part));
  }
  const Json& calls = ArrayAt(j, "tool_calls");
  for (size_t i = 0; i < calls.size(); ++i) {
    Result<ToolCall> c = CallFrom(calls[i], "message.tool_calls[" + std::to_string(i) + "]");
    if (!c.ok()) return c.status();
    m.tool_calls.push_back(std::move(*c));
  }
  m.tool_call_id = StringOr(j, "tool_call_id");
  m.name = StringOr(j, "name");
  return m;
}

Result<RunTrace> RunTraceFromJson(const Json& j) {
  if (!j.is_object()) return Bad("trace", "an object");
  RunTrace t;
  t.run_id = StringOr(j, "run_id");
  t.status = StringOr(j, "status");
  t.answer = StringOr(j, "answer");
  t.error = StringOr(j, "error");
  t.final_fields = j.value("final_fields", Json());
  t.model = StringOr(j, "model");
  t.protocol = StringOr(j, "protocol");
  t.started_at = StringOr(j, "started_at");
  t.elapsed_ms = NumberOr(j, "elapsed_ms", 0);
  if (auto u = j.find("usage"); u != j.end()) {
    Result<Usage> usage = UsageFrom(*u, "trace.usage");
    if (!usage.ok()) return usage.status();
    t.usage = *usage;
  }
  t.input = j.value("input", Json::object());
  const Json& steps = ArrayAt(j, "steps");
  for (size_t i = 0; i < steps.size(); ++i) {
    Result<StepRecord> s = StepFrom(steps[i], "trace.steps[" + std::to_string(i) + "]");
    if (!s.ok()) return s.status();
    t.steps.push_back(std::move(*s));
  }
  return t;
}

Json ToJson(const RunState& s) {
  Json j = RunStateHeaderToJson(s);
  Json messages = Json::array();
  for (const Message& m : s.messages) messages.push_back(MessageToStateJson(m));
  j["messages"] = std::move(messages);
  Json steps = Json::array();
  for (const StepRecord& step : s.trace.steps) steps.push_back(StepJson(step));
  j["trace"]["steps"] = std::move(steps);
  return j;
}

Json RunStateHeaderToJson(const RunState& s, bool with_trace_input) {
  Json counts = Json::object();
  for (const auto& [k, v] : s.loop_counts) counts[k] = v;
  Json results = Json::object();
  for (const auto& [i, r] : s.turn_results) results[std::to_string(i)] = RecordJson(r);
  Json approvals = Json::object();
  for (const auto& [id, d] : s.approvals) {
    approvals[id] = Json{{"approved", d.approved}, {"arguments", d.arguments}, {"reason", d.reason}};
    if (!d.reviewer.empty()) approvals[id]["reviewer"] = d.reviewer;
    if (!d.decided_at.empty()) approvals[id]["decided_at"] = d.decided_at;
  }
  Json j{{"version", RunState::kVersion},
         {"phase", PhaseName(s.phase)},
         {"messages", Json::array()},
         {"step", s.step},
         {"tool_calls", s.tool_calls},
         {"usage", UsageJson(s.usage)},
         {"elapsed_ms", s.elapsed_ms},
         {"loop_counts", std::move(counts)},
         {"loop_nudged", s.loop_nudged},
         {"turn", MessageToStateJson(s.turn)},
         {"turn_record", StepJson(s.turn_record)},
         {"turn_results", std::move(results)},
         {"awaiting_approval", s.awaiting_approval},
         {"approvals", std::move(approvals)},
         {"outcome", s.outcome},
         {"answer", s.answer},
         {"final_fields", s.final_fields},
         {"model_error", s.model_error},
         {"limit_status", s.limit_status},
         {"limit_reason", s.limit_reason},
         {"answers_checked", s.answers_checked},
         {"answer_rejections", s.answer_rejections},
         {"answer_accepted", s.answer_accepted},
         {"answer_feedback", s.answer_feedback},
         {"trace", TraceJson(s.trace, /*with_steps=*/false, with_trace_input)}};
  if (!s.app.is_null()) j["app"] = s.app;  // only an app with its own state (cxr, research) writes it
  return j;
}

Json StepRecordToStateJson(const StepRecord& step) { return StepJson(step); }

Result<StepRecord> StepRecordFromStateJson(const Json& json) { return StepFrom(json, "step"); }

Result<RunState> RunStateFromJson(const Json& j) {
  if (!j.is_object()) return Bad("(root)", "an object");
  auto version = Int(j, "version", "", 1, 1'000'000);
  if (!version.ok()) return version.status();
  if (*version != RunState::kVersion) {
    return Status::InvalidArgument("run state: version " + std::to_string(*version) + " is not supported (this build reads " +
                                   std::to_string(RunState::kVersion) + ")");
  }
  RunState s;
  const std::string phase = StringOr(j, "phase");
  if (phase == "in_turn") {
    s.phase = RunState::Phase::kInTurn;
  } else if (phase != "between_steps") {
    return Bad("phase", "\"between_steps\" or \"in_turn\"");
  }
  const Json& messages = ArrayAt(j, "messages");
  for (size_t i = 0; i < messages.size(); ++i) {
    Result<Message> m = MessageFromStateJson(messages[i]);
    if (!m.ok()) return m.status().WithContext("messages[" + std::to_string(i) + "]");
    s.messages.push_back(std::move(*m));
  }
  if (s.messages.empty()) return Bad("messages", "a non-empty array");
  auto step = Int(j, "step", "", 0, 1'000'000), calls = Int(j, "tool_calls", "", 0, INT32_MAX);
  if (!step.ok()) return step.status();
  if (!calls.ok()) return calls.status();
  s.step = static_cast<int>(*step);
  s.tool_calls = static_cast<int>(*calls);
  Result<Usage> usage = UsageFrom(j.value("usage", Json()), "usage");
  if (!usage.ok()) return usage.status();
  s.usage = *usage;
  Result<double> elapsed = Num(j, "elapsed_ms", "");
  if (!elapsed.ok()) return elapsed.status();
  s.elapsed_ms = *elapsed;
  if (auto c = j.find("loop_counts"); c != j.end() && c->is_object()) {
    for (const auto& [k, v] : c->items()) {
      if (std::optional<int64_t> n = ExactInteger(v, 0, INT32_MAX)) s.loop_counts[k] = static_cast<int>(*n);
    }
  }
  for (const Json& n : ArrayAt(j, "loop_nudged")) {
    if (n.is_string()) s.loop_nudged.insert(n.get<std::string>());
  }
  if (s.phase == RunState::Phase::kInTurn) {
    Result<Message> turn = MessageFromStateJson(j.value("turn", Json()));
    if (!turn.ok()) return turn.status().WithContext("turn");
    s.turn = std::move(*turn);
    Result<StepRecord> rec = StepFrom(j.value("turn_record", Json()), "turn_record");
    if (!rec.ok()) return rec.status();
    s.turn_record = std::move(*rec);
    if (auto r = j.find("turn_results"); r != j.end() && r->is_object()) {
      for (const auto& [k, v] : r->items()) {
        size_t index = 0;
        try {
          index = std::stoul(k);
        } catch (...) {
          return Bad("turn_results." + k, "keyed by a call index");
        }
        if (index >= s.turn.tool_calls.size()) return Bad("turn_results." + k, "an index of the turn's calls");
        Result<ToolResultRecord> rec2 = RecordFrom(v, "turn_results." + k);
        if (!rec2.ok()) return rec2.status();
        s.turn_results[index] = std::move(*rec2);
      }
    }
    // Human approval (absent in states written before it existed).
    std::set<std::string> call_ids;
    for (const ToolCall& c : s.turn.tool_calls) call_ids.insert(c.id);
    for (const Json& id : ArrayAt(j, "awaiting_approval")) {
      if (!id.is_string() || !call_ids.count(id.get<std::string>())) {
        return Bad("awaiting_approval", "an array of the turn's call ids");
      }
      s.awaiting_approval.push_back(id.get<std::string>());
    }
    if (auto a = j.find("approvals"); a != j.end() && a->is_object()) {
      for (const auto& [id, d] : a->items()) {
        if (!call_ids.count(id)) return Bad("approvals." + id, "keyed by a call id of the turn");
        if (!d.is_object() || !d.contains("approved") || !d["approved"].is_boolean()) {
          return Bad("approvals." + id, "an object with a boolean \"approved\"");
        }
        s.approvals[id] = ApprovalDecision{.approved = BoolOr(d, "approved", false),
                                           .arguments = StringOr(d, "arguments"),
                                           .reason = StringOr(d, "reason"),
                                           .reviewer = StringOr(d, "reviewer"),
                                           .decided_at = StringOr(d, "decided_at")};
      }
    }
  }
  s.outcome = StringOr(j, "outcome");
  if (!s.outcome.empty() && s.outcome != "answered" && s.outcome != "model_failed" && s.outcome != "limit") {
    return Bad("outcome", "\"\", \"answered\", \"model_failed\" or \"limit\"");
  }
  s.answer = StringOr(j, "answer");
  s.final_fields = j.value("final_fields", Json());
  s.model_error = StringOr(j, "model_error");
  s.limit_status = StringOr(j, "limit_status");
  s.limit_reason = StringOr(j, "limit_reason");
  s.answers_checked = static_cast<int>(std::clamp<int64_t>(IntegerOr(j, "answers_checked", 0), 0, INT32_MAX));
  s.answer_rejections = static_cast<int>(std::clamp<int64_t>(IntegerOr(j, "answer_rejections", 0), 0, INT32_MAX));
  s.answer_accepted = BoolOr(j, "answer_accepted", true);
  s.answer_feedback = StringOr(j, "answer_feedback");
  s.app = j.value("app", Json());  // absent in states written before it existed
  if (!s.app.is_null() && !s.app.is_object()) return Bad("app", "an object or null");
  Result<RunTrace> trace = RunTraceFromJson(j.value("trace", Json::object()));
  if (!trace.ok()) return trace.status();
  s.trace = std::move(*trace);
  return s;
}

}  // namespace medreact
