// Ages and sex as clinicians write them (note_facts.h). The readers below
// each find candidate ages with their position; the earliest in the note is
// the patient's (a note names its patient first: "A 3 year 2 month old girl
// ... her brother, aged 6"), and at the same position the longest reading
// wins ("3 year 2 month old" over "2 month old"). Ages of the past ("at 18
// months", "at age 2") and durations ("for 2 years", "6 months ago") are not
// ages.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <iterator>
#include <string>
#include <vector>

#include "apps/extract/note_text.h"

namespace medreact::note_text {
namespace {

// Unit words, each a non-capturing group. "m" for months and "y" for years
// only where a number and the other unit make the reading unambiguous
// ("3y2m"), never alone (1.7 m is a height).
constexpr const char* kYears = "(?:years?|yrs?|y)";
constexpr const char* kMonths = "(?:months?|mos?|mths?|m)";
constexpr const char* kAnyUnit = "(years?|yrs?|months?|mos?|mths?|weeks?|wks?|days?)";

struct AgeCandidate {
  size_t position = 0;
  size_t length = 0;
  double months = 0;
  std::string quote;
  bool compound = false;  // years and months
};

double ToMonths(double n, const std::string& unit) {
  if (unit.empty() || unit[0] == 'y') return n * 12;
  if (unit[0] == 'm') return n;  // month, mo, mth
  if (unit[0] == 'w') return n * 7 / kDaysPerMonth;
  return n / kDaysPerMonth;  // days
}

// The words just before `position` (at most 12 characters) say the number is
// a duration or a past age, not the patient's age now.
bool DurationOrPastBefore(const std::string& t, size_t position) {
  static const std::regex kBefore(R"((?:\bfor|\bover|\bpast|\blast|\bsince|\bin|\bwithin|\bduring|\bat|\bfrom|\bafter|\bbefore|\bat age|\bgestational|\bcorrected|\bbone|\bpost-?menstrual|\bpost-?conceptional|\bex-?|\bga:?|\bborn at|\bpma|\bcga|\bformer)\s?$)");
  const size_t from = position >= 18 ? position - 18 : 0;
  return std::regex_search(t.substr(from, position - from), kBefore);
}

void Collect(const std::string& t, const std::regex& pattern, std::vector<AgeCandidate>& out,
             double (*months_of)(const std::smatch&), bool compound = false) {
  for (auto it = std::sregex_iterator(t.begin(), t.end(), pattern); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    const size_t position = static_cast<size_t>(m.position());
    if (DurationOrPastBefore(t, position)) continue;
    const double months = months_of(m);
    if (!std::isfinite(months)) continue;
    out.push_back({position, static_cast<size_t>(m.length()), months, m.str(), compound});
  }
}

std::vector<AgeCandidate> StatedAges(const std::string& t) {
  const std::string num = kNum;
  std::vector<AgeCandidate> found;
  // "3 year 2 month old", "3y2m", "2 years 6 months", "3 yrs, 2 mos", "2 years and 6 months".
  static const std::regex kCompound("\\b" + num + "\\s?-?\\s?" + kYears + "(?:\\s?-?\\s?|\\s?,\\s?|\\s?and\\s?)" + num +
                                    "\\s?-?\\s?" + kMonths + "(?![a-z])");
  Collect(t, kCompound, found, [](const std::smatch& m) { return Num(m[1]) * 12 + Num(m[2]); }, true);
  // "4-year-old", "18-month-old", "3 weeks old", "10 day old".
  static const std::regex kOld("\\b" + num + "\\s?-?\\s?" + kAnyUnit + "\\s?-?\\s?old\\b");
  Collect(t, kOld, found, [](const std::smatch& m) { return ToMonths(Num(m[1]), m[2]); });
  // "4 yo", "4yo", "70 y/o", "4 y.o.", "4 yr-old".
  static const std::regex kYo("\\b" + num + "\\s?(?:yo|y\\.o\\.?|y/o|yr-old|yrs-old)(?![a-z])");
  Collect(t, kYo, found, [](const std::smatch& m) { return Num(m[1]) * 12; });
  // "63M with …", "45 F, admitted …", "Pt is a 72 M.": an adult's age in years with the sex letter glued or
  // next to it, no unit. Two or three digits, at the start of a line or after "a"/"pt"/"patient"/":", and
  // followed by the rest of the sentence; never a distance ("50 m walk").
  static const std::regex kAgeSex(
      R"((?:^|\n|\b(?:a|an|pt|patient)\s|:\s?)(\d{2,3})\s?(m|f)\b(?=\s?(?:with|w/|,|\.|;|presents|presenting|admitted|who|here|seen|pmh|hx|s/p|on|in|c/o|\(|$)))");
  Collect(t, kAgeSex, found, [](const std::smatch& m) {
    const double years = Num(m[1]);
    // A plausibility bound for this terse form, not a clinical cut-off: younger children are written with a unit.
    return years >= 10 && years <= 110 ? years * 12 : std::nan("");
  });
  // "14 m/o", "14 mo old", "9 mos old": months.
  static const std::regex kMo("\\b" + num + "\\s?(?:m/o|mo/o|mos?\\.?\\s?old)(?![a-z])");
  Collect(t, kMo, found, [](const std::smatch& m) { return Num(m[1]); });
  // "aged 4", "age: 9 months", "age 2 years" (years when no unit); not "gestational age".
  static const std::regex kAged("\\bage(?:d)?\\s?(?::|=|of|is)?\\s?" + num + "\\s?" + kAnyUnit + "?(?![a-z0-9])");
  Collect(t, kAged, found, [](const std::smatch& m) { return ToMonths(Num(m[1]), m[2].matched ? m[2].str() : ""); });
  // A child or sex word next to a number with a unit: "infant, 9 months", "9 months, female", "4 y f".
  static const std::regex kWordThenAge(
      "\\b(?:infant|baby|boy|girl|child|toddler|neonate|newborn|male|female|patient|son|daughter)\\b,?\\s?(?:aged?\\s?)?" +
      num + "\\s?-?\\s?" + kAnyUnit + "(?![a-z])(?!\\s?(?:ago|of|later|earlier|before|prior|duration|history))");
  Collect(t, kWordThenAge, found, [](const std::smatch& m) { return ToMonths(Num(m[1]), m[2]); });
  static const std::regex kAgeThenWord("\\b" + num + "\\s?-?\\s?(years?|yrs?|y|months?|mos?|mo|weeks?|wks?|days?)\\b,?\\s?" +
                                       "(?:old\\s?)?(?:infant|baby|boy|girl|child|toddler|neonate|newborn|male|female|m|f)\\b");
  Collect(t, kAgeThenWord, found, [](const std::smatch& m) { return ToMonths(Num(m[1]), m[2]); });
  // "He is 11 months", "she is now 2 years", "the patient is 70".
  static const std::regex kIs("\\b(?:he|she|patient|child|baby|infant|pt)\\s?(?:is|'s)\\s?(?:now\\s?)?" + num + "\\s?" +
                              kAnyUnit + "?(?:\\s?old)?(?![a-z0-9])" +
                              "(?!\\s?(?:kg|kilo|g\\b|cm|mm|m\\b|ft|feet|foot|in\\b|inch|lb|pound|%|percent|mg|ml))");
  Collect(t, kIs, found, [](const std::smatch& m) { return ToMonths(Num(m[1]), m[2].matched ? m[2].str() : ""); });
  // "now 5 months (chronological)", "now 14 mo": the age today, said after a birth history.
  static const std::regex kNow("\\b(?:now|currently)\\s?(?:aged?\\s?)?" + num + "\\s?" + kAnyUnit + "(?![a-z])(?!\\s?(?:ago|later|corrected))");
  Collect(t, kNow, found, [](const std::smatch& m) { return ToMonths(Num(m[1]), m[2]); });
  // "9 mo", "9 mos" right after a comma or at the start of a line ("Infant boy. 9 mo."): an age only
  // with a sex or child word within the same line, caught above; left out here on purpose.
  return found;
}

// --- dates --------------------------------------------------------------------------

using Days = std::chrono::sys_days;

int MonthNumber(const std::string& word) {
  static const char* kNames[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
  for (int i = 0; i < 12; ++i) {
    if (word.rfind(kNames[i], 0) == 0) return i + 1;
  }
  return 0;
}

std::optional<Days> MakeDate(int y, int m, int d) {
  const std::chrono::year_month_day ymd{std::chrono::year{y}, std::chrono::month{static_cast<unsigned>(m)},
                                        std::chrono::day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || y < 1900 || y > 2200) return std::nullopt;
  return Days{ymd};
}

// One date as written: ISO "2021-03-14"; "14 March 2021", "March 14, 2021";
// "03/14/2021" only when the order is certain (one part above 12, or both
// equal): 03/04/2021 is 3 April in Europe and 4 March in the US.
struct DateReading {
  std::optional<Days> date;
  bool ambiguous = false;
};

// `order`: 'm' (m/d/y) or 'd' (d/m/y) when a neighbouring date fixes it, 0 otherwise.
DateReading ParseDate(const std::string& text, char order = 0) {
  static const std::regex kIso(R"(^(\d{4})-(\d{1,2})-(\d{1,2})$)");
  static const std::regex kSlash(R"(^(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})$)");
  static const std::regex kDayMonth(R"(^(\d{1,2}) ([a-z]{3,9})\.? (\d{4})$)");
  static const std::regex kMonthDay(R"(^([a-z]{3,9})\.? (\d{1,2}),? (\d{4})$)");
  std::smatch m;
  DateReading out;
  if (std::regex_match(text, m, kIso)) {
    out.date = MakeDate(std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3]));
  } else if (std::regex_match(text, m, kSlash)) {
    const int a = std::stoi(m[1]), b = std::stoi(m[2]);
    int y = std::stoi(m[3]);
    // Two-digit years as POSIX strptime's %y reads them: 69-99 are 1969-1999, 00-68 are 2000-2068.
    if (m[3].length() == 2) y += y >= 69 ? 1900 : 2000;
    if (a > 12 && b <= 12) out.date = MakeDate(y, b, a);
    else if (b > 12 && a <= 12) out.date = MakeDate(y, a, b);
    else if (a == b) out.date = MakeDate(y, a, b);
    else if (order == 'm') out.date = MakeDate(y, a, b);
    else if (order == 'd') out.date = MakeDate(y, b, a);
    else out.ambiguous = true;
  } else if (std::regex_match(text, m, kDayMonth)) {
    if (int month = MonthNumber(m[2]); month) out.date = MakeDate(std::stoi(m[3]), month, std::stoi(m[1]));
  } else if (std::regex_match(text, m, kMonthDay)) {
    if (int month = MonthNumber(m[1]); month) out.date = MakeDate(std::stoi(m[3]), month, std::stoi(m[2]));
  }
  return out;
}

constexpr const char* kDate =
    R"((\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})(?![\d/])|\d{1,2} [a-z]{3,9}\.? \d{4}|[a-z]{3,9}\.? \d{1,2},? \d{4}))";

// The order two slash dates share, when one of them has a part above 12 and they do not disagree.
char SlashOrderOf(const std::string& a, const std::string& b) {
  static const std::regex kSlash(R"(^(\d{1,2})/(\d{1,2})/(?:\d{4}|\d{2})$)");
  bool month_first = false, day_first = false;
  for (const std::string* text : {&a, &b}) {
    std::smatch m;
    if (!std::regex_match(*text, m, kSlash)) continue;
    const int x = std::stoi(m[1]), y = std::stoi(m[2]);
    if (x > 12 && y <= 12) day_first = true;
    if (y > 12 && x <= 12) month_first = true;
  }
  if (month_first == day_first) return 0;
  return month_first ? 'm' : 'd';
}

struct DatedAge {
  std::optional<double> months;
  std::string quote;
};

// Age from "DOB 2021-03-14" and "Date of visit: 2024-05-20" (either order).
DatedAge AgeFromDates(const std::string& t, NoteFacts& f) {
  static const std::regex kBirth(std::string(R"(\b(?:dob|d\.o\.b\.?|date of birth|birth ?date|born(?: on)?)\s?:?\s?)") + kDate);
  static const std::regex kVisit(
      std::string(R"(\b(?:date of (?:visit|service|encounter|exam(?:ination)?|assessment)|dos|(?:visit|encounter|exam|clinic|assessment)(?: date)?|seen(?: on)?|today(?:'s date)?(?: is)?|date)\s?:?\s?)") +
      kDate);
  DatedAge out;
  const std::smatch birth = First(t, kBirth);
  if (birth.empty()) return out;
  std::smatch visit;
  for (auto it = std::sregex_iterator(t.begin(), t.end(), kVisit); it != std::sregex_iterator(); ++it) {
    if (it->position() != birth.position()) {  // "date of birth" is not a visit date
      visit = *it;
      break;
    }
  }
  if (visit.empty()) {
    f.problems.push_back("a date of birth is given but no visit date: the age was not computed from it");
    return out;
  }
  // A neighbour fixes the format: "DOB 10/23/2024" (a day above 12) makes "seen 03/05/2026" m/d/y too.
  const char order = SlashOrderOf(birth[1], visit[1]);
  const DateReading b = ParseDate(birth[1], order);
  const DateReading v = ParseDate(visit[1], order);
  if (b.ambiguous || v.ambiguous) {
    f.problems.push_back("a date written d/m/y or m/d/y cannot be read safely (\"" +
                         std::string(b.ambiguous ? birth[1] : visit[1]) + "\"): write it as YYYY-MM-DD");
    return out;
  }
  if (!b.date || !v.date) {
    f.problems.push_back("a date of birth or visit date is not a valid date");
    return out;
  }
  const auto days = (*v.date - *b.date).count();
  if (days < 0) {
    f.problems.push_back("the date of birth is after the visit date");
    return out;
  }
  out.months = static_cast<double>(days) / kDaysPerMonth;
  out.quote = birth.str() + " … " + visit.str();
  return out;
}

// --- words ------------------------------------------------------------------------------

struct AgeWord {
  const char* pattern;
  const char* word;
  double min_months;
  double max_months;
};

// Bands for words, first match in this order (specific before general).
// Newborn/neonate: the first 28 days (WHO, neonatal period); infant: under 12
// months; toddler: 12-36 months (AAP, Bright Futures periodicity); preschool
// 3-5 y; adolescent 10-19 y (WHO). Adult words: 18 years or more (GLIM
// applies to adults; Cederholm 2019).
constexpr AgeWord kAgeWords[] = {
    {R"(\b(?:newborn|neonate|neonatal)\b)", "newborn", 0, 1},
    {R"(\b(?:infant|infancy)\b)", "infant", 0, 12},
    {R"(\btoddler\b)", "toddler", 12, 36},
    {R"(\bpre-?school(?:er|-aged?| child)?\b)", "preschool child", 36, 72},
    {R"(\b(?:adolescent|teenager|teen)\b)", "adolescent", 120, 228},
    {R"(\bbaby\b)", "baby", 0, 24},
    {R"(\b(?:boy|girl|child|kid)\b)", "child", 0, 216},
    {R"(\b(?:elderly|octogenarian|nonagenarian)\b)", "elderly adult", 780, 1800},
    {R"(\b(?:man|woman|gentleman|lady|adult|mr|mrs|ms)\b)", "adult", 216, 1800},
};

void ReadAgeWord(const std::string& t, NoteFacts& f) {
  size_t best = std::string::npos;
  const AgeWord* chosen = nullptr;
  // The earliest word names the patient ("Infant girl ... her mother, a woman of 30").
  static const std::vector<std::regex> kCompiled = [] {
    std::vector<std::regex> out;
    for (const AgeWord& w : kAgeWords) out.emplace_back(w.pattern);
    return out;
  }();
  for (size_t i = 0; i < std::size(kAgeWords); ++i) {
    const AgeWord& w = kAgeWords[i];
    std::smatch m = First(t, kCompiled[i]);
    if (m.empty()) continue;
    const size_t at = static_cast<size_t>(m.position());
    if (at < best) {
      best = at;
      chosen = &w;
    }
  }
  if (!chosen) return;
  f.age_word = chosen->word;
  f.age_min_months = chosen->min_months;
  f.age_max_months = chosen->max_months;
}

void ReadSex(const std::string& t, NoteFacts& f, const std::string& after_age, const std::string& age_quote) {
  // Nouns first: a pronoun may be the mother's ("a 9-month-old boy ... her mother").
  static const std::regex kFemaleNoun(R"(\b(?:girl|female|woman|lady|daughter|mrs|ms|miss)\b)");
  static const std::regex kMaleNoun(R"(\b(?:boy|male|man|gentleman|son|mr)\b)");
  std::smatch female = First(t, kFemaleNoun);
  std::smatch male = First(t, kMaleNoun);
  // "4 yo F", "3y2m M", "9 mo (f)": a single letter right after the age.
  static const std::regex kLetter(R"(^\s?,?\s?\(?(m|f)\)?(?![a-z0-9]))");
  // "Sex: F", "gender: male": a form field says it outright.
  static const std::regex kField(R"(\b(?:sex|gender)\s?:?\s?(m|f|male|female|boy|girl)\b)");
  if (std::smatch field = First(t, kField); !field.empty()) {
    const std::string v = field[1];
    f.sex = (v == "f" || v == "female" || v == "girl") ? "female" : "male";
    return;
  }
  std::smatch letter;
  // "14 mo F" (the letter after a unit) or "63M" (glued to a two- or three-digit age; not "3y2m").
  static const std::regex kLetterEnd(R"((?:(?:months?|mos?|mo|weeks?|wks?|days?|years?|yrs?|y|yo)\s?,?\s?|(?:^|[\s:])\d{2,3}\s?)(m|f)$)");
  if (!age_quote.empty() && std::regex_search(age_quote, letter, kLetterEnd)) {
    f.sex = letter[1] == "f" ? "female" : "male";
    return;
  }
  if (!after_age.empty() && std::regex_search(after_age, letter, kLetter)) {
    f.sex = letter[1] == "f" ? "female" : "male";
    return;
  }
  if (!female.empty() && (male.empty() || female.position() < male.position())) {
    f.sex = "female";
    return;
  }
  if (!male.empty()) {
    f.sex = "male";
    return;
  }
  static const std::regex kFemalePronoun(R"(\b(?:she|her|hers)\b)");
  static const std::regex kMalePronoun(R"(\b(?:he|his|him)\b)");
  female = First(t, kFemalePronoun);
  male = First(t, kMalePronoun);
  if (!female.empty() && (male.empty() || female.position() < male.position())) f.sex = "female";
  else if (!male.empty()) f.sex = "male";
}

// Gestational age at birth as clinicians write it: "ex-28 weeker", "ex 30 wk", "born at 32 weeks", "born
// @ 29+3 wks", "GA 28 wks", "gestational age of 31 weeks", "27-week preemie". Weeks (days as a fraction).
std::optional<double> GestationalWeeks(const std::string& t, std::string& quote) {
  static const std::regex kGestation(
      R"(\b(?:(?:ex-?|former)\s?(\d{2})(?:\+(\d))?\s?-?\s?(?:weeks?|wks?|w)(?:ers?)?|born (?:at|@) (\d{2})(?:\+(\d)|\s(\d)/7)?\s?(?:weeks?|wks?|w)|(?:ga|gestational age)(?: at birth)?\s?(?:of|:|=|was)?\s?(\d{2})(?:\+(\d)|\s(\d)/7)?\s?(?:weeks?|wks?|w)|(\d{2})(?:\+(\d))?\s?-?\s?(?:weeks?|wks?|w)(?:ers?)?(?: gestation| ga| preemie| premature| preterm))\b)");
  std::smatch m;
  if (!std::regex_search(t, m, kGestation)) return std::nullopt;
  for (int g : {1, 3, 6, 9}) {
    if (!m[g].matched) continue;
    double weeks = Num(m[g]);
    for (int d = g + 1; d <= g + 2 && d <= 10; ++d) {
      if (m[d].matched) weeks += Num(m[d]) / 7;
    }
    // Not a gestation outside 22-44 weeks: the perinatal period begins at 22 completed weeks (WHO, ICD-10
    // definitions) and post-term births are rarely past 44.
    if (weeks < 22 || weeks > 44) return std::nullopt;
    quote = m.str();
    return weeks;
  }
  return std::nullopt;
}

// Corrected age (American Academy of Pediatrics, Engle WA. Age terminology during the perinatal period.
// Pediatrics 2004;114:1362-4): chronological age minus the weeks born before 40. Used for infants born
// before 37 weeks (WHO's definition of preterm) up to 24 months of chronological age, the span over which
// growth is plotted at corrected age (data/guidelines/who-growth-zscore-cutoffs.md, "Practical notes";
// CDC, "Use and interpretation of the WHO and CDC growth charts", 2010).
void CorrectForPrematurity(const std::string& t, NoteFacts& f) {
  constexpr double kTermWeeks = 40, kPretermBelowWeeks = 37, kCorrectUntilMonths = 24;
  std::string quote;
  const std::optional<double> weeks = GestationalWeeks(t, quote);
  if (!weeks) return;
  f.gestational_weeks = weeks;
  f.gestation_quote = quote;
  if (!f.age_months || *weeks >= kPretermBelowWeeks || *f.age_months >= kCorrectUntilMonths) return;
  const double corrected = *f.age_months - (kTermWeeks - *weeks) * 7 / kDaysPerMonth;
  f.chronological_age_months = f.age_months;
  f.age_months = std::max(0.0, corrected);
}

}  // namespace

