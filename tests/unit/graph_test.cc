// StateGraph (medreact/graph.h): linear and looping runs, updates and
// reducers, routers naming unknown nodes, the step limit, node errors,
// cancellation (before a node and inside one, proven with a barrier, never a
// timing), the definition's validation, and the transition events.
#include "medreact/graph.h"

#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace medreact {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A node that sets `key` to `value` and appends its name to "trail".
GraphNodeFn Set(std::string name, std::string key, Json value) {
  return [name, key, value](const Json&, const CancellationToken&) -> Result<Json> {
    return Json{{key, value}, {"trail", Json::array({name})}};
  };
}

CompiledGraph CompileOrDie(const StateGraph& g) {
  Result<CompiledGraph> compiled = g.Compile();
  EXPECT_TRUE(compiled.ok()) << compiled.status().ToString();
  return std::move(compiled).value();
}

std::vector<GraphIssueKind> Kinds(const std::vector<GraphIssue>& issues) {
  std::vector<GraphIssueKind> out;
  for (const GraphIssue& i : issues) out.push_back(i.kind);
  return out;
}

TEST(GraphTest, LinearGraphRunsEachNodeOnceAndMergesUpdates) {
  StateGraph g;
  g.AddNode("a", Set("a", "x", 1)).AddNode("b", Set("b", "y", "two")).AddNode("c", Set("c", "x", 3));
  g.SetEntryPoint("a").AddEdge("a", "b").AddEdge("b", "c").AddEdge("c", std::string(kEnd));
  g.SetReducer("trail", AppendReducer);
  const CompiledGraph graph = CompileOrDie(g);
  EXPECT_EQ(graph.entry_point(), "a");
  EXPECT_THAT(graph.node_names(), ElementsAre("a", "b", "c"));

  GraphRunResult r = graph.Run({{"keep", true}, {"trail", Json::array({"start"})}});
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_EQ(r.steps, 3);
  EXPECT_THAT(r.path, ElementsAre("a", "b", "c"));
  EXPECT_EQ(r.failed_node, "");
  // "x" replaced by the last writer, "y" added, "keep" untouched, "trail" appended.
  EXPECT_EQ(r.state, Json::parse(R"({"keep": true, "x": 3, "y": "two", "trail": ["start", "a", "b", "c"]})"));
}

// A checkpoint after every node that goes on; a run started from any of them
// ends in the state, path tail and step count of the uninterrupted run.
TEST(GraphTest, CheckpointsResumeExactlyWhereTheRunWas) {
  StateGraph g;
  g.AddNode("a", Set("a", "x", 1)).AddNode("b", Set("b", "y", 2)).AddNode("c", Set("c", "x", 3));
  g.SetEntryPoint("a").AddEdge("a", "b").AddEdge("b", "c").AddEdge("c", std::string(kEnd));
  g.SetReducer("trail", AppendReducer);
  const CompiledGraph graph = CompileOrDie(g);

  struct Point {
    Json state;
    std::string next;
    int steps;
  };
  std::vector<Point> points;
  GraphRunResult whole = graph.Run({}, {.on_checkpoint = [&](const Json& s, const std::string& next, int steps) {
    points.push_back({s, next, steps});
  }});
  ASSERT_TRUE(whole.ok()) << whole.status.ToString();
  ASSERT_EQ(points.size(), 2u);  // after a (next b) and b (next c); none after c, whose route ends
  EXPECT_EQ(points[0].next, "b");
  EXPECT_EQ(points[1].next, "c");
  for (const Point& p : points) {
    GraphRunResult resumed = graph.Run(p.state, {.start_node = p.next, .start_step = p.steps});
    ASSERT_TRUE(resumed.ok()) << resumed.status.ToString();
    EXPECT_EQ(resumed.state, whole.state);
    EXPECT_EQ(resumed.steps, whole.steps);
    EXPECT_EQ(resumed.path.front(), p.next);
  }

  // The steps already run count against max_steps; an unknown node is refused.
  GraphRunResult spent = graph.Run(points[0].state, {.max_steps = 2, .start_node = "b", .start_step = 1});
  EXPECT_EQ(spent.status.code(), StatusCode::kResourceExhausted);
  GraphRunResult unknown = graph.Run({}, {.start_node = "zz"});
  EXPECT_EQ(unknown.status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.status.message(), HasSubstr("no node 'zz'"));
  EXPECT_EQ(unknown.steps, 0);
}

