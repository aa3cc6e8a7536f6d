// A `medreact serve` killed with SIGKILL mid-run and started again on the
// same store: the client holding the run's event stream reconnects to the
// new server with Last-Event-ID and ends with every event id exactly once,
// in order; the new server took the run over (its owner died) and finished
// it once, with no completed tool call run twice.
//
// The scripted model (a process of its own, as a real model server would
// be) chooses its reply by the number of assistant turns in the request, so
// the resumed run meets the next step's reply; each reply waits 150 ms so
// the kill lands mid-run. Timing decides only where the kill lands, never
// what is asserted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <map>
#include <thread>

#include "medreact/json.h"
#include "store/run_store.h"
#include "testing/build_paths.h"
#include "testing/serve_fixture.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using testing::BackgroundCommand;
using testing::SseEvent;
using testing::TempDir;

constexpr int kToolSteps = 6;
constexpr char kAnswer[] = "The six sums are done: 42.";

std::string Script() {
  Json responses = Json::array();
  for (int s = 1; s <= kToolSteps; ++s) {
    Json calls = Json::array();
    for (const char* part : {"a", "b"}) {
      calls.push_back({{"id", "call_" + std::to_string(s) + part},
                       {"name", "calculator"},
                       {"arguments", DumpJson(Json{{"expression", std::to_string(s) + " * 7"}})}});
    }
    responses.push_back({{"delay_ms", 150}, {"message", {{"content", nullptr}, {"tool_calls", calls}}}});
  }
  responses.push_back({{"delay_ms", 150}, {"message", {{"content", kAnswer}}}});
  return DumpJson(Json{{"select", "by_turn"}, {"responses", responses}});
}

int WaitForPort(const std::string& file) {
  for (int i = 0; i < 400; ++i) {
    const std::string text = testing::ReadFileOrEmpty(file);
    if (!text.empty() && text.back() == '\n') return std::atoi(text.c_str());
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return 0;
}

std::unique_ptr<BackgroundCommand> Serve(const std::string& store, const std::string& port_file,
                                         const std::string& model_url) {
  return std::make_unique<BackgroundCommand>(std::vector<std::string>{
      MEDREACT_BINARY, "serve", "--store", store, "--port", "0", "--port-file", port_file, "--no-access-log",
      "--llm-url", model_url, "--model", "mock", "--max-retries", "0"});
}

TEST(ServerCrashTest, AClientFollowingARunThroughAKillAndRestartGetsEveryEventOnceAndTheRunEndsOnce) {
  testing::MockLlmProcess model(Script());
  ASSERT_TRUE(model.ok());
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  auto first = Serve(store, dir.File("port1"), model.base_url());
  const int port1 = WaitForPort(dir.File("port1"));
  ASSERT_GT(port1, 0) << first->Stderr();

  httplib::Client c1("127.0.0.1", port1);
  auto created = c1.Post("/v1/runs",
                         DumpJson(Json{{"app", "chat"},
                                       {"inputs", {{"message", "Work out six products."}, {"packs", {"util"}}}}}),
                         "application/json");
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 201) << created->body;
  const std::string id = StringOr(testing::ServeFixture::JsonOf(created)["run"], "id");
  ASSERT_FALSE(id.empty());

  // Follow the run on the first server; kill it once a few events arrived.
  std::string text;
  std::thread killer;
  std::atomic<bool> killed{false};
  c1.set_read_timeout(30, 0);
  c1.Get("/v1/runs/" + id + "/events", [&](const char* data, size_t n) {
    text.append(data, n);
    if (!killed && testing::ParseSse(text).size() >= 8) {
      killed = true;
      first->Signal(SIGKILL);
    }
    return true;
  });
  ASSERT_TRUE(killed) << "the run ended before the kill: " << text;
  first->Wait(std::chrono::seconds(10));
  std::vector<SseEvent> before = testing::ParseSse(text);
  ASSERT_FALSE(before.empty());
  ASSERT_NE(before.back().event, "end");
  const std::string last_id = before.back().id;

  // The second server takes the run over; the client goes on from its last id.
  auto second = Serve(store, dir.File("port2"), model.base_url());
  const int port2 = WaitForPort(dir.File("port2"));
  ASSERT_GT(port2, 0) << second->Stderr();
  httplib::Client c2("127.0.0.1", port2);
  c2.set_read_timeout(60, 0);
  std::string rest;
  c2.Get("/v1/runs/" + id + "/events", {{"Last-Event-ID", last_id}}, [&](const char* data, size_t n) {
    rest.append(data, n);
    std::vector<SseEvent> got = testing::ParseSse(rest);
    return got.empty() || got.back().event != "end";
  });
  std::vector<SseEvent> after = testing::ParseSse(rest);
  ASSERT_FALSE(after.empty()) << second->Stderr();
  EXPECT_EQ(after.back().event, "end");
  EXPECT_THAT(after.back().data, ::testing::HasSubstr("\"status\":\"finished\""));
  EXPECT_THAT(second->Stderr(), ::testing::HasSubstr("took over 1 run(s)"));

  // Every id exactly once, in order, across the two connections.
  std::vector<int64_t> ids;
  for (const auto* part : {&before, &after}) {
    for (const SseEvent& e : *part) {
      if (!e.id.empty()) ids.push_back(std::stoll(e.id));
    }
  }
  ASSERT_GT(ids.size(), 10u);
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], static_cast<int64_t>(i + 1)) << "position " << i;

  // The run ended once, finished with the scripted answer; no finished call ran twice.
  Result<std::unique_ptr<RunStore>> opened = RunStore::Open(store, {.read_only = true});
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Result<std::vector<RunRecord>> runs = (*opened)->List();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(runs->front().status, "finished");
  EXPECT_THAT(DumpJson(runs->front().result), ::testing::HasSubstr(kAnswer));
  std::map<std::string, int> finished;
  Result<std::vector<RunEvent>> stored = (*opened)->Events(id);
  ASSERT_TRUE(stored.ok());
  for (const RunEvent& e : *stored) {
    if (e.type == "tool_finished") ++finished[e.tool_call_id];
  }
  EXPECT_EQ(finished.size(), 2u * kToolSteps);
  for (const auto& [call, times] : finished) EXPECT_EQ(times, 1) << call;
  second->Signal(SIGTERM);
  second->Wait(std::chrono::seconds(20));
}

}  // namespace
}  // namespace medreact
