// Research runs in the run service (service/research_runs.h) and research
// checkpoints (ResearchConfig::on_checkpoint / resume_from), in process:
//  - from every checkpoint of a research, a resume gives the uninterrupted
//    research's result (report, judgement, usage, errors: all of it);
//  - a research recorded by the service and "killed" at every agent's turn
//    (and in the middle of searches) — the store and the memory file copied
//    as they stood at that moment (VACUUM INTO: what a killed process leaves)
//    — goes on in a new service from its last checkpoint: the same report,
//    the same steps (none lost, none twice), only the requests the cut turn
//    and the turns after it make, its events stored;
//  - a cancelled research ends `interrupted` and goes on the same way.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apps/research/research_memory.h"
#include "service/research_runs.h"
#include "store/run_store.h"
#include "testing/build_paths.h"
#include "testing/research_fixture.h"
#include "testing/subprocess.h"

namespace medreact::service {
namespace {

using ::testing::HasSubstr;

// FixtureTransport, counting the requests.
class CountingTransport : public HttpTransport {
 public:
  Result<HttpResponse> Send(const HttpRequest& request, const HttpChunkHandler& chunk,
                            const CancellationToken& cancel) override {
    ++requests;
    return inner_.Send(request, chunk, cancel);
  }
  std::atomic<int> requests{0};

