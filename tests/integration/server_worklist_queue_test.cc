// `medreact serve --queue-worklists` (issue 28): POST /v1/worklists puts the
// cases in the store's job queue and runs none of them; real `medreact
// worker` processes take them; the server's worklist follows the batch (its
// cases as the workers finish them, sorted as a worklist run here, the
// counts, finished) and a case opens from its worker's result.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "server/server_options.h"
#include "store/job_queue.h"
#include "store/run_store.h"
#include "testing/build_paths.h"
#include "testing/fixtures.h"
#include "testing/serve_fixture.h"
#include "testing/subprocess.h"

namespace medreact::server {
namespace {

using ::testing::HasSubstr;
using testing::ServeFixture;

Json Body(const httplib::Result& r) { return ServeFixture::JsonOf(r); }

TEST(ServerWorklistQueueTest, QueuedCasesAreRunByWorkersAndFollowedByTheServer) {
  testing::TempDir dir;
  const std::string path = dir.File("runs.sqlite");
  Result<std::unique_ptr<RunStore>> store = RunStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  Result<std::unique_ptr<JobQueue>> queue = OpenSqliteJobQueue(path);
  ASSERT_TRUE(queue.ok()) << queue.status().ToString();
  ServeOptions options{.input_roots = {MEDREACT_SOURCE_DIR + "/examples"}};
  std::shared_ptr<JobQueue> jobs = std::move(*queue);
  options.worklist_queue = jobs;
  ServeFixture srv(options, std::shared_ptr<RunStore>(std::move(*store)));

  auto r = srv.Post("/v1/worklists", DumpJson(Json{{"dir", MEDREACT_SOURCE_DIR + "/examples/worklist"}}));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  Json w = Body(r)["worklist"];
  const std::string id = StringOr(w, "id");
  EXPECT_EQ(w["status"], "running");
  EXPECT_EQ(w["cases_total"], 14);
  // Put in the queue, not run here: every job waits for a worker.
  Result<std::int64_t> pending = jobs->Pending();
  ASSERT_TRUE(pending.ok());
  EXPECT_EQ(*pending, 14);
  w = Body(srv.Get("/v1/worklists/" + id))["worklist"];
  EXPECT_EQ(w["cases"].size(), 0u) << w.dump();
  // The workers' to stop, not this server's.
  auto cancel = srv.Post("/v1/worklists/" + id + "/cancel", "");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 409);
  EXPECT_THAT(cancel->body, HasSubstr("queued"));

  // Two workers on the same store (the rules planner: no model server).
  testing::ProcessResult ran = testing::RunCommand(
      {MEDREACT_BINARY, "worker", "--store", path, "--until-empty", "--concurrency", "2", "--quiet"}, {},
      std::chrono::seconds(120));
  ASSERT_EQ(ran.exit_code, 0) << ran.err;

  w = Body(srv.Get("/v1/worklists/" + id))["worklist"];
  EXPECT_EQ(w["status"], "finished") << w.dump();
  EXPECT_EQ(w["cases_done"], 14);
  EXPECT_EQ(w["cases_failed"], 0);
  ASSERT_EQ(w["cases"].size(), 14u) << w.dump();
  int64_t last = 0;
  for (const Json& c : w["cases"]) {
    const int64_t p = IntegerOr(c, "priority_level", 99);
    EXPECT_GE(p, last) << w.dump();  // priority 1 first, as a worklist run here
    last = p;
    EXPECT_FALSE(StringOr(c, "run_id").empty()) << c.dump();  // every case a stored run
  }
  const Json top = w["cases"][0];
  EXPECT_EQ(top["priority_level"], 1);

  // A case opens from its worker's result (its job), by its run.
  auto triage = srv.Get("/v1/runs/" + StringOr(top, "run_id") + "/triage");
  ASSERT_TRUE(triage);
  ASSERT_EQ(triage->status, 200) << triage->body;
  const Json t = Body(triage);
  EXPECT_EQ(t["worklist_id"], id);
  EXPECT_EQ(t["case"], top["case"]);
  EXPECT_EQ(t["result"]["priority_level"], 1);
  EXPECT_FALSE(t["result"].contains("record") && t["result"]["record"].contains("source"));

  // The list shows it finished with its counts.
  const Json lists = Body(srv.Get("/v1/worklists"))["worklists"];
  bool listed = false;
  for (const Json& l : lists) {
    if (l["id"] != id) continue;
    listed = true;
    EXPECT_EQ(l["status"], "finished");
    EXPECT_EQ(l["cases_done"], 14);
  }
  EXPECT_TRUE(listed) << lists.dump();
}

}  // namespace
}  // namespace medreact::server
