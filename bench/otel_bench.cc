// The cost of OpenTelemetry traces (core/otel.h) on a run: the same chat run
// (a calculator call, then the answer: 2 model calls through the real
// OpenAI client and libcurl, 1 tool call) against the scripted model server
// in this process on loopback, with tracing off and on.
//
//   BM_OtelRun/0  tracing off (no tracer installed: one atomic load per span site)
//   BM_OtelRun/1  tracing on: 6 spans per run, batched and serialised to OTLP
//                 JSON on the exporter thread and POSTed to an OTLP receiver
//                 on loopback (cpp-httplib, in this process)
//
// CPU is the whole process's (every thread: the run's, the pool's, the
// exporter's, the model server's and the receiver's), so the difference
// between the two rows is what tracing costs a run, export included.
#include <benchmark/benchmark.h>

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "apps/chat/chat_app.h"
#include "core/otel.h"
#include "medreact/json.h"
#include "medreact/openai.h"
#include "mockllm/mock_server.h"

namespace medreact {
namespace {

Json Script() {
  return Json::parse(R"({"select": "by_turn", "responses": [
    {"message": {"content": null, "tool_calls": [{"id": "call_1", "name": "calculator",
                                                  "arguments": "{\"expression\": \"17*23\"}"}]},
     "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}},
    {"message": {"content": "17 * 23 = 391"},
     "usage": {"prompt_tokens": 120, "completion_tokens": 7, "total_tokens": 127}}
  ]})");
}

// Takes OTLP POSTs and counts them.
struct Receiver {
  Receiver() {
    server.Post("/v1/traces", [this](const httplib::Request&, httplib::Response& res) {
      ++posts;
      res.set_content("{}", "application/json");
    });
    port = server.bind_to_any_port("127.0.0.1");
    thread = std::thread([this] { server.listen_after_bind(); });
    while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~Receiver() {
    server.stop();
    thread.join();
  }
  httplib::Server server;
  std::thread thread;
  int port = 0;
  std::atomic<int> posts{0};
};

void BM_OtelRun(benchmark::State& state) {
  const bool traced = state.range(0) == 1;
  Result<mockllm::MockScript> script = mockllm::MockLlmServer::ParseScript(Script());
  if (!script.ok()) return state.SkipWithError(script.status().ToString().c_str());
  mockllm::MockLlmServer model(*script);
  if (!model.Start().ok()) return state.SkipWithError("the scripted server did not start");
  Receiver receiver;
  if (traced) {
    otel::InstallTracer(otel::TracerOptions{
        .traces_url = "http://127.0.0.1:" + std::to_string(receiver.port) + "/v1/traces",
        .schedule_delay = Millis(200)});
  } else {
    otel::InstallTracer(std::nullopt);
  }
  std::shared_ptr<ChatModel> chat = MakeOpenAIModel({.base_url = model.base_url(), .model = "mock"});
  Result<std::shared_ptr<ToolRegistry>> tools = ChatTools({"util"}, {});
  if (!tools.ok()) return state.SkipWithError(tools.status().ToString().c_str());
  for (auto _ : state) {
    RunResult r = RunChat(chat, *tools, "What is 17*23?", {});
    if (r.status != RunStatus::kFinished) return state.SkipWithError(r.error.c_str());
  }
  if (otel::Tracer* t = otel::ActiveTracer()) {
    t->Flush(Millis(10'000));
    const otel::TracerStats s = t->stats();
    state.counters["spans_per_run"] = double(s.ended) / double(state.iterations());
    state.counters["dropped"] = double(s.dropped);
  }
  otel::InstallTracer(std::nullopt);
  model.Stop();
}
BENCHMARK(BM_OtelRun)->Arg(0)->Arg(1)->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMicrosecond)
    ->MinTime(2.0);

}  // namespace
}  // namespace medreact