 private:
  testing::FixtureTransport inner_;
};

LiteraturePackOptions Literature(std::shared_ptr<CountingTransport> transport) {
  LiteraturePackOptions o = testing::FixtureLiterature();
  o.client.transport = std::move(transport);
  return o;
}

std::shared_ptr<RunStore> Store(const std::string& path) {
  Result<std::unique_ptr<RunStore>> store = RunStore::Open(path);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::shared_ptr<RunStore>(std::move(*store)) : nullptr;
}

// A consistent copy of a SQLite file as its committed state stands.
void CopyDatabase(const std::string& from, const std::string& to) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(from.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  char* error = nullptr;
  const std::string sql = "VACUUM INTO '" + to + "'";
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << message;
}

void ReplaceFile(const std::string& from, const std::string& to) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(to + suffix);
  std::filesystem::copy_file(from, to);
}

// A step as the test compares it: which agent of which round, and its tool
// calls (name and arguments; the ids are minted per run).
std::vector<std::string> Signature(const std::vector<StepRecord>& steps) {
  std::vector<std::string> out;
  for (const StepRecord& step : steps) {
    std::string note = step.notes.empty() ? "" : step.notes[0];
    note = note.substr(0, note.find(" (run "));
    for (const ToolCall& call : step.assistant.tool_calls) note += " | " + call.name + " " + call.arguments;
    out.push_back(note);
  }
  return out;
}

bool TurnStarts(const ResearchEvent& e) {
  using T = ResearchEventType;
  return (e.type == T::kThinking && e.agent == "manager") || e.type == T::kSearching || e.type == T::kJudging ||
         e.type == T::kHypothesizing || (e.type == T::kSynthesizing && e.agent == "report");
}

ResearchStart RulesStart(const std::string& memory_path = "") {
  return {.question = testing::kResearchQuestion, .planner = "rules", .results = 3, .memory_path = memory_path};
}

TEST(ResearchResumeTest, FromEveryCheckpointTheOutcomeIsTheUninterruptedOne) {
  // A model (scripted roles over the rules planner) that reports token usage.
  ResearchConfig config = testing::FixtureConfig();
  auto model = std::make_shared<testing::RoleModel>();
  model->set_usage(100);
  config.model = model;
  std::vector<Json> checkpoints;
  config.on_checkpoint = [&](const Json& c) { checkpoints.push_back(c); };
  const ResearchOutcome base = RunResearch(testing::kResearchQuestion, config);
  ASSERT_TRUE(base.status.ok()) << base.status.ToString();
  ASSERT_TRUE(base.report_from_agent);
  ASSERT_GE(checkpoints.size(), 5u);
  EXPECT_GT(base.usage.total_tokens, 0);
  for (size_t k = 0; k < checkpoints.size(); ++k) {
    SCOPED_TRACE("checkpoint " + std::to_string(k + 1));
    EXPECT_EQ(checkpoints[k]["planner"], "model");
    ResearchConfig again = testing::FixtureConfig();
    auto fresh = std::make_shared<testing::RoleModel>();
    fresh->set_usage(100);
    again.model = fresh;
    again.resume_from = checkpoints[k];
    const ResearchOutcome resumed = RunResearch(testing::kResearchQuestion, again);
    ASSERT_TRUE(resumed.status.ok()) << resumed.status.ToString();
    EXPECT_EQ(resumed.report.markdown, base.report.markdown);
    EXPECT_EQ(resumed.usage.total_tokens, base.usage.total_tokens);
    EXPECT_EQ(resumed.result, base.result);
    EXPECT_EQ(resumed.trace["ledgers"], base.trace["ledgers"]);
    // Only the turns after the checkpoint ran again.
    const int64_t done = checkpoints[k]["graph"]["steps"].get<int64_t>();
    int calls = 0;
    for (const char* role : {"submit_ledger", "submit_search", "submit_judgement", "submit_hypotheses",
                             "submit_report"}) {
      calls += fresh->calls(role);
    }
    int base_calls = 0;
    for (const char* role : {"submit_ledger", "submit_search", "submit_judgement", "submit_hypotheses",
                             "submit_report"}) {
      base_calls += model->calls(role);
    }
    EXPECT_LT(calls, base_calls) << "resumed after " << done << " node(s)";
  }
}

TEST(ResearchResumeTest, ACheckpointOfAnotherQuestionIsRefusedBeforeAnyWork) {
  ResearchConfig config = testing::FixtureConfig();
  std::vector<Json> checkpoints;
  config.on_checkpoint = [&](const Json& c) { checkpoints.push_back(c); };
  ASSERT_TRUE(RunResearch(testing::kResearchQuestion, config).status.ok());
  ASSERT_FALSE(checkpoints.empty());
  ResearchConfig again = testing::FixtureConfig();
  again.resume_from = checkpoints[0];
  const ResearchOutcome refused = RunResearch("Another question entirely?", again);
  EXPECT_FALSE(refused.status.ok());
  EXPECT_THAT(refused.status.message(), HasSubstr("another question"));
  again.resume_from = Json{{"version", 99}};
  EXPECT_THAT(RunResearch(testing::kResearchQuestion, again).status.message(), HasSubstr("research checkpoint"));
}

// One moment of the uninterrupted run, copied as a kill would leave it.
struct KillPoint {
  std::string store;
  std::string memory;
  int requests = 0;       // literature requests made by then
  int turn_requests = 0;  // ... when the turn under way started
  std::string what;
};

TEST(ResearchRunsTest, KilledAtEveryTurnTheResumedRunGivesTheUninterruptedReport) {
  testing::TempDir dir;
  const std::string store_path = dir.File("runs.sqlite");
  const std::string memory_path = dir.File("memory.sqlite");
  std::vector<KillPoint> kills;
  ResearchRun base;
  std::vector<StepRecord> base_steps;
  auto transport = std::make_shared<CountingTransport>();
  {
    auto store = Store(store_path);
    RunService service(store);
    Result<std::unique_ptr<PreparedResearch>> prepared = PrepareResearch(service, RulesStart(memory_path));
    ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
    (*prepared)->config.literature = Literature(transport);
    int turn_requests = 0;
    ResearchHooks hooks;
    hooks.on_event = [&](const ResearchEvent& e) {
      const bool starts = TurnStarts(e);
      if (starts) turn_requests = transport->requests;
      if (!starts && e.type != ResearchEventType::kSearchComplete) return;
      KillPoint k{.store = dir.File("kill" + std::to_string(kills.size()) + ".sqlite"),
                  .memory = dir.File("kill" + std::to_string(kills.size()) + ".memory.sqlite"),
                  .requests = transport->requests,
                  .turn_requests = turn_requests,
                  .what = std::string(ResearchEventTypeName(e.type)) + " of round " + std::to_string(e.iteration)};
      CopyDatabase(store_path, k.store);
      CopyDatabase(memory_path, k.memory);
      kills.push_back(k);
    };
    base = RunPreparedResearch(service, std::move(*prepared), hooks);
    ASSERT_TRUE(base.stored);
    EXPECT_EQ(base.status, "finished");
    ASSERT_TRUE(base.outcome.report_from_agent);
    Result<std::vector<StepRecord>> steps = store->Steps(base.run_id);
    ASSERT_TRUE(steps.ok());
    base_steps = *steps;
    // A finished run keeps no checkpoint.
    Result<std::optional<RunState>> state = store->LatestState(base.run_id);
    ASSERT_TRUE(state.ok());
    EXPECT_FALSE(state->has_value());
  }  // the "killed" process's store is closed: its leases are free
  ASSERT_GE(kills.size(), 8u);
  ASSERT_EQ(base_steps.size(), static_cast<size_t>(base.outcome.trace["agent_runs"].size()));
  const int base_requests = transport->requests;

  for (const KillPoint& kill : kills) {
    SCOPED_TRACE("killed at " + kill.what);
    ReplaceFile(kill.memory, memory_path);
    auto store = Store(kill.store);
    RunService service(store);
    Result<RunRecord> run = service.PrepareResume(base.run_id);
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    EXPECT_EQ(run->status, "running");
    Result<std::unique_ptr<PreparedResearch>> prepared = PrepareResearchResume(service, base.run_id, {});
    ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
    auto again = std::make_shared<CountingTransport>();
    (*prepared)->config.literature = Literature(again);
    std::vector<ResearchEvent> events;
    const ResearchRun resumed =
        RunPreparedResearch(service, std::move(*prepared), {.on_event = [&](const ResearchEvent& e) {
                              events.push_back(e);
                            }});
    EXPECT_EQ(resumed.run_id, base.run_id);
    EXPECT_EQ(resumed.status, "finished");
    EXPECT_EQ(resumed.outcome.report.markdown, base.outcome.report.markdown);
    EXPECT_EQ(resumed.outcome.result["evidence"], base.outcome.result["evidence"]);
    // No completed search again: the cut turn's requests and those after it only.
    EXPECT_EQ(again->requests, base_requests - kill.turn_requests);
    // Every step once, in order.
    Result<std::vector<StepRecord>> steps = store->Steps(base.run_id);
    ASSERT_TRUE(steps.ok());
    EXPECT_EQ(Signature(*steps), Signature(base_steps));
    // The events: the killed process's up to its last checkpoint, then the resume's.
    Result<std::vector<RunEvent>> stored = store->Events(base.run_id);
    ASSERT_TRUE(stored.ok());
    ASSERT_FALSE(stored->empty());
    EXPECT_EQ(stored->front().type, "started");
    EXPECT_EQ(stored->back().type, "complete");
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.front().type, ResearchEventType::kStarted);
    Result<RunRecord> done = store->Get(base.run_id);
    ASSERT_TRUE(done.ok());
    EXPECT_EQ(done->status, "finished");
    EXPECT_TRUE(store->IntegrityCheck().ok());
  }
}

