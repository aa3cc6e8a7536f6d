// Tests for the RAG pack (issue 4, item 5): the SQLite index (persistence,
// incremental updates, deletions, ranking on the starter corpus, hostile
// queries), embeddings through a fake transport with reciprocal rank fusion,
// the extras hints file, and both tools through a ToolRegistry. The chunker,
// the query sanitiser and the starter corpus: rag_chunker_test.cc; the corpus
// boundary (links, FIFOs, sizes) and the index's location:
// rag_corpus_safety_test.cc.
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "medreact/http.h"
#include "medreact/tool_registry.h"
#include "testing/subprocess.h"
#include "tools/rag/chunker.h"
#include "tools/rag/embeddings.h"
#include "tools/rag/extras.h"
#include "tools/rag/rag_index.h"
#include "tools/rag/rag_pack.h"

namespace medreact {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempDir;

const std::string kCorpus = std::string(MEDREACT_SOURCE_DIR) + "/data/guidelines";

// Hermetic indexes: RagIndex keeps its database in $XDG_CACHE_HOME by default,
// so the whole test binary (and the commands it starts) gets a private cache
// folder instead of the user's. Tests that need another set it themselves.
class PrivateCacheHome : public ::testing::Environment {
 public:
  void SetUp() override {
    dir_ = std::make_unique<TempDir>();
    setenv("XDG_CACHE_HOME", dir_->path().c_str(), 1);
  }
  void TearDown() override { dir_.reset(); }

 private:
  std::unique_ptr<TempDir> dir_;
};
[[maybe_unused]] ::testing::Environment* const kPrivateCacheHome =
    ::testing::AddGlobalTestEnvironment(new PrivateCacheHome);

// TempDir::Write, creating the parent folders.
void Put(const TempDir& dir, const std::string& name, const std::string& content) {
  fs::create_directories(fs::path(dir.File(name)).parent_path());
  dir.Write(name, content);
}

// A copy of the starter corpus in a fresh folder, so no test writes an index
// into the source tree.
void CopyStarterCorpus(const TempDir& dir) {
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    if (entry.path().filename().string()[0] == '.') continue;
    fs::copy_file(entry.path(), fs::path(dir.path()) / entry.path().filename());
  }
}

RagIndex OpenOrDie(const std::string& dir, RagOptions options = {}) {
  Result<RagIndex> index = RagIndex::Open(dir, std::move(options));
  EXPECT_TRUE(index.ok()) << index.status().ToString();
  if (!index.ok()) std::abort();
  return std::move(*index);
}

// Moves a file's mtime forward so the index sees a change even on file
// systems with coarse timestamps.
void BumpMtime(const std::string& path) {
  fs::last_write_time(path, fs::last_write_time(path) + std::chrono::seconds(5));
}

// ---- The index ----------------------------------------------------------------

TEST(RagIndexTest, PersistsAndASecondOpenReindexesNothing) {
  TempDir dir;
  CopyStarterCorpus(dir);
  size_t chunks = 0;
  {
    RagIndex index = OpenOrDie(dir.path());
    RagUpdate first = index.last_update();
    EXPECT_EQ(first.files_scanned, 6u);
    EXPECT_EQ(first.files_added, 6u);
    EXPECT_EQ(first.files_removed, 0u);
    EXPECT_GT(first.chunks_added, 30u);
    EXPECT_TRUE(first.warnings.empty());
    EXPECT_EQ(index.db_path(), *DefaultRagDbPath(dir.path()));
    chunks = index.chunk_count();
    EXPECT_EQ(chunks, first.chunks_added);
    EXPECT_EQ(index.file_count(), 6u);
  }
  ASSERT_TRUE(fs::exists(*DefaultRagDbPath(dir.path())));
  RagIndex again = OpenOrDie(dir.path());
  RagUpdate second = again.last_update();
  EXPECT_EQ(second.files_unchanged, 6u);
  EXPECT_EQ(second.reindexed(), 0u);
  EXPECT_EQ(second.chunks_added, 0u);
  EXPECT_FALSE(second.changed());
  EXPECT_EQ(again.chunk_count(), chunks);
  Result<RagSearch> found = again.Search("GLIM phenotypic criteria", 3);
  ASSERT_TRUE(found.ok());
  ASSERT_FALSE(found->hits.empty());
}

