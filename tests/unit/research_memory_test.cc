// ResearchMemory (src/apps/research): hypotheses and conflicts, the context
// summary and the bibliography, concurrent stores, hostile text, persistence
// across reopening, failed writes, and files that are not research memories.
// Identity de-duplication: research_identity_test.cc; semantic
// de-duplication, embeddings and the lexical fallback: research_similarity_test.cc.
#include "apps/research/research_memory.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apps/research/evidence_identity.h"
#include "apps/research/text_similarity.h"
#include "testing/research_helpers.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::kQuestion;
using testing::OpenOrDie;
using testing::Paper;
using testing::StoreOrDie;
using testing::TempDir;
using testing::EvidenceTuple;

// ---- Hypotheses and conflicts ------------------------------------------------------------

TEST(ResearchMemoryHypothesisTest, ConfirmedMeansConfidenceAboveZeroPointEight) {
  ResearchMemory m = OpenOrDie();
  StoreOrDie(m, {Paper("https://pubmed/1", "PMID:1", "Androgen receptor and dopamine")});
  auto h = [](double confidence) {
    return Hypothesis{.drug = "testosterone", .target = "androgen receptor", .pathway = "dopamine release",
                      .effect = "libido", .confidence = confidence, .statement = "T raises libido via AR"};
  };
  ASSERT_TRUE(m.AddHypothesis(h(0.8)).ok());  // exactly 0.8 is not confirmed (seed: > 0.8)
  ASSERT_TRUE(m.AddHypothesis(h(0.81)).ok());
  ASSERT_TRUE(m.AddHypothesis(h(0.3)).ok());
  Hypothesis cited = h(1.0);
  cited.evidence = {"pmid:1"};
  ASSERT_TRUE(m.AddHypothesis(cited).ok());
  EXPECT_EQ(m.GetHypotheses().size(), 4u);
  std::vector<Hypothesis> confirmed = m.GetConfirmedHypotheses();
  ASSERT_EQ(confirmed.size(), 2u);
  EXPECT_DOUBLE_EQ(confirmed[0].confidence, 0.81);
  EXPECT_THAT(confirmed[1].evidence, ElementsAre("https://pubmed/1"));  // resolved to the key

  Status bad = m.AddHypothesis(h(1.2));
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("between 0 and 1"));
  EXPECT_FALSE(m.AddHypothesis(h(std::nan(""))).ok());
  EXPECT_FALSE(m.AddHypothesis(Hypothesis{.confidence = 0.5}).ok());
  Hypothesis unknown = h(0.5);
  unknown.evidence = {"PMID:999"};
  Status s = m.AddHypothesis(unknown);
  EXPECT_THAT(s.message(), HasSubstr("cites evidence 'PMID:999', which is not in the memory"));
  EXPECT_EQ(m.GetHypotheses().size(), 4u);

  ResearchMemory strict = OpenOrDie("", {.confirmed_threshold = 0.9});
  ASSERT_TRUE(strict.AddHypothesis(h(0.85)).ok());
  EXPECT_THAT(strict.GetConfirmedHypotheses(), IsEmpty());
}

