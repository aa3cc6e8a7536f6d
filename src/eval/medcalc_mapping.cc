#include "eval/medcalc_mapping.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>

namespace medreact::eval {
namespace {

using calc::CalcInput;
using calc::InputType;

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string NoSpaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

// Whole-word containment on normalised text ("major" in "elective major x", not in "majority").
bool ContainsWords(const std::string& text, const std::string& words) {
  if (words.empty()) return false;
  const std::string padded = " " + text + " ";
  return padded.find(" " + words + " ") != std::string::npos;
}

// ---- values ----------------------------------------------------------------------

// A compound measurement, [5, 'ft', 7, 'in'] or [1, 'years', 6, 'months']: every
// (number, unit) pair converted to the canonical unit and summed. nullopt when
// the list holds fewer than two such pairs; an error when a unit is not accepted.
std::optional<Result<double>> ReadCompound(const Json& v, calc::Dimension dimension) {
  if (!v.is_array() || dimension == calc::Dimension::kNone) return std::nullopt;
  std::vector<std::pair<double, std::string>> pairs;
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    if (!v[i].is_number() || !v[i + 1].is_string()) continue;
    pairs.emplace_back(v[i].get<double>(), v[i + 1].get<std::string>());
    ++i;
  }
  if (pairs.size() < 2) return std::nullopt;
  double sum = 0;
  for (const auto& [number, unit] : pairs) {
    Result<double> part = calc::ToCanonical(dimension, number, unit);
    if (!part.ok()) return Result<double>(part.status());
    sum += *part;
  }
  return Result<double>(sum);
}

// A number with its unit from 7, [7, 'unit'], ['Name', 7, 'unit'] or "7 unit".
std::optional<Json> ReadMeasurement(const Json& v) {
  auto with_unit = [](double number, const std::string& unit) -> Json {
    const auto b = unit.find_first_not_of(" \t");
    if (b == std::string::npos) return number;
    return Json{{"value", number}, {"unit", unit.substr(b, unit.find_last_not_of(" \t") - b + 1)}};
  };
  if (v.is_number()) return v;
  if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_number()) continue;
      const std::string unit = i + 1 < v.size() && v[i + 1].is_string() ? v[i + 1].get<std::string>() : "";
      return with_unit(v[i].get<double>(), unit);
    }
    return std::nullopt;
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    const char* begin = s.c_str();
    char* end = nullptr;
    const double number = std::strtod(begin, &end);
    if (end == begin) return std::nullopt;
    return with_unit(number, std::string(end));
  }
  return std::nullopt;
}

// The text of a value: a string, or the first string in a list.
std::optional<std::string> ReadText(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    for (const Json& item : v) {
      if (item.is_string()) return item.get<std::string>();
    }
  }
  return std::nullopt;
}

// Text that says "absent" (normalised): no, none..., absent, not..., false, negative, normal, unknown.
bool SaysAbsent(const std::string& norm) {
  return norm.empty() || norm == "no" || StartsWith(norm, "no ") || StartsWith(norm, "none") ||
         StartsWith(norm, "not ") || norm == "not" || StartsWith(norm, "absent") || norm == "false" ||
         StartsWith(norm, "negative") || norm == "normal" || StartsWith(norm, "without") || norm == "unknown" ||
         norm == "n";
}

std::optional<bool> ReadBoolean(const Json& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0;
  if (v.is_array()) {  // [1, 'unit']: the number decides
    for (const Json& item : v) {
      if (item.is_number()) return item.get<double>() != 0;
      if (item.is_boolean()) return item.get<bool>();
    }
  }
  if (auto text = ReadText(v)) return !SaysAbsent(NormalizeEntityKey(*text));
  return std::nullopt;
}

// Clinical synonyms used when a choice text matches no choice as written
// (normalised forms; each group names one thing).
const std::vector<std::vector<std::string>>& ChoiceSynonyms() {
  static const std::vector<std::vector<std::string>> kGroups = {
      {"mild", "slight", "minimal"},
      {"none", "absent", "no", "not present", "normal"},
      {"moderate to severe", "moderate severe", "moderate or severe"},
      {"nonoperative", "non operative", "non surgical", "nonsurgical", "medical"},
      {"elective postoperative", "elective", "elective surgery"},
      {"emergency postoperative", "emergency", "emergency surgery", "urgent"},
      {"yes", "true", "present"},
  };
  return kGroups;
}

