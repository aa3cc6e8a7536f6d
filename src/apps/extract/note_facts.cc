// Patterns for NoteFacts (note_facts.h): measurements, weights of the past,
// weight loss, intake, inflammation and stated scores. Ages and sex are read
// in note_age.cc. The note is folded first (note_text.h), so "z −2.3" reads
// as "z -2.3" and every run of white space is one character. Every pattern is
// an ECMAScript regex with bounded repetitions.
#include "apps/extract/note_facts.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "apps/extract/note_text.h"

namespace medreact {
namespace note_text {

std::string Fold(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_space = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    // U+2212 minus (E2 88 92), U+2013 en dash (E2 80 93), U+2014 em dash (E2 80 94)
    if (c == 0xE2 && i + 2 < text.size()) {
      const unsigned char b1 = static_cast<unsigned char>(text[i + 1]);
      const unsigned char b2 = static_cast<unsigned char>(text[i + 2]);
      if ((b1 == 0x88 && b2 == 0x92) || (b1 == 0x80 && (b2 == 0x93 || b2 == 0x94))) {
        out += '-';
        in_space = false;
        i += 2;
        continue;
      }
    }
    const bool nbsp = c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xA0;
    if (nbsp || std::isspace(c)) {
      if (nbsp) ++i;
      if (!in_space) out += ' ';
      if (c == '\n' || c == '\r') out.back() = '\n';
      in_space = true;
      continue;
    }
    // Vulgar fractions after a number: "6½" → "6.5" (U+00BD C2 BD, U+00BC C2 BC, U+00BE C2 BE).
    if (c == 0xC2 && i + 1 < text.size() && !out.empty() && std::isdigit(static_cast<unsigned char>(out.back()))) {
      const unsigned char b1 = static_cast<unsigned char>(text[i + 1]);
      const char* decimal = b1 == 0xBD ? ".5" : b1 == 0xBC ? ".25" : b1 == 0xBE ? ".75" : nullptr;
      if (decimal) {
        out += decimal;
        in_space = false;
        ++i;
        continue;
      }
    }
    in_space = false;
    out += static_cast<char>(std::tolower(c));
  }
  // "2 1/2 year old" → "2.5 year old": a whole number, a space and a half, quarter or three quarters
  // (not a date: no '/' or digit follows).
  static const std::regex kFraction(R"((\d) (1/2|1/4|3/4)(?![\d/]))");
  if (out.find('/') != std::string::npos) {
    std::string folded;
    std::string::const_iterator last = out.begin();
    for (auto it = std::sregex_iterator(out.begin(), out.end(), kFraction); it != std::sregex_iterator(); ++it) {
      folded.append(last, (*it)[0].first);
      const std::string part = (*it)[2];
      folded += std::string((*it)[1]) + (part == "1/2" ? ".5" : part == "1/4" ? ".25" : ".75");
      last = (*it)[0].second;
    }
    folded.append(last, out.cend());
    out = std::move(folded);
  }
  return out;
}

std::pair<size_t, size_t> SentenceAround(const std::string& text, size_t begin, size_t end) {
  auto is_stop = [&](size_t i) {
    const char c = text[i];
    if (c == '\n' || c == ';' || c == '!' || c == '?') return true;
    if (c != '.') return false;
    const bool digit_before = i > 0 && std::isdigit(static_cast<unsigned char>(text[i - 1]));
    const bool digit_after = i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]));
    return !(digit_before && digit_after);
  };
  size_t b = begin;
  while (b > 0 && !is_stop(b - 1)) --b;
  size_t e = end;
  while (e < text.size() && !is_stop(e)) ++e;
  return {b, e};
}

}  // namespace note_text

