// The chest X-ray agent end to end, in process, over real HTTP on loopback:
// the scripted model server plays the reasoning model and, on its scripted
// routes, the classifier, segmentation and grounding endpoints. The model
// calls classifier and grounding in one turn (they run concurrently), then the
// visualiser, then answers. Checked: the request bodies (one image part per
// request, downscaled, the same bytes every turn), the tool results, the
// annotated PNG, the trace and the graph's events; and the faults (endpoint
// 500, hang, malformed JSON; unreadable inputs) each end as a clear error
// and an answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "testing/build_paths.h"
#include "apps/cxr/cxr_app.h"
#include "apps/cxr/cxr_planner.h"
#include "medreact/http.h"
#include "medreact/json.h"
#include "medreact/openai.h"
#include "mockllm/mock_server.h"
#include "testing/subprocess.h"
#include "tools/imaging/image_codec.h"
#include "tools/imaging/image_store.h"
#include "tools/imaging/imaging_client.h"

namespace medreact {
namespace {

using mockllm::MockLlmServer;
using testing::ReadFileOrEmpty;
using testing::TempDir;

const std::string kDicomDir = MEDREACT_SOURCE_DIR + "/tests/fixtures/dicom/";

// Counts requests in flight through the libcurl transport: the largest
// number at once shows whether one turn's calls ran concurrently.
class CountingTransport : public HttpTransport {
 public:
  Result<HttpResponse> Send(const HttpRequest& request, const HttpChunkHandler& on_chunk,
                            const CancellationToken& cancel) override {
    const int now = ++in_flight_;
    int seen = max_in_flight_.load();
    while (now > seen && !max_in_flight_.compare_exchange_weak(seen, now)) {
    }
    Result<HttpResponse> response = inner_->Send(request, on_chunk, cancel);
    --in_flight_;
    return response;
  }
  int max_in_flight() const { return max_in_flight_.load(); }

 private:
  std::shared_ptr<HttpTransport> inner_ = MakeCurlTransport();
  std::atomic<int> in_flight_{0};
  std::atomic<int> max_in_flight_{0};
};

Json Labels() {
  return {{"model", "scripted-classifier"},
          {"labels",
           {{{"label", "Cardiomegaly"}, {"probability", 0.81}},
            {{"label", "Effusion"}, {"probability", 0.64}},
            {{"label", "Pneumothorax"}, {"probability", 0.03}}}}};
}

// One box, in pixels of the image sent (the 1976 x 1576 file is sent at 1024 x 817, the chest at 440 x 440).
Json Boxes(int x0 = 300, int y0 = 350, int x1 = 700, int y1 = 700) {
  return {{"model", "scripted-grounding"},
          {"boxes", {{{"x0", x0}, {"y0", y0}, {"x1", x1}, {"y1", y1}, {"score", 0.7}}}}};
}

Json ToolCallEntry(std::vector<Json> calls) {
  Json list = Json::array();
  for (Json& c : calls) list.push_back(std::move(c));
  return {{"message", {{"content", nullptr}, {"tool_calls", list}}}};
}

Json AnswerEntry(const std::string& text) { return {{"message", {{"content", text}}}}; }

struct Harness {
  std::unique_ptr<MockLlmServer> server;
  std::shared_ptr<CountingTransport> transport = std::make_shared<CountingTransport>();
  std::shared_ptr<imaging::ImageStore> store;
  TempDir dir;
  std::vector<Event> events;
  std::mutex events_mu;

  void Start(const Json& script) {
    auto parsed = MockLlmServer::ParseScript(script);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    server = std::make_unique<MockLlmServer>(*parsed);
    ASSERT_TRUE(server->Start().ok());
    store = std::make_shared<imaging::ImageStore>(imaging::ImageStoreOptions{.output_dir = dir.path()});
  }
  std::string Base() const { return "http://127.0.0.1:" + std::to_string(server->port()); }

