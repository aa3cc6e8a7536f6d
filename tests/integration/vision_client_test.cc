// VisionClient end to end through real sockets: the OpenAI-compatible client
// (libcurl) and the scripted model server on 127.0.0.1. Asserts what a vision
// server actually receives: the image as an image_url part and the schema as
// response_format, non-streamed, and that the corrective retry goes over the
// wire too.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "medreact/openai.h"
#include "mockllm/mock_server.h"
#include "tools/imaging/vision_client.h"

namespace medreact::imaging {
namespace {

using mockllm::MockLlmServer;

Json TextReply(const std::string& text) { return Json{{"message", {{"content", text}}}}; }

std::shared_ptr<const StoredImage> Image() {
  auto image = std::make_shared<StoredImage>();
  image->id = "img1";
  image->origin = "user";
  image->raster = Raster{64, 32, 1, std::vector<uint8_t>(64 * 32, 90)};
  image->png = "not-really-png";
  image->data_url = "data:image/png;base64,iVBORw0KGgo=";
  return image;
}

struct Served {
  std::vector<Json> requests;
  std::unique_ptr<MockLlmServer> server;
};

// Starts the scripted server with `replies` and returns a client pointed at it.
VisionClient StartClient(const std::vector<Json>& replies, Served& served) {
  Json responses = Json::array();
  for (const Json& reply : replies) responses.push_back(reply);
  auto script = MockLlmServer::ParseScript({{"responses", responses}});
  EXPECT_TRUE(script.ok()) << script.status().ToString();
  served.server = std::make_unique<MockLlmServer>(*script);
  EXPECT_TRUE(served.server->Start().ok());
  OpenAIOptions options;
  options.base_url = served.server->base_url();
  options.model = "chexagent";
  options.request_timeout = Millis(10'000);
  options.max_retries = 0;
  return VisionClient(MakeOpenAIModel(options));
}

TEST(VisionClientEndToEnd, TheBodyCarriesTheImagePartAndTheJsonSchema) {
  Served served;
  VisionClient client = StartClient(
      {TextReply(R"({"findings": "No focal consolidation.", "impression": "Normal radiograph."})")}, served);
  Result<VisionReport> report = client.Report(*Image(), Deadline::In(Millis(30'000)), {});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->impression, "Normal radiograph.");
  const std::vector<Json> requests = served.server->requests();
  served.server->Stop();

  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0]["path"], "/v1/chat/completions");
  const Json& body = requests[0]["body"];
  EXPECT_EQ(body["model"], "chexagent");
  EXPECT_EQ(body["temperature"], 0.0);
  EXPECT_EQ(body["max_tokens"], 1024);
  EXPECT_FALSE(body.contains("tools"));
  EXPECT_FALSE(body.contains("stream"));
  ASSERT_TRUE(body.contains("response_format")) << body.dump();
  EXPECT_EQ(body["response_format"]["type"], "json_schema");
  EXPECT_EQ(body["response_format"]["json_schema"]["name"], "chest_xray_report");
  EXPECT_EQ(body["response_format"]["json_schema"]["strict"], true);
  EXPECT_EQ(body["response_format"]["json_schema"]["schema"]["type"], "object");

  const Json& messages = body["messages"];
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0]["role"], "system");
  EXPECT_EQ(messages[1]["role"], "user");
  const Json& content = messages[1]["content"];
  ASSERT_TRUE(content.is_array()) << content.dump();
  int images = 0, texts = 0;
  for (const Json& part : content) {
    if (part["type"] == "image_url") {
      ++images;
      EXPECT_EQ(part["image_url"]["url"], "data:image/png;base64,iVBORw0KGgo=");
    } else if (part["type"] == "text") {
      ++texts;
      EXPECT_NE(part["text"].get<std::string>().find("FINDINGS"), std::string::npos);
    }
  }
  EXPECT_EQ(images, 1);
  EXPECT_EQ(texts, 1);
}

TEST(VisionClientEndToEnd, GroundingWithOneCorrectiveRetryOverTheWire) {
  Served served;
  VisionClient client = StartClient({TextReply("The effusion is at the right base."),
                                     TextReply(R"({"boxes": [{"x0": 0.5, "y0": 0.5, "x1": 1.0, "y1": 1.0}]})")},
                                    served);
  Result<Grounding> grounding = client.Ground(*Image(), "right pleural effusion", Deadline::In(Millis(30'000)), {});
  ASSERT_TRUE(grounding.ok()) << grounding.status().ToString();
  ASSERT_EQ(grounding->boxes.size(), 1u);
  EXPECT_DOUBLE_EQ(grounding->boxes[0].x0, 32);
  EXPECT_DOUBLE_EQ(grounding->boxes[0].y0, 16);
  EXPECT_DOUBLE_EQ(grounding->boxes[0].x1, 64);
  EXPECT_DOUBLE_EQ(grounding->boxes[0].y1, 32);
  const std::vector<Json> requests = served.server->requests();
  served.server->Stop();
  ASSERT_EQ(requests.size(), 2u);
  const Json& retry = requests[1]["body"];
  EXPECT_EQ(retry["response_format"], requests[0]["body"]["response_format"]);
  ASSERT_EQ(retry["messages"].size(), 4u);
  EXPECT_EQ(retry["messages"][2]["role"], "assistant");
  EXPECT_NE(retry["messages"][3]["content"].get<std::string>().find("not JSON"), std::string::npos);
}

TEST(VisionClientEndToEnd, AServerErrorNamesTheVisionModel) {
  Served served;
  VisionClient client =
      StartClient({Json{{"status", 400}, {"body", {{"error", {{"message", "image too large"}}}}}}}, served);
  Result<VisionAnswer> answer = client.Answer({Image()}, "Effusion?", Deadline::In(Millis(30'000)), {});
  served.server->Stop();
  ASSERT_FALSE(answer.ok());
  const std::string message = answer.status().message();
  EXPECT_EQ(message.rfind("vision model chexagent: ", 0), 0u) << message;
  EXPECT_NE(message.find("image too large"), std::string::npos) << message;
}

}  // namespace
}  // namespace medreact::imaging
