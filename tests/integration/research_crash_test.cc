// Research runs killed outright (issue 22): a real `medreact research` with
// the rules planner against the loopback literature fixture server (every
// reply a little late), killed with SIGKILL at points spread over the run,
// then `medreact runs resume` on the same store. For every kill point: the
// resume exits 0 and writes the report the uninterrupted run wrote (to the
// --report and --out the research stored), the run has every step of the
// uninterrupted run once and in order (no agent's turn lost, none — no
// search — recorded twice), it asked the server for nothing the
// uninterrupted run did not, and the store passes integrity_check.
//
// Kills are spread by the server's request count (an event, not a time)
// plus a small offset, so they land during searches, between them and
// during the other agents' turns. Timing decides only where a kill lands,
// never what is asserted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <iostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "medreact/json.h"
#include "store/run_store.h"
#include "testing/build_paths.h"
#include "testing/literature_server.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using testing::BackgroundCommand;
using testing::FixtureReply;
using testing::LiteratureFixture;
using testing::LiteratureFixtureServer;
using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::SeenRequest;
using testing::TempDir;

constexpr int kDelayMs = 40;
constexpr char kQuestion[] = "What is the evidence for Keytruda in cancer?";

FixtureReply Late(std::string body, std::string type = "application/json") {
  std::this_thread::sleep_for(std::chrono::milliseconds(kDelayMs));
  return FixtureReply{.body = std::move(body), .content_type = std::move(type)};
}

void Route(LiteratureFixtureServer& server) {
  server.Route("/eutils/esearch.fcgi", [](const SeenRequest&) {
    return Late(R"({"header":{"type":"esearch"},"esearchresult":{"count":"1","idlist":["27797938"]}})");
  });
  const std::string efetch = LiteratureFixture("ncbi_efetch_pubmed_structured_abstract.xml");
  server.Route("/eutils/efetch.fcgi", [efetch](const SeenRequest&) { return Late(efetch, "text/xml"); });
  const std::string trials = LiteratureFixture("ctgov_v2_search_keytruda_pagesize3.json");
  server.Route("/ctgov/studies", [trials](const SeenRequest&) {
    Json page = *ParseJson(trials);
    page.erase("nextPageToken");  // one page
    return Late(DumpJson(page));
  });
  const std::string preprints = LiteratureFixture("europepmc_search_preprints_core.handmade.json");
  server.Route("/europepmc/search", [preprints](const SeenRequest&) { return Late(preprints); });
}

std::string Key(const SeenRequest& r) {
  std::string key = r.path;
  for (const auto& [k, v] : r.params) key += "&" + k + "=" + v;
  return key;
}

struct Files {
  std::string store, cache, report, out;
};

Files FilesIn(const TempDir& dir, const std::string& tag) {
  return {dir.File(tag + ".runs.sqlite"), dir.File(tag + ".cache.sqlite"), dir.File(tag + ".report.md"),
          dir.File(tag + ".out.json")};
}

std::vector<std::string> ResearchArgs(const Files& f) {
  return {MEDREACT_BINARY, "research", kQuestion, "--planner", "rules", "--results", "3", "--online",
          "--cache",       f.cache,    "--store",  f.store,     "--report", f.report, "--out", f.out, "-q"};
}

testing::EnvList Env(const LiteratureFixtureServer& server, const TempDir& dir) {
  return {{"MEDREACT_LLM_URL", ""},
          {"HOME", dir.path()},
          {"XDG_CACHE_HOME", dir.path()},
          {"MEDREACT_PUBMED_URL", server.url("/eutils/")},
          {"MEDREACT_CTGOV_URL", server.url("/ctgov/")},
          {"MEDREACT_EUROPEPMC_URL", server.url("/europepmc/")}};
}

// The run's id and its steps as compared: which agent of which round, and
// its tool calls (name and arguments; ids are minted per run).
struct StoredRun {
  std::string id;
  std::string status;
  std::vector<std::string> steps;
};

StoredRun ReadRun(const std::string& path) {
  StoredRun out;
  Result<std::unique_ptr<RunStore>> store = RunStore::Open(path, {.create_if_missing = false});
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return out;
  Result<std::vector<RunRecord>> runs = (*store)->List();
  EXPECT_TRUE(runs.ok() && runs->size() == 1u);
  if (!runs.ok() || runs->size() != 1u) return out;
  out.id = (*runs)[0].id;
  out.status = (*runs)[0].status;
  Result<std::vector<StepRecord>> steps = (*store)->Steps(out.id);
  EXPECT_TRUE(steps.ok());
  for (const StepRecord& step : steps.value_or(std::vector<StepRecord>{})) {
    std::string note = step.notes.empty() ? "" : step.notes[0];
    note = note.substr(0, note.find(" (run "));
    for (const ToolCall& call : step.assistant.tool_calls) note += " | " + call.name + " " + call.arguments;
    out.steps.push_back(note);
  }
  EXPECT_TRUE((*store)->IntegrityCheck().ok());
  return out;
}

