// The research memory's identity de-duplication: identifiers in canonical
// form, the richer-record rule and the merge, and the memory keeping one record
// for the same PMID from PubMed and Europe PMC, for DOI spellings and for NCT
// numbers, while two trials with different NCT numbers stay two.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apps/research/evidence_identity.h"
#include "apps/research/research_memory.h"
#include "testing/research_helpers.h"

namespace medreact {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using testing::OpenOrDie;
using testing::Paper;
using testing::StoreOrDie;

// ---- Identifiers --------------------------------------------------------------

TEST(EvidenceIdentityTest, CanonicalIdentifiers) {
  EXPECT_EQ(CanonicalIdentifier("PMID:31000001"), "PMID:31000001");
  EXPECT_EQ(CanonicalIdentifier(" pmid: 031000001 "), "PMID:31000001");
  EXPECT_EQ(CanonicalIdentifier("MED:31000001"), "PMID:31000001");  // Europe PMC's source code
  EXPECT_EQ(CanonicalIdentifier("DOI:10.1056/NEJMoa2215817"), "DOI:10.1056/nejmoa2215817");
  EXPECT_EQ(CanonicalIdentifier("doi:10.1056/nejmoa2215817"), "DOI:10.1056/nejmoa2215817");
  EXPECT_EQ(CanonicalIdentifier("https://doi.org/10.1056/NEJMOA2215817"), "DOI:10.1056/nejmoa2215817");
  EXPECT_EQ(CanonicalIdentifier("10.1056/NEJMoa2215817"), "DOI:10.1056/nejmoa2215817");
  EXPECT_EQ(CanonicalIdentifier("DOI:doi:10.1/x:y"), "DOI:10.1/x:y");
  EXPECT_EQ(CanonicalIdentifier("NCT06604689"), "NCT:NCT06604689");
  EXPECT_EQ(CanonicalIdentifier("nct06604689"), "NCT:NCT06604689");
  EXPECT_EQ(CanonicalIdentifier("NCT:06604689"), "NCT:NCT06604689");
  EXPECT_EQ(CanonicalIdentifier("PMCID:pmc7000001"), "PMCID:PMC7000001");
  EXPECT_EQ(CanonicalIdentifier("PMC:7000001"), "PMCID:PMC7000001");
  EXPECT_EQ(CanonicalIdentifier("ppr:PPR123"), "PPR:PPR123");
  // Not identifiers: match nothing.
  EXPECT_EQ(CanonicalIdentifier(""), "");
  EXPECT_EQ(CanonicalIdentifier("31000001"), "");
  EXPECT_EQ(CanonicalIdentifier("PMID:abc"), "");
  EXPECT_EQ(CanonicalIdentifier("see the methods"), "");
  EXPECT_EQ(CanonicalIdentifier("DOI:not-a-doi"), "");
}

TEST(EvidenceIdentityTest, RicherRecordRuleAndMerge) {
  Evidence a = Paper("https://a", "PMID:1", "Title", "short");
  Evidence b = Paper("https://b", "PMID:1", "Title", "a longer abstract");
  EXPECT_GT(CompareRichness(b, a), 0);
  EXPECT_LT(CompareRichness(a, b), 0);
  // Equal abstracts: more authors, then a known year, then more fields.
  b.abstract = a.abstract;
  b.authors = {"Smith J"};
  EXPECT_GT(CompareRichness(b, a), 0);
  a.authors = {"Smith J"};
  a.year = 2021;
  EXPECT_GT(CompareRichness(a, b), 0);
  b.year = 2021;
  b.type = "review";
  EXPECT_GT(CompareRichness(b, a), 0);
  a.type = "review";
  EXPECT_EQ(CompareRichness(a, b), 0);

  Evidence stored = Paper("https://pubmed/1", "PMID:1", "Stored title", "short", EvidenceSource::kPubMed);
  stored.year = 2020;
  stored.other_ids = {"DOI:10.1/ABC"};
  Evidence incoming = Paper("https://epmc/1", "MED:1", "", "a much longer abstract", EvidenceSource::kEuropePmc);
  incoming.authors = {"Doe J", "Roe R"};
  incoming.other_ids = {"PMCID:PMC9", "doi:10.1/abc"};
  const Evidence merged = MergeDuplicates(stored, incoming);
  EXPECT_EQ(merged.url, "https://pubmed/1");                 // the stored key's URL stays
  EXPECT_EQ(merged.abstract, "a much longer abstract");       // the richer record's fields
  EXPECT_EQ(merged.source, EvidenceSource::kEuropePmc);
  EXPECT_THAT(merged.authors, ElementsAre("Doe J", "Roe R"));
  EXPECT_EQ(merged.title, "Stored title");                    // gaps filled from the other
  EXPECT_EQ(merged.year, 2020);
  EXPECT_EQ(merged.id, "MED:1");
  EXPECT_THAT(merged.other_ids, ElementsAre("PMCID:PMC9", "doi:10.1/abc"));  // PMID:1 = MED:1, DOI once
}

TEST(EvidenceIdentityTest, DistinctRecordIdsAreOnlyPmidsAndNctNumbers) {
  EXPECT_TRUE(HaveDistinctRecordIds({"PMID:1"}, {"PMID:2"}));
  EXPECT_TRUE(HaveDistinctRecordIds({"NCT:NCT00000001"}, {"NCT:NCT00000002", "PMID:3"}));
  EXPECT_FALSE(HaveDistinctRecordIds({"PMID:1", "DOI:10.1/a"}, {"PMID:1"}));
  EXPECT_FALSE(HaveDistinctRecordIds({"DOI:10.1101/a"}, {"DOI:10.1016/b"}));  // preprint and journal
  EXPECT_FALSE(HaveDistinctRecordIds({"PMID:1"}, {"DOI:10.1/a"}));
}

// ---- Identity de-duplication in the memory ----------------------------------------

TEST(ResearchMemoryIdentityTest, PmidFromPubMedAndEuropePmcIsOneRecordKeepingTheRicher) {
  ResearchMemory m = OpenOrDie();
  Evidence pubmed = Paper("https://pubmed.ncbi.nlm.nih.gov/31000001/", "PMID:31000001",
                          "Testosterone and libido in older men", "Short abstract.");
  pubmed.authors = {"Snyder PJ", "Bhasin S"};
  pubmed.year = 2016;
  pubmed.other_ids = {"DOI:10.1056/NEJMoa1506119"};
  Evidence europe = Paper("https://europepmc.org/article/MED/31000001", "PMID:31000001",
                          "Testosterone and libido in older men.",
                          "A longer abstract from Europe PMC with every section of the original.",
                          EvidenceSource::kEuropePmc);
  europe.authors = {"Snyder PJ", "Bhasin S", "Cunningham GR"};
  europe.other_ids = {"PMCID:PMC4809000"};

  StoreReport first = StoreOrDie(m, {pubmed});
  EXPECT_THAT(first.new_keys, ElementsAre("https://pubmed.ncbi.nlm.nih.gov/31000001/"));
  StoreReport second = StoreOrDie(m, {europe});
  EXPECT_THAT(second.new_keys, IsEmpty());
  ASSERT_EQ(second.duplicates.size(), 1u);
  EXPECT_EQ(second.duplicates[0].key, "https://pubmed.ncbi.nlm.nih.gov/31000001/");
  EXPECT_EQ(second.duplicates[0].incoming, "https://europepmc.org/article/MED/31000001");
  EXPECT_EQ(second.duplicates[0].reason, "shared identifier PMID:31000001");
  EXPECT_TRUE(second.duplicates[0].merged);

  ASSERT_EQ(m.evidence_count(), 1u);
  const Evidence kept = m.GetAllEvidence()[0];
  EXPECT_EQ(kept.url, "https://pubmed.ncbi.nlm.nih.gov/31000001/");
  EXPECT_EQ(kept.abstract, europe.abstract);
  EXPECT_EQ(kept.authors.size(), 3u);
  EXPECT_EQ(kept.year, 2016);  // filled from the PubMed record
  EXPECT_THAT(kept.other_ids, UnorderedElementsAre("PMCID:PMC4809000", "DOI:10.1056/NEJMoa1506119"));
  // Found by any of its identifiers, in any spelling.
  EXPECT_TRUE(m.FindEvidence("pmid:31000001").has_value());
  EXPECT_TRUE(m.FindEvidence("https://doi.org/10.1056/nejmoa1506119").has_value());
  EXPECT_TRUE(m.FindEvidence("PMC4809000").has_value());
  EXPECT_EQ(m.ReferenceNumber("https://europepmc.org/article/MED/31000001"), std::nullopt);  // not a key
  EXPECT_EQ(m.ReferenceNumber("PMID:31000001"), 1);
}

TEST(ResearchMemoryIdentityTest, DoiCaseAndSpellingDifferencesAreOneRecord) {
  ResearchMemory m = OpenOrDie();
  StoreReport r = StoreOrDie(m, {Paper("https://journal.example/a", "DOI:10.1056/NEJMoa2215817", "Trial report"),
                                 Paper("https://preprints.example/a", "doi:10.1056/nejmoa2215817", "Trial report"),
                                 Paper("https://cohort.example/b", "PPR:PPR9", "Unrelated cohort study", "",
                                       EvidenceSource::kEuropePmc)});
  // A record that names the DOI as a link is the same work too.
  EXPECT_EQ(r.new_keys.size(), 2u);
  Evidence linked = Paper("https://other.example/a", "PPR:PPR10", "Trial report");
  linked.other_ids = {"https://doi.org/10.1056/NEJMOA2215817"};
  StoreReport again = StoreOrDie(m, {linked});
  EXPECT_THAT(again.new_keys, IsEmpty());
  ASSERT_EQ(again.duplicates.size(), 1u);
  EXPECT_EQ(again.duplicates[0].key, "https://journal.example/a");
  EXPECT_EQ(again.duplicates[0].reason, "shared identifier DOI:10.1056/nejmoa2215817");
  EXPECT_EQ(m.evidence_count(), 2u);
}

TEST(ResearchMemoryIdentityTest, NctNumbersFromTheRegistryAndAPaperAreOneRecord) {
  ResearchMemory m = OpenOrDie();
  Evidence registry = Paper("https://clinicaltrials.gov/study/NCT06604689", "NCT06604689",
                            "Testosterone gel for low libido", "Brief summary of the trial.",
                            EvidenceSource::kClinicalTrials);
  Evidence paper = Paper("https://pubmed.ncbi.nlm.nih.gov/39000001/", "PMID:39000001",
                         "Results of a trial of testosterone gel for low libido",
                         "The published results, with a much longer abstract than the registry summary.");
  paper.other_ids = {"nct06604689"};
  StoreOrDie(m, {registry});
  StoreReport r = StoreOrDie(m, {paper});
  EXPECT_THAT(r.new_keys, IsEmpty());
  EXPECT_EQ(r.duplicates.at(0).reason, "shared identifier NCT:NCT06604689");
  const Evidence kept = *m.FindEvidence("NCT06604689");
  EXPECT_EQ(kept.url, "https://clinicaltrials.gov/study/NCT06604689");
  EXPECT_EQ(kept.title, paper.title);  // the paper is richer
  EXPECT_EQ(kept.id, "PMID:39000001");
  EXPECT_THAT(kept.other_ids, ElementsAre("nct06604689"));
}

TEST(ResearchMemoryIdentityTest, DistinctTrialsWithTheSameBoilerplateAreBothKept) {
  // Identical text, different NCT numbers: two trials, whatever the cosine.
  ResearchMemory m = OpenOrDie();
  const std::string title = "A Study of Testosterone Gel in Men With Hypogonadism";
  StoreReport r = StoreOrDie(m, {Paper("https://clinicaltrials.gov/study/NCT00000001", "NCT00000001", title, "",
                                       EvidenceSource::kClinicalTrials),
                                 Paper("https://clinicaltrials.gov/study/NCT00000002", "NCT00000002", title, "",
                                       EvidenceSource::kClinicalTrials)});
  EXPECT_EQ(r.new_keys.size(), 2u);
  EXPECT_THAT(r.duplicates, IsEmpty());
}

TEST(ResearchMemoryIdentityTest, SameUrlInOneCallAndRecordsWithoutKeys) {
  std::vector<std::string> warnings;
  ResearchMemory m = OpenOrDie("", {.on_warning = [&](const std::string& w) { warnings.push_back(w); }});
  Evidence keyless = Paper("", "", "A record with no URL or id");
  StoreReport r = StoreOrDie(m, {Paper("https://a.example/1", "", "First"), Paper("https://a.example/1", "", "First"),
                                 keyless, Paper("", "PMID:77", "Keyed by its id")});
  EXPECT_THAT(r.new_keys, ElementsAre("https://a.example/1", "PMID:77"));
  ASSERT_EQ(r.duplicates.size(), 1u);
  EXPECT_EQ(r.duplicates[0].reason, "same URL");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_THAT(r.warnings[0], HasSubstr("has neither a URL nor an id"));
  EXPECT_EQ(warnings, r.warnings);
}

}  // namespace
}  // namespace medreact
