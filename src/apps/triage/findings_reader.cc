// The findings reader: NegEx/ConText-style reading of a finding's context.
//
// How it works (Chapman et al. 2001, NegEx; Harkema et al. 2009, ConText):
// 1. Cues are found once per text, in the order of FindingCues() (the
//    trigger lists and their sources: findings_cues.cc), on a copy of the
//    lower-case text in which every cue found is masked, so a longer phrase
//    hides the triggers inside it: "cannot be excluded" (uncertainty)
//    hides "excluded" (negation), "no change in" (pseudo-negation) hides "no",
//    "not seen on the prior" (new) hides "not seen".
// 2. A term's mentions are found at word starts; each is read in three scopes:
//    the sentence; the clause (the sentence cut at termination terms such as
//    "but", "however", ", consistent with"), where negation, uncertainty and
//    hypothetical cues count; and the temporal scope (the sentence cut at the
//    strong terminations only, and at the neighbouring mentions of the same
//    finding), where age cues count.
// 3. Negation: a trigger before the term in its clause, or after it within
//    eight words without a comma between (NegEx's post-negation triggers).
//    Temporality: growth or "new since prior" anywhere in scope → acute; else
//    the nearest age cue (before the term, or after it when it describes the
//    term: "thrombus, chronic in appearance"); else a known/unchanged cue;
//    else what the term implies.
//
// Clinical decisions, each used by triage_policy.cc and rules_planner.cc:
// - Uncertain findings are affirmed. Radiologists hedge critical findings
//   ("possible", "cannot be excluded") and the hedge is acted on: the ACR
//   Practice Parameter for Communication of Diagnostic Imaging Findings
//   (2020) asks for urgent communication of findings that may need immediate
//   action, and the ESC 2019 PE guideline starts anticoagulation while a
//   suspected PE is confirmed. Hedging language: Hobby JL et al., Br J Radiol
//   2000;73:999-1001; Callen AL et al., J Digit Imaging 2020;33:1194-1201.
//   Low-probability hedges ("unlikely", "doubtful") read as negated, as
//   ConText's "probable negated existence".
// - An age range resolves to its most recent end: "acute-on-chronic",
//   "acute or chronic", "acute/subacute" are acute; "subacute to chronic" is
//   subacute. A new clot on top of an old one is still a new clot.
// - Growth ("interval increase", "propagation", "not seen on the prior")
//   means acute even of a known or chronic finding: a clot or bleed that grows
//   is a new event.
#include "apps/triage/findings_reader.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <utility>

#include "apps/triage/findings_cues.h"
#include "core/text_util.h"