TEST(ResearchRunsTest, ACancelledResearchEndsInterruptedAndGoesOnFromItsLastCheckpoint) {
  testing::TempDir dir;
  // The uninterrupted research, for comparison.
  std::string expected;
  std::vector<std::string> expected_steps;
  {
    auto store = Store(dir.File("base.sqlite"));
    RunService service(store);
    Result<std::unique_ptr<PreparedResearch>> prepared = PrepareResearch(service, RulesStart());
    ASSERT_TRUE(prepared.ok());
    (*prepared)->config.literature = Literature(std::make_shared<CountingTransport>());
    const ResearchRun run = RunPreparedResearch(service, std::move(*prepared), {});
    expected = run.outcome.report.markdown;
    expected_steps = Signature(*store->Steps(run.run_id));
  }
  auto store = Store(dir.File("runs.sqlite"));
  std::string id;
  {
    RunService service(store);
    Result<std::unique_ptr<PreparedResearch>> prepared = PrepareResearch(service, RulesStart());
    ASSERT_TRUE(prepared.ok());
    (*prepared)->config.literature = Literature(std::make_shared<CountingTransport>());
    CancellationToken cancel;
    int searches = 0;
    ResearchHooks hooks{.on_event = [&](const ResearchEvent& e) {
                          if (e.type == ResearchEventType::kSearching && ++searches == 2) cancel.Cancel();
                        },
                        .cancel = cancel};
    const ResearchRun stopped = RunPreparedResearch(service, std::move(*prepared), hooks);
    id = stopped.run_id;
    EXPECT_EQ(stopped.status, "interrupted");
    EXPECT_EQ(stopped.outcome.stop_reason, "cancelled");
    EXPECT_EQ(store->Get(id)->status, "interrupted");
  }
  RunService service(store);
  ASSERT_TRUE(service.PrepareResume(id).ok());
  Result<std::unique_ptr<PreparedResearch>> prepared = PrepareResearchResume(service, id, {});
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  (*prepared)->config.literature = Literature(std::make_shared<CountingTransport>());
  const ResearchRun resumed = RunPreparedResearch(service, std::move(*prepared), {});
  EXPECT_EQ(resumed.status, "finished");
  EXPECT_EQ(resumed.outcome.report.markdown, expected);
  EXPECT_EQ(Signature(*store->Steps(id)), expected_steps);
}

