// StateGraph: a small state-machine runner for agent workflows (seed 000 §6,
// LangGraph's StateGraph reduced to what medreact needs).
//
//   StateGraph g;
//   g.AddNode("reason", Reason);                       // (state, cancel) -> update
//   g.AddNode("act", Act);
//   g.SetEntryPoint("reason");
//   g.AddConditionalEdges("reason", [](const Json& s) {
//     return s["pending_calls"].empty() ? std::string(kEnd) : std::string("act");
//   });
//   g.AddEdge("act", "reason");
//   Result<CompiledGraph> graph = g.Compile();        // validated once
//   GraphRunResult r = graph->Run({{"messages", Json::array()}});
//
// State is one JSON object. A node reads it and returns an *update*: a JSON
// object (or null for "nothing changed") whose top-level keys are merged into
// the state. By default a key in the update replaces the state's value for
// that key; keys the update does not name are kept. A key may be given a
// reducer instead (SetReducer), e.g. AppendReducer to append to an array the
// way LangGraph's `add_messages` does. Only top-level keys are merged; a
// nested object is replaced whole.
//
// After a node runs, its outgoing route decides what runs next: a plain edge
// (AddEdge) always goes to one node, conditional edges (AddConditionalEdges)
// ask a router that reads the state and names the next node or kEnd
// ("__end__"), optionally through a mapping from the router's labels to node
// names. A node has exactly one outgoing route. There is no parallel fan-out:
// one node runs at a time, on the caller's thread.
//
// Compile() checks the whole definition and reports every problem at once
// (Validate() returns them typed): a duplicate or reserved node name, no entry
// point, an edge or mapping naming an unknown node, a node without an outgoing
// route, a node with both a plain and a conditional route.
//
// Run() stops with an error, keeping the state so far, when a node fails (the
// error names the node), a router names a node that does not exist, the step
// limit passes before kEnd, or the cancellation token fires. Nodes, routers
// and reducers that throw are caught: the run ends with an Internal error
// naming where it happened. Nothing throws out of Run().
//
// Thread-safety: a StateGraph is a builder, not thread-safe. A CompiledGraph is
// immutable; Run() may be called from several threads at once when the node
// functions allow it.
#ifndef MEDREACT_GRAPH_H_
#define MEDREACT_GRAPH_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/cancel.h"
#include "medreact/json.h"
#include "medreact/status.h"

namespace medreact {

// The name a router returns (or an edge targets) to finish the run.
inline constexpr std::string_view kEnd = "__end__";
// Reserved for the implicit start; no node may take it.
inline constexpr std::string_view kStart = "__start__";

// A node: reads the state, returns an update (a JSON object, or null for none).
// An error status stops the run. The token is the run's; a node that waits
// should wake on it (CancellationToken::WaitFor, wake_fd).
using GraphNodeFn = std::function<Result<Json>(const Json& state, const CancellationToken& cancel)>;
// A router: reads the state after its node ran and names what runs next (a
// node, kEnd, or a key of its mapping when it has one).
using GraphRouterFn = std::function<std::string(const Json& state)>;
// A reducer for one key: the new value from the current one (null when the
// state does not hold the key yet) and the node's update for that key.
using GraphReducerFn = std::function<Json(const Json& current, const Json& update)>;

// Appends: arrays are concatenated (current + update); a non-array update is
// appended as one element; a null or missing current value starts an empty
// array. A current value that is not an array becomes the first element.
Json AppendReducer(const Json& current, const Json& update);

// What can be wrong with a graph's definition.
enum class GraphIssueKind {
  kDuplicateNode,      // two AddNode calls with one name
  kInvalidNodeName,    // empty, or kEnd / kStart
  kMissingFunction,    // a node, router or reducer that is an empty std::function
  kNoEntryPoint,       // SetEntryPoint never called
  kUnknownNode,        // an edge, mapping or the entry point names no node
  kNoOutgoingEdge,     // a node with no route onwards (add an edge to kEnd to stop)
  kConflictingEdges,   // a node with two plain edges, or a plain and a conditional route
  kEdgeFromEnd,        // an edge that leaves kEnd
};
const char* GraphIssueKindName(GraphIssueKind kind);  // "duplicate_node", ...

struct GraphIssue {
  GraphIssueKind kind = GraphIssueKind::kUnknownNode;
  std::string node;     // the node (or edge source) the problem is about
  std::string message;  // one sentence naming the problem and the fix
};

// One node's run, reported to GraphRunOptions::on_transition after the node
// returned (and its update was merged), before the next node starts.
struct GraphTransition {
  std::string node;                       // the node that ran
  int step = 0;                           // 1-based: the node's position in the run
  double elapsed_ms = 0;                  // the node's own time (merge and routing included)
  std::vector<std::string> updated_keys;  // top-level keys its update named, sorted
  std::string next;                       // the next node or kEnd; "" when the run stops here
  bool ok = true;                         // false: the node (or its route) failed
  std::string error;                      // when !ok: the error's text
};

// {"node","step","elapsed_ms","updated_keys","next","ok"[,"error"]}: for event
// logs and traces.
Json ToJson(const GraphTransition& transition);

struct GraphRunOptions {
  // Nodes run before the run stops with ResourceExhausted. LangGraph's
  // recursion_limit has the same default. Default: 25
  int max_steps = 25;
  // Checked before every node and handed to each node. Default: a fresh token
  CancellationToken cancel;
  // Called on the running thread after every node (see GraphTransition).
  // Must be quick, must not throw. Default: none
  std::function<void(const GraphTransition&)> on_transition;