TEST(GraphTest, WithoutAReducerAnUpdateReplacesTheKeyWhole) {
  StateGraph g;
  g.AddNode("a", Set("a", "nested", Json{{"p", 1}})).SetEntryPoint("a").AddEdge("a", std::string(kEnd));
  GraphRunResult r = CompileOrDie(g).Run({{"nested", {{"q", 2}}}, {"trail", {"old"}}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.state["nested"], Json::parse(R"({"p": 1})"));  // not deep-merged
  EXPECT_EQ(r.state["trail"], Json::parse(R"(["a"])"));       // replaced
}

TEST(GraphTest, NullUpdateChangesNothingAndNullInitialStateIsEmpty) {
  StateGraph g;
  g.AddNode("noop", [](const Json&, const CancellationToken&) -> Result<Json> { return Json(); });
  g.SetEntryPoint("noop").AddEdge("noop", std::string(kEnd));
  GraphRunResult r = CompileOrDie(g).Run(Json());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.state, Json::object());
}

TEST(GraphTest, AppendReducerConcatenatesAndWrapsScalars) {
  EXPECT_EQ(AppendReducer(Json(), Json::array({1, 2})), Json::array({1, 2}));
  EXPECT_EQ(AppendReducer(Json::array({1}), Json::array({2, 3})), Json::array({1, 2, 3}));
  EXPECT_EQ(AppendReducer(Json::array({1}), 2), Json::array({1, 2}));
  EXPECT_EQ(AppendReducer("x", Json::array({"y"})), Json::array({"x", "y"}));
}

// Seed 000 §6: reason → (tool calls? act : end), act → reason.
TEST(GraphTest, ConditionalLoopReasonsAndActsUntilTheCounterReachesN) {
  const int n = 4;
  StateGraph g;
  g.AddNode("reason", [](const Json& s, const CancellationToken&) -> Result<Json> {
    const int count = s["count"].get<int>() + 1;
    return Json{{"count", count}, {"messages", Json::array({"thought " + std::to_string(count)})}};
  });
  g.AddNode("act", [](const Json& s, const CancellationToken&) -> Result<Json> {
    return Json{{"messages", Json::array({"observation " + std::to_string(s["count"].get<int>())})}};
  });
  g.SetEntryPoint("reason");
  g.AddConditionalEdges("reason", [n](const Json& s) {
    return s["count"].get<int>() < n ? std::string("act") : std::string(kEnd);
  });
  g.AddEdge("act", "reason");
  g.SetReducer("messages", AppendReducer);

  GraphRunResult r = CompileOrDie(g).Run({{"count", 0}, {"messages", Json::array()}});
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_EQ(r.state["count"], n);
  EXPECT_EQ(r.steps, 2 * n - 1);
  EXPECT_THAT(r.path, ElementsAre("reason", "act", "reason", "act", "reason", "act", "reason"));
  EXPECT_EQ(r.state["messages"], Json::parse(R"(["thought 1", "observation 1", "thought 2", "observation 2",
                                                 "thought 3", "observation 3", "thought 4"])"));
}

TEST(GraphTest, RouterLabelsGoThroughTheMapping) {
  StateGraph g;
  g.AddNode("classify", Set("classify", "urgent", true));
  g.AddNode("escalate", Set("escalate", "paged", true));
  g.AddNode("file", Set("file", "filed", true));
  g.SetEntryPoint("classify");
  g.AddConditionalEdges(
      "classify", [](const Json& s) { return s["urgent"].get<bool>() ? std::string("yes") : std::string("no"); },
      {{"yes", "escalate"}, {"no", "file"}});
  g.AddEdge("escalate", std::string(kEnd)).AddEdge("file", std::string(kEnd));
  GraphRunResult r = CompileOrDie(g).Run({});
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r.path, ElementsAre("classify", "escalate"));
}

