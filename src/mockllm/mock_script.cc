// ParseMockScript: strict validation of the mock server's replay script.
//
// The parser walks the JSON by hand rather than through a schema so that each
// error names the exact place: "responses[3].message.tool_calls[0].arguments:
// expected a string or an object, got array". Every entry is classified by
// its marker field (message, chunks, raw_body, status, or a lone hang_ms);
// two markers in one entry, a field that does not belong to the entry's kind,
// and any unknown field are errors. "comment" is accepted and ignored at the
// top level and in entries so that scripts can explain themselves. A route's
// entries ("routes") are the plain kinds only, plus {"json": VALUE}.
#include "mockllm/mock_script.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <set>
#include <string_view>

#include "mockllm/mock_response.h"
#include "core/text_util.h"

namespace medreact::mockllm {
namespace {

constexpr int kMaxDelayMs = 3'600'000;  // one hour: anything longer is a typo

Status FieldError(const std::string& path, const std::string& what) {
  return Status::InvalidArgument(path + ": " + what);
}

Status TypeError(const std::string& path, const std::string& expected, const Json& got) {
  return FieldError(path, "expected " + expected + ", got " + got.type_name());
}

Status ReadBool(const Json& obj, const char* key, const std::string& path, bool* out) {
  if (!obj.contains(key)) return Status::OK();
  const Json& v = obj.at(key);
  if (!v.is_boolean()) return TypeError(path + "." + key, "a boolean", v);
  *out = v.get<bool>();
  return Status::OK();
}

Status ReadInt(const Json& obj, const char* key, const std::string& path, int64_t min, int64_t max,
               int64_t* out) {
  if (!obj.contains(key)) return Status::OK();
  const Json& v = obj.at(key);
  if (!v.is_number_integer()) return TypeError(path + "." + key, "an integer", v);
  // Unsigned values (JSON's non-negative integers) are compared as such, so a
  // huge one is not wrapped; both bounds apply to them too.
  if (v.is_number_unsigned() ? (v.get<uint64_t>() > static_cast<uint64_t>(max) ||
                                (min > 0 && v.get<uint64_t>() < static_cast<uint64_t>(min)))
                             : (v.get<int64_t>() < min || v.get<int64_t>() > max)) {
    return FieldError(path + "." + key, "must be between " + std::to_string(min) + " and " +
                                            std::to_string(max) + ", got " + v.dump());
  }
  *out = v.get<int64_t>();
  return Status::OK();
}

Status ReadMs(const Json& obj, const char* key, const std::string& path, int* out) {
  int64_t value = *out;
  Status s = ReadInt(obj, key, path, 0, kMaxDelayMs, &value);
  *out = static_cast<int>(value);
  return s;
}

Status ReadString(const Json& obj, const char* key, const std::string& path, std::string* out) {
  if (!obj.contains(key)) return Status::OK();
  const Json& v = obj.at(key);
  if (!v.is_string()) return TypeError(path + "." + key, "a string", v);
  *out = v.get<std::string>();
  return Status::OK();
}

// Fails on the first key of obj that is not in allowed.
Status CheckKeys(const Json& obj, const std::string& path, const std::set<std::string_view>& allowed,
                 std::string_view kind) {
  for (const auto& [key, unused] : obj.items()) {
    if (allowed.count(key)) continue;
    return FieldError(path + "." + key, kind.empty() ? std::string("unknown field")
                                                     : "unknown field in " + std::string(kind));
  }
  return Status::OK();
}

bool HasNewline(std::string_view s) { return s.find_first_of("\r\n") != std::string_view::npos; }

Status ParseHeaders(const Json& entry, const std::string& path, MockEntry* out) {
  if (!entry.contains("headers")) return Status::OK();
  const Json& headers = entry.at("headers");
  if (!headers.is_object()) return TypeError(path + ".headers", "an object", headers);
  for (const auto& [name, value] : headers.items()) {
    const std::string field = path + ".headers." + name;
    std::string text;
    if (value.is_string()) {
      text = value.get<std::string>();
    } else if (value.is_number()) {
      text = value.dump();
    } else {
      return TypeError(field, "a string or a number", value);
    }
    if (name.empty() || HasNewline(name) || HasNewline(text)) {
      return FieldError(field, "header names must be non-empty and neither may contain a newline");
    }
    out->headers.emplace_back(name, text);
  }
  return Status::OK();
}

Status ParseToolCall(const Json& call, const std::string& path, MockToolCall* out) {
  if (!call.is_object()) return TypeError(path, "an object", call);
  if (call.contains("function")) {
    return FieldError(path + ".function",
                      "write tool calls flat: {\"id\", \"name\", \"arguments\"}");
  }
  if (Status s = CheckKeys(call, path, {"id", "name", "arguments"}, ""); !s.ok()) return s;
  if (call.contains("id")) {
    std::string id;
    if (Status s = ReadString(call, "id", path, &id); !s.ok()) return s;
    out->id = id;
  }
  if (!call.contains("name")) return FieldError(path + ".name", "required");
  if (Status s = ReadString(call, "name", path, &out->name); !s.ok()) return s;
  if (call.contains("arguments")) {
    const Json& args = call.at("arguments");
    if (!args.is_string() && !args.is_object()) {
      return TypeError(path + ".arguments", "a string or an object", args);
    }
    out->arguments = args;
  }
  return Status::OK();
}

Status ParseMessage(const Json& entry, const std::string& path, MockEntry* out) {
  const std::string mpath = path + ".message";
  const Json& message = entry.at("message");
  if (!message.is_object()) return TypeError(mpath, "an object", message);
  if (Status s = CheckKeys(message, mpath, {"role", "content", "tool_calls"}, ""); !s.ok()) return s;
  if (message.contains("role") && message.at("role") != "assistant") {
    return FieldError(mpath + ".role", "must be \"assistant\" when given");
  }
  if (message.contains("content")) {
    const Json& content = message.at("content");
    if (!content.is_string() && !content.is_null()) {
      return TypeError(mpath + ".content", "a string or null", content);
    }
    out->content = content;
  }
  if (message.contains("tool_calls")) {
    const Json& calls = message.at("tool_calls");
    if (!calls.is_array()) return TypeError(mpath + ".tool_calls", "an array", calls);
    for (size_t j = 0; j < calls.size(); ++j) {
      MockToolCall call;
      Status s = ParseToolCall(calls[j], mpath + ".tool_calls[" + std::to_string(j) + "]", &call);
      if (!s.ok()) return s;
      out->tool_calls.push_back(std::move(call));
    }
  }
  out->finish_reason = out->tool_calls.empty() ? "stop" : "tool_calls";
  if (entry.contains("finish_reason")) {
    const Json& reason = entry.at("finish_reason");
    if (!reason.is_string() && !reason.is_null()) {
      return TypeError(path + ".finish_reason", "a string or null", reason);
    }
    out->finish_reason = reason;
  }
  if (entry.contains("usage")) {
    const Json& usage = entry.at("usage");
    if (!usage.is_object() && !usage.is_null()) {
      return TypeError(path + ".usage", "an object or null", usage);
    }
    out->usage = usage;
  }
  if (Status s = ReadString(entry, "model", path, &out->model); !s.ok()) return s;
  int64_t fragment = out->fragment_chars;
  if (Status s = ReadInt(entry, "fragment_chars", path, 1, 1'000'000, &fragment); !s.ok()) return s;
  out->fragment_chars = static_cast<int>(fragment);
  if (Status s = ReadBool(entry, "interleave", path, &out->interleave); !s.ok()) return s;
  return ReadBool(entry, "repeat_name_empty", path, &out->repeat_name_empty);
}

Status ParseStreamOptions(const Json& entry, const std::string& path, MockEntry* out) {
  if (Status s = ReadBool(entry, "done", path, &out->done); !s.ok()) return s;
  if (Status s = ReadBool(entry, "crlf", path, &out->crlf); !s.ok()) return s;
  if (Status s = ReadMs(entry, "chunk_delay_ms", path, &out->chunk_delay_ms); !s.ok()) return s;
  if (entry.contains("truncate_after")) {
    int64_t k = 0;
    if (Status s = ReadInt(entry, "truncate_after", path, 0, 1'000'000, &k); !s.ok()) return s;
    out->truncate_after = static_cast<size_t>(k);
  }
  return Status::OK();
}

Status ParseChunks(const Json& entry, const std::string& path, MockEntry* out) {
  const Json& chunks = entry.at("chunks");
  if (!chunks.is_array()) return TypeError(path + ".chunks", "an array", chunks);
  out->chunks.assign(chunks.begin(), chunks.end());
  return Status::OK();
}

std::string DefaultErrorType(int status) {
  switch (status) {
    case 400: return "invalid_request_error";
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 429: return "rate_limit_error";
    default: return status >= 500 ? "server_error" : "mock_error";
  }
}

// A fault ("status", optional "body") or a raw body ("raw_body").
Status ParsePlain(const Json& entry, const std::string& path, MockEntry* out) {
  int64_t status = 200;
  if (Status s = ReadInt(entry, "status", path, 200, 599, &status); !s.ok()) return s;
  out->status = static_cast<int>(status);
  bool content_type_given = entry.contains("content_type");
  if (Status s = ReadString(entry, "content_type", path, &out->content_type); !s.ok()) return s;
  if (HasNewline(out->content_type)) return FieldError(path + ".content_type", "contains a newline");
  if (entry.contains("raw_body")) {
    if (entry.contains("body")) {
      return FieldError(path + ".body", "give either body (a fault) or raw_body, not both");
    }
    return ReadString(entry, "raw_body", path, &out->body);
  }
  if (!entry.contains("body")) {
    out->body = ErrorBodyText("mock: injected HTTP " + std::to_string(out->status) + " response",
                              DefaultErrorType(out->status));
  } else if (const Json& body = entry.at("body"); body.is_string()) {
    out->body = body.get<std::string>();
    if (!content_type_given) out->content_type = "text/plain";
  } else {
    out->body = DumpJson(body);
  }
  return Status::OK();
}

// A Content-Type among the entry's headers replaces content_type rather than
// being sent twice.
void HoistContentType(MockEntry* entry) {
  auto& headers = entry->headers;
  for (auto it = headers.begin(); it != headers.end();) {
    if (AsciiLower(it->first) == "content-type") {
      entry->content_type = it->second;
      it = headers.erase(it);
    } else {
      ++it;
    }
  }
}

Status ParseEntry(const Json& entry, const std::string& path, MockEntry* out) {
  if (!entry.is_object()) return TypeError(path, "an object", entry);
  std::vector<std::string> markers;
  for (const char* key : {"message", "chunks", "raw_body", "status"}) {
    // A raw body may carry a status of its own.
    const bool raw_status = std::string_view(key) == "status" && entry.contains("raw_body");
    if (entry.contains(key) && !raw_status) markers.emplace_back(key);
  }
  if (markers.size() > 1) {
    return FieldError(path, "'" + markers[0] + "' and '" + markers[1] +
                                "' cannot be combined: an entry is one response");
  }
  if (Status s = ReadMs(entry, "delay_ms", path, &out->delay_ms); !s.ok()) return s;
  if (Status s = ReadMs(entry, "hang_ms", path, &out->hang_ms); !s.ok()) return s;
  if (Status s = ParseHeaders(entry, path, out); !s.ok()) return s;

  const std::set<std::string_view> common = {"comment", "delay_ms", "hang_ms", "headers"};
  auto with = [&](std::initializer_list<std::string_view> extra) {
    std::set<std::string_view> keys = common;
    keys.insert(extra.begin(), extra.end());
    return keys;
  };
  const auto stream_keys = {"done", "chunk_delay_ms", "truncate_after", "crlf"};

  if (markers.empty()) {
    if (entry.contains("body")) {
      return FieldError(path + ".body", "a fault needs \"status\" (or use \"raw_body\")");
    }
    if (!entry.contains("hang_ms")) {
      return FieldError(path, "needs one of message, chunks, status, raw_body or hang_ms");
    }
    out->kind = MockEntry::Kind::kHangOnly;
    return CheckKeys(entry, path, common, "a hang-only entry");
  }
  if (markers[0] == "message") {
    out->kind = MockEntry::Kind::kMessage;
    auto keys = with({"message", "finish_reason", "usage", "model", "fragment_chars", "interleave",
                      "repeat_name_empty"});
    keys.insert(stream_keys.begin(), stream_keys.end());
    if (Status s = CheckKeys(entry, path, keys, "a message entry"); !s.ok()) return s;
    if (Status s = ParseMessage(entry, path, out); !s.ok()) return s;
    return ParseStreamOptions(entry, path, out);
  }
  if (markers[0] == "chunks") {
    out->kind = MockEntry::Kind::kChunks;
    auto keys = with({"chunks"});
    keys.insert(stream_keys.begin(), stream_keys.end());
    if (Status s = CheckKeys(entry, path, keys, "a chunks entry"); !s.ok()) return s;
    if (Status s = ParseChunks(entry, path, out); !s.ok()) return s;
    return ParseStreamOptions(entry, path, out);
  }
  out->kind = MockEntry::Kind::kPlain;
  const bool raw = markers[0] == "raw_body";
  auto keys = raw ? with({"raw_body", "status", "content_type"})
                  : with({"status", "body", "content_type"});
  if (Status s = CheckKeys(entry, path, keys, raw ? "a raw_body entry" : "a fault entry"); !s.ok()) {
    return s;
  }
  if (Status s = ParsePlain(entry, path, out); !s.ok()) return s;
  HoistContentType(out);
  return Status::OK();
}

// A route's entry: {"status"?, "json"} (the value sent as the JSON body), or
// a fault, a raw body or a hang as in "responses". A message or chunks is
// no HTTP answer a route gives.
Status ParseRouteEntry(const Json& entry, const std::string& path, MockEntry* out) {
  if (!entry.is_object()) return TypeError(path, "an object", entry);
  for (const char* key : {"message", "chunks"}) {
    if (entry.contains(key)) {
      return FieldError(path + "." + key,
                        "a route answers with a plain HTTP response: json, status with body, raw_body, or hang_ms");
    }
  }
  if (!entry.contains("json")) return ParseEntry(entry, path, out);
  if (entry.contains("raw_body")) {
    return FieldError(path, "'json' and 'raw_body' cannot be combined: an entry is one response");
  }
  if (entry.contains("body")) return FieldError(path + ".body", "give either json or body, not both");
  if (Status s = CheckKeys(entry, path, {"comment", "delay_ms", "hang_ms", "headers", "status", "json", "content_type"},
                           "a json entry");
      !s.ok()) {
    return s;
  }
  if (Status s = ReadMs(entry, "delay_ms", path, &out->delay_ms); !s.ok()) return s;
  if (Status s = ReadMs(entry, "hang_ms", path, &out->hang_ms); !s.ok()) return s;
  if (Status s = ParseHeaders(entry, path, out); !s.ok()) return s;
  int64_t status = 200;
  if (Status s = ReadInt(entry, "status", path, 200, 599, &status); !s.ok()) return s;
  out->kind = MockEntry::Kind::kPlain;
  out->status = static_cast<int>(status);
  if (Status s = ReadString(entry, "content_type", path, &out->content_type); !s.ok()) return s;
  if (HasNewline(out->content_type)) return FieldError(path + ".content_type", "contains a newline");
  out->body = DumpJson(entry.at("json"));
  HoistContentType(out);
  return Status::OK();
}

// The server's own paths, which a route may not take.
bool IsReservedPath(std::string_view path) {
  for (std::string_view own : {"/v1/chat/completions", "/chat/completions", "/v1/messages", "/v1/models", "/models", "/props",
                               "/_mock/requests"}) {
    if (path == own) return true;
  }
  return false;
}

Status ParseRoute(const std::string& route_path, const Json& route, MockRoute* out) {
  const std::string path = "routes." + route_path;
  if (route_path.empty() || route_path.front() != '/') return FieldError(path, "a route's path must start with \"/\"");
  if (route_path.size() > 1000) return FieldError("routes", "a route's path is longer than 1000 characters");
  for (unsigned char c : route_path) {
    if (c <= 0x20 || c == 0x7f || c == '?' || c == '#') {
      return FieldError(path, "a route's path has no spaces, control characters, query (?) or fragment (#)");
    }
  }
  if (IsReservedPath(route_path)) return FieldError(path, "is the server's own path; a route cannot replace it");
  if (!route.is_object()) return TypeError(path, "an object", route);
  if (Status s = CheckKeys(route, path, {"responses", "on_exhausted", "comment"}, "a route"); !s.ok()) return s;
  if (!route.contains("responses")) return FieldError(path + ".responses", "required");
  const Json& responses = route.at("responses");
  if (!responses.is_array()) return TypeError(path + ".responses", "an array", responses);
  if (route.contains("on_exhausted")) {
    const Json& mode = route.at("on_exhausted");
    if (mode == "error") {
      out->on_exhausted = MockOnExhausted::kError;
    } else if (mode == "repeat_last") {
      out->on_exhausted = MockOnExhausted::kRepeatLast;
    } else {
      return FieldError(path + ".on_exhausted", "must be \"error\" or \"repeat_last\", got " + DumpJson(mode));
    }
  }
  for (size_t i = 0; i < responses.size(); ++i) {
    MockEntry entry;
    if (Status s = ParseRouteEntry(responses[i], path + ".responses[" + std::to_string(i) + "]", &entry); !s.ok()) {
      return s;
    }
    out->responses.push_back(std::move(entry));
  }
  if (out->responses.empty() && out->on_exhausted == MockOnExhausted::kRepeatLast) {
    return FieldError(path + ".on_exhausted", "\"repeat_last\" needs at least one response");
  }
  return Status::OK();
}

}  // namespace

Result<MockScript> ParseMockScript(const Json& script) {
  if (!script.is_object()) return TypeError("script", "an object", script);
  if (Status s = CheckKeys(script, "script", {"responses", "on_exhausted", "select", "props", "routes", "comment"}, "");
      !s.ok()) {
    return s;
  }
  // A script of routes alone needs no chat responses.
  if (!script.contains("responses") && !script.contains("routes")) return FieldError("responses", "required");
  static const Json kNoResponses = Json::array();
  const Json& responses = script.contains("responses") ? script.at("responses") : kNoResponses;
  if (!responses.is_array()) return TypeError("responses", "an array", responses);

  MockScript out;
  if (script.contains("routes")) {
    const Json& routes = script.at("routes");
    if (!routes.is_object()) return TypeError("routes", "an object", routes);
    for (const auto& [route_path, route] : routes.items()) {
      MockRoute parsed;
      if (Status s = ParseRoute(route_path, route, &parsed); !s.ok()) return s;
      out.routes.emplace(route_path, std::move(parsed));
    }
  }
  if (script.contains("props")) {
    if (!script.at("props").is_object()) return TypeError("script.props", "an object", script.at("props"));
    out.props = script.at("props");
  }
  if (script.contains("on_exhausted")) {
    const Json& mode = script.at("on_exhausted");
    if (mode == "error") {
      out.on_exhausted = MockScript::OnExhausted::kError;
    } else if (mode == "repeat_last") {
      out.on_exhausted = MockScript::OnExhausted::kRepeatLast;
    } else {
      return FieldError("on_exhausted", "must be \"error\" or \"repeat_last\", got " + DumpJson(mode));
    }
  }
  if (script.contains("select")) {
    const Json& select = script.at("select");
    if (select == "in_order") {
      out.select = MockScript::Select::kInOrder;
    } else if (select == "by_turn") {
      out.select = MockScript::Select::kByTurn;
    } else {
      return FieldError("select", "must be \"in_order\" or \"by_turn\", got " + DumpJson(select));
    }
  }
  for (size_t i = 0; i < responses.size(); ++i) {
    MockEntry entry;
    Status s = ParseEntry(responses[i], "responses[" + std::to_string(i) + "]", &entry);
    if (!s.ok()) return s;
    out.responses.push_back(std::move(entry));
  }
  if (out.responses.empty() && out.on_exhausted == MockScript::OnExhausted::kRepeatLast) {
    return FieldError("on_exhausted", "\"repeat_last\" needs at least one response");
  }
  return out;
}

}  // namespace medreact::mockllm
