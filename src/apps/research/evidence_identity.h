// When two Evidence records are the same paper or trial, and which one to
// keep: the identifier rules of the research memory's de-duplication.
//
// Identifiers are compared in a canonical "SCHEME:value" form:
//   - the scheme is case-insensitive, with the spellings sources use mapped to
//     one name: PMID (also PUBMED, MED: Europe PMC's source code for PubMed),
//     PMCID (also PMC), DOI, NCT, others upper-cased as they are (PPR, ...);
//   - DOI values are lower-cased (DOIs are case-insensitive, DOI Handbook
//     §2.4), and "https://doi.org/…", "http://dx.doi.org/…", "doi:…" and a
//     bare "10.xxxx/…" are DOIs;
//   - PMIDs lose leading zeros; PMCIDs and NCT numbers are upper-cased with
//     their PMC / NCT prefix ("PMC:123" = "PMCID:PMC123"; a bare "NCT01234567"
//     is an NCT number);
//   - values of other schemes are kept as written (case-sensitive).
// Text that is none of these ("", "see methods", a bare number) is no
// identifier and matches nothing.
//
// The richer record (CompareRichness) is the one with the longer abstract;
// equal abstracts: more authors; then a known year; then more of title, type
// and citation filled in. A tie keeps the record already stored.
// MergeDuplicates keeps the richer record's fields, fills the fields it lacks
// from the other, keeps the stored record's URL (the memory's key, already
// handed out and cited) and unites both records' identifiers.
#ifndef MEDREACT_APPS_RESEARCH_EVIDENCE_IDENTITY_H_
#define MEDREACT_APPS_RESEARCH_EVIDENCE_IDENTITY_H_

#include <string>
#include <string_view>
#include <vector>

#include "tools/literature/evidence.h"

namespace medreact {

// "SCHEME:value" as described above, or "" when `raw` is no identifier.
std::string CanonicalIdentifier(std::string_view raw);

// The canonical identifiers of `e` (its id, then its other_ids), each once,
// in that order.
std::vector<std::string> CanonicalIdentifiers(const Evidence& e);

// > 0 when `a` is richer than `b`, < 0 when poorer, 0 when as rich.
int CompareRichness(const Evidence& a, const Evidence& b);

// One record from a stored one and an incoming duplicate (see above).
Evidence MergeDuplicates(const Evidence& stored, const Evidence& incoming);

// True when the two identifier lists hold different PMIDs or different NCT
// numbers: two PubMed records or two registered trials, so two works however
// alike their text. (DOIs do not count: a preprint and its published version
// have two DOIs and are one work.)
bool HaveDistinctRecordIds(const std::vector<std::string>& a, const std::vector<std::string>& b);

// A title as the memory's identity pass compares it: its words
// (text_similarity.h's WordTokens: case, punctuation, function words and
// plurals do not count; nor do Unicode dashes and quotes) joined by one space; "" for a title of fewer than
// kMinTitleWords such words ("Erratum", "Reply to the editor"), which name
// no one work. Two records of one title key and no distinct PMIDs or NCT
// numbers are one work (a preprint and its published version; the same paper
// from PubMed and Europe PMC without a shared identifier).
inline constexpr size_t kMinTitleWords = 4;
std::string TitleKey(std::string_view title);

}  // namespace medreact

#endif  // MEDREACT_APPS_RESEARCH_EVIDENCE_IDENTITY_H_
