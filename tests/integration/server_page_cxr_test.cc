// The Chest X-ray view of the clinician's page (web/cxr.js) and what the
// server gives it:
// - ServerCxrConversationTest: a conversation over several runs through
//   `medreact serve` (POST /v1/runs with `continues`): the follow-up run gets
//   the earlier run's conversation (its answer included) and its images
//   under the same ids, and GET /v1/runs/{id}/images lists the images a run
//   kept — a DICOM's PNG rendering beside its bytes, the annotated image by
//   its hash — without the server's paths; refusals name their input (an
//   upload by its form part, never by the server's folder).
// - ServerPageCxrTest: tests/node/page_cxr.mjs in Debian's chromium against
//   a real `medreact serve`, the scripted model and imaging endpoints (a
//   DICOM uploaded through the page's file input, the annotated image shown
//   with its alt text and its toggle, the clarifying question answered in
//   place, two browser contexts that never see each other's images, axe,
//   the `cxr` screenshot).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "mockllm/mock_server.h"
#include "service/run_service.h"
#include "store/run_store.h"
#include "testing/build_paths.h"
#include "testing/image_builders.h"
#include "testing/page_script.h"
#include "testing/serve_fixture.h"
#include "testing/subprocess.h"
#include "tools/imaging/image_codec.h"

