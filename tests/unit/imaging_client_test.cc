// Tests of the imaging endpoints' client with an in-process fake transport:
// the requests it sends (image payload, labels, phrase, Bearer key), the
// strict reading of each reply (every error names the JSON path), masks
// (grey, RGB made grey, wrong size), boxes (slack, clipping), retries and
// their messages (the endpoint named, the key never shown), and the
// environment. The same client against the real scripted server:
// tests/integration/imaging_endpoints_test.cc.
#include "tools/imaging/imaging_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "testing/image_builders.h"

namespace medreact::imaging {
namespace {

using medreact::testing::EncodeTestPng;
using medreact::testing::GreyRaster;
using medreact::testing::GreyStoredImage;
using ::testing::HasSubstr;
using ::testing::Not;

struct Reply {
  Status error;  // a transport failure when not OK
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// Answers from a queue of replies and records every request.
class FakeTransport : public HttpTransport {
 public:
  explicit FakeTransport(std::vector<Reply> replies) : replies_(replies.begin(), replies.end()) {}

  Result<HttpResponse> Send(const HttpRequest& request, const HttpChunkHandler&, const CancellationToken&) override {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(request);
    if (replies_.empty()) return Status::Internal("fake transport: no reply left");
    Reply reply = std::move(replies_.front());
    replies_.pop_front();
    if (!reply.error.ok()) return reply.error;
    HttpResponse response;
    response.status = reply.status;
    response.body = std::move(reply.body);
    response.headers = std::move(reply.headers);
    return response;
  }

