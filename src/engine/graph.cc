// StateGraph and CompiledGraph: the definition, its validation, and the run
// loop (node → merge → route, until kEnd). See medreact/graph.h.
#include "medreact/graph.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <set>
#include <unordered_map>
#include <utility>

#include "core/otel.h"

namespace medreact {
namespace {

struct NodeDef {
  std::string name;
  GraphNodeFn fn;
};

struct EdgeDef {
  std::string from;
  std::string to;
};

struct ConditionalDef {
  std::string from;
  GraphRouterFn router;
  std::map<std::string, std::string> mapping;
};

// A node's single way onwards, as compiled.
struct Route {
  std::string to;  // plain edge; "" when conditional
  GraphRouterFn router;
  std::map<std::string, std::string> mapping;
};

double MsSince(SteadyClock::time_point start) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - start).count();
}

const char* JsonTypeName(const Json& j) {
  return j.type_name();  // "object", "array", "string", ...
}

std::string QuotedList(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ", ";
    out += "'" + names[i] + "'";
  }
  return out;
}

// What an exception escaping user code says, for an Internal status.
std::string ExceptionText(std::exception_ptr e) {
  try {
    std::rethrow_exception(std::move(e));
  } catch (const std::exception& ex) {
    return ex.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

}  // namespace

const char* GraphIssueKindName(GraphIssueKind kind) {
  switch (kind) {
    case GraphIssueKind::kDuplicateNode: return "duplicate_node";
    case GraphIssueKind::kInvalidNodeName: return "invalid_node_name";
    case GraphIssueKind::kMissingFunction: return "missing_function";
    case GraphIssueKind::kNoEntryPoint: return "no_entry_point";
    case GraphIssueKind::kUnknownNode: return "unknown_node";
    case GraphIssueKind::kNoOutgoingEdge: return "no_outgoing_edge";
    case GraphIssueKind::kConflictingEdges: return "conflicting_edges";
    case GraphIssueKind::kEdgeFromEnd: return "edge_from_end";
  }
  return "unknown";
}

Json AppendReducer(const Json& current, const Json& update) {
  Json out = Json::array();
  if (current.is_array()) {
    out = current;
  } else if (!current.is_null()) {
    out.push_back(current);
  }
  if (update.is_array()) {
    for (const Json& item : update) out.push_back(item);
  } else {
    out.push_back(update);
  }
  return out;
}

Json ToJson(const GraphTransition& t) {
  Json j = {{"node", t.node},         {"step", t.step}, {"elapsed_ms", t.elapsed_ms},
            {"updated_keys", t.updated_keys}, {"next", t.next}, {"ok", t.ok}};
  if (!t.ok) j["error"] = t.error;
  return j;
}

// ---- The definition ---------------------------------------------------------

struct StateGraph::Definition {
  std::vector<NodeDef> nodes;
  std::vector<EdgeDef> edges;
  std::vector<ConditionalDef> conditionals;
  std::optional<std::string> entry;
  std::map<std::string, GraphReducerFn> reducers;
  std::vector<GraphIssue> recorded;  // found while adding (names, empty functions)

  bool HasNode(const std::string& name) const {
    return std::any_of(nodes.begin(), nodes.end(), [&](const NodeDef& n) { return n.name == name; });
  }
  bool IsTarget(const std::string& name) const { return name == kEnd || HasNode(name); }
  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    for (const NodeDef& n : nodes) out.push_back(n.name);
    return out;
  }
};

StateGraph::StateGraph() : def_(std::make_unique<Definition>()) {}
StateGraph::~StateGraph() = default;
StateGraph::StateGraph(StateGraph&&) noexcept = default;
StateGraph& StateGraph::operator=(StateGraph&&) noexcept = default;

StateGraph& StateGraph::AddNode(std::string name, GraphNodeFn fn) {
  if (name.empty() || name == kEnd || name == kStart) {
    def_->recorded.push_back({GraphIssueKind::kInvalidNodeName, name,
                              "node name '" + name + "' is empty or reserved (" + std::string(kEnd) + ", " +
                                  std::string(kStart) + "); choose another name"});
    return *this;
  }
  if (def_->HasNode(name)) {
    def_->recorded.push_back({GraphIssueKind::kDuplicateNode, name,
                              "node '" + name + "' is added twice; node names must be unique"});
    return *this;
  }
  if (!fn) {
    def_->recorded.push_back({GraphIssueKind::kMissingFunction, name, "node '" + name + "' has no function"});
  }
  def_->nodes.push_back({std::move(name), std::move(fn)});
  return *this;
}

