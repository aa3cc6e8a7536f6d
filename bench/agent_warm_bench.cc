// Warm runs through the real client (issue 11): N agent runs in one process
// against the scripted model server, `medreact-mock-llm`, started as a
// separate process on loopback so that its CPU is not counted. Every run meets
// the same replies ("select": "by_turn"): a calculator call, a current_time
// call, an answer — 3 model calls and 2 tool calls, the shape the issue
// compares with LangGraph.js and OpenAI Agents JS.
//
// CPU is the whole process's (getrusage RUSAGE_SELF: every thread, user +
// system), divided by the runs: the per-run cost of the agent, its pool, the
// client, libcurl and the kernel's loopback work on our side.
//
//   BM_WarmRun           3 model calls + 2 tool calls per run
//   BM_WarmRunStored     the same, every checkpoint and event in a run store
//   BM_ModelWait/delay   a one-call run whose answer the server delays
//                        `delay` ms: (CPU at 5000 - CPU at 1000) / 4 is the
//                        CPU of one second spent waiting for a model (the
//                        difference from 0 also holds what a run costs more
//                        after sleeping, its caches cold)
//   BM_LongRun/steps     a run of `steps` tool-calling turns (each result
//                        ~1 KB) then the answer: the cost of re-sending a
//                        growing history; compare per-step CPU at 10 and 100
//   BM_LongRunInProcess  the same through the same client with a transport
//                        that answers in-process from canned bodies: the
//                        engine's and the client's own cost (building and
//                        serialising requests), without the kernel's sends
//
// The server binary is found beside this one (build/medreact-mock-llm) or at
// $MEDREACT_MOCK_LLM.
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "medreact/agent.h"
#include "medreact/openai.h"
#include "store/run_recorder.h"
#include "store/run_store.h"
#include "tools/util/util_pack.h"

extern char** environ;

