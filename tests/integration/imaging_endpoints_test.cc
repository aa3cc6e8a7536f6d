// The imaging client over real sockets: libcurl against the scripted server's
// routes (/classify, /segment, /ground) on 127.0.0.1. Success on each
// endpoint with the request the server received (image, key), a 500 that is
// retried, a 500 that never ends, a hang past the call's deadline, a body
// that is not JSON, replies of the wrong shape, a mask of the wrong size and
// a path the server does not know. The validation paths one by one:
// tests/unit/imaging_client_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "mockllm/mock_server.h"
#include "testing/image_builders.h"
#include "tools/imaging/imaging_client.h"

namespace medreact::imaging {
namespace {

using medreact::testing::EncodeTestPng;
using medreact::testing::GreyRaster;
using medreact::testing::GreyStoredImage;
using mockllm::MockLlmServer;
using ::testing::HasSubstr;

Json MaskJson(const Raster& mask) {
  return {{"media_type", "image/png"},
          {"width", mask.width},
          {"height", mask.height},
          {"data", Base64Encode(EncodeTestPng(mask))}};
}

struct Endpoints {
  std::unique_ptr<MockLlmServer> server;
  std::string root;  // "http://127.0.0.1:PORT"
  ImagingClient client;
};

// A scripted server with `routes` and a client of its three paths.
std::unique_ptr<Endpoints> Serve(const Json& routes, const std::string& key = "",
                                 Millis request_timeout = Millis(10'000)) {
  Result<mockllm::MockScript> script = MockLlmServer::ParseScript(Json{{"routes", routes}});
  EXPECT_TRUE(script.ok()) << script.status().ToString();
  if (!script.ok()) return nullptr;
  auto server = std::make_unique<MockLlmServer>(std::move(*script));
  Status started = server->Start();
  EXPECT_TRUE(started.ok()) << started.ToString();
  if (!started.ok()) return nullptr;
  const std::string root = "http://127.0.0.1:" + std::to_string(server->port());
  ImagingEndpoints endpoints{.classifier_url = root + "/classify",
                             .segmentation_url = root + "/segment",
                             .grounding_url = root + "/ground",
                             .api_key = key,
                             .request_timeout = request_timeout};
  return std::make_unique<Endpoints>(Endpoints{std::move(server), root, ImagingClient(endpoints)});
}

// A route answering once with `reply` as its JSON body.
Json JsonRoute(const Json& reply) {
  Json entry = Json::object();
  entry["json"] = reply;
  Json route = Json::object();
  route["responses"] = Json::array({entry});
  return route;
}

Deadline Soon() { return Deadline::In(std::chrono::seconds(30)); }

Json ClassifierReply() {
  return Json::parse(R"({"model": "densenet121-res224-all", "labels": [
      {"label": "Cardiomegaly", "probability": 0.73}, {"label": "Effusion", "probability": 0.12}]})");
}

TEST(ImagingEndpointsTest, AllThreeEndpointsAnswerAndReceiveTheImageAndTheKey) {
  Raster heart = GreyRaster(32, 24, 0);
  for (int y = 8; y < 16; ++y) {
    for (int x = 10; x < 20; ++x) heart.pixels[y * 32 + x] = 255;
  }
  Json segmentation = Json::parse(R"({"model": "pspnet", "structures": [{"name": "Heart"}]})");
  segmentation["structures"][0]["mask"] = MaskJson(heart);
  Json routes = Json::object();
  routes["/classify"] = JsonRoute(ClassifierReply());
  routes["/segment"] = JsonRoute(segmentation);
  routes["/ground"] = JsonRoute(
      Json::parse(R"({"model": "grounder", "boxes": [{"x0": 10, "y0": 8, "x1": 20, "y1": 16, "score": 0.6}]})"));
  auto e = Serve(routes, "sk-test-key");
  ASSERT_TRUE(e);
  const StoredImage image = GreyStoredImage(32, 24, 90);

  Result<Classification> c = e->client.Classify(image, {"Cardiomegaly", "Effusion"}, Soon(), {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->model, "densenet121-res224-all");
  ASSERT_EQ(c->labels.size(), 2u);
  EXPECT_DOUBLE_EQ(c->labels[0].probability, 0.73);

  Result<Segmentation> s = e->client.Segment(image, {"Heart"}, Soon(), {});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->structures.size(), 1u);
  EXPECT_EQ(s->structures[0].name, "Heart");
  EXPECT_EQ(s->structures[0].mask.pixels, heart.pixels);

  Result<Grounding> g = e->client.Ground(image, "enlarged heart", Soon(), {});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->boxes.size(), 1u);
  EXPECT_DOUBLE_EQ(g->boxes[0].x1, 20);
  EXPECT_DOUBLE_EQ(*g->boxes[0].score, 0.6);

  std::vector<Json> requests = e->server->requests();
  ASSERT_EQ(requests.size(), 3u);
  const std::vector<std::string> paths = {"/classify", "/segment", "/ground"};
  for (size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(requests[i]["method"], "POST");
    EXPECT_EQ(requests[i]["path"], paths[i]);
    EXPECT_EQ(requests[i]["headers"]["authorization"], "Bearer sk-test-key");
    EXPECT_EQ(requests[i]["headers"]["content-type"], "application/json");
    EXPECT_EQ(requests[i]["body"]["image"], ImagePayload(image));
  }
  EXPECT_EQ(requests[0]["body"]["labels"], Json::parse(R"(["Cardiomegaly", "Effusion"])"));
  EXPECT_EQ(requests[1]["body"]["structures"], Json::parse(R"(["Heart"])"));
  EXPECT_EQ(requests[2]["body"]["phrase"], "enlarged heart");
  EXPECT_EQ(e->server->served(), 0u);
}

