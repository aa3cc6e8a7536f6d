// The page's Approvals view (web/approvals.js) in a real browser:
// tests/node/page_approvals.mjs drives Debian's chromium through
// playwright-core against a `medreact serve` it starts, with the scripted
// model pausing five chat runs on a calculator call that needs approval
// (skipped, saying why, when chromium or the npm package is missing).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/page_script.h"

namespace medreact::server {
namespace {

// Two tabs (one approves, the other shows it live), an edit refused in the
// browser then sent, a reject needing its reason, a stale card after a 409,
// a keyboard-only approval, axe-core, the screenshot `approvals`.
TEST(ServerPageApprovalsTest, CallsWaitingForApprovalAreDecidedInTheBrowser) {
  PAGE_SCRIPT_OR_SKIP(r, "page_approvals.mjs");
  EXPECT_PAGE_PASSED(r);
}

}  // namespace
}  // namespace medreact::server
