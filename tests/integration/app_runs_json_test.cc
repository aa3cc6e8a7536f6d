// Runs of every app from JSON inputs (service/app_runs.h), in process, with
// a real SQLite store: triage (rules planner), extract (rules, the note as
// text and as a file), research (rules planner over a recorded replay) and
// chat (the scripted model server) started from JSON, each stored with a
// row, on_started called once with the id while the row is there, the
// result and the tokens; and the refusals of bad inputs (a wrong type, a
// missing or unknown key, an unknown app, a path outside the input roots
// by a symlink or `..`), each naming its input, with nothing stored.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "service/app_runs.h"
#include "store/run_store.h"
#include "testing/build_paths.h"
#include "testing/fhir_builders.h"
#include "testing/fhir_fixture_server.h"
#include "testing/scripted_server.h"
#include "testing/subprocess.h"

namespace medreact::service {
namespace {

using ::testing::HasSubstr;

const char kFindings[] = "Filling defect in right pulmonary artery consistent with acute pulmonary embolism";

std::shared_ptr<RunStore> Store(const std::string& path) {
  Result<std::unique_ptr<RunStore>> store = RunStore::Open(path);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::shared_ptr<RunStore>(std::move(*store)) : nullptr;
}

// on_started's calls, with whether the run's row was in the store at that moment.
struct Started {
  std::vector<std::string> ids;
  std::vector<std::string> status_then;
  AppRunHooks Hooks(RunService& service) {
    return {.on_started = [this, &service](const std::string& id) {
      ids.push_back(id);
      Result<RunView> view = service.Show(id);
      status_then.push_back(view.ok() ? view->run.status : "missing: " + view.status().message());
    }};
  }
};

TEST(AppRunsJsonTest, ATriageOfTheRulesPlannerIsStoredWithItsResult) {
  testing::TempDir dir;
  dir.Write("pe.json", DumpJson(testing::PeOnWarfarinBundle()));
  RunService service(Store(dir.File("runs.sqlite")));
  const AppRunContext ctx{.input_roots = {dir.path()}};
  std::string field = "unchanged";
  Result<std::unique_ptr<PreparedAppRun>> prepared = PrepareAppRun(
      service, "triage",
      {{"fhir", dir.File("pe.json")}, {"findings", kFindings}, {"planner", "rules"}, {"as_of", "2025-06-13"}}, ctx,
      &field);
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  EXPECT_EQ(field, "");
  Started started;
  const AppRunResult r = RunAppPrepared(service, std::move(*prepared), started.Hooks(service));
  EXPECT_EQ(r.status, "finished");
  ASSERT_TRUE(r.stored);
  ASSERT_FALSE(r.run_id.empty());
  EXPECT_EQ(started.ids, std::vector<std::string>{r.run_id});
  EXPECT_EQ(started.status_then, std::vector<std::string>{"finished"});  // stored as it ended (milliseconds)
  EXPECT_EQ(r.result.value("priority_level", 0), 1);
  EXPECT_EQ(StringOr(r.result, "planner"), "rules");
  EXPECT_EQ(r.usage.value("total_tokens", -1), 0);  // no model
  Result<RunView> view = service.Show(r.run_id);
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  EXPECT_EQ(view->run.app, "triage");
  EXPECT_EQ(view->run.status, "finished");
  EXPECT_EQ(StringOr(view->run.model, "protocol"), "rules");
  EXPECT_EQ(view->run.result["final_fields"].value("priority_level", 0), 1);
  EXPECT_GE(view->steps.size(), 1u);  // the rules planner's steps
  // The CLI's triage keeps its behaviour: a rules triage is not recorded there.
  EXPECT_FALSE(TriageIsRecorded({.planner = "rules"}));
  EXPECT_TRUE(TriageIsRecorded({.planner = "rules", .record_always = true}));
}

// The record on a FHIR server (issue 28): `fhir_url` + `patient`, only where
// the front end allows network tools; the run is the file's, and its stored
// inputs name the server's patient, so a resume reads it from there again.
TEST(AppRunsJsonTest, ATriageReadsItsRecordFromAFhirServerWhenNetworkToolsAreAllowed) {
  testing::FhirFixtureServer fhir({.everything = false});
  fhir.AddBundle(testing::PeOnWarfarinBundle());
  ASSERT_TRUE(fhir.Start());
  testing::TempDir dir;
  RunService service(Store(dir.File("runs.sqlite")));
  const Json inputs = {{"fhir_url", fhir.base_url()}, {"patient", "pat"}, {"findings", kFindings},
                       {"planner", "rules"}, {"as_of", "2025-06-13"}};
  std::string field;
  Result<std::unique_ptr<PreparedAppRun>> refused = PrepareAppRun(service, "triage", inputs, {}, &field);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(field, "inputs.fhir_url");
  EXPECT_THAT(refused.status().message(), HasSubstr("network_tools"));
  EXPECT_TRUE(fhir.requests().empty());  // nothing was asked of the server

  Json half = inputs;
  half.erase("patient");
  EXPECT_FALSE(PrepareAppRun(service, "triage", half, {.network_tools = true}, &field).ok());
  EXPECT_EQ(field, "inputs.patient");
  Json both = inputs;
  both["fhir"] = "/tmp/x.json";
  EXPECT_FALSE(PrepareAppRun(service, "triage", both, {.network_tools = true}, &field).ok());

  Result<std::unique_ptr<PreparedAppRun>> prepared =
      PrepareAppRun(service, "triage", inputs, {.network_tools = true}, &field);
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  const AppRunResult r = RunAppPrepared(service, std::move(*prepared), {});
  EXPECT_EQ(r.status, "finished");
  EXPECT_EQ(r.result.value("priority_level", 0), 1);  // the warfarin and INR came from the server
  Result<RunView> view = service.Show(r.run_id);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(StringOr(view->run.inputs, "fhir"), fhir.base_url() + "/Patient/pat");
  EXPECT_FALSE(fhir.requests().empty());
}

Json Turn(const std::string& id, const std::string& name, const Json& args) {
  return {{"message",
           {{"content", nullptr},
            {"tool_calls", Json::array({{{"id", id}, {"name", name}, {"arguments", DumpJson(args)}}})}}},
          {"usage", {{"prompt_tokens", 100}, {"completion_tokens", 10}, {"total_tokens", 110}}}};
}

TEST(AppRunsJsonTest, ATriageOfTheModelIsStoredAndNamedAtItsFirstCheckpoint) {
  // Seed 001's investigation: manifest → anticoagulants → coagulation labs → submit.
  testing::ScriptedServer model(Json{
      {"responses",
       Json::array({Turn("call_1", "get_patient_manifest", Json::object()),
                    Turn("call_2", "check_medication_status", {{"medication_name", "anticoag"}}),
                    Turn("call_3", "get_recent_labs", {{"category", "Coag"}}),
                    Turn("call_4", "submit_assessment",
                         {{"final_assessment", "Acute PE despite therapeutic anticoagulation (INR 2.3)."},
                          {"risk_adjustment", "INCREASE"},
                          {"critical_findings", {"Anticoagulation failure"}}})})}});
  testing::TempDir dir;
  dir.Write("pe.json", DumpJson(testing::PeOnWarfarinBundle()));
  RunService service(Store(dir.File("runs.sqlite")));
  const AppRunContext ctx{.model = {.url = model.url(), .name = "mock", .max_retries = 0},
                          .input_roots = {dir.path()}};
  Result<std::unique_ptr<PreparedAppRun>> prepared = PrepareAppRun(
      service, "triage", {{"fhir", dir.File("pe.json")}, {"findings", kFindings}, {"as_of", "2025-06-13"}}, ctx,
      nullptr);
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  Started started;
  const AppRunResult r = RunAppPrepared(service, std::move(*prepared), started.Hooks(service));
  EXPECT_EQ(r.status, "finished") << r.result.dump();
  ASSERT_TRUE(r.stored);
  EXPECT_EQ(started.ids, std::vector<std::string>{r.run_id});
  EXPECT_EQ(started.status_then, std::vector<std::string>{"running"});
  EXPECT_EQ(StringOr(r.result, "planner"), "model");
  EXPECT_EQ(r.result.value("priority_level", 0), 1);
  EXPECT_EQ(r.usage.value("total_tokens", 0), 440);  // four model calls
  EXPECT_EQ(model.chat_requests(), 4u);
  Result<RunView> view = service.Show(r.run_id);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(StringOr(view->run.model, "url"), UrlForStore(model.url()));
  EXPECT_EQ(view->steps.size(), 4u);
}

TEST(AppRunsJsonTest, AnExtractionOfTheRulesPlannerIsStoredFromTextOrFromFiles) {
  testing::TempDir dir;
  const std::string examples = MEDREACT_SOURCE_DIR + "/examples/extract/";
  const std::string note = testing::ReadFileOrEmpty(examples + "pediatric-malnutrition.txt");
  const std::string schema_text = testing::ReadFileOrEmpty(examples + "pediatric-malnutrition.schema.json");
  ASSERT_FALSE(note.empty());
  dir.Write("note.txt", note);
  dir.Write("schema.json", schema_text);
  RunService service(Store(dir.File("runs.sqlite")));
  const AppRunContext ctx{.input_roots = {dir.path()}};
  Json results = Json::array();
  for (const Json& inputs : {Json{{"note", note}, {"schema", ParseJson(schema_text).value()}, {"planner", "rules"}},
                             Json{{"note_path", dir.File("note.txt")},
                                  {"schema_path", dir.File("schema.json")},
                                  {"planner", "rules"},
                                  {"label", "malnutrition"}}}) {
    std::string field;
    Result<std::unique_ptr<PreparedAppRun>> prepared = PrepareAppRun(service, "extract", inputs, ctx, &field);
    ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
    Started started;
    const AppRunResult r = RunAppPrepared(service, std::move(*prepared), started.Hooks(service));
    ASSERT_TRUE(r.stored) << r.status;
    EXPECT_EQ(started.ids, std::vector<std::string>{r.run_id});
    EXPECT_EQ(r.status, "finished");
    EXPECT_TRUE(r.result.value("valid", false)) << r.result.dump();
    EXPECT_TRUE(r.result.contains("extraction"));
    Result<RunView> view = service.Show(r.run_id);
    ASSERT_TRUE(view.ok());
    EXPECT_EQ(view->run.app, "extract");
    EXPECT_EQ(view->run.status, "finished");
    results.push_back(r.result["extraction"]);
  }
  // The same note and schema: the same extraction; the label reaches it.
  EXPECT_EQ(results[0]["severity"], results[1]["severity"]);
  EXPECT_EQ(results[0]["anthropometrics"], results[1]["anthropometrics"]);
  EXPECT_THAT(StringOr(results[1], "evidence_summary"), HasSubstr("Label given: malnutrition."));
  EXPECT_THAT(StringOr(results[0], "evidence_summary"), ::testing::Not(HasSubstr("Label given")));
  // The file's run stored its real path (a resume reads it again); the text's none.
  Result<std::vector<RunRecord>> runs = service.List({.app = "extract"});
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  char real[PATH_MAX];
  ASSERT_NE(::realpath(dir.File("note.txt").c_str(), real), nullptr);
  std::set<std::string> paths;
  for (const RunRecord& r : *runs) paths.insert(StringOr(r.inputs, "note"));  // the stored key of the note's path
  EXPECT_EQ(paths, (std::set<std::string>{"", real}));
}

TEST(AppRunsJsonTest, AResearchOfTheRulesPlannerOverARecordingIsStoredAndNamedBeforeItEnds) {
  testing::TempDir dir;
  RunService service(Store(dir.File("runs.sqlite")));
  const std::string recordings = MEDREACT_SOURCE_DIR + "/examples/research";
  const AppRunContext ctx{.input_roots = {recordings}, .research_cache = dir.File("cache.sqlite")};
  std::string field;
  Result<std::unique_ptr<PreparedAppRun>> prepared = PrepareAppRun(
      service, "research",
      {{"question", "What is the evidence for Keytruda in cancer?"},
       {"planner", "rules"},
       {"results", 3},
       {"replay", recordings + "/keytruda.jsonl"}},
      ctx, &field);
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString() << " " << field;
  EXPECT_GT((*prepared)->research->imported, 0);
  Started started;
  std::vector<std::string> events;
  AppRunHooks hooks = started.Hooks(service);
  hooks.on_research_event = [&](const ResearchEvent& e) { events.push_back(ResearchEventTypeName(e.type)); };
  const AppRunResult r = RunAppPrepared(service, std::move(*prepared), hooks);
  EXPECT_EQ(r.status, "finished") << r.result.dump();
  ASSERT_TRUE(r.stored);
  EXPECT_EQ(started.ids, std::vector<std::string>{r.run_id});
  EXPECT_EQ(started.status_then, std::vector<std::string>{"running"});  // named before the first agent ran
  EXPECT_FALSE(events.empty());
  EXPECT_THAT(StringOr(r.result, "report_markdown"), HasSubstr("Keytruda"));
  Result<RunView> view = service.Show(r.run_id);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->run.app, "research");
  EXPECT_EQ(view->run.status, "finished");
  EXPECT_GE(view->steps.size(), 3u);  // a step per agent run
}

Json Call(const std::string& id, const std::string& expression) {
  return {{"message",
           {{"content", nullptr},
            {"tool_calls",
             Json::array({{{"id", id}, {"name", "calculator"}, {"arguments", Json{{"expression", expression}}}}})}}},
          {"usage", {{"prompt_tokens", 10}, {"completion_tokens", 5}, {"total_tokens", 15}}}};
}
Json Answer(const std::string& text) {
  return {{"message", {{"content", text}}},
          {"usage", {{"prompt_tokens", 20}, {"completion_tokens", 7}, {"total_tokens", 27}}}};
}

TEST(AppRunsJsonTest, AChatIsStoredItsEventsStreamedAndItsTokensSummed) {
  testing::ScriptedServer model(Json{{"responses", Json::array({Call("c1", "2+2"), Answer("It is 4.")})}});
  testing::TempDir dir;
  RunService service(Store(dir.File("runs.sqlite")));
  const AppRunContext ctx{.model = {.url = model.url(), .name = "mock", .max_retries = 0}};
  std::string field;
  Result<std::unique_ptr<PreparedAppRun>> prepared =
      PrepareAppRun(service, "chat", {{"message", "What is 2+2?"}, {"packs", {"util"}}, {"max_steps", 4}}, ctx, &field);
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  EXPECT_EQ((*prepared)->chat->options.max_steps, 4);
  Started started;
  AppRunHooks hooks = started.Hooks(service);
  std::vector<std::string> events;
  hooks.on_event = [&](const Event& e) { events.push_back(EventTypeName(e.type)); };
  const AppRunResult r = RunAppPrepared(service, std::move(*prepared), hooks);
  EXPECT_EQ(r.status, "finished");
  ASSERT_TRUE(r.stored);
  EXPECT_EQ(started.ids, std::vector<std::string>{r.run_id});
  EXPECT_EQ(started.status_then, std::vector<std::string>{"running"});
  EXPECT_EQ(StringOr(r.result, "answer"), "It is 4.");
  EXPECT_EQ(r.result.value("tool_calls", 0), 1);
  EXPECT_EQ(r.usage.value("prompt_tokens", 0), 30);
  EXPECT_EQ(r.usage.value("completion_tokens", 0), 12);
  EXPECT_EQ(r.usage.value("total_tokens", 0), 42);
  EXPECT_EQ(events.front(), "run_started");
  EXPECT_EQ(events.back(), "run_finished");
  Result<RunView> view = service.Show(r.run_id);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->run.app, "chat");
  EXPECT_EQ(view->steps.size(), 2u);
}

