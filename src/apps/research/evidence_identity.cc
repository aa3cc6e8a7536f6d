// Identifier canonical forms, richness and the merge of two records of one
// work. See evidence_identity.h for the rules.
#include "apps/research/evidence_identity.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>

#include "apps/research/text_similarity.h"
#include "core/text_util.h"

namespace medreact {
namespace {

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool AllLetters(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); });
}

std::string AsciiUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && AsciiLower(s.substr(0, prefix.size())) == prefix;
}

// "PREFIX" + digits, for PMC and NCT numbers written with or without it.
std::string WithPrefix(std::string_view prefix, std::string_view value) {
  std::string v = AsciiUpper(TrimView(value));
  if (StartsWith(v, prefix)) v.erase(0, prefix.size());
  return AllDigits(v) ? std::string(prefix) + v : std::string();
}

std::string CanonicalDoi(std::string_view value) {
  value = TrimView(value);
  if (StartsWithNoCase(value, "doi:")) value = TrimView(value.substr(4));
  return StartsWith(value, "10.") && value.find('/') != std::string_view::npos ? "DOI:" + AsciiLower(value)
                                                                                 : std::string();
}

size_t FilledCount(const Evidence& e) {
  return static_cast<size_t>(!IsBlank(e.title)) + static_cast<size_t>(!IsBlank(e.type)) +
         static_cast<size_t>(!IsBlank(e.citation));
}

}  // namespace

std::string CanonicalIdentifier(std::string_view raw) {
  const std::string_view text = TrimView(raw);
  if (text.empty()) return "";
  // DOIs as links or bare.
  for (std::string_view prefix : {"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/",
                                  "doi.org/"}) {
    if (StartsWithNoCase(text, prefix)) return CanonicalDoi(text.substr(prefix.size()));
  }
  if (StartsWith(text, "10.")) return CanonicalDoi(text);
  // Bare PMC and NCT numbers.
  const std::string upper = AsciiUpper(text);
  if (StartsWith(upper, "NCT") && AllDigits(std::string_view(upper).substr(3))) return "NCT:" + upper;
  if (StartsWith(upper, "PMC") && AllDigits(std::string_view(upper).substr(3))) return "PMCID:" + upper;
  // SCHEME:value.
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return "";
  const std::string_view scheme_text = TrimView(text.substr(0, colon));
  const std::string_view value = TrimView(text.substr(colon + 1));
  if (!AllLetters(scheme_text) || value.empty()) return "";
  const std::string scheme = AsciiUpper(scheme_text);
  if (scheme == "PMID" || scheme == "PUBMED" || scheme == "MED") {
    if (!AllDigits(value)) return "";
    const size_t first = std::min(value.find_first_not_of('0'), value.size() - 1);
    return "PMID:" + std::string(value.substr(first));
  }
  if (scheme == "PMCID" || scheme == "PMC") {
    const std::string v = WithPrefix("PMC", value);
    return v.empty() ? "" : "PMCID:" + v;
  }
  if (scheme == "NCT" || scheme == "NCTID") {
    const std::string v = WithPrefix("NCT", value);
    return v.empty() ? "" : "NCT:" + v;
  }
  if (scheme == "DOI") return CanonicalDoi(value);
  return scheme + ":" + std::string(value);
}

std::vector<std::string> CanonicalIdentifiers(const Evidence& e) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& raw) {
    std::string id = CanonicalIdentifier(raw);
    if (!id.empty() && std::find(out.begin(), out.end(), id) == out.end()) out.push_back(std::move(id));
  };
  add(e.id);
  for (const std::string& other : e.other_ids) add(other);
  return out;
}

int CompareRichness(const Evidence& a, const Evidence& b) {
  const auto rank = [](const Evidence& e) {
    return std::make_tuple(TrimView(e.abstract).size(), e.authors.size(), e.year > 0, FilledCount(e));
  };
  const auto ra = rank(a);
  const auto rb = rank(b);
  return ra > rb ? 1 : (ra < rb ? -1 : 0);
}

Evidence MergeDuplicates(const Evidence& stored, const Evidence& incoming) {
  const bool take_incoming = CompareRichness(incoming, stored) > 0;
  const Evidence& richer = take_incoming ? incoming : stored;
  const Evidence& other = take_incoming ? stored : incoming;
  Evidence out = richer;
  out.url = stored.url.empty() ? incoming.url : stored.url;
  if (IsBlank(out.id)) out.id = other.id;
  if (IsBlank(out.title)) out.title = other.title;
  if (IsBlank(out.abstract)) out.abstract = other.abstract;
  if (out.authors.empty()) out.authors = other.authors;
  if (out.year <= 0) out.year = other.year;
  if (IsBlank(out.type)) out.type = other.type;
  if (IsBlank(out.citation)) out.citation = other.citation;

  // Every identifier of both, each once (by canonical form), the kept id
  // not repeated; spellings as first written.
  std::set<std::string> seen;
  if (std::string id = CanonicalIdentifier(out.id); !id.empty()) seen.insert(id);
  std::vector<std::string> others;
  for (const Evidence* e : {&richer, &other}) {
    std::vector<std::string> raw = e->other_ids;
    if (e != &richer || e->id != out.id) raw.insert(raw.begin(), e->id);
    for (const std::string& r : raw) {
      const std::string id = CanonicalIdentifier(r);
      if (!id.empty() && seen.insert(id).second) others.push_back(Trim(r));
    }
  }
  out.other_ids = std::move(others);
  return out;
}

bool HaveDistinctRecordIds(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  // Called for every pair the meaning pass compares: no allocation.
  for (std::string_view scheme : {"PMID:", "NCT:"}) {
    bool in_a = false;
    bool in_b = false;
    bool shared = false;
    for (const std::string& x : a) {
      if (!StartsWith(x, scheme)) continue;
      in_a = true;
      shared = shared || std::find(b.begin(), b.end(), x) != b.end();
    }
    for (const std::string& y : b) in_b = in_b || StartsWith(y, scheme);
    if (in_a && in_b && !shared) return true;
  }
  return false;
}

std::string TitleKey(std::string_view title) {
  // Unicode punctuation is no word either: General Punctuation (U+2000-U+206F:
  // dashes, curly quotes, ellipsis), no-break space, guillemets, middle dot.
  std::string text(title);
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    const auto b0 = static_cast<unsigned char>(text[i]), b1 = static_cast<unsigned char>(text[i + 1]);
    if (b0 == 0xE2 && (b1 == 0x80 || b1 == 0x81) && i + 2 < text.size()) {
      text.replace(i, 3, "   ");
    } else if (b0 == 0xC2 && (b1 == 0xA0 || b1 == 0xAB || b1 == 0xBB || b1 == 0xB7)) {
      text.replace(i, 2, "  ");
    }
  }
  const std::vector<std::string> words = WordTokens(text);
  return words.size() < kMinTitleWords ? std::string() : Join(words, " ");
}

}  // namespace medreact