  // Resume (a checkpoint's): the node to run first instead of the entry, and
  // the steps already run before it (counted against max_steps; the next
  // node's step is start_step + 1). An unknown node is InvalidArgument.
  // Default: the entry, 0
  std::string start_node;
  int start_step = 0;
  // A checkpoint after every node whose run goes on (its update merged, its
  // route taken to a node, not kEnd): the state, the node to run next and
  // the steps run. Giving them back as Run(state, {.start_node = next,
  // .start_step = steps}) goes on exactly from there. Called after
  // on_transition, on the running thread; must not throw. Default: none
  std::function<void(const Json& state, const std::string& next, int steps)> on_checkpoint;
  // Traces (README "Tracing with OpenTelemetry"): the run's span is
  // `invoke_agent <trace_name>`, each node's a `step` span current on the
  // running thread while the node runs (a node's model and tool calls are
  // its children). Default: "" ("graph")
  std::string trace_name;
};

struct GraphRunResult {
  // OK when the run reached kEnd. Otherwise: the node's own error with the
  // context "graph node '<name>'", InvalidArgument for a router naming no
  // node, ResourceExhausted "graph stopped after N steps without reaching
  // __end__", Cancelled, or Internal for an exception.
  Status status;
  Json state;                      // the final state, or the state so far (updates of finished nodes merged)
  int steps = 0;                   // nodes run (a failed node counts), start_step included
  std::vector<std::string> path;   // the nodes run by this call, in order
  std::string failed_node;         // the node whose run or route stopped the run; "" otherwise
  double elapsed_ms = 0;
  bool ok() const { return status.ok(); }
};

class CompiledGraph;

class StateGraph {
 public:
  StateGraph();
  ~StateGraph();
  StateGraph(StateGraph&&) noexcept;
  StateGraph& operator=(StateGraph&&) noexcept;

  // Each records what it is given; problems are reported by Validate() and
  // Compile(), so a definition reads as a list of calls. They return *this.
  StateGraph& AddNode(std::string name, GraphNodeFn fn);
  StateGraph& AddEdge(std::string from, std::string to);  // `to` may be kEnd
  // `mapping` (optional): router label → node name (or kEnd). With a mapping,
  // a label outside it stops the run with an error; without one, the router
  // returns node names (or kEnd) directly.
  StateGraph& AddConditionalEdges(std::string from, GraphRouterFn router,
                                  std::map<std::string, std::string> mapping = {});
  StateGraph& SetEntryPoint(std::string node);
  // How updates to `key` are merged. Default for every key: replace.
  StateGraph& SetReducer(std::string key, GraphReducerFn reducer);

  // Every problem of the definition, empty when it compiles: first those
  // found while adding (names, empty functions), then the entry point, the
  // edges, each node's routes and the reducers.
  std::vector<GraphIssue> Validate() const;
  // The runnable graph (a copy of the definition), or InvalidArgument whose
  // message lists every issue ("graph definition has 2 problems: ...").
  Result<CompiledGraph> Compile() const;

 private:
  struct Definition;
  std::unique_ptr<Definition> def_;
};

class CompiledGraph {
 public:
  // Runs from the entry point until kEnd or an error. `initial_state` must be
  // a JSON object (null is taken as {}); anything else is an InvalidArgument
  // result without running a node.
  GraphRunResult Run(Json initial_state, const GraphRunOptions& options = {}) const;

  const std::string& entry_point() const;
  std::vector<std::string> node_names() const;  // in the order they were added

 private:
  friend class StateGraph;
  struct Impl;
  explicit CompiledGraph(std::shared_ptr<const Impl> impl);
  // Run without its span: the nodes, from the entry (or start_node) on.
  GraphRunResult RunNodes(Json initial_state, const GraphRunOptions& options) const;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace medreact

#endif  // MEDREACT_GRAPH_H_