TEST(GraphTest, RouterNamingAnUnknownNodeStopsWithAClearError) {
  StateGraph g;
  g.AddNode("reason", Set("reason", "x", 1)).AddNode("act", Set("act", "y", 2));
  g.SetEntryPoint("reason");
  g.AddConditionalEdges("reason", [](const Json&) { return std::string("actt"); });
  g.AddEdge("act", std::string(kEnd));
  GraphRunResult r = CompileOrDie(g).Run({});
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status.message(), HasSubstr("router of graph node 'reason' returned 'actt'"));
  EXPECT_THAT(r.status.message(), HasSubstr("'reason', 'act' or '__end__'"));
  EXPECT_EQ(r.failed_node, "reason");
  EXPECT_EQ(r.state["x"], 1);  // the node itself finished: its update stays
}

TEST(GraphTest, RouterLabelOutsideItsMappingIsAnError) {
  StateGraph g;
  g.AddNode("a", Set("a", "x", 1)).SetEntryPoint("a");
  g.AddConditionalEdges("a", [](const Json&) { return std::string("maybe"); }, {{"done", std::string(kEnd)}});
  GraphRunResult r = CompileOrDie(g).Run({});
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status.message(), HasSubstr("returned 'maybe', which is not in its mapping ('done')"));
}

TEST(GraphTest, StepLimitStopsTheRunAndKeepsTheStateSoFar) {
  StateGraph g;
  g.AddNode("spin", [](const Json& s, const CancellationToken&) -> Result<Json> {
    return Json{{"n", s.value("n", 0) + 1}};
  });
  g.SetEntryPoint("spin").AddEdge("spin", "spin");
  GraphRunResult r = CompileOrDie(g).Run({}, {.max_steps = 5});
  EXPECT_EQ(r.status.code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(r.status.message(), HasSubstr("graph stopped after 5 steps without reaching __end__"));
  EXPECT_EQ(r.steps, 5);
  EXPECT_EQ(r.state["n"], 5);
  EXPECT_EQ(r.failed_node, "");

  GraphRunResult bad = CompileOrDie(g).Run({}, {.max_steps = 0});
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.steps, 0);
}

TEST(GraphTest, ExactlyMaxStepsReachingTheEndIsFine) {
  StateGraph g;
  g.AddNode("a", Set("a", "x", 1)).AddNode("b", Set("b", "y", 2));
  g.SetEntryPoint("a").AddEdge("a", "b").AddEdge("b", std::string(kEnd));
  EXPECT_TRUE(CompileOrDie(g).Run({}, {.max_steps = 2}).ok());
}

TEST(GraphTest, NodeErrorStopsTheRunNamingTheNodeAndKeepsTheStateSoFar) {
  StateGraph g;
  g.AddNode("fetch", Set("fetch", "records", 3));
  g.AddNode("score", [](const Json&, const CancellationToken&) -> Result<Json> {
    return Status::Unavailable("scoring service down");
  });
  g.AddNode("report", Set("report", "done", true));
  g.SetEntryPoint("fetch").AddEdge("fetch", "score").AddEdge("score", "report").AddEdge("report", std::string(kEnd));
  GraphRunResult r = CompileOrDie(g).Run({});
  EXPECT_EQ(r.status.code(), StatusCode::kUnavailable);
  EXPECT_EQ(r.status.message(), "graph node 'score': scoring service down");
  EXPECT_EQ(r.failed_node, "score");
  EXPECT_THAT(r.path, ElementsAre("fetch", "score"));
  EXPECT_EQ(r.state["records"], 3);
  EXPECT_FALSE(r.state.contains("done"));
}

