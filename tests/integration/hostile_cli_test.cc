// The medreact binary against hostile input, as a hostile tester runs it: each
// test is a class of input (docs/reliability.md) and checks that the process
// never ends on a signal: bad input exits 2 with one precise line, a bad model
// reply becomes an error turn or an error status with the trace written, and a
// broken worklist case leaves the others finished.
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "medreact/json.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::BackgroundCommand;
using testing::MockLlmProcess;
using testing::ProcessResult;
using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::TempDir;

const std::string kWorklistDir = MEDREACT_SOURCE_DIR + "/examples/worklist";
const std::string kBundle = MEDREACT_SOURCE_DIR + "/examples/worklist/01-pe-on-warfarin/fhir.json";

std::string Nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// No signal, the expected exit code, and (for exit 2 from a command, not
// from the flag parser, which adds a usage hint) exactly one line on stderr.
void ExpectCleanExit(const ProcessResult& r, int code, const std::string& what, bool one_line = true) {
  EXPECT_EQ(r.term_signal, 0) << what << ": ended by signal " << r.term_signal << "\n" << r.err;
  EXPECT_EQ(r.exit_code, code) << what << "\n" << r.err;
  if (code == 2 && one_line) {
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
  }
}

// A script whose raw body is `body` (a chat completion the client must read).
std::string RawBodyScript(const std::string& body) {
  return DumpJson(Json{{"responses", Json::array({Json{{"raw_body", body}}})}, {"on_exhausted", "repeat_last"}});
}

// ---- Class 1 and 2: numbers out of range, nesting too deep -------------------------

TEST(HostileCliTest, InputFilesWithHugeNumbersOrDeepNestingExitTwo) {
  TempDir dir;
  const std::string deep_bundle = R"({"resourceType":"Bundle","type":"collection","entry":[{"resource":)"
                                  R"({"resourceType":"Patient","id":"p","x":)" + Nested(100000) + "}}]}";
  const std::string big_bundle = R"({"resourceType":"Bundle","type":"collection","entry":[{"resource":)"
                                 R"({"resourceType":"Observation","id":"o","valueQuantity":{"value":1e999}}}]})";
  dir.Write("deep.json", deep_bundle);
  dir.Write("big.json", big_bundle);
  dir.Write("note.txt", "A 4 yo girl, weight 12 kg, height 100 cm.");
  dir.Write("schema-deep.json", "{\"type\":\"object\",\"properties\":{\"a\":" + Nested(100000) + "}}");
  dir.Write("schema-big.json", R"({"type":"object","properties":{"a":{"type":"number","maximum":1e999}}})");
  dir.Write("trace-big.json", R"({"steps":[],"elapsed_ms":1e999})");
  dir.Write("trace-deep.json", "{\"steps\":" + Nested(100000) + "}");
  for (const std::string& bundle : {dir.File("deep.json"), dir.File("big.json")}) {
    ProcessResult r = RunCommand({MEDREACT_BINARY, "triage", "--fhir", bundle, "--findings", "Acute PE"});
    ExpectCleanExit(r, 2, bundle);
    EXPECT_THAT(r.err, HasSubstr("not JSON"));
  }
  for (const std::string& schema : {dir.File("schema-deep.json"), dir.File("schema-big.json")}) {
    ProcessResult r = RunCommand({MEDREACT_BINARY, "extract", "--note", dir.File("note.txt"), "--schema", schema});
    ExpectCleanExit(r, 2, schema);
  }
  for (const std::string& trace : {dir.File("trace-big.json"), dir.File("trace-deep.json")}) {
    ExpectCleanExit(RunCommand({MEDREACT_BINARY, "trace", "show", trace}), 2, trace);
  }
  for (const std::string& args : {std::string("{\"weight\": 1e999, \"height\": 170}"),
                                  "{\"weight\": " + Nested(50000) + "}"}) {
    ExpectCleanExit(RunCommand({MEDREACT_BINARY, "calc", "bmi", "--args", args}), 2, "calc --args");
  }
}

