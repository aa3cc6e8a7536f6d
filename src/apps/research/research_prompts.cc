// The research team's prompts (research_prompts.h). The wording of the roles
// follows seed 003's agent contracts; the judge's scales are the seed's
// "Judge Decision Criteria".
#include "apps/research/research_prompts.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/text_util.h"

namespace medreact {
namespace {

// Question and filler words that never make a useful literature query.
const std::set<std::string, std::less<>> kStopWords = {
    "a", "about", "an", "and", "any", "are", "as", "at", "be", "been", "between", "by", "can", "could", "did",
    "do", "does", "evidence", "for", "from", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its",
    "literature", "may", "might", "of", "on", "or", "research", "should", "so", "than", "that", "the", "their",
    "there", "these", "this", "those", "to", "use", "used", "using", "was", "were", "what", "when", "where",
    "whether", "which", "who", "why", "will", "with", "would", "s", "vs", "versus", "effect", "effects",
    "know", "known", "tell", "me", "we", "our", "study", "studies", "current", "currently"};

std::string ListTools(const char* tools) { return std::string("Your tools: ") + tools + ".\n"; }

}  // namespace

std::vector<std::string> KeyTerms(std::string_view question) {
  std::vector<std::string> terms;
  std::set<std::string> seen;
  std::string word;
  auto flush = [&] {
    while (!word.empty() && word.back() == '-') word.pop_back();
    while (!word.empty() && word.front() == '-') word.erase(word.begin());
    if (!word.empty() && !kStopWords.count(word) && seen.insert(word).second) terms.push_back(word);
    word.clear();
  };
  for (char c : question) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || u >= 0x80) {
      word += static_cast<char>(std::tolower(u));
    } else {
      flush();
    }
  }
  flush();
  return terms;
}

std::string KeyTermQuery(std::string_view question) { return Join(KeyTerms(question), " "); }

std::string ManagerSystemPrompt() {
  return "You are the manager of a biomedical research team (a Magentic-style orchestrator). The team: search "
         "(searches PubMed, ClinicalTrials.gov and Europe PMC preprints; its findings go into the shared memory), "
         "judge (scores the evidence and says whether it is sufficient), hypothesis (mechanistic hypotheses "
         "drug -> target -> pathway -> effect), report (writes the final report with numbered references).\n"
         "Each round you read the state and submit a progress ledger with submit_ledger: is the request satisfied, "
         "is the team in a loop, is progress being made, who speaks next and the instruction for them.\n"
         "Usual order: search, judge; when the judge says insufficient, search again with its suggested queries; "
         "when sufficient (or rounds run out), hypothesis, then report. Keep at least one round for the report. "
         "Never invent evidence.";
}

std::string SearchSystemPrompt() {
  return "You are the search agent of a biomedical research team. Run the searches you are asked for with the "
         "literature tools, concise queries of key terms (drug, condition, outcome), then call submit_search with "
         "a short summary of what was found. What you find is stored and de-duplicated for the team "
         "automatically.\n" +
         ListTools("search_pubmed, search_clinical_trials, search_preprints, submit_search");
}

std::string JudgeSystemPrompt() {
  return "You are the judge of a biomedical research team. Assess whether the evidence listed in the task answers "
         "the research question. Mechanism score 0-10: 0-3 minimal understanding, 4-5 partial (some targets), 6-7 "
         "clear (targets and pathways), 8-9 comprehensive, 10 complete. Clinical evidence score 0-10: 0-3 "
         "preclinical only or weak human evidence, 4-5 small trials or case reports, 6-7 RCTs, 8-9 meta-analyses "
         "or large RCTs, 10 definitive. Sufficient only when confidence >= 0.7 and both scores >= 6; then "
         "recommend synthesize, else continue with 2-3 next_search_queries. Explain each score in "
         "mechanism_reasoning and clinical_reasoning (which records, which designs); in details give how many "
         "records you were shown, the ones that answer the question ([n] or identifiers), their study designs and "
         "the gaps. A brand name and its generic name are the same drug (Keytruda is pembrolizumab). Answer only "
         "by calling submit_judgement.";
}

std::string HypothesisSystemPrompt() {
  return "You are the hypothesis agent of a biomedical research team. From the evidence in the task, propose "
         "mechanistic hypotheses (drug -> target -> pathway -> effect) with a confidence 0-1, cite the evidence "
         "by identifier or reference number, name the primary hypothesis, the knowledge gaps and searches that "
         "would test them. Answer only by calling submit_hypotheses.";
}

std::string ReportSystemPrompt() {
  return "You are the report agent of a biomedical research team. Call get_bibliography for the numbered "
         "references, then write the final report in markdown: title, executive summary, methodology, findings "
         "(mechanistic and clinical), hypotheses, limitations and conclusion. Cite evidence only as [n] with "
         "numbers from the bibliography; the References section is built for you, numbered in order of first "
         "citation, and the searches that failed are listed for you (say what their absence means). Submit it "
         "with submit_report.";
}

Json EvidenceContext(int reference, const Evidence& e) {
  return {{"ref", reference},
          {"id", e.id},
          {"type", e.type},
          {"source", EvidenceSourceName(e.source)},
          {"year", e.year},
          {"peer_reviewed", e.peer_reviewed},
          {"title", e.title},
          {"abstract", Preview(e.abstract, 400)}};
}

std::string TaskMessage(const std::string& prose, const Json& context) {
  return prose + "\n\n" + kContextMarker + DumpJson(context);
}

Json ReadTaskContext(const std::vector<Message>& messages) {
  for (const Message& m : messages) {
    if (m.role != Role::kUser) continue;
    const size_t at = m.content.rfind(kContextMarker);
    if (at == std::string::npos) continue;
    const size_t start = at + std::string_view(kContextMarker).size();
    const size_t end = m.content.find('\n', start);
    Result<Json> parsed = ParseJson(std::string_view(m.content).substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (parsed.ok() && parsed->is_object()) return *parsed;
  }
  return Json::object();
}

}  // namespace medreact