TEST(ResearchMemoryHypothesisTest, ConflictsNameStoredEvidence) {
  ResearchMemory m = OpenOrDie();
  StoreOrDie(m, {Paper("https://x/1", "PMID:1", "Benefit"), Paper("https://x/2", "PMID:2", "No benefit")});
  ASSERT_TRUE(
      m.AddConflict({.description = "Trials disagree on erectile function", .evidence = {"PMID:1", "https://x/2"}})
          .ok());
  EXPECT_THAT(m.GetConflicts().at(0).evidence, ElementsAre("https://x/1", "https://x/2"));
  EXPECT_EQ(m.AddConflict({.description = " "}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(m.AddConflict({.description = "x", .evidence = {"PMID:3"}}).code(), StatusCode::kInvalidArgument);
}

// ---- Summaries ----------------------------------------------------------------------------

TEST(ResearchMemorySummaryTest, ContextSummaryAndBibliographyShareTheNumbering) {
  ResearchMemory m = OpenOrDie();
  Evidence a = Paper("https://pubmed/1", "PMID:1", "Testosterone and libido in older men", "Libido improved.");
  a.authors = {"Snyder PJ", "Bhasin S", "Cunningham GR", "Matsumoto AM"};
  a.year = 2016;
  Evidence b = Paper("https://ct/NCT1", "NCT00000001", "Testosterone gel trial", "A registered trial.",
                     EvidenceSource::kClinicalTrials);
  b.citation = "Testosterone gel trial. ClinicalTrials.gov NCT00000001.";
  Evidence c = Paper("https://epmc/3", "PMID:3", "Estradiol and desire", "Estradiol matters too.",
                     EvidenceSource::kEuropePmc);
  c.peer_reviewed = false;
  StoreOrDie(m, {a, b, c});
  ASSERT_TRUE(m.AddHypothesis({.drug = "testosterone", .target = "AR", .effect = "libido", .confidence = 0.9,
                               .statement = "Testosterone raises libido.", .evidence = {"PMID:1"}})
                  .ok());
  ASSERT_TRUE(m.AddConflict({.description = "Estradiol or testosterone?", .evidence = {"PMID:3", "PMID:1"}}).ok());
  ASSERT_TRUE(m.IncrementIteration().ok());

  EXPECT_EQ(m.Bibliography(),
            "[1] Snyder PJ, Bhasin S, Cunningham GR, et al. Testosterone and libido in older men. 2016. PMID:1. "
            "https://pubmed/1\n"
            "[2] Testosterone gel trial. ClinicalTrials.gov NCT00000001. https://ct/NCT1\n"
            "[3] Estradiol and desire. PMID:3. https://epmc/3\n");
  const std::string summary = m.GetContextSummary();
  EXPECT_THAT(summary, HasSubstr("**Question:** " + std::string(kQuestion)));
  EXPECT_THAT(summary, HasSubstr("**Iteration:** 1"));
  EXPECT_THAT(summary, HasSubstr("**Evidence:** 3 records (clinicaltrials 1, europepmc 1, pubmed 1)"));
  EXPECT_THAT(summary,
              HasSubstr("1. [1] Testosterone and libido in older men (PMID:1; 2016; pubmed) — Libido improved."));
  EXPECT_THAT(summary, HasSubstr("[3] Estradiol and desire (PMID:3; europepmc; not peer-reviewed)"));
  EXPECT_THAT(summary, HasSubstr("- **confirmed** testosterone → AR → libido (confidence 0.90): Testosterone raises "
                                 "libido. [1]"));
  EXPECT_THAT(summary, HasSubstr("- Estradiol or testosterone? [3][1] — open"));

  ResearchMemory empty = OpenOrDie();
  EXPECT_EQ(empty.Bibliography(), "");
  EXPECT_THAT(empty.GetContextSummary(), HasSubstr("**Evidence:** 0 records\n"));
}

// ---- Threads ------------------------------------------------------------------------------

// Stores from several threads (the search agent's concurrent tool calls) and
// reads beside them: every record is stored once, numbered once.
TEST(ResearchMemoryThreadTest, ConcurrentStoresAndReads) {
  ResearchMemory m = OpenOrDie();
  constexpr int kThreads = 4;
  constexpr int kEach = 10;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done) {
      (void)m.GetAllEvidence();
      (void)m.Bibliography();
      (void)m.evidence_count();
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&m, t] {
      for (int i = 0; i < kEach; ++i) {
        const std::string n = std::to_string(t * 100 + i);
        Result<std::vector<std::string>> keys =
            m.StoreEvidence({Paper("https://x/" + n, "PMID:" + n, "Record " + n, "Words w" + n + " v" + n)});
        EXPECT_TRUE(keys.ok());
      }
    });
  }
  for (std::thread& w : writers) w.join();
  done = true;
  reader.join();
  ASSERT_EQ(m.evidence_count(), static_cast<size_t>(kThreads * kEach));
  std::set<int> numbers;
  for (const std::string& key : m.EvidenceKeys()) numbers.insert(*m.ReferenceNumber(key));
  EXPECT_EQ(numbers.size(), static_cast<size_t>(kThreads * kEach));
  EXPECT_EQ(*numbers.rbegin(), kThreads * kEach);
}

// ---- Hostile text ---------------------------------------------------------------------------