  std::vector<HttpRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  mutable std::mutex mu_;
  std::deque<Reply> replies_;
  std::vector<HttpRequest> requests_;
};

Reply Ok(const std::string& body) { return Reply{.body = body}; }
// A retryable status whose Retry-After-ms makes the retry immediate.
Reply Fail(int status, const std::string& body) {
  return Reply{.status = status, .body = body, .headers = {{"retry-after-ms", "0"}}};
}

const char kClassifierUrl[] = "http://127.0.0.1:5/classify";
const char kSegmentationUrl[] = "http://127.0.0.1:5/segment";
const char kGroundingUrl[] = "http://127.0.0.1:5/ground";

struct Fixture {
  std::shared_ptr<FakeTransport> transport;
  ImagingClient client;
};

Fixture Client(std::vector<Reply> replies, const std::string& key = "", int max_retries = 2) {
  auto transport = std::make_shared<FakeTransport>(std::move(replies));
  ImagingEndpoints endpoints{.classifier_url = kClassifierUrl,
                             .segmentation_url = kSegmentationUrl,
                             .grounding_url = kGroundingUrl,
                             .api_key = key,
                             .max_retries = max_retries};
  return Fixture{transport, ImagingClient(endpoints, transport)};
}

std::string Header(const HttpRequest& request, const std::string& name) {
  for (const auto& [k, v] : request.headers) {
    if (k == name) return v;
  }
  return "<absent>";
}

Status ClassifyWith(const std::string& body) {
  Fixture f = Client({Ok(body)});
  return f.client.Classify(GreyStoredImage(8, 6, 128), {}, Deadline::Never(), {}).status();
}

TEST(ImagingClientTest, ClassifySendsTheImageTheLabelsAndTheKeyAndReadsTheProbabilities) {
  Fixture f = Client({Ok(R"({"model": "densenet121-res224-all", "labels": [
      {"label": "Cardiomegaly", "probability": 0.81}, {"label": "Effusion", "probability": 0}],
      "extra": "ignored"})")},
                     "sk-secret");
  const StoredImage image = GreyStoredImage(8, 6, 128);
  Result<Classification> c = f.client.Classify(image, {"Cardiomegaly", "Effusion"}, Deadline::Never(), {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->model, "densenet121-res224-all");
  ASSERT_EQ(c->labels.size(), 2u);
  EXPECT_EQ(c->labels[0].label, "Cardiomegaly");
  EXPECT_DOUBLE_EQ(c->labels[0].probability, 0.81);
  EXPECT_EQ(c->labels[1].label, "Effusion");

  std::vector<HttpRequest> sent = f.transport->requests();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].method, "POST");
  EXPECT_EQ(sent[0].url, kClassifierUrl);
  EXPECT_EQ(Header(sent[0], "Authorization"), "Bearer sk-secret");
  EXPECT_EQ(Header(sent[0], "Content-Type"), "application/json");
  Json body = Json::parse(sent[0].body);
  EXPECT_EQ(body["labels"], Json::parse(R"(["Cardiomegaly", "Effusion"])"));
  EXPECT_EQ(body["image"]["id"], "img1");
  EXPECT_EQ(body["image"]["media_type"], "image/png");
  EXPECT_EQ(body["image"]["width"], 8);
  EXPECT_EQ(body["image"]["height"], 6);
  Result<std::string> png = Base64Decode(body["image"]["data"].get<std::string>());
  ASSERT_TRUE(png.ok());
  EXPECT_EQ(*png, image.png);
  EXPECT_EQ(body["image"], ImagePayload(image));
}

TEST(ImagingClientTest, WithoutLabelsOrKeyNeitherIsSent) {
  Fixture f = Client({Ok(R"({"model": "m", "labels": [{"label": "Edema", "probability": 1}]})")});
  ASSERT_TRUE(f.client.Classify(GreyStoredImage(8, 6, 128), {}, Deadline::Never(), {}).ok());
  HttpRequest sent = f.transport->requests().at(0);
  EXPECT_EQ(Header(sent, "Authorization"), "<absent>");
  EXPECT_FALSE(Json::parse(sent.body).contains("labels"));
}

TEST(ImagingClientTest, ImagePayloadEncodesThePngWhenThereIsNoDataUrl) {
  StoredImage image = GreyStoredImage(8, 6, 128);
  image.data_url.clear();
  Json payload = ImagePayload(image);
  EXPECT_EQ(payload["data"], Base64Encode(image.png));
  EXPECT_EQ(payload, ImagePayload(GreyStoredImage(8, 6, 128)));
}

TEST(ImagingClientTest, ClassifierRepliesOutsideTheContractNameThePath) {
  const std::string prefix = "classifier endpoint http://127.0.0.1:5/classify: response is not the contract's JSON: ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"([])", "expected an object, got array"},
      {R"({"labels": []})", "model: missing"},
      {R"({"model": 3, "labels": []})", "model: expected a string, got number"},
      {R"({"model": "m"})", "labels: missing"},
      {R"({"model": "m", "labels": {}})", "labels: expected an array, got object"},
      {R"({"model": "m", "labels": []})", "labels: is empty: a classifier gives at least one label"},
      {R"({"model": "m", "labels": [7]})", "labels[0]: expected an object, got number"},
      {R"({"model": "m", "labels": [{"probability": 0.1}]})", "labels[0].label: missing"},
      {R"({"model": "m", "labels": [{"label": " ", "probability": 0.1}]})", "labels[0].label: is empty"},
      {R"({"model": "m", "labels": [{"label": "Edema"}]})", "labels[0].probability: missing"},
      {R"({"model": "m", "labels": [{"label": "Edema", "probability": "0.1"}]})",
       "labels[0].probability: expected a number, got string"},
      {R"({"model": "m", "labels": [{"label": "Edema", "probability": true}]})",
       "labels[0].probability: expected a number, got boolean"},
      {R"({"model": "m", "labels": [{"label": "A", "probability": 0}, {"label": "B", "probability": 0},
          {"label": "C", "probability": 0}, {"label": "D", "probability": 1.7}]})",
       "labels[3].probability: 1.7 is outside [0, 1]"},
      {R"({"model": "m", "labels": [{"label": "A", "probability": -0.01}]})",
       "labels[0].probability: -0.01 is outside [0, 1]"},
      {R"({"model": "m", "labels": [{"label": "A", "probability": 0.2}, {"label": "A", "probability": 0.3}]})",
       "labels[1].label: 'A' appears twice"},
  };
  for (const auto& [body, message] : cases) {
    Status s = ClassifyWith(body);
    EXPECT_EQ(s.code(), StatusCode::kParseError) << body;
    EXPECT_EQ(s.message(), prefix + message) << body;
  }
  Status not_json = ClassifyWith("{\"model\": ");
  EXPECT_EQ(not_json.code(), StatusCode::kParseError);
  EXPECT_THAT(not_json.message(),
              HasSubstr("classifier endpoint http://127.0.0.1:5/classify: response is not JSON (HTTP 200, 10 bytes)"));
}