TEST(ResearchRunsTest, TheServiceCancelsARunningResearch) {
  testing::TempDir dir;
  RunService service(Store(dir.File("runs.sqlite")));
  Result<std::unique_ptr<PreparedResearch>> prepared = PrepareResearch(service, RulesStart());
  ASSERT_TRUE(prepared.ok());
  (*prepared)->config.literature = Literature(std::make_shared<CountingTransport>());
  int searches = 0;
  Status cancelled = Status::Internal("never called");
  const ResearchRun run =
      RunPreparedResearch(service, std::move(*prepared), {.on_event = [&](const ResearchEvent& e) {
                            if (e.type == ResearchEventType::kSearching && ++searches == 2) {
                              cancelled = service.Cancel(service.List()->front().id);
                            }
                          }});
  EXPECT_TRUE(cancelled.ok()) << cancelled.ToString();
  EXPECT_EQ(run.status, "interrupted");
  EXPECT_EQ(service.Cancel(run.run_id).code(), StatusCode::kNotFound);  // no longer running here
}

// What a page following the run from the store sees while it works: an
// agent's start stored at once (not at the next checkpoint), and the report
// as it is written, its streamed fragments joined into pieces of at least
// 240 characters (the rest before the next event), all before `complete`.
TEST(ResearchRunsTest, AgentStartsAndTheReportsTextAreStoredAsTheyHappen) {
  testing::TempDir dir;
  auto store = Store(dir.File("runs.sqlite"));
  RunService service(store);
  Result<std::unique_ptr<PreparedResearch>> prepared = PrepareResearch(service, RulesStart());
  ASSERT_TRUE(prepared.ok());
  (*prepared)->config.literature = Literature(std::make_shared<CountingTransport>());
  std::string id;
  std::string streamed;  // the report's fragments so far
  int judging = 0, judging_stored = 0, fragments = 0;
  auto stored_of = [&](const std::string& type, std::string* text) {
    int n = 0;
    Result<std::vector<RunEvent>> events = store->Events(id);
    if (!events.ok()) ADD_FAILURE() << "run '" << id << "': " << events.status().ToString();
    if (!events.ok()) return -1;
    for (const RunEvent& e : *events) {
      if (e.type != type) continue;
      const Json j = ParseJson(e.json).value();
      if (text && StringOr(j, "agent") != "report") continue;
      ++n;
      if (text) *text += StringOr(j["data"], "text");
    }
    return n;
  };
  ResearchHooks hooks;
  hooks.on_started = [&](const std::string& run_id) { id = run_id; };
  hooks.on_event = [&](const ResearchEvent& e) {
    if (e.type == ResearchEventType::kJudging) {
      ++judging;
      judging_stored = stored_of("judging", nullptr);
    }
    if (e.type == ResearchEventType::kStreaming && e.agent == "report") {
      ++fragments;
      streamed += StringOr(e.data, "text");
      std::string stored;
      stored_of("streaming", &stored);
      EXPECT_EQ(streamed.compare(0, stored.size(), stored), 0) << "the stored text is what was streamed, in order";
      EXPECT_LT(streamed.size() - stored.size(), 240u) << "at most one piece waits";
    }
  };
  const ResearchRun run = RunPreparedResearch(service, std::move(*prepared), hooks);
  ASSERT_EQ(run.status, "finished") << run.outcome.status.ToString() << " " << run.outcome.stop_reason << " " << Json(run.outcome.errors).dump() << " " << run.outcome.fallback_reason;
  ASSERT_GE(judging, 1);
  EXPECT_EQ(judging_stored, judging) << "each judge's start is in the store when it starts";
  ASSERT_GE(fragments, 2) << "the rules planner streams its report section by section";
  std::string stored;
  const int pieces = stored_of("streaming", &stored);
  EXPECT_EQ(stored, streamed);
  EXPECT_GE(pieces, 1);
  EXPECT_LE(pieces, fragments);
  const std::vector<RunEvent> all = store->Events(id).value();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.back().type, "complete");
}