TEST(HostileCliTest, ModelRepliesWithHugeNumbersOrDeepNestingNeverKillTheRun) {
  const std::string deep_args = "{\\\"a\\\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  const std::vector<std::pair<std::string, std::string>> cases = {
      // The whole body unreadable: the model call fails, the run ends with an error.
      {"usage 1e999", R"({"choices":[{"message":{"content":"hi"}}],"usage":{"prompt_tokens":1e999}})"},
      {"deep body", "{\"choices\":" + Nested(100000) + "}"},
      {"usage 1e300", R"({"choices":[{"message":{"content":"hi"}}],"usage":{"prompt_tokens":1e300}})"},
      // Arguments as a string: the call gets an error result, the loop goes on.
      {"deep arguments", R"({"choices":[{"message":{"content":null,"tool_calls":[{"id":"c1","type":"function",)"
                         R"("function":{"name":"calculator","arguments":")" + deep_args + R"("}}]}}]})"},
      {"1e999 arguments", R"({"choices":[{"message":{"content":null,"tool_calls":[{"id":"c1","type":"function",)"
                          R"("function":{"name":"calculator","arguments":"{\"expression\":1e999}"}}]}}]})"},
  };
  for (const auto& [what, body] : cases) {
    MockLlmProcess mock(RawBodyScript(body));
    ASSERT_TRUE(mock.ok());
    TempDir dir;
    ProcessResult r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--max-steps", "2",
                                  "--max-retries", "0", "--trace", dir.File("t.json"), "q"});
    EXPECT_EQ(r.term_signal, 0) << what << "\n" << r.err;
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << what << ": exit " << r.exit_code << "\n" << r.err;
    Result<Json> trace = ParseJson(ReadFileOrEmpty(dir.File("t.json")));
    ASSERT_TRUE(trace.ok()) << what << ": no trace written\n" << r.err;
    EXPECT_FALSE((*trace)["answer"].get<std::string>().empty()) << what;
  }
}

TEST(HostileCliTest, TextProtocolRepliesWithDeepArgumentsBecomeErrorTurns) {
  const std::string reply = "THOUGHT: x\nTOOL_CALL: {\"tool\": \"calculator\", \"arguments\": " +
                            std::string(100000, '{') + std::string(100000, '}') + "}";
  MockLlmProcess mock(DumpJson(Json{{"responses", Json::array({Json{{"message", {{"content", reply}}}},
                                                               Json{{"message", {{"content", "FINAL_ANSWER: done"}}}}})}}));
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  ProcessResult r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--protocol", "text",
                                "--trace", dir.File("t.json"), "q"});
  ExpectCleanExit(r, 0, "text protocol");
  Result<Json> trace = ParseJson(ReadFileOrEmpty(dir.File("t.json")));
  ASSERT_TRUE(trace.ok());
  EXPECT_FALSE((*trace)["steps"][0]["parse_error"].get<std::string>().empty());
}

TEST(HostileCliTest, AWorklistCaseWithABrokenFileFailsAloneAndTheOthersFinish) {
  TempDir dir;
  const std::string work = dir.File("list");
  std::filesystem::create_directories(work);
  std::filesystem::copy(std::string(kWorklistDir) + "/01-pe-on-warfarin", work + "/a-good",
                        std::filesystem::copy_options::recursive);
  // Each broken case breaks one file in one way.
  struct Broken {
    std::string name, file, content;
  };
  const std::vector<Broken> broken = {
      {"b-case-1e999", "case.json", R"({"base_priority": 1e999})"},
      {"c-case-deep", "case.json", "{\"description\":" + Nested(100000) + "}"},
      {"d-fhir-1e999", "fhir.json", R"({"resourceType":"Patient","id":"p","x":1e999})"},
      {"e-case-type", "case.json", R"({"base_priority": "1", "as_of": 20240101})"},
  };
  for (const Broken& b : broken) {
    std::filesystem::copy(std::string(kWorklistDir) + "/01-pe-on-warfarin", work + "/" + b.name,
                          std::filesystem::copy_options::recursive);
    dir.Write("list/" + b.name + "/" + b.file, b.content);
  }
  std::filesystem::copy(std::string(kWorklistDir) + "/01-pe-on-warfarin", work + "/f-findings-dir",
                        std::filesystem::copy_options::recursive);
  std::filesystem::remove(work + "/f-findings-dir/findings.txt");
  std::filesystem::create_directory(work + "/f-findings-dir/findings.txt");

  ProcessResult r = RunCommand({MEDREACT_BINARY, "worklist", work, "--out", dir.File("out"), "-q", "--json"});
  ExpectCleanExit(r, 1, "worklist");
  Result<Json> report = ParseJson(r.out);
  ASSERT_TRUE(report.ok()) << r.out;
  EXPECT_EQ((*report)["counts"]["triaged"], 1);
  EXPECT_EQ((*report)["counts"]["failed"], 5);
  EXPECT_TRUE(std::filesystem::exists(dir.File("out/a-good.json")));
  for (const Json& f : (*report)["failed"]) {
    EXPECT_THAT(f["error"].get<std::string>(), Not(HasSubstr("internal error"))) << f.dump();
  }
}

