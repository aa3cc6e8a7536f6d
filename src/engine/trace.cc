// The run trace's JSON form: the contract of ARCHITECTURE.md ("Run trace"),
// written in one place. Contract names first; the extra fields (input, notes,
// raw_text, parse_error, model_error, attempts, kind, timings) follow.
#include "medreact/trace.h"

#include "core/file_io.h"
#include "core/text_util.h"

namespace medreact {
namespace {

OrderedJson AssistantJson(const Message& m) {
  OrderedJson calls = OrderedJson::array();
  for (const auto& c : m.tool_calls) {
    calls.push_back(OrderedJson{{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
  }
  return OrderedJson{{"content", m.content}, {"tool_calls", std::move(calls)}};
}

OrderedJson UsageJson(const Usage& u) {
  return OrderedJson{{"prompt_tokens", u.prompt_tokens},
                     {"completion_tokens", u.completion_tokens},
                     {"total_tokens", u.total_tokens}};
}

OrderedJson StepJson(const StepRecord& s) {
  OrderedJson results = OrderedJson::array();
  for (const auto& r : s.tool_results) {
    OrderedJson jr{{"tool_call_id", r.tool_call_id}, {"name", r.name}, {"ok", r.ok}};
    if (r.ok) {
      jr["content"] = r.content;
    } else {
      jr["error"] = r.error;
    }
    jr["elapsed_ms"] = r.elapsed_ms;
    results.push_back(std::move(jr));
  }
  OrderedJson j{{"index", s.index},
                {"kind", s.kind},
                {"assistant", AssistantJson(s.assistant)},
                {"tool_results", std::move(results)},
                {"usage", UsageJson(s.usage)},
                {"elapsed_ms", s.elapsed_ms},
                {"model_ms", s.model_ms},
                {"attempts", s.attempts}};
  if (!s.finish_reason.empty()) j["finish_reason"] = s.finish_reason;
  if (!s.raw_text.empty()) j["raw_text"] = s.raw_text;
  if (!s.parse_error.empty()) j["parse_error"] = s.parse_error;
  if (!s.model_error.empty()) j["model_error"] = s.model_error;
  if (!s.notes.empty()) j["notes"] = s.notes;
  return j;
}

}  // namespace

OrderedJson ToJson(const RunTrace& trace) {
  OrderedJson steps = OrderedJson::array();
  for (const auto& s : trace.steps) steps.push_back(StepJson(s));
  OrderedJson j{{"status", trace.status},
                {"answer", trace.answer},
                {"steps", std::move(steps)},
                {"model", trace.model},
                {"protocol", trace.protocol},
                {"started_at", trace.started_at},
                {"elapsed_ms", trace.elapsed_ms},
                {"usage", UsageJson(trace.usage)}};
  if (!trace.run_id.empty()) j["run_id"] = trace.run_id;
  if (!trace.error.empty()) j["error"] = trace.error;
  if (!trace.final_fields.is_null()) j["final_fields"] = trace.final_fields;
  j["input"] = trace.input;
  return j;
}

Status WriteTextFile(const std::string& text, const std::string& path) { return WriteFileAtomic(path, text); }

Status CheckTraceShape(const Json& j) {
  if (!j.is_object()) {
    return Status::InvalidArgument(std::string("it is JSON ") + (j.is_array() ? "an array" : j.type_name()) +
                                   ", not a run trace's object");
  }
  struct Field {
    const char* name;
    const char* type;  // as people say it
    bool (Json::*is)() const noexcept;
  };
  static const Field kFields[] = {{"status", "a string", &Json::is_string},
                                  {"model", "a string", &Json::is_string},
                                  {"started_at", "a string", &Json::is_string},
                                  {"elapsed_ms", "a number", &Json::is_number},
                                  {"steps", "an array", &Json::is_array}};
  std::vector<std::string> missing;
  std::vector<std::string> wrong;
  for (const Field& f : kFields) {
    auto it = j.find(f.name);
    if (it == j.end()) {
      missing.push_back(f.name);
    } else if (!((*it).*(f.is))()) {
      wrong.push_back(std::string(f.name) + " is " + (it->is_null() ? "null" : it->type_name()) + ", not " + f.type);
    }
  }
  if (missing.empty() && wrong.empty()) return Status::OK();
  std::string what;
  if (!missing.empty()) what = "missing " + Join(missing, ", ");
  if (!wrong.empty()) what += (what.empty() ? "" : "; ") + Join(wrong, "; ");
  return Status::InvalidArgument(what);
}

Status WriteJsonFile(const Json& value, const std::string& path) {
  return WriteTextFile(DumpJson(value, 2) + "\n", path);
}

Status WriteTraceFile(const RunTrace& trace, const std::string& path) {
  return WriteTextFile(DumpJson(ToJson(trace), 2) + "\n", path);
}

}  // namespace medreact
