// Findings reader: how a radiology findings text speaks of a finding.
//
//   FindingsReader reader(findings);
//   for (const FindingMention& m : reader.Read(PulmonaryEmbolism())) {
//     if (m.affirmed() && IsCurrentEvent(m.temporality)) ...   // a new clot
//   }
//
// A finding is a FindingConcept (findings_lexicon.h): terms with their
// synonyms, abbreviations and the context some of them need ("filling defect"
// counts as PE only beside a pulmonary artery). Read() returns every mention
// of the concept in the text, each with its context read NegEx/ConText-style:
//
// - negated: a negation trigger scopes over it, before ("no", "without",
//   "negative for", "resolution of") or after ("ruled out", "not seen", "has
//   resolved"); a low-probability hedge ("unlikely", "doubtful") counts as
//   negated. Pseudo-negations ("no change in", "not only", "cannot be
//   excluded", "not seen on the prior") are masked first. The scope is the
//   clause: it ends at the sentence end and at termination terms ("but",
//   "however", "although", ", consistent with" ...).
// - hypothetical: asked, not found ("rule out", "evaluate for", "?" at the end
//   of the sentence, an Indication/Reason-for-exam section).
// - uncertain: hedged ("possible", "suspicious for", "cannot be excluded",
//   "equivocal", "likely"). Still affirmed: see findings_reader.cc.
// - temporality: acute (acute, new, fresh, acute-on-chronic, interval
//   increase, propagation), subacute (subacute, recent, evolving), known
//   (known, unchanged, stable, persistent, again seen), chronic (chronic, old,
//   remote, organized, calcified, webs, residual, healed, sequela,
//   post-thrombotic, encephalomalacia), historical (history of, prior,
//   status post, a History section), or unspecified. Cues before the term
//   count within its clause; cues after it only where they describe it
//   ("thrombus, chronic in appearance", "which appears chronic").
//
// Sources: Chapman WW et al., "A simple algorithm for identifying negated
// findings and diseases in discharge summaries" (NegEx), J Biomed Inform
// 2001;34:301-310; Harkema H et al., "ConText: an algorithm for determining
// negation, experiencer, and temporal status from clinical reports", J Biomed
// Inform 2009;42:839-851. The trigger lists are adapted to radiology reports
// (findings_reader.cc cites each group).
//
// A FindingsReader holds a copy of the text; reading is const and
// thread-safe. Long or hostile text is read in bounded windows: cues more
// than kMaxScopeChars away from a term are not looked at.
#ifndef MEDREACT_APPS_TRIAGE_FINDINGS_READER_H_
#define MEDREACT_APPS_TRIAGE_FINDINGS_READER_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace medreact {

// When the finding arose, as the text says.
enum class Temporality {
  kUnspecified,  // no cue: read as a finding of this study
  kAcute,        // acute, new, fresh, acute-on-chronic, growing
  kSubacute,     // subacute, recent, evolving
  kKnown,        // present before and not said to be new or growing: known, unchanged, stable, persistent
  kChronic,      // chronic, old, organized, calcified, residual, healed, sequela
  kHistorical,   // a past event, not a finding of this study: history of, prior, status post
};

// "acute", "subacute", "known", "chronic", "historical", "unspecified".
std::string_view TemporalityName(Temporality t);

// How much of a finding the text states, from the size or amount word written
// just before it ("trace", "small", "moderate", "large", "massive"; a range
// such as "small to moderate" reads as its larger end). Sources of the words:
// findings_cues.cc (SizeWords).
// kTrace covers "trace", "trivial", "minimal", "tiny"; kSmall "small", "mild".
enum class Amount { kUnstated, kTrace, kSmall, kModerate, kLarge };

// "unstated", "trace", "small", "moderate", "large".
std::string_view AmountName(Amount a);

// True for the temporalities of an event that is happening now (acute,
// subacute or unspecified): what a treatment-failure rule needs.
bool IsCurrentEvent(Temporality t);

// One term of a concept. Terms are lower case; a term of three characters or
// fewer ("pe", "dvt", "ich") must be a whole word (a capitalised plural such
// as "PEs" also counts); a longer term is a word stem ("embol" matches
// "emboli", "embolus"), always anchored at a word start.
struct FindingTerm {
  std::string_view text;
  // How rules name the finding ("" = the concept's label).
  std::string_view label = "";
  // When set, one of these words (matched at a word start, whole word when
  // ≤ 3 characters) must be in the same sentence, or one of `study` anywhere
  // in the text: "filling defect" is a PE only beside a pulmonary artery or
  // on a CT pulmonary angiogram.
  const std::vector<std::string_view>* context = nullptr;
  const std::vector<std::string_view>* study = nullptr;
  // Words that, written just before the term, make it another finding
  // ("septic emboli", "myocardial infarct", "hemorrhagic stroke").
  const std::vector<std::string_view>* not_after = nullptr;
  // Words that, written just after the term, make it another finding
  // ("subdural hygroma", "subdural drain").
  const std::vector<std::string_view>* not_before = nullptr;
  // The temporality the term itself carries when the text gives no cue
  // ("restricted diffusion" is acute, "CTEPH" chronic).
  Temporality implied = Temporality::kUnspecified;
  // True when a chronic finding of this kind is still a present lesion that
  // can act (a chronic subdural hematoma can expand and rebleed), as opposed
  // to a scar (an old infarct, remote haemorrhage).
  bool chronic_is_present = false;
};

