// Text from outside printed by every command (issue 23, item 5): a model's
// answer (plain, --json, streamed), a run store's records (runs list, runs
// show), a trace file (trace show), imaging endpoints' labels and structure
// names (cxr), a worklist's case folders (worklist table and progress), a
// triage result and literature titles (research report), each carrying ESC
// sequences, an OSC window title, NUL, CR LF, DEL, a C1 control and bidi
// overrides. What reaches stdout and stderr holds none of them raw (newlines
// only where the text is a body), single-line fields forge no line, and JSON
// output still parses to the same values. The rule: src/core/printable.h.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "medreact/json.h"
#include "testing/build_paths.h"
#include "testing/subprocess.h"
#include "testing/terminal_text.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::HasTerminalControl;
using testing::HostileText;
using testing::MockLlmProcess;
using testing::ProcessResult;
using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::TempDir;

const std::string kSource = MEDREACT_SOURCE_DIR;
const std::string kChest = kSource + "/tests/fixtures/dicom/CR-MONO1-10-chest.dcm";

// Both streams of `r` free of terminal controls; newlines allowed (a body).
void ExpectNoControls(const ProcessResult& r, const std::string& what) {
  EXPECT_FALSE(HasTerminalControl(r.out, /*newlines_allowed=*/true)) << what << " stdout:\n" << r.out;
  EXPECT_FALSE(HasTerminalControl(r.err, /*newlines_allowed=*/true)) << what << " stderr:\n" << r.err;
}

// No output line begins with the forged one: a single-line field kept its LF escaped.
void ExpectNoForgedLine(const std::string& text, const std::string& what) {
  EXPECT_THAT("\n" + text, Not(HasSubstr("\nmedreact: forged line"))) << what << ":\n" << text;
}

std::string AnswerScript(const std::string& content) {
  return DumpJson(Json{{"responses", Json::array({Json{{"message", Json{{"content", content}}}}})},
                       {"on_exhausted", "repeat_last"}});
}

TEST(TerminalEscapesTest, AChatAnswerPlainAsJsonAndStreamedShowsEveryControlEscaped) {
  MockLlmProcess mock(AnswerScript(HostileText()));
  ASSERT_TRUE(mock.ok());
  ProcessResult plain = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--no-store", "q"});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  ExpectNoControls(plain, "chat");
  EXPECT_THAT(plain.out, HasSubstr("title\\x1b]0;pwned\\x07 nul\\x00 cr\\x0d\n"));  // an answer's own LF is kept
  EXPECT_THAT(plain.out, HasSubstr("rlo\\u202egnp.exe lri\\u2066x\\u2069"));

  ProcessResult json = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--no-store", "--json", "q"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  ExpectNoControls(json, "chat --json");
  Result<Json> parsed = ParseJson(json.out);
  ASSERT_TRUE(parsed.ok()) << json.out;
  EXPECT_EQ(StringOr(*parsed, "answer"), HostileText());  // the same JSON, escaped for the terminal

  ProcessResult streamed =
      RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--no-store", "--stream", "-v", "q"});
  EXPECT_EQ(streamed.exit_code, 0) << streamed.err;
  ExpectNoControls(streamed, "chat --stream");
}

TEST(TerminalEscapesTest, RunsListShowAndTraceShowPrintStoredAndTracedTextEscaped) {
  MockLlmProcess mock(AnswerScript(HostileText()));
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  ProcessResult chat = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--store", store, "--trace",
                                   dir.File("trace.json"), HostileText().substr(0, 20) + " question"});
  ASSERT_EQ(chat.exit_code, 0) << chat.err;

  ProcessResult list = RunCommand({MEDREACT_BINARY, "runs", "list", "--store", store});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  ExpectNoControls(list, "runs list");
  ProcessResult list_json = RunCommand({MEDREACT_BINARY, "runs", "list", "--store", store, "--json"});
  ExpectNoControls(list_json, "runs list --json");
  Result<Json> runs = ParseJson(list_json.out);
  ASSERT_TRUE(runs.ok() && runs->is_array() && runs->size() == 1) << list_json.out;
  const std::string id = StringOr((*runs)[0], "id");

  ProcessResult show = RunCommand({MEDREACT_BINARY, "runs", "show", id, "--store", store});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  ExpectNoControls(show, "runs show");
  ExpectNoForgedLine(show.out, "runs show");
  EXPECT_THAT(show.out, HasSubstr("\\u202e"));
  ProcessResult show_json = RunCommand({MEDREACT_BINARY, "runs", "show", id, "--store", store, "--json"});
  ExpectNoControls(show_json, "runs show --json");
  EXPECT_TRUE(ParseJson(show_json.out).ok()) << show_json.out;

  ProcessResult trace = RunCommand({MEDREACT_BINARY, "trace", "show", dir.File("trace.json")});
  EXPECT_EQ(trace.exit_code, 0) << trace.err;
  ExpectNoControls(trace, "trace show");
  ExpectNoForgedLine(trace.out.substr(0, trace.out.rfind("answer:   ")), "trace show");  // the answer is a body
}

