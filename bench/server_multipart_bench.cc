// The multipart/form-data reader (src/server/multipart.h) on an 8 MiB body:
// an upload as a browser sends it, and the hostile case for a delimiter
// search (a 70-character boundary of one letter over a body of that letter,
// where a Boyer-Moore-Horspool scan compares ~70 bytes per byte of body and
// Boyer-Moore's good-suffix rule skips). Reported as bytes per second.
#include <benchmark/benchmark.h>

#include <string>

#include "server/multipart.h"

namespace medreact::server {
namespace {

constexpr size_t kBodyBytes = 8u << 20;

void RunParse(benchmark::State& state, const std::string& content_type, const std::string& body, bool expect_ok) {
  const MultipartLimits limits{.max_total_bytes = 2 * kBodyBytes};
  for (auto _ : state) {
    Result<std::vector<FormPart>> parts = ParseMultipart(content_type, body, limits);
    if (parts.ok() != expect_ok) state.SkipWithError("unexpected parse result");
    benchmark::DoNotOptimize(parts);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(body.size()));
}

void BM_MultipartUpload(benchmark::State& state) {
  const std::string boundary = "----WebKitFormBoundary7MA4YWxkTrZu0gW";
  std::string data(kBodyBytes, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i * 2654435761u) >> 13);
  const std::string body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"study\"; filename=\"ct.dcm\"\r\n" +
                           "Content-Type: application/dicom\r\n\r\n" + data + "\r\n--" + boundary + "--\r\n";
  RunParse(state, "multipart/form-data; boundary=" + boundary, body, true);
}
BENCHMARK(BM_MultipartUpload)->Unit(benchmark::kMillisecond);

void BM_MultipartHostileRun(benchmark::State& state) {
  const std::string boundary(70, 'A');
  const std::string body =
      "--" + boundary + "\r\nContent-Disposition: form-data; name=a\r\n\r\n" + std::string(kBodyBytes, 'A');
  RunParse(state, "multipart/form-data; boundary=" + boundary, body, false);  // no close delimiter
}
BENCHMARK(BM_MultipartHostileRun)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace medreact::server