StateGraph& StateGraph::AddEdge(std::string from, std::string to) {
  def_->edges.push_back({std::move(from), std::move(to)});
  return *this;
}

StateGraph& StateGraph::AddConditionalEdges(std::string from, GraphRouterFn router,
                                            std::map<std::string, std::string> mapping) {
  def_->conditionals.push_back({std::move(from), std::move(router), std::move(mapping)});
  return *this;
}

StateGraph& StateGraph::SetEntryPoint(std::string node) {
  def_->entry = std::move(node);
  return *this;
}

StateGraph& StateGraph::SetReducer(std::string key, GraphReducerFn reducer) {
  def_->reducers[std::move(key)] = std::move(reducer);
  return *this;
}

std::vector<GraphIssue> StateGraph::Validate() const {
  const Definition& d = *def_;
  std::vector<GraphIssue> issues = d.recorded;
  const std::string known = "known nodes: " + QuotedList(d.Names()) + " and " + std::string(kEnd);

  if (!d.entry) {
    issues.push_back({GraphIssueKind::kNoEntryPoint, "", "the graph has no entry point; call SetEntryPoint"});
  } else if (!d.HasNode(*d.entry)) {
    issues.push_back({GraphIssueKind::kUnknownNode, *d.entry,
                      "the entry point '" + *d.entry + "' is not a node (" + known + ")"});
  }

  // Where an edge leaves from: it must be a node, never kEnd.
  auto check_source = [&](const std::string& from, const char* what) {
    if (from == kEnd) {
      issues.push_back({GraphIssueKind::kEdgeFromEnd, from,
                        std::string("an ") + what + " leaves " + std::string(kEnd) + ", where the run has stopped"});
    } else if (!d.HasNode(from)) {
      issues.push_back({GraphIssueKind::kUnknownNode, from,
                        std::string("an ") + what + " leaves '" + from + "', which is not a node (" + known + ")"});
    }
  };
  for (const EdgeDef& e : d.edges) {
    check_source(e.from, "edge");
    if (!d.IsTarget(e.to)) {
      issues.push_back({GraphIssueKind::kUnknownNode, e.from,
                        "the edge '" + e.from + "' -> '" + e.to + "' leads to no node (" + known + ")"});
    }
  }
  for (const ConditionalDef& c : d.conditionals) {
    check_source(c.from, "conditional edge");
    if (!c.router) {
      issues.push_back({GraphIssueKind::kMissingFunction, c.from,
                        "the conditional edges of '" + c.from + "' have no router function"});
    }
    for (const auto& [label, to] : c.mapping) {
      if (!d.IsTarget(to)) {
        issues.push_back({GraphIssueKind::kUnknownNode, c.from,
                          "the router of '" + c.from + "' maps '" + label + "' to '" + to + "', which is not a node (" +
                              known + ")"});
      }
    }
  }

  // Exactly one way onwards per node.
  for (const NodeDef& n : d.nodes) {
    const auto plain =
        std::count_if(d.edges.begin(), d.edges.end(), [&](const EdgeDef& e) { return e.from == n.name; });
    const auto conditional = std::count_if(d.conditionals.begin(), d.conditionals.end(),
                                           [&](const ConditionalDef& c) { return c.from == n.name; });
    if (plain + conditional == 0) {
      issues.push_back(
          {GraphIssueKind::kNoOutgoingEdge, n.name,
           "node '" + n.name + "' has no outgoing edge; add one (AddEdge(\"" + n.name + "\", kEnd) to stop there)"});
    } else if (plain + conditional > 1) {
      issues.push_back({GraphIssueKind::kConflictingEdges, n.name,
                        "node '" + n.name + "' has " + std::to_string(plain) + " plain and " +
                            std::to_string(conditional) +
                            " conditional routes; a node takes one (a router can choose among several targets)"});
    }
  }

  for (const auto& [key, reducer] : d.reducers) {
    if (!reducer) {
      issues.push_back({GraphIssueKind::kMissingFunction, "", "the reducer of state key '" + key + "' is empty"});
    }
  }
  return issues;
}