// ---- Class 3: folders, huge files, special files -----------------------------------

TEST(HostileCliTest, FoldersAndOversizedFilesGivenAsFilesExitTwo) {
  TempDir dir;
  const std::string folder = dir.path();
  dir.Write("note.txt", "A 4 yo girl.");
  dir.Write("schema.json", R"({"type":"object"})");
  dir.Write("huge.txt", std::string(5 << 20, 'x'));  // over the 4 MiB text cap
  const std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
      {"--findings-file DIR", {"triage", "--fhir", kBundle, "--findings-file", folder}},
      {"--fhir DIR", {"triage", "--fhir", folder, "--findings", "PE"}},
      {"--message-file DIR", {"chat", "--llm-url", "http://127.0.0.1:1/v1", "--message-file", folder}},
      {"--system-file DIR", {"chat", "--llm-url", "http://127.0.0.1:1/v1", "--system-file", folder, "q"}},
      {"--note DIR", {"extract", "--note", folder, "--schema", dir.File("schema.json")}},
      {"--schema DIR", {"extract", "--note", dir.File("note.txt"), "--schema", folder}},
      {"trace show DIR", {"trace", "show", folder}},
      {"eval --data DIR", {"eval", "medcalc", "--data", folder}},
      {"--note huge", {"extract", "--note", dir.File("huge.txt"), "--schema", dir.File("schema.json")}},
      {"--findings-file huge", {"triage", "--fhir", kBundle, "--findings-file", dir.File("huge.txt")}},
      {"--message-file huge", {"chat", "--llm-url", "http://127.0.0.1:1/v1", "--message-file", dir.File("huge.txt")}},
      {"--note /dev/zero", {"extract", "--note", "/dev/zero", "--schema", dir.File("schema.json")}},
  };
  for (const auto& [what, args] : runs) {
    std::vector<std::string> argv = {MEDREACT_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult r = RunCommand(argv);
    ExpectCleanExit(r, 2, what);
    EXPECT_THAT(r.err, ::testing::AnyOf(HasSubstr("is a folder"), HasSubstr("larger than"))) << what << ": " << r.err;
  }
}

// ---- Class 5: deadlines -------------------------------------------------------------

TEST(HostileCliTest, TimeLimitsThatAreNotNumbersOrTooSmallAreRefused) {
  for (const char* value : {"nan", "NaN", "inf", "-1", "0", "0.0001", "1e300", "5s", ""}) {
    for (const char* flag : {"--timeout", "--tool-timeout", "--request-timeout"}) {
      ProcessResult r = RunCommand({MEDREACT_BINARY, "triage", "--fhir", kBundle, "--findings", "PE", flag, value});
      EXPECT_EQ(r.term_signal, 0);
      EXPECT_EQ(r.exit_code, 2) << flag << " " << value << ": " << r.err;
    }
  }
  ExpectCleanExit(RunCommand({MEDREACT_BINARY, "chat", "--llm-url", "http://127.0.0.1:1/v1", "--temperature", "nan",
                              "q"}),
                  2, "--temperature nan", /*one_line=*/false);
}