std::string SegmentationBody(const std::string& mask_json) {
  return R"({"model": "pspnet", "structures": [{"name": "Heart", "mask": )" + mask_json + "}]}";
}

std::string MaskJson(const Raster& mask) {
  return Json{{"media_type", "image/png"},
              {"width", mask.width},
              {"height", mask.height},
              {"data", Base64Encode(EncodeTestPng(mask))}}
      .dump();
}

TEST(ImagingClientTest, SegmentDecodesGreyMasksAndMakesRgbMasksGrey) {
  Raster grey = GreyRaster(8, 6);
  grey.pixels[3] = 1;
  grey.pixels[10] = 200;
  Raster rgb{.width = 8, .height = 6, .channels = 3, .pixels = std::vector<uint8_t>(8 * 6 * 3, 0)};
  rgb.pixels[3 * 5 + 2] = 9;  // pixel 5: blue only
  rgb.pixels[3 * 7 + 0] = 255;
  std::string body = R"({"model": "pspnet", "structures": [{"name": "Heart", "mask": )" + MaskJson(grey) +
                     R"(}, {"name": "Left Lung", "mask": {"data": ")" + Base64Encode(EncodeTestPng(rgb)) + R"("}}]})";
  Fixture f = Client({Ok(body)});
  Result<Segmentation> s = f.client.Segment(GreyStoredImage(8, 6, 128), {"Heart", "Left Lung"}, Deadline::Never(), {});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->model, "pspnet");
  ASSERT_EQ(s->structures.size(), 2u);
  EXPECT_EQ(s->structures[0].name, "Heart");
  EXPECT_EQ(s->structures[0].mask.channels, 1);
  EXPECT_EQ(s->structures[0].mask.pixels, grey.pixels);
  const Raster& lung = s->structures[1].mask;
  ASSERT_TRUE(lung.valid());
  EXPECT_EQ(lung.channels, 1);
  std::vector<uint8_t> expected(8 * 6, 0);
  expected[5] = 255;
  expected[7] = 255;
  EXPECT_EQ(lung.pixels, expected);
  EXPECT_EQ(Json::parse(f.transport->requests().at(0).body)["structures"], Json::parse(R"(["Heart", "Left Lung"])"));
}

TEST(ImagingClientTest, MasksOfTheWrongSizeOrNotPngAreRefusedNamingTheStructure) {
  const std::string prefix =
      "segmentation endpoint http://127.0.0.1:5/segment: response is not the contract's JSON: structures[0].";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {SegmentationBody(MaskJson(GreyRaster(16, 12))), "mask.width: 16 is not the image's width (8 px)"},
      {SegmentationBody(R"({"data": ")" + Base64Encode(EncodeTestPng(GreyRaster(16, 12))) + R"("})"),
       "mask: the mask is 16 × 12 px, the image img1 is 8 × 6 px"},
      {SegmentationBody(R"({"data": "not base64!"})"), "mask.data: not base64: "},
      {SegmentationBody(R"({"data": ")" + Base64Encode("GIF89a, not a PNG at all") + R"("})"),
       "mask.data: not a PNG: "},
      {SegmentationBody(R"({"media_type": "image/jpeg", "data": ""})"),
       "mask.media_type: expected \"image/png\", got \"image/jpeg\""},
      {SegmentationBody(R"({"width": 8})"), "mask.data: missing"},
      {SegmentationBody(R"("iVBORw0KGgo=")"), "mask: expected an object, got string"},
      {R"({"model": "p", "structures": [{"mask": {}}]})", "name: missing"},
  };
  for (const auto& [body, message] : cases) {
    Fixture f = Client({Ok(body)});
    Status s = f.client.Segment(GreyStoredImage(8, 6, 128), {}, Deadline::Never(), {}).status();
    EXPECT_EQ(s.code(), StatusCode::kParseError) << body;
    EXPECT_THAT(s.message(), HasSubstr(prefix + message)) << body.substr(0, 200);
  }
}

