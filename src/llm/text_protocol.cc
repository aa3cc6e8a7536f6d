// The text protocol: tool calling written as plain text (seed 001).
//
// A reply is read line by line. A line that starts, after optional markdown
// decoration ("**", "###", "> ", "- "), with a known marker opens a segment:
// THOUGHT(S), TOOL_CALL (also "Tool call", "TOOL CALL"), OBSERVATION, the
// final markers (FINAL_ANSWER, FINAL_ASSESSMENT, ...) and the app's final
// fields (RISK_ADJUSTMENT, CRITICAL_FINDINGS, ...), matched case-insensitively
// with '_', ' ' or '-' between words. A segment's text runs to the next marker
// line. Whichever of TOOL_CALL or a final marker comes first decides the
// reply. Everything from an OBSERVATION line after a TOOL_CALL is the model
// imagining the tool's answer and is dropped. When no marker opens a line,
// markers written mid-line ("... TOOL_CALL: {...}") are split onto their own
// lines and the reply is read again; failing that, a bare JSON call is
// accepted. Tool-call JSON goes through ParseJsonLenient, so fences, prose,
// Python literals, single quotes and truncation are tolerated. What cannot be
// read becomes TextReply::error: an instruction the model can act on.
//
// TextProtocolModel wraps a ChatModel: it sends no tools, appends the tool
// catalogue and format to the system prompt, and rewrites the history into
// plain turns (assistant calls as TOOL_CALL lines, tool results merged into
// one "OBSERVATION (...)" user turn, since many chat templates reject two user
// turns in a row).
#include "medreact/text_protocol.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "medreact/json_repair.h"
#include "core/text_util.h"
#include "llm/context_fit.h"

