// The cost of OpenTelemetry traces (core/otel.h) on a run: the same chat run
// (a calculator call, then the answer: 2 model calls through the real
// OpenAI client and libcurl, 1 tool call) against the scripted model server
// in this process on loopback, with tracing off and on.
//
//   BM_OtelRun/0  tracing off (no tracer installed: one atomic load per span site)
//   BM_OtelRun/1  tracing on: 6 spans per run, batched and serialised to OTLP
//                 JSON on the exporter thread, handed to an in-process
//                 transport that answers 200 (no socket)
//
// CPU is the whole process's (every thread: the run's, the pool's, the
// exporter's and the model server's), so the difference between the two
// rows is what tracing costs a run: the spans, their ids and attributes,
// the traceparent header, the queue and the OTLP JSON.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "medreact/http.h"

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

// Takes the exporter's POSTs in this process and answers 200: the bench
// counts building and serialising the spans, not the loopback send (at most
// one POST per schedule delay, 200 ms here, carrying up to 512 spans).
class DiscardingCollector : public HttpTransport {
 public:
  Result<HttpResponse> Send(const HttpRequest& request, const HttpChunkHandler&, const CancellationToken&) override {
    bytes += request.body.size();
    ++posts;
    HttpResponse r;
    r.status = 200;
    return r;
  }
  std::atomic<size_t> bytes{0};
  std::atomic<int> posts{0};
};

void BM_OtelRun(benchmark::State& state) {
  const bool traced = state.range(0) == 1;
  Result<mockllm::MockScript> script = mockllm::MockLlmServer::ParseScript(Script());
  if (!script.ok()) return state.SkipWithError(script.status().ToString().c_str());
  mockllm::MockLlmServer model(*script);
  if (!model.Start().ok()) return state.SkipWithError("the scripted server did not start");
  auto collector = std::make_shared<DiscardingCollector>();
  if (traced) {
    otel::InstallTracer(otel::TracerOptions{.traces_url = "http://collector.invalid/v1/traces",
                                            .schedule_delay = Millis(200),
                                            .transport = collector});
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
    state.counters["otlp_bytes_per_run"] = double(collector->bytes) / double(state.iterations());
  }
  otel::InstallTracer(std::nullopt);
  model.Stop();
}
BENCHMARK(BM_OtelRun)->Arg(0)->Arg(1)->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMicrosecond)
    ->MinTime(2.0);

}  // namespace
}  // namespace medreact
