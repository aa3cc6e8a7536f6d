// The findings reader's trigger lexicon, grouped by what each cue does, in
// the order the reader finds and masks them.
//
// Sources: NegEx triggers and pseudo-negations (Chapman WW et al., J Biomed
// Inform 2001;34:301-310) and ConText's termination, hypothetical and
// historical triggers (Harkema H et al., J Biomed Inform 2009;42:839-851),
// adapted to radiology reports; hedging phrases: Hobby JL et al., Br J Radiol
// 2000;73:999-1001 and Callen AL et al., J Digit Imaging 2020;33:1194-1201;
// chronic CT features as cited beside their group below.
#include "apps/triage/findings_cues.h"

namespace medreact {
namespace {

using T = Temporality;
using K = CueKind;

}  // namespace

// Found and masked in this order: a phrase listed earlier hides the triggers
// inside it from the phrases listed later.
const std::vector<CueDef>& FindingCues() {
  static const std::vector<CueDef> cues = {
      // Study, scale and order names: "CT PE protocol", "code stroke", "DVT
      // prophylaxis", the TICI reperfusion scale, "CVA tenderness"
      // (costovertebral angle).
      {"pe protocol", K::kNotAFinding}, {"pe-protocol", K::kNotAFinding}, {"pe study", K::kNotAFinding},
      {"pe ct", K::kNotAFinding}, {"ct pe", K::kNotAFinding}, {"dvt study", K::kNotAFinding},
      {"dvt protocol", K::kNotAFinding}, {"dvt prophylaxis", K::kNotAFinding}, {"vte prophylaxis", K::kNotAFinding},
      {"stroke protocol", K::kNotAFinding}, {"code stroke", K::kNotAFinding}, {"stroke code", K::kNotAFinding},
      {"stroke alert", K::kNotAFinding}, {"stroke scale", K::kNotAFinding}, {"stroke team", K::kNotAFinding},
      {"lvo protocol", K::kNotAFinding}, {"cva tenderness", K::kNotAFinding},
      {"thrombolysis in cerebral infarction", K::kNotAFinding},

      // NegEx pseudo-negations and words that only look like cues.
      {"with and without", K::kPseudo}, {"with or without", K::kPseudo}, {"not only", K::kPseudo},
      {"not necessarily", K::kPseudo}, {"gram negative", K::kPseudo}, {"not limited to", K::kPseudo},
      {"year-old", K::kPseudo}, {"year old", K::kPseudo}, {"years old", K::kPseudo}, {"month-old", K::kPseudo},
      {"months old", K::kPseudo}, {"week-old", K::kPseudo}, {"day-old", K::kPseudo},

      // New since the comparison study (before the negations they contain).
      {"not seen on the prior", K::kChange, CueSide::kAfter, T::kAcute},
      {"not seen on prior", K::kChange, CueSide::kAfter, T::kAcute},
      {"not present on the prior", K::kChange, CueSide::kAfter, T::kAcute},
      {"not present on prior", K::kChange, CueSide::kAfter, T::kAcute},
      {"not visible on the prior", K::kChange, CueSide::kAfter, T::kAcute},
      {"not visible on prior", K::kChange, CueSide::kAfter, T::kAcute},
      {"not evident on the prior", K::kChange, CueSide::kAfter, T::kAcute},
      {"not seen previously", K::kChange, CueSide::kAfter, T::kAcute},
      {"not previously seen", K::kChange, CueSide::kBoth, T::kAcute},
      {"not present previously", K::kChange, CueSide::kAfter, T::kAcute},
      {"not previously present", K::kChange, CueSide::kAfter, T::kAcute},
      {"not previously identified", K::kChange, CueSide::kBoth, T::kAcute},
      {"not previously described", K::kChange, CueSide::kBoth, T::kAcute},
      {"previously not seen", K::kChange, CueSide::kBoth, T::kAcute},

      // An age the report declines to give ("age-indeterminate infarct"): the
      // finding is dated as unspecified, neither acute nor old, before the
      // "uncertain" and "indeterminate" cues it holds are read (issue 24).
      {"age-indeterminate", K::kAge, CueSide::kBoth, T::kUnspecified},
      {"age indeterminate", K::kAge, CueSide::kBoth, T::kUnspecified},
      {"of indeterminate age", K::kAge, CueSide::kBoth, T::kUnspecified},
      {"indeterminate age", K::kAge, CueSide::kBoth, T::kUnspecified},
      {"indeterminate in age", K::kAge, CueSide::kBoth, T::kUnspecified},
      {"undetermined age", K::kAge, CueSide::kBoth, T::kUnspecified},
      {"uncertain age", K::kAge, CueSide::kBoth, T::kUnspecified},
      {"unknown age", K::kAge, CueSide::kBoth, T::kUnspecified},

      // Uncertainty phrases that hold a negation word (NegEx pseudo-negations;
      // pyConText "possible existence").
      {"cannot be entirely excluded", K::kUncertainty, CueSide::kAfter},
      {"cannot be completely excluded", K::kUncertainty, CueSide::kAfter},
      {"cannot be definitely excluded", K::kUncertainty, CueSide::kAfter},
      {"cannot be excluded", K::kUncertainty, CueSide::kAfter},
      {"can not be excluded", K::kUncertainty, CueSide::kAfter},
      {"can't be excluded", K::kUncertainty, CueSide::kAfter},
      {"could not be excluded", K::kUncertainty, CueSide::kAfter},
      {"cannot be entirely ruled out", K::kUncertainty, CueSide::kAfter},
      {"cannot be ruled out", K::kUncertainty, CueSide::kAfter},
      {"can not be ruled out", K::kUncertainty, CueSide::kAfter},
      {"can't be ruled out", K::kUncertainty, CueSide::kAfter},
      {"could not be ruled out", K::kUncertainty, CueSide::kAfter},
      {"not entirely excluded", K::kUncertainty, CueSide::kAfter},
      {"not completely excluded", K::kUncertainty, CueSide::kAfter},
      {"not definitely excluded", K::kUncertainty, CueSide::kAfter},
      {"not be excluded", K::kUncertainty, CueSide::kAfter},
      {"not be ruled out", K::kUncertainty, CueSide::kAfter}, {"not excluded", K::kUncertainty, CueSide::kAfter},
      {"not ruled out", K::kUncertainty, CueSide::kAfter},
      {"cannot entirely exclude", K::kUncertainty, CueSide::kBefore},
      {"cannot exclude", K::kUncertainty, CueSide::kBefore},
      {"can not exclude", K::kUncertainty, CueSide::kBefore}, {"can't exclude", K::kUncertainty, CueSide::kBefore},
      {"cannot rule out", K::kUncertainty, CueSide::kBefore}, {"can not rule out", K::kUncertainty, CueSide::kBefore},
      {"can't rule out", K::kUncertainty, CueSide::kBefore}, {"unable to exclude", K::kUncertainty, CueSide::kBefore},
      {"unable to rule out", K::kUncertainty, CueSide::kBefore},
      {"not possible to exclude", K::kUncertainty, CueSide::kBefore},
      {"difficult to exclude", K::kUncertainty, CueSide::kBefore}, {"not certain", K::kUncertainty},
      {"uncertain", K::kUncertainty}, {"not sure", K::kUncertainty},

      // Low-probability hedges: negated (ConText "probable negated existence").
      {"unlikely to represent", K::kNegation, CueSide::kBefore}, {"unlikely to be", K::kNegation, CueSide::kBefore},
      {"low probability for", K::kNegation, CueSide::kBefore}, {"low probability of", K::kNegation, CueSide::kBefore},
      {"low likelihood of", K::kNegation, CueSide::kBefore}, {"unlikely", K::kNegation, CueSide::kAfter},
      {"less likely", K::kNegation, CueSide::kAfter}, {"not likely", K::kNegation, CueSide::kAfter},
      {"doubtful", K::kNegation, CueSide::kAfter}, {"not favored", K::kNegation, CueSide::kAfter},
      {"not favoured", K::kNegation, CueSide::kAfter}, {"improbable", K::kNegation, CueSide::kAfter},
      {"not suspected", K::kNegation, CueSide::kAfter},

      // Historical phrases that hold a status word ("known history of").
      {"known history of", K::kHistorical, CueSide::kBefore, T::kHistorical},
      {"remote history of", K::kHistorical, CueSide::kBefore, T::kHistorical},

      // Known, unchanged or improving: present before this study (ConText
      // "historical" for findings re-reported; NegEx pseudo-negations "no
      // change", "no increase").
      {"no significant interval change", K::kStatus, CueSide::kBoth, T::kKnown},
      {"no significant change", K::kStatus, CueSide::kBoth, T::kKnown},
      {"no interval change", K::kStatus, CueSide::kBoth, T::kKnown},
      {"no appreciable change", K::kStatus, CueSide::kBoth, T::kKnown},
      {"no definite change", K::kStatus, CueSide::kBoth, T::kKnown},
      {"no change", K::kStatus, CueSide::kBoth, T::kKnown},
      {"without significant change", K::kStatus, CueSide::kBoth, T::kKnown},
      {"without interval change", K::kStatus, CueSide::kBoth, T::kKnown},
      {"without change", K::kStatus, CueSide::kBoth, T::kKnown},
      {"not significantly changed", K::kStatus, CueSide::kBoth, T::kKnown},
      {"not changed", K::kStatus, CueSide::kBoth, T::kKnown},
      {"no significant interval increase", K::kStatus, CueSide::kBoth, T::kKnown},
      {"no significant increase", K::kStatus, CueSide::kBoth, T::kKnown},
      {"no interval increase", K::kStatus, CueSide::kBoth, T::kKnown},
      {"no increase", K::kStatus, CueSide::kBoth, T::kKnown},
      {"no interval growth", K::kStatus, CueSide::kBoth, T::kKnown},
      {"no new", K::kNegation, CueSide::kBefore},  // "no new PE": negated, not a status
      {"again seen", K::kStatus, CueSide::kBoth, T::kKnown}, {"again noted", K::kStatus, CueSide::kBoth, T::kKnown},
      {"again demonstrated", K::kStatus, CueSide::kBoth, T::kKnown},
      {"again identified", K::kStatus, CueSide::kBoth, T::kKnown},
      {"again visualized", K::kStatus, CueSide::kBoth, T::kKnown},
      {"redemonstrat*", K::kStatus, CueSide::kBoth, T::kKnown},
      {"re-demonstrat*", K::kStatus, CueSide::kBoth, T::kKnown}, {"unchanged", K::kStatus, CueSide::kBoth, T::kKnown},
      {"stable", K::kStatus, CueSide::kBoth, T::kKnown}, {"stably", K::kStatus, CueSide::kBoth, T::kKnown},
      {"persistent", K::kStatus, CueSide::kBoth, T::kKnown}, {"persistently", K::kStatus, CueSide::kBoth, T::kKnown},
      {"persists", K::kStatus, CueSide::kBoth, T::kKnown}, {"persisting", K::kStatus, CueSide::kBoth, T::kKnown},
      {"known", K::kStatus, CueSide::kBoth, T::kKnown}, {"previously seen", K::kStatus, CueSide::kBoth, T::kKnown},
      {"previously noted", K::kStatus, CueSide::kBoth, T::kKnown},
      {"previously described", K::kStatus, CueSide::kBoth, T::kKnown},
      {"previously demonstrated", K::kStatus, CueSide::kBoth, T::kKnown},
      {"previously identified", K::kStatus, CueSide::kBoth, T::kKnown},
      {"previously reported", K::kStatus, CueSide::kBoth, T::kKnown},
      {"as before", K::kStatus, CueSide::kBoth, T::kKnown},
      {"similar to the prior", K::kStatus, CueSide::kBoth, T::kKnown},
      {"similar to prior", K::kStatus, CueSide::kBoth, T::kKnown},
      {"similar in size", K::kStatus, CueSide::kBoth, T::kKnown},
      {"similar in appearance", K::kStatus, CueSide::kBoth, T::kKnown},
      {"partially resolved", K::kStatus, CueSide::kBoth, T::kKnown},
      {"partial resolution", K::kStatus, CueSide::kBoth, T::kKnown},
      {"incompletely resolved", K::kStatus, CueSide::kBoth, T::kKnown},
      {"incomplete resolution", K::kStatus, CueSide::kBoth, T::kKnown},
      {"near-complete resolution", K::kStatus, CueSide::kBoth, T::kKnown},
      {"near complete resolution", K::kStatus, CueSide::kBoth, T::kKnown},
      {"nearly resolved", K::kStatus, CueSide::kBoth, T::kKnown},
      {"almost resolved", K::kStatus, CueSide::kBoth, T::kKnown},
      {"resolving", K::kStatus, CueSide::kBoth, T::kKnown}, {"improving", K::kStatus, CueSide::kBoth, T::kKnown},
      {"improved", K::kStatus, CueSide::kBoth, T::kKnown}, {"interval decrease", K::kStatus, CueSide::kBoth, T::kKnown},
      {"interval improvement", K::kStatus, CueSide::kBoth, T::kKnown},
      {"decreased", K::kStatus, CueSide::kBoth, T::kKnown}, {"decreasing", K::kStatus, CueSide::kBoth, T::kKnown},
      {"smaller", K::kStatus, CueSide::kBoth, T::kKnown},

      // New or growing: a new event even in a known finding.
      {"interval development", K::kChange, CueSide::kBoth, T::kAcute},
      {"interval appearance", K::kChange, CueSide::kBoth, T::kAcute},
      {"interval increase", K::kChange, CueSide::kBoth, T::kAcute},
      {"interval enlargement", K::kChange, CueSide::kBoth, T::kAcute},
      {"interval extension", K::kChange, CueSide::kBoth, T::kAcute},
      {"interval progression", K::kChange, CueSide::kBoth, T::kAcute},
      {"interval worsening", K::kChange, CueSide::kBoth, T::kAcute},
      {"interval growth", K::kChange, CueSide::kBoth, T::kAcute},
      {"increased in size", K::kChange, CueSide::kBoth, T::kAcute},
      {"increase in size", K::kChange, CueSide::kBoth, T::kAcute},
      {"increasing in size", K::kChange, CueSide::kBoth, T::kAcute},
      {"increased clot burden", K::kChange, CueSide::kBoth, T::kAcute},
      {"increased thrombus burden", K::kChange, CueSide::kBoth, T::kAcute},
      {"increasing", K::kChange, CueSide::kBoth, T::kAcute}, {"enlarging", K::kChange, CueSide::kBoth, T::kAcute},
      {"expanding", K::kChange, CueSide::kBoth, T::kAcute}, {"expansion", K::kChange, CueSide::kBoth, T::kAcute},
      {"propagat*", K::kChange, CueSide::kBoth, T::kAcute}, {"progression", K::kChange, CueSide::kBoth, T::kAcute},
      {"progressed", K::kChange, CueSide::kBoth, T::kAcute}, {"progressing", K::kChange, CueSide::kBoth, T::kAcute},
      {"worsening", K::kChange, CueSide::kBoth, T::kAcute}, {"worsened", K::kChange, CueSide::kBoth, T::kAcute},
      {"new since", K::kChange, CueSide::kBoth, T::kAcute}, {"newly", K::kChange, CueSide::kBoth, T::kAcute},

      // Age ranges resolve to their most recent end.
      {"acute-on-chronic", K::kAge, CueSide::kBoth, T::kAcute},
      {"acute on chronic", K::kAge, CueSide::kBoth, T::kAcute},
      {"mixed acute and chronic", K::kAge, CueSide::kBoth, T::kAcute},
      {"acute and chronic", K::kAge, CueSide::kBoth, T::kAcute},
      {"chronic and acute", K::kAge, CueSide::kBoth, T::kAcute},
      {"acute or chronic", K::kAge, CueSide::kBoth, T::kAcute},
      {"acute versus chronic", K::kAge, CueSide::kBoth, T::kAcute},
      {"acute vs chronic", K::kAge, CueSide::kBoth, T::kAcute}, {"acute/chronic", K::kAge, CueSide::kBoth, T::kAcute},
      {"acute to subacute", K::kAge, CueSide::kBoth, T::kAcute}, {"acute-subacute", K::kAge, CueSide::kBoth, T::kAcute},
      {"acute/subacute", K::kAge, CueSide::kBoth, T::kAcute}, {"acute or subacute", K::kAge, CueSide::kBoth, T::kAcute},
      {"subacute to chronic", K::kAge, CueSide::kBoth, T::kSubacute},
      {"subacute or chronic", K::kAge, CueSide::kBoth, T::kSubacute},
      {"subacute/chronic", K::kAge, CueSide::kBoth, T::kSubacute},
      {"late subacute", K::kAge, CueSide::kBoth, T::kSubacute},
      {"early subacute", K::kAge, CueSide::kBoth, T::kSubacute},
      {"hyperacute", K::kAge, CueSide::kBoth, T::kAcute}, {"acute", K::kAge, CueSide::kBoth, T::kAcute},
      {"acutely", K::kAge, CueSide::kBoth, T::kAcute}, {"new", K::kAge, CueSide::kBoth, T::kAcute},
      {"fresh", K::kAge, CueSide::kBoth, T::kAcute}, {"early", K::kAge, CueSide::kBoth, T::kAcute},
      {"subacute", K::kAge, CueSide::kBoth, T::kSubacute}, {"sub-acute", K::kAge, CueSide::kBoth, T::kSubacute},
      {"recent", K::kAge, CueSide::kBoth, T::kSubacute}, {"evolving", K::kAge, CueSide::kBoth, T::kSubacute},
      {"chronic", K::kAge, CueSide::kBoth, T::kChronic}, {"chronically", K::kAge, CueSide::kBoth, T::kChronic},
      {"old", K::kAge, CueSide::kBoth, T::kChronic}, {"remote", K::kAge, CueSide::kBoth, T::kChronic},
      {"longstanding", K::kAge, CueSide::kBoth, T::kChronic}, {"long-standing", K::kAge, CueSide::kBoth, T::kChronic},
      {"healed", K::kAge, CueSide::kBoth, T::kChronic}, {"residual", K::kAge, CueSide::kBoth, T::kChronic},

      // CT features of an old clot or an old brain lesion. Chronic PE:
      // eccentric or calcified thrombus, webs and bands, recanalisation
      // (Castañer E et al., RadioGraphics 2009;29:31-50; Fleischner Society
      // glossary). Old infarct: encephalomalacia, gliosis, volume loss
      // (STRIVE: Wardlaw JM et al., Lancet Neurol 2013;12:822-838).
      {"organized", K::kFeature, CueSide::kBoth, T::kChronic}, {"organised", K::kFeature, CueSide::kBoth, T::kChronic},
      {"organizing", K::kFeature, CueSide::kBoth, T::kChronic},
      {"organising", K::kFeature, CueSide::kBoth, T::kChronic},
      {"calcif*", K::kFeature, CueSide::kBoth, T::kChronic}, {"webs", K::kFeature, CueSide::kBoth, T::kChronic},
      {"web", K::kFeature, CueSide::kBoth, T::kChronic}, {"bands", K::kFeature, CueSide::kBoth, T::kChronic},
      {"band-like", K::kFeature, CueSide::kBoth, T::kChronic}, {"recanaliz*", K::kFeature, CueSide::kBoth, T::kChronic},
      {"recanalis*", K::kFeature, CueSide::kBoth, T::kChronic}, {"eccentric", K::kFeature, CueSide::kBoth, T::kChronic},
      {"post-thrombotic", K::kFeature, CueSide::kBoth, T::kChronic},
      {"postthrombotic", K::kFeature, CueSide::kBoth, T::kChronic},
      {"post thrombotic", K::kFeature, CueSide::kBoth, T::kChronic},
      {"sequela", K::kFeature, CueSide::kBoth, T::kChronic}, {"sequelae", K::kFeature, CueSide::kBoth, T::kChronic},
      {"encephalomalaci*", K::kFeature, CueSide::kBoth, T::kChronic},
      {"gliosis", K::kFeature, CueSide::kBoth, T::kChronic}, {"gliotic", K::kFeature, CueSide::kBoth, T::kChronic},
      {"volume loss", K::kFeature, CueSide::kBoth, T::kChronic}, {"ex vacuo", K::kFeature, CueSide::kBoth, T::kChronic},
      {"hemosiderin", K::kFeature, CueSide::kBoth, T::kChronic},
      {"haemosiderin", K::kFeature, CueSide::kBoth, T::kChronic},

      // Historical (ConText): a past event, before the term.
      {"past medical history of", K::kHistorical, CueSide::kBefore, T::kHistorical},
      {"past history of", K::kHistorical, CueSide::kBefore, T::kHistorical},
      {"history of", K::kHistorical, CueSide::kBefore, T::kHistorical},
      {"h/o", K::kHistorical, CueSide::kBefore, T::kHistorical},
      {"hx of", K::kHistorical, CueSide::kBefore, T::kHistorical},
      {"hx", K::kHistorical, CueSide::kBefore, T::kHistorical},
      {"previously treated", K::kHistorical, CueSide::kBefore, T::kHistorical},
      {"status post", K::kHistorical, CueSide::kBefore, T::kHistorical},
      {"s/p", K::kHistorical, CueSide::kBefore, T::kHistorical},
      {"in the past", K::kHistorical, CueSide::kBoth, T::kHistorical},
      {"prior", K::kHistorical, CueSide::kBefore, T::kHistorical},  // unless it names a study, see FindCues
      {"previous", K::kHistorical, CueSide::kBefore, T::kHistorical},
      {"previously", K::kHistorical, CueSide::kBefore, T::kHistorical},

      // NegEx negation triggers, adapted to radiology.
      {"has been ruled out", K::kNegation, CueSide::kAfter}, {"is ruled out", K::kNegation, CueSide::kAfter},
      {"ruled out", K::kNegation}, {"rules out", K::kNegation, CueSide::kBefore},
      {"has been excluded", K::kNegation, CueSide::kAfter}, {"is excluded", K::kNegation, CueSide::kAfter},
      {"are excluded", K::kNegation, CueSide::kAfter}, {"excluded", K::kNegation, CueSide::kAfter},
      {"no longer seen", K::kNegation, CueSide::kAfter}, {"no longer visualized", K::kNegation, CueSide::kAfter},
      {"no longer visualised", K::kNegation, CueSide::kAfter}, {"no longer identified", K::kNegation, CueSide::kAfter},
      {"no longer present", K::kNegation, CueSide::kAfter}, {"no longer evident", K::kNegation, CueSide::kAfter},
      {"no longer visible", K::kNegation, CueSide::kAfter}, {"no longer", K::kNegation, CueSide::kBefore},
      {"not seen", K::kNegation, CueSide::kAfter}, {"not identified", K::kNegation, CueSide::kAfter},
      {"not present", K::kNegation, CueSide::kAfter}, {"not demonstrated", K::kNegation, CueSide::kAfter},
      {"not visualized", K::kNegation, CueSide::kAfter}, {"not visualised", K::kNegation, CueSide::kAfter},
      {"not detected", K::kNegation, CueSide::kAfter}, {"not evident", K::kNegation, CueSide::kAfter},
      {"not appreciated", K::kNegation, CueSide::kAfter}, {"not found", K::kNegation, CueSide::kAfter},
      {"is absent", K::kNegation, CueSide::kAfter}, {"are absent", K::kNegation, CueSide::kAfter},
      {"has resolved", K::kNegation, CueSide::kAfter}, {"have resolved", K::kNegation, CueSide::kAfter},
      {"resolved", K::kNegation}, {"interval resolution of", K::kNegation, CueSide::kBefore},
      {"complete resolution of", K::kNegation, CueSide::kBefore}, {"resolution of", K::kNegation, CueSide::kBefore},
      {"is negative", K::kNegation, CueSide::kAfter}, {"are negative", K::kNegation, CueSide::kAfter},
      {"negative for", K::kNegation, CueSide::kBefore},
      {"negative", K::kNegation},  // "negative CTA for PE", "PE: negative"
      {"absence of", K::kNegation, CueSide::kBefore},
      {"free of", K::kNegation, CueSide::kBefore}, {"fails to reveal", K::kNegation, CueSide::kBefore},
      {"failed to reveal", K::kNegation, CueSide::kBefore}, {"without", K::kNegation, CueSide::kBefore},
      {"no", K::kNegation, CueSide::kBefore}, {"not", K::kNegation, CueSide::kBefore},
      {"nor", K::kNegation, CueSide::kBefore}, {"neither", K::kNegation, CueSide::kBefore},
      {"never", K::kNegation, CueSide::kBefore}, {"denies", K::kNegation, CueSide::kBefore},

      // Asked, not found (ConText "hypothetical"; indications).
      {"to rule out", K::kHypothetical, CueSide::kBefore}, {"rule out", K::kHypothetical, CueSide::kBefore},
      {"r/o", K::kHypothetical, CueSide::kBefore}, {"to exclude", K::kHypothetical, CueSide::kBefore},
      {"evaluate for", K::kHypothetical, CueSide::kBefore}, {"evaluation for", K::kHypothetical, CueSide::kBefore},
      {"eval for", K::kHypothetical, CueSide::kBefore}, {"assess for", K::kHypothetical, CueSide::kBefore},
      {"assessment for", K::kHypothetical, CueSide::kBefore}, {"screen for", K::kHypothetical, CueSide::kBefore},
      {"screening for", K::kHypothetical, CueSide::kBefore}, {"in case of", K::kHypothetical, CueSide::kBefore},
      {"at risk of", K::kHypothetical, CueSide::kBefore}, {"at risk for", K::kHypothetical, CueSide::kBefore},
      {"risk of", K::kHypothetical, CueSide::kBefore}, {"risk for", K::kHypothetical, CueSide::kBefore},
      {"prophylaxis against", K::kHypothetical, CueSide::kBefore}, {"if", K::kHypothetical, CueSide::kBefore},

      // Hedges (uncertain, still affirmed).
      {"suspicious for", K::kUncertainty, CueSide::kBefore}, {"suspicion of", K::kUncertainty, CueSide::kBefore},
      {"suspicion for", K::kUncertainty, CueSide::kBefore}, {"concerning for", K::kUncertainty, CueSide::kBefore},
      {"concern for", K::kUncertainty, CueSide::kBefore}, {"worrisome for", K::kUncertainty, CueSide::kBefore},
      {"suggestive of", K::kUncertainty, CueSide::kBefore}, {"suggesting", K::kUncertainty, CueSide::kBefore},
      {"suggests", K::kUncertainty, CueSide::kBefore}, {"possible", K::kUncertainty, CueSide::kBefore},
      {"possibly", K::kUncertainty, CueSide::kBefore}, {"probable", K::kUncertainty, CueSide::kBefore},
      {"probably", K::kUncertainty, CueSide::kBefore}, {"most likely", K::kUncertainty, CueSide::kBefore},
      {"likely", K::kUncertainty, CueSide::kBefore}, {"may represent", K::kUncertainty, CueSide::kBefore},
      {"may reflect", K::kUncertainty, CueSide::kBefore}, {"may be", K::kUncertainty, CueSide::kBefore},
      {"might", K::kUncertainty, CueSide::kBefore}, {"could represent", K::kUncertainty, CueSide::kBefore},
      {"could reflect", K::kUncertainty, CueSide::kBefore}, {"could be", K::kUncertainty, CueSide::kBefore},
      {"question of", K::kUncertainty, CueSide::kBefore}, {"questionable", K::kUncertainty, CueSide::kBefore},
      {"query", K::kUncertainty, CueSide::kBefore}, {"equivocal", K::kUncertainty},
      {"indeterminate", K::kUncertainty}, {"presumed", K::kUncertainty, CueSide::kBefore},
      {"presumably", K::kUncertainty, CueSide::kBefore}, {"presumptive", K::kUncertainty, CueSide::kBefore},
      {"favored", K::kUncertainty, CueSide::kBefore}, {"favoured", K::kUncertainty, CueSide::kBefore},
      {"favor", K::kUncertainty, CueSide::kBefore}, {"favour", K::kUncertainty, CueSide::kBefore},
      {"borderline", K::kUncertainty, CueSide::kBefore}, {"differential", K::kUncertainty, CueSide::kBefore},
      {"versus", K::kUncertainty}, {"vs", K::kUncertainty}, {"is suspected", K::kUncertainty, CueSide::kAfter},
      {"suspected", K::kUncertainty}, {"suspect", K::kUncertainty, CueSide::kBefore},
      {"is possible", K::kUncertainty, CueSide::kAfter}, {"is questioned", K::kUncertainty, CueSide::kAfter},
      {"questioned", K::kUncertainty, CueSide::kAfter}, {"is likely", K::kUncertainty, CueSide::kAfter},
      {"is favored", K::kUncertainty, CueSide::kAfter},

      // ConText termination terms. Strong ones start a new assertion; weak
      // ones (a comma and a conclusion) end a negation's reach only: in "no
      // flow, consistent with occlusive thrombus" the "no" is about the flow.
      {"but", K::kStrongBreak}, {"however", K::kStrongBreak}, {"although", K::kStrongBreak},
      {"though", K::kStrongBreak}, {"whereas", K::kStrongBreak}, {"except", K::kStrongBreak},
      {"aside from", K::kStrongBreak}, {"apart from", K::kStrongBreak}, {"other than", K::kStrongBreak},
      {"while", K::kStrongBreak}, {", consistent with", K::kWeakBreak}, {", compatible with", K::kWeakBreak},
      {", in keeping with", K::kWeakBreak}, {", suggestive of", K::kWeakBreak}, {", suggesting", K::kWeakBreak},
      {", concerning for", K::kWeakBreak}, {", suspicious for", K::kWeakBreak}, {", worrisome for", K::kWeakBreak},
      {", indicating", K::kWeakBreak}, {", representing", K::kWeakBreak}, {", diagnostic of", K::kWeakBreak},
      {", likely", K::kWeakBreak}, {", probably", K::kWeakBreak}, {", most likely", K::kWeakBreak},
      {", which", K::kWeakBreak}, {", there is", K::kWeakBreak}, {", there are", K::kWeakBreak},
      // "No pneumothorax and a large PE": an article or a finding's own describing word after
      // "and" starts a new, positive noun phrase; "no X and Y" alone still negates both (NegEx).
      // A missed PE is the worse error, so the scope ends here.
      {"and a", K::kWeakBreak}, {"and an", K::kWeakBreak}, {"and there is", K::kWeakBreak},
      {"and there are", K::kWeakBreak}, {"and new", K::kWeakBreak}, {"and acute", K::kWeakBreak},
      {"and large", K::kWeakBreak}, {"and extensive", K::kWeakBreak}, {"and multiple", K::kWeakBreak},
      {"and bilateral", K::kWeakBreak}, {"with a", K::kWeakBreak},
  };
  return cues;
}

const std::vector<std::string_view>& StudyNouns() {
  static const std::vector<std::string_view> words = {
      "study", "studies", "exam", "exams", "examination", "examinations", "ct", "cta", "ctpa", "mri",
      "mr", "mra", "scan", "scans", "imaging", "image", "images", "radiograph", "radiographs", "film",
      "films", "comparison", "ultrasound", "us", "doppler", "report", "one", "day", "days", "week"};
  return words;
}

const std::vector<std::string_view>& DescribingLeads() {
  static const std::vector<std::string_view> words = {
      "is", "are", "was", "were", "be", "appears", "appear", "appearing", "seems", "likely", "probably",
      "possibly", "which", "that", "consistent with", "compatible with", "in keeping with", "suggestive of",
      "suggesting", "representing", "reflecting", "favoring", "favouring", "indicating", "now", "also",
      "and", "both", "otherwise"};
  return words;
}

const std::vector<std::string_view>& PredicativeFollowers() {
  static const std::vector<std::string_view> words = {
      "in", "appearing", "appearance", "and", "or", "with", "without", "by", "on", "since", "compared",
      "from", "when", "as", "to", "than", "nature", "features", "component", "components", "looking", "age"};
  return words;
}

const std::vector<std::string_view>& QuestionHeaders() {
  static const std::vector<std::string_view> words = {
      "indication", "indications", "reason for exam", "reason for examination", "reason for study", "reason",
      "clinical indication", "clinical question", "clinical details", "clinical information", "question",
      "request", "referral", "exam reason"};
  return words;
}

// Size and amount words as radiology reports grade effusions and bleeds.
// Pleural effusion: trace/small, moderate, large/massive (BTS 2023 pleural
// disease guideline, Roberts ME et al., Thorax 2023;78:s1-s42; ACR
// Appropriateness Criteria, Suspected pleural effusion). Pericardial
// effusion: trivial/small (< 10 mm), moderate (10-20 mm), large (> 20 mm)
// (ESC 2015 pericardial diseases guideline, Adler Y et al., Eur Heart J
// 2015;36:2921-2964). Haemothorax: "massive" is >= 1500 mL (ATLS 10th ed.,
// American College of Surgeons 2018). Word forms: RadLex (RSNA) modifiers.
const std::vector<SizeWord>& SizeWords() {
  using A = Amount;
  static const std::vector<SizeWord> words = {
      {"trace", A::kTrace},        {"trivial", A::kTrace},     {"tiny", A::kTrace},       {"minimal", A::kTrace},
      {"minute", A::kTrace},       {"scant", A::kTrace},       {"small", A::kSmall},      {"smaller", A::kSmall},
      {"mild", A::kSmall},         {"physiologic", A::kTrace}, {"moderate", A::kModerate}, {"moderately", A::kModerate},
      {"medium", A::kModerate},    {"large", A::kLarge},       {"larger", A::kLarge},     {"massive", A::kLarge},
      {"huge", A::kLarge},         {"sizable", A::kLarge},     {"sizeable", A::kLarge},   {"substantial", A::kLarge},
      {"voluminous", A::kLarge},   {"giant", A::kLarge},       {"big", A::kLarge},
  };
  return words;
}

const std::vector<std::string_view>& SizeFillers() {
  static const std::vector<std::string_view> words = {"sized", "size", "volume", "amount", "amounts", "quantity",
                                                      "of", "a", "an", "to", "and", "or"};
  return words;
}

const std::vector<std::string_view>& NotSizedNouns() {
  static const std::vector<std::string_view> words = {"bowel", "intestine", "intestinal", "vessel", "vessels",
                                                      "airway", "airways", "cell", "saphenous"};
  return words;
}

// Technical limitations as CT reports state them (RSNA RadReport CT pulmonary
// angiography template, "study quality: diagnostic / limited /
// non-diagnostic"; PIOPED II, Stein PD et al., N Engl J Med
// 2006;354:2317-2327, where 6 % of CT angiograms were inconclusive from poor
// opacification or motion; ACR Appropriateness Criteria, Suspected Pulmonary
// Embolism, 2022: an indeterminate CTPA calls for further testing).
const std::vector<std::string_view>& LimitationPhrases() {
  static const std::vector<std::string_view> words = {
      "motion", "breathing artifact", "respiratory artifact", "streak artifact", "beam hardening",
      "mixing artifact", "artifact from", "due to artifact", "limited by", "limited evaluation",
      "limited assessment", "limited study", "limited exam", "technically limited", "evaluation is limited",
      "assessment is limited", "are limited", "is limited", "suboptimal*", "poor opacification",
      "poorly opacified", "poor bolus", "poor contrast", "suboptimally opacified", "inadequate opacification",
      "inadequately opacified", "inadequate bolus", "contrast timing", "bolus timing", "nondiagnostic",
      "non-diagnostic", "not diagnostic", "not assessed", "not evaluated", "not well evaluated",
      "not well assessed", "not adequately", "cannot be assessed", "cannot be evaluated", "not assessable",
      "not evaluable", "degraded", "body habitus", "indeterminate study"};
  return words;
}

const std::vector<std::string_view>& HistoryHeaders() {
  static const std::vector<std::string_view> words = {"history", "clinical history", "past medical history",
                                                      "medical history", "pmh", "comparison"};
  return words;
}

}  // namespace medreact
