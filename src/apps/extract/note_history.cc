// Dated weights and unusable numbers for NoteFacts (note_facts.h).
//
// Dated weights: a weight table, a flowsheet line or a sentence gives each
// weight its date ("2026-03-04  61.0 kg", "61 kg on 3/4/2026", "31 kg in
// May", "10.4 kg at the 18-month visit", "today 27.5 kg"). The weights are
// ordered by date whatever order the note lists them in: the latest is the
// current weight, the others are points of the past with their distance in
// months, so a loss and its period come from the dates (issue 24: a list
// written oldest first made its oldest weight the current one). Slash dates
// are read m/d/y or d/m/y only when a date of the note fixes the order (a
// part above 12); otherwise the weight is not placed, and that is said.
//
// Unusable numbers: a number right after a measurement label ("Wt 20.1 kgg",
// "weight 24.", "L 76 c m") that no reader could use. The planner never
// answers "no malnutrition" over one of them (issue 24 item 1).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "apps/extract/note_text.h"

namespace medreact::note_text {
namespace {

using Days = std::chrono::sys_days;

constexpr const char* kMonthNames =
    "january|february|march|april|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|"
    "sept|sep|oct|nov|dec";

int MonthOf(const std::string& word) {
  static const char* kNames[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
  for (int i = 0; i < 12; ++i) {
    if (word.rfind(kNames[i], 0) == 0) return i + 1;
  }
  return 0;
}

std::optional<Days> Ymd(int y, int m, int d) {
  if (y < 100) y += 2000;
  const std::chrono::year_month_day ymd{std::chrono::year{y}, std::chrono::month{static_cast<unsigned>(m)},
                                        std::chrono::day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || y < 1900 || y > 2200) return std::nullopt;
  return Days{ymd};
}

// The order of the note's slash dates: 'm' (m/d/y) or 'd' (d/m/y) when one of them has a part above 12
// ("DOB 10/23/2024" fixes "03/05/2026" as 5 March), 0 when none does or they disagree.
char SlashOrder(const std::string& t) {
  static const std::regex kSlash(R"(\b(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})\b)");
  bool month_first = false, day_first = false;
  for (auto it = std::sregex_iterator(t.begin(), t.end(), kSlash); it != std::sregex_iterator(); ++it) {
    const int a = std::stoi((*it)[1]), b = std::stoi((*it)[2]);
    if (a > 12 && b <= 12) day_first = true;
    if (b > 12 && a <= 12) month_first = true;
  }
  if (month_first == day_first) return 0;
  return month_first ? 'm' : 'd';
}

struct Placed {
  std::optional<Days> date;
  int month = 0;                     // a month without a year ("in May")
  std::optional<double> age_at;      // "at the 12-month visit": the child's age then, in months
  bool today = false;
  std::string unplaced;              // a date that was found but could not be read
};

// The date in `words` (a measurement's own words), if any.
Placed PlaceIn(const std::string& words, char order) {
  static const std::regex kIso(R"(\b(\d{4})-(\d{1,2})-(\d{1,2})\b)");
  static const std::regex kSlash(R"(\b(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})\b)");
  static const std::regex kMonthYearNum(R"(\b(\d{1,2})/(\d{4})\b)");
  static const std::regex kDayMonthYear(std::string(R"(\b(\d{1,2}) ()") + kMonthNames + R"(|may)\.? (\d{4})\b)");
  static const std::regex kMonthDayYear(std::string(R"(\b()") + kMonthNames + R"(|may)\.? (\d{1,2}),? (\d{4})\b)");
  static const std::regex kMonthYear(std::string(R"(\b()") + kMonthNames + R"(|may)\.? (\d{4})\b)");
  // "May" alone is a verb as often as a month: only "in May", "(May)", "since May", "May:".
  static const std::regex kMonth(std::string(R"(\b(?:()") + kMonthNames + R"()\b|(?:in|since|during|of|\() (may)\b|(may)\s?:))");
  static const std::regex kAgeAt(
      R"(\b(?:at|@) (?:the |his |her |their )?(\d{1,2})[- ]?(months?|mos?|mo|years?|yrs?|y)(?:[- ]old)?(?:[- ](?:visit|check|checkup|well[- ]child|wcc|wcv|appointment|appt|clinic|review|exam))?\b)");
  // "12-month visit: 9.8 kg", "9 mo WCC 8.1 kg": a visit named by the age without "at".
  static const std::regex kVisitAge(
      R"(\b(\d{1,2})[- ]?(months?|mos?|mo|years?|yrs?|y)(?:[- ]old)?[- ](?:visit|check|checkup|well[- ]child(?: visit| check)?|wcc|wcv|appointment|appt|review|exam)\b)");
  static const std::regex kToday(R"(\b(?:today|now|current(?:ly)?|this visit|at this visit|on admission|admission weight)\b)");
  Placed p;
  std::smatch m;
  if (std::regex_search(words, m, kIso)) {
    p.date = Ymd(std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3]));
    if (!p.date) p.unplaced = m.str();
  } else if (std::regex_search(words, m, kSlash)) {
    const int a = std::stoi(m[1]), b = std::stoi(m[2]), y = std::stoi(m[3]);
    if (a > 12 || order == 'd') p.date = Ymd(y, b, a);
    else if (b > 12 || order == 'm' || a == b) p.date = Ymd(y, a, b);
    if (!p.date) p.unplaced = m.str();
  } else if (std::regex_search(words, m, kDayMonthYear)) {
    p.date = Ymd(std::stoi(m[3]), MonthOf(m[2]), std::stoi(m[1]));
  } else if (std::regex_search(words, m, kMonthDayYear)) {
    p.date = Ymd(std::stoi(m[3]), MonthOf(m[1]), std::stoi(m[2]));
  } else if (std::regex_search(words, m, kMonthYear)) {
    p.date = Ymd(std::stoi(m[2]), MonthOf(m[1]), 15);  // mid-month: at most half a month off
  } else if (std::regex_search(words, m, kMonthYearNum)) {
    const int month = std::stoi(m[1]);
    if (month >= 1 && month <= 12) p.date = Ymd(std::stoi(m[2]), month, 15);
    else p.unplaced = m.str();
  } else if (std::regex_search(words, m, kAgeAt) || std::regex_search(words, m, kVisitAge)) {
    const double n = Num(m[1]);
    p.age_at = std::string(m[2])[0] == 'y' ? n * 12 : n;
  } else if (std::regex_search(words, m, kMonth)) {
    p.month = MonthOf(m[1].matched ? m[1].str() : "may");
  }
  if (!p.date && !p.month && !p.age_at && p.unplaced.empty()) p.today = std::regex_search(words, kToday);
  return p;
}

// The visit: its date ("seen 03/05/2026", "date of visit 2026-11-20") or its month ("today (November)").
struct Visit {
  std::optional<Days> date;
  int month = 0;
};

Visit ReadVisit(const std::string& t, char order) {
  static const std::regex kVisit(
      R"(\b(?:date of (?:visit|service|encounter|exam(?:ination)?|assessment)|dos|visit(?: date)?|encounter(?: date)?|seen(?: on)?|today(?:'s date)?(?: is)?)\s?:?\s?(\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}/\d{2,4}|\d{1,2} [a-z]{3,9}\.? \d{4}|[a-z]{3,9}\.? \d{1,2},? \d{4}))");
  static const std::regex kTodayMonth(std::string(R"(\b(?:today|this visit|now)\s?(?:\(|,|is|:)?\s?()") + kMonthNames + R"(|may)\b)");
  Visit v;
  std::smatch m;
  if (std::regex_search(t, m, kVisit)) {
    const Placed p = PlaceIn(m[1], order);
    v.date = p.date;
  }
  if (v.date) {
    v.month = static_cast<int>(static_cast<unsigned>(std::chrono::year_month_day{*v.date}.month()));
  } else if (std::regex_search(t, m, kTodayMonth)) {
    v.month = MonthOf(m[1]);
  }
  return v;
}

struct DatedWeight {
  Quantity q;
  Placed placed;
  std::optional<double> months_before;  // before the reference (the visit, else the latest date)
};

}  // namespace