namespace {

using note_text::First;
using note_text::Fold;
using note_text::kCmPerIn;
using note_text::kKgPerLb;
using note_text::kKgPerOz;
using note_text::kDaysPerMonth;
using note_text::kNum;
using note_text::Num;
using note_text::SentenceAround;


// --- indicators named in the text ---------------------------------------------------

struct IndicatorWord {
  const char* pattern;
  const char* indicator;
};

// Longest phrases first, so "weight-for-length" is not read as "weight". The
// abbreviations are those of WHO Anthro (WAZ, LAZ/HAZ, WLZ/WHZ, BAZ) and of
// common clinical use (WFL, WFH, BMIZ).
const IndicatorWord kIndicatorWords[] = {
    {"weight[- ]for[- ]length", "weight_for_length"},
    {"weight[- ]for[- ]height", "weight_for_height"},
    {"bmi[- ]for[- ]age", "bmi_for_age"},
    {"body mass index[- ]for[- ]age", "bmi_for_age"},
    {"length[- ]for[- ]age", "length_for_age"},
    {"height[- ]for[- ]age", "height_for_age"},
    {"stature[- ]for[- ]age", "height_for_age"},
    {"weight[- ]for[- ]age", "weight_for_age"},
    {"head circumference", "head_circumference_for_age"},
    {"\\b(?:wfl|wlz)\\b", "weight_for_length"},
    {"\\b(?:wfh|whz)\\b", "weight_for_height"},
    {"\\b(?:baz|bmiz)\\b", "bmi_for_age"},
    {"\\b(?:laz|lfa)\\b", "length_for_age"},
    {"\\b(?:haz|hfa)\\b", "height_for_age"},
    {"\\b(?:waz|wfa)\\b", "weight_for_age"},
    {"\\b(?:hcz|ofc)\\b", "head_circumference_for_age"},
    {"\\b(?:hc|head circ)\\b", "head_circumference_for_age"},
    {"\\b(?:wt|weighs|weighing)\\b", "weight_for_age"},
    {"\\b(?:ht|hgt)\\b", "height_for_age"},
    {"\\b(?:l|lgth)\\b", "length_for_age"},
    {"\\bbmi\\b", "bmi_for_age"},
    {"body mass index", "bmi_for_age"},
    {"\\blength\\b", "length_for_age"},
    {"\\b(?:height|stature)\\b", "height_for_age"},
    {"\\bweight\\b", "weight_for_age"},
};

// Every indicator phrase in `text` with its position; a shorter phrase inside
// a longer one already found is skipped.
std::vector<std::pair<size_t, std::string>> IndicatorsIn(const std::string& text) {
  static const std::vector<std::regex> kCompiled = [] {
    std::vector<std::regex> out;
    for (const IndicatorWord& word : kIndicatorWords) out.emplace_back(word.pattern);
    return out;
  }();
  std::vector<std::pair<size_t, size_t>> taken;
  std::vector<std::pair<size_t, std::string>> found;
  for (size_t w = 0; w < std::size(kIndicatorWords); ++w) {
    const IndicatorWord& word = kIndicatorWords[w];
    const std::regex& pattern = kCompiled[w];
    for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern); it != std::sregex_iterator(); ++it) {
      const size_t b = static_cast<size_t>(it->position());
      const size_t e = b + static_cast<size_t>(it->length());
      const bool inside = std::any_of(taken.begin(), taken.end(), [&](auto& t) { return b >= t.first && e <= t.second; });
      if (inside) continue;
      taken.emplace_back(b, e);
      found.emplace_back(b, word.indicator);
    }
  }
  return found;
}

