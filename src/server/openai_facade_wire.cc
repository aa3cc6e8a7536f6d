// The facade's wire format. See openai_facade_wire.h.
#include "server/openai_facade_wire.h"

#include <algorithm>

#include "core/text_util.h"
#include "tools/imaging/image_codec.h"

namespace medreact::server::openai {
namespace {

Status Bad(std::string* field, const std::string& path, const std::string& what) {
  if (field) *field = path;
  return Status::InvalidArgument(path + ": " + what);
}

std::string KindOf(std::string_view bytes) {
  if (bytes.size() >= 8 && bytes.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8)) return "png";
  if (bytes.size() >= 3 && bytes.substr(0, 3) == std::string_view("\xff\xd8\xff", 3)) return "jpeg";
  if (bytes.size() >= 132 && bytes.substr(128, 4) == "DICM") return "dicom";
  return "";
}

// A data URL's image: "data:image/png;base64,....".
Result<WireImage> DecodeDataUrl(const std::string& url, size_t max_bytes, const std::string& path,
                                std::string* field) {
  if (AsciiLower(url.substr(0, 5)) != "data:") {
    return Bad(field, path, "only data URLs (data:image/png;base64,...) are accepted: this server fetches no URL");
  }
  const size_t comma = url.find(',');
  if (comma == std::string::npos) return Bad(field, path, "a data URL needs a ',' before its data");
  const std::string meta = AsciiLower(url.substr(5, comma - 5));
  const size_t semi = meta.find(';');
  const std::string mime = meta.substr(0, semi);
  if (semi == std::string::npos || meta.substr(meta.rfind(';') + 1) != "base64") {
    return Bad(field, path, "the data URL is not base64 (data:image/png;base64,...)");
  }
  if (!StartsWith(mime, "image/") && mime != "application/dicom") {
    return Bad(field, path, "the data URL is not an image (its type is '" + Preview(mime, 40) + "')");
  }
  const std::string_view data = std::string_view(url).substr(comma + 1);
  if (data.size() / 4 * 3 > max_bytes + 3) {
    return Bad(field, path, "the image is larger than this server's limit of " + std::to_string(max_bytes) + " bytes");
  }
  Result<std::string> bytes = imaging::Base64Decode(data);
  if (!bytes.ok()) return Bad(field, path, "the data URL's data is not valid base64");
  if (bytes->size() > max_bytes) {
    return Bad(field, path, "the image is larger than this server's limit of " + std::to_string(max_bytes) + " bytes");
  }
  std::string kind = KindOf(*bytes);
  if (kind.empty()) return Bad(field, path, "the data is not a PNG, JPEG or DICOM image");
  return WireImage{.bytes = std::move(*bytes), .kind = std::move(kind)};
}

Status ReadContent(const Json& content, size_t max_image_bytes, const std::string& path, WireMessage& out,
                   std::string* field) {
  if (content.is_null()) return Status::OK();
  if (content.is_string()) {
    out.text = content.get<std::string>();
    return Status::OK();
  }
  if (!content.is_array()) return Bad(field, path, "must be a string, null or an array of content parts");
  for (size_t j = 0; j < content.size(); ++j) {
    const Json& part = content[j];
    const std::string at = path + "[" + std::to_string(j) + "]";
    if (!part.is_object()) return Bad(field, at, "a content part must be an object with a type");
    const std::string type = StringOr(part, "type");
    if (type == "text") {
      if (!part.contains("text") || !part["text"].is_string()) return Bad(field, at + ".text", "must be a string");
      if (!out.text.empty()) out.text += "\n";
      out.text += part["text"].get<std::string>();
    } else if (type == "image_url") {
      std::string url;
      if (part.contains("image_url") && part["image_url"].is_object()) {
        url = StringOr(part["image_url"], "url");
      } else if (part.contains("image_url") && part["image_url"].is_string()) {
        url = part["image_url"].get<std::string>();
      }
      if (url.empty()) return Bad(field, at + ".image_url.url", "must be a data URL string");
      Result<WireImage> image = DecodeDataUrl(url, max_image_bytes, at + ".image_url.url", field);
      if (!image.ok()) return image.status();
      out.images.push_back(std::move(*image));
    } else {
      return Bad(field, at + ".type", "unsupported content part '" + Preview(type, 40) + "' (text, image_url)");
    }
  }
  return Status::OK();
}

// The first paragraph of an Open WebUI task prompt, lower case: what it asks.
std::string TaskLine(const std::string& text) {
  const std::string t = Trim(text);
  if (!StartsWith(t, "### Task:")) return "";
  std::string rest = t.substr(9);
  const size_t next = rest.find("###");
  return AsciiLower(rest.substr(0, next));
}

// The conversation's first user message: the request's first user message
// when it holds the conversation, else the first "USER:" line of the task
// prompt's embedded chat history (Open WebUI's <chat_history>, LibreChat's "User:").
std::string FirstUserText(const ChatRequest& r) {
  std::vector<const WireMessage*> users;
  for (const WireMessage& m : r.messages) {
    if (m.role == "user") users.push_back(&m);
  }
  if (users.size() > 1) return users.front()->text;
  const std::string& prompt = users.empty() ? std::string() : users.front()->text;
  size_t from = prompt.find("<chat_history>");
  from = from == std::string::npos ? 0 : from;
  size_t i = from;
  while (i < prompt.size()) {
    size_t end = prompt.find('\n', i);
    if (end == std::string::npos) end = prompt.size();
    std::string line = Trim(std::string_view(prompt).substr(i, end - i));
    if (StartsWith(line, "||>")) line = Trim(line.substr(3));
    if (AsciiLower(line.substr(0, 5)) == "user:") {
      std::string said = Trim(line.substr(5));
      if (said.size() >= 2 && said.front() == '"' && said.back() == '"') said = said.substr(1, said.size() - 2);
      if (!said.empty()) return said;
    }
    i = end + 1;
  }
  return "";
}

bool IsUtf8Continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

Json JsonString(const std::string& key, const std::string& value) { return Json{{key, value}}; }

}  // namespace

