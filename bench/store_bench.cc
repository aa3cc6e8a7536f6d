// The run store's cost (issue 14): what a checkpoint costs per agent step,
// and how big the file grows per 1,000 steps.
//
// BM_StoreCheckpointPerStep/N: one whole run of N steps written as the agent
// writes it: the run at its start, then per step the checkpoint when its two
// tool calls start, one after each call's result, and one at the step's end
// (4 per step; SaveCheckpoint serialises the whole RunState each time, so
// the cost grows with the run). The states are built outside the timed part
// (the agent builds them whether or not a store keeps them). Counters: the
// store's time per step (the step's 4 checkpoints), p50 and p99 over all the
// run's steps, and per checkpoint. The file is on the temp folder's disk,
// synchronous=NORMAL (the default), WAL.
//
// BM_StoreSizePer1000Steps: 50 runs of 20 steps, finished (the checkpoint of
// an ended run is dropped, its steps and result kept) and still running
// (the latest checkpoint kept): the file's bytes per 1,000 steps.
//
// BM_AgentStepWithAndWithoutStore/N: the same whole Agent run of N such
// steps (an in-process scripted model that answers at once, a tool that
// returns a ~1 KB result at once), alternately without a store and with a
// RunRecorder on a real file (its checkpoint hook and its event sink, as
// `medreact chat` plugs them), so both see the same machine load. A step's
// time is the wall clock from the previous step_finished event (or
// run_started) to its own, so it holds everything the store adds: 4
// checkpoints and the step's events. Counters: per-step p50 / p99 of each,
// their difference, and the store's own time per step (the hook's time
// summed over the step's checkpoints), p50 / p99.
#include <cstdlib>
#include <benchmark/benchmark.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "medreact/agent.h"
#include "store/run_recorder.h"
#include "store/run_store.h"

namespace medreact {
namespace {

namespace fs = std::filesystem;

// A fresh folder, removed with its content.
struct BenchDir {
  BenchDir() {
    std::string tmpl = (fs::temp_directory_path() / "medreact-store-bench-XXXXXX").string();
    path = mkdtemp(tmpl.data()) ? tmpl : "";
  }
  ~BenchDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
  std::string path;
};

// A clinical-sized step: a few sentences of reasoning, two lookups with
// arguments, and results of ~600 bytes each (a lab panel, a medication list).
const std::string& Reasoning() {
  static const std::string text =
      "The patient's creatinine has risen from 1.1 to 1.9 mg/dL over 48 hours while on vancomycin and "
      "piperacillin-tazobactam; I should check the trough level and the urine output before deciding on the dose.";
  return text;
}
const std::string& Observation() {
  static const std::string text = [] {
    std::string t = R"({"observations":[)";
    for (int i = 0; i < 8; ++i) {
      t += std::string(i ? "," : "") + R"({"code":"2160-0","display":"Creatinine [Mass/volume] in Serum or Plasma",)" +
           R"("value":1.)" + std::to_string(i) + R"(,"unit":"mg/dL","date":"2026-11-2)" + std::to_string(i % 9) +
           R"("})";
    }
    return t + "]}";
  }();
  return text;
}

// Wall clock and this thread's CPU time: on a loaded machine a wall-clock
// tail is mostly the thread waiting for a core (a 4 ms scheduler tick), which
// the CPU time leaves out (a WAL write goes to the page cache; no fsync with
// synchronous=NORMAL but at WAL checkpoints).
double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}
struct Timer {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double cpu_start = ThreadCpuMs();
  double Ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  double CpuMs() const { return ThreadCpuMs() - cpu_start; }
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5))];
}

// One run of `steps` steps into `store`, as the agent checkpoints it. Adds
// each step's store time and each checkpoint's time to the vectors.
struct Times {
  std::vector<double> step, step_cpu, checkpoint;
};