// The indicator a score at [begin, end) belongs to: the nearest phrase before
// it in its sentence, else the nearest after it.
std::string IndicatorFor(const std::string& text, size_t begin, size_t end) {
  auto [sb, se] = SentenceAround(text, begin, end);
  const std::string sentence = text.substr(sb, se - sb);
  std::string before, after;
  size_t best_before = 0, best_after = std::string::npos;
  for (const auto& [pos, indicator] : IndicatorsIn(sentence)) {
    const size_t at = sb + pos;
    if (at < begin && (before.empty() || at >= best_before)) {
      best_before = at;
      before = indicator;
    } else if (at >= end && at < best_after) {
      best_after = at;
      after = indicator;
    }
  }
  // "3rd percentile for weight", "(10th %ile for BMI)": the phrase right after says which.
  static const std::regex kForAfter(R"(^\s?\)?\s?(?:for|of)\s?(?:the\s?)?(?:age\s?)?)");
  if (!after.empty() && best_after != std::string::npos && best_after >= end) {
    const std::string between = text.substr(end, best_after - end);
    if (std::regex_search(between, kForAfter) && between.size() <= 12) return after;
  }
  return !before.empty() ? before : after;
}

// --- quantities and their context -------------------------------------------------------

// The words a quantity reads in: before it, from the start of its sentence,
// the end of the previous quantity or the last ',' or ';' (whichever is
// latest); after it, to the next quantity, the end of its sentence, or the
// first ',', ';', bracket, "and" or "but". "Weight 11.8 kg (12.6 kg 6 months
// ago)" gives each number its own words; "Previously healthy, weight 11.8 kg"
// does not make today's weight a past one.
struct Context {
  std::string before;
  std::string after;
};

template <typename Q>
Context ContextOf(const std::string& t, const std::vector<Q>& all, size_t i) {
  auto [sb, se] = SentenceAround(t, all[i].begin, all[i].end);
  size_t from = sb;
  if (i > 0 && all[i - 1].end > from && all[i - 1].end <= all[i].begin) from = all[i - 1].end;
  const size_t cut = t.substr(from, all[i].begin - from).find_last_of(",;");
  if (cut != std::string::npos) from += cut + 1;
  size_t to = se;
  if (i + 1 < all.size() && all[i + 1].begin < to && all[i + 1].begin >= all[i].end) to = all[i + 1].begin;
  std::string after = t.substr(all[i].end, to - all[i].end);
  size_t stop = after.find_first_of(",;()[]");
  for (const char* word : {" and ", " but ", " whereas "}) stop = std::min(stop, after.find(word));
  if (stop != std::string::npos) after.resize(stop);
  return {t.substr(from, all[i].begin - from), after};
}

}  // namespace

