// Tests for the RAG pack's text side (issue 4, item 5): the chunker (headings
// kept, never crossed), the FTS5 query sanitiser, and the starter corpus's
// own rules (every guideline cites its sources).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "tools/rag/chunker.h"
#include "tools/rag/fts_query.h"

namespace medreact {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kCorpus = std::string(MEDREACT_SOURCE_DIR) + "/data/guidelines";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t WordCount(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string w;
  size_t n = 0;
  while (in >> w) ++n;
  return n;
}

// ---- Chunker ----------------------------------------------------------------

TEST(ChunkerTest, KeepsHeadingPathsAndNeverCrossesHeadings) {
  const std::string doc =
      "Preamble words here.\n"
      "# Pediatric malnutrition\n"
      "Intro text.\n"
      "## Indicators\n"
      "Single point text.\n"
      "### Serial data\n"
      "Velocity text.\n"
      "## Applying ##\n"
      "Apply text.\n"
      "# Adult\n"
      "Adult text.\n";
  std::vector<Chunk> chunks = ChunkMarkdown(doc, "peds.md");
  ASSERT_EQ(chunks.size(), 6u);
  std::vector<std::string> headings;
  for (const Chunk& c : chunks) headings.push_back(c.heading);
  EXPECT_THAT(headings, ElementsAre("", "Pediatric malnutrition", "Pediatric malnutrition > Indicators",
                                    "Pediatric malnutrition > Indicators > Serial data",
                                    "Pediatric malnutrition > Applying", "Adult"));
  EXPECT_EQ(chunks[0].text, "Preamble words here.");
  EXPECT_EQ(chunks[3].text, "Velocity text.");
  for (size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_EQ(chunks[i].ordinal, static_cast<int>(i));
    EXPECT_EQ(chunks[i].source, "peds.md");
    EXPECT_EQ(doc.substr(chunks[i].begin, chunks[i].end - chunks[i].begin), chunks[i].text);
    EXPECT_THAT(chunks[i].text, Not(HasSubstr("#")));
  }
}

TEST(ChunkerTest, LongSectionBecomesEvenOverlappingWindowsUnderOneHeading) {
  std::string doc = "# Long\n\n";
  for (int i = 0; i < 500; ++i) doc += std::string("w").append(std::to_string(i)) + (i % 13 == 12 ? "\n" : " ");
  doc += "\n# Next\n\nshort tail\n";
  std::vector<Chunk> chunks = ChunkMarkdown(doc, "long.md", {.target_words = 200, .overlap_words = 40});
  ASSERT_EQ(chunks.size(), 4u);  // 3 windows for 500 words + 1
  int previous_last = -1;
  for (size_t i = 0; i < 3; ++i) {
    const Chunk& c = chunks[i];
    EXPECT_EQ(c.heading, "Long");
    EXPECT_LE(WordCount(c.text), 200u);
    EXPECT_GE(WordCount(c.text), 150u) << "no sliver chunks";
    std::istringstream in(c.text);
    std::string first, word, last;
    in >> first;
    last = first;
    while (in >> word) last = word;
    const int first_n = std::stoi(first.substr(1));
    const int last_n = std::stoi(last.substr(1));
    if (i == 0) {
      EXPECT_EQ(first_n, 0);
    } else {
      EXPECT_GE(previous_last - first_n + 1, 39) << "overlap with the previous window";
    }
    previous_last = last_n;
  }
  EXPECT_EQ(previous_last, 499);
  EXPECT_EQ(chunks[3].heading, "Next");
  EXPECT_EQ(chunks[3].text, "short tail");
}

TEST(ChunkerTest, HashInsideCodeFenceIsNotAHeading) {
  const std::string doc = "# Real\n\n```\n# not a heading\n```\n\nafter\n~~~~\n## neither\n~~~~\n";
  std::vector<Chunk> chunks = ChunkMarkdown(doc, "f.md");
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].heading, "Real");
  EXPECT_THAT(chunks[0].text, HasSubstr("# not a heading"));
  EXPECT_THAT(chunks[0].text, HasSubstr("## neither"));
}

TEST(ChunkerTest, SetextHeadingsAndHashtagsWithoutSpace) {
  const std::string doc = "Title\n=====\n\nbody one #hashtag\n\nSub part\n--------\nbody two\n\n- item\n---\n";
  std::vector<Chunk> chunks = ChunkMarkdown(doc, "s.md");
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].heading, "Title");
  EXPECT_EQ(chunks[0].text, "body one #hashtag");
  EXPECT_EQ(chunks[1].heading, "Title > Sub part");
  EXPECT_THAT(chunks[1].text, HasSubstr("- item"));  // a list item over --- is not a heading
}