const std::vector<FacadeModel>& FacadeModels() {
  static const std::vector<FacadeModel> models = {
      {"medreact-chat", "chat", false}, {"medreact-cxr", "cxr", true}, {"medreact-research", "research", false}};
  return models;
}

const FacadeModel* FindFacadeModel(const std::string& id) {
  for (const FacadeModel& m : FacadeModels()) {
    if (id == m.id) return &m;
  }
  return nullptr;
}

Result<ChatRequest> ParseChatRequest(const Json& body, size_t max_image_bytes, std::string* field) {
  ChatRequest r;
  if (!body.is_object()) return Bad(field, "body", "must be a JSON object");
  if (!body.contains("model") || !body["model"].is_string() || body["model"].get_ref<const std::string&>().empty()) {
    return Bad(field, "model", "must name a model (GET /v1/models lists them)");
  }
  r.model = body["model"].get<std::string>();
  if (!body.contains("messages")) return Bad(field, "messages", "missing: the conversation's messages");
  const Json& messages = body["messages"];
  if (!messages.is_array()) return Bad(field, "messages", "must be an array of messages");
  if (messages.empty()) return Bad(field, "messages", "must hold at least one message");
  bool any_user = false;
  for (size_t i = 0; i < messages.size(); ++i) {
    const Json& m = messages[i];
    const std::string at = "messages[" + std::to_string(i) + "]";
    if (!m.is_object()) return Bad(field, at, "a message must be an object with a role");
    if (!m.contains("role") || !m["role"].is_string()) {
      return Bad(field, at + ".role", "missing: a message needs a role (system, user, assistant, tool)");
    }
    WireMessage wm;
    wm.role = m["role"].get<std::string>();
    if (wm.role == "developer") wm.role = "system";
    if (wm.role != "system" && wm.role != "user" && wm.role != "assistant" && wm.role != "tool") {
      return Bad(field, at + ".role", "unknown role '" + Preview(wm.role, 40) + "' (system, user, assistant, tool)");
    }
    if (m.contains("content")) {
      if (Status s = ReadContent(m["content"], max_image_bytes, at + ".content", wm, field); !s.ok()) return s;
    }
    if (!wm.images.empty() && wm.role != "user") return Bad(field, at + ".content", "only user messages carry images");
    any_user = any_user || wm.role == "user";
    r.messages.push_back(std::move(wm));
  }
  if (!any_user) return Bad(field, "messages", "no user message: the conversation needs a question");
  if (body.contains("stream") && !body["stream"].is_boolean() && !body["stream"].is_null()) {
    return Bad(field, "stream", "must be true or false");
  }
  r.stream = BoolOr(body, "stream", false);
  if (body.contains("stream_options") && !body["stream_options"].is_null()) {
    if (!body["stream_options"].is_object()) return Bad(field, "stream_options", "must be an object");
    r.include_usage = BoolOr(body["stream_options"], "include_usage", false);
  }
  if (body.contains("n") && !body["n"].is_null() && ExactInteger(body["n"]) != 1) {
    return Bad(field, "n", "this server answers with one choice (n = 1)");
  }
  if (body.contains("medreact") && !body["medreact"].is_null()) {
    if (!body["medreact"].is_object()) return Bad(field, "medreact", "must be an object (require_approval, packs)");
    for (const auto& [key, value] : body["medreact"].items()) {
      if (key != "require_approval" && key != "packs") {
        return Bad(field, "medreact." + key, "unknown setting (require_approval, packs)");
      }
    }
    r.medreact = body["medreact"];
  }
  return r;
}

std::string LastUserText(const ChatRequest& request) {
  for (auto it = request.messages.rbegin(); it != request.messages.rend(); ++it) {
    if (it->role == "user") return it->text;
  }
  return "";
}

