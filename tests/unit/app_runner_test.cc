// The shared app runner (apps/common/app_runner.h): the fallback rule every
// app follows, and the reporter every front end writes through.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "apps/common/app_runner.h"
#include "testing/fake_model.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(RunWithFallbackTest, AModelThatNeverAnsweredHandsOverToThePlannerAndSaysWhy) {
  auto model = std::make_shared<testing::FakeModel>();
  auto planner = std::make_shared<testing::FakeModel>();
  std::vector<ChatModel*> attempts;
  FallbackOutcome out = RunWithFallback(
      model, [&] { return planner; }, true, CancellationToken(),
      [&](std::shared_ptr<ChatModel> m) -> std::optional<std::string> {
        attempts.push_back(m.get());
        return m == model ? std::optional<std::string>("connection refused") : std::nullopt;
      });
  EXPECT_EQ(attempts, (std::vector<ChatModel*>{model.get(), planner.get()}));
  EXPECT_TRUE(out.fell_back);
  EXPECT_EQ(out.planner, "rules (fallback)");
  EXPECT_EQ(out.model_failure, "connection refused");
}

TEST(RunWithFallbackTest, NoFallbackWhenItIsOffCancelledOrNotNeeded) {
  auto model = std::make_shared<testing::FakeModel>();
  auto planner = std::make_shared<testing::FakeModel>();
  int runs = 0;
  auto never = [&](std::shared_ptr<ChatModel>) -> std::optional<std::string> {
    ++runs;
    return "unreachable";
  };
  EXPECT_FALSE(RunWithFallback(model, [&] { return planner; }, false, CancellationToken(), never).fell_back);
  CancellationToken cancelled;
  cancelled.Cancel();
  EXPECT_FALSE(RunWithFallback(model, [&] { return planner; }, true, cancelled, never).fell_back);
  EXPECT_EQ(runs, 2);

  std::vector<ChatModel*> used;
  FallbackOutcome rules = RunWithFallback(nullptr, [&] { return planner; }, true, CancellationToken(),
                                          [&](std::shared_ptr<ChatModel> m) -> std::optional<std::string> {
                                            used.push_back(m.get());
                                            return std::nullopt;
                                          });
  EXPECT_EQ(rules.planner, "rules");
  EXPECT_EQ(used, (std::vector<ChatModel*>{planner.get()}));
}

TEST(RunReporterTest, PathsAreCheckedFirstAndTheEventLogIsCreatedOnlyByOpen) {
  testing::TempDir dir;
  RunOutputs bad{.trace_path = dir.File("missing-folder/trace.json")};
  EXPECT_THAT(RunReporter::CheckPaths(bad).message(), HasSubstr("trace (trace_path)"));
  RunOutputs outputs{.events_path = dir.File("events.jsonl")};
  ASSERT_TRUE(RunReporter::CheckPaths(outputs).ok());
  EXPECT_EQ(testing::ReadFileOrEmpty(outputs.events_path), "");
  EXPECT_FALSE(std::filesystem::exists(outputs.events_path));
}

TEST(RunReporterTest, ProgressNamesToolsAndTimingsNeverContentAndEventsAreJsonLines) {
  testing::TempDir dir;
  std::ostringstream progress;
  RunOutputs outputs{.trace_path = dir.File("trace.json"), .events_path = dir.File("events.jsonl"),
                     .result_path = dir.File("result.json"), .verbose = true};
  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, progress);
  ASSERT_TRUE(reporter.ok()) << reporter.status().ToString();
  EventSink sink = (*reporter)->sink();
  ASSERT_TRUE(sink);
  sink({.type = EventType::kToolStarted, .step = 1, .text = R"({"patient":"Jane Doe"})", .tool_name = "lookup"});
  sink({.type = EventType::kToolFinished, .step = 1, .text = "Jane Doe, 1970-01-01", .tool_name = "lookup",
        .ok = true, .elapsed_ms = 12});
  EXPECT_EQ(progress.str(), "[step 1] lookup ok 12 ms\n");
  EXPECT_THAT(progress.str(), Not(HasSubstr("Jane")));
  RunTrace trace;
  trace.status = "finished";
  ASSERT_TRUE((*reporter)->WriteTrace(trace).ok());
  ASSERT_TRUE((*reporter)->WriteResult("{}\n").ok());
  reporter->reset();  // closes the event log
  std::istringstream lines(testing::ReadFileOrEmpty(outputs.events_path));
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    ASSERT_TRUE(ParseJson(line).ok()) << line;
    ++n;
  }
  EXPECT_EQ(n, 2);
  EXPECT_THAT(testing::ReadFileOrEmpty(outputs.trace_path), HasSubstr("\"status\": \"finished\""));
  EXPECT_EQ(testing::ReadFileOrEmpty(outputs.result_path), "{}\n");
}

}  // namespace
}  // namespace medreact
