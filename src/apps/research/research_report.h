// The research report's references and the fallback report.
//
// A report cites evidence as [n] (or [n, m], [n-m]), n being the reference
// number of the memory's bibliography (ResearchMemory::Bibliography: storage
// order, 1-based). CheckReportReferences refuses a report citing a number the
// bibliography does not have; WithReferencesSection appends the cited
// entries when the report has no References heading of its own.
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

// `markdown`, with "## References" and the cited entries (all entries when
// none is cited) appended when it has no References heading.
std::string WithReferencesSection(const std::string& markdown, std::string_view bibliography);

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