bool WriteRun(RunStore& store, const std::string& id, int steps, Times* times) {
  RunState s;
  s.messages = {Message::System("You are a careful clinical assistant. Use the tools; cite what you used."),
                Message::User("Should the vancomycin dose be adjusted for this patient?")};
  s.trace.run_id = id;
  s.trace.model = "bench";
  s.trace.input = Json{{"message", s.messages[1].content}};
  double step_ms = 0, step_cpu_ms = 0;
  auto timed = [&](const std::function<Status()>& save) {
    Timer t;
    Status st = save();
    const double ms = t.Ms();
    step_cpu_ms += t.CpuMs();
    if (times) times->checkpoint.push_back(ms);
    step_ms += ms;
    return st.ok();
  };
  RunRecord run{.id = id, .app = "chat", .inputs = s.trace.input, .model = Json{{"name", "bench"}}};
  if (!timed([&] { return store.CreateRun(run, &s); })) return false;
  for (int i = 1; i <= steps; ++i) {
    step_ms = step_cpu_ms = 0;
    s.step = i;
    std::vector<ToolCall> calls = {{"call_" + std::to_string(i) + "a", "get_observations", R"({"code":"2160-0"})"},
                                   {"call_" + std::to_string(i) + "b", "get_medications", R"({"status":"active"})"}};
    Message assistant = Message::Assistant(Reasoning(), calls);
    s.messages.push_back(assistant);
    s.phase = RunState::Phase::kInTurn;
    s.turn = assistant;
    s.turn_record = StepRecord{.index = i, .assistant = assistant, .usage = {900, 80, 980}, .attempts = 1};
    s.turn_results.clear();
    if (!timed([&] { return store.SaveCheckpoint(id, s); })) return false;
    std::vector<ToolResultRecord> results;
    for (size_t c = 0; c < calls.size(); ++c) {
      results.push_back({calls[c].id, calls[c].name, true, Observation(), "", 2.5});
      s.turn_results[c] = results.back();
      if (!timed([&] { return store.SaveCheckpoint(id, s); })) return false;
    }
    for (const ToolResultRecord& r : results) s.messages.push_back(Message::Tool(r.tool_call_id, r.name, r.content));
    StepRecord rec = s.turn_record;
    rec.tool_results = results;
    s.trace.steps.push_back(std::move(rec));
    s.phase = RunState::Phase::kBetweenSteps;
    s.turn = Message();
    s.turn_record = StepRecord();
    s.turn_results.clear();
    s.tool_calls += 2;
    if (!timed([&] { return store.SaveCheckpoint(id, s); })) return false;
    if (times) {
      times->step.push_back(step_ms);
      times->step_cpu.push_back(step_cpu_ms);
    }
  }
  return true;
}

void BM_StoreCheckpointPerStep(benchmark::State& state) {
  const int steps = static_cast<int>(state.range(0));
  BenchDir dir;
  Result<std::unique_ptr<RunStore>> store = RunStore::Open(dir.path + "/runs.sqlite");
  if (!store.ok()) {
    state.SkipWithError(store.status().ToString().c_str());
    return;
  }
  Times times;
  int run = 0;
  for (auto _ : state) {
    if (!WriteRun(**store, "run_" + std::to_string(run++), steps, &times)) {
      state.SkipWithError("SaveCheckpoint failed");
      return;
    }
  }
  state.counters["step_p50_ms"] = Percentile(times.step, 0.50);
  state.counters["step_p99_ms"] = Percentile(times.step, 0.99);
  state.counters["step_cpu_p50_ms"] = Percentile(times.step_cpu, 0.50);
  state.counters["step_cpu_p99_ms"] = Percentile(times.step_cpu, 0.99);
  state.counters["ckpt_p50_ms"] = Percentile(times.checkpoint, 0.50);
  state.counters["ckpt_p99_ms"] = Percentile(times.checkpoint, 0.99);
  state.counters["steps"] = static_cast<double>(times.step.size());
}
BENCHMARK(BM_StoreCheckpointPerStep)->Arg(10)->Arg(20)->Arg(50)->Arg(100)->Unit(benchmark::kMillisecond);

