// Benchmarks for the Chat Completions read path: StreamAccumulator over a
// realistic SSE stream (2,000 text deltas, then a tool call whose arguments
// arrive in 200 fragments, then a usage chunk), fed in network-sized pieces;
// and ParseChatCompletion on a typical non-streamed reply with 3 tool calls.

#include <benchmark/benchmark.h>

#include <string>

#include "medreact/openai.h"

namespace medreact {
namespace {

std::string RealisticStream() {
  std::string sse;
  auto event = [&sse](const Json& chunk) { sse += "data: " + chunk.dump() + "\n\n"; };
  const Json header = {{"id", "chatcmpl-9x"}, {"object", "chat.completion.chunk"}, {"created", 1718000000},
                       {"model", "clinical-llm-70b"}};
  const char* words[] = {"The ", "patient's ", "INR ", "of ", "3.4 ", "is ", "above ", "range; ",
                         "hold ", "warfarin ", "tonight ", "and ", "recheck."};
  for (int i = 0; i < 2000; ++i) {
    Json chunk = header;
    chunk["choices"] = {{{"index", 0}, {"delta", {{"content", words[i % 13]}}}, {"logprobs", nullptr},
                         {"finish_reason", nullptr}}};
    event(chunk);
  }
  Json open = header;
  open["choices"] = {{{"index", 0},
                      {"delta", {{"tool_calls", {{{"index", 0}, {"id", "call_8d1e0f"}, {"type", "function"},
                                                  {"function", {{"name", "order_lab"}, {"arguments", ""}}}}}}}},
                      {"finish_reason", nullptr}}};
  event(open);
  for (int i = 0; i < 200; ++i) {
    std::string fragment = i == 0 ? "{\"tests\":[" : (i == 199 ? "\"INR\"]}" : "\"PT\",");
    Json chunk = header;
    chunk["choices"] = {{{"index", 0},
                         {"delta", {{"tool_calls", {{{"index", 0}, {"function", {{"arguments", fragment}}}}}}}},
                         {"finish_reason", nullptr}}};
    event(chunk);
  }
  Json finish = header;
  finish["choices"] = {{{"index", 0}, {"delta", Json::object()}, {"finish_reason", "tool_calls"}}};
  event(finish);
  Json usage = header;
  usage["choices"] = Json::array();
  usage["usage"] = {{"prompt_tokens", 1830}, {"completion_tokens", 2210}, {"total_tokens", 4040}};
  event(usage);
  sse += "data: [DONE]\n\n";
  return sse;
}

void BM_StreamAccumulator(benchmark::State& state) {
  const std::string sse = RealisticStream();
  const size_t piece = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    StreamAccumulator acc;
    for (size_t i = 0; i < sse.size(); i += piece) acc.Feed(std::string_view(sse).substr(i, piece));
    Result<ModelResponse> r = acc.Finish();
    if (!r.ok() || r->message.tool_calls.size() != 1) state.SkipWithError("stream did not parse");
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(sse.size()));
  state.counters["stream_bytes"] = static_cast<double>(sse.size());
}
BENCHMARK(BM_StreamAccumulator)->Arg(1400)->Arg(64);

void BM_ParseChatCompletion(benchmark::State& state) {
  const std::string text = R"({
    "id": "chatcmpl-abc", "object": "chat.completion", "created": 1718000000, "model": "clinical-llm-70b",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null, "message": {
      "role": "assistant", "content": "I will check the latest labs, active medications and allergies.",
      "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_labs",
         "arguments": "{\"patient_id\":\"p-104\",\"codes\":[\"INR\",\"CREAT\",\"K\"],\"since\":\"2024-01-01\"}"}},
        {"id": "call_2", "type": "function", "function": {"name": "get_medications",
         "arguments": "{\"patient_id\":\"p-104\",\"status\":\"active\"}"}},
        {"id": "call_3", "type": "function", "function": {"name": "get_allergies",
         "arguments": "{\"patient_id\":\"p-104\"}"}}]}}],
    "usage": {"prompt_tokens": 1830, "completion_tokens": 96, "total_tokens": 1926}})";
  for (auto _ : state) {
    Result<Json> body = ParseJson(text);
    Result<ModelResponse> r = ParseChatCompletion(*body);
    if (!r.ok() || r->message.tool_calls.size() != 3) state.SkipWithError("reply did not parse");
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseChatCompletion);

}  // namespace
}  // namespace medreact
