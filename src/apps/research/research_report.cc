// References and the fallback report (research_report.h).
#include "apps/research/research_report.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>

#include "core/text_util.h"

namespace medreact {
namespace {

constexpr int kMaxReference = 1'000'000;
constexpr size_t kMaxGroup = 1000;  // numbers in one citation group

// Reads "3", "1, 4", "2-5" into `out` in the order written (ranges
// expanded); false, and `out` unchanged, when the text is anything else.
bool ReadNumberSequence(std::string_view text, std::vector<int>& out) {
  std::vector<int> found;
  size_t i = 0;
  auto number = [&](int& v) {
    if (i >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i]))) return false;
    int64_t n = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      n = n * 10 + (text[i++] - '0');
      if (n > kMaxReference) return false;
    }
    v = static_cast<int>(n);
    return true;
  };
  auto spaces = [&] {
    while (i < text.size() && text[i] == ' ') ++i;
  };
  while (true) {
    spaces();
    int a = 0;
    if (!number(a)) return false;
    spaces();
    int b = a;
    if (i < text.size() && (text[i] == '-' || text[i] == '\xe2')) {  // '-' or an en dash (e2 80 93)
      i += text[i] == '-' ? 1 : 3;
      spaces();
      if (!number(b) || b < a || b - a > 1000) return false;
    }
    if (found.size() + static_cast<size_t>(b - a) >= kMaxGroup) return false;  // no citation is that long
    for (int n = a; n <= b; ++n) found.push_back(n);
    spaces();
    if (i == text.size()) break;
    if (text[i] != ',' && text[i] != ';') return false;
    ++i;
  }
  out.insert(out.end(), found.begin(), found.end());
  return true;
}

bool ReadNumberList(std::string_view text, std::set<int>& out) {
  std::vector<int> found;
  if (!ReadNumberSequence(text, found)) return false;
  out.insert(found.begin(), found.end());
  return true;
}

bool IsReferencesHeading(std::string_view line) {
  line = TrimView(line);
  if (line.empty() || line[0] != '#') return false;
  while (!line.empty() && line[0] == '#') line.remove_prefix(1);
  const std::string title = AsciiLower(TrimView(line));
  return title == "references" || title == "bibliography" || title == "reference list";
}

bool IsFailedSearchesHeading(std::string_view line) {
  line = TrimView(line);
  if (line.empty() || line[0] != '#') return false;
  while (!line.empty() && line[0] == '#') line.remove_prefix(1);
  return AsciiLower(TrimView(line)) == AsciiLower(kFailedSearchesHeading);
}

bool IsLeftOutHeading(std::string_view line) {
  line = TrimView(line);
  if (line.empty() || line[0] != '#') return false;
  while (!line.empty() && line[0] == '#') line.remove_prefix(1);
  return AsciiLower(TrimView(line)) == AsciiLower(kLeftOutHeading);
}