TEST(GraphTest, BadUpdatesAndExceptionsBecomeErrorsNamingTheNode) {
  {
    StateGraph g;
    g.AddNode("a", [](const Json&, const CancellationToken&) -> Result<Json> { return Json::array({1}); });
    g.SetEntryPoint("a").AddEdge("a", std::string(kEnd));
    GraphRunResult r = CompileOrDie(g).Run({});
    EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(r.status.message(), HasSubstr("graph node 'a' returned a JSON array as its update"));
  }
  {
    StateGraph g;
    g.AddNode("boom", [](const Json&, const CancellationToken&) -> Result<Json> {
      throw std::runtime_error("kaboom");
    });
    g.SetEntryPoint("boom").AddEdge("boom", std::string(kEnd));
    GraphRunResult r = CompileOrDie(g).Run({{"kept", 1}});
    EXPECT_EQ(r.status.code(), StatusCode::kInternal);
    EXPECT_EQ(r.status.message(), "graph node 'boom': threw: kaboom");
    EXPECT_EQ(r.state["kept"], 1);
  }
  {
    StateGraph g;
    g.AddNode("a", Set("a", "x", 1)).SetEntryPoint("a");
    g.AddConditionalEdges("a", [](const Json& s) -> std::string { return s.at("missing").get<std::string>(); });
    GraphRunResult r = CompileOrDie(g).Run({});
    EXPECT_EQ(r.status.code(), StatusCode::kInternal);
    EXPECT_THAT(r.status.message(), HasSubstr("the router of graph node 'a' threw"));
  }
  {
    StateGraph g;
    g.AddNode("a", Set("a", "x", 1)).SetEntryPoint("a").AddEdge("a", std::string(kEnd));
    g.SetReducer("x", [](const Json&, const Json&) -> Json { throw std::logic_error("no"); });
    GraphRunResult r = CompileOrDie(g).Run({{"x", 0}});
    EXPECT_EQ(r.status.code(), StatusCode::kInternal);
    EXPECT_THAT(r.status.message(), HasSubstr("graph node 'a': the reducer of state key 'x' threw: no"));
    EXPECT_EQ(r.state["x"], 0);  // nothing of the failed merge
  }
}

TEST(GraphTest, InitialStateMustBeAnObject) {
  StateGraph g;
  g.AddNode("a", Set("a", "x", 1)).SetEntryPoint("a").AddEdge("a", std::string(kEnd));
  GraphRunResult r = CompileOrDie(g).Run(Json::array());
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status.message(), HasSubstr("initial state is a JSON array"));
  EXPECT_EQ(r.steps, 0);
}

TEST(GraphTest, CancellationBeforeANodeStopsTheRun) {
  CancellationToken cancel;
  StateGraph g;
  g.AddNode("first", [cancel](const Json&, const CancellationToken&) -> Result<Json> {
    cancel.Cancel();  // e.g. Ctrl-C while this node ran
    return Json{{"first", true}};
  });
  g.AddNode("second", Set("second", "second", true));
  g.SetEntryPoint("first").AddEdge("first", "second").AddEdge("second", std::string(kEnd));
  GraphRunResult r = CompileOrDie(g).Run({}, {.cancel = cancel});
  EXPECT_EQ(r.status.code(), StatusCode::kCancelled);
  EXPECT_THAT(r.status.message(), HasSubstr("before node 'second'"));
  EXPECT_THAT(r.path, ElementsAre("first"));
  EXPECT_EQ(r.state, Json::parse(R"({"first": true})"));
}

TEST(GraphTest, CancellationReachesANodeThatWaits) {
  CancellationToken cancel;
  std::mutex mu;
  std::condition_variable cv;
  bool started = false;
  StateGraph g;
  g.AddNode("wait", [&](const Json&, const CancellationToken& token) -> Result<Json> {
    {
      std::lock_guard<std::mutex> lock(mu);
      started = true;
    }
    cv.notify_all();
    if (token.WaitFor(Millis(600'000))) return Status::Cancelled("stopped while waiting");
    return Json{{"waited", true}};
  });
  g.SetEntryPoint("wait").AddEdge("wait", std::string(kEnd));
  const CompiledGraph graph = CompileOrDie(g);
  GraphRunResult r;
  std::thread runner([&] { r = graph.Run({}, {.cancel = cancel}); });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return started; });
  }
  cancel.Cancel();
  runner.join();
  EXPECT_EQ(r.status.code(), StatusCode::kCancelled);
  EXPECT_EQ(r.failed_node, "wait");
  EXPECT_THAT(r.status.message(), HasSubstr("graph node 'wait'"));
}