std::vector<size_t> ReadDatedWeights(const std::string& t, NoteFacts& f) {
  const std::vector<Quantity> all = Weights(t);
  // A note has a handful of weights; a text with hundreds is not ordered by date (each one costs a few
  // small regex searches), and that is said.
  constexpr size_t kMaxDatedWeights = 200;
  if (all.size() > kMaxDatedWeights) {
    f.unusable.push_back("more than 200 weights in the note: they were not ordered by date; re-check the current weight");
    return {};
  }
  const char order = SlashOrder(t);
  static const std::regex kBirth(R"(\b(?:at birth|birth ?weight|born|bw|dob|date of birth)\b)");
  std::vector<DatedWeight> dated;
  for (size_t i = 0; i < all.size(); ++i) {
    const Quantity& q = all[i];
    // Its own words: on its line, after the previous weight, at most 45 characters before and 25 after.
    // Every bound is local (45 characters back, 25 on), so a hostile note with many weights stays linear.
    size_t from = std::max(i > 0 ? all[i - 1].end : 0, q.begin >= 45 ? q.begin - 45 : size_t{0});
    const std::string_view text(t);
    if (const size_t nl = text.substr(from, q.begin - from).rfind('\n'); nl != std::string_view::npos) from += nl + 1;
    size_t to = std::min({t.size(), i + 1 < all.size() ? all[i + 1].begin : t.size(), q.end + 25});
    if (const size_t nl = text.substr(q.end, to - q.end).find('\n'); nl != std::string_view::npos) to = q.end + nl;
    // Not across a clause: "44 kg in March; today 39.1 kg" gives March to 44 kg only. A comma before a year
    // ("March 14, 2026") does not end a clause.
    for (size_t k = q.begin; k > from; --k) {
      const char c = t[k - 1];
      const bool year_follows = k + 5 <= t.size() && t[k] == ' ' &&
                                std::all_of(t.begin() + k + 1, t.begin() + k + 5, [](char d) { return std::isdigit(static_cast<unsigned char>(d)); });
      const bool comma = c == ',' && !year_follows;
      if (c == ';' || comma || (c == '.' && !(k < t.size() && std::isdigit(static_cast<unsigned char>(t[k]))))) {
        from = k;
        break;
      }
    }
    const std::string before = t.substr(from, q.begin - from);
    const std::string after = t.substr(q.end, to - q.end);
    if (std::regex_search(before, kBirth)) continue;
    Placed p = PlaceIn(before, order);
    if (!p.date && !p.month && !p.age_at && !p.today && p.unplaced.empty()) {
      // After the number only in brackets or after "on"/"in"/"at": "61 kg (2026-03-04)", "31 kg in May".
      static const std::regex kAfterLead(R"(^\s?(?:\(|on |in |at |@ |- |, (?:on|in|at) |today|now\b|currently))");
      if (std::regex_search(after, kAfterLead)) p = PlaceIn(after.substr(0, std::min<size_t>(after.size(), 25)), order);
    }
    if (!p.date && !p.month && !p.age_at && !p.today && p.unplaced.empty()) continue;
    // A slash date whose order nothing fixes.
    static const std::regex kAmbiguousSlash(R"(\b(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})\b)");
    if (std::smatch m; !p.date && !p.today && std::regex_search(before, m, kAmbiguousSlash)) p.unplaced = m.str();
    dated.push_back({q, p, std::nullopt});
  }
  // Only a note that dates its weights needs this: one weight with "today" alone is just the current weight.
  const bool any_date = std::any_of(dated.begin(), dated.end(), [](const DatedWeight& d) {
    return d.placed.date || d.placed.month || d.placed.age_at || !d.placed.unplaced.empty();
  });
  std::vector<size_t> consumed;
  if (!any_date) return consumed;
  const Visit visit = ReadVisit(t, order);
  // The reference is the visit's date; without one, the latest date, unless a weight is today's: then the
  // dates give no distance to today (their order among themselves still gives the baseline).
  const bool has_today = std::any_of(dated.begin(), dated.end(), [](const DatedWeight& d) { return d.placed.today; });
  std::optional<Days> reference = visit.date;
  for (const DatedWeight& d : dated) {
    if (visit.date || has_today) break;
    if (d.placed.date && (!reference || *d.placed.date > *reference)) reference = d.placed.date;
  }
  const int reference_month =
      visit.month ? visit.month
                  : reference ? static_cast<int>(static_cast<unsigned>(std::chrono::year_month_day{*reference}.month())) : 0;
  for (DatedWeight& d : dated) {
    consumed.push_back(d.q.begin);
    if (!d.placed.unplaced.empty()) {
      f.unusable.push_back("the weight " + d.q.text + " is dated \"" + d.placed.unplaced +
                           "\", which cannot be placed (d/m/y or m/d/y?): re-check its date");
      continue;
    }
    if (d.placed.today) {
      d.months_before = 0;
    } else if (d.placed.date && reference) {
      d.months_before = static_cast<double>((*reference - *d.placed.date).count()) / kDaysPerMonth;
    } else if (d.placed.month && reference_month) {
      const int back = (reference_month - d.placed.month + 12) % 12;
      if (back > 0) d.months_before = back;
      else d.months_before = 0;  // the visit's own month
    } else if (d.placed.age_at && f.age_months && *f.age_months >= *d.placed.age_at) {
      d.months_before = *f.age_months - *d.placed.age_at;
    }
  }
  // The current weight: the latest placed one (a weight of today, else the most recent date).
  const DatedWeight* current = nullptr;
  for (const DatedWeight& d : dated) {
    if (!d.placed.unplaced.empty() || !d.months_before) continue;
    if (!current || *d.months_before < *current->months_before) current = &d;
  }
  if (!current && dated.size() > 1) {
    f.unusable.push_back("the dated weights could not be put in order (no year, and no visit date or month): "
                         "re-check which weight is the current one");
  }
  for (const DatedWeight& d : dated) {
    if (!d.placed.unplaced.empty()) continue;
    if (&d == current) {
      f.weight_kg = d.q.value;
      continue;
    }
    WeightPoint p;
    p.kg = d.q.value;
    p.dated = true;
    p.quote = d.q.text;
    if (d.months_before && current) p.months_ago = *d.months_before - *current->months_before;
    if (p.months_ago && *p.months_ago <= 0) p.months_ago.reset();
    f.weight_history.push_back(p);
  }
  return consumed;
}