TEST(RagIndexTest, ChangingOneFileReindexesOnlyIt) {
  TempDir dir;
  Put(dir, "a.md", "# Alpha\n\nalpha words about kidneys\n");
  Put(dir, "b.md", "# Beta\n\nbeta words about lungs\n");
  Put(dir, "c.txt", "gamma words about livers\n");
  RagIndex index = OpenOrDie(dir.path());
  EXPECT_EQ(index.chunk_count(), 3u);

  Put(dir, "b.md", "# Beta\n\nbeta words about lungs\n\n## Second\n\nnew zebra section\n");
  BumpMtime(dir.File("b.md"));
  Result<RagUpdate> update = index.Refresh();
  ASSERT_TRUE(update.ok()) << update.status().ToString();
  EXPECT_EQ(update->files_changed, 1u);
  EXPECT_EQ(update->files_unchanged, 2u);
  EXPECT_EQ(update->files_added, 0u);
  EXPECT_EQ(update->chunks_removed, 1u);
  EXPECT_EQ(update->chunks_added, 2u);
  EXPECT_EQ(index.chunk_count(), 4u);
  Result<RagSearch> found = index.Search("zebra");
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->hits.size(), 1u);
  EXPECT_EQ(found->hits[0].source, "b.md");
  EXPECT_EQ(found->hits[0].heading, "Beta > Second");
}

TEST(RagIndexTest, TouchingAFileRereadsButDoesNotRechunk) {
  TempDir dir;
  Put(dir, "a.md", "# Alpha\n\nalpha words\n");
  Put(dir, "b.md", "# Beta\n\nbeta words\n");
  { RagIndex index = OpenOrDie(dir.path()); }
  BumpMtime(dir.File("a.md"));
  RagIndex index = OpenOrDie(dir.path());
  RagUpdate update = index.last_update();
  EXPECT_EQ(update.files_touched, 1u);
  EXPECT_EQ(update.files_unchanged, 1u);
  EXPECT_EQ(update.reindexed(), 0u);
  EXPECT_EQ(update.chunks_added, 0u);
  // The new mtime was recorded: the next open does not even read the file.
  EXPECT_EQ(index.Refresh()->files_unchanged, 2u);
}

TEST(RagIndexTest, DeletingAFileRemovesItsChunks) {
  TempDir dir;
  Put(dir, "keep.md", "# Keep\n\nshared word kept\n");
  Put(dir, "sub/gone.md", "# Gone\n\nshared word removed\n\n## More\n\nshared again\n");
  RagIndex index = OpenOrDie(dir.path());
  EXPECT_EQ(index.chunk_count(), 3u);
  EXPECT_EQ(index.Search("shared", 10)->hits.size(), 3u);
  fs::remove(dir.File("sub/gone.md"));
  Result<RagUpdate> update = index.Refresh();
  ASSERT_TRUE(update.ok());
  EXPECT_EQ(update->files_removed, 1u);
  EXPECT_EQ(update->chunks_removed, 2u);
  EXPECT_EQ(index.chunk_count(), 1u);
  Result<RagSearch> found = index.Search("shared", 10);
  ASSERT_EQ(found->hits.size(), 1u);
  EXPECT_EQ(found->hits[0].source, "keep.md");
}

TEST(RagIndexTest, ScansRecursivelySkippingHiddenAndOtherFiles) {
  TempDir dir;
  Put(dir, "top.md", "# Top\n\nvisible\n");
  Put(dir, "nested/deeper/n.markdown", "# Nested\n\nvisible\n");
  Put(dir, "nested/plain.TXT", "visible plain\n");
  Put(dir, ".hidden.md", "# Hidden\n\nvisible\n");
  Put(dir, ".git/x.md", "# Hidden dir\n\nvisible\n");
  Put(dir, "data.json", "{\"visible\": true}");
  Put(dir, "NOTICE", "visible");
  RagIndex index = OpenOrDie(dir.path());
  EXPECT_EQ(index.last_update().files_scanned, 3u);
  std::set<std::string> sources;
  Result<RagSearch> found = index.Search("visible", 10);
  ASSERT_TRUE(found.ok());
  for (const RagHit& hit : found->hits) sources.insert(hit.source);
  EXPECT_EQ(sources, (std::set<std::string>{"top.md", "nested/deeper/n.markdown", "nested/plain.TXT"}));
}

TEST(RagIndexTest, IndexCanLiveOutsideTheCorpus) {
  TempDir corpus, elsewhere;
  Put(corpus, "a.md", "# A\n\nalpha\n");
  RagIndex index = OpenOrDie(corpus.path(), {.db_path = elsewhere.File("idx.sqlite")});
  EXPECT_TRUE(fs::exists(elsewhere.File("idx.sqlite")));
  EXPECT_FALSE(fs::exists(*DefaultRagDbPath(corpus.path())));
  EXPECT_EQ(std::distance(fs::directory_iterator(corpus.path()), fs::directory_iterator()), 1);
  EXPECT_EQ(index.Search("alpha")->hits.size(), 1u);
}

