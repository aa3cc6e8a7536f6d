// Patterns for NoteFacts. The note is lower-cased, and the Unicode minus,
// en dash and no-break spaces are folded to ASCII first, so "z −2.3" reads as
// "z -2.3". Every pattern is an ECMAScript regex searched in the whole note.
#include "apps/extract/note_facts.h"

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <string>
#include <utility>

namespace medreact {
namespace {

constexpr double kKgPerLb = 0.45359237;  // exact, by definition (international pound, 1959)
constexpr double kCmPerIn = 2.54;        // exact, by definition
constexpr double kDaysPerMonth = 30.4375;

std::string Fold(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    // U+2212 minus (E2 88 92), U+2013 en dash (E2 80 93), U+2014 em dash (E2 80 94)
    if (c == 0xE2 && i + 2 < text.size()) {
      const unsigned char b1 = static_cast<unsigned char>(text[i + 1]);
      const unsigned char b2 = static_cast<unsigned char>(text[i + 2]);
      if ((b1 == 0x88 && b2 == 0x92) || (b1 == 0x80 && (b2 == 0x93 || b2 == 0x94))) {
        out += '-';
        i += 2;
        continue;
      }
    }
    if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xA0) {  // no-break space
      out += ' ';
      ++i;
      continue;
    }
    out += static_cast<char>(std::tolower(c));
  }
  return out;
}