TEST(GraphTest, TransitionsAreReportedInOrder) {
  StateGraph g;
  g.AddNode("reason", [](const Json& s, const CancellationToken&) -> Result<Json> {
    return Json{{"count", s.value("count", 0) + 1}, {"messages", {"t"}}};
  });
  g.AddNode("act", Set("act", "observed", true));
  g.SetEntryPoint("reason");
  g.AddConditionalEdges("reason", [](const Json& s) {
    return s["count"].get<int>() < 2 ? std::string("act") : std::string(kEnd);
  });
  g.AddEdge("act", "reason");
  std::vector<GraphTransition> seen;
  GraphRunResult r =
      CompileOrDie(g).Run({}, {.on_transition = [&](const GraphTransition& t) { seen.push_back(t); }});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].node, "reason");
  EXPECT_EQ(seen[0].step, 1);
  EXPECT_EQ(seen[0].next, "act");
  EXPECT_THAT(seen[0].updated_keys, ElementsAre("count", "messages"));
  EXPECT_EQ(seen[1].node, "act");
  EXPECT_EQ(seen[1].step, 2);
  EXPECT_THAT(seen[1].updated_keys, ElementsAre("observed", "trail"));
  EXPECT_EQ(seen[1].next, "reason");
  EXPECT_EQ(seen[2].node, "reason");
  EXPECT_EQ(seen[2].step, 3);
  EXPECT_EQ(seen[2].next, std::string(kEnd));
  for (const GraphTransition& t : seen) {
    EXPECT_TRUE(t.ok);
    EXPECT_GE(t.elapsed_ms, 0);
  }
  const Json j = ToJson(seen[2]);
  EXPECT_EQ(j["node"], "reason");
  EXPECT_EQ(j["next"], "__end__");
  EXPECT_FALSE(j.contains("error"));
}

TEST(GraphTest, AFailedNodeIsReportedAsAFailedTransition) {
  StateGraph g;
  g.AddNode("a", [](const Json&, const CancellationToken&) -> Result<Json> { return Status::NotFound("no record"); });
  g.SetEntryPoint("a").AddEdge("a", std::string(kEnd));
  std::vector<GraphTransition> seen;
  CompileOrDie(g).Run({}, {.on_transition = [&](const GraphTransition& t) { seen.push_back(t); }});
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_FALSE(seen[0].ok);
  EXPECT_EQ(seen[0].next, "");
  EXPECT_EQ(seen[0].error, "graph node 'a': no record");
  EXPECT_EQ(ToJson(seen[0])["error"], "graph node 'a': no record");
}

// ---- Validation -------------------------------------------------------------

TEST(GraphValidationTest, AGoodDefinitionHasNoIssues) {
  StateGraph g;
  g.AddNode("a", Set("a", "x", 1)).SetEntryPoint("a").AddEdge("a", std::string(kEnd));
  EXPECT_TRUE(g.Validate().empty());
}

TEST(GraphValidationTest, NoEntryPoint) {
  StateGraph g;
  g.AddNode("a", Set("a", "x", 1)).AddEdge("a", std::string(kEnd));
  EXPECT_THAT(Kinds(g.Validate()), ElementsAre(GraphIssueKind::kNoEntryPoint));
  Result<CompiledGraph> compiled = g.Compile();
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(compiled.status().message(),
            "graph definition has 1 problem: no_entry_point: the graph has no entry point; call SetEntryPoint");
}

TEST(GraphValidationTest, DuplicateAndReservedNames) {
  StateGraph g;
  g.AddNode("a", Set("a", "x", 1)).AddNode("a", Set("a", "x", 2));
  g.AddNode(std::string(kEnd), Set("e", "x", 1)).AddNode("", Set("e", "x", 1));
  g.SetEntryPoint("a").AddEdge("a", std::string(kEnd));
  std::vector<GraphIssue> issues = g.Validate();
  EXPECT_THAT(Kinds(issues), ElementsAre(GraphIssueKind::kDuplicateNode, GraphIssueKind::kInvalidNodeName,
                                         GraphIssueKind::kInvalidNodeName));
  EXPECT_EQ(issues[0].node, "a");
  EXPECT_THAT(issues[0].message, HasSubstr("node 'a' is added twice"));
}