TaskKind DetectTask(const ChatRequest& request) {
  // The task prompt is the last message (user or system).
  if (request.messages.empty()) return TaskKind::kNone;
  const std::string& text = request.messages.back().text;
  const std::string task = TaskLine(text);
  if (!task.empty()) {
    if (task.find("follow-up") != std::string::npos || task.find("follow up") != std::string::npos) {
      return TaskKind::kFollowUps;
    }
    if (task.find("tags") != std::string::npos) return TaskKind::kTags;
    if (task.find("title") != std::string::npos) return TaskKind::kTitleJson;
    return TaskKind::kOtherTask;
  }
  const std::string lower = AsciiLower(text.substr(0, 2000));
  if (lower.find("title") != std::string::npos &&
      (lower.find("please generate a concise") != std::string::npos ||
       lower.find("as a title for the previous query") != std::string::npos)) {
    return TaskKind::kTitleText;
  }
  return TaskKind::kNone;
}

std::string ShortTitle(const std::string& text) {
  std::string line = Trim(text.substr(0, text.find('\n')));
  std::vector<std::string> words;
  size_t i = 0;
  while (i < line.size() && words.size() < 6) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) words.push_back(line.substr(i, j - i));
    i = j;
  }
  std::string title;
  for (const std::string& w : words) {
    if (!title.empty() && title.size() + 1 + w.size() > 50) break;
    title += (title.empty() ? "" : " ") + w;
  }
  if (title.size() > 50) {
    size_t cut = 50;
    while (cut > 0 && IsUtf8Continuation(title[cut])) --cut;
    title.resize(cut);
  }
  while (!title.empty() && std::string_view("?!.,;:\"'`*#-_").find(title.back()) != std::string_view::npos) {
    title.pop_back();
  }
  while (!title.empty() && std::string_view("\"'`*#-_ ").find(title.front()) != std::string_view::npos) {
    title.erase(0, 1);
  }
  if (title.empty()) return "Clinical question";
  return title;
}

std::string TaskAnswer(TaskKind kind, const ChatRequest& request) {
  switch (kind) {
    case TaskKind::kTitleJson:
      return DumpJson(JsonString("title", ShortTitle(FirstUserText(request))));
    case TaskKind::kTitleText:
      return ShortTitle(FirstUserText(request));
    case TaskKind::kTags:
      return DumpJson(Json{{"tags", Json::array({"medical"})}});
    case TaskKind::kFollowUps:
      return DumpJson(Json{{"follow_ups", Json::array()}});
    case TaskKind::kOtherTask: {
      // Open WebUI's search-query task reads {"queries": [...]}; an empty list runs none.
      const std::string task = TaskLine(request.messages.back().text);
      if (task.find("quer") != std::string::npos) return DumpJson(Json{{"queries", Json::array()}});
      return "{}";
    }
    case TaskKind::kNone:
      break;
  }
  return "";
}

std::string ReadableResult(const Json& result) {
  if (result.is_string()) return result.get<std::string>();
  if (!result.is_object()) return result.is_null() ? "" : DumpJson(result, 2);
  for (const char* key : {"report_markdown", "answer"}) {
    const std::string text = StringOr(result, key);
    if (!IsBlank(text)) return text;
  }
  std::string out;
  for (const auto& [key, value] : result.items()) {
    if (key == "usage" || value.is_null()) continue;
    out += key + ": " + (value.is_string() ? value.get<std::string>() : DumpJson(value)) + "\n";
  }
  return out;
}

Json ModelsList(int64_t created) {
  Json data = Json::array();
  for (const FacadeModel& m : FacadeModels()) {
    data.push_back(Json{{"id", m.id}, {"object", "model"}, {"created", created}, {"owned_by", "medreact"}});
  }
  return Json{{"object", "list"}, {"data", std::move(data)}};
}

Json Usage(const Json& usage) {
  Json out = Json::object();
  for (const char* key : {"prompt_tokens", "completion_tokens", "total_tokens"}) {
    out[key] = usage.is_object() ? IntegerOr(usage, key, 0) : 0;
  }
  return out;
}

Json CompletionBody(const std::string& id, const std::string& model, int64_t created, const std::string& content,
                    const Json& usage) {
  return Json{{"id", id},
              {"object", "chat.completion"},
              {"created", created},
              {"model", model},
              {"choices", Json::array({Json{{"index", 0},
                                            {"message", {{"role", "assistant"}, {"content", content}}},
                                            {"logprobs", nullptr},
                                            {"finish_reason", "stop"}}})},
              {"usage", Usage(usage)}};
}

Json Chunk(const std::string& id, const std::string& model, int64_t created, const Json& delta,
           const Json& finish_reason) {
  return Json{{"id", id},
              {"object", "chat.completion.chunk"},
              {"created", created},
              {"model", model},
              {"choices", Json::array({Json{{"index", 0},
                                            {"delta", delta},
                                            {"logprobs", nullptr},
                                            {"finish_reason", finish_reason}}})}};
}

Json UsageChunk(const std::string& id, const std::string& model, int64_t created, const Json& usage) {
  return Json{{"id", id},
              {"object", "chat.completion.chunk"},
              {"created", created},
              {"model", model},
              {"choices", Json::array()},
              {"usage", Usage(usage)}};
}

std::string SseData(const Json& chunk) { return "data: " + DumpJson(chunk) + "\n\n"; }

}  // namespace medreact::server::openai
