// The trigger lexicon of the findings reader (findings_reader.h): negation,
// pseudo-negation, hedge, hypothetical, historical and age cues, termination
// terms, and the small word lists the reader's scope rules use. Data only;
// the sources are cited beside each group in findings_cues.cc. Internal to
// the triage app.
#ifndef MEDREACT_APPS_TRIAGE_FINDINGS_CUES_H_
#define MEDREACT_APPS_TRIAGE_FINDINGS_CUES_H_

#include <string_view>
#include <vector>

#include "apps/triage/findings_reader.h"

namespace medreact {

// Cue categories. kAge/kFeature/kChange/kStatus/kHistorical carry a
// temporality; the others decide negation, hypothesis, uncertainty, or mask.
enum class CueKind {
  kNotAFinding,  // a study or order name: a term inside it is no finding ("PE protocol")
  kPseudo,       // masked, no meaning ("not only", "with and without", "70-year-old")
  kNegation,
  kHypothetical,
  kUncertainty,
  kHistorical,   // before the term only
  kAge,          // before the term, or after it when it describes it
  kFeature,      // a chronic feature: before or anywhere after in scope ("with webs")
  kChange,       // new or growing: anywhere in scope
  kStatus,       // known, unchanged, improving: anywhere in scope
  kStrongBreak,  // ends the clause and the temporal scope ("but", "however")
  kWeakBreak,    // ends the clause only (", consistent with")
};

// Where a cue acts: on terms after it, before it, or both.
enum class CueSide { kBefore, kAfter, kBoth };

struct CueDef {
  std::string_view phrase;  // lower case; a trailing '*' makes it a stem
  CueKind kind;
  CueSide side = CueSide::kBoth;
  Temporality value = Temporality::kUnspecified;
};

// Every cue, in the order the reader finds and masks them (a phrase listed
// earlier hides the triggers inside it from the phrases listed later).
const std::vector<CueDef>& FindingCues();

// "prior"/"previous" followed by one of these names the comparison study,
// not a past event ("the prior CT", "since the previous study").
const std::vector<std::string_view>& StudyNouns();
// After a term, an age word describes it only when introduced by one of
// these ("thrombus, chronic", "which appears chronic") ...
const std::vector<std::string_view>& DescribingLeads();
// ... and when followed by one of these (or by punctuation, or by another
// mention of the same finding): "chronic in appearance", not "chronic
// subdural hematoma".
const std::vector<std::string_view>& PredicativeFollowers();
// Section headers whose mentions are questions (an indication) or the past
// (a history).
const std::vector<std::string_view>& QuestionHeaders();
// Size and amount words before a finding, by the Amount they state.
struct SizeWord {
  std::string_view word;
  Amount amount;
};
const std::vector<SizeWord>& SizeWords();
// Words skipped between a size word and its finding ("small amount of",
// "moderate-sized", "large volume").
const std::vector<std::string_view>& SizeFillers();
// Nouns that make a size word part of a name ("small bowel", "large vessel").
const std::vector<std::string_view>& NotSizedNouns();
// A technical limitation of the study (a '*' ends a stem): beside an
// exclusion hedge it makes the mention non-diagnostic, not a finding.
const std::vector<std::string_view>& LimitationPhrases();
const std::vector<std::string_view>& HistoryHeaders();

}  // namespace medreact

#endif  // MEDREACT_APPS_TRIAGE_FINDINGS_CUES_H_
