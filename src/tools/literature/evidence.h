// Evidence: one piece of literature as every source reports it, normalised
// (seed 003's Evidence model). The literature clients produce it, the
// research memory stores and de-duplicates it, the report cites it.
#ifndef MEDREACT_TOOLS_LITERATURE_EVIDENCE_H_
#define MEDREACT_TOOLS_LITERATURE_EVIDENCE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/json.h"

namespace medreact {

enum class EvidenceSource { kPubMed, kClinicalTrials, kEuropePmc, kOther };

struct Evidence {
  // Stable identifier with its scheme: "PMID:11748933", "NCT06604689",
  // "DOI:10.1101/2024.01.01.123456", "PPR:PPR123456". De-duplication keys on
  // it (and on the other identifiers below), not on the URL alone.
  std::string id;
  std::string url;       // where a reader opens it; the memory's primary key
  std::string title;
  std::string abstract;  // abstract (labelled sections joined) or trial summary
  std::vector<std::string> authors;  // "Surname Initials", in order
  int year = 0;                      // 0 = unknown
  EvidenceSource source = EvidenceSource::kOther;
  // "journal-article", "review", "meta-analysis", "randomized-controlled-trial",
  // "clinical-trial", "preprint", ... (lower-case, as mapped by the client)
  std::string type;
  std::string citation;  // one line: authors, title, journal, year, id
  // false for preprints and for trial registrations (a registry record is
  // not a peer-reviewed publication)
  bool peer_reviewed = true;
  // Every other identifier the source gave (a PubMed record's DOI and PMCID,
  // a Europe PMC record's PMID), each with its scheme prefix, so the same
  // paper from two sources is recognised as one.
  std::vector<std::string> other_ids;
};

std::string EvidenceSourceName(EvidenceSource s);  // "pubmed", "clinicaltrials", "europepmc", "other"
// The source a name spells; nullopt for a name that is none of the four.
std::optional<EvidenceSource> EvidenceSourceFromName(std::string_view name);
Json EvidenceToJson(const Evidence& e);
// Typed error naming the field on a malformed object.
Result<Evidence> EvidenceFromJson(const Json& j);

}  // namespace medreact

#endif  // MEDREACT_TOOLS_LITERATURE_EVIDENCE_H_