bool IsHeading(std::string_view line) { return TrimView(line).starts_with("#"); }

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> lines;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// `lines` without the sections whose heading `drop` accepts (a section runs
// to the next heading).
std::vector<std::string> WithoutSections(const std::vector<std::string>& lines, bool (*drop)(std::string_view)) {
  std::vector<std::string> kept;
  bool dropping = false;
  for (const std::string& line : lines) {
    if (IsHeading(line)) dropping = drop(line);
    if (!dropping) kept.push_back(line);
  }
  return kept;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// "1, 2, 3, 5" → "1-3, 5": sorted, each once, runs of three or more as ranges.
std::string FormatGroup(std::vector<int> numbers) {
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  std::vector<std::string> parts;
  for (size_t i = 0; i < numbers.size();) {
    size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    if (j - i >= 2) {
      parts.push_back(std::to_string(numbers[i]) + "-" + std::to_string(numbers[j]));
    } else {
      for (size_t k = i; k <= j; ++k) parts.push_back(std::to_string(numbers[k]));
    }
    i = j + 1;
  }
  return Join(parts, ", ");
}

// Apply gives every number cited in `text` (in the order written) the next
// report number when it has none yet, and returns the text with each
// citation group written in the report's numbers. Groups naming a number the
// bibliography lacks are left as they are. One instance numbers one report.
class Renumbering {
 public:
  explicit Renumbering(const std::map<int, std::string>& entries) : entries_(entries) {}

  std::string Apply(const std::string& text) {
    std::string out;
    size_t from = 0;
    size_t close = 0, newline = 0;  // the first ']' and newline after the last '[' (kept: linear)
    for (size_t open = text.find('['); open != std::string::npos; open = text.find('[', open + 1)) {
      if (close <= open) close = text.find(']', open);
      if (close == std::string::npos) break;
      if (newline != std::string::npos && newline <= open) newline = text.find('\n', open);
      if (newline != std::string::npos && newline < close) continue;  // a citation is on one line
      if (close + 1 < text.size() && text[close + 1] == '(') continue;  // a markdown link
      std::vector<int> cited;
      if (!ReadNumberSequence(std::string_view(text).substr(open + 1, close - open - 1), cited)) continue;
      bool known = true;
      for (int n : cited) known = known && entries_.count(n) > 0;
      if (!known) continue;
      std::vector<int> renumbered;
      for (int n : cited) renumbered.push_back(Number(n));
      out += text.substr(from, open - from) + "[" + FormatGroup(renumbered) + "]";
      from = close + 1;
      open = close;
    }
    return out + text.substr(from);
  }

  // The report number of bibliography number n (a new one when first seen).
  int Number(int n) {
    auto [it, inserted] = report_number_.emplace(n, static_cast<int>(order_.size()) + 1);
    if (inserted) order_.push_back(n);
    return it->second;
  }

  const std::vector<int>& order() const { return order_; }

 private:
  const std::map<int, std::string>& entries_;
  std::map<int, int> report_number_;  // bibliography number → report number
  std::vector<int> order_;            // bibliography numbers in order of first citation
};

// A bibliography line "[m] citation. url" as reference n.
std::string EntryAs(const std::string& entry, int n) {
  const size_t close = entry.find(']');
  return "[" + std::to_string(n) + "]" + (close == std::string::npos ? " " + entry : entry.substr(close + 1));
}

}  // namespace

std::vector<int> CitedReferenceNumbers(std::string_view markdown) {
  std::set<int> cited;
  std::istringstream lines{std::string(markdown)};
  std::string line;
  bool in_references = false;
  while (std::getline(lines, line)) {
    if (IsReferencesHeading(line)) {
      in_references = true;
      continue;
    }
    if (in_references && TrimView(line).starts_with("#")) in_references = false;
    if (in_references) continue;  // the list itself is not a citation
    size_t close = 0;  // the first ']' after the last '[' (no rescans: "[[[[…]" stays linear)
    for (size_t open = line.find('['); open != std::string::npos; open = line.find('[', open + 1)) {
      if (close <= open) close = line.find(']', open);
      if (close == std::string::npos) break;
      if (close + 1 < line.size() && line[close + 1] == '(') continue;  // a markdown link
      ReadNumberList(std::string_view(line).substr(open + 1, close - open - 1), cited);
    }
  }
  return {cited.begin(), cited.end()};
}

std::string CheckReportReferences(const ResearchReport& report, size_t evidence_count) {
  std::set<int> bad;
  for (int n : CitedReferenceNumbers(report.markdown)) {
    if (n < 1 || static_cast<size_t>(n) > evidence_count) bad.insert(n);
  }
  for (int n : report.references_cited) {
    if (n < 1 || static_cast<size_t>(n) > evidence_count) bad.insert(n);
  }
  if (bad.empty()) return "";
  std::string list;
  for (int n : bad) list += (list.empty() ? "[" : ", [") + std::to_string(n) + "]";
  return "The report cites " + list + ", which the bibliography does not have: it has " +
         (evidence_count == 0 ? std::string("no entries, so cite nothing")
                              : "entries [1] to [" + std::to_string(evidence_count) + "]") +
         ". Call get_bibliography, cite only its numbers, and submit the report again.";
}