// A research that fails (here: its memory file holds another question) ends
// with an `error` event stored with its result, so a page following its
// events learns the end without a `complete`.
TEST(ResearchRunsTest, AFailedResearchsLastStoredEventSaysItFailed) {
  testing::TempDir dir;
  const std::string memory = dir.File("memory.sqlite");
  ASSERT_TRUE(ResearchMemory::Open(memory, "Another question entirely?").ok());
  auto store = Store(dir.File("runs.sqlite"));
  RunService service(store);
  Result<std::unique_ptr<PreparedResearch>> prepared = PrepareResearch(service, RulesStart(memory));
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  const ResearchRun run = RunPreparedResearch(service, std::move(*prepared), {});
  ASSERT_TRUE(run.stored);
  EXPECT_EQ(run.status, "error");
  Result<std::vector<RunEvent>> events = store->Events(run.run_id);
  ASSERT_TRUE(events.ok());
  ASSERT_FALSE(events->empty());
  EXPECT_EQ(events->back().type, "error");
  const Json last = ParseJson(events->back().json).value_or(Json());
  EXPECT_THAT(StringOr(last, "message"), HasSubstr("The research failed: research memory"));
  EXPECT_FALSE(last.contains("agent"));
  EXPECT_EQ(store->Get(run.run_id)->status, "error");
}

TEST(ResearchRunsTest, PrepareChecksEverythingBeforeAnyWork) {
  testing::TempDir dir;
  RunService service(Store(dir.File("runs.sqlite")));
  ResearchStart start = RulesStart();
  start.sources = {"pubmed", "web"};
  EXPECT_THAT(PrepareResearch(service, start).status().message(), HasSubstr("(sources): unknown source 'web'"));
  start = RulesStart();
  start.question = "  ";
  EXPECT_THAT(PrepareResearch(service, start).status().message(), HasSubstr("the question is empty"));
  // The literature tools take 1..50 records per search; more is refused, not failed search by search.
  start = RulesStart();
  start.results = 51;
  EXPECT_THAT(PrepareResearch(service, start).status().message(), HasSubstr("(results) must be between 1 and 50"));
  start.results = 50;
  EXPECT_TRUE(PrepareResearch(service, start).ok());
  start = RulesStart();
  start.planner = "model";
  EXPECT_THAT(PrepareResearch(service, start).status().message(), HasSubstr("(llm_url)"));
  start = RulesStart();
  start.replay_path = dir.File("missing.jsonl");
  EXPECT_THAT(PrepareResearch(service, start).status().message(), HasSubstr("(cache_path)"));
  start.cache_path = dir.File("cache.sqlite");
  EXPECT_THAT(PrepareResearch(service, start).status().message(), HasSubstr("(replay_path)"));
  // Nothing was recorded.
  EXPECT_TRUE(service.List()->empty());
  // A stored research without a checkpoint, or of another app, is refused naming why.
  ASSERT_TRUE(service.store()->CreateRun({.id = "run_chat", .app = "chat"}).ok());
  EXPECT_THAT(PrepareResearchResume(service, "run_chat", {}).status().message(), HasSubstr("not a research run"));
  const Json inputs = {{"message", testing::kResearchQuestion}};
  ASSERT_TRUE(service.store()->CreateRun({.id = "run_res", .app = "research", .inputs = inputs}).ok());
  EXPECT_THAT(PrepareResearchResume(service, "run_res", {}).status().message(), HasSubstr("no checkpoint"));
  // A research a model played goes on with a model: the stored one, or the resume's.
  RunState state;
  state.trace.run_id = "run_model";
  state.messages.push_back(Message::User(testing::kResearchQuestion));
  state.app = {{"version", 1}, {"planner", "model"}};
  ASSERT_TRUE(service.store()->CreateRun({.id = "run_model", .app = "research", .inputs = inputs}, &state).ok());
  EXPECT_THAT(PrepareResearchResume(service, "run_model", {}).status().message(),
              HasSubstr("has no model URL stored; give the model URL (llm_url)"));
  ResumeSpec spec;
  spec.model.url = "ftp://nowhere";
  EXPECT_FALSE(PrepareResearchResume(service, "run_model", spec).ok());
}


