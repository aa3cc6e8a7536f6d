// References and the fallback report (research_report.h).
#include "apps/research/research_report.h"

#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>

#include "core/text_util.h"

namespace medreact {
namespace {

constexpr int kMaxReference = 1'000'000;

// Reads "3", "1, 4", "2-5" into `out`; false when the text is anything else.
bool ReadNumberList(std::string_view text, std::set<int>& out) {
  std::set<int> found;
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
    for (int n = a; n <= b; ++n) found.insert(n);
    spaces();
    if (i == text.size()) break;
    if (text[i] != ',' && text[i] != ';') return false;
    ++i;
  }
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
    for (size_t open = line.find('['); open != std::string::npos; open = line.find('[', open + 1)) {
      const size_t close = line.find(']', open);
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

std::string WithReferencesSection(const std::string& markdown, std::string_view bibliography) {
  std::istringstream lines(markdown);
  std::string line;
  while (std::getline(lines, line)) {
    if (IsReferencesHeading(line)) return markdown;
  }
  const std::map<int, std::string> entries = BibliographyEntries(bibliography);
  if (entries.empty()) return markdown;
  const std::vector<int> cited = CitedReferenceNumbers(markdown);
  std::string out = markdown;
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += "\n## References\n\n";
  if (cited.empty()) {
    for (const auto& [n, entry] : entries) out += entry + "\n";
  } else {
    for (int n : cited) {
      if (auto it = entries.find(n); it != entries.end()) out += it->second + "\n";
    }
  }
  return out;
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
  for (const auto& [n, entry] : BibliographyEntries(in.bibliography)) r.references_cited.push_back(n);
  return r;
}

}  // namespace medreact