bool WaitForRequests(const LiteratureFixtureServer& server, size_t count, std::chrono::seconds limit) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (server.requests().size() < count) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

TEST(ResearchCrashTest, KilledAnywhereTheResumedResearchWritesTheUninterruptedReport) {
  LiteratureFixtureServer server;
  Route(server);
  ASSERT_TRUE(server.Start());
  TempDir dir;
  const testing::EnvList env = Env(server, dir);

  // The uninterrupted research.
  const Files base_files = FilesIn(dir, "base");
  testing::ProcessResult base = RunCommand(ResearchArgs(base_files), env, std::chrono::seconds(120));
  ASSERT_EQ(base.exit_code, 0) << base.err;
  const std::string base_report = ReadFileOrEmpty(base_files.report);
  ASSERT_THAT(base_report, ::testing::HasSubstr("# Research report"));
  const Json base_out = ParseJson(ReadFileOrEmpty(base_files.out)).value_or(Json());
  const StoredRun base_run = ReadRun(base_files.store);
  ASSERT_EQ(base_run.status, "finished");
  ASSERT_GE(base_run.steps.size(), 8u);
  std::set<std::string> base_requests;
  for (const SeenRequest& r : server.requests()) base_requests.insert(Key(r));
  const size_t total = server.requests().size();
  ASSERT_GE(total, 4u);

  int resumed_runs = 0;
  for (int k = 0; k < 7; ++k) {
    SCOPED_TRACE("kill point " + std::to_string(k));
    const Files files = FilesIn(dir, "kill" + std::to_string(k));
    const size_t before = server.requests().size();
    // After the k-th fifth of the requests, plus 0, 1/2 or 1 reply delay (searches); the last two just
    // after the last search's reply (the judge's, hypothesis or report turn, or the end).
    const size_t at = k < 5 ? std::max<size_t>(1, total * static_cast<size_t>(k) / 5) : total;
    const auto offset = std::chrono::milliseconds(k < 5 ? kDelayMs * (k % 3) / 2 : kDelayMs + 2 * (k - 4));
    BackgroundCommand research(ResearchArgs(files), env);
    ASSERT_TRUE(WaitForRequests(server, before + at, std::chrono::seconds(60)));
    std::this_thread::sleep_for(offset);
    research.Signal(SIGKILL);
    testing::ProcessResult killed = research.Wait();
    StoredRun cut = ReadRun(files.store);
    if (killed.exit_code == 0 || cut.status == "finished") {  // it ended before the kill: nothing to resume
      EXPECT_EQ(cut.steps, base_run.steps);
      std::cout << "[ kill " << k << " ] after the research ended\n";
      continue;
    }
    std::cout << "[ kill " << k << " ] after " << at << " of " << total << " requests: " << cut.steps.size() << " of "
              << base_run.steps.size() << " steps stored\n";
    EXPECT_EQ(killed.term_signal, SIGKILL);
    ASSERT_FALSE(cut.id.empty());
    EXPECT_EQ(cut.status, "running");
    // The steps stored by the kill are the uninterrupted run's first ones.
    ASSERT_LE(cut.steps.size(), base_run.steps.size());
    EXPECT_EQ(cut.steps, std::vector<std::string>(base_run.steps.begin(), base_run.steps.begin() + cut.steps.size()));

    testing::ProcessResult resumed =
        RunCommand({MEDREACT_BINARY, "runs", "resume", cut.id, "--store", files.store}, env, std::chrono::seconds(120));
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    ++resumed_runs;
    EXPECT_EQ(ReadFileOrEmpty(files.report), base_report);
    const Json out = ParseJson(ReadFileOrEmpty(files.out)).value_or(Json());
    EXPECT_EQ(out["report"], base_out["report"]);
    EXPECT_EQ(out["evidence"], base_out["evidence"]);
    const StoredRun done = ReadRun(files.store);
    EXPECT_EQ(done.status, "finished");
    EXPECT_EQ(done.steps, base_run.steps);  // 0 lost, 0 twice
    // Nothing asked that the uninterrupted research did not ask.
    const std::vector<SeenRequest> seen = server.requests();
    for (size_t i = before; i < seen.size(); ++i) EXPECT_EQ(base_requests.count(Key(seen[i])), 1u) << Key(seen[i]);
  }
  EXPECT_GE(resumed_runs, 3) << "most kills land before the research ends";
}

}  // namespace
}  // namespace medreact