// Text from literature servers is outside input: random bytes (NULs, invalid
// UTF-8, colons, digits) through the identifier and token readers, and records
// built from them through a store, a ranking, the summaries and a reopening.
TEST(ResearchMemoryHostileTest, RandomBytesNeverBreakTheMemory) {
  std::mt19937 rng(20241126);
  const std::string alphabet = std::string("PMIDOCNTpmidoc:/.0123456789 \t\n-") + '\0' + "\xc3\xa9\xff\x80";
  auto random_text = [&](size_t max_len) {
    std::string s(rng() % (max_len + 1), ' ');
    for (char& c : s) c = rng() % 4 == 0 ? static_cast<char>(rng() % 256) : alphabet[rng() % alphabet.size()];
    return s;
  };
  for (int i = 0; i < 2000; ++i) {
    const std::string text = random_text(40);
    const std::string id = CanonicalIdentifier(text);
    if (!id.empty()) {
      EXPECT_EQ(CanonicalIdentifier(id), id) << "canonical form is a fixed point";
    }
    for (const std::string& w : WordTokens(text)) EXPECT_FALSE(w.empty());
  }
  TempDir dir;
  const std::string path = dir.File("hostile.sqlite");
  std::vector<Evidence> items;
  {
    ResearchMemory m = OpenOrDie(path);
    for (int i = 0; i < 60; ++i) {
      Evidence e = Paper("https://h/" + std::to_string(i), random_text(20), random_text(80), random_text(400));
      e.other_ids = {random_text(20), random_text(20)};
      e.authors = {"Author " + std::to_string(i)};
      e.year = static_cast<int>(rng() % 3000);
      items.push_back(e);
    }
    ASSERT_TRUE(m.Store(items).ok());
    m.RankEvidence(random_text(50), 5);
    EXPECT_FALSE(m.GetContextSummary().empty());
    EXPECT_FALSE(m.Bibliography().empty());
  }
  ResearchMemory reopened = OpenOrDie(path, {}, "");
  EXPECT_GT(reopened.evidence_count(), 0u);
  EXPECT_LE(reopened.evidence_count(), items.size());
  // Text columns keep every byte, NULs and invalid UTF-8 included (a merged
  // record may hold another item's title: the richer one's).
  std::set<std::string> titles;
  for (const Evidence& e : items) titles.insert(e.title);
  for (const Evidence& e : reopened.GetAllEvidence()) EXPECT_TRUE(titles.count(e.title)) << Preview(e.title);
}

// ---- Persistence --------------------------------------------------------------------------

TEST(ResearchMemoryPersistenceTest, ReopeningRestoresEverything) {
  TempDir dir;
  const std::string path = dir.File("memory.sqlite");
  Evidence a = Paper("https://pubmed/1", "PMID:1", "First", "Abstract one.");
  a.authors = {"A B", "C D"};
  a.year = 2020;
  a.type = "randomized-controlled-trial";
  a.citation = "A B, C D. First. 2020.";
  a.other_ids = {"DOI:10.1/one"};
  Evidence b = Paper("https://ct/2", "NCT00000002", "Second", "", EvidenceSource::kClinicalTrials);
  b.peer_reviewed = false;
  std::string bibliography;
  {
    ResearchMemory m = OpenOrDie(path);
    EXPECT_EQ(m.path(), path);
    StoreOrDie(m, {a, b});
    ASSERT_TRUE(m.AddHypothesis({.drug = "d", .target = "t", .pathway = "p", .effect = "e", .confidence = 0.85,
                                 .statement = "s", .evidence = {"PMID:1"}})
                    .ok());
    ASSERT_TRUE(m.AddConflict({.description = "c", .evidence = {"NCT00000002"}, .resolution = "r"}).ok());
    ASSERT_TRUE(m.IncrementIteration().ok());
    ASSERT_TRUE(m.IncrementIteration().ok());
    bibliography = m.Bibliography();
  }
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  ResearchMemory m = OpenOrDie(path, {}, "");  // "" resumes the stored question
  EXPECT_EQ(m.query(), kQuestion);
  EXPECT_EQ(m.iteration_count(), 2);
  EXPECT_THAT(m.EvidenceKeys(), ElementsAre("https://pubmed/1", "https://ct/2"));
  const std::vector<Evidence> all = m.GetAllEvidence();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(EvidenceTuple(all[0]), EvidenceTuple(a));
  EXPECT_EQ(EvidenceTuple(all[1]), EvidenceTuple(b));
  ASSERT_EQ(m.GetHypotheses().size(), 1u);
  EXPECT_EQ(m.GetHypotheses()[0].pathway, "p");
  EXPECT_DOUBLE_EQ(m.GetHypotheses()[0].confidence, 0.85);
  EXPECT_THAT(m.GetHypotheses()[0].evidence, ElementsAre("https://pubmed/1"));
  EXPECT_EQ(m.GetConfirmedHypotheses().size(), 1u);
  ASSERT_EQ(m.GetConflicts().size(), 1u);
  EXPECT_EQ(m.GetConflicts()[0].resolution, "r");
  EXPECT_EQ(m.Bibliography(), bibliography);
  // Identity de-duplication goes on across the reopening, and so does the numbering.
  StoreReport r = StoreOrDie(m, {Paper("https://epmc/1", "MED:1", "First", "A longer abstract than before."),
                                 Paper("https://pubmed/3", "PMID:3", "Third")});
  EXPECT_THAT(r.new_keys, ElementsAre("https://pubmed/3"));
  EXPECT_EQ(m.ReferenceNumber("PMID:3"), 3);
  ASSERT_TRUE(m.IncrementIteration().ok());

  // Another question is refused: one memory per question.
  Result<ResearchMemory> other = ResearchMemory::Open(path, "Another question", {});
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(other.status().message(), HasSubstr("holds another question"));
}