namespace medreact {
namespace {

enum class MarkerKind { kThought, kToolCall, kObservation, kFinal, kField };

struct MarkerDef {
  MarkerKind kind;
  std::string name;   // canonical spelling, e.g. "TOOL_CALL"
  size_t field = 0;   // kField: index into TextProtocolOptions::final_fields
};

struct Segment {
  MarkerKind kind;
  size_t field;
  std::string_view content;  // after the marker, up to the next marker line
};

struct MarkerScan {
  std::string_view preamble;  // text before the first marker
  std::vector<Segment> segments;
};

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
bool IsOneOf(char c, std::string_view set) { return set.find(c) != std::string_view::npos; }

std::vector<MarkerDef> MarkerDefs(const TextProtocolOptions& options) {
  std::vector<MarkerDef> defs = {{MarkerKind::kThought, "THOUGHT"},
                                 {MarkerKind::kToolCall, "TOOL_CALL"},
                                 {MarkerKind::kObservation, "OBSERVATION"}};
  for (const std::string& m : options.final_markers) defs.push_back({MarkerKind::kFinal, m});
  for (size_t i = 0; i < options.final_fields.size(); ++i) {
    defs.push_back({MarkerKind::kField, options.final_fields[i].marker, i});
  }
  // Longest first, so FINAL_ANSWER_DETAILS wins over FINAL_ANSWER.
  std::stable_sort(defs.begin(), defs.end(), [](const MarkerDef& a, const MarkerDef& b) {
    return a.name.size() > b.name.size();
  });
  return defs;
}

// Matches `name` at s[i] case-insensitively; '_' in the name matches '_', ' ',
// '-' or nothing. Returns the index after the match, or npos.
size_t MatchName(std::string_view s, size_t i, std::string_view name) {
  for (char want : name) {
    if (want == '_') {
      if (i < s.size() && (s[i] == '_' || s[i] == ' ' || s[i] == '-')) ++i;
    } else if (i < s.size() && Lower(s[i]) == Lower(want)) {
      ++i;
    } else {
      return std::string_view::npos;
    }
  }
  return i;
}

struct LineMatch {
  const MarkerDef* def;
  size_t content;  // offset in the line where the segment's text begins
};

// Recognises "**TOOL_CALL:**", "### THOUGHT", "Tool call: {...}", "> FINAL ANSWER:".
std::optional<LineMatch> MatchMarkerLine(std::string_view line,
                                         const std::vector<MarkerDef>& defs) {
  size_t start = 0;
  while (start < line.size() && IsOneOf(line[start], " \t\r#*_>-")) ++start;
  for (const MarkerDef& def : defs) {
    size_t end = MatchName(line, start, def.name);
    if (end == std::string_view::npos) continue;
    if (def.kind == MarkerKind::kThought && end < line.size() && Lower(line[end]) == 's') ++end;
    if (end < line.size() && (IsAlnum(line[end]) || line[end] == '_')) continue;
    size_t k = end;
    while (k < line.size() && IsOneOf(line[k], "*_ \t\r")) ++k;
    if (k < line.size() && line[k] == ':') {
      ++k;
      while (k < line.size() && IsOneOf(line[k], "*_")) ++k;
      return LineMatch{&def, k};
    }
    if (k == line.size() || def.kind == MarkerKind::kObservation) return LineMatch{&def, k};
    if (def.kind == MarkerKind::kToolCall && IsOneOf(line[k], "{[`")) return LineMatch{&def, k};
  }
  return std::nullopt;
}

// Splits text into segments at marker lines; stops at an OBSERVATION line
// that follows a TOOL_CALL (the model imagining the tool's answer).
MarkerScan ScanMarkers(std::string_view text, const std::vector<MarkerDef>& defs) {
  MarkerScan scan;
  bool open = false;  // a segment is collecting text
  size_t open_begin = 0;
  bool seen_call = false;
  size_t cut = text.size();
  auto close_open = [&](size_t at) {
    if (!open) {
      scan.preamble = text.substr(0, at);
    } else {
      scan.segments.back().content = text.substr(open_begin, at - open_begin);
    }
  };
  for (size_t line_start = 0; line_start < text.size();) {
    size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    const std::optional<LineMatch> m =
        MatchMarkerLine(text.substr(line_start, line_end - line_start), defs);
    if (m && !(m->def->kind == MarkerKind::kObservation && !seen_call)) {
      if (m->def->kind == MarkerKind::kObservation) {
        cut = line_start;
        break;
      }
      close_open(line_start);
      scan.segments.push_back(Segment{m->def->kind, m->def->field, {}});
      open = true;
      open_begin = line_start + m->content;
      seen_call = seen_call || m->def->kind == MarkerKind::kToolCall;
    }
    line_start = line_end + 1;
  }
  close_open(cut);
  return scan;
}

bool HasDecision(const MarkerScan& scan) {
  return std::any_of(scan.segments.begin(), scan.segments.end(), [](const Segment& s) {
    return s.kind == MarkerKind::kToolCall || s.kind == MarkerKind::kFinal;
  });
}

// Puts markers written mid-line ("I need labs. TOOL_CALL: {...}") on their own line.
std::string SplitInlineMarkers(std::string_view text, const std::vector<MarkerDef>& defs) {
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size(); ++i) {
    if (i > 0 && !IsAlnum(text[i - 1]) && text[i - 1] != '_') {
      for (const MarkerDef& def : defs) {
        const size_t end = MatchName(text, i, def.name);
        if (end != std::string_view::npos && end < text.size() && text[end] == ':') {
          out += '\n';
          break;
        }
      }
    }
    out += text[i];
  }
  return out;
}

std::string FormatReminder(const TextProtocolOptions& options) {
  const std::string final_marker =
      options.final_markers.empty() ? "FINAL_ANSWER" : options.final_markers.front();
  std::string text =
      "Reply in exactly one of these two formats.\n"
      "To call a tool:\n"
      "THOUGHT: <your reasoning>\n"
      "TOOL_CALL: {\"tool\": \"<tool name>\", \"arguments\": {<argument>: <value>}}\n"
      "To finish:\n"
      "THOUGHT: <your reasoning>\n" + final_marker + ": <your answer>\n";
  for (const FinalField& f : options.final_fields) {
    if (f.taught) text += f.marker + ": <" + f.description + ">\n";
  }
  text += "Write JSON with double quotes, and do not write OBSERVATION yourself.";
  return text;
}

std::string Quoted(std::string_view text) { return "\"" + Preview(TrimView(text), 100) + "\""; }

// Appends the call(s) a JSON value describes; the message says what is wrong.
Status AppendCalls(const Json& value, std::vector<ToolCall>* calls);

Status AppendCall(const Json& value, std::vector<ToolCall>* calls) {
  if (!value.is_object()) return Status::InvalidArgument("a tool call must be a JSON object");
  const Json* src = &value;
  for (const char* wrapper : {"function", "tool", "tool_call"}) {
    auto it = value.find(wrapper);
    if (it != value.end() && it->is_object()) src = &*it;
  }
  std::string name;
  static constexpr const char* kNameKeys[] = {"tool", "name", "tool_name", "function"};
  for (const Json* obj : {src, &value}) {
    for (const char* key : kNameKeys) {
      auto it = obj->find(key);
      if (name.empty() && it != obj->end() && it->is_string()) {
        name = std::string(TrimView(it->get<std::string>()));
      }
    }
  }
  if (name.empty()) return Status::InvalidArgument("it names no tool (expected a \"tool\" field)");
  static constexpr const char* kArgKeys[] = {"arguments", "parameters", "args", "input"};
  const Json* args = nullptr;
  for (const char* key : kArgKeys) {
    auto it = src->find(key);
    if (args == nullptr && it != src->end()) args = &*it;
  }
  Json object = Json::object();
  if (args == nullptr) {
    // Flat spelling {"tool": "x", "category": "Coag"}: the other keys are the arguments.
    for (auto it = src->begin(); it != src->end(); ++it) {
      const bool is_name_key = std::any_of(std::begin(kNameKeys), std::end(kNameKeys),
                                           [&](const char* k) { return it.key() == k; });
      if (!is_name_key && it.key() != "id" && !(it.key() == "type" && *it == "function")) {
        object[it.key()] = *it;
      }
    }
  } else if (args->is_object()) {
    object = *args;
  } else if (args->is_string() && !TrimView(args->get<std::string>()).empty()) {
    Result<Json> inner = ParseJsonLenient(args->get<std::string>());
    if (!inner.ok() || !inner->is_object()) {
      return Status::InvalidArgument("the \"arguments\" string of " + name +
                                     " is not a JSON object");
    }
    object = std::move(*inner);
  } else if (!args->is_null() && !args->is_string()) {
    return Status::InvalidArgument("the \"arguments\" of " + name + " must be a JSON object");
  }
  calls->push_back(ToolCall{MintToolCallId(), std::move(name), DumpJson(object)});
  return Status::OK();
}

Status AppendCalls(const Json& value, std::vector<ToolCall>* calls) {
  if (!value.is_array()) return AppendCall(value, calls);
  if (value.empty()) return Status::InvalidArgument("the list of calls is empty");
  for (const Json& item : value) {
    if (Status s = AppendCall(item, calls); !s.ok()) return s;
  }
  return Status::OK();
}

void ReadToolCalls(const MarkerScan& scan, const TextProtocolOptions& options, TextReply* reply) {
  for (const Segment& seg : scan.segments) {
    if (seg.kind == MarkerKind::kFinal) break;  // text after the calls is ignored
    if (seg.kind != MarkerKind::kToolCall) continue;
    if (TrimView(seg.content).empty()) {
      reply->error = "Your TOOL_CALL line had no JSON after it. " + FormatReminder(options);
      break;
    }
    Result<Json> json = ParseJsonLenient(seg.content);
    if (!json.ok()) {
      reply->error = "The JSON after TOOL_CALL could not be read: " + Quoted(seg.content) +
                     ". Write the call on one line as {\"tool\": \"<tool name>\", \"arguments\": "
                     "{...}} with double-quoted keys and strings. " + FormatReminder(options);
      break;
    }
    if (Status s = AppendCalls(*json, &reply->tool_calls); !s.ok()) {
      reply->error = "The TOOL_CALL " + Quoted(seg.content) + " is not a usable call: " +
                     s.message() + ". " + FormatReminder(options);
      break;
    }
  }
  if (!reply->error.empty()) reply->tool_calls.clear();
}

void ReadFinal(const MarkerScan& scan, const Segment& final_seg, const TextProtocolOptions& options,
               TextReply* reply) {
  reply->final_answer = std::string(TrimView(final_seg.content));
  if (reply->final_answer.empty()) {
    reply->error = "Your final answer was empty: write the answer after the colon. " +
                   FormatReminder(options);
    return;
  }
  reply->is_final = true;
  for (const Segment& seg : scan.segments) {
    if (seg.kind != MarkerKind::kField) continue;
    const FinalField& field = options.final_fields[seg.field];
    if (reply->final_fields.contains(field.marker)) continue;  // the first one wins
    reply->final_fields[field.marker] =
        field.json ? ParseListText(seg.content) : Json(std::string(TrimChars(seg.content, "*`")));
  }
}

}  // namespace

