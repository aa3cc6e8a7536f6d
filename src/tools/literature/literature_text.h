// Text helpers shared by the literature clients: whitespace, markup, short
// previews, publication types and one-line citations. Pure functions,
// thread-safe.
#ifndef MEDREACT_TOOLS_LITERATURE_LITERATURE_TEXT_H_
#define MEDREACT_TOOLS_LITERATURE_LITERATURE_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace medreact {

// Runs of spaces, tabs and line breaks become one space; ends trimmed.
std::string CollapseWhitespace(std::string_view text);

// Text with HTML/JATS tags removed (Europe PMC abstracts carry <h4>, <p>,
// <i>, <sup>): block tags (p, h1-h6, br, div, li, title, sec) become a space,
// inline tags nothing; the five XML entities and numeric references to ASCII
// are decoded; whitespace collapsed. A '<' that opens no tag is kept.
std::string StripMarkup(std::string_view text);

// At most `max_bytes` of `text`, cut at a word boundary when one lies in the
// last fifth and never inside a UTF-8 sequence, "…" appended when cut.
std::string ShortenText(std::string_view text, size_t max_bytes);

// The first four-digit year (1000-2999) in `text`, or 0: "2017", "2001 Jun",
// "1998 Dec-1999 Jan" (a MedlineDate) → 1998, "2024-09-30" → 2024.
int FirstYear(std::string_view text);

// "Randomized Controlled Trial" → "randomized-controlled-trial": lower case,
// every run of other characters one '-'.
std::string TypeSlug(std::string_view publication_type);

// The Evidence type for a record's publication types (PubMed
// PublicationType, Europe PMC pubType): the most specific design present, by
// this order: preprint, meta-analysis, systematic-review, practice-guideline
// / guideline, randomized-controlled-trial, clinical-trial (any phase),
// observational-study, review, case-reports, editorial, letter, comment; else
// "journal-article". Matching ignores case and punctuation ("review-article"
// is a review). NLM's publication types: https://www.nlm.nih.gov/mesh/pubtypes.html
std::string EvidenceTypeFromPublicationTypes(const std::vector<std::string>& publication_types);

// True when a publication type names a preprint ("Preprint", "preprint").
bool IsPreprintType(std::string_view publication_type);

// One reference line in the Vancouver manner the NLM uses
// (https://www.ncbi.nlm.nih.gov/books/NBK7256/): up to three authors then
// "et al.", title (a full stop added when missing), venue, year, the id and,
// when given, "doi:<doi>" and a note ("Preprint, not peer reviewed").
// Missing parts are left out.
std::string FormatCitation(const std::vector<std::string>& authors, std::string_view title, std::string_view venue,
                           int year, std::string_view id, std::string_view doi, std::string_view note = "");

}  // namespace medreact

#endif  // MEDREACT_TOOLS_LITERATURE_LITERATURE_TEXT_H_
