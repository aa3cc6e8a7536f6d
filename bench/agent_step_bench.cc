// Per-step engine overhead: a whole Agent::Run against an in-process model
// that answers instantly (no network, no sleeping), so what is measured is
// the loop itself — request building, windowing, argument validation, the
// pool hand-off, tool-result bookkeeping, loop detection and the trace.
// Reported as time per step (a step = one model turn + its tool calls).
#include <benchmark/benchmark.h>

#include "medreact/agent.h"

namespace medreact {
namespace {

// Calls `echo` with a fresh argument `calls_per_turn` times per turn, for
// `turns` turns, then answers.
class InstantModel : public ChatModel {
 public:
  InstantModel(int turns, int calls_per_turn) : turns_(turns), calls_(calls_per_turn) {}
  Result<ModelResponse> Complete(const ModelRequest& request, const ModelCallContext&) override {
    ModelResponse r;
    if (n_++ >= turns_) {
      r.message = Message::Assistant("done");
      return r;
    }
    std::vector<ToolCall> calls;
    for (int i = 0; i < calls_; ++i) {
      calls.push_back({"call_" + std::to_string(n_) + "_" + std::to_string(i), "echo",
                       "{\"x\":" + std::to_string(n_ * 100 + i) + ",\"note\":\"value\"}"});
    }
    r.message = Message::Assistant("", std::move(calls));
    r.usage = {100, 10, 110};
    return r;
  }
  std::string name() const override { return "instant"; }
  std::string protocol() const override { return "bench"; }

 private:
  int turns_, calls_, n_ = 0;
};

std::shared_ptr<ToolRegistry> EchoRegistry() {
  auto registry = std::make_shared<ToolRegistry>();
  ToolSpec spec{"echo", "echo",
                Json::parse(R"({"type":"object","properties":{"x":{"type":"integer"},
                               "note":{"type":"string","maxLength":100}},"required":["x"]})")};
  (void)registry->Register(MakeFunctionTool(spec, [](const Json& args, const ToolContext&) {
    return ToolResult::OkJson(args);
  }));
  return registry;
}

void BM_AgentStep(benchmark::State& state) {
  const int turns = 10;
  const int calls = static_cast<int>(state.range(0));
  auto registry = EchoRegistry();
  for (auto _ : state) {
    auto model = std::make_shared<InstantModel>(turns, calls);
    AgentOptions options;
    options.max_steps = turns + 1;
    Agent agent(model, registry, options);
    RunResult r = agent.Run({.message = "benchmark"});
    benchmark::DoNotOptimize(r);
    if (r.status != RunStatus::kFinished) state.SkipWithError("run did not finish");
  }
  // turns with calls + the answering turn
  state.SetItemsProcessed(state.iterations() * (turns + 1));
  // Seconds per step (printed with an SI prefix: "12u" = 12 µs).
  state.counters["per_step"] = benchmark::Counter(
      turns + 1, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_AgentStep)->Arg(1)->Arg(4)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace medreact
