// Tests for VisionClient over an in-process FakeModel: the request it sends
// (one user turn with the images and the text, response_format carrying the
// schema, temperature 0), lenient reading of the reply, the one corrective
// retry, grounding fractions → pixels, and errors that name the model.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "testing/fake_model.h"
#include "tools/imaging/vision_client.h"

namespace medreact::imaging {
namespace {

using testing::FakeModel;

std::shared_ptr<const StoredImage> Image(const std::string& id, int width = 200, int height = 100) {
  auto image = std::make_shared<StoredImage>();
  image->id = id;
  image->label = id + ".png";
  image->origin = "user";
  image->source_format = ImageFormat::kPng;
  image->original_width = width;
  image->original_height = height;
  image->raster = Raster{width, height, 1, std::vector<uint8_t>(static_cast<size_t>(width) * height, 128)};
  image->png = "png-bytes-of-" + id;
  image->data_url = "data:image/png;base64,DATA-" + id;
  return image;
}

Result<ModelResponse> TextReply(const std::string& text, const std::string& model = "") {
  ModelResponse r;
  r.message = Message::Assistant(text);
  r.model = model;
  return r;
}

class VisionClientTest : public ::testing::Test {
 protected:
  void PushText(const std::string& text, const std::string& served_model = "") {
    model_->Push([text, served_model](const ModelRequest&, const ModelCallContext&) {
      return TextReply(text, served_model);
    });
  }
  std::vector<ModelRequest> Requests() const { return model_->requests(); }

  std::shared_ptr<FakeModel> model_ = std::make_shared<FakeModel>();
  VisionClient client_{model_};
};

TEST_F(VisionClientTest, AnswerSendsImagesTextAndSchemaInOneUserTurn) {
  PushText(R"({"answer": "Right lower lobe consolidation.", "confidence": "medium"})", "chexagent-8b");
  Result<VisionAnswer> answer =
      client_.Answer({Image("img1"), Image("img2")}, "Is there a consolidation?", Deadline::Never(), {});
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(answer->answer, "Right lower lobe consolidation.");
  EXPECT_EQ(answer->confidence, "medium");
  EXPECT_EQ(answer->model, "chexagent-8b");  // the server's name
  EXPECT_EQ(client_.model_name(), "fake");

  const std::vector<ModelRequest> requests = Requests();
  ASSERT_EQ(requests.size(), 1u);
  const ModelRequest& request = requests[0];
  ASSERT_EQ(request.messages.size(), 2u);
  EXPECT_EQ(request.messages[0].role, Role::kSystem);
  const Message& user = request.messages[1];
  EXPECT_EQ(user.role, Role::kUser);
  EXPECT_NE(user.content.find("Is there a consolidation?"), std::string::npos);
  ASSERT_EQ(user.images.size(), 2u);
  EXPECT_EQ(user.images[0].kind, ContentPart::Kind::kImage);
  EXPECT_EQ(user.images[0].image_url, "data:image/png;base64,DATA-img1");
  EXPECT_EQ(user.images[1].image_url, "data:image/png;base64,DATA-img2");
  EXPECT_TRUE(request.tools.empty());
  EXPECT_EQ(request.tool_choice, "");
  EXPECT_EQ(request.temperature, 0.0);
  EXPECT_EQ(request.max_tokens, 1024);

  const Json& format = request.response_format;
  EXPECT_EQ(format["type"], "json_schema");
  EXPECT_EQ(format["json_schema"]["name"], "xray_vqa");
  EXPECT_EQ(format["json_schema"]["strict"], true);
  const Json& schema = format["json_schema"]["schema"];
  EXPECT_EQ(schema["type"], "object");
  EXPECT_EQ(schema["required"], Json({"answer", "confidence"}));
  EXPECT_EQ(schema["additionalProperties"], false);
  EXPECT_EQ(schema["properties"]["confidence"]["enum"], Json({"high", "medium", "low"}));
}

TEST_F(VisionClientTest, ReportAcceptsAFencedReplyWithProse) {
  PushText("Here is the report:\n```json\n{\"findings\": \"Heart size normal. Lungs clear.\", "
           "\"impression\": \"No acute cardiopulmonary process.\"}\n```\n");
  Result<VisionReport> report = client_.Report(*Image("img1"), Deadline::Never(), {});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->findings, "Heart size normal. Lungs clear.");
  EXPECT_EQ(report->impression, "No acute cardiopulmonary process.");
  EXPECT_EQ(report->model, "fake");  // the server named none: the client's name
  const std::vector<ModelRequest> requests = Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].response_format["json_schema"]["name"], "chest_xray_report");
  EXPECT_EQ(requests[0].response_format["json_schema"]["schema"]["required"], Json({"findings", "impression"}));
  const std::string& text = requests[0].messages[1].content;
  EXPECT_NE(text.find("FINDINGS"), std::string::npos);
  EXPECT_NE(text.find("IMPRESSION"), std::string::npos);
  ASSERT_EQ(requests[0].messages[1].images.size(), 1u);
}

