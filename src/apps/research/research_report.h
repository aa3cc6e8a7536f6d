// The research report's references, its list of failed searches, and the
// fallback report.
//
// A report agent cites evidence as [n] (or [n, m], [n-m]), n being the
// number of the memory's bibliography (ResearchMemory::Bibliography: storage
// order, 1-based), the numbers get_bibliography shows it.
// CheckReportReferences refuses a report citing a number the bibliography
// does not have. The finished report is then numbered the Vancouver way
// (NumberInCitationOrder): references numbered consecutively in the order in
// which they are first cited in the text (ICMJE Recommendations, "References";
// NLM's Citing Medicine, 2nd ed.), every citation rewritten, and the
// References section rebuilt in that order (a References section the agent
// wrote is replaced: its numbers were the bibliography's). A report citing
// only bibliography entry 3 thus cites [1].
//
// Every search that failed is named in the report (WithFailedSearches): a
// "Searches that failed" section, before the References, one line per
// search with its round, source, query and error. Records found but not
// kept are named the same way (WithLeftOutRecords, "Records left out").
//
// FallbackReport is seed 003's _synthesize_fallback: when the report agent
// did not run or failed, the report is written from the memory alone (its
// context summary and bibliography) and says which break condition ended
// the research.
#ifndef MEDREACT_APPS_RESEARCH_RESEARCH_REPORT_H_
#define MEDREACT_APPS_RESEARCH_RESEARCH_REPORT_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "apps/research/research_types.h"

namespace medreact {

// The numbers cited in `markdown`, sorted, each once. "[3]", "[1, 4]",
// "[2-5]" count; markdown links "[text](url)" and "[n]" inside a line that
// starts the bibliography ("[n] citation") are not citations.
std::vector<int> CitedReferenceNumbers(std::string_view markdown);

// "" when every number cited in the markdown and in references_cited is in
// 1..evidence_count; else feedback naming the numbers and the range.
std::string CheckReportReferences(const ResearchReport& report, size_t evidence_count);

// bibliography text ("[n] citation. url" lines) → number → line.
std::map<int, std::string> BibliographyEntries(std::string_view bibliography);

// One search that returned an error instead of records.
struct FailedSearch {
  int round = 0;       // the manager round
  std::string tool;    // "search_pubmed", "search_clinical_trials", "search_preprints"
  std::string source;  // "PubMed", "ClinicalTrials.gov", "Europe PMC preprints"
  std::string query;
  std::string error;   // the tool's error text
};

inline constexpr char kFailedSearchesHeading[] = "Searches that failed";

// "## Searches that failed" and one line per search; "" when none failed.
std::string FailedSearchesSection(const std::vector<FailedSearch>& failed);

// `markdown` with that section (replacing one of the same heading it has),
// placed before the References heading, else at the end. With no failed
// search, only an old section is removed.
std::string WithFailedSearches(const std::string& markdown, const std::vector<FailedSearch>& failed);

// Records the research did not keep: beyond its cap per round, or left
// unexamined when its deadline passed during de-duplication (issue 23 item 4).
inline constexpr char kLeftOutHeading[] = "Records left out";

// `markdown` with a "## Records left out" section, one line per note, placed
// like the failed searches' (replacing one of the same heading); with no
// note, only an old section is removed.
std::string WithLeftOutRecords(const std::string& markdown, const std::vector<std::string>& notes);

struct VancouverReport {
  ResearchReport report;                 // citations and references_cited in the report's numbers
  // bibliography_numbers[k-1]: the bibliography number of reference [k].
  std::vector<int> bibliography_numbers;
  // Entries listed after the cited ones (list_uncited, or nothing cited),
  // numbered on from the cited ones, in bibliography order.
  std::vector<int> uncited_numbers;
};

// The report with its citations renumbered in order of first citation: the
// markdown's body first, then executive summary, methodology, findings,
// limitations and conclusion, then references_cited. Its References section
// is rebuilt from `bibliography` in that order; with `list_uncited` (the
// fallback report lists everything gathered) or when nothing is cited, the
// uncited entries follow, under "Gathered, not cited" when some are cited.
// A citation group naming a number the bibliography lacks is left as written
// (CheckReportReferences refuses such reports first).
VancouverReport NumberInCitationOrder(const ResearchReport& report, std::string_view bibliography,
                                      bool list_uncited = false);

struct FallbackInputs {
  std::string question;
  std::string reason;            // the break condition: "max_rounds", "timeout", ...
  std::string reason_text;       // one sentence for people
  std::string context_summary;   // ResearchMemory::GetContextSummary
  std::string bibliography;      // ResearchMemory::Bibliography
  const JudgeAssessment* judgement = nullptr;  // the last valid one, if any
  int rounds = 0;
};

// The report written from the memory when the report agent did not run or failed.
ResearchReport FallbackReport(const FallbackInputs& in);

}  // namespace medreact

#endif  // MEDREACT_APPS_RESEARCH_RESEARCH_REPORT_H_