// The same runs on a PostgreSQL store: MEDREACT_BENCH_PG_URL names a
// database (bench/pg_store_bench.sh starts a server and sets it); skipped
// when unset. Every checkpoint is one transaction over a loopback socket.
void BM_StoreCheckpointPerStepPostgres(benchmark::State& state) {
  const char* url = std::getenv("MEDREACT_BENCH_PG_URL");
  if (!url || !*url) {
    state.SkipWithError("MEDREACT_BENCH_PG_URL is not set (bench/pg_store_bench.sh sets it)");
    return;
  }
  const int steps = static_cast<int>(state.range(0));
  Result<std::unique_ptr<RunStore>> store = RunStore::Open(url);
  if (!store.ok()) {
    state.SkipWithError(store.status().ToString().c_str());
    return;
  }
  Times times;
  static int run = 0;
  for (auto _ : state) {
    if (!WriteRun(**store, "run_pg_" + std::to_string(steps) + "_" + std::to_string(run++), steps, &times)) {
      state.SkipWithError("SaveCheckpoint failed");
      return;
    }
  }
  state.counters["step_p50_ms"] = Percentile(times.step, 0.50);
  state.counters["step_p99_ms"] = Percentile(times.step, 0.99);
  state.counters["step_cpu_p50_ms"] = Percentile(times.step_cpu, 0.50);
  state.counters["step_cpu_p99_ms"] = Percentile(times.step_cpu, 0.99);
  state.counters["ckpt_p50_ms"] = Percentile(times.checkpoint, 0.50);
  state.counters["ckpt_p99_ms"] = Percentile(times.checkpoint, 0.99);
  state.counters["steps"] = static_cast<double>(times.step.size());
}
BENCHMARK(BM_StoreCheckpointPerStepPostgres)->Arg(10)->Arg(20)->Arg(50)->Arg(100)->Unit(benchmark::kMillisecond);

void BM_StoreSizePer1000Steps(benchmark::State& state) {
  const bool finish = state.range(0) != 0;
  constexpr int kRuns = 50, kSteps = 20;
  double bytes = 0;
  for (auto _ : state) {
    BenchDir dir;
    const std::string path = dir.path + "/runs.sqlite";
    {
      Result<std::unique_ptr<RunStore>> store = RunStore::Open(path);
      if (!store.ok()) {
        state.SkipWithError(store.status().ToString().c_str());
        return;
      }
      for (int r = 0; r < kRuns; ++r) {
        const std::string id = "run_" + std::to_string(r);
        if (!WriteRun(**store, id, kSteps, nullptr)) {
          state.SkipWithError("SaveCheckpoint failed");
          return;
        }
        if (finish) {
          Result<std::optional<RunState>> last = (*store)->LatestState(id);
          if (!last.ok() || !last->has_value() ||
              !(*store)->FinishRun(id, "finished", Json{{"answer", Reasoning()}}, (**last).trace.steps).ok()) {
            state.SkipWithError("FinishRun failed");
            return;
          }
        }
      }
    }  // closing the last connection folds the WAL into the file
    std::error_code ec;
    bytes = static_cast<double>(fs::file_size(path, ec));
    if (fs::exists(path + "-wal")) bytes += static_cast<double>(fs::file_size(path + "-wal", ec));
  }
  state.counters["MB_per_1000_steps"] = bytes / (kRuns * kSteps) * 1000 / 1e6;
}
BENCHMARK(BM_StoreSizePer1000Steps)->ArgName("finished")->Arg(1)->Arg(0)->Iterations(1)->Unit(benchmark::kMillisecond);

// Answers each request at once: `steps` turns of two lookups (the reasoning
// and calls of WriteRun's steps), then the answer.
class ScriptedModel : public ChatModel {
 public:
  explicit ScriptedModel(int steps) : steps_(steps) {}
  Result<ModelResponse> Complete(const ModelRequest&, const ModelCallContext&) override {
    ModelResponse r;
    r.usage = {900, 80, 980};
    if (++turn_ > steps_) {
      r.message = Message::Assistant("Reduce the dose and recheck the trough in 24 hours.");
      return r;
    }
    const std::string n = std::to_string(turn_);
    // Arguments differ per step: the same call again and again is a loop the agent stops.
    r.message = Message::Assistant(Reasoning(),
                                   {{"call_" + n + "a", "get_observations", R"({"code":"2160-0","page":)" + n + "}"},
                                    {"call_" + n + "b", "get_medications", R"({"status":"active","page":)" + n + "}"}});
    return r;
  }
  std::string name() const override { return "scripted"; }
  std::string protocol() const override { return "bench"; }

