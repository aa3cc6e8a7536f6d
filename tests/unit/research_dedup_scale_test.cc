// The research memory's de-duplication at the sizes a server can send
// (issue 23 item 4): among thousands of kept records, past the size where a
// new record is compared with every kept one (near_duplicates.h), true
// duplicates are still merged or dropped and distinct records kept; a store
// past its deadline stops, stores what it examined and names the rest; the
// research's cap per round leaves the excess out and names it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "apps/research/evidence_identity.h"
#include "apps/research/near_duplicates.h"
#include "apps/research/research_memory.h"
#include "apps/research/research_report.h"
#include "apps/research/research_search_tools.h"
#include "testing/research_helpers.h"

namespace medreact {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::OpenOrDie;
using testing::Paper;
using testing::StoreOrDie;

// n records of made-up words (a 3,000-word vocabulary, few words shared by
// chance), each with a DOI and a preprint id: no PMID, so the meaning pass
// compares them all.
std::vector<Evidence> DistinctRecords(size_t n, uint32_t seed = 7, const std::string& prefix = "base") {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(0, 2999);
  auto text = [&](int words) {
    std::string s;
    for (int i = 0; i < words; ++i) s += (i ? " " : "") + std::string("term") + std::to_string(pick(rng)) + "x";
    return s;
  };
  std::vector<Evidence> out;
  for (size_t i = 0; i < n; ++i) {
    const std::string doi = "10.1101/" + prefix + "." + std::to_string(i);
    Evidence e = Paper("https://doi.org/" + doi, "PPR:PPR" + prefix + std::to_string(i), text(10), text(40),
                       EvidenceSource::kEuropePmc);
    e.other_ids = {"DOI:" + doi};
    out.push_back(std::move(e));
  }
  return out;
}

TEST(ResearchDedupScaleTest, TrueDuplicatesAreFoundAmongThousandsAndDistinctRecordsKept) {
  ResearchMemory m = OpenOrDie();
  const std::vector<Evidence> base = DistinctRecords(2'000);
  ASSERT_GT(base.size(), NearDuplicateCandidates::kMaxComparisons * 10);  // the candidate filter decides
  StoreReport first = StoreOrDie(m, base);
  ASSERT_EQ(m.evidence_count(), 2'000u) << "distinct generated records were taken for duplicates";
  EXPECT_THAT(first.duplicates, IsEmpty());

  // A PubMed record among them, then its duplicates from every direction.
  Evidence pubmed = Paper("https://pubmed.ncbi.nlm.nih.gov/31000001/", "PMID:31000001",
                          "Pembrolizumab versus Ipilimumab in Advanced Melanoma", "A randomised phase 3 trial.");
  pubmed.other_ids = {"DOI:10.1056/nejmoa1503093"};
  StoreOrDie(m, {pubmed});

  std::vector<Evidence> incoming;
  // 1. The same DOI, spelled in upper case, from Europe PMC under another URL.
  Evidence same_doi = Paper("https://europepmc.org/article/PPR/PPR777", "PPR:PPR777", "Another title altogether",
                            "", EvidenceSource::kEuropePmc);
  same_doi.other_ids = {"DOI:10.1056/NEJMOA1503093"};
  incoming.push_back(same_doi);
  // 2. The same PMID from Europe PMC (its MED source code), no DOI.
  incoming.push_back(Paper("https://europepmc.org/article/MED/31000001", "MED:31000001", "Pembro vs ipi", "",
                           EvidenceSource::kEuropePmc));
  // 3. The same title in other case and punctuation, no shared identifier, no abstract.
  incoming.push_back(Paper("https://example.org/melanoma", "", "PEMBROLIZUMAB VERSUS IPILIMUMAB, IN ADVANCED MELANOMA!",
                           "", EvidenceSource::kOther));
  // 4. A stored record's text with one word added, under another DOI and a
  // title one word longer (a near-duplicate: the meaning pass finds it).
  Evidence near = base[1234];
  near.title += " revised";
  near.url = "https://doi.org/10.1101/copy.1234";
  near.id = "PPR:PPRCOPY1234";
  near.other_ids = {"DOI:10.1101/copy.1234"};
  near.abstract += " additionally";
  incoming.push_back(near);
  // 5. A stored record's words under another URL with no identifier, the
  // title's first two words swapped (the same bag of words).
  Evidence copy = base[42];
  const size_t space = copy.title.find(' '), second = copy.title.find(' ', space + 1);
  copy.title = copy.title.substr(space + 1, second - space - 1) + " " + copy.title.substr(0, space) +
               copy.title.substr(second);
  copy.url = "https://mirror.example/42";
  copy.id.clear();
  copy.other_ids.clear();
  incoming.push_back(copy);
  // Distinct: the same title as the PubMed record but another PMID (two works)...
  incoming.push_back(Paper("https://pubmed.ncbi.nlm.nih.gov/31000002/", "PMID:31000002",
                           "Pembrolizumab versus ipilimumab in advanced melanoma", "Five-year follow-up."));
  // ...two short titles that name no one work, with different DOIs...
  Evidence erratum1 = Paper("https://doi.org/10.1/err1", "DOI:10.1/err1", "Erratum",
                            "Corrects the dose of carboplatin given in the second table.");
  Evidence erratum2 = Paper("https://doi.org/10.1/err2", "DOI:10.1/err2", "Erratum.",
                            "Corrects the affiliations of three authors listed on the first page.");
  incoming.push_back(erratum1);
  incoming.push_back(erratum2);
  // ...and a new paper.
  incoming.push_back(DistinctRecords(1, 99).front());
  incoming.back().url = "https://doi.org/10.1101/new.1";
  incoming.back().id = "PPR:PPRNEW1";
  incoming.back().other_ids = {"DOI:10.1101/new.1"};

  StoreReport r = StoreOrDie(m, incoming);
  std::vector<std::string> reasons;
  for (const DuplicateEvidence& d : r.duplicates) reasons.push_back(d.incoming + " -> " + d.key + ": " + d.reason);
  EXPECT_THAT(reasons, Contains("https://europepmc.org/article/PPR/PPR777 -> https://pubmed.ncbi.nlm.nih.gov/"
                                "31000001/: shared identifier DOI:10.1056/nejmoa1503093"));
  EXPECT_THAT(reasons, Contains("https://europepmc.org/article/MED/31000001 -> https://pubmed.ncbi.nlm.nih.gov/"
                                "31000001/: shared identifier PMID:31000001"));
  EXPECT_THAT(reasons, Contains("https://example.org/melanoma -> https://pubmed.ncbi.nlm.nih.gov/31000001/: "
                                "same title"));
  EXPECT_THAT(reasons, Contains(HasSubstr("https://doi.org/10.1101/copy.1234 -> https://doi.org/10.1101/base.1234: "
                                          "cosine 0.9")));
  EXPECT_THAT(reasons, Contains("https://mirror.example/42 -> https://doi.org/10.1101/base.42: cosine 1.00 (lexical)"));
  EXPECT_EQ(r.duplicates.size(), 5u);
  EXPECT_THAT(r.new_keys, ::testing::ElementsAre("https://pubmed.ncbi.nlm.nih.gov/31000002/",
                                                 "https://doi.org/10.1/err1", "https://doi.org/10.1/err2",
                                                 "https://doi.org/10.1101/new.1"));
  EXPECT_EQ(m.evidence_count(), 2'000u + 1 + 4);
  EXPECT_TRUE(r.stopped.empty());
  EXPECT_EQ(r.not_examined, 0u);
  // The merged record is found by every identifier it was given.
  std::optional<Evidence> merged = m.FindEvidence("PPR:PPR777");
  ASSERT_TRUE(merged.has_value());
  EXPECT_EQ(merged->url, pubmed.url);
}

TEST(ResearchDedupScaleTest, TitleIdentityNeedsFourWordsAndNoDistinctRecordIds) {
  EXPECT_EQ(TitleKey("Pembrolizumab versus Ipilimumab in Advanced Melanoma."),
            TitleKey("pembrolizumab VERSUS ipilimumab — in advanced melanoma"));
  EXPECT_EQ(TitleKey("Erratum"), "");
  EXPECT_EQ(TitleKey("Reply to the editor"), "");  // "to", "the" are function words: two words left
  ResearchMemory m = OpenOrDie();
  StoreOrDie(m, {Paper("https://ct/1", "NCT01234567", "A Study of Drug X in Heart Failure Patients")});
  StoreReport r = StoreOrDie(m, {Paper("https://ct/2", "NCT07654321", "A study of drug X in heart failure patients")});
  EXPECT_EQ(r.new_keys.size(), 1u) << "two registered trials of one title are two trials";
}

TEST(ResearchDedupScaleTest, AStorePastItsDeadlineStoresNothingItDidNotExamineAndSaysSo) {
  ResearchMemory m = OpenOrDie();
  StoreOrDie(m, {Paper("https://kept/1", "PMID:1", "Already here")});
  const std::vector<Evidence> flood = DistinctRecords(32'000);
  Result<StoreReport> r = m.Store(flood, {}, Deadline::At(SteadyClock::now() - std::chrono::seconds(1)));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->stopped, "deadline");
  EXPECT_EQ(r->not_examined, 32'000u);
  EXPECT_THAT(r->new_keys, IsEmpty());
  EXPECT_THAT(r->warnings, Contains("the deadline passed while de-duplicating: 32000 of 32000 incoming record(s) "
                                    "were not examined and not stored"));
  EXPECT_EQ(m.evidence_count(), 1u);

  CancellationToken cancel;
  cancel.Cancel();
  Result<StoreReport> c = m.Store(DistinctRecords(10), cancel);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->stopped, "cancelled");
  EXPECT_THAT(c->warnings, Contains(HasSubstr("the research was cancelled while de-duplicating: 10 of 10")));
}

TEST(ResearchDedupScaleTest, ADeadlineThatPassesDuringTheCallKeepsEveryRecordAccountedFor) {
  // Whether the deadline passes before or during the call, every incoming
  // record is new, a duplicate or not examined, and the report says which.
  ResearchMemory m = OpenOrDie();
  std::vector<Evidence> flood = DistinctRecords(32'000);
  for (size_t i = 10; i < flood.size(); i += 10) flood[i].other_ids = flood[i - 1].other_ids;  // identity duplicates
  const size_t incoming = flood.size();
  Result<StoreReport> r = m.Store(std::move(flood), {}, Deadline::In(std::chrono::milliseconds(1)));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->stopped, "deadline");
  EXPECT_GT(r->not_examined, 0u);
  EXPECT_EQ(r->new_keys.size() + r->duplicates.size() + r->not_examined, incoming);
  EXPECT_EQ(m.evidence_count(), r->new_keys.size());
  EXPECT_THAT(r->warnings, Contains(HasSubstr("the deadline passed while de-duplicating: " +
                                              std::to_string(r->not_examined) + " of 32000")));
}

TEST(ResearchDedupScaleTest, ARoundKeepsAtMostItsCapAndNamesTheRest) {
  ResearchMemory m = OpenOrDie();
  ResearchEvidenceSink sink;
  sink.memory = &m;
  sink.max_records = 50;
  sink.Hold("search_pubmed {\"query\":\"a\"}", DistinctRecords(40, 1, "a"));
  sink.Hold("search_preprints {\"query\":\"b\"}", DistinctRecords(40, 2, "b"));
  sink.Flush({"search_pubmed {\"query\":\"a\"}", "search_preprints {\"query\":\"b\"}"});
  EXPECT_LE(m.evidence_count(), 50u);
  EXPECT_THAT(sink.left_out, ::testing::ElementsAre("a search turn found 80 records; 30 beyond the 50 a round "
                                                    "keeps (max_records_per_round) were left out"));
  EXPECT_THAT(sink.warnings, Contains(sink.left_out.front()));

  // In the report: its own section, before the references.
  const std::string md = WithLeftOutRecords("# Report\n\nText [1].\n\n## References\n\n[1] A.\n", sink.left_out);
  EXPECT_THAT(md, HasSubstr("## Records left out\n\nThe research kept less than the sources returned; this report "
                            "does not rest on what follows.\n\n- a search turn found 80 records; 30 beyond"));
  EXPECT_LT(md.find("## Records left out"), md.find("## References"));
  EXPECT_EQ(WithLeftOutRecords(md, {}).find("Records left out"), std::string::npos);
}

}  // namespace
}  // namespace medreact