// ---- The compiled graph -----------------------------------------------------

struct CompiledGraph::Impl {
  std::string entry;
  std::vector<std::string> order;  // node names as added
  std::unordered_map<std::string, GraphNodeFn> nodes;
  std::unordered_map<std::string, Route> routes;
  std::map<std::string, GraphReducerFn> reducers;

  // `update` merged into `state` (top-level keys, reducers where set). On an
  // exception from a reducer, `state` is left as it was.
  Status Merge(Json& state, const Json& update, std::vector<std::string>& keys) const {
    if (update.is_null()) return Status::OK();
    Json next = state;
    for (auto it = update.begin(); it != update.end(); ++it) {
      keys.push_back(it.key());
      auto reducer = reducers.find(it.key());
      if (reducer == reducers.end()) {
        next[it.key()] = it.value();
        continue;
      }
      auto current = next.find(it.key());
      const Json existing = current == next.end() ? Json() : *current;
      try {
        next[it.key()] = reducer->second(existing, it.value());
      } catch (...) {
        return Status::Internal("the reducer of state key '" + it.key() + "' threw: " +
                                ExceptionText(std::current_exception()));
      }
    }
    std::sort(keys.begin(), keys.end());
    state = std::move(next);
    return Status::OK();
  }

  // The node after `from`, or an error naming the router's bad answer.
  Result<std::string> Next(const std::string& from, const Json& state) const {
    const Route& route = routes.at(from);
    if (route.router == nullptr) return route.to;
    std::string label;
    try {
      label = route.router(state);
    } catch (...) {
      return Status::Internal("the router of graph node '" + from + "' threw: " +
                              ExceptionText(std::current_exception()));
    }
    if (!route.mapping.empty()) {
      auto target = route.mapping.find(label);
      if (target == route.mapping.end()) {
        std::vector<std::string> labels;
        for (const auto& [l, to] : route.mapping) labels.push_back(l);
        return Status::InvalidArgument("the router of graph node '" + from + "' returned '" + label +
                                       "', which is not in its mapping (" + QuotedList(labels) +
                                       "); return one of those labels");
      }
      return target->second;
    }
    if (label != kEnd && nodes.count(label) == 0) {
      return Status::InvalidArgument("the router of graph node '" + from + "' returned '" + label +
                                     "', which is not a node of the graph; return one of " + QuotedList(order) +
                                     " or '" + std::string(kEnd) + "'");
    }
    return label;
  }
};