TextReply ParseTextReply(std::string_view text, const TextProtocolOptions& options) {
  TextReply reply;
  if (TrimView(text).empty()) {
    reply.error = "Your reply was empty. " + FormatReminder(options);
    return reply;
  }
  const std::vector<MarkerDef> defs = MarkerDefs(options);
  MarkerScan scan = ScanMarkers(text, defs);
  std::string split;  // owns the text of `scan` when markers were written mid-line
  if (!HasDecision(scan)) {
    split = SplitInlineMarkers(text, defs);
    if (MarkerScan again = ScanMarkers(split, defs); HasDecision(again)) scan = std::move(again);
  }

  for (const Segment& seg : scan.segments) {
    if (seg.kind != MarkerKind::kThought || TrimView(seg.content).empty()) continue;
    if (!reply.thought.empty()) reply.thought += "\n";
    reply.thought += TrimView(seg.content);
  }
  if (reply.thought.empty()) reply.thought = std::string(TrimView(scan.preamble));

  auto decision = std::find_if(scan.segments.begin(), scan.segments.end(), [](const Segment& s) {
    return s.kind == MarkerKind::kToolCall || s.kind == MarkerKind::kFinal;
  });
  if (decision == scan.segments.end()) {
    // No marker at all: accept a bare JSON call ({"tool": ...}), else explain the format.
    if (Result<Json> json = ParseJsonLenient(text); json.ok()) {
      std::vector<ToolCall> calls;
      if (AppendCalls(*json, &calls).ok()) {
        reply.tool_calls = std::move(calls);
        return reply;
      }
    }
    const std::string final_marker =
        options.final_markers.empty() ? "FINAL_ANSWER" : options.final_markers.front();
    reply.error = "Your reply had neither a TOOL_CALL line nor a " + final_marker +
                  " line (it began: " + Quoted(text) + "). " + FormatReminder(options);
    return reply;
  }
  if (decision->kind == MarkerKind::kToolCall) {
    ReadToolCalls(scan, options, &reply);
  } else {
    ReadFinal(scan, *decision, options, &reply);
  }
  return reply;
}