std::optional<std::string> MatchChoice(const CalcInput& input, const std::string& text, std::string* how) {
  const std::string norm = NormalizeEntityKey(text);
  std::vector<std::string> choices;
  for (const std::string& c : input.choices) choices.push_back(NormalizeEntityKey(c));
  // 1. Exactly (spacing and punctuation ignored).
  for (size_t i = 0; i < choices.size(); ++i) {
    if (choices[i] == norm || NoSpaces(choices[i]) == NoSpaces(norm)) return input.choices[i];
  }
  // 2. Through a synonym group (the first member of the group that is a choice).
  for (const auto& group : ChoiceSynonyms()) {
    if (std::find(group.begin(), group.end(), norm) == group.end()) continue;
    for (const std::string& synonym : group) {
      for (size_t i = 0; i < choices.size(); ++i) {
        if (choices[i] == synonym) {
          *how = "synonym";
          return input.choices[i];
        }
      }
    }
  }
  // 3. Containment: the longest choice inside the text; else the only choice containing the text.
  int best = -1;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (ContainsWords(norm, choices[i]) && (best < 0 || choices[i].size() > choices[best].size())) {
      best = static_cast<int>(i);
    }
  }
  if (best >= 0) {
    *how = "contains";
    return input.choices[best];
  }
  int containing = -1, count = 0;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (ContainsWords(choices[i], norm)) containing = static_cast<int>(i), ++count;
  }
  if (count == 1) {
    *how = "contained";
    return input.choices[containing];
  }
  // 4. A typo: the unique nearest choice within the allowed distance.
  int nearest = -1, nearest_d = 1 << 30, ties = 0;
  for (size_t i = 0; i < choices.size(); ++i) {
    const int d = EditDistance(norm, choices[i]);
    if (d < nearest_d) nearest = static_cast<int>(i), nearest_d = d, ties = 1;
    else if (d == nearest_d) ++ties;
  }
  if (nearest >= 0 && ties == 1 && nearest_d <= AllowedKeyDistance(norm.size())) {
    *how = "edit distance " + std::to_string(nearest_d);
    return input.choices[nearest];
  }
  return std::nullopt;
}

// A boolean offered to a choice input: the choice that means yes or no, when there is one.
std::optional<std::string> BooleanChoice(const CalcInput& input, bool value) {
  static const std::vector<std::string> kYes = {"true", "yes", "present"};
  static const std::vector<std::string> kNo = {"false", "no", "none", "absent", "normal"};
  for (const std::string& want : value ? kYes : kNo) {
    for (const std::string& c : input.choices) {
      if (c == want) return c;
    }
  }
  return std::nullopt;
}

