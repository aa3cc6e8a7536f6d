// Internal to note_facts: the folded note text and the helpers its readers
// share (note_facts.cc reads measurements and scores, note_age.cc ages, dates
// and sex).
#ifndef MEDREACT_APPS_EXTRACT_NOTE_TEXT_H_
#define MEDREACT_APPS_EXTRACT_NOTE_TEXT_H_

#include <cstdlib>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apps/extract/note_facts.h"

namespace medreact::note_text {

// A number as notes write it: at most 5 integer and 4 decimal digits. Bounded
// on purpose: libstdc++'s regex matcher recurses once per repetition, so an
// unbounded \d+ over a 4 MiB run of digits would overflow the stack.
inline constexpr const char* kNum = R"((\d{1,5}(?:\.\d{1,4})?))";

inline constexpr double kDaysPerMonth = 30.4375;  // 365.25 / 12, as WHO Anthro and CDC use
inline constexpr double kKgPerLb = 0.45359237;    // exact, by definition (international pound, 1959)
inline constexpr double kKgPerOz = kKgPerLb / 16;
inline constexpr double kCmPerIn = 2.54;          // exact, by definition

// A measurement found in the folded note: where, its value in kg or cm, and the words.
struct Quantity {
  size_t begin = 0;
  size_t end = 0;
  double value = 0;  // kg or cm
  std::string text;
};

// note_facts.cc: every weight (kg, g, lb with oz) and every length (cm, mm, m,
// in, ft) in the note, in order; rates and ratios ("mg/kg") are not weights.
std::vector<Quantity> Weights(const std::string& t);
std::vector<Quantity> Lengths(const std::string& t);
// When a value was taken, from the words around it ("6 months ago"); nullopt when they say no time.
std::optional<double> MonthsAgo(const std::string& words);
// Words that make a weight one of the past ("ago", "usual", "at birth", "in May").
const std::regex& PastWords();
bool Search(const std::string& text, const std::regex& pattern);

// Lower case; the Unicode minus, en and em dashes folded to '-', no-break
// spaces to ' ', and every run of white space to one character (a newline if
// the run holds one), so patterns need at most one `\s?` between words.
std::string Fold(std::string_view text);

inline double Num(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

// The first match of `pattern` in `text` (empty when none).
inline std::smatch First(const std::string& text, const std::regex& pattern) {
  std::smatch m;
  std::regex_search(text, m, pattern);
  return m;
}

// The sentence around [begin, end): from the previous '.', ';', '!', '?' or
// newline (a '.' between digits does not end a sentence) to the next.
std::pair<size_t, size_t> SentenceAround(const std::string& text, size_t begin, size_t end);

// note_age.cc: age (stated, or from a date of birth and a visit date), the
// age word and its band, and sex.
void ReadAgeAndSex(const std::string& folded, NoteFacts& facts);

// note_criteria.cc: intake (share of needs, usual or meals; NPO) and the
// disease behind malnutrition (acute, chronic), each with its source.
void ReadIntakeAndDisease(const std::string& folded, NoteFacts& facts);
// Weight loss named with no amount (after the weight-loss reader: only when it found none).
void ReadUnquantifiedWeightLoss(const std::string& folded, NoteFacts& facts);

// note_history.cc: dated weights (tables, flowsheet lines, month names, "at
// the 12-month visit") ordered by date, and numbers next to a measurement
// label that could not be used (unknown unit, no unit, a date not placed).
// ReadDatedWeights returns where the weights it placed begin (ReadWeights skips them).
std::vector<size_t> ReadDatedWeights(const std::string& folded, NoteFacts& facts);
void ReadUnusableNumbers(const std::string& folded, NoteFacts& facts);

}  // namespace medreact::note_text

#endif  // MEDREACT_APPS_EXTRACT_NOTE_TEXT_H_