// A finding with its synonyms. `source` cites the terminology or guideline
// the terms come from.
struct FindingConcept {
  std::string_view id;
  std::string_view label;
  std::vector<FindingTerm> terms;
  std::string_view source;
};

// One mention of a concept (or of a bare term) in the text.
struct FindingMention {
  std::string term;   // the lexicon term that matched
  std::string label;  // the term's label, else the concept's
  std::string text;   // the words matched, as written
  size_t offset = 0;  // byte offset of the match in the text
  bool negated = false;
  bool hypothetical = false;
  bool uncertain = false;
  bool chronic_is_present = false;  // copied from the term
  Temporality temporality = Temporality::kUnspecified;
  std::string negation_cue;      // the trigger that negated it ("no", "ruled out", "unlikely")
  std::string hypothetical_cue;  // "rule out", "indication:", "?"
  std::string uncertainty_cue;   // "possible", "cannot be excluded"
  std::string temporal_cue;      // "organized", "acute-on-chronic"; "" when unspecified or implied
  std::string clause;            // the clause around it, as written (at most 200 characters)
  // Size or amount stated before it ("trace effusion", "massive hemothorax").
  Amount amount = Amount::kUnstated;
  std::string amount_cue;  // the size word as written, "" when unstated
  // Not assessable rather than found: an exclusion hedge ("cannot be
  // excluded", "not ruled out") with a technical limitation in its sentence
  // or the one before ("due to motion", "suboptimal opacification", "not
  // assessed"). A non-diagnostic segment is not a clot: such a mention is not
  // affirmed; the base priority reads it as an open question.
  bool nondiagnostic = false;
  std::string nondiagnostic_cue;  // the limitation phrase ("respiratory motion")

  // Found, not denied, not merely asked about and not only "not excluded" by
  // a limited study (uncertain mentions are affirmed).
  bool affirmed() const { return !negated && !hypothetical && !nondiagnostic; }
};

// "acute", "chronic (\"organized\")", "possible", "negated (\"no\")" ... for a
// rationale: what the reader saw, with the cue that decided it.
std::string DescribeMention(const FindingMention& mention);

class FindingsReader {
 public:
  // Cues farther than this from a term are not read (a clause longer than this
  // is not a radiology sentence; the bound keeps hostile text linear).
  static constexpr size_t kMaxScopeChars = 400;

  explicit FindingsReader(std::string_view text);
  ~FindingsReader();  // out of line: Cue is complete only in the .cc
  FindingsReader(const FindingsReader&) = delete;
  FindingsReader& operator=(const FindingsReader&) = delete;

  // Every mention of the concept's terms, in text order; overlapping matches
  // of two terms count once (the longer).
  std::vector<FindingMention> Read(const FindingConcept& finding) const;

  // Every mention of one bare term (no context needed), in text order.
  std::vector<FindingMention> Read(std::string_view term) const;

  // The sentences (as written, at most 200 characters) that state a
  // technical limitation (LimitationPhrases: "nondiagnostic", "suboptimally
  // opacified", "limited by motion") beside one of `context` ("lobar",
  // "pulmonary arteries"), the limitation not itself negated ("no motion
  // artifact"): a segment the study could not assess, with or without a
  // finding's name in it.
  std::vector<std::string> LimitedSentences(const std::vector<std::string_view>& context) const;

  const std::string& text() const { return text_; }

 private:
  struct Cue;
  struct Span {
    size_t begin = 0;
    size_t end = 0;
  };

  void FindCues();
  void FindSections();
  std::vector<Span> Matches(const FindingTerm& term) const;
  bool InContext(const FindingTerm& term, size_t pos, bool study_named) const;
  void ReadContext(const std::vector<Span>& all, size_t index, FindingMention& m) const;
  bool SaidOf(const Span& term, const Cue& cue) const;
  void ReadAmount(const Span& term, const Span& clause, FindingMention& m) const;
  void ReadLimitation(const Span& term, FindingMention& m) const;
  bool Describes(const Span& term, const Cue& cue, const std::vector<Span>& all) const;
  Span Sentence(size_t pos) const;
  Span Clause(const Span& term, bool weak_breaks) const;

  std::string text_;                              // as given
  std::string lower_;                             // ASCII lower case, same length
  std::vector<size_t> sentence_ends_;             // positions of sentence-ending characters, ascending
  std::vector<Cue> cues_;                         // sorted by position
  std::vector<Span> not_a_finding_;               // "PE protocol", "DVT prophylaxis": terms inside do not count
  std::vector<std::pair<size_t, int>> sections_;  // section start → kind (see .cc)
};

// True when `term` has a mention in `text` that is affirmed (neither negated
// nor hypothetical); temporality is not looked at. The bare-term convenience
// behind MentionsAffirmed (triage_policy.h).
bool HasAffirmedMention(std::string_view text, std::string_view term);

}  // namespace medreact

#endif  // MEDREACT_APPS_TRIAGE_FINDINGS_READER_H_