  CxrConfig Config(bool with_model, Millis tool_timeout = Millis(10'000)) {
    CxrConfig config;
    config.tools.store = store;
    imaging::ImagingEndpoints endpoints{.classifier_url = Base() + "/classify",
                                        .segmentation_url = Base() + "/segment",
                                        .grounding_url = Base() + "/ground",
                                        .request_timeout = tool_timeout,
                                        .max_retries = 0};
    config.tools.endpoints = std::make_shared<imaging::ImagingClient>(endpoints, transport);
    if (with_model) {
      OpenAIOptions client;
      client.base_url = server->base_url();
      client.model = "mock-vision";
      client.max_retries = 0;
      config.model = MakeOpenAIModel(client);
    } else {
      config.model = MakeCxrPlanner(store, imaging::kDefaultFindingThreshold);
    }
    config.tool_timeout = tool_timeout;
    config.on_event = [this](const Event& e) {
      std::lock_guard<std::mutex> lock(events_mu);
      events.push_back(e);
    };
    return config;
  }

  std::vector<Json> Requests(const std::string& path) const {
    std::vector<Json> out;
    for (const Json& r : server->requests()) {
      if (r.value("path", std::string()) == path) out.push_back(r);
    }
    return out;
  }
};

// The image_url parts of a chat request body, in order.
std::vector<std::string> ImageUrls(const Json& body) {
  std::vector<std::string> urls;
  for (const Json& m : body.value("messages", Json::array())) {
    if (!m.contains("content") || !m["content"].is_array()) continue;
    for (const Json& part : m["content"]) {
      if (part.value("type", std::string()) == "image_url") urls.push_back(part["image_url"]["url"].get<std::string>());
    }
  }
  return urls;
}

TEST(CxrE2ETest, ClassifyAndGroundConcurrentlyThenVisualiseThenAnswer) {
  Harness h;
  Json script = {
      {"responses",
       {ToolCallEntry({{{"id", "c1"}, {"name", "chest_xray_classifier"}, {"arguments", {{"image_id", "img1"}}}},
                       {{"id", "c2"},
                        {"name", "xray_phrase_grounding"},
                        {"arguments", {{"image_id", "img1"}, {"phrase", "cardiomegaly"}}}}}),
        ToolCallEntry(
            {{{"id", "c3"},
              {"name", "image_visualizer"},
              {"arguments",
               {{"image_id", "img1"},
                {"boxes", {{{"x0", 300}, {"y0", 350}, {"x1", 700}, {"y1", 700}, {"label", "cardiomegaly"}}}}}}}}),
        AnswerEntry("Cardiomegaly (classifier 0.81), located over the cardiac silhouette; see the annotated image.")}},
      {"routes",
       {{"/classify", {{"responses", {{{"status", 200}, {"delay_ms", 400}, {"json", Labels()}}}}}},
        {"/ground", {{"responses", {{{"status", 200}, {"delay_ms", 400}, {"json", Boxes()}}}}}}}}};
  h.Start(script);
  auto image = h.store->AddFile(kDicomDir + "CR-ModalitySequenceLUT.dcm");  // 1976 x 1576, JPEG Lossless
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  CxrTurn turn{.question = "Is the heart enlarged?", .image_ids = {(*image)->id}};
  CxrOutcome out = RunCxr(turn, h.Config(true));

  ASSERT_EQ(out.status, RunStatus::kFinished) << out.error;
  EXPECT_NE(out.answer.find("Cardiomegaly"), std::string::npos);
  // Classifier and grounding were in flight at the same time.
  EXPECT_EQ(h.transport->max_in_flight(), 2);

  // Three model turns; each carries the image once, downscaled, the same bytes.
  std::vector<Json> chats = h.Requests("/v1/chat/completions");
  ASSERT_EQ(chats.size(), 3u);
  std::vector<std::string> first = ImageUrls(chats[0]["body"]);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(first[0].rfind("data:image/png;base64,", 0), 0u);
  for (const Json& chat : chats) EXPECT_EQ(ImageUrls(chat["body"]), first);
  auto png = imaging::Base64Decode(first[0].substr(std::string("data:image/png;base64,").size()));
  ASSERT_TRUE(png.ok());
  auto sent = imaging::DecodePng(*png, "sent");
  ASSERT_TRUE(sent.ok()) << sent.status().ToString();
  EXPECT_EQ(std::max(sent->width, sent->height), 1024);
  EXPECT_EQ(sent->width, (*image)->raster.width);
  // Tool arguments name images by id, never by path.
  for (const Json& chat : chats) {
    EXPECT_EQ(DumpJson(chat["body"]).find(kDicomDir), std::string::npos);
  }
  // The endpoints received the stored (downscaled) image.
  std::vector<Json> classify = h.Requests("/classify");
  ASSERT_EQ(classify.size(), 1u);
  EXPECT_EQ(classify[0]["body"]["image"]["id"], "img1");
  EXPECT_EQ(classify[0]["body"]["image"]["width"], (*image)->raster.width);

  // Tool results and findings.
  const Json& calls = out.result["tool_calls"];
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0]["tool"], "chest_xray_classifier");
  EXPECT_EQ(calls[0]["result"]["above_threshold"], Json({"Cardiomegaly", "Effusion"}));
  EXPECT_EQ(calls[1]["result"]["boxes"][0]["x1"], 700);
  EXPECT_TRUE(calls[2]["ok"].get<bool>());
  EXPECT_EQ(calls[2]["result"]["labels_drawn"], Json({"cardiomegaly"}));  // the finding, for the page's alt text
  ASSERT_EQ(out.result["annotated_images"].size(), 1u);
  const std::string annotated = out.result["annotated_images"][0]["path"].get<std::string>();
  ASSERT_FALSE(annotated.empty());
  auto drawn = imaging::DecodePng(ReadFileOrEmpty(annotated), annotated);
  ASSERT_TRUE(drawn.ok()) << drawn.status().ToString();
  EXPECT_EQ(drawn->channels, 3);
  EXPECT_EQ(drawn->width, (*image)->raster.width);
  // A pixel on the box's top edge is coloured (not grey).
  const size_t at = (static_cast<size_t>(350) * drawn->width + 500) * 3;
  EXPECT_FALSE(drawn->pixels[at] == drawn->pixels[at + 1] && drawn->pixels[at + 1] == drawn->pixels[at + 2]);
  bool found_cardiomegaly = false;
  for (const Json& f : out.result["findings"]) {
    if (f["finding"] == "Cardiomegaly") found_cardiomegaly = f["tool"] == "chest_xray_classifier";
  }
  EXPECT_TRUE(found_cardiomegaly);