std::string InputText(const CalcInput& input) {
  std::string s = input.name;
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

// How well an entity key names an input: 0 = exactly, d > 0 = edit distance d, nullopt = not at all.
std::optional<int> KeyDistance(const std::string& key, const CalcInput& input) {
  std::vector<std::string> names = {NormalizeEntityKey(InputText(input))};
  for (const std::string& alias : input.aliases) names.push_back(NormalizeEntityKey(alias));
  int best = 1 << 30;
  for (const std::string& name : names) {
    if (name == key) return 0;
    best = std::min(best, EditDistance(key, name));
  }
  if (best <= AllowedKeyDistance(key.size())) return best;
  return std::nullopt;
}

std::vector<std::string> Words(const std::string& norm) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < norm.size()) {
    const size_t end = norm.find(' ', start);
    out.push_back(norm.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// A key that names a category of which a boolean input is one value: its
// words are a proper part of the input's name ('Race' for black_race).
bool IsCategoryKey(const std::string& key, const CalcInput& input) {
  if (input.type != InputType::kBoolean) return false;
  const std::vector<std::string> name = Words(NormalizeEntityKey(InputText(input)));
  const std::vector<std::string> words = Words(key);
  if (words.empty() || words.size() >= name.size()) return false;
  return std::all_of(words.begin(), words.end(),
                     [&](const std::string& w) { return std::find(name.begin(), name.end(), w) != name.end(); });
}

// The category's value for that input: true when the text names the rest of
// the input's name ('Black' for black_race), false for any other value
// ('White'); booleans and numbers are read as usual.
Json ReadCategory(const CalcInput& input, const std::string& key, const Json& value, std::string* why) {
  const auto text = ReadText(value);
  if (!text) return ReadValueForInput(input, value, why);
  const std::vector<std::string> key_words = Words(key);
  std::string rest;
  for (const std::string& w : Words(NormalizeEntityKey(InputText(input)))) {
    if (std::find(key_words.begin(), key_words.end(), w) == key_words.end()) rest += (rest.empty() ? "" : " ") + w;
  }
  const bool match = NormalizeEntityKey(*text) == rest;
  *why = "category '" + *text + "' read as " + (match ? "true" : "false");
  return match;
}

void AppendUtf8Digit(std::string& out, int digit) { out += static_cast<char>('0' + digit); }

}  // namespace

std::string NormalizeEntityKey(std::string_view key) {
  std::string out;
  auto space = [&out] {
    if (!out.empty() && out.back() != ' ') out += ' ';
  };
  auto word = [&](const char* w) {
    space();
    out += w;
    out += ' ';
  };
  for (size_t i = 0; i < key.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(key[i]);
    const unsigned char c1 = i + 1 < key.size() ? static_cast<unsigned char>(key[i + 1]) : 0;
    const unsigned char c2 = i + 2 < key.size() ? static_cast<unsigned char>(key[i + 2]) : 0;
    if (c == 0xE2 && c1 == 0x82 && c2 >= 0x80 && c2 <= 0x89) {  // subscripts ₀-₉ (U+2080-2089)
      AppendUtf8Digit(out, c2 - 0x80);
      i += 2;
    } else if (c == 0xE2 && c1 == 0x81 && (c2 == 0xB0 || (c2 >= 0xB4 && c2 <= 0xB9))) {  // superscripts ⁰ ⁴-⁹
      AppendUtf8Digit(out, c2 == 0xB0 ? 0 : c2 - 0xB0);
      i += 2;
    } else if (c == 0xC2 && (c1 == 0xB9 || c1 == 0xB2 || c1 == 0xB3)) {  // ¹ ² ³
      AppendUtf8Digit(out, c1 == 0xB9 ? 1 : c1 == 0xB2 ? 2 : 3);
      i += 1;
    } else if (c == 0xE2 && c1 == 0x89 && (c2 == 0xA4 || c2 == 0xA5)) {  // ≤ ≥
      word(c2 == 0xA4 ? "le" : "ge");
      i += 2;
    } else if ((c == 0xC2 && c1 == 0xB5) || (c == 0xCE && c1 == 0xBC)) {  // µ μ
      out += 'u';
      i += 1;
    } else if (c == '<' || c == '>') {
      const bool eq = c1 == '=';
      word(c == '<' ? (eq ? "le" : "lt") : (eq ? "ge" : "gt"));
      if (eq) ++i;
    } else if (c == '%') {
      word("percent");
    } else if (std::isalnum(c) || c >= 0x80) {
      out += static_cast<char>(std::tolower(c));
    } else {
      space();
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

int EditDistance(std::string_view a, std::string_view b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

int AllowedKeyDistance(size_t length) { return length >= 20 ? 2 : length >= 8 ? 1 : 0; }

Json ReadValueForInput(const CalcInput& input, const Json& value, std::string* why) {
  switch (input.type) {
    case InputType::kNumber:
    case InputType::kInteger: {
      if (auto compound = ReadCompound(value, input.dimension)) {
        if (compound->ok()) return **compound;
        *why = compound->status().message();
        return nullptr;
      }
      if (auto m = ReadMeasurement(value)) return *m;
      *why = "no number in " + DumpJson(value);
      return nullptr;
    }
    case InputType::kBoolean: {
      if (auto b = ReadBoolean(value)) return *b;
      *why = "not a yes/no value: " + DumpJson(value);
      return nullptr;
    }
    case InputType::kChoice: {
      if (value.is_boolean()) {
        if (auto c = BooleanChoice(input, value.get<bool>())) return *c;
        *why = "a true/false value for a choice without a yes/no option";
        return nullptr;
      }
      // A list may hold several strings (e.g. a drug name and a unit): try each.
      std::vector<std::string> texts;
      if (value.is_string()) texts.push_back(value.get<std::string>());
      if (value.is_array()) {
        for (const Json& item : value) {
          if (item.is_string()) texts.push_back(item.get<std::string>());
        }
      }
      for (const std::string& text : texts) {
        std::string how;
        if (auto c = MatchChoice(input, text, &how)) {
          if (!how.empty()) *why = "choice '" + text + "' read as '" + *c + "' (" + how + ")";
          return *c;
        }
      }
      *why = "no choice of " + input.name + " matches " + DumpJson(value);
      return nullptr;
    }
    case InputType::kSex:
    case InputType::kDate: {
      if (auto text = ReadText(value)) return *text;
      *why = "expected text, got " + DumpJson(value);
      return nullptr;
    }
  }
  return nullptr;
}

MappedArgs MapEntities(const calc::Calculator& calculator, const Json& entities) {
  MappedArgs out;
  if (!entities.is_object()) {
    out.notes.push_back("entities are not a dict");
    return out;
  }
  struct Candidate {
    Json value;
    int distance;
  };
  std::map<std::string, std::vector<Candidate>> per_input;
  for (const auto& [key, value] : entities.items()) {
    const std::string norm = NormalizeEntityKey(key);
    // The inputs this key names, at their distance; when only fuzzy matches exist, the unique nearest one.
    std::vector<std::pair<const CalcInput*, int>> matches;
    int min_fuzzy = 1 << 30;
    for (const CalcInput& input : calculator.inputs) {
      if (auto d = KeyDistance(norm, input)) {
        matches.push_back({&input, *d});
        if (*d > 0) min_fuzzy = std::min(min_fuzzy, *d);
      }
    }
    const bool any_exact = std::any_of(matches.begin(), matches.end(), [](const auto& m) { return m.second == 0; });
    std::vector<std::pair<const CalcInput*, int>> chosen;
    for (const auto& m : matches) {
      if (any_exact ? m.second == 0 : m.second == min_fuzzy) chosen.push_back(m);
    }
    if (!any_exact && chosen.size() > 1) {
      out.notes.push_back("key '" + key + "' is equally close to several inputs; ignored");
      chosen.clear();
    }
    if (chosen.empty()) {
      out.ignored.push_back(key);
      continue;
    }
    for (const auto& [input, distance] : chosen) {
      std::string why;
      Json read = IsCategoryKey(norm, *input) ? ReadCategory(*input, norm, value, &why)
                                               : ReadValueForInput(*input, value, &why);
      if (distance > 0) {
        out.notes.push_back("key '" + key + "' read as " + input->name + " (edit distance " +
                            std::to_string(distance) + ")");
      }
      if (read.is_null()) {
        out.notes.push_back(input->name + ": " + why);
        continue;
      }
      if (!why.empty()) out.notes.push_back(input->name + ": " + why);
      per_input[input->name].push_back({std::move(read), distance});
    }
  }
  for (const CalcInput& input : calculator.inputs) {
    auto it = per_input.find(input.name);
    if (it == per_input.end()) continue;
    const std::vector<Candidate>& cands = it->second;
    if (input.type == InputType::kBoolean) {
      out.args[input.name] = std::any_of(cands.begin(), cands.end(), [](const Candidate& c) { return c.value == true; });
      continue;
    }
    const auto best = std::min_element(cands.begin(), cands.end(),
                                       [](const Candidate& a, const Candidate& b) { return a.distance < b.distance; });
    out.args[input.name] = best->value;
  }
  return out;
}

}  // namespace medreact::eval