TEST(RagIndexTest, ChangedChunkerSettingsRebuildEverything) {
  TempDir dir;
  std::string text = "# Words\n\n";
  for (int i = 0; i < 60; ++i) text += "word" + std::to_string(i) + " ";
  Put(dir, "a.md", text);
  { EXPECT_EQ(OpenOrDie(dir.path()).chunk_count(), 1u); }
  RagIndex small = OpenOrDie(dir.path(), {.chunker = {.target_words = 20, .overlap_words = 5}});
  EXPECT_THAT(small.last_update().rebuild_reason, HasSubstr("chunker settings changed"));
  EXPECT_EQ(small.last_update().files_added, 1u);
  EXPECT_EQ(small.chunk_count(), 4u);
}

TEST(RagIndexTest, ErrorsNameTheProblem) {
  TempDir dir;
  Result<RagIndex> missing = RagIndex::Open(dir.File("nope"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("is not a folder"));

  Put(dir, "a.md", "# A\n\nalpha\n");
  const std::string db = *DefaultRagDbPath(dir.path());
  fs::create_directories(fs::path(db).parent_path());
  std::ofstream(db, std::ios::binary) << std::string(8192, 'x');
  Result<RagIndex> garbage = RagIndex::Open(dir.path());
  ASSERT_FALSE(garbage.ok());
  EXPECT_THAT(garbage.status().message(), HasSubstr("delete it to rebuild"));

  TempDir ok_dir;
  Put(ok_dir, "a.md", "# A\n\nalpha\n");
  RagIndex index = OpenOrDie(ok_dir.path());
  EXPECT_EQ(index.Search("alpha", 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index.Search("alpha", 101).status().code(), StatusCode::kInvalidArgument);
}

struct Expectation {
  std::string query;
  std::string source;
  std::string heading_part;
};

TEST(RagIndexTest, StarterCorpusRanksTheRelevantGuidelineFirst) {
  TempDir dir;
  CopyStarterCorpus(dir);
  RagIndex index = OpenOrDie(dir.path());
  const std::vector<Expectation> cases = {
      {"GLIM phenotypic criteria", "adult-malnutrition-glim.md", "Phenotypic criteria"},
      {"GLIM severity grading", "adult-malnutrition-glim.md", "Severity grading"},
      {"weight gain velocity deceleration z-score", "pediatric-malnutrition-aspen-and.md", "serial"},
      {"BMI-for-age z-score mild moderate severe", "pediatric-malnutrition-aspen-and.md", "single measurement"},
      {"MUAC severe acute malnutrition oedema", "who-growth-zscore-cutoffs.md", "acute malnutrition"},
      {"stunting wasting WHO under 5", "who-growth-zscore-cutoffs.md", "under 5"},
      {"thinness adolescents BMI-for-age", "who-growth-zscore-cutoffs.md", "5 to 19"},
      {"percentile equivalent z-score", "who-growth-zscore-cutoffs.md", "z-score"},
      {"handgrip strength subcutaneous fat loss", "adult-malnutrition-and-aspen-characteristics.md", ""},
      {"KDIGO GFR category G3a", "calculator-bands-renal-cardiac.md", "KDIGO"},
      {"CHA2DS2-VASc anticoagulation", "calculator-bands-renal-cardiac.md", "CHA2DS2-VASc"},
      {"Wells pulmonary embolism", "calculator-bands-renal-cardiac.md", "Wells"},
      {"QTc Bazett prolonged", "calculator-bands-renal-cardiac.md", "QT"},
      {"CURB-65 pneumonia", "calculator-bands-liver-pneumonia-bmi.md", "CURB-65"},
      {"Child-Pugh class ascites", "calculator-bands-liver-pneumonia-bmi.md", "Child-Pugh"},
      {"MELD sodium mortality", "calculator-bands-liver-pneumonia-bmi.md", "MELD"},
  };
  for (const Expectation& e : cases) {
    Result<RagSearch> found = index.Search(e.query, 5);
    ASSERT_TRUE(found.ok()) << e.query << ": " << found.status().ToString();
    ASSERT_FALSE(found->hits.empty()) << e.query;
    const RagHit& top = found->hits[0];
    EXPECT_EQ(top.source, e.source) << e.query << " -> " << top.source << " / " << top.heading;
    EXPECT_THAT(top.heading, HasSubstr(e.heading_part)) << e.query;
    EXPECT_EQ(found->mode, "bm25");
    for (size_t i = 0; i < found->hits.size(); ++i) {
      EXPECT_EQ(found->hits[i].rank, static_cast<int>(i + 1));
      EXPECT_GT(found->hits[i].score, 0);
      if (i > 0) {
        EXPECT_LE(found->hits[i].score, found->hits[i - 1].score);
      }
    }
  }
}

TEST(RagIndexTest, HostileQueriesNeverError) {
  TempDir dir;
  CopyStarterCorpus(dir);
  RagIndex index = OpenOrDie(dir.path());
  const std::vector<std::string> queries = {
      "\"",         "\"\"",         "NEAR(",         "NEAR(GLIM criteria, 2)", "a OR",      "OR",
      "AND",        "NOT",          "*",             "GLIM*",                  "-GLIM",     "(",
      ")",          "GLIM)",        "heading:GLIM",  "{heading text}:GLIM",    "^GLIM",     "",
      "   ",        "\t\n",         "'; DROP TABLE chunks; --", "\xff\xfe\x80", std::string("a\0b", 3),
      "≥ −2 ≤",     "GLIM\" OR \"", "\" OR rank MATCH \"x", std::string(5000, 'x'), "z-score -- --"};
  for (const std::string& q : queries) {
    Result<RagSearch> found = index.Search(q, 5);
    ASSERT_TRUE(found.ok()) << "query '" << q << "': " << found.status().ToString();
    if (found->match.empty()) {
      EXPECT_TRUE(found->hits.empty());
      EXPECT_THAT(found->warning, HasSubstr("no searchable words"));
    }
  }
  EXPECT_GT(index.chunk_count(), 0u);  // the table survived the "DROP TABLE"
  EXPECT_FALSE(index.Search("NEAR(GLIM criteria, 2)")->hits.empty());
}

TEST(RagIndexTest, ConcurrentSearchesAgree) {
  TempDir dir;
  CopyStarterCorpus(dir);
  auto index = std::make_shared<RagIndex>(OpenOrDie(dir.path()));
  const std::vector<std::string> queries = {"GLIM phenotypic", "CURB-65", "stunting", "MELD", "QTc"};
  std::vector<std::string> expected;
  for (const auto& q : queries) expected.push_back(index->Search(q, 3)->hits.at(0).source);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const size_t q = static_cast<size_t>(t + i) % queries.size();
        Result<RagSearch> found = index->Search(queries[q], 3);
        if (!found.ok() || found->hits.empty() || found->hits[0].source != expected[q]) ++mismatches;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// ---- Embeddings ---------------------------------------------------------------

// An OpenAI-compatible /embeddings endpoint in process: vectors come from a
// function of the text; the reply lists them in reverse order (the client must
// sort by index). Can be told to fail.
class FakeEmbeddingsTransport : public HttpTransport {
 public:
  explicit FakeEmbeddingsTransport(std::function<Embedding(const std::string&)> embed) : embed_(std::move(embed)) {}

  Result<HttpResponse> Send(const HttpRequest& request, const HttpChunkHandler&, const CancellationToken&) override {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(request);
    if (fail_status_ != 0) return HttpResponse{fail_status_, {}, "{\"error\": \"overloaded\"}"};
    Json body = Json::parse(request.body);
    Json data = Json::array();
    const Json& input = body.at("input");
    for (size_t i = input.size(); i-- > 0;) {
      data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", embed_(input[i].get<std::string>())}});
    }
    return HttpResponse{200, {}, Json{{"object", "list"}, {"data", data}, {"model", body.value("model", "")}}.dump()};
  }

  void set_fail_status(int status) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_status_ = status;
  }
  std::vector<HttpRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  size_t texts_embedded() const {
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = 0;
    for (const auto& r : requests_) n += Json::parse(r.body).at("input").size();
    return n;
  }

 private:
  std::function<Embedding(const std::string&)> embed_;
  mutable std::mutex mu_;
  std::vector<HttpRequest> requests_;
  int fail_status_ = 0;
};

// Chunks tagged "vecrankN" get a vector whose cosine with the query's is
// 1.0, 0.8, 0.6 for N = 1, 2, 3; "vecneg" is opposite; untagged is orthogonal.
Embedding TaggedVector(const std::string& text) {
  if (text == "kidney") return {1, 0};
  if (text.find("vecrank1") != std::string::npos) return {1, 0};
  if (text.find("vecrank2") != std::string::npos) return {0.8f, 0.6f};
  if (text.find("vecrank3") != std::string::npos) return {0.6f, 0.8f};
  if (text.find("vecneg") != std::string::npos) return {-1, 0};
  return {0, 1};
}

void WriteFusionCorpus(const TempDir& dir) {
  // BM25 for "kidney": x (3 mentions) > y (2) > w (1); z has none.
  // Cosine: y (1.0) > z (0.8) > x (0.6) > w (0) > pads (-1).
  Put(dir, "x.md", "# X\n\nkidney kidney kidney filler filler vecrank3\n");
  Put(dir, "y.md", "# Y\n\nkidney kidney filler filler filler vecrank1\n");
  Put(dir, "z.md", "# Z\n\nfiller filler filler filler filler vecrank2\n");
  Put(dir, "w.md", "# W\n\nkidney filler filler filler filler filler\n");
  for (int i = 0; i < 4; ++i) Put(dir, "pad" + std::to_string(i) + ".md", "# P\n\nfiller filler vecneg\n");
}

RagOptions EmbeddingOptions(std::shared_ptr<HttpTransport> transport, std::string model = "fake-embed-1") {
  return {.embeddings_url = "http://127.0.0.1:9/v1/",
          .embeddings_model = std::move(model),
          .api_key = "sk-test",
          .transport = std::move(transport),
          .embeddings_batch = 3};
}

TEST(EmbeddingsWireTest, BodyAndReplyMapping) {
  EXPECT_EQ(BuildEmbeddingsBody({"a", "b"}, "m"), Json::parse(R"({"model": "m", "input": ["a", "b"]})"));
  EXPECT_EQ(BuildEmbeddingsBody({"a"}, ""), Json::parse(R"({"input": ["a"]})"));
  Result<std::vector<Embedding>> parsed = ParseEmbeddingsReply(
      Json::parse(R"({"data": [{"index": 1, "embedding": [3, 4]}, {"index": 0, "embedding": [1.5, 2]}]})"), 2);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ((*parsed)[0], (Embedding{1.5f, 2}));
  EXPECT_EQ((*parsed)[1], (Embedding{3, 4}));
  auto error = [](const char* reply, size_t expected) {
    return ParseEmbeddingsReply(Json::parse(reply), expected).status().message();
  };
  EXPECT_THAT(error(R"({"data": []})", 1), HasSubstr("0 vectors for 1"));
  EXPECT_THAT(error(R"({"data": [{"index": 0, "embedding": [1]}, {"index": 1, "embedding": [1, 2]}]})", 2),
              HasSubstr("dimensions"));
  EXPECT_THAT(error(R"({"data": [{"index": 0, "embedding": "AAAA"}]})", 1), HasSubstr("base64"));
  EXPECT_THAT(error(R"({"data": [{"index": 0, "embedding": [1]}, {"index": 0, "embedding": [1]}]})", 2),
              HasSubstr("repeats index 0"));
  EXPECT_THAT(error(R"({"data": [{"index": 5, "embedding": [1]}]})", 1), HasSubstr("/data/0/index"));
  EXPECT_THAT(error(R"([])", 1), HasSubstr("not a JSON object"));
  Embedding v = {3, 4};
  NormalizeEmbedding(v);
  EXPECT_FLOAT_EQ(v[0], 0.6f);
  EXPECT_FLOAT_EQ(v[1], 0.8f);
}

TEST(RagEmbeddingsTest, StoresVectorsAtIndexTimeAndFusesRanks) {
  TempDir dir;
  WriteFusionCorpus(dir);
  auto transport = std::make_shared<FakeEmbeddingsTransport>(TaggedVector);
  {
    RagIndex index = OpenOrDie(dir.path(), EmbeddingOptions(transport));
    EXPECT_EQ(index.last_update().chunks_embedded, 8u);
    EXPECT_TRUE(index.hybrid());
    std::vector<HttpRequest> requests = transport->requests();
    ASSERT_EQ(requests.size(), 3u);  // 8 chunks in batches of 3
    EXPECT_EQ(requests[0].url, "http://127.0.0.1:9/v1/embeddings");
    EXPECT_THAT(requests[0].headers, ::testing::Contains(std::pair<std::string, std::string>(
                                         "Authorization", "Bearer sk-test")));
    Json body = Json::parse(requests[0].body);
    EXPECT_EQ(body["model"], "fake-embed-1");
    EXPECT_EQ(body["input"].size(), 3u);
    EXPECT_THAT(body["input"][0].get<std::string>(), HasSubstr("\n\n"));  // heading, blank line, text
  }
  // Reopening re-embeds nothing: the vectors are in the database.
  RagIndex index = OpenOrDie(dir.path(), EmbeddingOptions(transport));
  EXPECT_EQ(index.last_update().chunks_embedded, 0u);
  EXPECT_EQ(transport->requests().size(), 3u);

  Result<RagSearch> found = index.Search("kidney", 4);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->mode, "hybrid");
  EXPECT_EQ(found->warning, "");
  ASSERT_EQ(transport->requests().size(), 4u);  // the query's embedding
  EXPECT_EQ(transport->requests()[0].total_timeout, Millis(120'000));
  EXPECT_EQ(transport->requests()[3].total_timeout, Millis(10'000));
  EXPECT_EQ(Json::parse(transport->requests()[3].body)["input"], Json::parse(R"(["kidney"])"));
  std::vector<std::string> order;
  for (const RagHit& hit : found->hits) order.push_back(hit.source);
  // RRF, k = 60: y 1/62+1/61, x 1/61+1/63, w 1/63+1/64, z 1/62.
  EXPECT_THAT(order, ElementsAre("y.md", "x.md", "w.md", "z.md"));
  EXPECT_NEAR(found->hits[0].score, 1.0 / 62 + 1.0 / 61, 1e-9);
  EXPECT_NEAR(found->hits[1].score, 1.0 / 61 + 1.0 / 63, 1e-9);
  EXPECT_NEAR(found->hits[2].score, 1.0 / 63 + 1.0 / 64, 1e-9);
  EXPECT_NEAR(found->hits[3].score, 1.0 / 62, 1e-9);
  EXPECT_EQ(found->hits[0].bm25_rank, 2);
  EXPECT_EQ(found->hits[0].vector_rank, 1);
  EXPECT_EQ(found->hits[3].bm25_rank, 0);  // z: found by meaning only
  EXPECT_EQ(found->hits[3].vector_rank, 2);
  EXPECT_EQ(found->hits[3].heading, "Z");
  EXPECT_THAT(found->hits[3].text, HasSubstr("vecrank2"));

  // The same corpus without embeddings ranks by BM25 alone.
  TempDir plain;
  WriteFusionCorpus(plain);
  Result<RagSearch> bm25 = OpenOrDie(plain.path()).Search("kidney", 4);
  order.clear();
  for (const RagHit& hit : bm25->hits) order.push_back(hit.source);
  EXPECT_THAT(order, ElementsAre("x.md", "y.md", "w.md"));
}

TEST(RagEmbeddingsTest, IndexTimeFailureIsAnErrorAndWritesNothing) {
  TempDir dir;
  WriteFusionCorpus(dir);
  auto transport = std::make_shared<FakeEmbeddingsTransport>(TaggedVector);
  transport->set_fail_status(503);
  Result<RagIndex> failed = RagIndex::Open(dir.path(), EmbeddingOptions(transport));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(failed.status().message(), HasSubstr("http://127.0.0.1:9/v1/embeddings"));
  EXPECT_THAT(failed.status().message(), HasSubstr("HTTP 503"));
  EXPECT_THAT(failed.status().message(), HasSubstr("nothing was written"));
  // Rolled back: a later open starts from scratch.
  RagIndex plain = OpenOrDie(dir.path());
  EXPECT_EQ(plain.last_update().files_added, 8u);
}

TEST(RagEmbeddingsTest, QueryTimeFailureFallsBackToBm25WithAWarning) {
  TempDir dir;
  WriteFusionCorpus(dir);
  auto transport = std::make_shared<FakeEmbeddingsTransport>(TaggedVector);
  RagIndex index = OpenOrDie(dir.path(), EmbeddingOptions(transport));
  transport->set_fail_status(500);
  Result<RagSearch> found = index.Search("kidney", 4);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->mode, "bm25");
  EXPECT_THAT(found->warning, HasSubstr("embeddings unavailable, BM25 only"));
  ASSERT_EQ(found->hits.size(), 3u);
  EXPECT_EQ(found->hits[0].source, "x.md");
}

TEST(RagEmbeddingsTest, NewModelReembedsAndNewFilesGetVectors) {
  TempDir dir;
  WriteFusionCorpus(dir);
  auto transport = std::make_shared<FakeEmbeddingsTransport>(TaggedVector);
  { RagIndex index = OpenOrDie(dir.path(), EmbeddingOptions(transport)); }
  Put(dir, "new.md", "# New\n\nkidney vecrank1\n");
  {
    RagIndex index = OpenOrDie(dir.path(), EmbeddingOptions(transport));
    EXPECT_EQ(index.last_update().files_added, 1u);
    EXPECT_EQ(index.last_update().chunks_embedded, 1u);
  }
  RagIndex index = OpenOrDie(dir.path(), EmbeddingOptions(transport, "fake-embed-2"));
  EXPECT_EQ(index.last_update().chunks_embedded, 9u);
  EXPECT_EQ(index.last_update().reindexed(), 0u);
}

// ---- Extras -------------------------------------------------------------------

TEST(ExtrasTest, StarterHintsLoadAndMatchIgnoringCaseAndPunctuation) {
  Result<ExtrasFile> extras = ExtrasFile::Load(kCorpus + "/extras.json");
  ASSERT_TRUE(extras.ok()) << extras.status().ToString();
  EXPECT_GE(extras->hints().size(), 15u);
  EXPECT_LE(extras->hints().size(), 30u);
  for (const ExtraHint& hint : extras->hints()) EXPECT_FALSE(hint.source.empty()) << hint.hint;

  std::vector<ExtraMatch> found = extras->Lookup({"PERCENTILE", "Z score"});
  ASSERT_FALSE(found.empty());
  EXPECT_THAT(found[0].hint->hint, HasSubstr("−1.88"));
  EXPECT_THAT(found[0].matched, ElementsAre("PERCENTILE", "Z score"));

  found = extras->Lookup({"glim"});
  ASSERT_FALSE(found.empty());
  EXPECT_THAT(found[0].hint->hint, HasSubstr("phenotypic"));
  EXPECT_TRUE(extras->Lookup({"xylophone"}).empty());
}

TEST(ExtrasTest, RanksByMatchedKeywordsThenFileOrder) {
  Result<ExtrasFile> extras = ExtrasFile::FromJson(Json::parse(R"([
    {"keywords": ["alpha"], "hint": "one"},
    {"keywords": ["alpha", "beta"], "hint": "two"},
    {"keywords": ["pediatric malnutrition", "beta"], "hint": "three", "source": "S"},
    {"keywords": ["gamma"], "hint": "four"}
  ])"));
  ASSERT_TRUE(extras.ok()) << extras.status().ToString();
  std::vector<ExtraMatch> found = extras->Lookup({"Alpha", "BETA", "alpha"});
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].hint->hint, "two");
  EXPECT_EQ(found[1].hint->hint, "one");
  EXPECT_EQ(found[2].hint->hint, "three");
  // A word of a multi-word keyword matches; so does the phrase around it.
  EXPECT_EQ(extras->Lookup({"malnutrition"}).at(0).hint->hint, "three");
  EXPECT_EQ(extras->Lookup({"severe pediatric malnutrition"}).at(0).hint->hint, "three");
  EXPECT_EQ(extras->Lookup({"alpha"}, 1).size(), 1u);
}

TEST(ExtrasTest, BadFilesAreErrorsWithAPointer) {
  auto error = [](const char* text) {
    Result<ExtrasFile> r = ExtrasFile::FromJson(Json::parse(text), "hints.json");
    EXPECT_FALSE(r.ok()) << text;
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_THAT(error(R"({"keywords": []})"), HasSubstr("(root) is not an array"));
  EXPECT_THAT(error(R"([{"hint": "h"}])"), HasSubstr("/0/keywords"));
  EXPECT_THAT(error(R"([{"keywords": ["a", 3], "hint": "h"}])"), HasSubstr("/0/keywords/1"));
  EXPECT_THAT(error(R"([{"keywords": ["a"], "hint": "h"}, {"keywords": ["b"]}])"), HasSubstr("/1/hint"));
  EXPECT_THAT(error(R"([{"keywords": ["a"], "hint": "h", "source": 1}])"), HasSubstr("/0/source"));
  EXPECT_THAT(error(R"([{"keywords": ["--"], "hint": "h"}])"), HasSubstr("hints.json: /0/keywords/0"));
  EXPECT_EQ(ExtrasFile::Load("/nonexistent/extras.json").status().code(), StatusCode::kNotFound);
}

// ---- Tools --------------------------------------------------------------------

class RagPackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CopyStarterCorpus(dir_);
    index_ = std::make_shared<RagIndex>(OpenOrDie(dir_.path()));
    Result<ExtrasFile> extras = ExtrasFile::Load(kCorpus + "/extras.json");
    ASSERT_TRUE(extras.ok());
    extras_ = std::make_shared<const ExtrasFile>(std::move(*extras));
    ASSERT_TRUE(RegisterRagPack(registry_, index_, extras_).ok());
  }

  ToolResult Call(const std::string& name, const std::string& args) {
    return registry_.Execute(ToolCall{"call_1", name, args}, ToolContext{});
  }

  TempDir dir_;
  std::shared_ptr<RagIndex> index_;
  std::shared_ptr<const ExtrasFile> extras_;
  ToolRegistry registry_;
};

TEST_F(RagPackTest, QueryRagReturnsCitedPassages) {
  EXPECT_EQ(registry_.Names(), RagPackToolNames());
  ToolResult result = Call("query_rag", R"({"query": "GLIM phenotypic criteria", "purpose": "adult diagnosis"})");
  ASSERT_TRUE(result.ok) << result.error;
  Json body = Json::parse(result.content);
  EXPECT_EQ(body["query"], "GLIM phenotypic criteria");
  EXPECT_EQ(body["purpose"], "adult diagnosis");
  EXPECT_EQ(body["mode"], "bm25");
  ASSERT_EQ(body["results"].size(), 5u);
  const Json& top = body["results"][0];
  EXPECT_EQ(top["rank"], 1);
  EXPECT_EQ(top["source"], "adult-malnutrition-glim.md");
  EXPECT_THAT(top["heading"].get<std::string>(), HasSubstr("Phenotypic criteria"));
  EXPECT_GT(top["score"].get<double>(), 0);
  EXPECT_THAT(top["text"].get<std::string>(), HasSubstr("weight loss"));
  // Key order is the contract's: rank, source, heading, score, text.
  EXPECT_LT(result.content.find("\"rank\""), result.content.find("\"source\""));
  EXPECT_LT(result.content.find("\"heading\""), result.content.find("\"text\""));

  Json two = Json::parse(Call("query_rag", R"({"query": "MELD", "k": 2})").content);
  EXPECT_EQ(two["results"].size(), 2u);

  Json none = Json::parse(Call("query_rag", R"({"query": "xylophone quasar"})").content);
  EXPECT_TRUE(none["results"].empty());
  EXPECT_THAT(none["note"].get<std::string>(), HasSubstr("Try other keywords"));

  Json hostile = Json::parse(Call("query_rag", R"J({"query": "(\" * ^)"})J").content);
  EXPECT_TRUE(hostile["results"].empty());
  EXPECT_THAT(hostile["warning"].get<std::string>(), HasSubstr("no searchable words"));
}

TEST_F(RagPackTest, QueryExtrasReturnsRankedHints) {
  ToolResult result = Call("query_extras", R"({"keywords": ["malnutrition", "pediatric", "z-score"]})");
  ASSERT_TRUE(result.ok) << result.error;
  Json body = Json::parse(result.content);
  EXPECT_EQ(body["keywords"], Json::parse(R"(["malnutrition", "pediatric", "z-score"])"));
  ASSERT_FALSE(body["hints"].empty());
  EXPECT_LE(body["hints"].size(), 8u);
  EXPECT_EQ(body["hints"][0]["matched"].size(), 3u);
  EXPECT_FALSE(body["hints"][0]["source"].get<std::string>().empty());
  Json none = Json::parse(Call("query_extras", R"({"keywords": ["xylophone"]})").content);
  EXPECT_TRUE(none["hints"].empty());
  EXPECT_THAT(none["note"].get<std::string>(), HasSubstr("No hint"));
}

TEST_F(RagPackTest, ArgumentsAreValidated) {
  EXPECT_FALSE(Call("query_rag", R"({})").ok);
  EXPECT_FALSE(Call("query_rag", R"({"query": ""})").ok);
  EXPECT_FALSE(Call("query_rag", R"({"query": "GLIM", "k": 11})").ok);
  EXPECT_FALSE(Call("query_rag", R"({"query": "GLIM", "extra": 1})").ok);
  EXPECT_FALSE(Call("query_extras", R"({"keywords": []})").ok);
  EXPECT_FALSE(Call("query_extras", R"({"keywords": "GLIM"})").ok);
}

TEST(RagPackRegistrationTest, RegistersWhatIsGivenAllOrNothing) {
  TempDir dir;
  Put(dir, "a.md", "# A\n\nalpha\n");
  auto index = std::make_shared<RagIndex>(OpenOrDie(dir.path()));
  ToolRegistry only_rag;
  ASSERT_TRUE(RegisterRagPack(only_rag, index, nullptr).ok());
  EXPECT_THAT(only_rag.Names(), ElementsAre("query_rag"));

  ToolRegistry none;
  EXPECT_EQ(RegisterRagPack(none, nullptr, nullptr).code(), StatusCode::kInvalidArgument);

  auto extras = std::make_shared<const ExtrasFile>(
      *ExtrasFile::FromJson(Json::parse(R"([{"keywords": ["a"], "hint": "h"}])")));
  Status dup = RegisterRagPack(only_rag, index, extras);  // query_rag taken: nothing added
  EXPECT_THAT(dup.message(), HasSubstr("'query_rag' is already registered"));
  EXPECT_EQ(only_rag.size(), 1u);
}

}  // namespace
}  // namespace medreact