namespace note_text {

std::vector<Quantity> Weights(const std::string& t) {
  // kg, g, lb (with oz), never a rate or a ratio ("mg/kg", "kg/m2", "g/dl": a '/' follows or precedes).
  static const std::regex kWeight(std::string("\\b") + kNum +
                                  R"(\s?(kilograms?|kilos?|kgs?|grams?|gms?|gm|g|pounds?|lbs?)(?:\s?)" + kNum +
                                  R"(\s?(?:oz|ounces?))?(?![a-z/0-9]))");
  std::vector<Quantity> out;
  for (auto it = std::sregex_iterator(t.begin(), t.end(), kWeight); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    const size_t b = static_cast<size_t>(m.position());
    if (b > 0 && t[b - 1] == '/') continue;
    if (b > 1 && t[b - 1] == ',' && std::isdigit(static_cast<unsigned char>(t[b - 2]))) continue;  // "15,2 kg": not 2 kg
    const std::string unit = m[2];
    double kg = Num(m[1]);
    if (unit[0] == 'k') {
      // kilograms
    } else if (unit[0] == 'g') {
      kg /= 1000;
    } else {
      kg = kg * kKgPerLb + (m[3].matched ? Num(m[3]) * kKgPerOz : 0);
    }
    out.push_back({b, b + static_cast<size_t>(m.length()), kg, m.str()});
  }
  return out;
}

std::vector<Quantity> Lengths(const std::string& t) {
  // cm, mm, m, in, and feet with inches (5 ft 4 in, 5'4").
  static const std::regex kLength(std::string("\\b") + kNum +
                                  R"(\s?(centimet(?:er|re)s?|cm|millimet(?:er|re)s?|mm|met(?:er|re)s?|m|inch(?:es)?|in)(?![a-z0-9/²]))");
  static const std::regex kFeet(R"(\b(\d)\s?(?:ft|feet|foot|')\s?(\d{1,2}(?:\.\d{1,2})?)?\s?(?:in(?:ch(?:es)?)?\b|"|'')?)");
  std::vector<Quantity> out;
  for (auto it = std::sregex_iterator(t.begin(), t.end(), kLength); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    const size_t at = static_cast<size_t>(m.position());
    if (at > 1 && t[at - 1] == ',' && std::isdigit(static_cast<unsigned char>(t[at - 2]))) continue;  // "96,5 cm"
    const std::string unit = m[2];
    double cm = Num(m[1]);
    if (unit.rfind("mm", 0) == 0 || unit.rfind("milli", 0) == 0) cm /= 10;
    else if (unit == "m" || unit.rfind("met", 0) == 0) cm *= 100;
    else if (unit.rfind("in", 0) == 0) cm *= kCmPerIn;
    const size_t b = static_cast<size_t>(m.position());
    out.push_back({b, b + static_cast<size_t>(m.length()), cm, m.str()});
  }
  for (auto it = std::sregex_iterator(t.begin(), t.end(), kFeet); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    const size_t b = static_cast<size_t>(m.position());
    const size_t e = b + static_cast<size_t>(m.length());
    // "5'4"" may also have matched as "4 in": the feet reading replaces it.
    out.erase(std::remove_if(out.begin(), out.end(), [&](const Quantity& q) { return q.begin >= b && q.begin < e; }),
              out.end());
    const double inches = Num(m[1]) * 12 + (m[2].matched ? Num(m[2]) : 0);
    out.push_back({b, e, inches * kCmPerIn, m.str()});
  }
  std::sort(out.begin(), out.end(), [](const Quantity& a, const Quantity& b) { return a.begin < b.begin; });
  return out;
}

bool Search(const std::string& text, const std::regex& pattern) { return std::regex_search(text, pattern); }

// When a value was taken, from the words around it: "6 months ago", "3 weeks earlier", "last visit",
// "last month", "last year". nullopt when the words give no time.
std::optional<double> MonthsAgo(const std::string& words) {
  static const std::regex kAgo(std::string(R"(\b)") + kNum + R"(\s?(months?|mos?|weeks?|wks?|years?|yrs?|days?)\s?(?:ago|earlier|before|prior|previously)\b)");
  std::smatch m;
  if (std::regex_search(words, m, kAgo)) {
    const double n = Num(m[1]);
    const char u = std::string(m[2])[0];
    return u == 'y' ? n * 12 : u == 'm' ? n : u == 'w' ? n * 7 / kDaysPerMonth : n / kDaysPerMonth;
  }
  static const std::regex kLastMonth(R"(\blast month\b)");
  static const std::regex kLastYear(R"(\blast year\b|\ba year ago\b)");
  static const std::regex kLastWeek(R"(\blast week\b|\ba week ago\b)");
  if (Search(words, kLastMonth)) return 1.0;
  if (Search(words, kLastYear)) return 12.0;
  if (Search(words, kLastWeek)) return 7 / kDaysPerMonth;
  return std::nullopt;
}

// A past weight: its words say when, or that it is not today's.
const std::regex& PastWords() {
  static const std::regex kPast(
      R"(\b(?:ago|earlier|previous(?:ly)?|prior|last (?:visit|appointment|clinic|month|year|week|review)|at (?:the )?(?:last|previous)|usual|baseline|premorbid|pre-?illness|pre-?morbid|before (?:the |his |her )?(?:illness|admission|diagnosis|surgery|chemotherapy)|used to|at birth|birth ?weight|born at|born weighing|in (?:january|february|march|april|may|june|july|august|september|october|november|december))\b)");
  return kPast;
}

}  // namespace note_text