std::string RenderTextProtocolInstructions(const std::vector<ToolSpec>& tools,
                                           const TextProtocolOptions& options) {
  std::string out = "## Available tools\n\n";
  if (tools.empty()) out += "(none)\n\n";
  for (const ToolSpec& tool : tools) {
    out += "### " + tool.name + "\n" + tool.description + "\n";
    out += "Parameters (JSON Schema): " + DumpJson(tool.parameters) + "\n";
    std::string required;
    auto it = tool.parameters.find("required");
    if (it != tool.parameters.end() && it->is_array()) {
      for (const Json& r : *it) {
        if (!r.is_string()) continue;
        required += (required.empty() ? "" : ", ") + r.get<std::string>();
      }
    }
    out += "Required arguments: " + (required.empty() ? std::string("none") : required) + "\n\n";
  }
  const std::string final_marker =
      options.final_markers.empty() ? "FINAL_ANSWER" : options.final_markers.front();
  out +=
      "## Response format\n\n"
      "Reply in exactly one of these two formats.\n\n"
      "### Option 1: call a tool\n"
      "THOUGHT: <your reasoning about what to check next>\n"
      "TOOL_CALL: {\"tool\": \"<tool name>\", \"arguments\": {\"<argument>\": <value>}}\n\n"
      "### Option 2: final answer\n"
      "THOUGHT: <your final reasoning>\n" + final_marker + ": <your answer>\n";
  for (const FinalField& f : options.final_fields) {
    if (f.taught) out += f.marker + ": <" + f.description + ">" + (f.json ? " (JSON)" : "") + "\n";
  }
  out +=
      "\nRules:\n"
      "- One tool call per TOOL_CALL line; to call several tools, write several TOOL_CALL lines.\n"
      "- Never write OBSERVATION yourself: stop after your TOOL_CALL lines and the tool results "
      "will be sent to you as OBSERVATION.\n"
      "- Write JSON with double quotes, true/false/null, and no comments.\n";
  return out;
}