TEST(ResearchMemoryPersistenceTest, FilesThatAreNotResearchMemoriesAreRefusedClearly) {
  TempDir dir;
  dir.Write("notes.txt", "This is a text file, not a database. It is long enough to have a header.\n");
  Result<ResearchMemory> text = ResearchMemory::Open(dir.File("notes.txt"), kQuestion, {});
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(text.status().message(), HasSubstr("research memory '" + dir.File("notes.txt") +
                                                 "' is not a SQLite database"));

  // A SQLite database of something else.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir.File("other.sqlite").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE chunks(id INTEGER)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  Result<ResearchMemory> foreign = ResearchMemory::Open(dir.File("other.sqlite"), kQuestion, {});
  ASSERT_FALSE(foreign.ok());
  EXPECT_THAT(foreign.status().message(), HasSubstr("is a SQLite database but not a medreact research memory"));

  Result<ResearchMemory> folder = ResearchMemory::Open(dir.path(), kQuestion, {});
  EXPECT_EQ(folder.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(folder.status().message(), HasSubstr("is a folder"));

  Result<ResearchMemory> no_question = ResearchMemory::Open(dir.File("new.sqlite"), "  ", {});
  EXPECT_EQ(no_question.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(no_question.status().message(), HasSubstr("needs its research question"));

  Result<ResearchMemory> nowhere = ResearchMemory::Open(dir.File("missing/folder/m.sqlite"), kQuestion, {});
  EXPECT_EQ(nowhere.status().code(), StatusCode::kUnavailable);
}

TEST(ResearchMemoryPersistenceTest, AFailedWriteStoresNothingOfTheCall) {
  TempDir dir;
  const std::string path = dir.File("memory.sqlite");
  ResearchMemory m = OpenOrDie(path);
  StoreOrDie(m, {Paper("https://pubmed/1", "PMID:1", "Stored", "Short.")});
  // Another connection makes the next insert of a 'poison' record fail.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TRIGGER poison BEFORE INSERT ON evidence WHEN NEW.title = 'poison' "
                         "BEGIN SELECT RAISE(ABORT, 'injected failure'); END",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);

  Result<StoreReport> r = m.Store({Paper("https://epmc/1", "MED:1", "Stored", "A much longer abstract than before."),
                                   Paper("https://x/2", "PMID:2", "Fine"), Paper("https://x/3", "PMID:3", "poison")});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("nothing of this call was stored"));
  EXPECT_THAT(r.status().message(), HasSubstr("injected failure"));
  EXPECT_EQ(m.evidence_count(), 1u);
  EXPECT_EQ(m.GetAllEvidence()[0].abstract, "Short.");  // the merge was not applied either
  ResearchMemory reopened = OpenOrDie(path, {}, "");
  EXPECT_EQ(reopened.evidence_count(), 1u);
  EXPECT_EQ(reopened.GetAllEvidence()[0].abstract, "Short.");
}

TEST(ResearchMemoryPersistenceTest, ANewerSchemaIsRefused) {
  TempDir dir;
  const std::string path = dir.File("memory.sqlite");
  { OpenOrDie(path); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE meta SET value = '7' WHERE key = 'schema_version'", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  Result<ResearchMemory> m = ResearchMemory::Open(path, "", {});
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("was written by a newer medreact (schema version 7; this one reads 1)"));
}

}  // namespace
}  // namespace medreact