TEST_F(VisionClientTest, AnInvalidReplyIsSentBackOnceWithItsProblems) {
  PushText(R"({"findings": "Lungs clear."})");  // no impression
  PushText(R"({"findings": "Lungs clear.", "impression": "Normal chest."})");
  Result<VisionReport> report = client_.Report(*Image("img1"), Deadline::Never(), {});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->impression, "Normal chest.");

  const std::vector<ModelRequest> requests = Requests();
  ASSERT_EQ(requests.size(), 2u);
  const std::vector<Message>& retry = requests[1].messages;
  ASSERT_EQ(retry.size(), 4u);  // system, the user turn again, the bad reply, the problems
  EXPECT_EQ(retry[1].images.size(), 1u);
  EXPECT_EQ(retry[2].role, Role::kAssistant);
  EXPECT_EQ(retry[2].content, R"({"findings": "Lungs clear."})");
  EXPECT_EQ(retry[3].role, Role::kUser);
  EXPECT_NE(retry[3].content.find("impression"), std::string::npos) << retry[3].content;
  EXPECT_EQ(requests[1].response_format, requests[0].response_format);
  EXPECT_TRUE(model_->history_errors().empty());
}

TEST_F(VisionClientTest, TwoInvalidRepliesFailNamingTheModelAndTheProblems) {
  PushText("I cannot see any image.");
  PushText(R"({"answer": "Yes", "confidence": "certain"})");
  Result<VisionAnswer> answer = client_.Answer({Image("img1")}, "Pneumothorax?", Deadline::Never(), {});
  ASSERT_FALSE(answer.ok());
  const std::string message = answer.status().message();
  EXPECT_EQ(answer.status().code(), StatusCode::kParseError);
  EXPECT_NE(message.find("vision model fake"), std::string::npos) << message;
  EXPECT_NE(message.find("/confidence"), std::string::npos) << message;
  EXPECT_NE(message.find("not the schema's JSON"), std::string::npos) << message;
  ASSERT_EQ(Requests().size(), 2u);  // one retry, no more
  // The first problem (no JSON at all) was what the retry said.
  EXPECT_NE(Requests()[1].messages[3].content.find("not JSON"), std::string::npos);
}

TEST_F(VisionClientTest, AnEmptyReplyIsAProblemToo) {
  PushText("");
  PushText("   ");
  Result<VisionReport> report = client_.Report(*Image("img1"), Deadline::Never(), {});
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("empty"), std::string::npos) << report.status().ToString();
}