TEST(HostileCliTest, AHangingFallbackCallEndsAtTheRunsTimeout) {
  // Two tool-calling turns reach --max-steps; the fallback call then hangs:
  // it must be cut at the run's 2 s, not wait its own 60 s.
  MockLlmProcess mock(R"({"select": "by_turn", "on_exhausted": "repeat_last", "responses": [
    {"message": {"content": null, "tool_calls": [{"name": "calculator", "arguments": "{\"expression\": \"1+1\"}"}]}},
    {"message": {"content": null, "tool_calls": [{"name": "calculator", "arguments": "{\"expression\": \"2+2\"}"}]}},
    {"hang_ms": 60000}]})");
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const auto start = std::chrono::steady_clock::now();
  ProcessResult r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--timeout", "2",
                                "--max-steps", "2", "--max-retries", "0", "--trace", dir.File("t.json"), "q"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ExpectCleanExit(r, 1, "hanging fallback");
  Result<Json> trace = ParseJson(ReadFileOrEmpty(dir.File("t.json")));
  ASSERT_TRUE(trace.ok()) << r.err;
  EXPECT_EQ((*trace)["status"], "max_steps");
  const Json& last = (*trace)["steps"].back();
  EXPECT_EQ(last["kind"], "fallback");
  EXPECT_FALSE(last["model_error"].get<std::string>().empty());
  // Far from the edge in both directions: 2 s allowed, the old behaviour took
  // over 60 s; a loaded CI machine cannot turn one into the other.
  EXPECT_LT(seconds, 30.0);
  EXPECT_LT((*trace)["elapsed_ms"].get<double>(), 30'000);
}

// ---- Class 6: valid JSON of the wrong types --------------------------------------

TEST(HostileCliTest, TraceShowRefusesJsonThatIsNotATraceNamingWhatIsWrong) {
  // Issue 23: `{"steps":[],"elapsed_ms":null}` printed an empty trace and exit 0.
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> not_traces = {
      {R"({"steps":[],"elapsed_ms":null})", "missing status, model, started_at; elapsed_ms is null, not a number"},
      {"{}", "missing status, model, started_at, elapsed_ms, steps"},
      {"[]", "it is JSON an array, not a run trace's object"},
      {R"([{"steps":[]}])", "it is JSON an array"},
      {"7", "it is JSON number"},
      {R"("a trace")", "it is JSON string"},
      {R"({"status":7,"model":null,"started_at":"x","elapsed_ms":"slow","steps":{}})",
       "status is number, not a string; model is null, not a string; elapsed_ms is string, not a number; steps is "
       "object, not an array"},
      {R"({"question":"q?","planner":"rules","agent_runs":[]})", "missing status, model, started_at, elapsed_ms, steps"},
  };
  for (const auto& [text, why] : not_traces) {
    dir.Write("t.json", text);
    ProcessResult r = RunCommand({MEDREACT_BINARY, "trace", "show", dir.File("t.json")});
    ExpectCleanExit(r, 2, text);
    EXPECT_THAT(r.err, HasSubstr("is not a medreact run trace: " + why)) << text;
    EXPECT_EQ(r.out, "") << text;
  }
}

TEST(HostileCliTest, TraceShowReadsEveryFieldOfAStepWithATypeCheck) {
  TempDir dir;
  const std::string head = R"j({"status":"completed","model":"m","started_at":"2026-01-01T00:00:00Z","elapsed_ms":5,)j";
  const std::vector<std::string> traces = {
      head + R"j("steps":[]})j",
      head + R"j("steps":[1,"x",null,{"index":"one","elapsed_ms":"slow","assistant":[],"tool_results":{},"notes":"n"}],
          "usage":{"total_tokens":"many"},"answer":null})j",
      head + R"j("steps":[{"assistant":{"tool_calls":[{"name":1,"arguments":{"x":1}},7]},"tool_results":[null,{"ok":"yes"}]}],
          "usage":[],"protocol":7})j",
  };
  for (size_t i = 0; i < traces.size(); ++i) {
    dir.Write("t.json", traces[i]);
    ProcessResult r = RunCommand({MEDREACT_BINARY, "trace", "show", dir.File("t.json")});
    ExpectCleanExit(r, 0, "trace " + std::to_string(i));
    EXPECT_THAT(r.out, HasSubstr("status:   completed"));
  }
}

// ---- Class 7: secrets and patient data in messages and files -----------------------