TEST(ImagingEndpointsTest, A500IsRetriedAndASecondAnswerServes) {
  Json routes = Json::parse(R"({"/classify": {"responses": [
      {"status": 500, "body": "model crashed", "headers": {"Retry-After": "0"}}]}})");
  routes["/classify"]["responses"].push_back(JsonRoute(ClassifierReply())["responses"][0]);
  auto e = Serve(routes);
  ASSERT_TRUE(e);
  Result<Classification> c = e->client.Classify(GreyStoredImage(32, 24, 90), {}, Soon(), {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->labels.size(), 2u);
  EXPECT_EQ(e->server->requests().size(), 2u);
}

TEST(ImagingEndpointsTest, A500ThatNeverEndsFailsAfterTheRetriesNamingTheEndpoint) {
  Json routes = Json::parse(R"({"/classify": {"responses": [
      {"status": 500, "body": "model crashed", "headers": {"Retry-After": "0"}}], "on_exhausted": "repeat_last"}})");
  auto e = Serve(routes);
  ASSERT_TRUE(e);
  Status s = e->client.Classify(GreyStoredImage(32, 24, 90), {}, Soon(), {}).status();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message(), "classifier endpoint " + e->root + "/classify: HTTP 500 after 3 attempts: model crashed");
  EXPECT_EQ(e->server->requests().size(), 3u);
}

TEST(ImagingEndpointsTest, AHangPastTheDeadlineIsATimeoutNamingTheEndpoint) {
  Json routes = Json::parse(R"({"/ground": {"responses": [{"hang_ms": 60000}]}})");
  auto e = Serve(routes);
  ASSERT_TRUE(e);
  const auto start = std::chrono::steady_clock::now();
  Status s = e->client.Ground(GreyStoredImage(32, 24, 90), "nodule", Deadline::In(std::chrono::milliseconds(1500)), {})
                 .status();
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(s.code(), StatusCode::kTimeout) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("grounding endpoint " + e->root + "/ground: "));
  EXPECT_LT(took, std::chrono::seconds(30));  // the hang is 60 s
}

TEST(ImagingEndpointsTest, ABodyThatIsNotJsonAndRepliesOfTheWrongShapeAreRefused) {
  Json routes = Json::parse(R"({
      "/classify": {"responses": [
          {"raw_body": "{\"model\": \"m\", \"labels\": ["},
          {"json": {"model": "m", "labels": [{"label": "Edema", "probability": 1.7}]}},
          {"json": {"model": "m", "labels": "Edema"}}]},
      "/ground": {"responses": [{"json": {"model": "g", "boxes": [{"x0": 5, "y0": 1, "x1": 2, "y1": 3}]}}]}})");
  auto e = Serve(routes);
  ASSERT_TRUE(e);
  const std::string classifier = "classifier endpoint " + e->root + "/classify: ";
  Status not_json = e->client.Classify(GreyStoredImage(32, 24, 90), {}, Soon(), {}).status();
  EXPECT_EQ(not_json.code(), StatusCode::kParseError);
  EXPECT_THAT(not_json.message(), HasSubstr(classifier + "response is not JSON"));
  Status outside = e->client.Classify(GreyStoredImage(32, 24, 90), {}, Soon(), {}).status();
  EXPECT_EQ(outside.message(),
            classifier + "response is not the contract's JSON: labels[0].probability: 1.7 is outside [0, 1]");
  Status not_array = e->client.Classify(GreyStoredImage(32, 24, 90), {}, Soon(), {}).status();
  EXPECT_EQ(not_array.message(),
            classifier + "response is not the contract's JSON: labels: expected an array, got string");
  Status box = e->client.Ground(GreyStoredImage(32, 24, 90), "x", Soon(), {}).status();
  EXPECT_EQ(box.message(), "grounding endpoint " + e->root +
                               "/ground: response is not the contract's JSON: boxes[0]: x0 (5) is not less than "
                               "x1 (2)");
  EXPECT_EQ(e->server->requests().size(), 4u);  // none of these is retried
}

TEST(ImagingEndpointsTest, AMaskOfTheWrongSizeIsRefused) {
  Json reply = Json::parse(R"({"model": "pspnet", "structures": [{"name": "Left Lung"}]})");
  reply["structures"][0]["mask"] = MaskJson(GreyRaster(64, 48, 255));
  Json routes = Json::object();
  routes["/segment"] = JsonRoute(reply);
  auto e = Serve(routes);
  ASSERT_TRUE(e);
  Status s = e->client.Segment(GreyStoredImage(32, 24, 90), {}, Soon(), {}).status();
  EXPECT_EQ(s.code(), StatusCode::kParseError);
  EXPECT_EQ(s.message(), "segmentation endpoint " + e->root +
                             "/segment: response is not the contract's JSON: structures[0].mask.width: 64 is not the "
                             "image's width (32 px)");
}

TEST(ImagingEndpointsTest, APathTheServerDoesNotKnowIsA404WithoutRetries) {
  auto e = Serve(Json::object());
  ASSERT_TRUE(e);
  ImagingClient lost({.classifier_url = e->root + "/v2/classify"});
  Status s = lost.Classify(GreyStoredImage(32, 24, 90), {}, Soon(), {}).status();
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "classifier endpoint " + e->root + "/v2/classify: HTTP 404: Invalid URL (POST /v2/classify)");
  EXPECT_EQ(e->server->requests().size(), 1u);
}

}  // namespace
}  // namespace medreact::imaging