namespace medreact {
namespace {

namespace fs = std::filesystem;

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

long MaxRssKiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

fs::path MockServerBinary() {
  if (const char* path = std::getenv("MEDREACT_MOCK_LLM")) return path;
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec).parent_path() / "medreact-mock-llm";
}

// One medreact-mock-llm process serving `script`, stopped (SIGTERM) on destruction.
class MockServerProcess {
 public:
  explicit MockServerProcess(const Json& script) {
    dir_ = fs::temp_directory_path() / ("medreact-warm-bench-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(counter_++));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "script.json") << DumpJson(script);
    const std::string binary = MockServerBinary().string();
    const std::string script_path = (dir_ / "script.json").string();
    const std::string port_path = (dir_ / "port").string();
    std::vector<std::string> args = {binary, "--script", script_path, "--port-file", port_path};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    if (posix_spawn(&pid_, binary.c_str(), &actions, nullptr, argv.data(), environ) != 0) {
      pid_ = -1;
      error_ = "cannot start " + binary + " (build it, or set MEDREACT_MOCK_LLM)";
    }
    posix_spawn_file_actions_destroy(&actions);
    for (int i = 0; pid_ > 0 && i < 1000; ++i) {
      std::ifstream in(port_path);
      int port = 0;
      if (in >> port && port > 0) {
        url_ = "http://127.0.0.1:" + std::to_string(port) + "/v1";
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (error_.empty()) error_ = "the mock server did not write its port";
  }
  ~MockServerProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const std::string& url() const { return url_; }
  const std::string& error() const { return error_; }

 private:
  static inline int counter_ = 0;
  fs::path dir_;
  pid_t pid_ = -1;
  std::string url_;
  std::string error_;
};

Json ToolTurn(const std::string& id, const std::string& name, const Json& args, int delay_ms = 0) {
  Json entry = {{"message", {{"content", nullptr},
                             {"tool_calls", Json::array({{{"id", id}, {"name", name}, {"arguments", DumpJson(args)}}})}}}};
  if (delay_ms > 0) entry["delay_ms"] = delay_ms;
  return entry;
}

Json AnswerTurn(int delay_ms = 0) {
  Json entry = {{"message", {{"content", "17 * 23 = 391; checked at the current time."}}}};
  if (delay_ms > 0) entry["delay_ms"] = delay_ms;
  return entry;
}

std::shared_ptr<ChatModel> ClientFor(const MockServerProcess& server) {
  return std::shared_ptr<ChatModel>(
      MakeOpenAIModel({.base_url = server.url(), .model = "mock", .max_retries = 0}));
}

// Runs the benchmark's iterations and reports process CPU per run (ms) and
// the peak RSS. One run first, not counted: a process's first request loads
// libcurl and its first tool call starts the workers, which a warm process
// has done already.
template <typename RunOnce>
void MeasureRuns(benchmark::State& state, RunOnce run_once) {
  if (RunResult r = run_once(); r.status != RunStatus::kFinished) {
    state.SkipWithError(("warm-up run ended " + std::string(RunStatusName(r.status)) + ": " + r.error).c_str());
    return;
  }
  int64_t runs = 0;
  const double cpu_start = CpuSeconds();
  for (auto _ : state) {
    RunResult r = run_once();
    if (r.status != RunStatus::kFinished) {
      state.SkipWithError(("run ended " + std::string(RunStatusName(r.status)) + ": " + r.error).c_str());
      return;
    }
    ++runs;
  }
  const double cpu = CpuSeconds() - cpu_start;
  state.counters["cpu_ms_per_run"] = benchmark::Counter(runs > 0 ? cpu * 1e3 / static_cast<double>(runs) : 0);
  state.counters["max_rss_MiB"] = benchmark::Counter(static_cast<double>(MaxRssKiB()) / 1024.0);
}

// A calculator call, a current_time call, an answer: by turn, so every run meets them.
Json WarmScript() {
  return {{"select", "by_turn"},
          {"responses", Json::array({ToolTurn("call_1", "calculator", {{"expression", "17 * 23"}}),
                                     ToolTurn("call_2", "current_time", Json::object()), AnswerTurn()})}};
}

void BM_WarmRun(benchmark::State& state) {
  MockServerProcess server(WarmScript());
  if (!server.error().empty()) return state.SkipWithError(server.error().c_str());
  auto model = ClientFor(server);
  auto registry = std::make_shared<ToolRegistry>();
  (void)RegisterUtilPack(*registry);
  MeasureRuns(state, [&] {
    Agent agent(model, registry, {.max_steps = 5});
    return agent.Run({.message = "What is 17 * 23, and what time is it?"});
  });
}
BENCHMARK(BM_WarmRun)->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMicrosecond)->MinTime(2.0);

// The same runs recorded in a run store, as a server records every run: a
// RunRecorder per run (its checkpoints and events, and the end), one store
// (one SQLite connection) for the process, in a fresh file.
void BM_WarmRunStored(benchmark::State& state) {
  MockServerProcess server(WarmScript());
  if (!server.error().empty()) return state.SkipWithError(server.error().c_str());
  auto model = ClientFor(server);
  auto registry = std::make_shared<ToolRegistry>();
  (void)RegisterUtilPack(*registry);
  const fs::path dir = fs::temp_directory_path() / ("medreact-warm-store-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  Result<std::unique_ptr<RunStore>> opened = RunStore::Open((dir / "runs.sqlite").string());
  if (!opened.ok()) return state.SkipWithError(opened.status().ToString().c_str());
  std::shared_ptr<RunStore> store = std::move(*opened);
  MeasureRuns(state, [&] {
    RunRecorder recorder(store, {.app = "chat", .inputs = Json{{"message", "bench"}}}, nullptr);
    AgentOptions options{.max_steps = 5};
    options.on_checkpoint = recorder.Hook();
    options.on_event = recorder.Events(nullptr);
    Agent agent(model, registry, options);
    RunResult r = agent.Run({.message = "What is 17 * 23, and what time is it?"});
    recorder.Finish(r, false);
    return r;
  });
  store.reset();
  fs::remove_all(dir);
}
BENCHMARK(BM_WarmRunStored)->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMicrosecond)->MinTime(2.0);

void BM_ModelWait(benchmark::State& state) {
  const int delay_ms = static_cast<int>(state.range(0));
  const Json script = {{"select", "by_turn"}, {"responses", Json::array({AnswerTurn(delay_ms)})}};
  MockServerProcess server(script);
  if (!server.error().empty()) return state.SkipWithError(server.error().c_str());
  auto model = ClientFor(server);
  auto registry = std::make_shared<ToolRegistry>();
  MeasureRuns(state, [&] {
    Agent agent(model, registry, {.max_steps = 2});
    return agent.Run({.message = "Wait for it."});
  });
}
BENCHMARK(BM_ModelWait)->Arg(0)->Arg(1000)->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)
    ->Iterations(10);
BENCHMARK(BM_ModelWait)->Arg(5000)->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)
    ->Iterations(4);

// A ~1 KB observation, different for every item so no two turns repeat.
ToolResult Lookup(const Json& args, const ToolContext&) {
  const int item = args.value("item", 0);
  std::string text = "Item " + std::to_string(item) + ": ";
  while (text.size() < 1000) text += "value " + std::to_string(item * 7919 % 1000 + text.size()) + "; ";
  return ToolResult::Ok(text);
}

// The long runs' tools: the util pack, the finishing tools and `lookup`.
std::shared_ptr<ToolRegistry> LookupRegistry() {
  auto registry = std::make_shared<ToolRegistry>();
  (void)RegisterUtilPack(*registry);
  (void)RegisterFinishTools(*registry);
  (void)registry->Register(MakeFunctionTool(
      {"lookup", "Looks an item up and returns what is known about it.",
       Json::parse(R"({"type":"object","properties":{"item":{"type":"integer"}},"required":["item"]})")},
      Lookup));
  return registry;
}

void BM_LongRun(benchmark::State& state) {
  const int steps = static_cast<int>(state.range(0));
  Json responses = Json::array();
  for (int i = 0; i < steps; ++i) {
    responses.push_back(ToolTurn("call_" + std::to_string(i), "lookup", {{"item", i}}));
  }
  responses.push_back(AnswerTurn());
  MockServerProcess server({{"select", "by_turn"}, {"responses", responses}});
  if (!server.error().empty()) return state.SkipWithError(server.error().c_str());
  auto model = ClientFor(server);
  auto registry = LookupRegistry();
  size_t spec_bytes = 0;
  for (const ToolSpec& spec : registry->Specs()) {
    spec_bytes += spec.name.size() + spec.description.size() + DumpJson(spec.parameters).size();
  }
  MeasureRuns(state, [&] {
    Agent agent(model, registry, {.max_steps = steps + 1});
    return agent.Run({.message = "Look up every item, one per turn, then summarise."});
  });
  state.counters["cpu_ms_per_step"] = state.counters["cpu_ms_per_run"].value / (steps + 1);
  state.counters["tool_spec_bytes"] = static_cast<double>(spec_bytes);
}
BENCHMARK(BM_LongRun)->Arg(10)->Arg(100)->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

// Answers the i-th request of a run with the i-th canned Chat Completions body.
class CannedTransport : public HttpTransport {
 public:
  explicit CannedTransport(const std::vector<std::string>* bodies) : bodies_(bodies) {}
  Result<HttpResponse> Send(const HttpRequest&, const HttpChunkHandler&, const CancellationToken&) override {
    HttpResponse response;
    response.status = 200;
    response.body = (*bodies_)[std::min(next_++, bodies_->size() - 1)];
    return response;
  }