// Research's searches under the approval rules (issue 22): a search that
// waits pauses the research (no report yet), Show lists the calls, Decide
// stores the decisions, and the research goes on from the paused turn —
// each search run once, the report the one without approval.
class ResearchApprovalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = Store(dir_.File("runs.sqlite"));
    RunService service(Store(dir_.File("base.sqlite")));
    Result<std::unique_ptr<PreparedResearch>> prepared = PrepareResearch(service, RulesStart());
    ASSERT_TRUE(prepared.ok());
    auto transport = std::make_shared<CountingTransport>();
    (*prepared)->config.literature = Literature(transport);
    const ResearchRun run = RunPreparedResearch(service, std::move(*prepared), {});
    ASSERT_EQ(run.status, "finished");
    base_report_ = run.outcome.report.markdown;
    base_steps_ = Signature(*service.store()->Steps(run.run_id));
    base_requests_ = transport->requests;
  }

  // Starts (empty `id`) or goes on with a research under `rules`, deciding
  // every pause with `decide` until it ends; returns the pauses seen.
  int RunDeciding(const std::vector<std::string>& rules, const std::function<CallDecision(const ToolCall&)>& decide,
                  ResearchRun& last) {
    RunService service(store_);
    ResearchStart start = RulesStart();
    start.require_approval = rules;
    Result<std::unique_ptr<PreparedResearch>> prepared = PrepareResearch(service, start);
    EXPECT_TRUE(prepared.ok()) << prepared.status().ToString();
    if (!prepared.ok()) return -1;
    (*prepared)->config.literature = Literature(transport_);
    last = RunPreparedResearch(service, std::move(*prepared), {});
    int pauses = 0;
    while (last.status == "awaiting_approval" && pauses < 20) {
      ++pauses;
      EXPECT_TRUE(last.outcome.report.markdown.empty());
      EXPECT_TRUE(last.outcome.paused.has_value());
      Result<RunView> view = service.Show(last.run_id);
      EXPECT_TRUE(view.ok()) << view.status().ToString();
      if (!view.ok() || view->waiting.empty()) return -1;
      EXPECT_EQ(view->run.status, "awaiting_approval");
      std::vector<CallDecision> decisions;
      for (const ToolCall& call : view->waiting) {
        EXPECT_NE(call.name, "submit_search");  // a finishing tool never waits
        decisions.push_back(decide(call));
      }
      Result<DecideOutcome> decided = service.Decide(last.run_id, decisions, {.identity = "dr.reviewer"});
      EXPECT_TRUE(decided.ok()) << decided.status().ToString();
      if (!decided.ok()) return -1;
      EXPECT_TRUE(decided->waiting.empty());
      Result<std::unique_ptr<PreparedResearch>> again = PrepareResearchResume(service, last.run_id, {});
      EXPECT_TRUE(again.ok()) << again.status().ToString();
      if (!again.ok()) return -1;
      (*again)->config.literature = Literature(transport_);
      last = RunPreparedResearch(service, std::move(*again), {});
    }
    return pauses;
  }

  testing::TempDir dir_;
  std::shared_ptr<RunStore> store_;
  std::shared_ptr<CountingTransport> transport_ = std::make_shared<CountingTransport>();
  std::string base_report_;
  std::vector<std::string> base_steps_;
  int base_requests_ = 0;
};

TEST_F(ResearchApprovalTest, ApprovedSearchesRunOnceAndGiveTheReportWithoutApproval) {
  ResearchRun run;
  const int pauses = RunDeciding({"network"}, [](const ToolCall& c) { return CallDecision{.call_id = c.id, .approve = true}; }, run);
  EXPECT_GE(pauses, 1);
  EXPECT_EQ(run.status, "finished");
  EXPECT_EQ(run.outcome.report.markdown, base_report_);
  EXPECT_EQ(transport_->requests, base_requests_);  // no search twice, none lost
  EXPECT_EQ(Signature(*store_->Steps(run.run_id)), base_steps_);
  EXPECT_TRUE(run.outcome.failed_searches.empty());
}