namespace medreact {

struct FindingsReader::Cue {
  size_t begin = 0;
  size_t end = 0;
  CueKind kind = CueKind::kPseudo;
  CueSide side = CueSide::kBoth;
  Temporality value = Temporality::kUnspecified;
  std::string_view phrase;
};

namespace {

using K = CueKind;

// Section kinds: mentions under a question or history header are not
// findings of this study (headers: findings_cues.h).
enum SectionKind { kFindingsSection = 0, kQuestionSection = 1, kHistorySection = 2 };

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// A sentence ends at ; ! ? newline, or a period not followed by a digit
// ("2.3") nor after a one-letter word ("e.g.", "i.e.") or "vs".
bool IsSentenceEnd(std::string_view text, size_t i) {
  const char c = text[i];
  if (c == ';' || c == '!' || c == '?' || c == '\n') return true;
  if (c != '.') return false;
  if (i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) return false;
  if (i >= 1 && std::isalpha(static_cast<unsigned char>(text[i - 1])) && (i < 2 || !IsWordChar(text[i - 2]))) {
    return false;
  }
  if (i >= 2 && text.substr(i - 2, 2) == "vs" && (i < 3 || !IsWordChar(text[i - 3]))) return false;
  return true;
}

// Positions where `phrase` (a trailing '*' = stem) occurs in `text` within
// [from, to), anchored at word boundaries where the phrase has word characters.
template <typename Fn>
void ForEachPhrase(std::string_view text, std::string_view phrase, size_t from, size_t to, Fn&& fn) {
  bool stem = !phrase.empty() && phrase.back() == '*';
  if (stem) phrase.remove_suffix(1);
  if (phrase.empty() || to > text.size()) return;
  const std::string_view window = text.substr(0, to);  // never search past `to`: linear in the window
  for (size_t pos = window.find(phrase, from); pos != std::string_view::npos; pos = window.find(phrase, pos + 1)) {
    if (IsWordChar(phrase.front()) && pos > 0 && IsWordChar(text[pos - 1])) continue;
    size_t end = pos + phrase.size();
    if (stem) {
      while (end < text.size() && IsWordChar(text[end])) ++end;
    } else if (IsWordChar(phrase.back()) && end < text.size() && IsWordChar(text[end])) {
      continue;
    }
    fn(pos, end);
  }
}

// True when `word` starts a word in text[from, to) (whole word when ≤ 3 characters).
bool HasWordIn(std::string_view text, std::string_view word, size_t from, size_t to) {
  bool found = false;
  const std::string pattern = word.size() <= 3 ? std::string(word) : std::string(word) + "*";
  ForEachPhrase(text, pattern, from, to, [&](size_t, size_t) { found = true; });
  return found;
}

// The word just before `pos` (skipping spaces and hyphens), lower case.
std::string_view WordBefore(std::string_view text, size_t pos) {
  size_t e = pos;
  while (e > 0 && (text[e - 1] == ' ' || text[e - 1] == '-' || text[e - 1] == '\t')) --e;
  size_t b = e;
  while (b > 0 && IsWordChar(text[b - 1])) --b;
  return text.substr(b, e - b);
}

// The word starting at or after `pos` (skipping spaces and hyphens).
std::string_view WordAfter(std::string_view text, size_t pos) {
  size_t b = pos;
  while (b < text.size() && (text[b] == ' ' || text[b] == '-' || text[b] == '\t')) ++b;
  size_t e = b;
  while (e < text.size() && IsWordChar(text[e])) ++e;
  return text.substr(b, e - b);
}

// The number of words in text[from, to), counted up to `limit` + 1.
size_t WordsBetween(std::string_view text, size_t from, size_t to, size_t limit = 8) {
  size_t words = 0;
  for (size_t i = from; i < to && i < text.size() && words <= limit; ++i) {
    if (IsWordChar(text[i]) && (i == from || !IsWordChar(text[i - 1]))) ++words;
  }
  return words;
}

bool Contains(const std::vector<std::string_view>& list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// True when `text` ends with `phrase` at a word boundary.
bool EndsWithPhrase(std::string_view text, std::string_view phrase) {
  if (text.size() < phrase.size() || text.substr(text.size() - phrase.size()) != phrase) return false;
  const size_t at = text.size() - phrase.size();
  return at == 0 || !IsWordChar(text[at - 1]);
}

}  // namespace

std::string_view TemporalityName(Temporality t) {
  switch (t) {
    case Temporality::kAcute:
      return "acute";
    case Temporality::kSubacute:
      return "subacute";
    case Temporality::kKnown:
      return "known";
    case Temporality::kChronic:
      return "chronic";
    case Temporality::kHistorical:
      return "historical";
    case Temporality::kUnspecified:
      break;
  }
  return "unspecified";
}

std::string_view AmountName(Amount a) {
  switch (a) {
    case Amount::kTrace:
      return "trace";
    case Amount::kSmall:
      return "small";
    case Amount::kModerate:
      return "moderate";
    case Amount::kLarge:
      return "large";
    default:
      return "unstated";
  }
}

bool IsCurrentEvent(Temporality t) {
  return t == Temporality::kAcute || t == Temporality::kSubacute || t == Temporality::kUnspecified;
}

std::string DescribeMention(const FindingMention& m) {
  auto quoted = [](const std::string& cue) { return cue.empty() ? std::string() : " (\"" + cue + "\")"; };
  if (m.negated) return "negated" + quoted(m.negation_cue);
  if (m.hypothetical) return "asked, not found" + quoted(m.hypothetical_cue);
  std::string out;
  if (m.temporality != Temporality::kUnspecified) {
    out = std::string(TemporalityName(m.temporality)) +
          (m.temporal_cue.empty() ? std::string(" (implied by \"") + m.text + "\")" : quoted(m.temporal_cue));
  }
  if (m.uncertain) out += (out.empty() ? "" : ", ") + std::string("possible") + quoted(m.uncertainty_cue);
  if (m.nondiagnostic) out += (out.empty() ? "" : ", ") + std::string("non-diagnostic") + quoted(m.nondiagnostic_cue);
  return out.empty() ? "affirmed" : out;
}

FindingsReader::FindingsReader(std::string_view text) : text_(text), lower_(text) {
  for (char& c : lower_) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (size_t i = 0; i < lower_.size(); ++i) {
    if (IsSentenceEnd(lower_, i)) sentence_ends_.push_back(i);
  }
  FindCues();
  FindSections();
}

FindingsReader::~FindingsReader() = default;

void FindingsReader::FindCues() {
  std::string masked = lower_;
  for (const CueDef& def : FindingCues()) {
    const bool breaks = def.kind == K::kStrongBreak || def.kind == K::kWeakBreak;
    std::vector<std::pair<size_t, size_t>> found;
    // Breaks are found in the unmasked text: "and acute" ends a negation's scope even though
    // "acute" is also a temporal cue (masked by then).
    const std::string& haystack = breaks ? lower_ : masked;
    ForEachPhrase(haystack, def.phrase, 0, haystack.size(), [&](size_t b, size_t e) { found.emplace_back(b, e); });
    for (auto [b, e] : found) {
      CueKind kind = def.kind;
      if (def.phrase == "prior" || def.phrase == "previous") {
        const std::string_view next = WordAfter(lower_, e);
        if (next.empty() || Contains(StudyNouns(), next)) kind = K::kPseudo;
      }
      if (kind == K::kNotAFinding) not_a_finding_.push_back({b, e});
      if (kind != K::kPseudo && kind != K::kNotAFinding) {
        cues_.push_back({b, e, kind, def.side, def.value, def.phrase});
      }
      // Breaks are read, never masked: ", likely" still hedges.
      if (!breaks)
        std::fill(masked.begin() + static_cast<std::ptrdiff_t>(b), masked.begin() + static_cast<std::ptrdiff_t>(e),
                  '\x01');
    }
  }
  std::sort(cues_.begin(), cues_.end(), [](const Cue& a, const Cue& b) { return a.begin < b.begin; });
}

void FindingsReader::FindSections() {
  // A header is a short run of letters (and spaces, slashes) followed by ':'
  // at the start of a sentence or line: "Indication:", "Clinical history:".
  for (size_t start = 0; start < lower_.size();) {
    size_t b = start;
    while (b < lower_.size() && (lower_[b] == ' ' || lower_[b] == '\t' || lower_[b] == '\r')) ++b;
    size_t e = b;
    while (e < lower_.size() && e - b <= 40 &&
           (std::isalpha(static_cast<unsigned char>(lower_[e])) || lower_[e] == ' ' || lower_[e] == '/' ||
            lower_[e] == '-')) {
      ++e;
    }
    if (e < lower_.size() && lower_[e] == ':' && e > b) {
      const std::string header = Trim(std::string_view(lower_).substr(b, e - b));
      int kind = kFindingsSection;
      if (Contains(QuestionHeaders(), header)) kind = kQuestionSection;
      if (Contains(HistoryHeaders(), header)) kind = kHistorySection;
      sections_.emplace_back(b, kind);
    }
    size_t next = b;
    while (next < lower_.size() && !IsSentenceEnd(lower_, next)) ++next;
    start = next + 1;
  }
}

// [begin, end) of the sentence around `pos`, at most kMaxScopeChars each side.
FindingsReader::Span FindingsReader::Sentence(size_t pos) const {
  const size_t floor = pos > kMaxScopeChars ? pos - kMaxScopeChars : 0;
  const size_t ceiling = std::min(lower_.size(), pos + kMaxScopeChars);
  auto next = std::lower_bound(sentence_ends_.begin(), sentence_ends_.end(), pos);
  const size_t end = next == sentence_ends_.end() ? ceiling : std::min(ceiling, *next);
  const size_t begin = next == sentence_ends_.begin() ? floor : std::max(floor, *std::prev(next) + 1);
  return {begin, std::max(begin, end)};
}

FindingsReader::Span FindingsReader::Clause(const Span& term, bool weak_breaks) const {
  Span s = Sentence(term.begin);
  s.end = std::max(s.end, std::min(term.end, lower_.size()));
  auto first =
      std::lower_bound(cues_.begin(), cues_.end(), s.begin, [](const Cue& c, size_t pos) { return c.begin < pos; });
  for (auto it = first; it != cues_.end() && it->begin < s.end; ++it) {
    if (it->kind != K::kStrongBreak && !(weak_breaks && it->kind == K::kWeakBreak)) continue;
    if (it->begin < term.begin && it->end <= term.begin) s.begin = std::max(s.begin, it->begin);
    if (it->begin >= term.end) s.end = std::min(s.end, it->begin);
  }
  return s;
}

std::vector<FindingsReader::Span> FindingsReader::Matches(const FindingTerm& term) const {
  std::vector<Span> out;
  const std::string_view needle = term.text;
  if (needle.empty()) return out;
  const bool whole = needle.size() <= 3;
  // The study context is the whole text's: read once, not per match.
  bool study_named = false;
  if (term.study) {
    for (std::string_view word : *term.study) {
      if (HasWordIn(lower_, word, 0, lower_.size())) study_named = true;
    }
  }
  for (size_t pos = lower_.find(needle); pos != std::string::npos; pos = lower_.find(needle, pos + 1)) {
    if (pos > 0 && IsWordChar(lower_[pos - 1]) && IsWordChar(needle.front())) continue;
    size_t end = pos + needle.size();
    if (whole && end < lower_.size() && IsWordChar(lower_[end])) {
      // A capitalised abbreviation's plural: "PEs", "DVTs" (not "pes planus").
      const bool caps = std::all_of(text_.begin() + static_cast<std::ptrdiff_t>(pos),
                                    text_.begin() + static_cast<std::ptrdiff_t>(end),
                                    [](char c) { return !std::islower(static_cast<unsigned char>(c)); });
      const bool plural = text_[end] == 's' && (end + 1 >= lower_.size() || !IsWordChar(lower_[end + 1]));
      if (!(caps && plural)) continue;
      ++end;
    }
    if (!whole) {
      while (end < lower_.size() && IsWordChar(lower_[end])) ++end;  // the stem's whole word, for quoting
    }
    const bool in_name = std::any_of(not_a_finding_.begin(), not_a_finding_.end(),
                                     [&](const Span& s) { return pos < s.end && end > s.begin; });
    if (in_name) continue;
    if (term.not_after && Contains(*term.not_after, WordBefore(lower_, pos))) continue;
    if (term.not_before && Contains(*term.not_before, WordAfter(lower_, end))) continue;
    if (!InContext(term, pos, study_named)) continue;
    out.push_back({pos, end});
  }
  return out;
}

bool FindingsReader::InContext(const FindingTerm& term, size_t pos, bool study_named) const {
  if (!term.context && !term.study) return true;
  if (study_named) return true;
  if (term.context) {
    const Span s = Sentence(pos);
    for (std::string_view word : *term.context) {
      if (HasWordIn(lower_, word, s.begin, s.end)) return true;
    }
  }
  return false;
}

// True when a cue after the term is said of it: right after it, or after a
// comma or a describing word ("PE, unchanged", "SDH is stable", "thrombus
// which appears chronic"); not "transformation of the known infarct".
bool FindingsReader::SaidOf(const Span& term, const Cue& cue) const {
  size_t end = cue.begin;
  while (end > term.end && std::isspace(static_cast<unsigned char>(lower_[end - 1]))) --end;
  if (end == term.end) return true;
  const char last = lower_[end - 1];
  if (last == ',' || last == '(' || last == '-' || last == ':') return true;
  const std::string_view gap = std::string_view(lower_).substr(term.end, end - term.end);
  return std::any_of(DescribingLeads().begin(), DescribingLeads().end(),
                     [&](std::string_view lead) { return EndsWithPhrase(gap, lead); });
}

// True when an age cue after the term describes it: said of it, and not
// itself the adjective of another noun (PredicativeFollowers()).
bool FindingsReader::Describes(const Span& term, const Cue& cue, const std::vector<Span>& all) const {
  if (!SaidOf(term, cue)) return false;
  size_t next = cue.end;
  while (next < lower_.size() && (lower_[next] == ' ' || lower_[next] == '-')) ++next;
  if (next >= lower_.size() || !IsWordChar(lower_[next])) return true;  // end, punctuation
  if (Contains(PredicativeFollowers(), WordAfter(lower_, next))) return true;
  // "consistent with chronic thromboembolic disease": the adjective of
  // another mention of the same finding.
  return std::any_of(all.begin(), all.end(), [&](const Span& s) { return s.begin == next || s.begin == cue.begin; });
}

void FindingsReader::ReadContext(const std::vector<Span>& all, size_t index, FindingMention& m) const {
  const Span term = all[index];
  const Span clause = Clause(term, /*weak_breaks=*/true);
  Span scope = Clause(term, /*weak_breaks=*/false);
  // The temporal scope stops at the neighbouring mentions of the same finding:
  // "chronic infarct on the right and acute infarct on the left".
  if (index > 0 && all[index - 1].end <= term.begin) scope.begin = std::max(scope.begin, all[index - 1].end);
  if (index + 1 < all.size() && all[index + 1].begin >= term.end) {
    scope.end = std::min(scope.end, all[index + 1].begin);
  }

  std::string quote =
      Trim(std::string_view(text_).substr(scope.begin, std::min<size_t>(scope.end - scope.begin, 400)));
  while (!quote.empty() && !IsWordChar(quote.front())) quote.erase(0, 1);
  if (quote.size() > 200) quote = quote.substr(0, 197) + "...";
  m.clause = quote;

  // "non-contrast", "non occlusive": the prefix negates the word it is on.
  if (term.begin >= 4) {
    const std::string_view prefix = std::string_view(lower_).substr(term.begin - 4, 4);
    if (prefix == "non-" || prefix == "non ") {
      m.negated = true;
      m.negation_cue = "non-";
    }
  }
  // "?PE": a query written as a prefix is a hedge; a sentence that ends in
  // '?' asks a question.
  {
    size_t b = term.begin;
    while (b > 0 && lower_[b - 1] == ' ') --b;
    if (b > 0 && lower_[b - 1] == '?') {
      m.uncertain = true;
      m.uncertainty_cue = "?";
    }
    const Span sentence = Sentence(term.begin);
    if (sentence.end < lower_.size() && lower_[sentence.end] == '?' && sentence.end >= term.end) {
      m.hypothetical = true;
      m.hypothetical_cue = "?";
    }
  }

  struct Pick {
    const Cue* cue = nullptr;
    size_t distance = 0;
    bool before = false;
    bool Better(size_t d, bool b) const { return !cue || d < distance || (d == distance && b && !before); }
  };
  Pick change, age, status;
  const size_t from = std::min(clause.begin, scope.begin);
  const size_t to = std::max(clause.end, scope.end);
  auto first =
      std::lower_bound(cues_.begin(), cues_.end(), from, [](const Cue& c, size_t pos) { return c.begin < pos; });
  for (auto it = first; it != cues_.end() && it->begin < to; ++it) {
    const Cue& cue = *it;
    const bool overlaps = cue.begin < term.end && cue.end > term.begin;
    const bool before = overlaps || cue.end <= term.begin;
    const bool after = !overlaps && cue.begin >= term.end;
    const size_t distance = overlaps ? 0 : before ? term.begin - cue.end : cue.begin - term.end;
    const bool side_ok = (before && cue.side != CueSide::kAfter) || (after && cue.side != CueSide::kBefore);
    if (!side_ok) continue;
    // Negation, hypothesis and hedge cues act on the words after or before
    // them, never on a term they are part of ("not compressible").
    const bool in_clause = !overlaps && cue.begin >= clause.begin && cue.end <= clause.end;
    const bool in_scope = cue.begin >= scope.begin && cue.end <= scope.end;
    switch (cue.kind) {
      case K::kNegation: {
        if (!in_clause || m.negated) break;
        // After the term: NegEx's post-triggers, close and without a comma between.
        const std::string_view gap = std::string_view(lower_).substr(term.end, after ? cue.begin - term.end : 0);
        const bool near = before || (WordsBetween(lower_, term.end, cue.begin) <= 8 && gap.find(',') == gap.npos);
        if (near) {
          m.negated = true;
          m.negation_cue = std::string(cue.phrase);
        }
        break;
      }
      case K::kHypothetical:
        if (in_clause && !m.hypothetical) {
          m.hypothetical = true;
          m.hypothetical_cue = std::string(cue.phrase);
        }
        break;
      case K::kUncertainty:
        if (in_clause && !m.uncertain && (before || WordsBetween(lower_, term.end, cue.begin) <= 8)) {
          m.uncertain = true;
          m.uncertainty_cue = std::string(cue.phrase);
        }
        break;
      case K::kChange:
        if (in_scope && change.Better(distance, before)) change = {&cue, distance, before};
        break;
      case K::kStatus:
        if (in_scope && (before || SaidOf(term, cue)) && status.Better(distance, before)) {
          status = {&cue, distance, before};
        }
        break;
      case K::kHistorical:
      case K::kFeature:
        if (in_scope && age.Better(distance, before)) age = {&cue, distance, before};
        break;
      case K::kAge:
        if (in_scope && (before || Describes(term, cue, all)) && age.Better(distance, before)) {
          age = {&cue, distance, before};
        }
        break;
      default:
        break;
    }
  }
  const Pick& decided = change.cue ? change : age.cue ? age : status;
  if (decided.cue) {
    m.temporality = decided.cue->value;
    m.temporal_cue = text_.substr(decided.cue->begin, decided.cue->end - decided.cue->begin);
  }

  ReadAmount(term, clause, m);
  ReadLimitation(term, m);

  // Sections: an indication asks, a history section tells the past.
  int section = kFindingsSection;
  std::string header;
  auto next_section = std::upper_bound(sections_.begin(), sections_.end(), term.begin,
                                       [](size_t pos, const std::pair<size_t, int>& s) { return pos < s.first; });
  if (next_section != sections_.begin()) {
    const auto& [start, kind] = *std::prev(next_section);
    section = kind;
    const size_t colon = text_.find(':', start);
    header = text_.substr(start, colon == std::string::npos ? 0 : std::min<size_t>(40, colon - start));
  }
  if (section == kQuestionSection && !m.hypothetical) {
    m.hypothetical = true;
    m.hypothetical_cue = Trim(header) + ":";
  }
  if (section == kHistorySection) {
    m.temporality = Temporality::kHistorical;
    m.temporal_cue = Trim(header) + ":";
  }
}

// The size word among the four words before the term, within its clause
// ("small amount of", "massive retroperitoneal", "moderate-sized left"); of
// several ("small to moderate") the larger. "Small bowel", "large vessel"
// name an organ, not a size.
void FindingsReader::ReadAmount(const Span& term, const Span& clause, FindingMention& m) const {
  size_t pos = term.begin;
  std::string_view after;  // the word after the one read
  for (int words = 0; words < 4 && pos > clause.begin; ++words) {
    const std::string_view word = WordBefore(lower_, pos);
    if (word.empty()) break;
    const size_t start = static_cast<size_t>(word.data() - lower_.data());
    if (start < clause.begin) break;
    pos = start;
    auto size = std::find_if(SizeWords().begin(), SizeWords().end(),
                             [&](const SizeWord& s) { return s.word == word; });
    if (size != SizeWords().end() && !Contains(NotSizedNouns(), after) && size->amount > m.amount) {
      m.amount = size->amount;
      m.amount_cue = text_.substr(start, word.size());
    }
    if (Contains(SizeFillers(), word)) --words;  // "small amount of": fillers do not count
    after = word;
  }
}

// An exclusion hedge beside a technical limitation (this sentence or the one
// before): the study could not show the finding, which is not finding it.
void FindingsReader::ReadLimitation(const Span& term, FindingMention& m) const {
  if (!m.uncertain) return;
  const std::string_view cue = m.uncertainty_cue;
  const bool exclusion = cue.find("exclud") != cue.npos || cue.find("rule") != cue.npos;
  if (!exclusion) return;
  Span where = Sentence(term.begin);
  if (where.begin > 1) where.begin = Sentence(where.begin - 2).begin;
  for (std::string_view phrase : LimitationPhrases()) {
    const std::string pattern(phrase);
    ForEachPhrase(lower_, pattern, where.begin, where.end, [&](size_t b, size_t e) {
      if (m.nondiagnostic) return;
      m.nondiagnostic = true;
      m.nondiagnostic_cue = text_.substr(b, e - b);
    });
    if (m.nondiagnostic) return;
  }
}

std::vector<FindingMention> FindingsReader::Read(const FindingConcept& finding) const {
  struct Hit {
    Span span;
    const FindingTerm* term;
  };
  std::vector<Hit> hits;
  for (const FindingTerm& term : finding.terms) {
    for (const Span& s : Matches(term)) hits.push_back({s, &term});
  }
  // Text order; at one position the longer match first; overlaps count once.
  std::stable_sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
    if (a.span.begin != b.span.begin) return a.span.begin < b.span.begin;
    return a.span.end > b.span.end;
  });
  std::vector<Hit> kept;
  for (const Hit& hit : hits) {
    if (!kept.empty() && hit.span.begin < kept.back().span.end) continue;
    kept.push_back(hit);
  }
  std::vector<Span> spans;
  for (const Hit& hit : kept) spans.push_back(hit.span);
  std::vector<FindingMention> out;
  for (size_t i = 0; i < kept.size(); ++i) {
    FindingMention m;
    m.term = std::string(kept[i].term->text);
    m.label = std::string(kept[i].term->label.empty() ? finding.label : kept[i].term->label);
    m.text = text_.substr(kept[i].span.begin, kept[i].span.end - kept[i].span.begin);
    m.offset = kept[i].span.begin;
    m.chronic_is_present = kept[i].term->chronic_is_present;
    ReadContext(spans, i, m);
    if (m.temporality == Temporality::kUnspecified && m.temporal_cue.empty()) m.temporality = kept[i].term->implied;
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<std::string> FindingsReader::LimitedSentences(const std::vector<std::string_view>& context) const {
  std::vector<std::string> out;
  size_t begin = 0;
  std::vector<size_t> ends = sentence_ends_;
  ends.push_back(lower_.size());
  for (size_t end : ends) {
    if (end <= begin) {
      begin = end + 1;
      continue;
    }
    const Span s = {begin, std::min(end, begin + kMaxScopeChars)};
    begin = end + 1;
    const bool in_context = std::any_of(context.begin(), context.end(),
                                        [&](std::string_view w) { return HasWordIn(lower_, w, s.begin, s.end); });
    if (!in_context) continue;
    bool limited = false;
    for (std::string_view phrase : LimitationPhrases()) {
      ForEachPhrase(lower_, std::string(phrase), s.begin, s.end, [&](size_t b, size_t) {
        // "no motion artifact", "without streak artifact": a limitation denied.
        const size_t from = b > s.begin + 16 ? b - 16 : s.begin;
        const std::string_view before = std::string_view(lower_).substr(from, b - from);
        const bool denied = before.find("no ") != before.npos || before.find("without ") != before.npos ||
                            before.find("free of ") != before.npos;
        if (!denied) limited = true;
      });
      if (limited) break;
    }
    if (!limited) continue;
    std::string quote = Trim(std::string_view(text_).substr(s.begin, s.end - s.begin));
    if (quote.size() > 200) quote = quote.substr(0, 197) + "...";
    out.push_back(std::move(quote));
  }
  return out;
}

std::vector<FindingMention> FindingsReader::Read(std::string_view term) const {
  std::string lower(term);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const FindingConcept single{.id = "term", .label = lower, .terms = {{.text = lower}}, .source = ""};
  return Read(single);
}

bool HasAffirmedMention(std::string_view text, std::string_view term) {
  const FindingsReader reader(text);
  for (const FindingMention& m : reader.Read(term)) {
    if (m.affirmed()) return true;
  }
  return false;
}

}  // namespace medreact
