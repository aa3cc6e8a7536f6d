// The regex cost check (regex_cost.h).
#include "engine/regex_cost.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace medreact {
namespace {

struct RegexFrame {
  bool variable_inside = false;        // a *, +, ?, {m,n} (m < n) somewhere inside
  bool alternation = false;            // a '|' at this level
  std::vector<std::string> first;      // each alternative's first atom ("" when unknown)
  size_t alternatives = 1;             // 1 + the '|' at this level
  bool at_alternative_start = true;
};

}  // namespace

std::string RegexCostProblem(const std::string& pattern) {
  std::vector<RegexFrame> stack(1);
  bool last_was_quantifier = false;  // the previous token was a quantifier
  bool last_atom_group = false;      // the previous atom was a group
  RegexFrame closed;                 // the group just closed, when last_atom_group
  bool have_atom = false;
  auto atom = [&](const std::string& text) {
    RegexFrame& f = stack.back();
    if (f.at_alternative_start) {
      f.first.push_back(text);
      f.at_alternative_start = false;
    }
    have_atom = true;
    last_was_quantifier = false;
    last_atom_group = false;
  };
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      // A back-reference number std::regex would read into an int (libstdc++ overflows on
      // "\99999999999": undefined behaviour, found by the schema fuzzer under UBSan).
      size_t digits = 0;
      while (i + 1 + digits < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[i + 1 + digits]))) ++digits;
      if (digits > 4) return "a back-reference number of " + std::to_string(digits) + " digits";
      const std::string esc = pattern.substr(i, 2);
      ++i;
      // A class escape (\d, \w, \s...) is unknown as a first character; a literal escape is itself.
      const bool literal = esc.size() == 2 && std::string("dDwWsSbB").find(esc[1]) == std::string::npos;
      atom(literal ? esc : "");
      continue;
    }
    if (c == '[') {
      size_t j = i + 1;
      if (j < pattern.size() && pattern[j] == '^') ++j;
      if (j < pattern.size() && pattern[j] == ']') ++j;
      while (j < pattern.size() && pattern[j] != ']') j += pattern[j] == '\\' ? 2 : 1;
      i = std::min(j, pattern.size());
      atom("");  // a class: its first character is not one known character
      continue;
    }
    if (c == '(') {
      if (stack.back().at_alternative_start) {
        stack.back().first.push_back("");
        stack.back().at_alternative_start = false;
      }
      if (i + 2 < pattern.size() && pattern[i + 1] == '?') i += 2;  // (?: (?= (?!
      stack.emplace_back();
      have_atom = false;
      last_was_quantifier = false;
      continue;
    }
    if (c == ')') {
      if (stack.size() > 1) {
        closed = stack.back();
        stack.pop_back();
        if (closed.variable_inside) stack.back().variable_inside = true;
      }
      have_atom = true;
      last_was_quantifier = false;
      last_atom_group = true;
      continue;
    }
    if (c == '|') {
      stack.back().alternation = true;
      ++stack.back().alternatives;
      stack.back().at_alternative_start = true;
      have_atom = false;
      last_was_quantifier = false;
      last_atom_group = false;
      continue;
    }
    bool quantifier = c == '*' || c == '+' || c == '?';
    bool variable = quantifier;
    bool repeats = c == '*' || c == '+';  // more than once: what makes nesting exponential ('?' is at most 2 ways)
    size_t end = i;
    if (c == '{') {
      size_t j = i + 1;
      std::string low, high;
      while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j]))) low += pattern[j++];
      bool comma = j < pattern.size() && pattern[j] == ',';
      if (comma) ++j;
      while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j]))) high += pattern[j++];
      // Checked before the closing brace: libstdc++ reads the digits of "{1,3000000000000000000"
      // into a long and overflows (undefined behaviour, found by the schema fuzzer) even when no
      // '}' follows.
      if (low.size() > 4 || high.size() > 4) return "a repetition count above " + std::to_string(kMaxRegexCount);
      if (!low.empty() && j < pattern.size() && pattern[j] == '}') {
        quantifier = true;
        end = j;
        const auto count = [](const std::string& digits) { return digits.size() > 5 ? 100000 : std::stoi(digits); };
        if (count(low) > kMaxRegexCount || (!high.empty() && count(high) > kMaxRegexCount)) {
          return "a repetition count above " + std::to_string(kMaxRegexCount);
        }
        variable = comma && (high.empty() || count(high) != count(low));
        repeats = variable && (high.empty() || count(high) > 1);
      }
    }
    if (quantifier) {
      if (c == '?' && last_was_quantifier) {  // lazy: "*?", "+?"
        last_was_quantifier = false;
        continue;
      }
      if (last_was_quantifier) return "a repetition of a repetition (\"" + pattern.substr(i > 0 ? i - 1 : 0, 2) + "\")";
      if (!have_atom) return "";  // nothing to repeat: std::regex rejects it and the compiler says so
      if (repeats && last_atom_group) {
        if (closed.variable_inside) return "a repetition of a group that itself repeats (as in \"(a+)+\")";
        // An empty alternative ("(a||b)*", "(|a)+", "()*") matches nothing in many ways.
        if (closed.first.size() < closed.alternatives) return "a repetition of a group that can match nothing";
        if (closed.alternation) {
          // Alternatives that may begin with the same character make the matcher try each way.
          for (size_t a = 0; a < closed.first.size(); ++a) {
            if (closed.first[a].empty()) return "a repeated group of alternatives that may begin alike (as in \"(a|ab)*\")";
            for (size_t b = a + 1; b < closed.first.size(); ++b) {
              if (closed.first[a] == closed.first[b]) {
                return "a repeated group of alternatives that begin alike (as in \"(a|ab)*\")";
              }
            }
          }
        }
      }
      if (variable) stack.back().variable_inside = true;
      i = end;
      last_was_quantifier = true;
      continue;
    }
    atom(c == '.' || c == '^' || c == '$' ? "" : std::string(1, c));
  }
  return "";
}

}  // namespace medreact