  // The trace: three steps, two and one tool results.
  ASSERT_EQ(out.trace.steps.size(), 3u);
  EXPECT_EQ(out.trace.steps[0].tool_results.size(), 2u);
  EXPECT_EQ(out.trace.steps[1].tool_results.size(), 1u);
  EXPECT_EQ(out.trace.status, "finished");
  EXPECT_EQ(out.trace.input["images"][0]["image_id"], "img1");
  EXPECT_EQ(DumpJson(ToJson(out.trace)).find("base64"), std::string::npos);  // no pixels in the trace

  // The graph: reason → act → reason → act → reason → __end__.
  std::vector<std::string> path;
  for (const Event& e : h.events) {
    if (e.type == EventType::kGraphTransition)
      path.push_back(e.data["node"].get<std::string>() + ">" + e.data["next"].get<std::string>());
  }
  EXPECT_EQ(path, (std::vector<std::string>{"reason>act", "act>reason", "reason>act", "act>reason", "reason>__end__"}));
}

TEST(CxrE2ETest, OfflinePlanRunsTheToolsInMedraxOrderAndSaysNoModelWasInvolved) {
  Harness h;
  Json script = {
      {"responses", Json::array()},
      {"routes",
       {{"/classify", {{"responses", {{{"status", 200}, {"json", Labels()}}}}}},
        {"/ground",
         {{"on_exhausted", "repeat_last"}, {"responses", {{{"status", 200}, {"json", Boxes(150, 200, 330, 360)}}}}}},
        {"/segment", {{"responses", {{{"status", 500}, {"body", "segmentation model crashed"}}}}}}}}};
  h.Start(script);
  auto image = h.store->AddFile(kDicomDir + "CR-MONO1-10-chest.dcm");
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  CxrOutcome out = RunCxr({.question = "Any abnormality?", .image_ids = {"img1"}}, h.Config(false));
  ASSERT_EQ(out.status, RunStatus::kFinished) << out.error;
  std::vector<std::string> order;
  for (const Json& c : out.result["tool_calls"]) order.push_back(c["tool"].get<std::string>());
  EXPECT_EQ(order, (std::vector<std::string>{"dicom_processor", "chest_xray_classifier", "xray_phrase_grounding",
                                             "xray_phrase_grounding", "chest_xray_segmentation", "image_visualizer"}));
  EXPECT_NE(out.answer.find("no language model"), std::string::npos);
  EXPECT_NE(out.answer.find("Cardiomegaly: probability 0.81"), std::string::npos);
  EXPECT_NE(out.answer.find("[chest_xray_classifier]"), std::string::npos);
  // The failed endpoint is named with the server's words, and the run went on.
  EXPECT_NE(out.answer.find("chest_xray_segmentation failed"), std::string::npos);
  EXPECT_NE(out.answer.find("segmentation model crashed"), std::string::npos);
  EXPECT_EQ(out.result["tool_errors"].size(), 1u) << out.result["tool_errors"].dump();
  ASSERT_EQ(out.result["annotated_images"].size(), 1u);
}

TEST(CxrE2ETest, EndpointFaultsAreObservationsAndTheRunStillAnswers) {
  Harness h;
  // The classifier hangs past the tool timeout, grounding returns malformed JSON, segmentation 500s.
  Json script = {
      {"responses",
       {ToolCallEntry({{{"id", "c1"}, {"name", "chest_xray_classifier"}, {"arguments", {{"image_id", "img1"}}}},
                       {{"id", "c2"},
                        {"name", "xray_phrase_grounding"},
                        {"arguments", {{"image_id", "img1"}, {"phrase", "effusion"}}}},
                       {{"id", "c3"}, {"name", "chest_xray_segmentation"}, {"arguments", {{"image_id", "img1"}}}}}),
        AnswerEntry("The imaging tools failed; I cannot assess the image.")}},
      {"routes",
       {{"/classify", {{"responses", {{{"hang_ms", 30000}}}}}},
        {"/ground", {{"responses", {{{"status", 200}, {"body", "{\"boxes\": [1, 2"}}}}}},
        {"/segment", {{"responses", {{{"status", 500}, {"body", "out of memory"}}}}}}}}};
  h.Start(script);
  ASSERT_TRUE(h.store->AddFile(kDicomDir + "CR-MONO1-10-chest.dcm").ok());
  CxrOutcome out = RunCxr({.question = "Effusion?", .image_ids = {"img1"}}, h.Config(true, Millis(500)));
  ASSERT_EQ(out.status, RunStatus::kFinished) << out.error;
  const Json& calls = out.result["tool_calls"];
  ASSERT_EQ(calls.size(), 3u);
  for (const Json& c : calls) EXPECT_FALSE(c["ok"].get<bool>()) << c.dump();
  EXPECT_NE(calls[0]["error"].get<std::string>().find("time"), std::string::npos) << calls[0]["error"];
  EXPECT_NE(calls[1]["error"].get<std::string>().find("grounding"), std::string::npos) << calls[1]["error"];
  EXPECT_NE(calls[2]["error"].get<std::string>().find("out of memory"), std::string::npos) << calls[2]["error"];
  // The model saw the three errors.
  std::vector<Json> chats = h.Requests("/v1/chat/completions");
  ASSERT_EQ(chats.size(), 2u);
  const std::string second = DumpJson(chats[1]["body"]);
  EXPECT_NE(second.find("Error: "), std::string::npos);
  h.server->Stop();
}

TEST(CxrE2ETest, ModelThatNeverAnswersStillEndsWithTheOfflineSummary) {
  Harness h;
  Json script = {{"responses", {{{"status", 500}, {"body", "{\"error\": {\"message\": \"model crashed\"}}"}}}},
                 {"on_exhausted", "repeat_last"},
                 {"routes", {{"/classify", {{"responses", {{{"status", 200}, {"json", Labels()}}}}}}}}};
  h.Start(script);
  ASSERT_TRUE(h.store->AddFile(kDicomDir + "CR-MONO1-10-chest.dcm").ok());
  CxrOutcome out = RunCxr({.question = "Anything?", .image_ids = {"img1"}}, h.Config(true));
  EXPECT_EQ(out.status, RunStatus::kError);
  EXPECT_FALSE(out.model_answered);
  EXPECT_NE(out.error.find("model crashed"), std::string::npos) << out.error;
  EXPECT_NE(out.answer.find("no language model"), std::string::npos) << out.answer;
}

TEST(CxrE2ETest, StepLimitEndsWithOneLastCallWithoutTools) {
  Harness h;
  Json loop = ToolCallEntry({{{"name", "chest_xray_classifier"}, {"arguments", {{"image_id", "img1"}}}}});
  Json script = {
      {"responses", {loop, loop, AnswerEntry("Best answer after the limit.")}},
      {"routes",
       {{"/classify", {{"on_exhausted", "repeat_last"}, {"responses", {{{"status", 200}, {"json", Labels()}}}}}}}}};
  h.Start(script);
  ASSERT_TRUE(h.store->AddFile(kDicomDir + "CR-MONO1-10-chest.dcm").ok());
  CxrConfig config = h.Config(true);
  config.max_steps = 2;
  CxrOutcome out = RunCxr({.question = "Anything?", .image_ids = {"img1"}}, config);
  EXPECT_EQ(out.status, RunStatus::kMaxSteps);
  EXPECT_EQ(out.answer, "Best answer after the limit.");
  std::vector<Json> chats = h.Requests("/v1/chat/completions");
  ASSERT_EQ(chats.size(), 3u);
  EXPECT_FALSE(chats[2]["body"].contains("tools"));
  ASSERT_EQ(out.trace.steps.size(), 3u);
  EXPECT_EQ(out.trace.steps[2].kind, "fallback");
}

TEST(CxrE2ETest, TimeoutEndsTheRunWithTheOfflineSummary) {
  Harness h;
  Json script = {{"responses", {{{"delay_ms", 30000}, {"message", {{"content", "too late"}}}}}}};
  h.Start(script);
  ASSERT_TRUE(h.store->AddFile(kDicomDir + "CR-MONO1-10-chest.dcm").ok());
  CxrConfig config = h.Config(true);
  config.timeout = Millis(300);  // against a 30 s reply
  CxrOutcome out = RunCxr({.question = "Anything?", .image_ids = {"img1"}}, config);
  EXPECT_EQ(out.status, RunStatus::kTimeout) << out.error;
  EXPECT_NE(out.answer.find("time limit"), std::string::npos) << out.answer;
  h.server->Stop();
}

TEST(CxrE2ETest, FollowUpQuestionKeepsHistoryAndImagesById) {
  Harness h;
  Json script = {{"responses", {AnswerEntry("Which side do you mean?"), AnswerEntry("The left side is clear.")}}};
  h.Start(script);
  ASSERT_TRUE(h.store->AddFile(kDicomDir + "CR-MONO1-10-chest.dcm").ok());
  CxrConfig config = h.Config(true);
  CxrOutcome first = RunCxr({.question = "Is there an effusion?", .image_ids = {"img1"}}, config);
  ASSERT_EQ(first.answer, "Which side do you mean?");
  CxrOutcome second = RunCxr({.question = "The left.", .history = first.messages}, config);
  EXPECT_EQ(second.answer, "The left side is clear.");
  std::vector<Json> chats = h.Requests("/v1/chat/completions");
  ASSERT_EQ(chats.size(), 2u);
  EXPECT_EQ(ImageUrls(chats[1]["body"]), ImageUrls(chats[0]["body"]));  // the image, once, from the history
  EXPECT_EQ(ImageUrls(chats[1]["body"]).size(), 1u);
  EXPECT_EQ(chats[1]["body"]["messages"].size(), 4u);  // system, question, clarification, answer
}

}  // namespace
}  // namespace medreact