namespace {

using note_text::MonthsAgo;
using note_text::PastWords;
using note_text::Quantity;
using note_text::Search;
using note_text::Weights;
using note_text::Lengths;

void ReadWeights(const std::string& t, NoteFacts& f, const std::vector<size_t>& dated) {
  const std::vector<Quantity> all = Weights(t);
  static const std::regex kDelta(R"((?:\blost|\bloss of|\blosing|\bdown|\bgained|\bgain of|\bgaining|\bdrop of|\bdecrease of|\bdecreased by|\breduction of|\bup)\s?(?:about |approximately |around |~|nearly |almost |over )?$)");
  static const std::regex kNotABodyWeight(R"(^\s?(?:of |per |a day|daily|/|protein|fat|fibre|fiber|carbohydrate|sugar|salt|sodium|tablet|dose))");
  static const std::regex kFrom(R"(\bfrom\s?$)");
  static const std::regex kTo(R"(\bto\s?$)");
  static const std::regex kBirth(R"(\b(?:at birth|birth ?weight|born at|born weighing|bw)\b)");
  static const std::regex kUsual(R"(\b(?:usual|baseline|premorbid|pre-?illness|pre-?morbid|normal|healthy|previous(?:ly)?|prior|used to)\b)");
  static const std::regex kOtherPerson(R"(\b(?:mother|father|sibling|brother|sister|twin|parent)\b)");
  bool from_pending = false;
  for (size_t i = 0; i < all.size(); ++i) {
    const Quantity& q = all[i];
    if (std::find(dated.begin(), dated.end(), q.begin) != dated.end()) continue;  // placed by its date
    const Context c = ContextOf(t, all, i);
    if (std::regex_search(c.after, kNotABodyWeight)) continue;
    if (std::regex_search(c.before, kOtherPerson)) continue;
    if (std::regex_search(c.before, kDelta)) {
      // "lost 3 kg": a change, read by ReadWeightLoss.
      continue;
    }
    const std::string words = c.before + " " + c.after;
    if (std::regex_search(c.before, kFrom)) {
      // "from 74 kg to 64 kg": the first is the baseline.
      WeightPoint p;
      p.kg = q.value;
      p.months_ago = MonthsAgo(words);
      p.usual = true;
      p.quote = q.text;
      f.weight_history.push_back(p);
      from_pending = true;
      continue;
    }
    if (from_pending && std::regex_search(c.before, kTo)) {
      from_pending = false;
      if (!f.weight_kg) {
        f.weight_kg = q.value;
      }
      continue;
    }
    from_pending = false;
    if (std::regex_search(words, PastWords())) {
      WeightPoint p;
      p.kg = q.value;
      p.quote = (c.before.size() > 40 ? c.before.substr(c.before.size() - 40) : c.before) + q.text;
      p.at_birth = std::regex_search(words, kBirth);
      p.months_ago = MonthsAgo(words);
      p.usual = !p.months_ago && std::regex_search(words, kUsual);
      f.weight_history.push_back(p);
      continue;
    }
    if (!f.weight_kg) {
      f.weight_kg = q.value;
    }
  }
}

void ReadStature(const std::string& t, NoteFacts& f) {
  const std::vector<Quantity> all = Lengths(t);
  // The label must be in the words before the number ("height 94 cm", "Ht: 94cm", "length/height 70 cm")
  // or right after it ("94 cm tall", "70 cm long"); an unlabelled "3 cm" is a lesion, not a child.
  static const std::regex kHeadLabel(R"(\b(?:head circumference|head circ|hc|ofc|occipito-?frontal)\b)");
  static const std::regex kOtherLabel(R"(\b(?:muac|mid-?upper arm|arm circumference|waist|hip|chest|abdominal|girth|lesion|mass|nodule|tumou?r|wound|cyst|incision|diameter|size|laceration|skinfold|triceps)\b)");
  static const std::regex kLengthLabel(R"(\b(?:length|lgth|l|recumbent|crown-heel|long)\b)");
  static const std::regex kHeightLabel(R"(\b(?:height|ht|stature|standing|tall)\b)");
  static const std::regex kMeasures(R"(\b(?:measures|measured|measuring)\b)");
  static const std::regex kTallAfter(R"(^\s?(?:tall|long|in (?:height|length))\b)");
  for (size_t i = 0; i < all.size(); ++i) {
    const Quantity& q = all[i];
    const Context c = ContextOf(t, all, i);
    // The label nearest the number: only the last 30 characters before it.
    const std::string near = c.before.size() > 30 ? c.before.substr(c.before.size() - 30) : c.before;
    if (std::regex_search(near, kHeadLabel)) {
      if (!f.head_circumference_cm && !std::regex_search(near + c.after, PastWords())) f.head_circumference_cm = q.value;
      continue;
    }
    if (std::regex_search(near, kOtherLabel)) continue;
    const bool length = std::regex_search(near, kLengthLabel);
    const bool height = std::regex_search(near, kHeightLabel);
    const bool after = std::regex_search(c.after, kTallAfter);
    if (!length && !height && !after && !std::regex_search(near, kMeasures)) {
      // "Wt 14 kg, 96 cm": a body-sized length with no label, next to a weight, is a stature the note does not
      // name; it is not used, and that is said (issue 24: a value without a label makes "none" unsafe).
      static const std::regex kWeightJustBefore(R"((?:kg|kgs|g|lbs?|pounds?|oz)\s?[,;/]?\s?(?:and\s)?$)");
      const std::string raw = t.substr(q.begin >= 12 ? q.begin - 12 : 0, std::min<size_t>(q.begin, 12));
      // 40-200 cm: a reading bound (an infant's length to an adult's height), not a clinical cut-off.
      if (q.value >= 40 && q.value <= 200 && std::regex_search(raw, kWeightJustBefore)) {
        f.unusable.push_back(q.text + " has no label (length or height?): re-check which measurement it is");
      }
      continue;
    }
    if (std::regex_search(near + " " + c.after, PastWords())) continue;  // "height at the last visit 92 cm"
    if (f.height_cm) continue;
    f.height_cm = q.value;
    if (length && height) f.stature_measure = "";  // "length/height": the age decides
    else if (length || (after && c.after.find("long") != std::string::npos)) f.stature_measure = "length";
    else if (height || after) f.stature_measure = "height";
  }
  static const std::regex kBmi(std::string(R"(\b(?:bmi|body mass index)(?:\s?(?:is|was|of|:|=|,|today|now|currently)){0,2}\s?)") + kNum +
                               R"((?!\d|\.\d|\s?(?:st|nd|rd|th)\b|\s?(?:percentile|centile|%)|\s?z\b|\s?-?\s?for))");
  if (std::smatch m = First(t, kBmi); !m.empty()) f.bmi = Num(m[1]);
}

void ReadWeightLoss(const std::string& t, NoteFacts& f) {
  static const std::regex kPercent(std::string(R"(\b)") + kNum + R"(\s?% (?:weight loss|loss of (?:body )?weight|(?:body )?weight loss|of (?:his |her |their )?(?:usual |body |baseline )?(?:body )?weight))");
  static const std::regex kLossOf(std::string(R"(\bweight loss of (?:about |approximately |nearly )?)") + kNum + R"(\s?%)");
  static const std::regex kLostPercent(std::string(R"(\blost (?:about |approximately |nearly )?)") + kNum + R"(\s?%)");
  static const std::regex kLostKg(std::string(R"(\b(?:lost|loss of|down) (?:about |approximately |nearly )?)") + kNum +
                                  R"(\s?(kg|kilograms?|lbs?|pounds?)(?![a-z/]))");
  static const std::regex kPeriod(std::string(R"(\b(?:over|in|during|within|across) (?:the )?(?:past |last |preceding |previous )?)") + kNum +
                                  R"(\s?(months?|weeks?|years?))");
  std::smatch m;
  // The baseline: a usual weight, else the past weight with a date giving the largest loss (never a birth weight).
  const WeightPoint* baseline = nullptr;
  for (const WeightPoint& p : f.weight_history) {
    if (p.usual && !p.at_birth) {
      baseline = &p;
      break;
    }
  }
  if (!baseline && f.weight_kg) {
    for (const WeightPoint& p : f.weight_history) {
      if (p.at_birth || (!p.months_ago && !p.dated)) continue;  // a dated point of unknown distance still counts
      if (!baseline || p.kg > baseline->kg) baseline = &p;
    }
  }
  std::optional<double> lost_kg;
  if (m = First(t, kLostKg); !m.empty()) {
    lost_kg = Num(m[1]) * (std::string(m[2])[0] == 'k' ? 1.0 : kKgPerLb);
  }
  if (baseline) {
    f.usual_weight_kg = baseline->kg;
    if (baseline->months_ago) f.weight_loss_months = baseline->months_ago;
    if (!f.weight_kg && lost_kg) f.weight_kg = *f.usual_weight_kg - *lost_kg;
  } else if (lost_kg && f.weight_kg) {
    f.usual_weight_kg = *f.weight_kg + *lost_kg;
  }
  if (m = First(t, kLossOf); !m.empty()) {
    f.weight_loss_percent = Num(m[1]);
  } else if (m = First(t, kLostPercent); !m.empty()) {
    f.weight_loss_percent = Num(m[1]);
  } else if (m = First(t, kPercent); !m.empty()) {
    f.weight_loss_percent = Num(m[1]);
  } else if (f.usual_weight_kg && f.weight_kg && *f.usual_weight_kg > *f.weight_kg) {
    f.weight_loss_percent = (*f.usual_weight_kg - *f.weight_kg) / *f.usual_weight_kg * 100.0;
  }
  if ((f.weight_loss_percent || f.usual_weight_kg) && !f.weight_loss_months) {
    // The period nearest after the first mention of weight or loss.
    const size_t anchor = std::min(t.find("lost"), t.find("weight loss"));
    const std::string tail = anchor == std::string::npos ? t : t.substr(anchor);
    if (m = First(tail, kPeriod); !m.empty()) {
      const double n = Num(m[1]);
      const char u = std::string(m[2])[0];
      f.weight_loss_months = u == 'w' ? n * 7 / kDaysPerMonth : u == 'y' ? n * 12 : n;
    }
  }
}

void ReadScores(const std::string& t, NoteFacts& f) {
  // "below the 3rd percentile", "<5th percentile", "at the 10th centile"
  static const std::regex kPercentile(std::string(kNum) + R"((?:st|nd|rd|th)?\s?(?:percentile|centile|%ile))");
  for (auto it = std::sregex_iterator(t.begin(), t.end(), kPercentile); it != std::sregex_iterator(); ++it) {
    const size_t b = static_cast<size_t>(it->position());
    const double p = Num((*it)[1]);
    if (p <= 0 || p >= 100) continue;
    f.percentiles.push_back({p, IndicatorFor(t, b, b + static_cast<size_t>(it->length())), it->str()});
  }
  std::vector<size_t> taken;  // positions of numbers already read
  // "WHZ -2.5", "WFL z-score -2.4", "BAZ = -3.1": the abbreviation names the indicator.
  static const std::regex kAbbreviated(
      R"(\b(whz|wlz|wfl|wfh|baz|bmiz|bmi|waz|wfa|haz|hfa|laz|lfa|hcz)(?:[- ]?z(?:[- ]?scores?)?)?(?:\s?(?:is|was|of|:|=|,)){0,2}\s?([-+]?\d{1,2}(?:\.\d{1,3})?)(?!\d|\.\d|%|\s?(?:kg|cm|st|nd|rd|th|percentile|centile)))");
  for (auto it = std::sregex_iterator(t.begin(), t.end(), kAbbreviated); it != std::sregex_iterator(); ++it) {
    const std::string word = (*it)[1];
    const std::string whole = it->str();
    // "BMI 15.2" is a BMI, not a z: "bmi" counts only when a z follows it.
    if (word == "bmi" && whole.find('z') == std::string::npos) continue;
    const size_t number_at = static_cast<size_t>(it->position(2));
    const double z = Num((*it)[2]);
    taken.push_back(number_at);
    f.zscores.push_back({z, IndicatorFor(t, static_cast<size_t>(it->position()) + word.size(), number_at), whole});
    // The abbreviation is the nearest phrase before the number, so IndicatorFor names it.
  }
  // "z-score of -2.3", "z = -2.31", "z score -1.9", "(z -3.1)", "sds -2.0"
  static const std::regex kZ(R"(\b(?:z[- ]?scores?|z|sds)(?:\s?(?:is|was|of|:|=|,|at)){0,2}\s?([-+]?\d{1,2}(?:\.\d{1,3})?)(?!\d|\.\d))");
  for (auto it = std::sregex_iterator(t.begin(), t.end(), kZ); it != std::sregex_iterator(); ++it) {
    const size_t number_at = static_cast<size_t>(it->position(1));
    if (std::find(taken.begin(), taken.end(), number_at) != taken.end()) continue;
    const size_t b = static_cast<size_t>(it->position());
    const double z = Num((*it)[1]);
    f.zscores.push_back({z, IndicatorFor(t, b, b + static_cast<size_t>(it->length())), it->str()});
  }
}

}  // namespace