struct Refusal {
  std::string app;
  Json inputs;
  std::string field;
  std::string says;
};

TEST(AppRunsJsonTest, BadInputsAreRefusedNamingTheirInputAndNothingIsStored) {
  testing::TempDir dir, outside;
  std::filesystem::create_directory(dir.File("in"));
  const std::string root = dir.File("in");
  const std::string bundle = DumpJson(testing::PeOnWarfarinBundle());
  dir.Write("in/pe.json", bundle);
  outside.Write("pe.json", bundle);
  dir.Write("beside.json", bundle);  // beside the root, not in it
  std::filesystem::create_symlink(outside.File("pe.json"), root + "/escape.json");
  std::filesystem::create_symlink(dir.File("in/pe.json"), root + "/inside_link.json");
  testing::ScriptedServer model(Json{{"responses", Json::array({Answer("unused")})}});
  RunService service(Store(dir.File("runs.sqlite")));
  const AppRunContext ctx{.model = {.url = model.url(), .name = "mock", .max_retries = 0}, .input_roots = {root}};
  const std::string pe = root + "/pe.json";
  auto triage = [&](Json extra) {
    Json in{{"fhir", pe}, {"findings", kFindings}, {"planner", "rules"}};
    for (const auto& [k, v] : extra.items()) in[k] = v;
    return in;
  };
  const std::vector<Refusal> cases = {
      {"nope", Json::object(), "app", "unknown app 'nope' (known: chat, triage, extract, cxr, research)"},
      {"triage", Json::array(), "inputs", "must be a JSON object"},
      {"triage", triage({{"findings", 3}}), "inputs.findings", "must be a string, got an integer"},
      {"triage", triage({{"findings", "  "}}), "inputs.findings", "must not be empty"},
      {"triage", Json{{"fhir", pe}}, "inputs.findings", "missing (required)"},
      {"triage", triage({{"urgent", true}}), "inputs.urgent", "unknown input"},
      {"triage", triage({{"base_priority", 4}}), "inputs.base_priority", "must be 1..3, got 4"},
      {"triage", triage({{"base_priority", 1.5}}), "inputs.base_priority", "must be an integer"},
      {"triage", triage({{"planner", "oracle"}}), "inputs.planner", "must be one of auto, model, rules"},
      {"triage", triage({{"as_of", "13/06/2025"}}), "inputs.as_of", "(as_of)"},
      {"triage", triage({{"fhir", outside.File("pe.json")}}), "inputs.fhir", "outside the input roots"},
      {"triage", triage({{"fhir", root + "/../beside.json"}}), "inputs.fhir", "outside the input roots"},
      {"triage", triage({{"fhir", root + "/escape.json"}}), "inputs.fhir", "outside the input roots"},
      {"triage", triage({{"fhir", "in/pe.json"}}), "inputs.fhir", "must be an absolute path"},
      {"triage", triage({{"fhir", root + "/none.json"}}), "inputs.fhir", "cannot be resolved"},
      {"triage", triage({{"fhir", root}}), "inputs.fhir", ""},  // a folder: the record's reader refuses it
      {"chat", Json{{"message", "hi"}, {"images", {pe, outside.File("pe.json")}}}, "inputs.images[1]",
       "outside the input roots"},
      {"chat", Json{{"message", "hi"}, {"packs", {"util", "literature"}}}, "inputs.packs[1]", "(network_tools)"},
      {"chat", Json{{"message", "hi"}, {"packs", {"util", "magic"}}}, "inputs.packs[1]", "unknown pack 'magic'"},
      {"chat", Json{{"message", "hi"}, {"require_approval", {"sometimes"}}}, "inputs.require_approval", ""},
      {"chat", Json{{"message", "hi"}, {"max_steps", "ten"}}, "inputs.max_steps", "must be an integer, got a string"},
      {"cxr", Json{{"question", "effusion?"}, {"images", Json::array()}}, "inputs.images", "at least 1 item"},
      {"extract", Json{{"note", "a note"}, {"note_path", pe}, {"schema", Json::object()}}, "inputs.note_path",
       "not both"},
      {"extract", Json{{"schema", Json::object()}}, "inputs.note", "missing"},
      {"extract", Json{{"note", "a note"}, {"schema", "{}"}}, "inputs.schema", "must be a JSON object, got a string"},
      {"extract", Json{{"note", "a note"}, {"schema", {{"type", 3}}}, {"planner", "rules"}}, "inputs.schema",
       "not a usable JSON Schema"},
      {"research", Json{{"question", "q?"}, {"online", true}}, "inputs.online", "(network_tools)"},
      {"research", Json{{"question", "q?"}, {"sources", {"pubmed", "arxiv"}}}, "inputs.sources[1]",
       "must be one of pubmed, trials, preprints"},
      {"research", Json{{"question", "q?"}, {"replay", pe}}, "inputs.replay", "(research_cache)"},
  };
  for (const Refusal& c : cases) {
    SCOPED_TRACE(c.app + " " + c.inputs.dump());
    std::string field = "unset";
    Result<std::unique_ptr<PreparedAppRun>> p = PrepareAppRun(service, c.app, c.inputs, ctx, &field);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument) << p.status().ToString();
    EXPECT_EQ(field, c.field) << p.status().message();
    EXPECT_THAT(p.status().message(), HasSubstr(c.says));
  }
  // A symlink inside the root to a file inside it is fine (the real path is read).
  Result<std::unique_ptr<PreparedAppRun>> linked =
      PrepareAppRun(service, "triage", triage({{"fhir", root + "/inside_link.json"}}), ctx, nullptr);
  ASSERT_TRUE(linked.ok()) << linked.status().ToString();
  // No input roots: no path at all.
  std::string field;
  Result<std::unique_ptr<PreparedAppRun>> rootless =
      PrepareAppRun(service, "triage", triage({}), AppRunContext{}, &field);
  EXPECT_EQ(field, "inputs.fhir");
  EXPECT_THAT(rootless.status().message(), HasSubstr("no input roots"));
  EXPECT_TRUE(service.List().value().empty());
  EXPECT_EQ(model.chat_requests(), 0u);
}

}  // namespace
}  // namespace medreact::service
