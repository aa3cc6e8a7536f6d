// The research report's references numbered the Vancouver way (in order of
// first citation, ICMJE / Citing Medicine) and its list of failed searches
// (research_report.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apps/research/research_report.h"

namespace medreact {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kBibliography[] =
    "[1] Alpha A. First paper. J One. 2020. https://a.example\n"
    "[2] Beta B. Second paper. J Two. 2021. https://b.example\n"
    "[3] Gamma C. Third paper. J Three. 2022. https://c.example\n"
    "[4] Delta D. Fourth paper. J Four. 2023. https://d.example\n";

TEST(ResearchReportTest, ReferencesAreNumberedInOrderOfFirstCitation) {
  ResearchReport r{.findings = {"A finding [4]."},
                   .references_cited = {3, 1, 4},
                   .markdown = "# Report\n\nFirst [3]. Then [1, 3] and [4].\n\n## References\n\n[1] stale list\n"};
  VancouverReport v = NumberInCitationOrder(r, kBibliography);
  EXPECT_THAT(v.bibliography_numbers, ElementsAre(3, 1, 4));
  EXPECT_THAT(v.report.markdown, HasSubstr("First [1]. Then [1, 2] and [3]."));
  EXPECT_THAT(v.report.markdown,
              HasSubstr("## References\n\n[1] Gamma C. Third paper. J Three. 2022. https://c.example\n\n"
                        "[2] Alpha A. First paper. J One. 2020. https://a.example\n\n"
                        "[3] Delta D. Fourth paper. J Four. 2023. https://d.example\n"));
  EXPECT_THAT(v.report.markdown, Not(HasSubstr("stale list")));  // the agent's own list had the memory's numbers
  EXPECT_THAT(v.report.markdown, Not(HasSubstr("Second paper")));  // never cited, not listed
  EXPECT_THAT(v.report.findings, ElementsAre("A finding [3]."));
  EXPECT_THAT(v.report.references_cited, ElementsAre(1, 2, 3));
  // The renumbered report passes the bibliography check with its own numbers.
  EXPECT_EQ(CheckReportReferences(v.report, 3), "");
}

TEST(ResearchReportTest, AReportCitingOnlyOneReferenceNumbersItOne) {
  ResearchReport r{.references_cited = {3}, .markdown = "Only one source [3] speaks to this."};
  VancouverReport v = NumberInCitationOrder(r, kBibliography);
  EXPECT_THAT(v.report.markdown, HasSubstr("Only one source [1] speaks to this."));
  EXPECT_THAT(v.report.markdown, HasSubstr("## References\n\n[1] Gamma C. Third paper."));
  EXPECT_THAT(v.report.markdown, Not(HasSubstr("[3]")));
  EXPECT_THAT(v.report.references_cited, ElementsAre(1));
  EXPECT_THAT(v.bibliography_numbers, ElementsAre(3));
}

TEST(ResearchReportTest, RangesLinksAndUnknownNumbersWhenRenumbering) {
  ResearchReport r{.markdown = "See [4]. Also [2-4]; a [link](http://x), [5](http://y) and [9]."};
  VancouverReport v = NumberInCitationOrder(r, kBibliography);
  // 4 → 1, then 2 → 2 and 3 → 3: the group is written as a range again.
  EXPECT_THAT(v.report.markdown, HasSubstr("See [1]. Also [1-3]; a [link](http://x), [5](http://y) and [9]."));
  EXPECT_THAT(v.bibliography_numbers, ElementsAre(4, 2, 3));
}

TEST(ResearchReportTest, AFallbackListsWhatItDidNotCiteAfterWhatItCited) {
  ResearchReport r{.markdown = "# Fallback\n\n1. [2] Second paper\n\n## References\n\n" + std::string(kBibliography)};
  VancouverReport v = NumberInCitationOrder(r, kBibliography, /*list_uncited=*/true);
  EXPECT_THAT(v.report.markdown, HasSubstr("1. [1] Second paper"));
  EXPECT_THAT(v.report.markdown, HasSubstr("## References\n\n[1] Beta B. Second paper."));
  EXPECT_THAT(v.report.markdown, HasSubstr("### Gathered, not cited\n\n[2] Alpha A. First paper."));
  EXPECT_THAT(v.uncited_numbers, ElementsAre(1, 3, 4));
  EXPECT_THAT(v.report.references_cited, ElementsAre(1));
}

TEST(ResearchReportTest, EveryFailedSearchIsNamedBeforeTheReferences) {
  const std::vector<FailedSearch> failed = {
      {.round = 1, .tool = "search_pubmed", .source = "PubMed", .query = "keytruda", .error = "PubMed error: 503"},
      {.round = 3, .tool = "search_preprints", .source = "Europe PMC preprints", .query = "keytruda mechanism",
       .error = "not in the literature cache (offline; use --online)"}};
  const std::string md = WithFailedSearches("# R\n\nText [1].\n\n## References\n\n[1] A.\n", failed);
  EXPECT_THAT(md, HasSubstr("## Searches that failed\n\n2 searches returned an error"));
  EXPECT_THAT(md, HasSubstr("- Round 1, PubMed (search_pubmed), query \"keytruda\": PubMed error: 503\n"));
  EXPECT_THAT(md, HasSubstr("- Round 3, Europe PMC preprints (search_preprints), query \"keytruda mechanism\": "
                            "not in the literature cache"));
  EXPECT_LT(md.find("## Searches that failed"), md.find("## References"));
  // Applied again (a report that already has the section): one section, the current list.
  const std::string again = WithFailedSearches(md, {failed[0]});
  EXPECT_EQ(again.find("## Searches that failed"), again.rfind("## Searches that failed"));
  EXPECT_THAT(again, Not(HasSubstr("keytruda mechanism")));
  // None failed: no section; a report without References gets it at the end.
  EXPECT_THAT(WithFailedSearches("# R\n\nText.\n", {}), Not(HasSubstr("Searches that failed")));
  EXPECT_THAT(WithFailedSearches("# R\n\nText.\n", failed), HasSubstr("Text.\n\n## Searches that failed"));
}

}  // namespace
}  // namespace medreact
