// The research team's rules planner (research_planner.h).
#include "apps/research/research_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "apps/research/drug_names.h"
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

// Clinical points of one counted record (research_planner.h). A registry
// record is a trial's design, not its results: 1 point, however it is typed.
double ClinicalPoints(const Json& record) {
  const std::string type = StringOr(record, "type");
  if (StringOr(record, "source") == "clinicaltrials") return 1;
  if (type == "meta-analysis" || type == "systematic-review") return 3;
  if (type == "randomized-controlled-trial") return 3;
  if (type == "clinical-trial") return 2;
  if (type == "observational-study" || type == "review" || type == "journal-article") return 1;
  return 0.5;
}

constexpr char kRegistration[] = "trial registration (design, no results)";

// The design a record counts as, for the judge's details.
std::string DesignName(const Json& record) {
  if (StringOr(record, "source") == "clinicaltrials") return kRegistration;
  const std::string type = StringOr(record, "type");
  return type.empty() ? "record of unknown type" : type;
}

// Each question term with the names meaning the same drug (brand and
// generic are one term: drug_names.h).
std::vector<std::vector<std::string>> TermVariants(const std::string& question) {
  std::vector<std::vector<std::string>> out;
  for (const std::string& t : KeyTerms(question)) out.push_back(DrugNameVariants(t));
  return out;
}

// "keytruda or pembrolizumab, cancer": the terms as the judge matches them.
std::string DescribeTerms(const std::vector<std::vector<std::string>>& terms) {
  std::vector<std::string> parts;
  for (const auto& variants : terms) parts.push_back(Join(variants, " or "));
  return parts.empty() ? std::string("(no key terms)") : Join(parts, ", ");
}

int Hits(const std::string& text, const std::vector<std::vector<std::string>>& terms) {
  int hits = 0;
  for (const auto& variants : terms) hits += Mentions(text, variants) ? 1 : 0;
  return hits;
}