const char* PopulationName(Population population) {
  switch (population) {
    case Population::kPediatric:
      return "pediatric";
    case Population::kAdult:
      return "adult";
    case Population::kUnknown:
      break;
  }
  return "unknown";
}

Population NoteFacts::population() const {
  // ASPEN/AND's pediatric criteria end at 18 years, where GLIM's adult ones begin.
  constexpr double kAdultFromMonths = 216;
  if (age_months) return *age_months < kAdultFromMonths ? Population::kPediatric : Population::kAdult;
  if (age_max_months && *age_max_months <= kAdultFromMonths) return Population::kPediatric;
  if (age_min_months && *age_min_months >= kAdultFromMonths) return Population::kAdult;
  return Population::kUnknown;
}

bool NoteFacts::AgeSurelyUnder(double months) const {
  if (age_months) return *age_months < months;
  return age_max_months && *age_max_months <= months;
}

bool NoteFacts::AgeSurelyAtLeast(double months) const {
  if (age_months) return *age_months >= months;
  return age_min_months && *age_min_months >= months;
}

std::string IndicatorNamedIn(std::string_view text) {
  const std::string t = Fold(text);
  std::string best;
  size_t best_pos = 0;
  for (const auto& [pos, indicator] : IndicatorsIn(t)) {
    if (best.empty() || pos >= best_pos) {
      best_pos = pos;
      best = indicator;
    }
  }
  return best;
}

NoteFacts ReadNoteFacts(std::string_view note) {
  const std::string t = Fold(note);
  NoteFacts f;
  note_text::ReadAgeAndSex(t, f);
  const std::vector<size_t> dated = note_text::ReadDatedWeights(t, f);
  ReadWeights(t, f, dated);
  ReadStature(t, f);
  ReadWeightLoss(t, f);
  note_text::ReadIntakeAndDisease(t, f);
  ReadScores(t, f);
  note_text::ReadUnusableNumbers(t, f);
  note_text::ReadUnquantifiedWeightLoss(t, f);
  return f;
}

}  // namespace medreact