void ReadAgeAndSex(const std::string& t, NoteFacts& f) {
  std::vector<AgeCandidate> stated = StatedAges(t);
  std::string after_age;
  const AgeCandidate* first = nullptr;
  for (const AgeCandidate& c : stated) {
    if (!first || c.position < first->position || (c.position == first->position && c.length > first->length)) {
      first = &c;
    }
  }
  // "Age: 2 years 6 months", "girl, 3 years 2 months": a years-and-months
  // reading overlapping the first one is the whole age.
  if (first && !first->compound) {
    for (const AgeCandidate& c : stated) {
      const bool overlaps = c.position < first->position + first->length && first->position < c.position + c.length;
      if (c.compound && overlaps) {
        first = &c;
        break;
      }
    }
  }
  const DatedAge dated = AgeFromDates(t, f);
  if (first) {
    after_age = t.substr(first->position + first->length, 8);
    if (dated.months && std::abs(*dated.months - first->months) > 1.0) {
      f.problems.push_back("the stated age (\"" + first->quote + "\") and the dates (" + dated.quote +
                           ") disagree by more than a month: no age was used");
    } else {
      f.age_months = first->months;
      f.age_quote = first->quote;
    }
  } else if (dated.months) {
    f.age_months = dated.months;
    f.age_quote = dated.quote;
  }
  CorrectForPrematurity(t, f);
  ReadAgeWord(t, f);
  ReadSex(t, f, after_age, first ? first->quote : std::string());
}

}  // namespace medreact::note_text
