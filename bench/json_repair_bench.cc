// Throughput of the tolerant JSON path and the text-protocol parser.
//
// Two inputs: a realistic ~2 KB messy reply from a small model (prose, a code
// fence, Python literals, single quotes, comments, trailing commas) and a
// ~1 MB generated near-JSON document with the same defects and a truncated
// end. Bytes processed are reported, so the output reads in MB/s; the repair
// is a single pass, so the 1 MB figure should be close to the small one.
#include <benchmark/benchmark.h>

#include <string>

#include "medreact/json_repair.h"
#include "medreact/text_protocol.h"

namespace medreact {
namespace {

std::string MessyReply() {
  std::string reply =
      "THOUGHT: The CT shows a filling defect in the right pulmonary artery consistent with acute "
      "pulmonary embolism. Before I adjust the priority I need to know whether the patient is "
      "already anticoagulated, because a PE on therapeutic anticoagulation means treatment "
      "failure and changes the urgency. I will check the medication list first.\n\n"
      "TOOL_CALL:\n```json\n"
      "{'tool': 'check_medication_status',  // anticoagulants only\n"
      " 'arguments': {\n"
      "   'medication_name': 'warfarin',\n"
      "   'include_inactive': False,\n"
      "   'since': None,\n"
      "   'context': 'Patient's history: ";
  while (reply.size() < 1900) {
    reply += "prior DVT in 2019 treated with \"apixaban\", switched to warfarin; ";
  }
  reply +=
      "',\n"
      "   'flags': [True, False, True,],\n"
      " },\n"
      "}\n```\n"
      "This should tell me whether anticoagulation is active.\n";
  return reply;
}

std::string NearJsonDocument(size_t target_bytes) {
  std::string doc = "{'resourceType': 'Bundle', 'entry': [\n";
  for (int i = 0; doc.size() < target_bytes; ++i) {
    doc += "  {resource: {'resourceType': 'Observation', 'id': 'obs-" + std::to_string(i) +
           "', 'code': {'text': 'INR'}, 'valueQuantity': {'value': 2." + std::to_string(i % 10) +
           ", 'unit': None}, 'final': True, /* lab */ 'note': \"it's \\\"normal\\\"\",},},\n";
  }
  doc += "  {'resource': {'resourceType': 'Observation', 'note': 'cut off mid";  // truncated
  return doc;
}

const std::string& Reply() {
  static const std::string reply = MessyReply();
  return reply;
}

const std::string& BigDocument() {
  static const std::string doc = NearJsonDocument(1 << 20);
  return doc;
}

void BM_ParseJsonLenient_MessyReply(benchmark::State& state) {
  const std::string& text = Reply();
  for (auto _ : state) {
    Result<Json> value = ParseJsonLenient(text);
    if (!value.ok()) state.SkipWithError(value.status().message().c_str());
    benchmark::DoNotOptimize(value);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * text.size());
}
BENCHMARK(BM_ParseJsonLenient_MessyReply);

void BM_RepairJson_MessyReply(benchmark::State& state) {
  const std::string stripped = StripJsonDecoration(Reply());
  for (auto _ : state) benchmark::DoNotOptimize(RepairJson(stripped));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * stripped.size());
}
BENCHMARK(BM_RepairJson_MessyReply);

void BM_RepairJson_1MB(benchmark::State& state) {
  const std::string& doc = BigDocument();
  for (auto _ : state) benchmark::DoNotOptimize(RepairJson(doc));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * doc.size());
}
BENCHMARK(BM_RepairJson_1MB)->Unit(benchmark::kMillisecond);

void BM_ParseJsonLenient_1MB(benchmark::State& state) {
  const std::string& doc = BigDocument();
  for (auto _ : state) {
    Result<Json> value = ParseJsonLenient(doc);
    if (!value.ok()) state.SkipWithError(value.status().message().c_str());
    benchmark::DoNotOptimize(value);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * doc.size());
}
BENCHMARK(BM_ParseJsonLenient_1MB)->Unit(benchmark::kMillisecond);

void BM_ParseTextReply_Typical(benchmark::State& state) {
  TextProtocolOptions options;
  options.final_fields = {{"RISK_ADJUSTMENT", "INCREASE, DECREASE or NONE", false},
                          {"CRITICAL_FINDINGS", "JSON list of findings", true}};
  const std::string& text = Reply();
  for (auto _ : state) {
    TextReply reply = ParseTextReply(text, options);
    if (reply.tool_calls.size() != 1) state.SkipWithError(reply.error.c_str());
    benchmark::DoNotOptimize(reply);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * text.size());
}
BENCHMARK(BM_ParseTextReply_Typical);

}  // namespace
}  // namespace medreact
