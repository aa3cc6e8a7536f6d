// VisionClient (vision_client.h): prompts, schemas, the corrective retry and
// the grounding boxes' conversion to pixels.
//
// The prompts are short on purpose: the vision models this talks to
// (CheXagent, MedGemma, LLaVA-Med) are small and were tuned on short
// radiology instructions, and the schema (sent as response_format and shown
// in the prompt) carries the shape. Each request is one system message and
// one user turn (the images, then the text); a reply that is not the
// schema's JSON is answered by a second request that repeats the turn, adds
// the reply and a user message listing the problems, and is the last one.
//
// Grounding boxes arrive as fractions of the image (origin top-left). The
// schema types them only as numbers (OpenAI's strict mode has no
// minimum/maximum); the check here allows a slack of kFractionSlack around
// 0..1 (models overshoot an edge a little) and sends anything further back
// as a problem (a model answering in pixels or on a 0..1000 grid). Accepted
// boxes have their corners sorted, are scaled to the stored raster's pixels
// and clipped to it; a box under one pixel wide or high after clipping is
// dropped.

#include "tools/imaging/vision_client.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "medreact/json_repair.h"
#include "medreact/json_schema.h"

namespace medreact::imaging {
namespace {

constexpr int kMaxTokens = 1024;
constexpr double kFractionSlack = 0.02;  // of the image's width or height
constexpr size_t kMaxBoxes = 32;

constexpr char kSystemPrompt[] =
    "You are a radiology assistant reading chest radiographs. Base every statement on the images given. "
    "Reply with one JSON object that follows the given schema and nothing else: no prose, no code fences.";

const char* const kCoordinates[] = {"x0", "y0", "x1", "y1"};

Json StringProperty(const std::string& description) {
  return Json{{"type", "string"}, {"minLength", 1}, {"description", description}};
}

Json ObjectSchema(Json properties) {
  Json required = Json::array();
  for (const auto& [name, unused] : properties.items()) required.push_back(name);
  return Json{{"type", "object"},
              {"properties", std::move(properties)},
              {"required", std::move(required)},
              {"additionalProperties", false}};
}

Json AnswerSchema() {
  return ObjectSchema({{"answer", StringProperty("A short, direct answer to the question.")},
                       {"confidence",
                        {{"type", "string"},
                         {"enum", {"high", "medium", "low"}},
                         {"description", "How certain the answer is from the images."}}}});
}

Json ReportSchema() {
  return ObjectSchema(
      {{"findings", StringProperty("The FINDINGS section of a chest radiograph report.")},
       {"impression", StringProperty("The IMPRESSION section: the main conclusions.")}});
}

Json GroundingSchema() {
  Json box = Json::object();
  for (const char* name : kCoordinates) {
    const bool x = name[0] == 'x';
    box[name] = {{"type", "number"},
                 {"description", std::string("Fraction 0..1 of the image ") + (x ? "width" : "height") +
                                     ", measured from the " + (x ? "left" : "top") + " edge."}};
  }
  return ObjectSchema({{"boxes",
                        {{"type", "array"},
                         {"maxItems", kMaxBoxes},
                         {"items", ObjectSchema(std::move(box))},
                         {"description", "One box per distinct region; empty when the phrase is not visible."}}}});
}

// The grounding check: every coordinate a fraction of the image, give or take the slack.
std::string CheckFractions(const Json& value) {
  std::vector<SchemaProblem> problems;
  const Json& boxes = value.at("boxes");  // the schema was checked first
  for (size_t i = 0; i < boxes.size(); ++i) {
    for (const char* name : kCoordinates) {
      const double v = boxes[i].at(name).get<double>();
      if (v < -kFractionSlack || v > 1 + kFractionSlack) {
        problems.push_back({"/boxes/" + std::to_string(i) + "/" + name,
                            DescribeJsonValue(boxes[i].at(name)) +
                                " is not a fraction of the image: use 0 (left or top edge) to 1 (right or bottom edge)"});
      }
    }
  }
  return JoinSchemaProblems(problems);
}

// The problems of a reply text, "" when `value` holds the schema's JSON.
std::string ReadReply(const ModelResponse& response, const JsonSchema& schema,
                      const std::function<std::string(const Json&)>& check, Json& value) {
  const std::string& text = response.message.content;
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return "the reply was empty (no JSON object)";
  Result<Json> parsed = ParseJsonLenient(text);
  if (!parsed.ok()) return "the reply is not JSON: " + parsed.status().message();
  std::string problems = JoinSchemaProblems(schema.Validate(*parsed));
  if (problems.empty() && check) problems = check(*parsed);
  if (problems.empty()) value = std::move(parsed).value();
  return problems;
}

// A non-owning pointer to an image the caller holds for the whole call (no copy of its pixels).
std::shared_ptr<const StoredImage> Borrow(const StoredImage& image) {
  return std::shared_ptr<const StoredImage>(std::shared_ptr<const StoredImage>(), &image);
}

std::string Corrections(const std::string& problems) {
  return "Your reply did not follow the schema: " + problems +
         "\nReply again with only the corrected JSON object, following the schema exactly.";
}

}  // namespace

VisionClient::VisionClient(std::shared_ptr<ChatModel> model) : model_(std::move(model)) {
  name_ = model_ ? model_->name() : "";
}

Result<VisionClient::Reply> VisionClient::Ask(const std::vector<std::shared_ptr<const StoredImage>>& images,
                                              const std::string& system, const std::string& text,
                                              const std::string& schema_name, const Json& schema, const Check& check,
                                              const Deadline& deadline, const CancellationToken& cancel) const {
  const std::string who = "vision model " + name_;
  if (!model_) return Status::FailedPrecondition(who + ": no model configured");
  if (images.empty()) return Status::InvalidArgument(who + ": no image given");
  Result<JsonSchema> compiled = JsonSchema::Compile(schema);
  if (!compiled.ok()) return compiled.status().WithContext(who + ": schema " + schema_name);

  // The request: the system prompt, one user turn with the images and the text.
  Message user = Message::User(text);
  for (const std::shared_ptr<const StoredImage>& image : images) {
    if (!image || image->data_url.empty()) {
      return Status::InvalidArgument(who + ": image " + (image ? image->id : std::string("(null)")) +
                                     " has no encoded data to send");
    }
    user.images.push_back({.kind = ContentPart::Kind::kImage, .image_url = image->data_url});
  }
  ModelRequest request;
  request.messages = {Message::System(system), std::move(user)};
  request.response_format = {{"type", "json_schema"},
                             {"json_schema", {{"name", schema_name}, {"schema", schema}, {"strict", true}}}};
  request.temperature = 0.0;
  request.max_tokens = kMaxTokens;
  const ModelCallContext ctx{.deadline = deadline, .cancel = cancel};

  // At most two attempts: the second shows the model its reply and the problems.
  std::string problems;
  for (int attempt = 0; attempt < 2; ++attempt) {
    Result<ModelResponse> response = model_->Complete(request, ctx);
    if (!response.ok()) return response.status().WithContext(who);
    Reply reply{.model = response->model.empty() ? name_ : response->model};
    problems = ReadReply(*response, *compiled, check, reply.value);
    if (problems.empty()) return reply;
    request.messages.push_back(Message::Assistant(response->message.content));
    request.messages.push_back(Message::User(Corrections(problems)));
  }
  return Status::ParseError(who + ": reply is not the schema's JSON (" + schema_name +
                            ", after one corrective retry): " + problems);
}

Result<VisionAnswer> VisionClient::Answer(const std::vector<std::shared_ptr<const StoredImage>>& images,
                                          const std::string& question, const Deadline& deadline,
                                          const CancellationToken& cancel) const {
  if (question.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::InvalidArgument("vision model " + name_ + ": the question is empty");
  }
  const std::string plural = images.size() > 1 ? "images" : "image";
  const std::string text = "Question about the " + plural + ": " + question +
                           "\nAnswer as JSON: {\"answer\": a short, direct answer, \"confidence\": \"high\", "
                           "\"medium\" or \"low\"}. If the " + plural +
                           " cannot answer it, say so in the answer with confidence \"low\".";
  Result<Reply> reply = Ask(images, kSystemPrompt, text, "xray_vqa", AnswerSchema(), nullptr, deadline, cancel);
  if (!reply.ok()) return reply.status();
  return VisionAnswer{.answer = reply->value.at("answer").get<std::string>(),
                      .confidence = reply->value.at("confidence").get<std::string>(),
                      .model = reply->model};
}

Result<VisionReport> VisionClient::Report(const StoredImage& image, const Deadline& deadline,
                                          const CancellationToken& cancel) const {
  const std::string text =
      "Write the radiology report of this chest radiograph.\nAnswer as JSON: {\"findings\": the FINDINGS "
      "section (support devices, lungs, pleura, heart and mediastinum, bones and soft tissues, with pertinent "
      "negatives), \"impression\": the IMPRESSION (the main conclusions, most important first)}.";
  Result<Reply> reply = Ask({Borrow(image)}, kSystemPrompt, text, "chest_xray_report",
                            ReportSchema(), nullptr, deadline, cancel);
  if (!reply.ok()) return reply.status();
  return VisionReport{.findings = reply->value.at("findings").get<std::string>(),
                      .impression = reply->value.at("impression").get<std::string>(),
                      .model = reply->model};
}

Result<Grounding> VisionClient::Ground(const StoredImage& image, const std::string& phrase, const Deadline& deadline,
                                       const CancellationToken& cancel) const {
  const std::string who = "vision model " + name_;
  if (phrase.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::InvalidArgument(who + ": the phrase to locate is empty");
  }
  if (!image.raster.valid()) return Status::InvalidArgument(who + ": image " + image.id + " has no pixels");
  const std::string text =
      "Locate on this chest radiograph: " + phrase +
      "\nAnswer as JSON: {\"boxes\": [{\"x0\", \"y0\", \"x1\", \"y1\"}]}, one box per distinct region, each "
      "coordinate a fraction from 0 to 1 of the image width (x) or height (y), origin at the top-left corner, "
      "x0 < x1 and y0 < y1. Answer {\"boxes\": []} when it is not visible.";
  Result<Reply> reply = Ask({Borrow(image)}, kSystemPrompt, text,
                            "xray_phrase_grounding", GroundingSchema(), CheckFractions, deadline, cancel);
  if (!reply.ok()) return reply.status();

  // Fractions → pixels of the stored raster: corners sorted, clipped, boxes under a pixel dropped.
  const double width = image.raster.width, height = image.raster.height;
  Grounding grounding{.model = reply->model};
  for (const Json& b : reply->value.at("boxes")) {
    const double x0 = b.at("x0").get<double>(), y0 = b.at("y0").get<double>();
    const double x1 = b.at("x1").get<double>(), y1 = b.at("y1").get<double>();
    Box box{.x0 = std::clamp(std::min(x0, x1) * width, 0.0, width),
            .y0 = std::clamp(std::min(y0, y1) * height, 0.0, height),
            .x1 = std::clamp(std::max(x0, x1) * width, 0.0, width),
            .y1 = std::clamp(std::max(y0, y1) * height, 0.0, height)};
    if (box.x1 - box.x0 < 1 || box.y1 - box.y0 < 1) continue;
    grounding.boxes.push_back(box);
  }
  return grounding;
}

}  // namespace medreact::imaging
