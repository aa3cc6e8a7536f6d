// The library names settings ("the model URL (llm_url)"); the CLI writes the
// flag that sets each one in its place (src/cli/setting_flags.h), so a person
// at the terminal reads "--llm-url". Each case is a library message reaching
// the terminal through a different command; none may show the setting's own
// name in parentheses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "medreact/json.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::ProcessResult;
using testing::RunCommand;
using testing::TempDir;

TEST(SettingFlagsCliTest, NoModelServerNamesTheFlagAndTheVariable) {
  ProcessResult r = RunCommand({MEDREACT_BINARY, "chat", "--no-store", "q"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("set the model URL (--llm-url or MEDREACT_LLM_URL) to an OpenAI-compatible"));
  EXPECT_THAT(r.err, Not(HasSubstr("(llm_url)")));
}

TEST(SettingFlagsCliTest, APackWithoutItsInputNamesTheFlag) {
  ProcessResult r =
      RunCommand({MEDREACT_BINARY, "chat", "--no-store", "--llm-url", "http://127.0.0.1:1/v1", "--tools", "fhir", "q"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("the fhir pack reads a patient record: give its path (--fhir)"));
  ProcessResult rag =
      RunCommand({MEDREACT_BINARY, "chat", "--no-store", "--llm-url", "http://127.0.0.1:1/v1", "--tools", "rag", "q"});
  EXPECT_EQ(rag.exit_code, 2);
  EXPECT_THAT(rag.err, HasSubstr("give a folder of them (--corpus) and/or a hints file (--extras)"));
}

TEST(SettingFlagsCliTest, AnOutputPathNamesItsFlag) {
  TempDir dir;
  ProcessResult r = RunCommand({MEDREACT_BINARY, "chat", "--no-store", "--trace", dir.File("missing/t.json"), "q"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("cannot write the trace (--trace) to"));
  ProcessResult events =
      RunCommand({MEDREACT_BINARY, "chat", "--no-store", "--events", dir.File("missing/e.jsonl"), "q"});
  EXPECT_THAT(events.err, HasSubstr("cannot write the event log (--events) to"));
}

TEST(SettingFlagsCliTest, AnUnwritableStoreNamesTheFlag) {
  TempDir dir;
  dir.Write("file", "x");
  ProcessResult r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", "http://127.0.0.1:1/v1", "--store",
                                dir.File("file/runs.sqlite"), "q"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("choose a writable path for the run store (--store) or in MEDREACT_STORE"));
}

TEST(SettingFlagsCliTest, CxrSaysWhichFlagWouldOfferEachTool) {
  TempDir dir;
  ProcessResult r = RunCommand({MEDREACT_BINARY, "cxr",
                                MEDREACT_SOURCE_DIR + "/tests/fixtures/dicom/CR-MONO1-10-chest.dcm", "--question",
                                "Anything?", "--no-store", "--image-dir", dir.File("images")});
  EXPECT_THAT(r.err, HasSubstr("chest_xray_classifier: no classifier endpoint (--classifier-url or "
                               "MEDREACT_CXR_CLASSIFIER_URL)"));
  EXPECT_THAT(r.err, HasSubstr("xray_vqa: no vision model: set its URL (--vision-url or MEDREACT_CXR_VISION_URL) "
                               "and name (--vision-model or MEDREACT_CXR_VISION_MODEL)"));
  EXPECT_THAT(r.err, Not(HasSubstr("_url)")));
}

// `tools list` shows the imaging pack (not a row of the pack table: only the
// chest X-ray app offers it), each tool not offered and why.
TEST(ToolsListTest, ShowsTheImagingPackAndWhyEachToolIsNotOffered) {
  ProcessResult r = RunCommand({MEDREACT_BINARY, "tools", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Result<Json> specs = ParseJson(r.out);
  ASSERT_TRUE(specs.ok()) << r.out;
  std::map<std::string, Json> imaging;
  for (const Json& s : *specs) {
    if (s["pack"] == "imaging") imaging[s["name"]] = s;
  }
  ASSERT_EQ(imaging.size(), 7u) << r.out;
  for (const char* name : {"dicom_processor", "chest_xray_classifier", "chest_xray_segmentation", "xray_vqa",
                           "chest_xray_report", "xray_phrase_grounding", "image_visualizer"}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(imaging.count(name));
    const Json& tool = imaging[name];
    EXPECT_EQ(tool["offered"], false);
    EXPECT_FALSE(tool["why"].get<std::string>().empty());
    EXPECT_EQ(tool["parameters"]["type"], "object");
    EXPECT_FALSE(tool["description"].get<std::string>().empty());
  }
  EXPECT_EQ(imaging["chest_xray_classifier"]["why"],
            "no classifier endpoint (--classifier-url or MEDREACT_CXR_CLASSIFIER_URL)");
  EXPECT_THAT(imaging["xray_phrase_grounding"]["why"].get<std::string>(), HasSubstr("--grounding-url"));
  EXPECT_THAT(imaging["dicom_processor"]["why"].get<std::string>(), HasSubstr("no images"));

  ProcessResult only = RunCommand({MEDREACT_BINARY, "tools", "list", "--pack", "imaging"});
  ASSERT_EQ(only.exit_code, 0) << only.err;
  Result<Json> only_specs = ParseJson(only.out);
  ASSERT_TRUE(only_specs.ok());
  EXPECT_EQ(only_specs->size(), 7u);
  ProcessResult unknown = RunCommand({MEDREACT_BINARY, "tools", "list", "--pack", "nope"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("imaging"));  // among the known packs
}

}  // namespace
}  // namespace medreact