TEST(GraphValidationTest, UnknownNodesInEntryEdgesAndMappings) {
  StateGraph g;
  g.AddNode("a", Set("a", "x", 1));
  g.SetEntryPoint("start");
  g.AddEdge("a", "b");
  g.AddEdge("ghost", "a");
  g.AddConditionalEdges("a", [](const Json&) { return std::string("x"); }, {{"x", "nowhere"}});
  std::vector<GraphIssue> issues = g.Validate();
  EXPECT_THAT(Kinds(issues),
              ElementsAre(GraphIssueKind::kUnknownNode, GraphIssueKind::kUnknownNode, GraphIssueKind::kUnknownNode,
                          GraphIssueKind::kUnknownNode, GraphIssueKind::kConflictingEdges));
  EXPECT_THAT(issues[0].message, HasSubstr("the entry point 'start' is not a node (known nodes: 'a' and __end__)"));
  EXPECT_THAT(issues[1].message, HasSubstr("the edge 'a' -> 'b' leads to no node"));
  EXPECT_THAT(issues[2].message, HasSubstr("an edge leaves 'ghost', which is not a node"));
  EXPECT_THAT(issues[3].message, HasSubstr("maps 'x' to 'nowhere', which is not a node"));
  EXPECT_THAT(issues[4].message, HasSubstr("node 'a' has 1 plain and 1 conditional routes"));
  Result<CompiledGraph> compiled = g.Compile();
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(compiled.status().message(), HasSubstr("graph definition has 5 problems: unknown_node: "));
}

TEST(GraphValidationTest, NodeWithoutAnOutgoingEdge) {
  StateGraph g;
  g.AddNode("a", Set("a", "x", 1)).AddNode("b", Set("b", "y", 1));
  g.SetEntryPoint("a").AddEdge("a", "b");
  std::vector<GraphIssue> issues = g.Validate();
  ASSERT_THAT(Kinds(issues), ElementsAre(GraphIssueKind::kNoOutgoingEdge));
  EXPECT_EQ(issues[0].node, "b");
  EXPECT_THAT(issues[0].message, HasSubstr("AddEdge(\"b\", kEnd)"));
}

TEST(GraphValidationTest, TwoPlainEdgesEdgeFromEndAndEmptyFunctions) {
  StateGraph g;
  g.AddNode("a", Set("a", "x", 1)).AddNode("b", nullptr);
  g.SetEntryPoint("a").AddEdge("a", "b").AddEdge("a", std::string(kEnd)).AddEdge("b", std::string(kEnd));
  g.AddEdge(std::string(kEnd), "a");
  g.SetReducer("messages", nullptr);
  EXPECT_THAT(Kinds(g.Validate()),
              ElementsAre(GraphIssueKind::kMissingFunction, GraphIssueKind::kEdgeFromEnd,
                          GraphIssueKind::kConflictingEdges, GraphIssueKind::kMissingFunction));
  StateGraph h;
  h.AddNode("a", Set("a", "x", 1)).SetEntryPoint("a").AddConditionalEdges("a", nullptr);
  EXPECT_THAT(Kinds(h.Validate()), ElementsAre(GraphIssueKind::kMissingFunction));
}

TEST(GraphValidationTest, CompiledGraphIsACopyOfTheDefinition) {
  StateGraph g;
  g.AddNode("a", Set("a", "x", 1)).SetEntryPoint("a").AddEdge("a", std::string(kEnd));
  const CompiledGraph graph = CompileOrDie(g);
  g.AddNode("b", Set("b", "y", 1));  // later changes do not reach the compiled graph
  EXPECT_THAT(graph.node_names(), ElementsAre("a"));
  EXPECT_TRUE(graph.Run({}).ok());
}

}  // namespace
}  // namespace medreact