void ReadUnusableNumbers(const std::string& t, NoteFacts& f) {
  // A label, then a number, then what follows it. The label is a weight, stature or head measurement's
  // (BMI has no unit and is left out).
  static const std::regex kLabelled(
      R"(\b(wt|weight|weighs|weighed|weighing|ht|height|length|lgth|l|hc|head circumference|ofc)\s?(?::|=|is|was|of|today|now)?\s?(\d{1,5}(?:[.,]\d{1,4})?)([^\n;]{0,12}))");
  static const std::regex kUnitNext(
      R"(^\s?(?:kg|kgs|kilograms?|kilos?|g|gm|gms|grams?|lbs?|pounds?|oz|ounces?|cm|cms|centimet(?:er|re)s?|mm|millimet(?:er|re)s?|m|met(?:er|re)s?|in|inch(?:es)?|ft|feet|foot|'|"|%|st|nd|rd|th|percentile|centile|%ile|z\b|sd\b|days?|weeks?|wks?|months?|mos?|years?|yrs?|y\b|d\b|-|/|x\b|times)(?![a-z]))");
  static const std::regex kLetters(R"(^\s?([a-z]{1,8}))");
  // "Weights (kg): 5/1/26 62.0, 6/1/26 60.1": numbers under a unit header are not read as weights; say so.
  static const std::regex kUnitHeader(R"(\b(?:wts?|weights?)\s?\((?:kg|kgs|lbs?|g|grams?)\)\s?:?[^\n]{0,40}?\d)");
  if (std::smatch m; std::regex_search(t, m, kUnitHeader)) {
    f.unusable.push_back("weights listed under a unit header (\"" + m.str().substr(0, 20) +
                         "…\") were not read: re-check them and write each with its unit");
  }
  for (auto it = std::sregex_iterator(t.begin(), t.end(), kLabelled); it != std::sregex_iterator(); ++it) {
    const std::string label = (*it)[1];
    const std::string number = (*it)[2];
    const std::string next = (*it)[3];
    // "length of stay", "l 4-5": not measurements; a one-letter label needs a number in a body range.
    // (40-130 cm: about the span of the WHO length-for-age table, 45-110 cm, with margin; a reading bound.)
    if (label == "l" && (Num(number) < 40 || Num(number) > 130)) continue;
    if (number.find(',') != std::string::npos) {
      f.unusable.push_back(label + " " + number + ": a decimal comma was not read as a measurement; re-check the value");
      continue;
    }
    if (std::regex_search(next, kUnitNext)) continue;
    std::smatch letters;
    if (std::regex_search(next, letters, kLetters)) {
      f.unusable.push_back(label + " " + number + " has a unit that was not recognised (\"" + letters[1].str() +
                           "\"): re-check the " + (label[0] == 'h' && label != "hc" ? "height" : label) + " and its unit");
    } else {
      f.unusable.push_back(label + " " + number + " has no unit: re-check the measurement and its unit");
    }
  }
}

}  // namespace medreact::note_text