std::map<int, std::string> BibliographyEntries(std::string_view bibliography) {
  std::map<int, std::string> entries;
  std::istringstream lines{std::string(bibliography)};
  std::string line;
  while (std::getline(lines, line)) {
    if (line.size() < 3 || line[0] != '[') continue;
    const size_t close = line.find(']');
    if (close == std::string::npos) continue;
    std::set<int> n;
    if (ReadNumberList(std::string_view(line).substr(1, close - 1), n) && n.size() == 1) entries[*n.begin()] = line;
  }
  return entries;
}

ResearchReport FallbackReport(const FallbackInputs& in) {
  ResearchReport r;
  r.title = "Research summary (fallback synthesis): " + in.question;
  r.executive_summary = "The report agent did not write this report: " + in.reason_text +
                        " It was written from the research memory (what the searches found, the hypotheses and "
                        "the last judgement), without further analysis.";
  r.methodology = "Multi-agent literature research (seed 003) over " + std::to_string(in.rounds) +
                  " manager round(s), ended by: " + in.reason + ". Fallback synthesis from the shared memory.";
  if (in.judgement) {
    char line[256];
    std::snprintf(line, sizeof line, "Last judgement: %s (mechanism %d/10, clinical %d/10, confidence %.0f%%).",
                  in.judgement->sufficient ? "sufficient evidence" : "insufficient evidence",
                  in.judgement->mechanism_score, in.judgement->clinical_evidence_score,
                  in.judgement->confidence * 100);
    r.findings.push_back(line);
    if (!in.judgement->mechanism_reasoning.empty()) {
      r.findings.push_back("Mechanism: " + in.judgement->mechanism_reasoning);
    }
    if (!in.judgement->clinical_reasoning.empty()) {
      r.findings.push_back("Clinical evidence: " + in.judgement->clinical_reasoning);
    }
  } else {
    r.findings.push_back("No valid judgement of the evidence was made.");
  }
  r.limitations = {"Not synthesised by the report agent; the evidence was not read or weighed beyond the judge's "
                   "scores.",
                   "Stopped early (" + in.reason + "); the search may be incomplete."};
  r.conclusion = in.judgement && in.judgement->sufficient
                     ? "The judge found the evidence sufficient, but no synthesised report was written; read the "
                       "references below."
                     : "No conclusion can be drawn from this run; the evidence gathered so far is listed below.";
  std::ostringstream md;
  md << "# " << r.title << "\n\n";
  md << "> **Fallback synthesis** — stopped by **" << in.reason << "**: " << in.reason_text << "\n\n";
  md << "## Summary\n\n" << r.executive_summary << "\n\n";
  md << "## Findings\n\n";
  for (const std::string& f : r.findings) md << "- " << f << "\n";
  md << "\n## What the memory holds\n\n" << in.context_summary << "\n\n";
  md << "## Limitations\n\n";
  for (const std::string& l : r.limitations) md << "- " << l << "\n";
  md << "\n## Conclusion\n\n" << r.conclusion << "\n\n## References\n\n";
  md << (in.bibliography.empty() ? std::string("No evidence was gathered.\n") : in.bibliography);
  r.markdown = md.str();
  if (!r.markdown.empty() && r.markdown.back() != '\n') r.markdown += '\n';
  r.references_cited = CitedReferenceNumbers(r.markdown);  // the memory summary's; NumberInCitationOrder renumbers
  return r;
}

std::string FailedSearchesSection(const std::vector<FailedSearch>& failed) {
  if (failed.empty()) return "";
  std::string out = "## ";
  out.append(kFailedSearchesHeading).append("\n\n");
  out += std::to_string(failed.size()) + (failed.size() == 1 ? " search" : " searches") +
         " returned an error instead of records; what they would have found is missing from this report.\n\n";
  for (const FailedSearch& f : failed) {
    out += "- Round " + std::to_string(f.round) + ", " + (f.source.empty() ? f.tool : f.source) + " (" + f.tool +
           "), query \"" + Preview(f.query, 120) + "\": " + Preview(f.error, 200) + "\n";
  }
  return out;
}