double Num(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

// The first match of `pattern` in `text`, or an empty match.
std::smatch First(const std::string& text, const std::regex& pattern) {
  std::smatch m;
  std::regex_search(text, m, pattern);
  return m;
}

// The sentence around [begin, end): from the previous '.', ';' or newline
// (a '.' between digits does not end a sentence) to the next.
std::pair<size_t, size_t> SentenceAround(const std::string& text, size_t begin, size_t end) {
  auto is_stop = [&](size_t i) {
    const char c = text[i];
    if (c == '\n' || c == ';') return true;
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

struct IndicatorWord {
  const char* pattern;
  const char* indicator;
};

// Longest phrases first, so "weight-for-length" is not read as "weight".
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
    {"\\bbmi\\b", "bmi_for_age"},
    {"body mass index", "bmi_for_age"},
    {"\\blength\\b", "length_for_age"},
    {"\\b(height|stature)\\b", "height_for_age"},
    {"\\bweight\\b", "weight_for_age"},
};

// Every indicator phrase in `text` with its position; a shorter phrase inside
// a longer one already found is skipped.
std::vector<std::pair<size_t, std::string>> IndicatorsIn(const std::string& text) {
  std::vector<std::pair<size_t, size_t>> taken;
  std::vector<std::pair<size_t, std::string>> found;
  for (const IndicatorWord& word : kIndicatorWords) {
    const std::regex pattern(word.pattern);
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
  return !before.empty() ? before : after;
}

void ReadAgeAndSex(const std::string& t, NoteFacts& f) {
  static const std::regex kAge(
      R"((\d+(?:\.\d+)?)[- ](year|yr|month|mo|week|wk|day)s?[- ]old)");
  static const std::regex kAged(R"(\baged? (\d+(?:\.\d+)?) ?(years|yrs|months|weeks|days)?\b)");
  std::smatch m = First(t, kAge);
  std::string unit;
  if (!m.empty()) {
    unit = m[2];
  } else if (m = First(t, kAged); !m.empty()) {
    unit = m[2].matched ? std::string(m[2]) : "year";
  }
  if (!m.empty()) {
    const double n = Num(m[1]);
    if (unit.rfind("y", 0) == 0) f.age_months = n * 12;
    else if (unit.rfind("mo", 0) == 0) f.age_months = n;
    else if (unit.rfind("w", 0) == 0) f.age_months = n * 7 / kDaysPerMonth;
    else f.age_months = n / kDaysPerMonth;
  }
  static const std::regex kFemale(R"(\b(girl|female|woman|she|her|mother of)\b)");
  static const std::regex kMale(R"(\b(boy|male|man|he|his)\b)");
  m = First(t, kFemale);
  std::smatch male = First(t, kMale);
  if (!m.empty() && (male.empty() || m.position() < male.position())) f.sex = "female";
  else if (!male.empty()) f.sex = "male";
}

void ReadMeasurements(const std::string& t, NoteFacts& f) {
  // Current weight: "weight 64 kg", "weighs 10.2 kg", "weight of 3200 g", "weight is 141 lb".
  static const std::regex kWeight(
      R"(\b(?:current )?(?:body )?(?:weight|weighs|weighed|wt)(?: today| now| on admission| at admission| currently)?(?: is| was| of|:|,)? (?:now )?(\d+(?:\.\d+)?) ?(kg|g|lb|lbs|pounds)\b)");
  static const std::regex kNotCurrent(R"((usual|previous|baseline|premorbid|birth|prior) (body )?$)");
  for (auto it = std::sregex_iterator(t.begin(), t.end(), kWeight); it != std::sregex_iterator(); ++it) {
    const size_t b = static_cast<size_t>(it->position());
    const std::string before = t.substr(b >= 12 ? b - 12 : 0, b >= 12 ? 12 : b);
    if (std::regex_search(before, kNotCurrent)) continue;  // "usual weight 74 kg" is not today's weight
    const std::string unit = (*it)[2];
    double v = Num((*it)[1]);
    if (unit == "g") v /= 1000;
    else if (unit != "kg") v *= kKgPerLb;
    f.weight_kg = v;
    break;
  }
  // Height or length: "height 92 cm", "length 71.5 cm", "height of 1.70 m", "height 64 in".
  static const std::regex kHeight(
      R"(\b(height|length|stature|measures)(?: is| was| of|:|,)? (\d+(?:\.\d+)?) ?(cm|m|in|inches)\b)");
  if (std::smatch m = First(t, kHeight); !m.empty()) {
    const std::string unit = m[3];
    double v = Num(m[2]);
    if (unit == "m") v *= 100;
    else if (unit != "cm") v *= kCmPerIn;
    f.height_cm = v;
    f.recumbent_length = std::string(m[1]) == "length";
  }
  static const std::regex kBmi(R"(\b(?:bmi|body mass index)(?: is| was| of|:|,)? (\d+(?:\.\d+)?)(?!\d|\.\d| ?(?:st|nd|rd|th)))");
  if (std::smatch m = First(t, kBmi); !m.empty()) f.bmi = Num(m[1]);
}

void ReadWeightLoss(const std::string& t, NoteFacts& f) {
  static const std::regex kFromTo(R"(from (\d+(?:\.\d+)?) ?kg to (\d+(?:\.\d+)?) ?kg)");
  static const std::regex kUsual(R"(\b(?:usual|previous|baseline|premorbid)(?: body)? weight(?: is| was| of|:)? (?:about |approximately )?(\d+(?:\.\d+)?) ?kg)");
  static const std::regex kPercent(R"((\d+(?:\.\d+)?) ?% (?:weight loss|loss of (?:body )?weight|of (?:his |her |their )?(?:usual |body )?weight))");
  static const std::regex kLossOf(R"(weight loss of (\d+(?:\.\d+)?) ?%)");
  static const std::regex kLostKg(R"(\blost (\d+(?:\.\d+)?) ?kg)");
  static const std::regex kPeriod(R"(\b(?:over|in|during|within) (?:the )?(?:past |last |preceding )?(\d+(?:\.\d+)?) (month|week)s?)");
  std::smatch m;
  if (m = First(t, kFromTo); !m.empty()) {
    f.usual_weight_kg = Num(m[1]);
    if (!f.weight_kg) f.weight_kg = Num(m[2]);
  } else if (m = First(t, kUsual); !m.empty()) {
    f.usual_weight_kg = Num(m[1]);
    if (std::smatch lost = First(t, kLostKg); !lost.empty() && !f.weight_kg) {
      f.weight_kg = *f.usual_weight_kg - Num(lost[1]);
    }
  } else if (m = First(t, kLostKg); !m.empty() && f.weight_kg) {
    f.usual_weight_kg = *f.weight_kg + Num(m[1]);
  }
  if (m = First(t, kLossOf); !m.empty()) {
    f.weight_loss_percent = Num(m[1]);
  } else if (m = First(t, kPercent); !m.empty()) {
    f.weight_loss_percent = Num(m[1]);
  } else if (f.usual_weight_kg && f.weight_kg && *f.usual_weight_kg > *f.weight_kg) {
    f.weight_loss_percent = (*f.usual_weight_kg - *f.weight_kg) / *f.usual_weight_kg * 100.0;
  }
  if (f.weight_loss_percent || f.usual_weight_kg) {
    // The period nearest after the first mention of weight or loss.
    const size_t anchor = std::min(t.find("lost"), t.find("weight loss"));
    const std::string tail = anchor == std::string::npos ? t : t.substr(anchor);
    if (m = First(tail, kPeriod); !m.empty()) {
      const double n = Num(m[1]);
      f.weight_loss_months = std::string(m[2]) == "week" ? n * 7 / kDaysPerMonth : n;
    }
  }
}

void ReadIntakeAndInflammation(const std::string& t, NoteFacts& f) {
  static const std::regex kIntake(
      R"((?:less than |under |about |approximately |only |<)?(\d+(?:\.\d+)?) ?% of (?:her |his |their )?(?:estimated |usual )?(?:energy |caloric |calorie |nutritional )?(?:needs|requirements?|intake))");
  if (std::smatch m = First(t, kIntake); !m.empty()) {
    f.intake_percent = Num(m[1]);
    f.intake_quote = m[0];
    static const std::regex kFor(R"(\bfor (?:the )?(?:past |last )?(\d+(?:\.\d+)?) (week|month|day)s?)");
    const std::string tail = t.substr(static_cast<size_t>(m.position()));
    if (std::smatch d = First(tail, kFor); !d.empty()) {
      const std::string unit = d[2];
      const double n = Num(d[1]);
      f.intake_weeks = unit == "week" ? n : unit == "month" ? n * kDaysPerMonth / 7 : n / 7;
    }
  }
  // GLIM (Cederholm 2019) etiologic criterion: disease burden/inflammation, acute
  // (major infection, burns, trauma) or chronic (cancer, COPD, heart failure, CKD,
  // inflammatory bowel disease, rheumatoid arthritis).
  static const std::regex kInflammation(
      R"(\b(sepsis|pneumonia|major infection|burns?|trauma|cancer|malignan\w*|carcinoma|copd|heart failure|chronic kidney disease|crohn'?s|ulcerative colitis|rheumatoid arthritis|c-reactive protein|crp)\b)");
  if (std::smatch m = First(t, kInflammation); !m.empty()) {
    f.inflammation = true;
    f.inflammation_quote = m[0];
  }
}

void ReadScores(const std::string& t, NoteFacts& f) {
  // "below the 3rd percentile", "<5th percentile", "at the 10th centile"
  static const std::regex kPercentile(R"((\d+(?:\.\d+)?)(?:st|nd|rd|th)? ?(?:percentile|centile))");
  for (auto it = std::sregex_iterator(t.begin(), t.end(), kPercentile); it != std::sregex_iterator(); ++it) {
    const size_t b = static_cast<size_t>(it->position());
    const double p = Num((*it)[1]);
    if (p <= 0 || p >= 100) continue;
    f.percentiles.push_back({p, IndicatorFor(t, b, b + static_cast<size_t>(it->length())), it->str()});
  }
  // "z-score of -2.3", "z = -2.31", "z score -1.9", "(z -3.1)", "sds -2.0"
  static const std::regex kZ(R"(\b(?:z[- ]?scores?|z|sds)(?: is| was| of|:|=|,)? ?(-?\d+(?:\.\d+)?)\b)");
  for (auto it = std::sregex_iterator(t.begin(), t.end(), kZ); it != std::sregex_iterator(); ++it) {
    const size_t b = static_cast<size_t>(it->position());
    const double z = Num((*it)[1]);
    if (z < -10 || z > 10) continue;
    f.zscores.push_back({z, IndicatorFor(t, b, b + static_cast<size_t>(it->length())), it->str()});
  }
}

}  // namespace

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
  ReadAgeAndSex(t, f);
  ReadMeasurements(t, f);
  ReadWeightLoss(t, f);
  ReadIntakeAndInflammation(t, f);
  ReadScores(t, f);
  return f;
}

}  // namespace medreact
