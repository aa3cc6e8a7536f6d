// Text helpers of the literature clients. See literature_text.h.
#include "tools/literature/literature_text.h"

#include <array>
#include <cctype>
#include <utility>

#include "core/text_util.h"

namespace medreact {
namespace {

bool IsSpaceByte(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// "<h4 class=x>" → "h4"; "</p>" → "p"; lower case.
std::string TagName(std::string_view tag) {
  size_t i = 1;
  if (i < tag.size() && tag[i] == '/') ++i;
  std::string name;
  while (i < tag.size() && (IsAlnum(tag[i]) || tag[i] == '-' || tag[i] == ':')) {
    name += static_cast<char>(std::tolower(static_cast<unsigned char>(tag[i])));
    ++i;
  }
  return name;
}

bool IsBlockTag(const std::string& name) {
  static const std::array<const char*, 14> kBlock = {"p",  "br", "div", "li",  "ul",  "ol",    "title",
                                                     "h1", "h2", "h3",  "h4",  "h5",  "h6",    "sec"};
  for (const char* b : kBlock) {
    if (name == b) return true;
  }
  return false;
}

// Decodes one entity at text[i] ('&'); returns the bytes consumed (0 = not one).
size_t DecodeEntity(std::string_view text, size_t i, std::string& out) {
  static const std::array<std::pair<std::string_view, char>, 5> kNamed = {
      {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}}};
  for (const auto& [name, c] : kNamed) {
    if (text.substr(i, name.size()) == name) {
      out += c;
      return name.size();
    }
  }
  if (text.substr(i, 2) == "&#") {
    size_t j = i + 2;
    const bool hex = j < text.size() && (text[j] == 'x' || text[j] == 'X');
    if (hex) ++j;
    long value = 0;
    size_t digits = 0;
    while (j < text.size() && digits < 7 &&
           (hex ? std::isxdigit(static_cast<unsigned char>(text[j])) : std::isdigit(static_cast<unsigned char>(text[j])))) {
      value = value * (hex ? 16 : 10) + (std::isdigit(static_cast<unsigned char>(text[j]))
                                             ? text[j] - '0'
                                             : std::tolower(static_cast<unsigned char>(text[j])) - 'a' + 10);
      ++j;
      ++digits;
    }
    if (digits > 0 && j < text.size() && text[j] == ';' && value >= 0x20 && value < 0x7f) {
      out += static_cast<char>(value);
      return j + 1 - i;
    }
  }
  return 0;
}

std::string Normalised(std::string_view type) {
  std::string out;
  for (char c : type) {
    if (IsAlnum(c)) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

std::string CollapseWhitespace(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool space = false;
  for (char c : text) {
    if (IsSpaceByte(c)) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string StripMarkup(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '<') {
      const size_t close = text.find('>', i + 1);
      const bool tag = close != std::string_view::npos && i + 1 < text.size() &&
                       (std::isalpha(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '/' ||
                        text[i + 1] == '!' || text[i + 1] == '?');
      if (tag) {
        if (IsBlockTag(TagName(text.substr(i, close - i)))) out += ' ';
        i = close + 1;
        continue;
      }
    } else if (c == '&') {
      if (size_t used = DecodeEntity(text, i, out); used > 0) {
        i += used;
        continue;
      }
    }
    out += c;
    ++i;
  }
  return CollapseWhitespace(out);
}

std::string ShortenText(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
  const size_t space = text.rfind(' ', cut);
  if (space != std::string_view::npos && space >= max_bytes - max_bytes / 5) cut = space;
  return std::string(TrimRightView(text.substr(0, cut))) + "\xE2\x80\xA6";  // …
}

int FirstYear(std::string_view text) {
  for (size_t i = 0; i + 4 <= text.size(); ++i) {
    if (i > 0 && std::isdigit(static_cast<unsigned char>(text[i - 1]))) continue;
    bool digits = true;
    for (size_t k = 0; k < 4; ++k) digits = digits && std::isdigit(static_cast<unsigned char>(text[i + k]));
    if (!digits || (i + 4 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 4])))) continue;
    const int year = (text[i] - '0') * 1000 + (text[i + 1] - '0') * 100 + (text[i + 2] - '0') * 10 + (text[i + 3] - '0');
    if (year >= 1000 && year <= 2999) return year;
  }
  return 0;
}

std::string TypeSlug(std::string_view publication_type) {
  std::string out;
  bool dash = false;
  for (char c : publication_type) {
    if (IsAlnum(c)) {
      if (dash && !out.empty()) out += '-';
      dash = false;
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      dash = true;
    }
  }
  return out;
}

bool IsPreprintType(std::string_view publication_type) { return Normalised(publication_type) == "preprint"; }

std::string EvidenceTypeFromPublicationTypes(const std::vector<std::string>& publication_types) {
  // Most specific design first. Keys are normalised (lower case, letters and
  // digits only); a prefix key matches "clinicaltrialphasei" and the like.
  struct Rule {
    const char* key;
    bool prefix;
    const char* type;
  };
  static const std::array<Rule, 15> kRules = {{
      {"preprint", false, "preprint"},
      {"metaanalysis", false, "meta-analysis"},
      {"systematicreview", false, "systematic-review"},
      {"practiceguideline", false, "practice-guideline"},
      {"guideline", false, "guideline"},
      {"randomizedcontrolledtrial", false, "randomized-controlled-trial"},
      {"clinicaltrial", true, "clinical-trial"},
      {"controlledclinicaltrial", false, "clinical-trial"},
      {"observationalstudy", false, "observational-study"},
      {"review", false, "review"},
      {"reviewarticle", false, "review"},
      {"casereports", false, "case-reports"},
      {"editorial", false, "editorial"},
      {"letter", false, "letter"},
      {"comment", false, "comment"},
  }};
  std::vector<std::string> normalised;
  normalised.reserve(publication_types.size());
  for (const std::string& t : publication_types) normalised.push_back(Normalised(t));
  for (const Rule& rule : kRules) {
    for (const std::string& n : normalised) {
      if (rule.prefix ? StartsWith(n, rule.key) : n == rule.key) return rule.type;
    }
  }
  return "journal-article";
}

std::string FormatCitation(const std::vector<std::string>& authors, std::string_view title, std::string_view venue,
                           int year, std::string_view id, std::string_view doi, std::string_view note) {
  std::vector<std::string> parts;
  if (!authors.empty()) {
    std::vector<std::string> shown(authors.begin(), authors.begin() + std::min<size_t>(authors.size(), 3));
    std::string names = Join(shown, ", ");
    if (authors.size() > 3) names += ", et al";
    parts.push_back(names);
  }
  auto sentence = [](std::string_view s) {
    std::string t = CollapseWhitespace(s);
    if (!t.empty() && t.back() != '.' && t.back() != '?' && t.back() != '!') t += '.';
    return t;
  };
  std::string text;
  if (!parts.empty()) text = sentence(parts[0]);
  auto add = [&text](const std::string& piece) {
    if (piece.empty()) return;
    if (!text.empty()) text += ' ';
    text += piece;
  };
  add(sentence(title));
  add(sentence(venue));
  if (year > 0) add(std::to_string(year) + ".");
  if (!id.empty()) add(std::string(id) + ".");
  if (!doi.empty()) add("doi:" + std::string(doi) + ".");
  if (!note.empty()) add(sentence(note));
  return text;
}

}  // namespace medreact