TEST(HostileCliTest, CredentialsInTheUrlNeverReachStderrTheAnswerOrTheTrace) {
  MockLlmProcess mock(R"({"responses": [{"status": 500, "body": {"error": {"message": "boom"}}}],
                          "on_exhausted": "repeat_last"})");
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string url = "http://alice:s3cr3t-pw@127.0.0.1:" + mock.base_url().substr(17);
  ProcessResult r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", url, "--max-retries", "0", "--json",
                                "--trace", dir.File("t.json"), "q"});
  ExpectCleanExit(r, 1, "credentials");
  EXPECT_THAT(r.err, Not(HasSubstr("s3cr3t")));
  EXPECT_THAT(r.out, Not(HasSubstr("s3cr3t")));
  EXPECT_THAT(ReadFileOrEmpty(dir.File("t.json")), Not(HasSubstr("s3cr3t")));
  EXPECT_THAT(r.err, HasSubstr("***@127.0.0.1"));

  ProcessResult bad = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", "ftp://bob:hunter2@host/v1", "q"});
  ExpectCleanExit(bad, 2, "bad url");
  EXPECT_THAT(bad.err, Not(HasSubstr("hunter2")));
}

TEST(HostileCliTest, ANonJsonRecordNeverHasItsContentPrinted) {
  TempDir dir;
  dir.Write("record.json", "Smith-Jones, Alexandra; DOB 1961-04-02; MRN 0047113");
  ProcessResult r = RunCommand({MEDREACT_BINARY, "triage", "--fhir", dir.File("record.json"), "--findings", "PE"});
  ExpectCleanExit(r, 2, "non-JSON record");
  EXPECT_THAT(r.err, Not(HasSubstr("Smith")));
  EXPECT_THAT(r.err, Not(HasSubstr("0047113")));
}

TEST(HostileCliTest, ServerErrorBodiesAreShortenedAndControlCharactersEscaped) {
  const std::string page = "<html>" + std::string(5000, 'x') + "Smith</html>";
  MockLlmProcess mock(DumpJson(Json{{"on_exhausted", "repeat_last"},
                                    {"responses", Json::array({Json{{"status", 500}, {"body", page}},
                                                               Json{{"status", 400},
                                                                    {"body", "\x1b[2J\x1b[31mcleared\x07"}}})}}));
  ASSERT_TRUE(mock.ok());
  ProcessResult r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--max-retries", "0", "q"});
  ExpectCleanExit(r, 1, "html error");
  EXPECT_THAT(r.err, Not(HasSubstr("Smith")));
  EXPECT_THAT(r.err, HasSubstr("-byte body that is not a JSON error"));
  ProcessResult r2 = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--max-retries", "0", "q"});
  EXPECT_EQ(r2.err.find('\x1b'), std::string::npos) << r2.err;
  EXPECT_EQ(r2.err.find('\x07'), std::string::npos) << r2.err;
}

TEST(HostileCliTest, TracesResultsAndEventsAreReadableByTheOwnerOnly) {
  MockLlmProcess mock(R"({"responses": [{"message": {"content": "ok"}}]})");
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  ProcessResult r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--trace", dir.File("t.json"),
                                "--events", dir.File("e.jsonl"), "q"});
  ExpectCleanExit(r, 0, "chat");
  ProcessResult t = RunCommand({MEDREACT_BINARY, "triage", "--fhir", kBundle, "--findings", "Acute PE", "--out",
                                dir.File("r.json"), "--trace", dir.File("rt.json")});
  ExpectCleanExit(t, 0, "triage");
  for (const char* name : {"t.json", "e.jsonl", "r.json", "rt.json"}) {
    struct stat st {};
    ASSERT_EQ(::stat(dir.File(name).c_str(), &st), 0) << name;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << name;
  }
}

// ---- Class 9: signals -----------------------------------------------------------------