TEST_F(ResearchApprovalTest, RejectedSearchesAreNamedInTheReportAndNeverSent) {
  ResearchRun run;
  const int pauses = RunDeciding(
      {"all"}, [](const ToolCall& c) { return CallDecision{.call_id = c.id, .approve = false, .reason = "not today"}; },
      run);
  EXPECT_GE(pauses, 1);
  EXPECT_NE(run.status, "awaiting_approval");
  EXPECT_EQ(transport_->requests, 0);  // nothing reached a literature service
  ASSERT_FALSE(run.outcome.failed_searches.empty());
  EXPECT_THAT(run.outcome.failed_searches[0].error, HasSubstr("not today"));
  EXPECT_THAT(run.outcome.report.markdown, HasSubstr("not today"));
}

TEST_F(ResearchApprovalTest, EditedArgumentsAreCheckedAgainstTheSearchToolsSchema) {
  RunService service(store_);
  ResearchStart start = RulesStart();
  start.require_approval = {"tool:search_pubmed"};
  Result<std::unique_ptr<PreparedResearch>> prepared = PrepareResearch(service, start);
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  (*prepared)->config.literature = Literature(transport_);
  const ResearchRun run = RunPreparedResearch(service, std::move(*prepared), {});
  ASSERT_EQ(run.status, "awaiting_approval");
  Result<RunView> view = service.Show(run.run_id);
  ASSERT_TRUE(view.ok());
  ASSERT_EQ(view->waiting.size(), 1u);
  EXPECT_EQ(view->waiting[0].name, "search_pubmed");
  const std::string id = view->waiting[0].id;
  Result<DecideOutcome> bad =
      service.Decide(run.run_id, {{.call_id = id, .approve = true, .arguments = R"({"query": 5})"}}, {});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("search_pubmed"));
  EXPECT_EQ(store_->Get(run.run_id)->status, "awaiting_approval");  // nothing stored
  Result<DecideOutcome> good = service.Decide(
      run.run_id, {{.call_id = id, .approve = true, .arguments = R"({"query": "pembrolizumab", "max_results": 2})"}},
      {.identity = "dr.a"});
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  Result<std::unique_ptr<PreparedResearch>> again = PrepareResearchResume(service, run.run_id, {});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ASSERT_EQ((*again)->config.approvals.count(id), 1u);
  EXPECT_EQ((*again)->config.approvals.at(id).reviewer, "dr.a");
  EXPECT_THAT((*again)->config.approvals.at(id).arguments, HasSubstr("pembrolizumab"));
}

TEST_F(ResearchApprovalTest, AnApproverDecidesInlineAndRulesAreCheckedBeforeAnyWork) {
  RunService service(store_);
  ResearchStart start = RulesStart();
  start.require_approval = {"tool:search_nowhere"};
  EXPECT_THAT(PrepareResearch(service, start).status().message(), HasSubstr("(require_approval)"));
  start.require_approval = {"network"};
  Result<std::unique_ptr<PreparedResearch>> prepared = PrepareResearch(service, start);
  ASSERT_TRUE(prepared.ok());
  (*prepared)->config.literature = Literature(transport_);
  int asked = 0;
  ResearchHooks hooks;
  hooks.approve = [&](const ToolCall&, const ToolSpec&) -> std::optional<ApprovalDecision> {
    ++asked;
    return ApprovalDecision{.approved = true, .reviewer = "dr.inline"};
  };
  const ResearchRun run = RunPreparedResearch(service, std::move(*prepared), hooks);
  EXPECT_EQ(run.status, "finished");
  EXPECT_GT(asked, 0);
  EXPECT_EQ(run.outcome.report.markdown, base_report_);
  // Without a store, a search that would wait has nowhere to wait: refused before any work.
  RunService unstored(nullptr);
  Result<std::unique_ptr<PreparedResearch>> no_store = PrepareResearch(unstored, start);
  ASSERT_TRUE(no_store.ok());
  (*no_store)->config.literature = Literature(transport_);
  const int before = transport_->requests;
  const ResearchRun refused = RunPreparedResearch(unstored, std::move(*no_store), {});
  EXPECT_THAT(refused.outcome.status.message(), HasSubstr("need a run store"));
  EXPECT_EQ(transport_->requests, before);
}

}  // namespace
}  // namespace medreact::service