TEST_F(VisionClientTest, GroundingFractionsBecomePixelsClippedAndDegenerateBoxesDropped) {
  // The image is 200 × 100 pixels.
  PushText(R"({"boxes": [
      {"x0": 0.1, "y0": 0.2, "x1": 0.5, "y1": 0.6},
      {"x0": 0.9, "y0": 0.7, "x1": 1.01, "y1": -0.01},
      {"x0": 0.3, "y0": 0.3, "x1": 0.302, "y1": 0.5},
      {"x0": 0.4, "y0": 0.4, "x1": 0.6, "y1": 0.4}]})");
  Result<Grounding> grounding = client_.Ground(*Image("img1"), "right pleural effusion", Deadline::Never(), {});
  ASSERT_TRUE(grounding.ok()) << grounding.status().ToString();
  EXPECT_EQ(grounding->model, "fake");
  ASSERT_EQ(grounding->boxes.size(), 2u);  // 0.4 px wide and zero high: dropped
  const Box& a = grounding->boxes[0];
  EXPECT_DOUBLE_EQ(a.x0, 20);
  EXPECT_DOUBLE_EQ(a.y0, 20);
  EXPECT_DOUBLE_EQ(a.x1, 100);
  EXPECT_DOUBLE_EQ(a.y1, 60);
  EXPECT_FALSE(a.score.has_value());
  const Box& b = grounding->boxes[1];  // corners sorted, clipped to the image
  EXPECT_DOUBLE_EQ(b.x0, 180);
  EXPECT_DOUBLE_EQ(b.y0, 0);
  EXPECT_DOUBLE_EQ(b.x1, 200);
  EXPECT_DOUBLE_EQ(b.y1, 70);

  const std::vector<ModelRequest> requests = Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].response_format["json_schema"]["name"], "xray_phrase_grounding");
  const std::string& text = requests[0].messages[1].content;
  EXPECT_NE(text.find("right pleural effusion"), std::string::npos);
  EXPECT_NE(text.find("fraction"), std::string::npos);
  EXPECT_NE(text.find("top-left"), std::string::npos);
}

TEST_F(VisionClientTest, GroundingInPixelsIsSentBackAsAProblem) {
  PushText(R"({"boxes": [{"x0": 40, "y0": 20, "x1": 120, "y1": 80}]})");
  PushText(R"({"boxes": []})");
  Result<Grounding> grounding = client_.Ground(*Image("img1"), "cardiomegaly", Deadline::Never(), {});
  ASSERT_TRUE(grounding.ok()) << grounding.status().ToString();
  EXPECT_TRUE(grounding->boxes.empty());  // not found is an answer
  const std::vector<ModelRequest> requests = Requests();
  ASSERT_EQ(requests.size(), 2u);
  const std::string& problems = requests[1].messages[3].content;
  EXPECT_NE(problems.find("/boxes/0/x0"), std::string::npos) << problems;
  EXPECT_NE(problems.find("not a fraction"), std::string::npos) << problems;
}

TEST_F(VisionClientTest, AModelErrorPassesThroughWithTheModelNamed) {
  model_->PushError(Status::Unavailable("POST http://127.0.0.1:9/v1/chat/completions: HTTP 503: overloaded"));
  Result<VisionReport> report = client_.Report(*Image("img1"), Deadline::Never(), {});
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(report.status().message(),
            "vision model fake: POST http://127.0.0.1:9/v1/chat/completions: HTTP 503: overloaded");
  EXPECT_EQ(Requests().size(), 1u);  // transport retries are the model client's, not a schema retry
}

TEST_F(VisionClientTest, BadInputIsRefusedBeforeAnyRequest) {
  EXPECT_EQ(client_.Answer({}, "Effusion?", Deadline::Never(), {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(client_.Answer({nullptr}, "Effusion?", Deadline::Never(), {}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(client_.Answer({Image("img1")}, "  ", Deadline::Never(), {}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(client_.Ground(*Image("img1"), "", Deadline::Never(), {}).status().code(), StatusCode::kInvalidArgument);
  StoredImage no_data = *Image("img3");
  no_data.data_url.clear();
  Result<VisionReport> report = client_.Report(no_data, Deadline::Never(), {});
  EXPECT_EQ(report.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(report.status().message().find("img3"), std::string::npos);
  StoredImage no_pixels = *Image("img4");
  no_pixels.raster = Raster{};
  EXPECT_EQ(client_.Ground(no_pixels, "nodule", Deadline::Never(), {}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(Requests().empty());
}

}  // namespace
}  // namespace medreact::imaging
