// `medreact serve` as a user starts it: a refused start exits 2 with one
// line (no token off loopback, a token file that is too short or missing,
// the port in use, an input root that is no folder), and a server that
// started answers and stops on SIGTERM with exit 0.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <thread>

#include "server/server.h"
#include "testing/build_paths.h"
#include "testing/serve_fixture.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using testing::RunCommand;
using testing::TempDir;

int Lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

TEST(ServerCliTest, ARefusedStartExitsTwoWithOneLine) {
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  auto serve = [&](std::vector<std::string> extra) {
    std::vector<std::string> argv = {MEDREACT_BINARY, "serve", "--store", store, "--port", "0"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunCommand(argv);
  };
  testing::ProcessResult open = serve({"--host", "0.0.0.0"});
  EXPECT_EQ(open.exit_code, 2);
  EXPECT_THAT(open.err, HasSubstr("not loopback: a token is required (--token-file)"));
  EXPECT_EQ(Lines(open.err), 1) << open.err;

  dir.Write("short", "abc\n");
  ::chmod(dir.File("short").c_str(), 0600);
  testing::ProcessResult shorter = serve({"--token-file", dir.File("short")});
  EXPECT_EQ(shorter.exit_code, 2);
  EXPECT_EQ(Lines(shorter.err), 1) << shorter.err;

  testing::ProcessResult missing = serve({"--token-file", dir.File("nope")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(Lines(missing.err), 1) << missing.err;

  testing::ProcessResult root = serve({"--input-root", dir.File("not-here")});
  EXPECT_EQ(root.exit_code, 2);
  EXPECT_THAT(root.err, HasSubstr("is not an absolute path of a folder (--input-root)"));

  // The port in use (by a server of this process).
  testing::ServeFixture running;
  testing::ProcessResult taken = RunCommand({MEDREACT_BINARY, "serve", "--store", dir.File("other.sqlite"), "--port",
                                             std::to_string(running.port())});
  EXPECT_EQ(taken.exit_code, 2);
  EXPECT_THAT(taken.err, HasSubstr("127.0.0.1:" + std::to_string(running.port())));
  EXPECT_EQ(Lines(taken.err), 1) << taken.err;
}

TEST(ServerCliTest, AServerAnswersAndStopsOnSigtermWithExitZero) {
  TempDir dir;
  testing::BackgroundCommand serve(
      {MEDREACT_BINARY, "serve", "--store", dir.File("runs.sqlite"), "--port", "0", "--no-access-log"});
  // The port is on its first line.
  std::string err;
  int port = 0;
  for (int i = 0; i < 200 && port == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    err = serve.Stderr();
    const size_t at = err.find("127.0.0.1:");
    if (at != std::string::npos) port = std::atoi(err.c_str() + at + 10);
  }
  ASSERT_GT(port, 0) << err;
  httplib::Client c("127.0.0.1", port);
  auto r = c.Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "{\"ok\":true}");
  serve.Signal(SIGTERM);
  testing::ProcessResult done = serve.Wait(std::chrono::seconds(20));
  EXPECT_EQ(done.exit_code, 0) << done.err;
}

}  // namespace
}  // namespace medreact
