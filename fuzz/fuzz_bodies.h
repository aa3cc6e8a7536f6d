// The bodies of medreact's fuzz targets, one per parser of untrusted text.
//
// Each body takes arbitrary bytes, runs one parser (and what a caller would do
// next with a successful result) and returns 0. Every parse result is treated
// as data: a rejected input is normal. A body calls abort() only when an
// invariant the code promises is broken (e.g. a successful parse whose
// DumpJson() does not parse again), so that libFuzzer reports it as a crash.
//
// The bodies are plain functions so that they link into two places:
//   fuzz/<name>_fuzz.cc          libFuzzer entry points (clang, MEDREACT_FUZZ=ON)
//   tests/unit/fuzz_regression_test.cc   replays fuzz/regressions/<name>/ and
//                                fuzz/seeds/<name>/ in the normal test suite
// Thread-compatible; no global state.
#ifndef MEDREACT_FUZZ_FUZZ_BODIES_H_
#define MEDREACT_FUZZ_FUZZ_BODIES_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace medreact::fuzz {

int FuzzJson(const uint8_t* data, size_t size);            // ParseJson, CanonicalJson, DumpJson
int FuzzJsonRepair(const uint8_t* data, size_t size);      // StripJsonDecoration, RepairJson, ParseJsonLenient
int FuzzTextProtocol(const uint8_t* data, size_t size);    // ParseTextReply (default and triage options)
int FuzzSse(const uint8_t* data, size_t size);             // StreamAccumulator over input-chosen splits
int FuzzChatCompletion(const uint8_t* data, size_t size);  // ParseJson + ParseChatCompletion
int FuzzFhir(const uint8_t* data, size_t size);            // FhirStore::FromJson / FromNdjson + fhir tools
int FuzzSchema(const uint8_t* data, size_t size);          // JsonSchema::Compile + Validate
int FuzzPyLiteral(const uint8_t* data, size_t size);       // eval::ParsePyLiteral
int FuzzCsv(const uint8_t* data, size_t size);             // eval::ParseCsv
int FuzzMockScript(const uint8_t* data, size_t size);      // mockllm::ParseMockScript + rendering
int FuzzNoteFacts(const uint8_t* data, size_t size);       // ReadNoteFacts + IndicatorNamedIn + FieldIndicator
int FuzzFindings(const uint8_t* data, size_t size);        // FindingsReader over every concept + BasePriorityFromFindings
int FuzzLiterature(const uint8_t* data, size_t size);      // ParseEsearch, ParsePubmedXml, ParseCtgovStudies/Study, ParseEuropePmcSearch
int FuzzDicom(const uint8_t* data, size_t size);           // imaging::DicomFile::Parse + Metadata + RenderFirstFrame + EncodePng
int FuzzImage(const uint8_t* data, size_t size);           // imaging::SniffFormat + DecodePng/Jpeg + Downscale, base64
int FuzzResearchReport(const uint8_t* data, size_t size);  // a report's citations: CitedReferenceNumbers, NumberInCitationOrder
int FuzzImagingReply(const uint8_t* data, size_t size);    // imaging::Read{Classification,Segmentation,Grounding}Reply
int FuzzRunState(const uint8_t* data, size_t size);        // RunStore::LatestState over a damaged checkpoint row
int FuzzMultipart(const uint8_t* data, size_t size);       // server::ParseMultipart + SafeUploadName
int FuzzMcpMessage(const uint8_t* data, size_t size);      // mcp::McpServer::Handle over the calc pack (fuzz_mcp.cc)
int FuzzMcpReply(const uint8_t* data, size_t size);        // a server's reply through mcp::McpClient: tools/list, tools/call (fuzz_mcp_client.cc)
int FuzzOtel(const uint8_t* data, size_t size);            // otel::ParseTraceparent + TracerOptionsFromEnv

using FuzzBody = int (*)(const uint8_t*, size_t);

struct FuzzTarget {
  std::string_view name;  // "json", "json_repair", ...: fuzz/<name>_fuzz.cc, fuzz/seeds/<name>/
  FuzzBody body;
};

// Every target, in the order above.
const std::vector<FuzzTarget>& FuzzTargets();

}  // namespace medreact::fuzz

#endif  // MEDREACT_FUZZ_FUZZ_BODIES_H_
