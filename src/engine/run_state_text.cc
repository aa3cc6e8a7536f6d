// A run state's parts and an event as JSON text, written straight into a
// string (no nlohmann tree): the run store writes a checkpoint header, a
// message or step row and an event's line this way at every checkpoint. Building the tree and dumping it
// was most of a stored run's cost (issue 22, callgrind of BM_WarmRunStored:
// RunStateHeaderToJson 20 %, StepJson 10 %, DumpJson 17 % of the process).
//
// The text parses to the same JSON as the tree functions in run_state.cc
// (RunStateHeaderToJson, StepRecordToStateJson, MessageToStateJson); the
// keys are in another order, which a reader never sees. run_state_test.cc
// checks both agree, field for field, on states with every part set. A
// field added to the tree functions must be added here too (the test fails
// until it is).
#include <charconv>
#include <cmath>
#include <string_view>

#include "medreact/events.h"
#include "medreact/run_state.h"

namespace medreact {
namespace {

// The length of the valid UTF-8 sequence at s[i], 0 when it is not one (as
// nlohmann's decoder: no overlong forms, no surrogates, nothing past U+10FFFF).
size_t Utf8Length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  const auto cont = [&](size_t k) { return k < s.size() && (b(k) & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(i + 1) || !cont(i + 2)) return 0;
    if (c == 0xE0 && b(i + 1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(i + 1) >= 0xA0) return 0;  // a surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(i + 1) || !cont(i + 2) || !cont(i + 3)) return 0;
    if (c == 0xF0 && b(i + 1) < 0x90) return 0;   // overlong
    if (c == 0xF4 && b(i + 1) >= 0x90) return 0;  // past U+10FFFF
    return 4;
  }
  return 0;
}

// A JSON string, escaped as nlohmann's dump escapes it (ensure_ascii off):
// the runs of characters that need no escape are appended whole (a
// character at a time was most of this file's cost). Invalid UTF-8 goes
// through nlohmann's dump, which puts U+FFFD in its place (DumpJson's error
// handler), so the text reads back as the tree's does.
void AppendString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  const size_t start = out.size();
  out.reserve(start + s.size() + 2);
  out += '"';
  size_t run = 0;  // the first character not appended yet
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      const size_t n = Utf8Length(s, i);
      if (n == 0) {
        out.resize(start);
        out += DumpJson(Json(std::string(s)));
        return;
      }
      i += n;
      continue;
    }
    out.append(s.data() + run, i - run);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: {
        const char u[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        out.append(u, sizeof u);
      }
    }
    run = ++i;
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

void AppendInt(std::string& out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// As nlohmann writes a double: the shortest text that reads back the same,
// with ".0" when it would read as an integer; null when not finite.
void AppendDouble(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  const std::string_view text(buf, static_cast<size_t>(r.ptr - buf));
  out += text;
  if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
}

// One object's fields, commas between them.
class Object {
 public:
  explicit Object(std::string& out) : out_(out) { out_ += '{'; }
  std::string& Key(std::string_view key) {
    if (!first_) out_ += ',';
    first_ = false;
    AppendString(out_, key);
    out_ += ':';
    return out_;
  }
  void Str(std::string_view key, std::string_view v) { AppendString(Key(key), v); }
  void Int(std::string_view key, int64_t v) { AppendInt(Key(key), v); }
  void Num(std::string_view key, double v) { AppendDouble(Key(key), v); }
  void Bool(std::string_view key, bool v) { Key(key) += v ? "true" : "false"; }
  void Value(std::string_view key, const Json& v) { Key(key) += DumpJson(v); }
  void End() { out_ += '}'; }

 private:
  std::string& out_;
  bool first_ = true;
};

template <typename Range>
void AppendStrings(std::string& out, const Range& values) {
  out += '[';
  bool first = true;
  for (const std::string& v : values) {
    if (!first) out += ',';
    first = false;
    AppendString(out, v);
  }
  out += ']';
}

void AppendUsage(std::string& out, const Usage& u) {
  Object o(out);
  o.Int("prompt_tokens", u.prompt_tokens);
  o.Int("completion_tokens", u.completion_tokens);
  o.Int("total_tokens", u.total_tokens);
  o.End();
}

void AppendMessage(std::string& out, const Message& m) {
  Object o(out);
  o.Str("role", RoleName(m.role));
  o.Str("content", m.content);
  if (!m.images.empty()) {
    std::string& a = o.Key("images");
    a += '[';
    for (size_t i = 0; i < m.images.size(); ++i) {
      if (i) a += ',';
      const ContentPart& p = m.images[i];
      Object part(a);
      if (p.kind == ContentPart::Kind::kImage) {
        part.Str("image_url", p.image_url);
      } else {
        part.Str("text", p.text);
      }
      part.End();
    }
    a += ']';
  }
  if (!m.tool_calls.empty()) {
    std::string& a = o.Key("tool_calls");
    a += '[';
    for (size_t i = 0; i < m.tool_calls.size(); ++i) {
      if (i) a += ',';
      const ToolCall& c = m.tool_calls[i];
      Object call(a);
      call.Str("id", c.id);
      call.Str("name", c.name);
      call.Str("arguments", c.arguments);
      call.End();
    }
    a += ']';
  }
  if (!m.tool_call_id.empty()) o.Str("tool_call_id", m.tool_call_id);
  if (!m.name.empty()) o.Str("name", m.name);
  o.End();
}

void AppendRecord(std::string& out, const ToolResultRecord& r) {
  Object o(out);
  o.Str("tool_call_id", r.tool_call_id);
  o.Str("name", r.name);
  o.Bool("ok", r.ok);
  o.Str("content", r.content);
  o.Str("error", r.error);
  o.Num("elapsed_ms", r.elapsed_ms);
  o.End();
}

void AppendStep(std::string& out, const StepRecord& s) {
  Object o(out);
  o.Int("index", s.index);
  o.Str("kind", s.kind);
  AppendMessage(o.Key("assistant"), s.assistant);
  o.Str("raw_text", s.raw_text);
  o.Str("finish_reason", s.finish_reason);
  o.Str("parse_error", s.parse_error);
  o.Str("model_error", s.model_error);
  std::string& results = o.Key("tool_results");
  results += '[';
  for (size_t i = 0; i < s.tool_results.size(); ++i) {
    if (i) results += ',';
    AppendRecord(results, s.tool_results[i]);
  }
  results += ']';
  AppendStrings(o.Key("notes"), s.notes);
  AppendUsage(o.Key("usage"), s.usage);
  o.Int("attempts", s.attempts);
  o.Num("model_ms", s.model_ms);
  o.Num("elapsed_ms", s.elapsed_ms);
  o.End();
}

// The trace without its steps (an empty array), as TraceJson(t, false, with_input).
void AppendTraceHeader(std::string& out, const RunTrace& t, bool with_input) {
  Object o(out);
  o.Str("run_id", t.run_id);
  o.Str("status", t.status);
  o.Str("answer", t.answer);
  o.Str("error", t.error);
  o.Value("final_fields", t.final_fields);
  o.Str("model", t.model);
  o.Str("protocol", t.protocol);
  o.Str("started_at", t.started_at);
  o.Num("elapsed_ms", t.elapsed_ms);
  AppendUsage(o.Key("usage"), t.usage);
  if (with_input) {
    o.Value("input", t.input);
  } else {
    o.Key("input") += "{}";
  }
  o.Key("steps") += "[]";
  o.End();
}

}  // namespace

std::string EventJsonLine(const Event& e) {
  // The keys in the order nlohmann's std::map keeps them, so the bytes are
  // DumpJson(ToJson(e))'s; the double and `data` through nlohmann itself.
  std::string out;
  out.reserve(96 + e.text.size());
  Object o(out);
  if (!e.data.is_null()) o.Value("data", e.data);
  if (e.elapsed_ms > 0) o.Value("elapsed_ms", Json(e.elapsed_ms));
  if (e.type == EventType::kToolFinished) o.Bool("ok", e.ok);
  o.Int("step", e.step);
  if (!e.text.empty()) o.Str("text", e.text);
  if (!e.tool_call_id.empty()) o.Str("tool_call_id", e.tool_call_id);
  if (!e.tool_name.empty()) o.Str("tool_name", e.tool_name);
  o.Str("type", EventTypeName(e.type));
  o.End();
  return out;
}

std::string MessageToStateJsonText(const Message& message) {
  std::string out;
  out.reserve(64 + message.content.size());
  AppendMessage(out, message);
  return out;
}

std::string StepRecordToStateJsonText(const StepRecord& step) {
  std::string out;
  out.reserve(512 + step.assistant.content.size() + step.raw_text.size());
  AppendStep(out, step);
  return out;
}

std::string RunStateHeaderToJsonText(const RunState& s, bool with_trace_input) {
  std::string out;
  out.reserve(1024);
  Object o(out);
  o.Int("version", RunState::kVersion);
  o.Str("phase", s.phase == RunState::Phase::kInTurn ? "in_turn" : "between_steps");
  o.Key("messages") += "[]";
  o.Int("step", s.step);
  o.Int("tool_calls", s.tool_calls);
  AppendUsage(o.Key("usage"), s.usage);
  o.Num("elapsed_ms", s.elapsed_ms);
  {
    Object counts(o.Key("loop_counts"));
    for (const auto& [k, v] : s.loop_counts) counts.Int(k, v);
    counts.End();
  }
  AppendStrings(o.Key("loop_nudged"), s.loop_nudged);
  AppendMessage(o.Key("turn"), s.turn);
  AppendStep(o.Key("turn_record"), s.turn_record);
  {
    Object results(o.Key("turn_results"));
    for (const auto& [i, r] : s.turn_results) AppendRecord(results.Key(std::to_string(i)), r);
    results.End();
  }
  AppendStrings(o.Key("awaiting_approval"), s.awaiting_approval);
  {
    Object approvals(o.Key("approvals"));
    for (const auto& [id, d] : s.approvals) {
      Object a(approvals.Key(id));
      a.Bool("approved", d.approved);
      a.Str("arguments", d.arguments);
      a.Str("reason", d.reason);
      if (!d.reviewer.empty()) a.Str("reviewer", d.reviewer);
      if (!d.decided_at.empty()) a.Str("decided_at", d.decided_at);
      a.End();
    }
    approvals.End();
  }
  o.Str("outcome", s.outcome);
  o.Str("answer", s.answer);
  o.Value("final_fields", s.final_fields);
  o.Str("model_error", s.model_error);
  o.Str("limit_status", s.limit_status);
  o.Str("limit_reason", s.limit_reason);
  o.Int("answers_checked", s.answers_checked);
  o.Int("answer_rejections", s.answer_rejections);
  o.Bool("answer_accepted", s.answer_accepted);
  o.Str("answer_feedback", s.answer_feedback);
  if (!s.app.is_null()) o.Value("app", s.app);  // only an app with its own state (cxr, research) writes it
  AppendTraceHeader(o.Key("trace"), s.trace, with_trace_input);
  o.End();
  return out;
}

}  // namespace medreact