namespace {

// "TOOL_CALL: {...}" lines for calls that have no raw text.
std::string RenderCallLines(const std::vector<ToolCall>& calls) {
  std::string out;
  for (const ToolCall& call : calls) {
    Result<Json> args = ParseJsonLenient(call.arguments);
    const Json object = args.ok() && args->is_object() ? *args : Json::object();
    if (!out.empty()) out += "\n";
    out += "TOOL_CALL: {\"tool\": " + DumpJson(Json(call.name)) + ", \"arguments\": " +
           DumpJson(object) + "}";
  }
  return out;
}

class TextProtocolModel : public ChatModel, public ContextWindowSource {
 public:
  TextProtocolModel(std::unique_ptr<ChatModel> inner, TextProtocolOptions options)
      : inner_(std::move(inner)), options_(std::move(options)), defs_(MarkerDefs(options_)) {}

  Result<ModelResponse> Complete(const ModelRequest& request,
                                 const ModelCallContext& ctx) override {
    // With a finishing tool, the final block is its arguments (FinalBlockOptions).
    const ToolSpec* answer_tool = request.answer_tool.get();
    const TextProtocolOptions derived = answer_tool ? FinalBlockOptions(*answer_tool) : TextProtocolOptions{};
    const TextProtocolOptions& options = answer_tool ? derived : options_;
    const std::vector<MarkerDef> defs = answer_tool ? MarkerDefs(derived) : std::vector<MarkerDef>{};
    ModelRequest plain;
    plain.messages = RewriteHistory(request, options, answer_tool ? defs : defs_);
    plain.temperature = request.temperature;
    plain.max_tokens = request.max_tokens;
    plain.stream = request.stream;
    // response_format is dropped: the reply must be the protocol's text
    // (markers, TOOL_CALL lines), which a JSON-only constraint would forbid.
    Result<ModelResponse> inner = inner_->Complete(plain, ctx);
    if (!inner.ok()) return inner.status();
    return Interpret(std::move(inner).value(), options, answer_tool);
  }

  std::string name() const override { return inner_->name(); }
  std::string protocol() const override { return "text"; }
  int64_t ContextWindow(const ModelCallContext& ctx) override { return ModelContextWindow(*inner_, ctx); }
  ModelCapabilities capabilities() const override {
    ModelCapabilities caps = inner_->capabilities();
    caps.tool_calling = ToolCalling::kTextProtocol;
    return caps;
  }

 private:
  std::vector<Message> RewriteHistory(const ModelRequest& request, const TextProtocolOptions& options,
                                      const std::vector<MarkerDef>& defs) const {
    // The finishing tool is taught as the final block, not as a tool to call.
    std::vector<ToolSpec> catalogue;
    for (const ToolSpec& t : request.tools) {
      if (!request.answer_tool || t.name != request.answer_tool->name) catalogue.push_back(t);
    }
    const std::string instructions = RenderTextProtocolInstructions(catalogue, options);
    std::vector<Message> out;
    std::map<std::string, std::string> call_names;  // tool_call_id -> tool name
    bool system_done = false;
    bool merging = false;  // out.back() is a user turn built from tool results
    for (const Message& m : request.messages) {
      if (m.role == Role::kSystem) {
        out.push_back(m);
        if (!system_done) out.back().content += (m.content.empty() ? "" : "\n\n") + instructions;
        system_done = true;
      } else if (m.role == Role::kAssistant) {
        for (const ToolCall& c : m.tool_calls) call_names[c.id] = c.name;
        out.push_back(AssistantAsText(m, defs));
      } else if (m.role == Role::kTool) {
        std::string tool = m.name;
        if (tool.empty()) {
          tool = call_names.count(m.tool_call_id) ? call_names[m.tool_call_id] : "tool";
        }
        const std::string call = m.tool_call_id.empty() ? "" : ", call " + m.tool_call_id;
        std::string block = "OBSERVATION (" + tool + call + "):\n" + m.content;
        if (merging) {
          out.back().content += "\n\n" + block;
        } else {
          out.push_back(Message::User(std::move(block)));
        }
        merging = true;
        continue;
      } else if (merging) {  // a user turn right after tool results joins them
        out.back().content += "\n\n" + m.content;
        out.back().images.insert(out.back().images.end(), m.images.begin(), m.images.end());
      } else {
        out.push_back(m);
      }
      merging = false;
    }
    if (!system_done) out.insert(out.begin(), Message::System(instructions));
    return out;
  }

