// The runs view and the run inspector of the clinician's page (web/runs.js)
// in a real browser: tests/node/page_runs.mjs (search, keyboard, the
// inspector's steps, model calls, tool calls and events, cancel, axe-core,
// screenshots `runs` and `run-inspector`) and tests/node/page_restart.mjs (a
// server killed and started again mid-run: the page catches up with every
// event once). Skipped, saying why, when chromium or the npm packages are
// missing (testing/page_script.h).
#include <gtest/gtest.h>

#include "testing/page_script.h"

namespace medreact::server {
namespace {

TEST(ServerPageRunsTest, TheListFindsARunAndTheInspectorShowsItsStepsCallsAndEvents) {
  PAGE_SCRIPT_OR_SKIP(r, "page_runs.mjs");
  EXPECT_PAGE_PASSED(r);
}

TEST(ServerPageRunsTest, AKilledAndRestartedServerIsCaughtUpWithEveryEventOnce) {
  PAGE_SCRIPT_OR_SKIP(r, "page_restart.mjs");
  EXPECT_PAGE_PASSED(r);
}

}  // namespace
}  // namespace medreact::server