TEST(ImagingClientTest, BoxesWithinAPixelAreClippedAndOthersRefused) {
  Fixture f = Client({Ok(R"({"model": "g", "boxes": [
      {"x0": -0.5, "y0": 1, "x1": 8.75, "y1": 5, "score": 0.9},
      {"x0": 2, "y0": 2.5, "x1": 3, "y1": 6, "score": null}]})"),
                      Ok(R"({"model": "g", "boxes": []})")});
  Result<Grounding> g = f.client.Ground(GreyStoredImage(8, 6, 128), "cardiomegaly", Deadline::Never(), {});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->boxes.size(), 2u);
  EXPECT_DOUBLE_EQ(g->boxes[0].x0, 0);
  EXPECT_DOUBLE_EQ(g->boxes[0].x1, 8);
  EXPECT_DOUBLE_EQ(g->boxes[0].y0, 1);
  EXPECT_DOUBLE_EQ(g->boxes[0].y1, 5);
  ASSERT_TRUE(g->boxes[0].score.has_value());
  EXPECT_DOUBLE_EQ(*g->boxes[0].score, 0.9);
  EXPECT_DOUBLE_EQ(g->boxes[1].y0, 2.5);
  EXPECT_FALSE(g->boxes[1].score.has_value());
  EXPECT_EQ(Json::parse(f.transport->requests().at(0).body)["phrase"], "cardiomegaly");

  Result<Grounding> none = f.client.Ground(GreyStoredImage(8, 6, 128), "pneumothorax", Deadline::Never(), {});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->boxes.empty());

  const std::string prefix = "grounding endpoint http://127.0.0.1:5/ground: response is not the contract's JSON: ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"model": "g", "boxes": [{"x0": 0, "y0": 0, "x1": 9.5, "y1": 1}]})",
       "boxes[0].x1: 9.5 px is outside the image (0 to 8 px)"},
      {R"({"model": "g", "boxes": [{"x0": 0, "y0": -2, "x1": 1, "y1": 1}]})",
       "boxes[0].y0: -2 px is outside the image (0 to 6 px)"},
      {R"({"model": "g", "boxes": [{"x0": 0, "y0": 0, "x1": "4", "y1": 1}]})",
       "boxes[0].x1: expected a number, got string"},
      {R"({"model": "g", "boxes": [{"x0": 0, "y0": 0, "y1": 1}]})", "boxes[0].x1: missing"},
      {R"({"model": "g", "boxes": [{"x0": 3, "y0": 0, "x1": 3, "y1": 1}]})",
       "boxes[0]: x0 (3) is not less than x1 (3)"},
      {R"({"model": "g", "boxes": [{"x0": 0, "y0": 4, "x1": 3, "y1": 1}]})",
       "boxes[0]: y0 (4) is not less than y1 (1)"},
      {R"({"model": "g", "boxes": [{"x0": -1, "y0": 0, "x1": -0.5, "y1": 1}]})",
       "boxes[0]: is empty once clipped to the image"},
      {R"({"model": "g", "boxes": [{"x0": 0, "y0": 0, "x1": 1, "y1": 1, "score": 2}]})",
       "boxes[0].score: 2 is outside [0, 1]"},
      {R"({"model": "g", "boxes": [[0, 0, 1, 1]]})", "boxes[0]: expected an object, got array"},
      {R"({"model": "g", "boxes": null})", "boxes: expected an array, got null"},
  };
  for (const auto& [body, message] : cases) {
    Fixture bad = Client({Ok(body)});
    Status s = bad.client.Ground(GreyStoredImage(8, 6, 128), "x", Deadline::Never(), {}).status();
    EXPECT_EQ(s.code(), StatusCode::kParseError) << body;
    EXPECT_EQ(s.message(), prefix + message) << body;
  }
}