 private:
  int steps_, turn_ = 0;
};

std::shared_ptr<ToolRegistry> LookupTools() {
  auto registry = std::make_shared<ToolRegistry>();
  for (const char* name : {"get_observations", "get_medications"}) {
    ToolSpec spec{name, "a lookup", Json{{"type", "object"}}};
    (void)registry->Register(
        MakeFunctionTool(spec, [](const Json&, const ToolContext&) { return ToolResult::Ok(Observation()); }));
  }
  return registry;
}

struct AgentTimes {
  std::vector<double> step, store;
};

// One Agent run of `steps` steps; with `store`, recorded in it. Adds each
// step's wall time (and, with a store, the hook's time in that step).
bool RunAgent(const std::shared_ptr<ToolRegistry>& tools, int steps, const std::shared_ptr<RunStore>& store,
              AgentTimes* times) {
  AgentOptions options;
  options.max_steps = steps + 1;
  using Clock = std::chrono::steady_clock;
  Clock::time_point last;
  double store_ms = 0;
  EventSink timing = [&](const Event& e) {
    const Clock::time_point now = Clock::now();
    if (e.type == EventType::kStepFinished) {
      times->step.push_back(std::chrono::duration<double, std::milli>(now - last).count());
      if (store) times->store.push_back(store_ms);
    }
    if (e.type == EventType::kRunStarted || e.type == EventType::kStepFinished) {
      last = now;
      store_ms = 0;
    }
  };
  std::unique_ptr<RunRecorder> recorder;
  if (store) {
    recorder = std::make_unique<RunRecorder>(store, RunRecord{.app = "chat"}, nullptr);
    options.on_checkpoint = [hook = recorder->Hook(), &store_ms](const RunState& state) {
      const Clock::time_point start = Clock::now();
      hook(state);
      store_ms += std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    };
    options.on_event = recorder->Events(timing);
  } else {
    options.on_event = timing;
  }
  Agent agent(std::make_shared<ScriptedModel>(steps), tools, options);
  RunResult result = agent.Run({.message = "Should the vancomycin dose be adjusted for this patient?"});
  if (recorder && !recorder->Finish(result, false).ok()) return false;
  return result.status == RunStatus::kFinished;
}

void BM_AgentStepWithAndWithoutStore(benchmark::State& state) {
  const int steps = static_cast<int>(state.range(0));
  BenchDir dir;
  Result<std::unique_ptr<RunStore>> opened = RunStore::Open(dir.path + "/runs.sqlite");
  if (!opened.ok()) {
    state.SkipWithError(opened.status().ToString().c_str());
    return;
  }
  std::shared_ptr<RunStore> store = std::move(*opened);
  const std::shared_ptr<ToolRegistry> tools = LookupTools();
  AgentTimes without, with;
  for (auto _ : state) {
    if (!RunAgent(tools, steps, nullptr, &without) || !RunAgent(tools, steps, store, &with)) {
      state.SkipWithError("the agent run failed");
      return;
    }
  }
  const double p50_without = Percentile(without.step, 0.50), p99_without = Percentile(without.step, 0.99);
  const double p50_with = Percentile(with.step, 0.50), p99_with = Percentile(with.step, 0.99);
  state.counters["no_store_p50_ms"] = p50_without;
  state.counters["no_store_p99_ms"] = p99_without;
  state.counters["store_p50_ms"] = p50_with;
  state.counters["store_p99_ms"] = p99_with;
  state.counters["diff_p50_ms"] = p50_with - p50_without;
  state.counters["diff_p99_ms"] = p99_with - p99_without;
  state.counters["hook_p50_ms"] = Percentile(with.store, 0.50);
  state.counters["hook_p99_ms"] = Percentile(with.store, 0.99);
  state.counters["steps"] = static_cast<double>(with.step.size());
}
BENCHMARK(BM_AgentStepWithAndWithoutStore)->Arg(20)->Arg(50)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace medreact