namespace {

// `markdown` without its sections headed as `is_heading` says, and with
// `section` (unless "") placed before the References heading, else at the end.
std::string WithSection(const std::string& markdown, bool (*is_heading)(std::string_view), const std::string& section) {
  std::vector<std::string> lines = WithoutSections(Lines(markdown), is_heading);
  if (section.empty()) return JoinLines(lines);
  std::vector<std::string> out;
  bool placed = false;
  for (const std::string& line : lines) {
    if (!placed && IsReferencesHeading(line)) {
      for (const std::string& l : Lines(section)) out.push_back(l);
      out.push_back("");
      placed = true;
    }
    out.push_back(line);
  }
  if (!placed) {
    while (!out.empty() && IsBlank(out.back())) out.pop_back();
    if (!out.empty()) out.push_back("");
    for (const std::string& l : Lines(section)) out.push_back(l);
  }
  return JoinLines(out);
}

}  // namespace

std::string WithFailedSearches(const std::string& markdown, const std::vector<FailedSearch>& failed) {
  return WithSection(markdown, IsFailedSearchesHeading, FailedSearchesSection(failed));
}

std::string WithLeftOutRecords(const std::string& markdown, const std::vector<std::string>& notes) {
  std::string section;
  if (!notes.empty()) {
    section = "## " + std::string(kLeftOutHeading) +
              "\n\nThe research kept less than the sources returned; this report does not rest on what follows.\n\n";
    for (const std::string& note : notes) section += "- " + Preview(note, 300) + "\n";
  }
  return WithSection(markdown, IsLeftOutHeading, section);
}

VancouverReport NumberInCitationOrder(const ResearchReport& report, std::string_view bibliography,
                                      bool list_uncited) {
  const std::map<int, std::string> entries = BibliographyEntries(bibliography);
  Renumbering numbers(entries);
  VancouverReport out;
  ResearchReport& r = out.report;
  r = report;
  // The body first (its order is the reader's), then the other fields, then the list the model gave.
  std::string body = JoinLines(WithoutSections(Lines(report.markdown), IsReferencesHeading));
  while (!body.empty() && (body.back() == '\n' || body.back() == ' ')) body.pop_back();
  body = numbers.Apply(body);
  r.executive_summary = numbers.Apply(r.executive_summary);
  r.methodology = numbers.Apply(r.methodology);
  for (std::string& f : r.findings) f = numbers.Apply(f);
  for (std::string& l : r.limitations) l = numbers.Apply(l);
  r.conclusion = numbers.Apply(r.conclusion);
  for (int n : report.references_cited) {
    if (entries.count(n)) numbers.Number(n);
  }
  out.bibliography_numbers = numbers.order();
  r.references_cited.clear();
  for (size_t k = 1; k <= out.bibliography_numbers.size(); ++k) r.references_cited.push_back(static_cast<int>(k));

  std::string refs;
  int k = 0;
  for (int m : out.bibliography_numbers) refs += EntryAs(entries.at(m), ++k) + "\n\n";
  std::string uncited;
  if (list_uncited || out.bibliography_numbers.empty()) {
    for (const auto& [m, entry] : entries) {
      if (std::find(out.bibliography_numbers.begin(), out.bibliography_numbers.end(), m) !=
          out.bibliography_numbers.end()) {
        continue;
      }
      out.uncited_numbers.push_back(m);
      uncited += EntryAs(entry, ++k) + "\n\n";
    }
  }
  std::string md = body + "\n";
  if (!refs.empty() || !uncited.empty()) {
    md += "\n## References\n\n" + refs;
    if (!uncited.empty()) {
      md += refs.empty() ? uncited : "### Gathered, not cited\n\n" + uncited;
    }
    while (md.size() > 1 && md[md.size() - 1] == '\n' && md[md.size() - 2] == '\n') md.pop_back();
  }
  r.markdown = md;
  return out;
}

}  // namespace medreact