TEST(ChunkerTest, PlainTextPacksParagraphs) {
  std::string big;
  for (int i = 0; i < 30; ++i) big += std::string("x").append(std::to_string(i)) + " ";
  const std::string doc = "one two three\nfour\n\nfive six\n\n\n" + big + "\n\nlast words";
  std::vector<Chunk> chunks = ChunkPlainText(doc, "notes.txt", {.target_words = 10, .overlap_words = 2});
  ASSERT_GE(chunks.size(), 5u);
  EXPECT_EQ(chunks[0].text, "one two three\nfour\n\nfive six");  // two paragraphs packed
  EXPECT_EQ(chunks.back().text, "last words");
  for (const Chunk& c : chunks) {
    EXPECT_EQ(c.heading, "");
    EXPECT_LE(WordCount(c.text), 10u);
    EXPECT_EQ(doc.substr(c.begin, c.end - c.begin), c.text);
  }
  // ChunkDocument picks by extension.
  EXPECT_EQ(ChunkDocument("# H\ntext", "a.MD").front().heading, "H");
  EXPECT_EQ(ChunkDocument("# H\ntext", "a.txt").front().heading, "");
}

TEST(ChunkerTest, EmptyAndHeadingOnlyDocumentsGiveNoChunks) {
  EXPECT_TRUE(ChunkMarkdown("", "e.md").empty());
  EXPECT_TRUE(ChunkMarkdown("# A\n## B\n\n   \n", "e.md").empty());
  EXPECT_TRUE(ChunkPlainText("\n\n  \n", "e.txt").empty());
}

TEST(ChunkerTest, StarterCorpusChunksNeverHoldAHeading) {
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    if (entry.path().extension() != ".md") continue;
    ++files;
    const std::string text = ReadFile(entry.path().string());
    std::vector<Chunk> chunks = ChunkDocument(text, entry.path().filename().string());
    EXPECT_GE(chunks.size(), 5u) << entry.path();
    for (const Chunk& c : chunks) {
      EXPECT_FALSE(c.heading.empty()) << entry.path() << " chunk " << c.ordinal;
      std::istringstream lines(c.text);
      for (std::string line; std::getline(lines, line);) {
        EXPECT_FALSE(line.rfind("#", 0) == 0) << entry.path() << ": " << line;
      }
    }
  }
  EXPECT_GE(files, 5u);
  EXPECT_LE(files, 7u);
}

TEST(StarterCorpusTest, EveryGuidelineCitesItsSources) {
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    if (entry.path().extension() != ".md") continue;
    const std::string text = ReadFile(entry.path().string());
    EXPECT_THAT(text, HasSubstr("\n## Sources\n")) << entry.path();
    EXPECT_THAT(text, HasSubstr("written for the medreact project")) << entry.path();
  }
  EXPECT_THAT(ReadFile(kCorpus + "/NOTICE"), HasSubstr("written for the medreact project"));
}

// ---- Query sanitising -------------------------------------------------------

TEST(FtsQueryTest, QuotesEveryTermAndJoinsWithOr) {
  EXPECT_EQ(BuildFtsQuery("GLIM phenotypic criteria"), R"("GLIM" OR "phenotypic" OR "criteria")");
  EXPECT_EQ(BuildFtsQuery("z-score CHA2DS2-VASc"), R"("z score" OR "CHA2DS2 VASc")");
  EXPECT_EQ(BuildFtsQuery("  BMI, bmi; (BMI)  "), R"("BMI")");
}

TEST(FtsQueryTest, OperatorsAndPunctuationBecomeText) {
  EXPECT_EQ(BuildFtsQuery("NEAR(kidney failure, 5)"), R"("NEAR kidney" OR "failure" OR "5")");
  EXPECT_EQ(BuildFtsQuery("heading:GLIM ^weight loss*"), R"("heading GLIM" OR "weight" OR "loss")");
  EXPECT_EQ(BuildFtsQuery("\"unterminated"), R"("unterminated")");
  EXPECT_EQ(BuildFtsQuery("a OR"), R"("a" OR "OR")");  // only stop words: kept, as text
  EXPECT_EQ(BuildFtsQuery("* \" ( ) : - ^"), "");
  EXPECT_EQ(BuildFtsQuery(""), "");
  EXPECT_EQ(BuildFtsQuery("what is the GLIM threshold"), R"("GLIM" OR "threshold")");
  EXPECT_EQ(BuildFtsQuery("poids pédiatrique"), "\"poids\" OR \"p\xC3\xA9" "diatrique\"");
}

TEST(FtsQueryTest, LongQueriesAreCapped) {
  std::string query;
  for (int i = 0; i < 100; ++i) query += "term" + std::to_string(i) + " ";
  const std::string match = BuildFtsQuery(query);
  size_t ors = 0;
  for (size_t pos = 0; (pos = match.find(" OR ", pos)) != std::string::npos; pos += 4) ++ors;
  EXPECT_EQ(ors, 31u);
}

}  // namespace
}  // namespace medreact