 private:
  const std::vector<std::string>* bodies_;
  size_t next_ = 0;
};

std::string CompletionBody(const Json& message) {
  return DumpJson(Json{{"id", "x"}, {"object", "chat.completion"}, {"model", "canned"},
                       {"choices", Json::array({{{"index", 0}, {"message", message},
                                                 {"finish_reason", message.contains("tool_calls") ? "tool_calls" : "stop"}}})},
                       {"usage", {{"prompt_tokens", 10}, {"completion_tokens", 5}, {"total_tokens", 15}}}});
}

void BM_LongRunInProcess(benchmark::State& state) {
  const int steps = static_cast<int>(state.range(0));
  std::vector<std::string> bodies;
  for (int i = 0; i < steps; ++i) {
    const Json call = {{"id", "call_" + std::to_string(i)}, {"type", "function"},
                       {"function", {{"name", "lookup"}, {"arguments", DumpJson(Json{{"item", i}})}}}};
    bodies.push_back(CompletionBody({{"role", "assistant"}, {"content", nullptr}, {"tool_calls", Json::array({call})}}));
  }
  bodies.push_back(CompletionBody({{"role", "assistant"}, {"content", "Summary of every item."}}));
  auto registry = LookupRegistry();
  MeasureRuns(state, [&] {
    // A client per run: the transport's turn counter starts afresh.
    auto model = std::shared_ptr<ChatModel>(MakeOpenAIModel(
        {.base_url = "http://canned.invalid/v1", .max_retries = 0,
         .transport = std::make_shared<CannedTransport>(&bodies)}));
    Agent agent(model, registry, {.max_steps = steps + 1});
    return agent.Run({.message = "Look up every item, one per turn, then summarise."});
  });
  state.counters["cpu_ms_per_step"] = state.counters["cpu_ms_per_run"].value / (steps + 1);
}
BENCHMARK(BM_LongRunInProcess)->Arg(10)->Arg(100)->UseRealTime()->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
}  // namespace medreact
