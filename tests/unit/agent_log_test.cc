// The agent's log lines (core/log.h) name the run they are about: the
// "started" and "finished" lines of one run carry the same run id, the one in
// the result's trace (the "finished" line once came after the trace had moved
// into the result and named no run).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <spdlog/sinks/ostream_sink.h>

#include <sstream>

#include "core/log.h"
#include "medreact/agent.h"
#include "testing/fake_model.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class AgentLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sink_ = std::make_shared<spdlog::sinks::ostream_sink_mt>(log_);
    SetLogSink(sink_);
    level_ = Log().level();
    Log().set_level(spdlog::level::info);
  }
  void TearDown() override {
    Log().set_level(level_);
    SetLogSink(nullptr);
  }

  std::ostringstream log_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
  spdlog::level::level_enum level_ = spdlog::level::warn;
};

TEST_F(AgentLogTest, TheRunFinishedLineNamesTheRun) {
  auto model = std::make_shared<testing::FakeModel>();
  model->PushText("42");
  Agent agent(model, std::make_shared<ToolRegistry>(), {.max_steps = 3});
  RunResult r = agent.Run({.message = "What is 6 * 7?"});
  ASSERT_EQ(r.status, RunStatus::kFinished);
  ASSERT_FALSE(r.trace.run_id.empty());
  sink_->flush();
  const std::string text = log_.str();
  EXPECT_THAT(text, HasSubstr("run " + r.trace.run_id + " started"));
  EXPECT_THAT(text, HasSubstr("run " + r.trace.run_id + " finished: finished after 1 steps"));
  EXPECT_THAT(text, Not(HasSubstr("run  finished")));  // no empty id
}

TEST_F(AgentLogTest, ARunEndedOnALimitNamesItsRunToo) {
  auto model = std::make_shared<testing::FakeModel>();
  model->PushError(Status::Unavailable("connection refused"));
  Agent agent(model, std::make_shared<ToolRegistry>(), {.max_steps = 2});
  RunResult r = agent.Run({.message = "hello"});
  ASSERT_NE(r.status, RunStatus::kFinished);
  sink_->flush();
  EXPECT_THAT(log_.str(), HasSubstr("run " + r.trace.run_id + " finished: "));
  EXPECT_THAT(log_.str(), Not(HasSubstr("run  finished")));
}

}  // namespace
}  // namespace medreact
