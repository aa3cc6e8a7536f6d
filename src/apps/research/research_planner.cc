// The research team's rules planner (research_planner.h).
#include "apps/research/research_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "apps/research/research_prompts.h"
#include "apps/research/research_report.h"
#include "core/text_util.h"

namespace medreact {
namespace {

constexpr const char* kMechanismWords[] = {"mechanism", "pathway", "receptor", "target", "signal", "inhibit",
                                           "express", "mediat", "antibod", "bind", "block"};

std::string SourceTool(const std::string& source) {
  if (source == "pubmed") return "search_pubmed";
  if (source == "trials") return "search_clinical_trials";
  if (source == "preprints") return "search_preprints";
  return "";
}

std::vector<std::string> StringList(const Json& object, const char* key) {
  std::vector<std::string> out;
  auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return out;
  for (const Json& v : *it) {
    if (v.is_string() && !IsBlank(v.get<std::string>())) out.push_back(v.get<std::string>());
  }
  return out;
}

const Json& ArrayOr(const Json& object, const char* key) {
  static const Json kEmpty = Json::array();
  auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : kEmpty;
}

std::string RecordText(const Json& record) {
  return AsciiLower(StringOr(record, "title") + " " + StringOr(record, "abstract"));
}

bool Mentions(const std::string& text, const std::vector<std::string>& terms) {
  for (const std::string& t : terms) {
    if (text.find(t) != std::string::npos) return true;
  }
  return false;
}

double ClinicalPoints(const std::string& type) {
  if (type == "meta-analysis" || type == "systematic-review") return 3;
  if (type == "randomized-controlled-trial") return 3;
  if (type == "clinical-trial") return 2;
  if (type == "observational-study" || type == "review" || type == "journal-article") return 1;
  return 0.5;
}

// The records that mention the question's terms, best first (more terms).
std::vector<Json> Relevant(const std::string& question, const Json& evidence) {
  const std::vector<std::string> terms = KeyTerms(question);
  std::vector<std::pair<int, Json>> scored;
  for (const Json& r : evidence) {
    if (!r.is_object()) continue;
    const std::string text = RecordText(r);
    int hits = 0;
    for (const std::string& t : terms) hits += text.find(t) != std::string::npos;
    if (hits > 0) scored.emplace_back(hits, r);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<Json> out;
  for (auto& s : scored) out.push_back(std::move(s.second));
  return out;
}

ToolCall Call(int index, const std::string& name, const Json& args) {
  return ToolCall{"rules_" + std::to_string(index), name, DumpJson(args)};
}

struct Conversation {
  Json context;
  int calls = 0;                    // planner calls so far
  std::vector<std::string> called;  // tool names called
  std::vector<std::pair<std::string, std::string>> results;  // tool name, content
};

Conversation Read(const ModelRequest& request) {
  Conversation c;
  c.context = ReadTaskContext(request.messages);
  for (const Message& m : request.messages) {
    if (m.role == Role::kAssistant) {
      for (const ToolCall& call : m.tool_calls) {
        ++c.calls;
        c.called.push_back(call.name);
      }
    } else if (m.role == Role::kTool) {
      c.results.emplace_back(m.name, m.content);
    }
  }
  return c;
}

ModelResponse Finish(const Conversation& c, const char* tool, const Json& args, std::string text = "") {
  ModelResponse r;
  r.message = Message::Assistant(std::move(text), {Call(c.calls + 1, tool, args)});
  r.model = "research-rules-planner";
  return r;
}

// --- manager --------------------------------------------------------------

ModelResponse Manager(const Conversation& c) {
  const Json& x = c.context;
  const std::string question = StringOr(x, "question");
  const int round = static_cast<int>(IntegerOr(x, "round", 1));
  const int max_rounds = static_cast<int>(IntegerOr(x, "max_rounds", 5));
  const int left = max_rounds - round + 1;  // this round included
  const std::string last = StringOr(x, "last_speaker");
  const int searches = static_cast<int>(IntegerOr(x, "searches", 0));
  const int last_new = static_cast<int>(IntegerOr(x, "last_search_new", 0));
  const int evidence = static_cast<int>(IntegerOr(x, "evidence_count", 0));
  const bool hypotheses_done = IntegerOr(x, "hypotheses", 0) > 0 || BoolOr(x, "hypothesis_ran", false);
  const bool replanned = IntegerOr(x, "replans", 0) > 0;
  const Json judgement = x.contains("judgement") ? x["judgement"] : Json();
  const bool sufficient = judgement.is_object() && BoolOr(judgement, "sufficient", false);
  const std::vector<std::string> judge_queries =
      judgement.is_object() ? StringList(judgement, "next_search_queries") : std::vector<std::string>{};

  ProgressLedger l;
  auto synthesize = [&](const std::string& why) {
    if (!hypotheses_done && left >= 2 && evidence > 0) {
      l.next_speaker = "hypothesis";
      l.instruction = "Generate mechanistic hypotheses for: " + question;
    } else {
      l.next_speaker = "report";
      l.instruction = "Generate the final research report for: " + question;
    }
    l.reason = why;
  };
  if (left <= 1) {
    l.next_speaker = "report";
    l.instruction = "Generate the final research report for: " + question;
    l.reason = "last round: the report must be written now";
  } else if (searches == 0) {
    l.next_speaker = "search";
    l.instruction = "Search the literature for: " + KeyTermQuery(question);
    l.reason = "no evidence yet";
  } else if (last == "search") {
    if (last_new > 0) {
      l.next_speaker = "judge";
      l.instruction = "Evaluate whether the evidence is sufficient to answer: " + question;
      l.reason = std::to_string(last_new) + " new record(s) to assess";
    } else {
      l.is_progress_being_made = false;
      synthesize("the last search found nothing new; synthesising what is known");
    }
  } else if (last == "judge") {
    if (sufficient) {
      synthesize("the judge found the evidence sufficient");
    } else if (!replanned && left >= 3 && last_new > 0 && !judge_queries.empty()) {
      l.next_speaker = "search";
      l.instruction = "Search again with the judge's queries: " + Join(judge_queries, "; ");
      l.reason = "the judge found the evidence insufficient";
    } else {
      l.is_progress_being_made = last_new > 0;
      synthesize(judgement.is_object() ? "the evidence is insufficient and more searching is not expected to help"
                                       : "no valid judgement; synthesising what is known");
    }
  } else if (last == "hypothesis") {
    l.next_speaker = "report";
    l.instruction = "Generate the final research report for: " + question;
    l.reason = "hypotheses are in";
  } else {
    synthesize(replanned ? "replanned after stalls" : "continuing");
  }
  return Finish(c, kSubmitLedgerTool, ToJson(l));
}

// --- search ---------------------------------------------------------------

ModelResponse Search(const ModelRequest& request, const Conversation& c) {
  const Json& x = c.context;
  std::vector<std::string> queries = StringList(x, "queries");
  if (queries.empty()) queries.push_back(KeyTermQuery(StringOr(x, "question")));
  if (c.calls == 0) {
    std::set<std::string> offered;
    for (const auto& spec : request.tools.specs()) offered.insert(spec.name);
    std::vector<ToolCall> calls;
    const int max_results = static_cast<int>(IntegerOr(x, "max_results", 5));
    for (const std::string& source : StringList(x, "sources")) {
      const std::string tool = SourceTool(source);
      if (tool.empty() || !offered.count(tool)) continue;
      for (const std::string& q : queries) {
        calls.push_back(Call(static_cast<int>(calls.size()) + 1, tool, {{"query", q}, {"max_results", max_results}}));
      }
    }
    if (!calls.empty()) {
      ModelResponse r;
      r.message = Message::Assistant("", std::move(calls));
      r.model = "research-rules-planner";
      return r;
    }
  }
  int ok = 0, failed = 0;
  for (const auto& [name, content] : c.results) (content.rfind("Error:", 0) == 0 ? failed : ok)++;
  const std::string summary = std::to_string(c.results.size()) + " search call(s): " + std::to_string(ok) +
                              " answered, " + std::to_string(failed) + " failed.";
  return Finish(c, kSubmitSearchTool, {{"summary", summary}, {"queries", queries}});
}

// --- judge ----------------------------------------------------------------

ModelResponse Judge(const Conversation& c) {
  const JudgeAssessment j = RulesJudgement(StringOr(c.context, "question"), ArrayOr(c.context, "evidence"));
  Json args = Json::parse(DumpJson(ToJson(j)));
  args.erase("override_note");
  return Finish(c, kSubmitJudgementTool, args);
}

// --- hypothesis -----------------------------------------------------------

ModelResponse Hypothesis(const Conversation& c) {
  const std::string question = StringOr(c.context, "question");
  const std::vector<std::string> terms = KeyTerms(question);
  const std::vector<Json> relevant = Relevant(question, ArrayOr(c.context, "evidence"));
  double confidence = 0.3;
  if (auto it = c.context.find("judgement"); it != c.context.end() && it->is_object()) {
    confidence = std::min(0.5, NumberOr(*it, "confidence", 0.3));
  }
  Json cites = Json::array();
  for (size_t i = 0; i < relevant.size() && i < 3; ++i) cites.push_back("[" + std::to_string(IntegerOr(relevant[i], "ref", 0)) + "]");
  const std::string drug = terms.empty() ? "the intervention" : terms[0];
  const std::string effect = terms.size() > 1 ? Join(std::vector<std::string>(terms.begin() + 1, terms.end()), " ")
                                              : "the outcome asked about";
  const std::string statement = drug + " is associated with " + effect + " in " + std::to_string(relevant.size()) +
                                " record(s) that name the question's terms; the rules planner does not read "
                                "mechanisms, so target and pathway are left open.";
  Json h = {{"drug", drug},
            {"target", "not established (rules planner)"},
            {"pathway", "not established (rules planner)"},
            {"effect", effect},
            {"confidence", confidence},
            {"statement", statement},
            {"evidence", cites}};
  return Finish(c, kSubmitHypothesesTool,
                {{"hypotheses", Json::array({h})},
                 {"primary_hypothesis", statement},
                 {"knowledge_gaps", {"mechanism (target, pathway) not assessed by the rules planner",
                                     "effect size and study quality not read from the abstracts"}},
                 {"suggested_searches", {drug + " mechanism of action", KeyTermQuery(question) + " randomized"}}});
}

// --- report ---------------------------------------------------------------

ModelResponse Report(const Conversation& c) {
  if (c.calls == 0) {
    ModelResponse r;
    r.message = Message::Assistant("", {Call(1, "get_bibliography", Json::object())});
    r.model = "research-rules-planner";
    return r;
  }
  std::string bibliography;
  for (const auto& [name, content] : c.results) {
    if (name == "get_bibliography" && content.rfind("Error:", 0) != 0) bibliography = content;
  }
  const Json& x = c.context;
  const std::string question = StringOr(x, "question");
  const Json& evidence = ArrayOr(x, "evidence");
  const std::vector<Json> relevant = Relevant(question, evidence);
  const Json judgement = x.contains("judgement") ? x["judgement"] : Json();
  std::vector<int> cited;
  std::ostringstream md;
  md << "# Research report: " << question << "\n\n";
  std::string summary;
  if (judgement.is_object()) {
    char line[200];
    std::snprintf(line, sizeof line, "The judge rated the evidence %s (mechanism %d/10, clinical %d/10, confidence %.0f%%).",
                  BoolOr(judgement, "sufficient", false) ? "sufficient" : "insufficient",
                  static_cast<int>(IntegerOr(judgement, "mechanism_score", 0)),
                  static_cast<int>(IntegerOr(judgement, "clinical_evidence_score", 0)),
                  NumberOr(judgement, "confidence", 0) * 100);
    summary = line;
  } else {
    summary = "No valid judgement of the evidence was made.";
  }
  summary = std::to_string(evidence.size()) + " record(s) were gathered, " + std::to_string(relevant.size()) +
            " naming the question's terms. " + summary;
  md << "## Executive summary\n\n" << summary << "\n\n";
  md << "## Methodology\n\nDeterministic plan (rules planner, no language model): searches of the selected sources "
        "with the question's key terms, a counting judge (study types and term matches), a template report.\n\n";
  md << "## Findings\n\n";
  std::vector<std::string> findings;
  for (size_t i = 0; i < relevant.size() && i < 8; ++i) {
    const int ref = static_cast<int>(IntegerOr(relevant[i], "ref", 0));
    if (ref < 1) continue;
    cited.push_back(ref);
    std::string type = StringOr(relevant[i], "type");
    findings.push_back((type.empty() ? std::string("record") : type) + ": " + StringOr(relevant[i], "title") + " [" +
                       std::to_string(ref) + "]");
  }
  if (findings.empty()) findings.push_back("No gathered record names the question's terms.");
  for (const std::string& f : findings) md << "- " << f << "\n";
  const Json& hypotheses = ArrayOr(x, "hypotheses");
  if (!hypotheses.empty()) {
    md << "\n## Hypotheses\n\n";
    for (const Json& h : hypotheses) md << "- " << StringOr(h, "statement") << "\n";
  }
  const std::vector<std::string> limitations = {
      "Written by the rules planner: no model read the abstracts; relevance is a term match.",
      "Only the sources searched and the records they returned are covered."};
  md << "\n## Limitations\n\n";
  for (const std::string& l : limitations) md << "- " << l << "\n";
  const std::string conclusion = judgement.is_object() && BoolOr(judgement, "sufficient", false)
                                     ? "The gathered evidence meets the sufficiency rule; see the findings."
                                     : "The gathered evidence does not meet the sufficiency rule; no conclusion "
                                       "beyond the listed records.";
  md << "\n## Conclusion\n\n" << conclusion << "\n";
  std::string markdown = md.str();
  std::string references;
  const auto entries = BibliographyEntries(bibliography);
  for (int n : cited) {
    if (auto it = entries.find(n); it != entries.end()) references += it->second + "\n";
  }
  if (!references.empty()) markdown += "\n## References\n\n" + references;
  Json cited_json = Json::array();
  for (int n : cited) cited_json.push_back(n);
  return Finish(c, kSubmitReportTool,
                {{"title", "Research report: " + question},
                 {"executive_summary", summary},
                 {"methodology", "rules planner: key-term searches, counting judge, template report"},
                 {"findings", findings},
                 {"limitations", limitations},
                 {"conclusion", conclusion},
                 {"references_cited", cited_json},
                 {"markdown", markdown}});
}

class ResearchRulesPlanner : public ChatModel {
 public:
  ModelCapabilities capabilities() const override { return {.tool_calling = ToolCalling::kPlanner}; }
  std::string name() const override { return "research-rules-planner"; }
  std::string protocol() const override { return "rules"; }

  Result<ModelResponse> Complete(const ModelRequest& request, const ModelCallContext&) override {
    const Conversation c = Read(request);
    const std::string role = request.answer_tool ? request.answer_tool->name : "";
    if (role == kSubmitLedgerTool) return Manager(c);
    if (role == kSubmitSearchTool) return Search(request, c);
    if (role == kSubmitJudgementTool) return Judge(c);
    if (role == kSubmitHypothesesTool) return Hypothesis(c);
    if (role == kSubmitReportTool) return Report(c);
    return Status::FailedPrecondition("the research rules planner plays only the research team's agents (got a run "
                                      "finishing with '" + role + "')");
  }
};

}  // namespace

JudgeAssessment RulesJudgement(const std::string& question, const Json& evidence) {
  const std::vector<std::string> terms = KeyTerms(question);
  const std::vector<Json> relevant = Relevant(question, evidence.is_array() ? evidence : Json::array());
  double points = 0;
  int mechanistic = 0;
  std::set<std::string> sources;
  for (const Json& r : relevant) {
    points += ClinicalPoints(StringOr(r, "type"));
    const std::string text = RecordText(r);
    for (const char* w : kMechanismWords) {
      if (text.find(w) != std::string::npos) {
        ++mechanistic;
        break;
      }
    }
    sources.insert(StringOr(r, "source"));
  }
  JudgeAssessment j;
  j.clinical_evidence_score = std::min(10, static_cast<int>(std::floor(points)));
  j.mechanism_score = std::min(10, 2 * mechanistic);
  j.confidence = std::min(0.9, 0.1 * static_cast<double>(sources.size()) + 0.05 * static_cast<double>(relevant.size()));
  j.confidence = std::round(j.confidence * 100) / 100;
  j.sufficient = IsSufficientEvidence(j.confidence, j.mechanism_score, j.clinical_evidence_score);
  j.recommendation = j.sufficient ? "synthesize" : "continue";
  const size_t total = evidence.is_array() ? evidence.size() : 0;
  j.reasoning = "Rules judge: " + std::to_string(relevant.size()) + " of " + std::to_string(total) +
                " record(s) name the question's terms; study types give " + std::to_string(points).substr(0, 4) +
                " clinical point(s); " + std::to_string(mechanistic) + " name a mechanism.";
  if (!j.sufficient) {
    const std::string q = Join(terms, " ");
    j.next_search_queries = {q + " randomized controlled trial", q + " mechanism"};
  }
  return j;
}

std::unique_ptr<ChatModel> MakeResearchRulesPlanner() { return std::make_unique<ResearchRulesPlanner>(); }

}  // namespace medreact