  // The assistant's turn as the text it wrote (minus any imagined
  // OBSERVATION), or as TOOL_CALL lines when only structured calls exist. A
  // final block read as a call of the finishing tool stays as written.
  static Message AssistantAsText(const Message& m, const std::vector<MarkerDef>& defs) {
    std::string text = m.content;
    if (!m.has_tool_calls()) return Message::Assistant(std::move(text));
    const MarkerScan scan = ScanMarkers(text, defs);
    const bool has_call_line =
        std::any_of(scan.segments.begin(), scan.segments.end(),
                    [](const Segment& s) { return s.kind == MarkerKind::kToolCall; });
    const bool has_final =
        std::any_of(scan.segments.begin(), scan.segments.end(),
                    [](const Segment& s) { return s.kind == MarkerKind::kFinal; });
    if (has_final && !has_call_line) return Message::Assistant(std::move(text));
    if (has_call_line) {  // cut after the last segment: drops an imagined OBSERVATION
      const std::string_view last = scan.segments.back().content;
      text.resize(static_cast<size_t>(last.data() + last.size() - text.data()));
    } else if (AsciiLower(text).find("tool_call") == std::string::npos) {
      text = std::string(TrimView(text));
      text += (text.empty() ? "" : "\n") + RenderCallLines(m.tool_calls);
    }
    return Message::Assistant(std::move(text));
  }

  static ModelResponse Interpret(ModelResponse in, const TextProtocolOptions& options, const ToolSpec* answer_tool) {
    ModelResponse out;
    out.raw_text = in.message.content;
    out.usage = in.usage;
    out.finish_reason = in.finish_reason;
    out.model = in.model;
    out.attempts = in.attempts;
    if (in.message.has_tool_calls()) {  // the server parsed calls natively after all
      for (ToolCall& c : in.message.tool_calls) {
        if (c.id.empty()) c.id = MintToolCallId();
      }
      out.message = Message::Assistant(in.message.content, std::move(in.message.tool_calls));
      return out;
    }
    TextReply reply = ParseTextReply(out.raw_text, options);
    if (!reply.error.empty()) {
      out.message = Message::Assistant(out.raw_text);
      out.parse_error = std::move(reply.error);
    } else if (reply.is_final && answer_tool) {
      // The final block is a call of the finishing tool, validated by the agent like any call.
      Json args = FinalBlockArguments(reply, *answer_tool, options);
      out.final_fields = args;
      out.message = Message::Assistant(out.raw_text, {ToolCall{MintToolCallId(), answer_tool->name, DumpJson(args)}});
    } else if (reply.is_final) {
      out.message = Message::Assistant(std::move(reply.final_answer));
      out.final_fields = std::move(reply.final_fields);
    } else {
      out.message = Message::Assistant(out.raw_text, std::move(reply.tool_calls));
    }
    return out;
  }

  std::unique_ptr<ChatModel> inner_;
  TextProtocolOptions options_;
  std::vector<MarkerDef> defs_;
};

}  // namespace

std::unique_ptr<ChatModel> MakeTextProtocolModel(std::unique_ptr<ChatModel> inner,
                                                 TextProtocolOptions options) {
  return std::make_unique<TextProtocolModel>(std::move(inner), std::move(options));
}

}  // namespace medreact