CompiledGraph::CompiledGraph(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

const std::string& CompiledGraph::entry_point() const { return impl_->entry; }
std::vector<std::string> CompiledGraph::node_names() const { return impl_->order; }

Result<CompiledGraph> StateGraph::Compile() const {
  std::vector<GraphIssue> issues = Validate();
  if (!issues.empty()) {
    std::string message = "graph definition has " + std::to_string(issues.size()) +
                          (issues.size() == 1 ? " problem: " : " problems: ");
    for (size_t i = 0; i < issues.size(); ++i) {
      if (i > 0) message += "; ";
      message += std::string(GraphIssueKindName(issues[i].kind)) + ": " + issues[i].message;
    }
    return Status::InvalidArgument(message);
  }
  auto impl = std::make_shared<CompiledGraph::Impl>();
  impl->entry = *def_->entry;
  for (const NodeDef& n : def_->nodes) {
    impl->order.push_back(n.name);
    impl->nodes[n.name] = n.fn;
  }
  for (const EdgeDef& e : def_->edges) impl->routes[e.from] = Route{.to = e.to};
  for (const ConditionalDef& c : def_->conditionals) {
    impl->routes[c.from] = Route{.router = c.router, .mapping = c.mapping};
  }
  impl->reducers = def_->reducers;
  return CompiledGraph(std::move(impl));
}

GraphRunResult CompiledGraph::Run(Json initial_state, const GraphRunOptions& options) const {
  const auto run_start = SteadyClock::now();
  const std::string trace_name = options.trace_name.empty() ? "graph" : options.trace_name;
  otel::Span run_span = otel::StartSpan("invoke_agent " + trace_name, otel::SpanKind::kInternal);
  run_span.Set("gen_ai.operation.name", "invoke_agent");
  run_span.Set("gen_ai.agent.name", trace_name);
  const otel::ScopedContext run_scope(run_span.active() ? run_span.context() : otel::CurrentContext());
  GraphRunResult result = RunNodes(std::move(initial_state), options);
  result.elapsed_ms = MsSince(run_start);
  run_span.Set("medreact.run.steps", result.steps);
  // The status code's name only: a node's error text may quote the record.
  if (!result.ok()) run_span.SetError(StatusCodeName(result.status.code()), "the graph run failed");
  return result;
}

GraphRunResult CompiledGraph::RunNodes(Json initial_state, const GraphRunOptions& options) const {
  const Impl& g = *impl_;
  GraphRunResult result;
  result.state = initial_state.is_null() ? Json::object() : std::move(initial_state);
  if (!result.state.is_object()) {
    result.status = Status::InvalidArgument(std::string("the graph's initial state is a JSON ") +
                                            JsonTypeName(result.state) + "; pass an object");
    return result;
  }
  if (options.max_steps < 1) {
    result.status =
        Status::InvalidArgument("max_steps must be at least 1, got " + std::to_string(options.max_steps));
    return result;
  }

  if (options.start_step < 0) {
    result.status =
        Status::InvalidArgument("start_step must not be negative, got " + std::to_string(options.start_step));
    return result;
  }
  std::string current = g.entry;
  if (!options.start_node.empty()) {
    if (!g.nodes.count(options.start_node)) {
      result.status = Status::InvalidArgument("the graph has no node '" + options.start_node + "' to resume at");
      return result;
    }
    current = options.start_node;
  }
  result.steps = options.start_step;
  while (true) {
    // Stop before the next node when asked to, or when the steps are spent.
    if (options.cancel.cancelled()) {
      result.status = Status::Cancelled("graph cancelled after " + std::to_string(result.steps) +
                                        " steps, before node '" + current + "'");
      break;
    }
    if (result.steps >= options.max_steps) {
      result.status = Status::ResourceExhausted("graph stopped after " + std::to_string(result.steps) +
                                                " steps without reaching " + std::string(kEnd) +
                                                " (next node: '" + current + "'); raise max_steps or check the "
                                                "routers' stopping condition");
      break;
    }

    // Run the node.
    const auto node_start = SteadyClock::now();
    GraphTransition t{.node = current, .step = ++result.steps};
    result.path.push_back(current);
    Result<Json> update = Status::Internal("unset");
    otel::Span node_span = otel::StartSpan("step", otel::SpanKind::kInternal);
    node_span.Set("medreact.step.index", t.step);
    node_span.Set("medreact.graph.node", current);
    try {
      const otel::ScopedContext node_scope(node_span.active() ? node_span.context() : otel::CurrentContext());
      update = g.nodes.at(current)(result.state, options.cancel);
    } catch (...) {
      update = Status::Internal("threw: " + ExceptionText(std::current_exception()));
    }
    if (!update.ok()) node_span.SetError(StatusCodeName(update.status().code()), "the graph node failed");
    node_span.End();

    // Merge its update, then ask its route where to go.
    Status failure;
    if (!update.ok()) {
      failure = update.status().WithContext("graph node '" + current + "'");
    } else if (!update->is_null() && !update->is_object()) {
      failure = Status::InvalidArgument("graph node '" + current + "' returned a JSON " + JsonTypeName(*update) +
                                        " as its update; return an object of the keys to change (or null)");
    } else if (Status merged = g.Merge(result.state, *update, t.updated_keys); !merged.ok()) {
      failure = merged.WithContext("graph node '" + current + "'");
    }
    std::string next;
    if (failure.ok()) {
      Result<std::string> routed = g.Next(current, result.state);
      if (routed.ok()) {
        next = *routed;
      } else {
        failure = routed.status();
      }
    }

    // Report the transition; stop on a failure or at the end.
    t.elapsed_ms = MsSince(node_start);
    t.next = next;
    t.ok = failure.ok();
    if (!failure.ok()) t.error = failure.message();
    if (options.on_transition) options.on_transition(t);
    if (!failure.ok()) {
      result.status = failure;
      result.failed_node = current;
      break;
    }
    if (next == kEnd) break;
    if (options.on_checkpoint) options.on_checkpoint(result.state, next, result.steps);
    current = next;
  }
  return result;
}

}  // namespace medreact