namespace medreact::server {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::ServeFixture;

const std::string kDicomDir = MEDREACT_SOURCE_DIR + "/tests/fixtures/dicom/";

Json Body(const httplib::Result& r) { return ServeFixture::JsonOf(r); }

Json Call(const std::string& id, const std::string& name, const Json& arguments) {
  return {{"id", id}, {"name", name}, {"arguments", arguments}};
}

// One conversation's script, by turn (the number of assistant messages in
// the request): classify and ground, draw, ask a clarifying question, then
// (the follow-up run) answer.
Json Script() {
  return {{"select", "by_turn"},
          {"responses",
           {{{"message",
              {{"content", nullptr},
               {"tool_calls",
                {Call("cls1", "chest_xray_classifier", {{"image_id", "img1"}}),
                 Call("grd1", "xray_phrase_grounding", {{"image_id", "img1"}, {"phrase", "cardiomegaly"}})}}}}},
            {{"message",
              {{"content", nullptr},
               {"tool_calls",
                {Call("viz1", "image_visualizer",
                      {{"image_id", "img1"},
                       {"boxes", {{{"x0", 120}, {"y0", 150}, {"x1", 330}, {"y1", 340}, {"label", "Cardiomegaly"}}}}})}}}}},
            {{"message", {{"content", "Cardiomegaly is likely (classifier 0.81). Is this film PA or AP?"}}}},
            {{"message", {{"content", "On a PA film the enlarged heart stands: cardiomegaly (decision support)."}}}}}},
          {"routes",
           {{"/classify",
             {{"on_exhausted", "repeat_last"},
              {"responses",
               {{{"json",
                  {{"model", "scripted-classifier"},
                   {"labels",
                    {{{"label", "Cardiomegaly"}, {"probability", 0.81}},
                     {{"label", "Pneumothorax"}, {"probability", 0.03}}}}}}}}}}},
            {"/ground",
             {{"on_exhausted", "repeat_last"},
              {"responses",
               {{{"json",
                  {{"model", "scripted-grounding"},
                   {"boxes", {{{"x0", 120}, {"y0", 150}, {"x1", 330}, {"y1", 340}, {"score", 0.7}}}}}}}}}}}}}};
}

Json WaitEnded(ServeFixture& srv, const std::string& id) {
  Json run;
  for (int i = 0; i < 400; ++i) {
    run = Body(srv.Get("/v1/runs/" + id));
    const std::string status = StringOr(run["run"], "status");
    if (status != "running" && !status.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return run;
}

void ExpectError(const httplib::Result& r, int status, const std::string& field, const std::string& words) {
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, status) << r->body;
  Json j = Body(r);
  EXPECT_EQ(StringOr(j["error"], "field"), field) << r->body;
  EXPECT_THAT(StringOr(j["error"], "message"), HasSubstr(words)) << r->body;
}

TEST(ServerCxrConversationTest, AFollowUpRunGoesOnFromTheEarlierRunsConversationAndImages) {
  Result<mockllm::MockScript> parsed = mockllm::MockLlmServer::ParseScript(Script());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  mockllm::MockLlmServer mock(*parsed);
  ASSERT_TRUE(mock.Start().ok());
  const std::string root = "http://127.0.0.1:" + std::to_string(mock.port());
  testing::TempDir more;  // a PNG added by a later question
  more.Write("later.png", testing::BuildPng({.width = 8, .height = 6, .samples = std::vector<uint16_t>(48, 200)}));
  ServeFixture srv({.input_roots = {kDicomDir, more.path()},
                    .model = {.url = mock.base_url(), .name = "mock", .max_retries = 0},
                    .classifier_url = root + "/classify",
                    .grounding_url = root + "/ground"});

  // The first question, over a DICOM.
  auto first = srv.Post("/v1/runs", DumpJson(Json{{"app", "cxr"},
                                                  {"inputs",
                                                   {{"question", "Is the heart enlarged?"},
                                                    {"planner", "model"},
                                                    {"images", {kDicomDir + "CR-MONO1-10-chest.dcm"}}}}}));
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 201) << first->body;
  const std::string a = StringOr(Body(first)["run"], "id");
  Json ended = WaitEnded(srv, a);
  ASSERT_EQ(ended["run"]["status"], "finished") << ended.dump();
  EXPECT_EQ(ended["run"]["result"]["answer"], "Cardiomegaly is likely (classifier 0.81). Is this film PA or AP?");

  // Its images: the DICOM's bytes with their PNG rendering, and the annotated picture.
  Json images = Body(srv.Get("/v1/runs/" + a + "/images"));
  EXPECT_EQ(images["run_id"], a);
  ASSERT_EQ(images["images"].size(), 2u) << images.dump();
  const Json& dicom = images["images"][0];
  const Json& drawn = images["images"][1];
  EXPECT_EQ(dicom["id"], "img1");
  EXPECT_EQ(dicom["origin"], "user");
  EXPECT_EQ(dicom["format"], "dicom");
  EXPECT_EQ(dicom["label"], "CR-MONO1-10-chest.dcm");
  EXPECT_FALSE(dicom.contains("path")) << "the server's paths stay on the server";
  EXPECT_EQ(drawn["id"], "img2");
  EXPECT_EQ(drawn["origin"], "image_visualizer");
  EXPECT_EQ(drawn["label"], "annotated-img1");
  EXPECT_EQ(drawn["format"], "png");
  EXPECT_FALSE(drawn.contains("png_sha256"));
  auto raw = srv.Get("/v1/artifacts/" + StringOr(dicom, "sha256"));
  ASSERT_TRUE(raw);
  EXPECT_EQ(raw->status, 200);
  EXPECT_THAT(raw->get_header_value("content-type"), Not(HasSubstr("image/")));  // the file's own bytes, no picture
  EXPECT_EQ(raw->body, testing::ReadFileOrEmpty(kDicomDir + "CR-MONO1-10-chest.dcm"));
  for (const std::string& hash : {StringOr(dicom, "png_sha256"), StringOr(drawn, "sha256")}) {
    auto png = srv.Get("/v1/artifacts/" + hash);
    ASSERT_TRUE(png);
    ASSERT_EQ(png->status, 200) << hash;
    EXPECT_EQ(png->get_header_value("content-type"), "image/png");
    Result<imaging::Raster> decoded = imaging::DecodePng(png->body, hash, {});
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(decoded->width, 440);  // the chest as the run saw it (440 x 440), annotated or not
    EXPECT_EQ(decoded->height, 440);
  }
  // The visualiser's result names what it drew (the page's alt text).
  Json shown = Body(srv.Get("/v1/runs/" + a));
  bool labelled = false;
  for (const Json& step : shown["steps"]) {
    for (const Json& r : step["tool_results"]) {
      if (StringOr(r, "name") != "image_visualizer") continue;
      Result<Json> result = ParseJson(StringOr(r, "content"));
      ASSERT_TRUE(result.ok()) << StringOr(r, "content");
      labelled = (*result)["labels_drawn"] == Json({"Cardiomegaly"}) && (*result)["image_id"] == "img2";
    }
  }
  EXPECT_TRUE(labelled) << shown["steps"].dump();

  // The answer to the clarifying question goes on from that run, without images of its own.
  const size_t chats_before = mock.requests().size();
  auto reply = srv.Post("/v1/runs", DumpJson(Json{{"app", "cxr"},
                                                  {"inputs", {{"question", "PA."}, {"planner", "model"},
                                                              {"continues", a}}}}));
  ASSERT_TRUE(reply);
  ASSERT_EQ(reply->status, 201) << reply->body;
  const std::string b = StringOr(Body(reply)["run"], "id");
  EXPECT_NE(a, b);
  Json second = WaitEnded(srv, b);
  ASSERT_EQ(second["run"]["status"], "finished") << second.dump();
  EXPECT_EQ(second["run"]["result"]["answer"],
            "On a PA film the enlarged heart stands: cardiomegaly (decision support).");
  EXPECT_EQ(second["run"]["inputs"]["continues"], a);
  // The model saw the whole conversation: the image, the tool results, its question and the reply.
  Json sent;
  const auto requests = mock.requests();
  for (size_t i = chats_before; i < requests.size(); ++i) {
    if (StringOr(requests[i], "path") == "/v1/chat/completions") sent = requests[i]["body"];
  }
  ASSERT_TRUE(sent.is_object());
  const Json& messages = sent["messages"];
  int assistants = 0, images_sent = 0;
  for (const Json& m : messages) {
    if (m["role"] == "assistant") ++assistants;
    if (m["content"].is_array()) {
      for (const Json& part : m["content"]) images_sent += part.value("type", std::string()) == "image_url";
    }
  }
  EXPECT_EQ(assistants, 3);
  EXPECT_EQ(images_sent, 1);
  EXPECT_EQ(messages.back()["role"], "user");
  EXPECT_THAT(DumpJson(messages.back()), HasSubstr("PA."));
  EXPECT_THAT(DumpJson(messages), HasSubstr("Is this film PA or AP?"));
  EXPECT_THAT(DumpJson(messages), HasSubstr("labels_drawn"));
  // The follow-up run lists the same images under the same ids and hashes.
  Json again = Body(srv.Get("/v1/runs/" + b + "/images"));
  ASSERT_EQ(again["images"].size(), 2u) << again.dump();
  EXPECT_EQ(again["images"][0]["sha256"], dicom["sha256"]);
  EXPECT_EQ(again["images"][0]["png_sha256"], dicom["png_sha256"]);
  EXPECT_EQ(again["images"][1]["sha256"], drawn["sha256"]);

  // A question that goes on from the follow-up with an image of its own: added after the others.
  auto third = srv.Post("/v1/runs", DumpJson(Json{{"app", "cxr"},
                                                  {"inputs", {{"question", "And this earlier film?"},
                                                              {"planner", "model"},
                                                              {"continues", b},
                                                              {"images", {more.File("later.png")}}}}}));
  ASSERT_TRUE(third);
  ASSERT_EQ(third->status, 201) << third->body;
  const std::string c = StringOr(Body(third)["run"], "id");
  WaitEnded(srv, c);  // by turn, the script is past its end: the run's status does not matter here
  Json three = Body(srv.Get("/v1/runs/" + c + "/images"));
  ASSERT_EQ(three["images"].size(), 3u) << three.dump();
  EXPECT_EQ(three["images"][1]["sha256"], drawn["sha256"]);
  EXPECT_EQ(three["images"][2]["id"], "img3");
  EXPECT_EQ(three["images"][2]["format"], "png");
  EXPECT_EQ(three["images"][2]["label"], "later.png");
  EXPECT_FALSE(three["images"][2].contains("png_sha256"));

  // Refusals name their input.
  ExpectError(srv.Post("/v1/runs", DumpJson(Json{{"app", "cxr"}, {"inputs", {{"question", "Anything?"}}}})), 400,
              "inputs.images", "at least one image");
  ExpectError(srv.Post("/v1/runs", DumpJson(Json{{"app", "cxr"},
                                                 {"inputs", {{"question", "And?"}, {"continues", "run_missing"}}}})),
              400, "inputs.continues", "'run_missing' is not in this run store");
  ExpectError(srv.Post("/v1/runs", DumpJson(Json{{"app", "cxr"}, {"inputs", {{"question", "And?"}, {"continues", ""}}}})),
              400, "inputs.continues", "");
  auto missing = srv.Get("/v1/runs/run_missing/images");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  mock.Stop();
}

// An ended run has no checkpoint: its result lists the images a later
// question goes on with, so a prune keeps them while the run is kept.
TEST(ServerCxrConversationTest, PruneKeepsTheImagesAnEndedRunsResultListsAndDropsThemWithTheRun) {
  namespace fs = std::filesystem;
  testing::TempDir dir;
  Result<std::unique_ptr<RunStore>> opened = RunStore::Open(dir.File("runs.sqlite"));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  auto store = std::shared_ptr<RunStore>(std::move(*opened));
  const std::string listed(64, 'd'), orphan(64, 'e');
  ASSERT_TRUE(store->CreateRun({.id = "run_done", .app = "cxr"}).ok());
  ASSERT_TRUE(store->FinishRun("run_done", "finished",
                               Json{{"answer", "ok"},
                                    {"final_fields", {{"images_kept", {{{"id", "img1"}, {"sha256", listed}}}}}}},
                               {}, {})
                  .ok());
  const fs::path folder = dir.File("runs.sqlite.images");
  fs::create_directories(folder);
  for (const std::string& name : {listed, orphan}) {
    std::ofstream(folder / name) << "bytes";
    fs::last_write_time(folder / name, fs::file_time_type::clock::now() - std::chrono::hours(2));
  }
  service::RunService service(store);
  Result<service::RunService::Pruned> kept = service.Prune({.statuses = {"error"}});
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(kept->images, std::vector<std::string>{orphan});
  EXPECT_TRUE(fs::exists(folder / listed));
  Result<service::RunService::Pruned> gone = service.Prune({.statuses = {"finished"}});
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_EQ(gone->runs, std::vector<std::string>{"run_done"});
  EXPECT_EQ(gone->images, std::vector<std::string>{listed});
}

TEST(ServerCxrConversationTest, AnUploadThatIsNoImageIsRefusedNamingItsPartNotTheServersFolder) {
  ServeFixture srv;
  const std::string boundary = "cxr-boundary-0123";
  const std::string body = "--" + boundary +
                           "\r\nContent-Disposition: form-data; name=\"app\"\r\n\r\ncxr\r\n--" + boundary +
                           "\r\nContent-Disposition: form-data; name=\"inputs\"\r\n\r\n"
                           "{\"question\": \"Enlarged?\", \"images\": [\"upload:scan\"]}\r\n--" +
                           boundary +
                           "\r\nContent-Disposition: form-data; name=\"scan\"; filename=\"scan.dcm\"\r\n"
                           "Content-Type: application/dicom\r\n\r\nnot a DICOM file at all\r\n--" +
                           boundary + "--\r\n";
  auto r = srv.Post("/v1/runs", body, "multipart/form-data; boundary=" + boundary);
  ExpectError(r, 400, "inputs.images[0]", "the upload 'scan': not a PNG, JPEG or DICOM image");
  ASSERT_TRUE(r);
  EXPECT_THAT(r->body, Not(HasSubstr(srv.store_path()))) << "the server's upload folder stays on the server";
  Result<std::vector<RunRecord>> runs = srv.store()->List({});
  ASSERT_TRUE(runs.ok());
  EXPECT_TRUE(runs->empty());
}

TEST(ServerPageCxrTest, TheChestXrayViewInChromium) {
  PAGE_SCRIPT_OR_SKIP(r, "page_cxr.mjs");
  EXPECT_PAGE_PASSED(r);
}

}  // namespace
}  // namespace medreact::server
