// `medreact cxr` as a user runs it: the offline plan over scripted imaging
// endpoints (a real medreact-mock-llm process), the result and annotated
// files, which tools are offered and why, a conversation on stdin, and the
// hostile inputs (corrupt DICOM, a 20,000 x 20,000 PNG, a file that is no
// image), each named and each run still ending with an answer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/build_paths.h"
#include "medreact/json.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using testing::MockLlmProcess;
using testing::ProcessResult;
using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::TempDir;

const std::string kChest = MEDREACT_SOURCE_DIR + "/tests/fixtures/dicom/CR-MONO1-10-chest.dcm";
const std::string kEndpoints = MEDREACT_SOURCE_DIR + "/examples/cxr/endpoints.json";

std::string Root(const MockLlmProcess& mock) {
  std::string url = mock.base_url();
  return url.substr(0, url.rfind("/v1"));
}

std::vector<std::string> EndpointFlags(const MockLlmProcess& mock) {
  const std::string root = Root(mock);
  return {"--classifier-url", root + "/classify", "--segmentation-url", root + "/segment", "--grounding-url",
          root + "/ground"};
}

// A PNG whose header says 20,000 x 20,000 and which has no pixel data.
std::string HugePngHeader() {
  std::string png("\x89PNG\r\n\x1a\n", 8);
  const unsigned char ihdr[] = {0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0x4e, 0x20, 0, 0, 0x4e, 0x20,
                                8, 0, 0, 0, 0, 0x2b, 0x9c, 0x7e, 0x54};
  png.append(reinterpret_cast<const char*>(ihdr), sizeof(ihdr));
  return png;
}

TEST(CxrCliTest, OfflinePlanOverScriptedEndpointsWritesResultAndAnnotatedImage) {
  MockLlmProcess mock(ReadFileOrEmpty(kEndpoints));
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  std::vector<std::string> argv = {MEDREACT_BINARY, "cxr", kChest, "--question", "Is the heart enlarged?",
                                   "--out", dir.File("result.json"), "--trace", dir.File("trace.json"),
                                   "--events", dir.File("events.jsonl"), "--image-dir", dir.File("images")};
  for (const std::string& f : EndpointFlags(mock)) argv.push_back(f);
  ProcessResult r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no language model"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Cardiomegaly: probability 0.58"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("img1 = CR-MONO1-10-chest.dcm (dicom, 440 x 440 px)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("xray_vqa: no vision model"), std::string::npos) << r.err;  // not offered, and why

  auto result = ParseJson(ReadFileOrEmpty(dir.File("result.json")));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)["status"], "finished");
  EXPECT_EQ((*result)["protocol"], "rules");
  ASSERT_EQ((*result)["annotated_images"].size(), 1u);
  const std::string annotated = (*result)["annotated_images"][0]["path"].get<std::string>();
  EXPECT_EQ(annotated.rfind(dir.File("images"), 0), 0u);
  EXPECT_EQ(ReadFileOrEmpty(annotated).substr(1, 3), "PNG");
  bool ctr = false;
  for (const Json& f : (*result)["findings"]) ctr = ctr || f["finding"] == "cardiothoracic ratio";
  EXPECT_TRUE(ctr);
  // Events carry the graph's transitions.
  EXPECT_NE(ReadFileOrEmpty(dir.File("events.jsonl")).find("\"graph_transition\""), std::string::npos);
  auto trace = ParseJson(ReadFileOrEmpty(dir.File("trace.json")));
  ASSERT_TRUE(trace.ok());
  EXPECT_GE((*trace)["steps"].size(), 4u);
}

TEST(CxrCliTest, UnreadableInputsAreNamedAndTheRunStillAnswers) {
  MockLlmProcess mock(ReadFileOrEmpty(kEndpoints));
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string chest = ReadFileOrEmpty(kChest);
  dir.Write("corrupt.dcm", chest.substr(0, chest.size() / 3));
  dir.Write("huge.png", HugePngHeader());
  dir.Write("notes.txt", "this is not an image\n");
  std::vector<std::string> argv = {MEDREACT_BINARY, "cxr", dir.File("corrupt.dcm"), dir.File("huge.png"),
                                   dir.File("notes.txt"), kChest, "--question", "Anything?",
                                   "--out", dir.File("result.json"), "--image-dir", dir.File("images")};
  for (const std::string& f : EndpointFlags(mock)) argv.push_back(f);
  ProcessResult r = RunCommand(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;  // one image was readable
  EXPECT_NE(r.err.find("corrupt.dcm"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("20000"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("notes.txt"), std::string::npos) << r.err;
  EXPECT_FALSE(r.out.empty());
  auto result = ParseJson(ReadFileOrEmpty(dir.File("result.json")));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)["image_errors"].size(), 3u);
  int user_images = 0;
  for (const Json& image : (*result)["images"]) user_images += image["origin"] == "user" ? 1 : 0;
  EXPECT_EQ(user_images, 1);  // the others are the masks and the annotated picture the tools made
  EXPECT_EQ((*result)["images"][0]["image_id"], "img1");
}

TEST(CxrCliTest, NoReadableImageStillAnswersButExitsOne) {
  TempDir dir;
  dir.Write("notes.txt", "plain text\n");
  ProcessResult r = RunCommand({MEDREACT_BINARY, "cxr", dir.File("notes.txt"), "--question", "Anything?",
                                "--image-dir", dir.File("images")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("No imaging tool ran"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("notes.txt"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("chest_xray_classifier: no classifier endpoint"), std::string::npos) << r.err;
}

TEST(CxrCliTest, ConversationOnStdinKeepsTheImages) {
  MockLlmProcess mock(ReadFileOrEmpty(kEndpoints));
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  std::string command = "printf 'Is the heart enlarged?\\nAnd the lungs?\\n' | '" + std::string(MEDREACT_BINARY) +
                        "' cxr '" + kChest + "' --interactive -q --image-dir '" + dir.File("images") + "'";
  for (const std::string& f : EndpointFlags(mock)) command += " '" + f + "'";
  ProcessResult r = RunCommand({"/bin/bash", "-c", command});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Two answers, each from the offline plan.
  size_t first = r.out.find("Offline summary");
  ASSERT_NE(first, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Offline summary", first + 1), std::string::npos) << r.out;
}

TEST(CxrCliTest, BadUsageExitsTwo) {
  TempDir dir;
  EXPECT_EQ(RunCommand({MEDREACT_BINARY, "cxr", kChest, "--question", "  "}).exit_code, 2);
  EXPECT_EQ(RunCommand({MEDREACT_BINARY, "cxr", kChest, "--question", "q", "--interactive"}).exit_code, 2);
  ProcessResult r = RunCommand({MEDREACT_BINARY, "cxr", kChest, "--question", "q", "--classifier-url", "ftp://x/"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("ftp://x/"), std::string::npos) << r.err;
  r = RunCommand({MEDREACT_BINARY, "cxr", kChest, "--question", "q", "--system-prompt", dir.File("missing.md")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing.md"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace medreact
