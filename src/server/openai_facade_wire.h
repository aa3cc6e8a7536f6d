// The OpenAI Chat Completions wire format as the facade (api_openai.cc)
// speaks it, apart from the routes: the request read into plain structs
// (messages, their text and their images decoded from data URLs and
// checked by magic), the chunks and bodies written back, and the UI task
// prompts (a chat title, tags, follow-ups) answered without a run.
//
// Nothing here touches the store or the network; every function is pure
// and safe from any thread. Outside JSON is read with typed accessors; a
// refusal is InvalidArgument with `*field` naming the request's JSON path
// ("messages[2].content[1].image_url.url").
#ifndef MEDREACT_SERVER_OPENAI_FACADE_WIRE_H_
#define MEDREACT_SERVER_OPENAI_FACADE_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "medreact/json.h"
#include "medreact/status.h"

namespace medreact::server::openai {

// The models the facade offers and the app each one runs.
struct FacadeModel {
  const char* id;       // "medreact-chat"
  const char* app;      // "chat"
  bool takes_images;    // image parts are refused for the others
};
const std::vector<FacadeModel>& FacadeModels();
const FacadeModel* FindFacadeModel(const std::string& id);

// One decoded image of a message: its bytes and what its magic says it is.
struct WireImage {
  std::string bytes;
  std::string kind;  // "png", "jpeg" or "dicom"
};

struct WireMessage {
  std::string role;  // system (developer is read as system), user, assistant, tool
  std::string text;  // the text parts joined with newlines
  std::vector<WireImage> images;
};

struct ChatRequest {
  std::string model;
  std::vector<WireMessage> messages;
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
  // The facade's extension, body field "medreact": {"require_approval": [...], "packs": [...]}
  // passed to the app's inputs as they are (the app's schema checks them). Default: absent
  Json medreact = Json::object();
};

// The body of POST /v1/chat/completions read and checked: model present,
// messages a non-empty array of objects with a known role, content a string,
// null or an array of text / image_url parts, each image a base64 data URL of
// a PNG, JPEG or DICOM of at most `max_image_bytes`, at least one user
// message. max_tokens, temperature, top_p, n=1, user, ... are accepted and
// ignored, and so are the client's tools and tool_choice (the agent has its
// own tools); the model itself is not looked up here.
Result<ChatRequest> ParseChatRequest(const Json& body, size_t max_image_bytes, std::string* field);

// The text of the last user message (the question the run answers).
std::string LastUserText(const ChatRequest& request);

// UI task prompts sent to the same model: Open WebUI's "### Task:" prompts
// (title, tags, follow-ups) and LibreChat's "Please generate a concise ... title".
enum class TaskKind { kNone, kTitleJson, kTitleText, kTags, kFollowUps, kOtherTask };
TaskKind DetectTask(const ChatRequest& request);
// The answer to a task prompt: {"title": "..."} / a plain title / {"tags": ["medical"]} /
// {"follow_ups": []}; an unknown Open WebUI task gets "{}" (no run is started for it).
std::string TaskAnswer(TaskKind kind, const ChatRequest& request);
// A short deterministic title of a question: its first words, at most 6 and
// 50 characters, without trailing punctuation; "Clinical question" for none.
std::string ShortTitle(const std::string& text);

// The answer text of an app's result: chat and cxr "answer", research its
// markdown report; otherwise the result's fields as readable lines.
std::string ReadableResult(const Json& result);

// Wire bodies.
Json ModelsList(int64_t created);
Json Usage(const Json& usage);  // {prompt_tokens, completion_tokens, total_tokens}, 0 for a missing one
Json CompletionBody(const std::string& id, const std::string& model, int64_t created, const std::string& content,
                    const Json& usage);
// A chat.completion.chunk with one choice (`delta`, `finish_reason` null or a string).
Json Chunk(const std::string& id, const std::string& model, int64_t created, const Json& delta,
           const Json& finish_reason = Json());
// The usage-only chunk (choices: []).
Json UsageChunk(const std::string& id, const std::string& model, int64_t created, const Json& usage);
// "data: <json>\n\n".
std::string SseData(const Json& chunk);
inline constexpr const char* kSseDone = "data: [DONE]\n\n";

}  // namespace medreact::server::openai

#endif  // MEDREACT_SERVER_OPENAI_FACADE_WIRE_H_