TEST(TerminalEscapesTest, TraceShowEscapesEveryFieldOfAHostileTraceFile) {
  const std::string h = HostileText();
  const Json call = {{"id", h}, {"name", h}, {"arguments", h}};
  const Json trace = {{"status", h}, {"model", h}, {"protocol", h}, {"started_at", h}, {"elapsed_ms", 1},
                      {"error", h},  {"answer", "the answer's own\nsecond line " + h},
                      {"steps", Json::array({Json{{"index", 0}, {"kind", h}, {"elapsed_ms", 1},
                                                  {"assistant", {{"content", h}, {"tool_calls", Json::array({call})}}},
                                                  {"tool_results", Json::array({Json{{"ok", true}, {"content", h}},
                                                                                Json{{"ok", false}, {"error", h}}})},
                                                  {"parse_error", h}, {"model_error", h},
                                                  {"notes", Json::array({h})}}})}};
  TempDir dir;
  dir.Write("trace.json", DumpJson(trace));
  ProcessResult r = RunCommand({MEDREACT_BINARY, "trace", "show", dir.File("trace.json")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectNoControls(r, "trace show");
  EXPECT_THAT(r.out, HasSubstr("status:   clear\\x1b[2J"));
  // Every field but the answer is one line; the answer keeps its own lines
  // (a body, as chat prints it), everything else in it escaped.
  const std::string before_answer = r.out.substr(0, r.out.rfind("answer:   "));
  ExpectNoForgedLine(before_answer, "trace show");
  EXPECT_THAT(r.out, HasSubstr("answer:   the answer's own\nsecond line clear\\x1b[2J"));
}

TEST(TerminalEscapesTest, CxrPrintsEndpointLabelsAndStructureNamesEscaped) {
  Result<Json> endpoints = ParseJson(ReadFileOrEmpty(kSource + "/examples/cxr/endpoints.json"));
  ASSERT_TRUE(endpoints.ok());
  Json& classify = (*endpoints)["routes"]["/classify"]["responses"][0]["json"];
  classify["labels"][0]["label"] = HostileText();
  classify["model"] = HostileText();
  Json& segment = (*endpoints)["routes"]["/segment"]["responses"][0]["json"];
  segment["structures"][0]["name"] = HostileText();
  MockLlmProcess mock(DumpJson(*endpoints));
  ASSERT_TRUE(mock.ok());
  const std::string url = mock.base_url();
  const std::string root = url.substr(0, url.rfind("/v1"));
  TempDir dir;
  ProcessResult r = RunCommand({MEDREACT_BINARY, "cxr", kChest, "--question", "Is the heart enlarged?", "--no-store",
                                "--image-dir", dir.File("images"), "--classifier-url", root + "/classify",
                                "--segmentation-url", root + "/segment", "--grounding-url", root + "/ground"});
  EXPECT_EQ(r.term_signal, 0);
  ExpectNoControls(r, "cxr");
  ExpectNoForgedLine(r.out, "cxr");
  EXPECT_THAT(r.out, HasSubstr("\\x1b]0;pwned\\x07"));  // the label reached the answer, escaped
}

TEST(TerminalEscapesTest, WorklistTableAndProgressShowHostileCaseNamesOnOneLine) {
  TempDir dir;
  std::string name = HostileText();
  name.erase(name.find('\0'), 1);  // a file name holds no NUL
  const std::filesystem::path worklist = dir.File("worklist");
  std::filesystem::create_directories(worklist);
  std::filesystem::copy(kSource + "/examples/worklist/01-pe-on-warfarin", worklist / name,
                        std::filesystem::copy_options::recursive);
  ProcessResult r = RunCommand({MEDREACT_BINARY, "worklist", worklist.string(), "--no-store", "--out",
                                dir.File("out")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectNoControls(r, "worklist");
  ExpectNoForgedLine(r.out, "worklist table");
  ExpectNoForgedLine(r.err, "worklist progress");
  EXPECT_THAT(r.out, HasSubstr("\\x0d\\x0amedreact: forged line"));

  ProcessResult json = RunCommand({MEDREACT_BINARY, "worklist", worklist.string(), "--no-store", "--out",
                                   dir.File("out2"), "--json", "-q"});
  ExpectNoControls(json, "worklist --json");
  EXPECT_TRUE(ParseJson(json.out).ok()) << json.out;
}

TEST(TerminalEscapesTest, TriageAndResearchPrintRecordAndLiteratureTextEscaped) {
  TempDir dir;
  ProcessResult triage = RunCommand({MEDREACT_BINARY, "triage", "--fhir",
                                     kSource + "/examples/worklist/01-pe-on-warfarin/fhir.json", "--findings",
                                     "Acute PE. " + HostileText().substr(0, 60), "--no-store"});
  EXPECT_EQ(triage.term_signal, 0);
  ExpectNoControls(triage, "triage");
  EXPECT_TRUE(ParseJson(triage.out).ok()) << triage.out;

  // The demo's recorded trial search, with a hostile trial title.
  std::ifstream in(kSource + "/examples/research/keytruda.jsonl");
  std::string line, recording;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    Result<Json> response = ParseJson(line);
    ASSERT_TRUE(response.ok());
    Result<Json> body = ParseJson(StringOr(*response, "body"));
    ASSERT_TRUE(body.ok());
    for (Json& study : (*body)["studies"]) {
      study["protocolSection"]["identificationModule"]["briefTitle"] = "Pembrolizumab " + HostileText();
    }
    (*response)["body"] = DumpJson(*body);
    recording += DumpJson(*response) + "\n";
  }
  dir.Write("hostile.jsonl", recording);
  ProcessResult research = RunCommand(
      {MEDREACT_BINARY, "research", "What is the evidence for Keytruda?", "--planner", "rules", "--results", "3",
       "--no-store", "--cache", dir.File("cache.sqlite"), "--replay", dir.File("hostile.jsonl")},
      {{"MEDREACT_LLM_URL", ""}, {"HOME", dir.path()}, {"XDG_CACHE_HOME", dir.path()}});
  EXPECT_EQ(research.term_signal, 0);
  ExpectNoControls(research, "research");
  EXPECT_THAT(research.out, HasSubstr("rlo\\u202egnp.exe"));  // the title reached the report, escaped
}

}  // namespace
}  // namespace medreact