// The records that mention the question's terms (a brand or its generic
// name counts as the term), best first (more terms).
std::vector<Json> Relevant(const std::string& question, const Json& evidence) {
  const auto terms = TermVariants(question);
  std::vector<std::pair<int, Json>> scored;
  for (const Json& r : evidence) {
    if (!r.is_object()) continue;
    const int hits = Hits(RecordText(r), terms);
    if (hits > 0) scored.emplace_back(hits, r);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<Json> out;
  for (auto& s : scored) out.push_back(std::move(s.second));
  return out;
}

std::string Ref(const Json& record) { return "[" + std::to_string(IntegerOr(record, "ref", 0)) + "]"; }

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
  // A search comes first, even in the last round (issue 23: with
  // --max-rounds 1 the report was written on nothing).
  if (searches == 0) {
    l.next_speaker = "search";
    l.instruction = "Search the literature for: " + KeyTermQuery(question);
    l.reason = "no evidence yet";
  } else if (left <= 1) {
    l.next_speaker = "report";
    l.instruction = "Generate the final research report for: " + question;
    l.reason = "last round: the report must be written now";
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

// The rules planner reads no mechanism, so it claims none: its "hypothesis"
// says so, names the records that mention the question's terms, and has
// confidence 0.
ModelResponse Hypothesis(const Conversation& c) {
  const std::string question = StringOr(c.context, "question");
  const auto terms = TermVariants(question);
  const std::vector<Json> relevant = Relevant(question, ArrayOr(c.context, "evidence"));
  Json cites = Json::array();
  std::vector<std::string> refs;
  for (size_t i = 0; i < relevant.size() && i < 3; ++i) {
    cites.push_back(Ref(relevant[i]));
    refs.push_back(Ref(relevant[i]));
  }
  // The drug: the first term the brand/generic table knows, else the first term.
  std::string drug = "the intervention";
  for (const auto& variants : terms) {
    if (variants.size() > 1) {
      drug = Join(variants, " / ");
      break;
    }
  }
  if (drug == "the intervention" && !terms.empty()) drug = terms[0][0];
  const std::string statement =
      "No mechanistic hypothesis: the rules planner reads no mechanism or effect, so target, pathway and effect "
      "are left open. " + std::to_string(relevant.size()) + " gathered record(s) name " + DescribeTerms(terms) +
      (refs.empty() ? "." : " " + Join(refs, ", ") + ".");
  const char* open = "not assessed (rules planner)";
  Json h = {{"drug", drug}, {"target", open},         {"pathway", open},      {"effect", open},
            {"confidence", 0.0}, {"statement", statement}, {"evidence", cites}};
  return Finish(c, kSubmitHypothesesTool,
                {{"hypotheses", Json::array({h})},
                 {"primary_hypothesis", statement},
                 {"knowledge_gaps", {"mechanism (target, pathway) and effect: not read by the rules planner",
                                     "effect size and study quality not read from the abstracts"}},
                 {"suggested_searches", {KeyTermQuery(question) + " mechanism of action",
                                         KeyTermQuery(question) + " randomized controlled trial"}}});
}

// --- report ---------------------------------------------------------------

// The report, written section by section; with a streaming request each
// section goes to the call's text sink as it is written, so a page can show
// the report while it is being written. The app adds the searches that
// failed and the References (numbered in order of first citation).
ModelResponse Report(const ModelRequest& request, const ModelCallContext& ctx, const Conversation& c) {
  if (c.calls == 0) {
    ModelResponse r;
    r.message = Message::Assistant("", {Call(1, "get_bibliography", Json::object())});
    r.model = "research-rules-planner";
    return r;
  }
  std::string markdown;
  auto write = [&](const std::string& text) {
    markdown += text;
    if (request.stream && ctx.on_text_delta) ctx.on_text_delta(text);
  };
  const Json& x = c.context;
  const std::string question = StringOr(x, "question");
  const auto terms = TermVariants(question);
  const Json& evidence = ArrayOr(x, "evidence");
  const std::vector<Json> relevant = Relevant(question, evidence);
  const Json judgement = x.contains("judgement") ? x["judgement"] : Json();
  const Json& failed = ArrayOr(x, "failed_searches");
  const int searches = static_cast<int>(IntegerOr(x, "search_calls", 0));
  std::vector<int> cited;

  write("# Research report: " + question + "\n\n");
  std::string summary = std::to_string(evidence.size()) + " record(s) were gathered; " +
                        std::to_string(relevant.size()) + (relevant.size() == 1 ? " names " : " name ") +
                        DescribeTerms(terms) + " in the title or summary (a trial's summary lists its "
                        "interventions).";
  if (!failed.empty()) {
    summary += " " + std::to_string(failed.size()) + " of " + std::to_string(std::max<int>(searches, failed.size())) +
               " search(es) failed (listed below), so sources are missing.";
  }
  if (judgement.is_object()) {
    char line[300];
    std::snprintf(line, sizeof line,
                  " The rules judge, counting words and study designs without reading them, rated the evidence %s "
                  "(mechanism %d/10, clinical %d/10, confidence %.0f%%).",
                  BoolOr(judgement, "sufficient", false) ? "sufficient" : "insufficient",
                  static_cast<int>(IntegerOr(judgement, "mechanism_score", 0)),
                  static_cast<int>(IntegerOr(judgement, "clinical_evidence_score", 0)),
                  NumberOr(judgement, "confidence", 0) * 100);
    summary += line;
  } else {
    summary += " No valid judgement of the evidence was made.";
  }
  write("## Executive summary\n\n" + summary + "\n\n");
  write("## Methodology\n\nDeterministic plan (rules planner, no language model): searches of the selected "
        "sources with the question's key terms, a counting judge (study designs and term matches; a brand name "
        "and its generic name count as one term), a template report. No abstract was read for its meaning.\n\n");

  std::string section = "## Records that name the question's terms\n\n";
  std::vector<std::string> findings;
  for (size_t i = 0; i < relevant.size() && i < 8; ++i) {
    const int ref = static_cast<int>(IntegerOr(relevant[i], "ref", 0));
    if (ref < 1) continue;
    cited.push_back(ref);
    findings.push_back(DesignName(relevant[i]) + ": " + StringOr(relevant[i], "title") + " [" +
                       std::to_string(ref) + "]");
  }
  if (findings.empty()) findings.push_back("No gathered record names " + DescribeTerms(terms) + ".");
  for (const std::string& f : findings) section += "- " + f + "\n";
  write(section);
  // The rest of what was gathered, so the reader sees every record the judge was shown.
  std::string others;
  int listed = 0;
  for (const Json& r : evidence) {
    const int ref = static_cast<int>(IntegerOr(r, "ref", 0));
    if (ref < 1 || std::find(cited.begin(), cited.end(), ref) != cited.end() || listed >= 8) continue;
    ++listed;
    cited.push_back(ref);
    others += "- " + DesignName(r) + ": " + StringOr(r, "title") + " [" + std::to_string(ref) + "]\n";
  }
  if (!others.empty()) {
    write("\n## Other records gathered (not naming " + DescribeTerms(terms) + " in title or summary)\n\n" + others);
  }

  if (judgement.is_object()) {
    std::string j = "\n## The judge's reasoning\n\n";
    for (const char* key : {"mechanism_reasoning", "clinical_reasoning"}) {
      if (const std::string why = StringOr(judgement, key); !why.empty()) j += "- " + why + "\n";
    }
    write(j);
  }
  const Json& hypotheses = ArrayOr(x, "hypotheses");
  if (!hypotheses.empty()) {
    std::string h = "\n## Hypotheses\n\n";
    for (const Json& item : hypotheses) h += "- " + StringOr(item, "statement") + "\n";
    write(h);
  }
  std::vector<std::string> limitations = {
      "Written by the rules planner: no model read the abstracts; relevance is a term match.",
      "Only the sources searched and the records they returned are covered."};
  if (!failed.empty()) limitations.push_back(std::to_string(failed.size()) + " search(es) failed; see below.");
  std::string l = "\n## Limitations\n\n";
  for (const std::string& item : limitations) l += "- " + item + "\n";
  write(l);
  const std::string conclusion = judgement.is_object() && BoolOr(judgement, "sufficient", false)
                                     ? "The gathered evidence meets the sufficiency rule; see the records above."
                                     : "The gathered evidence does not meet the sufficiency rule; no conclusion "
                                       "beyond the listed records.";
  write("\n## Conclusion\n\n" + conclusion + "\n");

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
  // streaming: the report is handed to the call's text sink section by section.
  ModelCapabilities capabilities() const override {
    return {.tool_calling = ToolCalling::kPlanner, .streaming = true};
  }
  std::string name() const override { return "research-rules-planner"; }
  std::string protocol() const override { return "rules"; }

  Result<ModelResponse> Complete(const ModelRequest& request, const ModelCallContext& ctx) override {
    const Conversation c = Read(request);
    const std::string role = request.answer_tool ? request.answer_tool->name : "";
    if (role == kSubmitLedgerTool) return Manager(c);
    if (role == kSubmitSearchTool) return Search(request, c);
    if (role == kSubmitJudgementTool) return Judge(c);
    if (role == kSubmitHypothesesTool) return Hypothesis(c);
    if (role == kSubmitReportTool) return Report(request, ctx, c);
    return Status::FailedPrecondition("the research rules planner plays only the research team's agents (got a run "
                                      "finishing with '" + role + "')");
  }
};

}  // namespace

JudgeAssessment RulesJudgement(const std::string& question, const Json& evidence) {
  const auto terms = TermVariants(question);
  const Json& records = evidence.is_array() ? evidence : Json::array();
  const std::vector<Json> relevant = Relevant(question, records);
  double points = 0;
  std::vector<std::string> mechanistic;  // "[n]" of counted records naming a mechanism word
  std::set<std::string> sources;
  std::map<std::string, std::pair<int, double>> designs;  // design → count, points each
  JudgeAssessment j;
  for (const Json& r : relevant) {
    const double p = ClinicalPoints(r);
    points += p;
    auto& d = designs[DesignName(r)];
    ++d.first;
    d.second = p;
    const std::string text = RecordText(r);
    for (const char* w : kMechanismWords) {
      if (text.find(w) != std::string::npos) {
        mechanistic.push_back(Ref(r));
        break;
      }
    }
    sources.insert(StringOr(r, "source"));
    j.details.relevant_evidence.push_back(Ref(r));
  }
  j.details.evidence_assessed = static_cast<int>(records.size());
  std::vector<std::string> design_text;
  for (const auto& [name, d] : designs) {
    char line[200];
    std::snprintf(line, sizeof line, "%d %s (%g point%s each)", d.first, name.c_str(), d.second,
                  d.second == 1 ? "" : "s");
    j.details.study_designs.push_back(line);
    design_text.push_back(line);
  }
  j.clinical_evidence_score = std::min(10, static_cast<int>(std::floor(points)));
  j.mechanism_score = std::min(10, 2 * static_cast<int>(mechanistic.size()));
  j.confidence = std::min(0.9, 0.1 * static_cast<double>(sources.size()) + 0.05 * static_cast<double>(relevant.size()));
  j.confidence = std::round(j.confidence * 100) / 100;
  j.sufficient = IsSufficientEvidence(j.confidence, j.mechanism_score, j.clinical_evidence_score);
  j.recommendation = j.sufficient ? "synthesize" : "continue";

  const std::string counted = std::to_string(relevant.size()) + " of " + std::to_string(records.size()) +
                              " record(s) name " + DescribeTerms(terms);
  char points_text[32];
  std::snprintf(points_text, sizeof points_text, "%g", points);
  j.clinical_reasoning = "Counted by study design, not read: " + counted +
                         (design_text.empty() ? std::string(".") : "; " + Join(design_text, "; ") + ".") +
                         " Total " + points_text + " point(s), so clinical score " +
                         std::to_string(j.clinical_evidence_score) + "/10.";
  j.mechanism_reasoning = std::to_string(mechanistic.size()) + " counted record(s) use a mechanism word (" +
                          "mechanism, pathway, receptor, target, signal, inhibit, express, mediat-, antibod-, bind, "
                          "block)" + (mechanistic.empty() ? std::string() : ": " + Join(mechanistic, ", ")) +
                          "; 2 points each, so mechanism score " + std::to_string(j.mechanism_score) +
                          "/10. A word count, not a reading of the mechanism.";
  j.reasoning = "Rules judge: " + counted + "; confidence " + std::to_string(sources.size()) +
                " source(s) x 0.1 + " + std::to_string(relevant.size()) + " record(s) x 0.05.";
  if (relevant.empty()) j.details.gaps.push_back("no gathered record names " + DescribeTerms(terms));
  if (designs.count("randomized-controlled-trial") == 0 && designs.count("meta-analysis") == 0 &&
      designs.count("systematic-review") == 0) {
    j.details.gaps.push_back("no randomized controlled trial, meta-analysis or systematic review among them");
  }
  if (auto reg = designs.find(kRegistration);
      !relevant.empty() && reg != designs.end() && reg->second.first == static_cast<int>(relevant.size())) {
    j.details.gaps.push_back("only trial registrations: designs, no published results");
  }
  j.details.gaps.push_back("the mechanism was not read (word count only)");
  if (!j.sufficient) {
    const std::string q = KeyTermQuery(question);
    j.next_search_queries = {q + " randomized controlled trial", q + " mechanism"};
  }
  return j;
}

std::unique_ptr<ChatModel> MakeResearchRulesPlanner() { return std::make_unique<ResearchRulesPlanner>(); }

}  // namespace medreact