TEST(ImagingClientTest, RetryableFailuresAreRetriedAndTheLastOneNamesTheEndpoint) {
  const std::string crashed = R"({"error": {"message": "model crashed"}})";
  Fixture f = Client({Fail(500, crashed), Fail(500, crashed), Fail(500, crashed)});
  Status s = f.client.Classify(GreyStoredImage(8, 6, 128), {}, Deadline::Never(), {}).status();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message(), "classifier endpoint http://127.0.0.1:5/classify: HTTP 500 after 3 attempts: model crashed");
  EXPECT_EQ(f.transport->requests().size(), 3u);

  Fixture recovers = Client({Fail(503, "busy"), Reply{.error = Status::Unavailable("connection reset")},
                             Ok(R"({"model": "m", "labels": [{"label": "Mass", "probability": 0.5}]})")});
  Result<Classification> c = recovers.client.Classify(GreyStoredImage(8, 6, 128), {}, Deadline::Never(), {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(recovers.transport->requests().size(), 3u);

  Fixture refused = Client({Reply{.error = Status::Unavailable("connection refused")}}, "", 0);
  Status r = refused.client.Ground(GreyStoredImage(8, 6, 128), "x", Deadline::Never(), {}).status();
  EXPECT_EQ(r.code(), StatusCode::kUnavailable);
  EXPECT_EQ(r.message(), "grounding endpoint http://127.0.0.1:5/ground: after 1 attempt: connection refused");

  Fixture limited = Client({Fail(429, "slow down")}, "", 0);
  EXPECT_EQ(limited.client.Classify(GreyStoredImage(8, 6, 128), {}, Deadline::Never(), {}).status().code(),
            StatusCode::kResourceExhausted);
}

TEST(ImagingClientTest, ClientErrorsAreNotRetried) {
  const std::vector<std::pair<int, StatusCode>> cases = {{400, StatusCode::kInvalidArgument},
                                                         {401, StatusCode::kPermissionDenied},
                                                         {403, StatusCode::kPermissionDenied},
                                                         {404, StatusCode::kNotFound},
                                                         {422, StatusCode::kInvalidArgument}};
  for (const auto& [status, code] : cases) {
    Fixture f = Client({Reply{.status = status, .body = R"({"detail": "image too small"})"}});
    Status s = f.client.Segment(GreyStoredImage(8, 6, 128), {}, Deadline::Never(), {}).status();
    EXPECT_EQ(s.code(), code) << status;
    EXPECT_EQ(s.message(),
              "segmentation endpoint http://127.0.0.1:5/segment: HTTP " + std::to_string(status) + ": image too small");
    EXPECT_EQ(f.transport->requests().size(), 1u);
  }
}

TEST(ImagingClientTest, TheKeyAndUrlCredentialsNeverAppearInMessages) {
  auto transport = std::make_shared<FakeTransport>(
      std::vector<Reply>{Reply{.status = 401, .body = R"({"error": "bad token sk-secret-123"})"}});
  ImagingClient client({.classifier_url = "http://user:pw@127.0.0.1:5/classify?token=abc", .api_key = "sk-secret-123"},
                       transport);
  Status s = client.Classify(GreyStoredImage(8, 6, 128), {}, Deadline::Never(), {}).status();
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(s.message(), "classifier endpoint http://***@127.0.0.1:5/classify?***: HTTP 401: bad token ***");
  EXPECT_EQ(Header(transport->requests().at(0), "Authorization"), "Bearer sk-secret-123");
}

TEST(ImagingClientTest, UnconfiguredEndpointsBadImagesAndCancellation) {
  auto transport = std::make_shared<FakeTransport>(std::vector<Reply>{});
  ImagingClient none({}, transport);
  EXPECT_FALSE(none.has_classifier());
  EXPECT_FALSE(none.has_segmentation());
  EXPECT_FALSE(none.has_grounding());
  EXPECT_EQ(none.Classify(GreyStoredImage(8, 6, 128), {}, Deadline::Never(), {}).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(none.Segment(GreyStoredImage(8, 6, 128), {}, Deadline::Never(), {}).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_THAT(none.Ground(GreyStoredImage(8, 6, 128), "x", Deadline::Never(), {}).status().message(),
              HasSubstr("MEDREACT_CXR_GROUNDING_URL"));

  Fixture f = Client({});
  StoredImage empty;
  empty.id = "img9";
  EXPECT_EQ(f.client.Classify(empty, {}, Deadline::Never(), {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(f.client.Ground(GreyStoredImage(8, 6, 128), "  ", Deadline::Never(), {}).status().code(),
            StatusCode::kInvalidArgument);
  CancellationToken cancel;
  cancel.Cancel();
  Status cancelled = f.client.Classify(GreyStoredImage(8, 6, 128), {}, Deadline::Never(), cancel).status();
  EXPECT_EQ(cancelled.code(), StatusCode::kCancelled);
  EXPECT_EQ(cancelled.message(), "classifier endpoint http://127.0.0.1:5/classify: cancelled");
  EXPECT_TRUE(f.transport->requests().empty());
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    if (value == nullptr) {
      unsetenv(name);
    } else {
      setenv(name, value, 1);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(ImagingClientTest, ResolveReadsTheEnvironmentAndRefusesUrlsThatAreNotHttp) {
  ScopedEnv classifier("MEDREACT_CXR_CLASSIFIER_URL", " http://127.0.0.1:8081/classify ");
  ScopedEnv segmentation("MEDREACT_CXR_SEGMENTATION_URL", nullptr);
  ScopedEnv grounding("MEDREACT_CXR_GROUNDING_URL", "https://models.example/ground");
  ScopedEnv key("MEDREACT_CXR_API_KEY", "k1");
  Result<ImagingEndpoints> e = ResolveImagingEndpoints({});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->classifier_url, "http://127.0.0.1:8081/classify");
  EXPECT_EQ(e->segmentation_url, "");
  EXPECT_EQ(e->grounding_url, "https://models.example/ground");
  EXPECT_EQ(e->api_key, "k1");

  Result<ImagingEndpoints> given = ResolveImagingEndpoints({.classifier_url = "http://h/c", .api_key = "k2"});
  ASSERT_TRUE(given.ok());
  EXPECT_EQ(given->classifier_url, "http://h/c");  // the option wins
  EXPECT_EQ(given->api_key, "k2");

  ScopedEnv bad("MEDREACT_CXR_SEGMENTATION_URL", "ftp://user:pw@host/segment");
  Result<ImagingEndpoints> refused = ResolveImagingEndpoints({});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message(),
            "segmentation endpoint: the URL given by MEDREACT_CXR_SEGMENTATION_URL ('ftp://***@host/segment') is not "
            "an http:// or https:// URL with a host (MEDREACT_CXR_SEGMENTATION_URL)");
  EXPECT_FALSE(ResolveImagingEndpoints({.grounding_url = "http://"}).ok());
  EXPECT_FALSE(ResolveImagingEndpoints({.grounding_url = "127.0.0.1:5/ground"}).ok());
}

}  // namespace
}  // namespace medreact::imaging