TEST(HostileCliTest, InterruptWritesTheTraceAndExitsWithTheSignalsCode) {
  for (int signo : {SIGINT, SIGTERM}) {
    MockLlmProcess mock(R"({"responses": [{"hang_ms": 60000}], "on_exhausted": "repeat_last"})");
    ASSERT_TRUE(mock.ok());
    TempDir dir;
    BackgroundCommand run({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--trace", dir.File("t.json"),
                           "--max-retries", "0", "q"});
    // Wait until the request reached the server: the run is under way.
    for (int i = 0; i < 2000 && mock.request_lines().empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_FALSE(mock.request_lines().empty());
    run.Signal(signo);
    ProcessResult r = run.Wait();
    EXPECT_EQ(r.term_signal, 0) << r.err;
    EXPECT_EQ(r.exit_code, 128 + signo) << r.err;
    Result<Json> trace = ParseJson(ReadFileOrEmpty(dir.File("t.json")));
    ASSERT_TRUE(trace.ok()) << "no trace after signal " << signo << "\n" << r.err;
    EXPECT_EQ((*trace)["status"], "error");
    EXPECT_THAT((*trace)["error"].get<std::string>(), HasSubstr("cancelled"));
  }
}

// ---- Class 10: smaller ones -------------------------------------------------------------

TEST(HostileCliTest, OutputPathsAreCheckedBeforeTheRun) {
  MockLlmProcess mock(R"({"responses": [{"message": {"content": "ok"}}]})");
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  for (const std::string& trace : {dir.File("missing/t.json"), dir.path()}) {
    ProcessResult r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--trace", trace, "q"});
    ExpectCleanExit(r, 2, "--trace " + trace);
  }
  ProcessResult t = RunCommand({MEDREACT_BINARY, "triage", "--fhir", kBundle, "--findings", "PE", "--out",
                                dir.File("missing/r.json")});
  ExpectCleanExit(t, 2, "triage --out");
  dir.Write("a-file", "x");
  ProcessResult w = RunCommand({MEDREACT_BINARY, "worklist", kWorklistDir, "--out", dir.File("a-file"), "-q"});
  ExpectCleanExit(w, 2, "worklist --out file");
  EXPECT_TRUE(mock.request_lines().empty());  // nothing ran
}

TEST(HostileCliTest, MessageGivenTwiceIsRefused) {
  TempDir dir;
  dir.Write("m.txt", "from the file");
  ProcessResult r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", "http://127.0.0.1:1/v1", "--message-file",
                                dir.File("m.txt"), "from the argument"});
  ExpectCleanExit(r, 2, "two messages");
  EXPECT_THAT(r.err, HasSubstr("not both"));
}

TEST(HostileCliTest, StaleWorklistResultsAreRemoved) {
  TempDir dir;
  const std::string work = dir.File("list");
  std::filesystem::create_directories(work);
  for (const char* name : {"a", "b"}) {
    std::filesystem::copy(std::string(kWorklistDir) + "/01-pe-on-warfarin", work + "/" + name,
                          std::filesystem::copy_options::recursive);
  }
  ASSERT_EQ(RunCommand({MEDREACT_BINARY, "worklist", work, "--out", dir.File("out"), "-q"}).exit_code, 0);
  ASSERT_TRUE(std::filesystem::exists(dir.File("out/a.json")));
  ASSERT_TRUE(std::filesystem::exists(dir.File("out/b.json")));
  // Case a now fails; case b is gone from the list. Neither may keep a result.
  dir.Write("list/a/fhir.json", "not json");
  std::filesystem::remove_all(work + "/b");
  std::filesystem::copy(std::string(kWorklistDir) + "/01-pe-on-warfarin", work + "/c",
                        std::filesystem::copy_options::recursive);
  dir.Write("out/notes-of-mine.txt", "kept");
  ProcessResult r = RunCommand({MEDREACT_BINARY, "worklist", work, "--out", dir.File("out"), "-q"});
  ExpectCleanExit(r, 1, "second worklist");
  EXPECT_FALSE(std::filesystem::exists(dir.File("out/a.json")));
  EXPECT_FALSE(std::filesystem::exists(dir.File("out/a.trace.json")));
  EXPECT_FALSE(std::filesystem::exists(dir.File("out/b.json")));
  EXPECT_TRUE(std::filesystem::exists(dir.File("out/c.json")));
  EXPECT_TRUE(std::filesystem::exists(dir.File("out/notes-of-mine.txt")));
}

TEST(HostileCliTest, RequireModelMakesARulesFallbackAFailure) {
  const std::vector<std::string> base = {MEDREACT_BINARY, "triage", "--fhir", kBundle, "--findings",
                                         "Acute pulmonary embolism", "--llm-url", "http://127.0.0.1:1/v1",
                                         "--max-retries", "0"};
  ProcessResult lenient = RunCommand(base);
  ExpectCleanExit(lenient, 0, "fallback without --require-model");
  std::vector<std::string> strict = base;
  strict.push_back("--require-model");
  ProcessResult r = RunCommand(strict);
  ExpectCleanExit(r, 1, "fallback with --require-model");
  Result<Json> result = ParseJson(r.out);
  ASSERT_TRUE(result.ok()) << r.out;
  EXPECT_EQ((*result)["planner"], "rules (fallback)");
}

}  // namespace
}  // namespace medreact
