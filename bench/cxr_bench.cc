// The chest X-ray agent's image costs (issue 13):
//   - DICOM decode and PNG encode of the 1976 x 1576 JPEG Lossless radiograph
//     (CR-ModalitySequenceLUT.dcm): DCMTK's decoder and the grey pipeline,
//     then libpng at full size; and the whole ImageStore::AddFile (decode,
//     downscale to 1024, PNG, base64 data URL) that runs once per image per run;
//   - the bytes a model turn sends, with the image encoded once and referred
//     to by id (what medreact does: one image part in the first user turn,
//     tools get "img1"), against re-attaching the image to every turn (what an
//     agent does whose tools hand images back to the model as new image parts).
//     Counters bytes_turn_N are request body sizes (BuildChatCompletionsBody);
//     encode_ms_saved is the PNG + base64 time the per-turn design repeats.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>
#include <vector>

#include "bench_paths.h"
#include "medreact/message.h"
#include "medreact/model.h"
#include "medreact/openai.h"
#include "tools/imaging/dicom_image.h"
#include "tools/imaging/image_codec.h"
#include "tools/imaging/image_store.h"

namespace medreact {
namespace {

const std::string kFile = MEDREACT_SOURCE_DIR + "/tests/fixtures/dicom/CR-ModalitySequenceLUT.dcm";

void BM_DicomDecodeJpegLossless(benchmark::State& state) {
  for (auto _ : state) {
    auto file = imaging::DicomFile::Read(kFile);
    auto frame = file->RenderFirstFrame();
    benchmark::DoNotOptimize(frame->pixels.data());
  }
}
BENCHMARK(BM_DicomDecodeJpegLossless)->Unit(benchmark::kMillisecond);

void BM_DicomDecodeAndEncodePng(benchmark::State& state) {
  size_t bytes = 0;
  for (auto _ : state) {
    auto file = imaging::DicomFile::Read(kFile);
    auto frame = file->RenderFirstFrame();
    auto png = imaging::EncodePng(*frame);
    bytes = png->size();
    benchmark::DoNotOptimize(png->data());
  }
  state.counters["png_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_DicomDecodeAndEncodePng)->Unit(benchmark::kMillisecond);

void BM_ImageStoreAddDicom(benchmark::State& state) {
  size_t url = 0;
  for (auto _ : state) {
    imaging::ImageStore store;
    auto image = store.AddFile(kFile);
    url = (*image)->data_url.size();
    benchmark::DoNotOptimize(url);
  }
  state.counters["data_url_bytes"] = static_cast<double>(url);
}
BENCHMARK(BM_ImageStoreAddDicom)->Unit(benchmark::kMillisecond);

// Four model turns of a CXR run: the question with the image, then three
// rounds of one tool call and its result.
void BM_CxrBytesPerTurn(benchmark::State& state) {
  const bool reuse = state.range(0) == 1;
  imaging::ImageStore store;
  auto image = store.AddFile(kFile);
  if (!image.ok()) {
    state.SkipWithError(image.status().ToString().c_str());
    return;
  }
  const ContentPart part{ContentPart::Kind::kImage, "img1", (*image)->data_url};
  std::vector<size_t> bytes;
  double encode_ms = 0;
  for (auto _ : state) {
    bytes.clear();
    encode_ms = 0;
    std::vector<Message> messages = {Message::System("You are MedRAX."), Message::User("Is the heart enlarged?")};
    messages.back().images.push_back(part);
    const char* tools[] = {"chest_xray_classifier", "xray_phrase_grounding", "image_visualizer"};
    for (int turn = 0; turn < 4; ++turn) {
      ModelRequest request;
      request.messages = messages;
      bytes.push_back(DumpJson(BuildChatCompletionsBody(request, "m")).size());
      if (turn == 3) break;
      messages.push_back(
          Message::Assistant("", {{"call_" + std::to_string(turn), tools[turn], R"({"image_id":"img1"})"}}));
      messages.push_back(
          Message::Tool("call_" + std::to_string(turn), tools[turn], R"({"image_id":"img1","ok":true})"));
      if (!reuse) {
        // The image handed back again as a new part, encoded again.
        const auto start = std::chrono::steady_clock::now();
        auto png = imaging::EncodePng((*image)->raster);
        Message again = Message::User("Image returned by " + std::string(tools[turn]));
        again.images.push_back({ContentPart::Kind::kImage, "", "data:image/png;base64," + imaging::Base64Encode(*png)});
        encode_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        messages.push_back(std::move(again));
      }
    }
  }
  for (size_t i = 0; i < bytes.size(); ++i)
    state.counters["bytes_turn_" + std::to_string(i + 1)] = static_cast<double>(bytes[i]);
  size_t total = 0;
  for (size_t b : bytes) total += b;
  state.counters["bytes_4_turns"] = static_cast<double>(total);
  state.counters["encode_ms_per_run"] = encode_ms;
}
BENCHMARK(BM_CxrBytesPerTurn)->Arg(1)->Arg(0)->ArgName("reuse")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace medreact
