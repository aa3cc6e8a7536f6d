// RAG speed (issue 4, item 7): index build time and query latency (p50/p99)
// on a corpus of at least 50,000 chunks, generated in a temporary folder from
// the starter corpus (data/guidelines) by repetition with variation: every
// copy shifts some numbers, swaps some words for synonyms, mixes in words
// from elsewhere in the corpus and names its copy in the title, so the
// copies are not identical postings. 2,000 varied queries (the agent's style:
// 3-7 keywords) are timed one by one; percentiles are computed here and
// reported as counters. The hybrid pair repeats build and query with 256-d
// embeddings from an in-process feature-hashing endpoint (JSON round trip
// real, model not), to price brute-force cosine + fusion. About 1.5 minutes.
#include <benchmark/benchmark.h>

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench_paths.h"
#include "medreact/http.h"
#include "medreact/json.h"
#include "tools/rag/chunker.h"
#include "tools/rag/rag_index.h"

namespace medreact {
namespace {

namespace fs = std::filesystem;

constexpr size_t kTargetChunks = 50'000;
constexpr int kQueries = 2'000;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Words of the starter corpus worth searching for (letters only, 4+ chars).
std::vector<std::string> Vocabulary(const std::vector<std::string>& texts) {
  static const std::set<std::string> kSkip = {"with", "that", "this", "from", "than", "when", "have", "which",
                                              "there", "their", "they", "were", "what", "also", "into"};
  std::set<std::string> words;
  for (const std::string& text : texts) {
    std::string word;
    for (char c : text + " ") {
      if (std::isalpha(static_cast<unsigned char>(c))) {
        word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      } else {
        if (word.size() >= 4 && !kSkip.count(word)) words.insert(word);
        word.clear();
      }
    }
  }
  return {words.begin(), words.end()};
}

// One varied copy of a document.
std::string Vary(const std::string& text, int copy, const std::vector<std::string>& vocabulary, std::mt19937& rng) {
  static const std::map<std::string, std::string> kSynonyms = {
      {"patients", "individuals"}, {"children", "kids"},         {"severe", "serious"},
      {"weight", "mass"},          {"loss", "decline"},          {"reduced", "lowered"},
      {"criteria", "rules"},       {"score", "tally"},           {"risk", "hazard"},
      {"disease", "illness"},      {"measured", "assessed"},     {"below", "under"},
      {"above", "over"},           {"months", "mo"},             {"years", "yrs"},
      {"moderate", "intermediate"}, {"intake", "consumption"},   {"malnutrition", "undernutrition"}};
  std::uniform_real_distribution<double> coin(0, 1);
  std::uniform_int_distribution<size_t> pick(0, vocabulary.size() - 1);
  std::string out;
  out.reserve(text.size() + 256);
  size_t i = 0;
  bool titled = false;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {  // shift some numbers
      size_t j = i;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      long value = std::stol(text.substr(i, std::min<size_t>(j - i, 9)));
      if (coin(rng) < 0.4) value += static_cast<long>(copy % 5) + 1;
      out += std::to_string(value);
      i = j;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {  // swap some words
      size_t j = i;
      while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
      const std::string word = text.substr(i, j - i);
      auto syn = kSynonyms.find(word);
      out += (syn != kSynonyms.end() && coin(rng) < 0.3) ? syn->second : word;
      if (coin(rng) < 0.03) out += " " + vocabulary[pick(rng)];  // mix in a word from elsewhere
      i = j;
    } else if (c == '\n' && !titled) {  // name the copy in the title line
      out += " (copy " + std::to_string(copy) + ")\n";
      titled = true;
      ++i;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

struct BenchCorpus {
  fs::path dir;
  size_t files = 0;
  size_t bytes = 0;
  std::vector<std::string> vocabulary;
  std::vector<std::string> queries;

  // MEDREACT_RAG_BENCH_KEEP=1 keeps the folder (and its index) for inspection.
  ~BenchCorpus() {
    std::error_code ec;
    if (dir.empty()) return;
    if (std::getenv("MEDREACT_RAG_BENCH_KEEP")) {
      std::fprintf(stderr, "kept %s\n", dir.c_str());
      return;
    }
    fs::remove_all(dir, ec);
  }
};

std::vector<std::string> MakeQueries(const std::vector<std::string>& vocabulary) {
  static const std::vector<std::string> kBase = {
      "GLIM phenotypic criteria",           "GLIM etiologic criteria inflammation",
      "ASPEN pediatric malnutrition z-score", "weight gain velocity infants",
      "mid-upper arm circumference MUAC",   "BMI-for-age thinness adolescents",
      "WHO stunting wasting cut-off",       "severe acute malnutrition oedema",
      "percentile z-score conversion",      "handgrip strength characteristics",
      "KDIGO GFR category albuminuria",     "CKD-EPI creatinine equation",
      "CHA2DS2-VASc anticoagulation women", "HAS-BLED bleeding risk",
      "Wells score pulmonary embolism",     "QTc prolongation torsade",
      "Child-Pugh class ascites",           "MELD sodium transplant",
      "CURB-65 pneumonia admission",        "adult BMI obesity class",
      "weight loss percent six months",     "inadequate intake energy requirement",
      "chronic illness-related malnutrition", "length-for-age severe stunting"};
  std::mt19937 rng(20261122);
  std::uniform_int_distribution<size_t> base(0, kBase.size() - 1);
  std::uniform_int_distribution<size_t> word(0, vocabulary.size() - 1);
  std::uniform_int_distribution<int> extra(0, 3);
  std::uniform_int_distribution<int> bag(3, 7);
  std::vector<std::string> queries;
  for (int q = 0; q < kQueries; ++q) {
    std::string query;
    if (q % 2 == 0) {  // a typical query plus 0-3 random corpus words
      query = kBase[base(rng)];
      for (int e = extra(rng); e > 0; --e) query += " " + vocabulary[word(rng)];
    } else {  // a bag of 3-7 corpus words
      for (int n = bag(rng); n > 0; --n) query += (query.empty() ? "" : " ") + vocabulary[word(rng)];
    }
    queries.push_back(std::move(query));
  }
  return queries;
}

BenchCorpus& Corpus() {
  static BenchCorpus corpus = [] {
    BenchCorpus c;
    std::string tmpl = (fs::temp_directory_path() / "medreact-rag-bench-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) return c;
    c.dir = tmpl;
    std::vector<std::pair<std::string, std::string>> docs;  // name, text
    size_t chunks_per_copy = 0;
    for (const auto& entry : fs::directory_iterator(MEDREACT_SOURCE_DIR + "/data/guidelines")) {
      if (entry.path().extension() != ".md") continue;
      docs.emplace_back(entry.path().stem().string(), ReadFile(entry.path()));
      chunks_per_copy += ChunkDocument(docs.back().second, entry.path().filename().string()).size();
    }
    std::sort(docs.begin(), docs.end());
    std::vector<std::string> texts;
    for (const auto& d : docs) texts.push_back(d.second);
    c.vocabulary = Vocabulary(texts);
    const int copies = static_cast<int>((kTargetChunks + chunks_per_copy - 1) / chunks_per_copy) + 5;
    std::mt19937 rng(42);
    for (int copy = 0; copy < copies; ++copy) {
      const fs::path folder = c.dir / ("batch" + std::to_string(copy / 100));
      fs::create_directories(folder);
      for (const auto& [name, text] : docs) {
        const std::string varied = Vary(text, copy, c.vocabulary, rng);
        std::ofstream(folder / (name + "-" + std::to_string(copy) + ".md"), std::ios::binary) << varied;
        c.bytes += varied.size();
        ++c.files;
      }
    }
    c.queries = MakeQueries(c.vocabulary);
    return c;
  }();
  return corpus;
}

void SetCorpusCounters(benchmark::State& state, const RagIndex& index) {
  state.counters["chunks"] = static_cast<double>(index.chunk_count());
  state.counters["files"] = static_cast<double>(Corpus().files);
  state.counters["corpus_MB"] = static_cast<double>(Corpus().bytes) / 1e6;
}

// The BM25 index lives in the benchmark's temporary corpus folder (not in the
// user's cache), so each run starts cold and leaves nothing behind.
std::string BenchDbPath(const BenchCorpus& corpus) { return (corpus.dir / ".medreact-rag.sqlite").string(); }

void BM_RagIndexBuild(benchmark::State& state) {
  BenchCorpus& corpus = Corpus();
  if (corpus.dir.empty()) return state.SkipWithError("cannot create a temporary folder");
  for (auto _ : state) {
    state.PauseTiming();
    std::error_code ec;
    fs::remove(corpus.dir / ".medreact-rag.sqlite", ec);
    state.ResumeTiming();
    Result<RagIndex> index =
        RagIndex::Open(corpus.dir.string(), {.db_path = BenchDbPath(corpus)});
    if (!index.ok()) return state.SkipWithError(index.status().ToString().c_str());
    state.PauseTiming();
    if (index->chunk_count() < kTargetChunks) state.SkipWithError("fewer than 50,000 chunks");
    SetCorpusCounters(state, *index);
    state.counters["chunks_per_s"] =
        benchmark::Counter(static_cast<double>(index->chunk_count()), benchmark::Counter::kIsRate);
    state.ResumeTiming();
  }
}
BENCHMARK(BM_RagIndexBuild)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

// Re-opening an unchanged corpus: a stat of every file, no reading.
void BM_RagReopenUnchanged(benchmark::State& state) {
  BenchCorpus& corpus = Corpus();
  if (corpus.dir.empty()) return state.SkipWithError("cannot create a temporary folder");
  { (void)RagIndex::Open(corpus.dir.string(), {.db_path = BenchDbPath(corpus)}); }  // built if the build benchmark was filtered out
  for (auto _ : state) {
    Result<RagIndex> index = RagIndex::Open(corpus.dir.string(), {.db_path = BenchDbPath(corpus)});
    if (!index.ok()) return state.SkipWithError(index.status().ToString().c_str());
    if (index->last_update().reindexed() != 0) state.SkipWithError("an unchanged corpus was re-indexed");
  }
}
BENCHMARK(BM_RagReopenUnchanged)->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

// One query per iteration, over 2,000 varied queries; k = 5 as query_rag.
void BM_RagQuery(benchmark::State& state) {
  BenchCorpus& corpus = Corpus();
  if (corpus.dir.empty()) return state.SkipWithError("cannot create a temporary folder");
  Result<RagIndex> index = RagIndex::Open(corpus.dir.string(), {.db_path = BenchDbPath(corpus)});
  if (!index.ok()) return state.SkipWithError(index.status().ToString().c_str());
  std::vector<double> micros;
  micros.reserve(corpus.queries.size());
  size_t q = 0, hits = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    Result<RagSearch> found = index->Search(corpus.queries[q % corpus.queries.size()], 5);
    micros.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    if (!found.ok()) return state.SkipWithError(found.status().ToString().c_str());
    hits += found->hits.size();
    ++q;
  }
  std::sort(micros.begin(), micros.end());
  auto percentile = [&](double p) {
    return micros[std::min(micros.size() - 1, static_cast<size_t>(std::ceil(p * micros.size())) - 1)];
  };
  state.counters["p50_us"] = percentile(0.50);
  state.counters["p90_us"] = percentile(0.90);
  state.counters["p99_us"] = percentile(0.99);
  state.counters["max_us"] = micros.back();
  state.counters["hits_per_query"] = static_cast<double>(hits) / static_cast<double>(micros.size());
  SetCorpusCounters(state, *index);
}
BENCHMARK(BM_RagQuery)->Iterations(kQueries)->Unit(benchmark::kMicrosecond)->UseRealTime();

// ---- Hybrid: BM25 + cosine over stored embeddings, fused by RRF -------------

constexpr int kEmbeddingDim = 256;
constexpr int kHybridQueries = 500;

// An in-process /embeddings endpoint: feature hashing of the words into 256
// dimensions. The JSON round trip is real, the model is not.
class HashingEmbeddings : public HttpTransport {
 public:
  Result<HttpResponse> Send(const HttpRequest& request, const HttpChunkHandler&, const CancellationToken&) override {
    Json body = Json::parse(request.body);
    Json data = Json::array();
    size_t index = 0;
    for (const Json& input : body.at("input")) {
      std::vector<float> v(kEmbeddingDim, 0.0f);
      std::string word;
      for (char c : input.get<std::string>() + " ") {
        if (std::isalnum(static_cast<unsigned char>(c))) {
          word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        } else if (!word.empty()) {
          v[std::hash<std::string>()(word) % kEmbeddingDim] += 1.0f;
          word.clear();
        }
      }
      data.push_back({{"index", index++}, {"embedding", v}});
    }
    return HttpResponse{200, {}, Json{{"data", data}}.dump()};
  }
};

RagOptions HybridOptions() {
  return {.db_path = (Corpus().dir / ".medreact-rag-hybrid.sqlite").string(),
          .embeddings_url = "http://in-process/v1",
          .embeddings_model = "hashing-256",
          .transport = std::make_shared<HashingEmbeddings>(),
          .embeddings_batch = 256};
}

// Index build including the embedding of every chunk (JSON both ways).
void BM_RagIndexBuildHybrid(benchmark::State& state) {
  BenchCorpus& corpus = Corpus();
  if (corpus.dir.empty()) return state.SkipWithError("cannot create a temporary folder");
  for (auto _ : state) {
    state.PauseTiming();
    std::error_code ec;
    fs::remove(HybridOptions().db_path, ec);
    state.ResumeTiming();
    Result<RagIndex> index = RagIndex::Open(corpus.dir.string(), HybridOptions());
    if (!index.ok()) return state.SkipWithError(index.status().ToString().c_str());
    state.PauseTiming();
    if (!index->hybrid()) state.SkipWithError("no embeddings were stored");
    SetCorpusCounters(state, *index);
    state.counters["embedded"] = static_cast<double>(index->last_update().chunks_embedded);
    state.ResumeTiming();
  }
}
BENCHMARK(BM_RagIndexBuildHybrid)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

// Hybrid query: embedding the query (in process), BM25, brute-force cosine
// over all 50k vectors, fusion. The same varied queries as BM_RagQuery.
void BM_RagQueryHybrid(benchmark::State& state) {
  BenchCorpus& corpus = Corpus();
  if (corpus.dir.empty()) return state.SkipWithError("cannot create a temporary folder");
  Result<RagIndex> index = RagIndex::Open(corpus.dir.string(), HybridOptions());
  if (!index.ok()) return state.SkipWithError(index.status().ToString().c_str());
  std::vector<double> micros;
  size_t q = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    Result<RagSearch> found = index->Search(corpus.queries[q++ % corpus.queries.size()], 5);
    micros.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    if (!found.ok() || found->mode != "hybrid") return state.SkipWithError("the search did not run hybrid");
  }
  std::sort(micros.begin(), micros.end());
  auto percentile = [&](double p) {
    return micros[std::min(micros.size() - 1, static_cast<size_t>(std::ceil(p * micros.size())) - 1)];
  };
  state.counters["p50_us"] = percentile(0.50);
  state.counters["p99_us"] = percentile(0.99);
  SetCorpusCounters(state, *index);
}
BENCHMARK(BM_RagQueryHybrid)->Iterations(kHybridQueries)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace medreact
