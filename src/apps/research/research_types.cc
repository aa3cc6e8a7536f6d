// The research team's finishing tools and their typed reads (research_types.h).
#include "apps/research/research_types.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "medreact/json_schema.h"
#include "medreact/tool.h"

namespace medreact {
namespace {

const Json kStringList = {{"type", "array"}, {"items", {{"type", "string"}}}};

std::map<std::string, ToolSpec> BuildSpecs() {
  std::map<std::string, ToolSpec> specs;
  specs[kSubmitLedgerTool] = ToolSpec{
      kSubmitLedgerTool,
      "Submit this round's progress ledger and end your turn: whether the research question is answered, whether "
      "the team is looping or making progress, who speaks next and what they must do.",
      {{"type", "object"},
       {"properties",
        {{"is_request_satisfied", {{"type", "boolean"}, {"description", "true when the report is written"}}},
         {"is_in_loop", {{"type", "boolean"}, {"description", "true when the last rounds repeat themselves"}}},
         {"is_progress_being_made", {{"type", "boolean"}, {"description", "false when the last round added nothing"}}},
         {"next_speaker",
          {{"type", "string"}, {"enum", {"search", "judge", "hypothesis", "report"}},
           {"description", "the agent that acts next"}}},
         {"instruction", {{"type", "string"}, {"minLength", 1}, {"description", "what that agent must do"}}},
         {"reason", {{"type", "string"}, {"description", "why, in one or two sentences"}}}}},
       {"required", {"is_request_satisfied", "is_in_loop", "is_progress_being_made", "next_speaker", "instruction"}},
       {"additionalProperties", false}}};
  specs[kSubmitSearchTool] = ToolSpec{
      kSubmitSearchTool,
      "Finish the search: say in a few sentences what was found (counts by source, notable studies) and list the "
      "queries you ran.",
      {{"type", "object"},
       {"properties",
        {{"summary", {{"type", "string"}, {"minLength", 1}}},
         {"queries", kStringList}}},
       {"required", {"summary"}},
       {"additionalProperties", false}}};
  specs[kSubmitJudgementTool] = ToolSpec{
      kSubmitJudgementTool,
      "Submit your assessment of the evidence. Mechanism score 0-10 (0-3 minimal, 4-5 partial, 6-7 clear targets "
      "and pathways, 8-9 comprehensive, 10 complete); clinical evidence score 0-10 (0-3 preclinical or weak, 4-5 "
      "small trials or case reports, 6-7 RCTs, 8-9 meta-analyses or large RCTs, 10 definitive). Sufficient only "
      "when confidence >= 0.7 and both scores >= 6; otherwise recommend continue and give next_search_queries. "
      "Explain each score in mechanism_reasoning and clinical_reasoning, and say in details which records you "
      "counted ([n] or identifiers), their study designs and what is missing.",
      {{"type", "object"},
       {"properties",
        {{"details",
          {{"type", "object"},
           {"properties",
            {{"evidence_assessed", {{"type", "integer"}, {"minimum", 0}, {"description", "records you were shown"}}},
             {"relevant_evidence",
              {{"type", "array"}, {"items", {{"type", "string"}}},
               {"description", "the records that answer the question, as [n] or identifiers"}}},
             {"study_designs",
              {{"type", "array"}, {"items", {{"type", "string"}}},
               {"description", "one line per design counted, e.g. \"2 randomized controlled trials\""}}},
             {"gaps", {{"type", "array"}, {"items", {{"type", "string"}}},
                       {"description", "what the evidence lacks for the question"}}}}},
           {"required", {"evidence_assessed", "relevant_evidence"}},
           {"additionalProperties", false}}},
         {"mechanism_score", {{"type", "integer"}, {"minimum", 0}, {"maximum", 10}}},
         {"mechanism_reasoning", {{"type", "string"}, {"minLength", 10}}},
         {"clinical_evidence_score", {{"type", "integer"}, {"minimum", 0}, {"maximum", 10}}},
         {"clinical_reasoning", {{"type", "string"}, {"minLength", 10}}},
         {"confidence", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
         {"sufficient", {{"type", "boolean"}}},
         {"recommendation", {{"type", "string"}, {"enum", {"continue", "synthesize"}}}},
         {"next_search_queries", kStringList},
         {"reasoning", {{"type", "string"}, {"minLength", 1}}},
         {"key_findings", kStringList},
         {"drug_candidates", kStringList}}},
       {"required", {"details", "mechanism_score", "mechanism_reasoning", "clinical_evidence_score",
                     "clinical_reasoning", "confidence", "sufficient", "recommendation", "next_search_queries",
                     "reasoning"}},
       {"additionalProperties", false}}};
  const Json hypothesis = {
      {"type", "object"},
      {"properties",
       {{"drug", {{"type", "string"}}},
        {"target", {{"type", "string"}}},
        {"pathway", {{"type", "string"}}},
        {"effect", {{"type", "string"}}},
        {"confidence", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
        {"statement", {{"type", "string"}, {"minLength", 1}}},
        {"evidence", {{"type", "array"}, {"items", {{"type", "string"}}},
                      {"description", "identifiers (PMID:..., NCT...) or reference numbers like \"[3]\""}}}}},
      {"required", {"drug", "target", "pathway", "effect", "confidence", "statement"}},
      {"additionalProperties", false}};
  specs[kSubmitHypothesesTool] = ToolSpec{
      kSubmitHypothesesTool,
      "Submit mechanistic hypotheses (drug -> target -> pathway -> effect, with a confidence 0-1 and the evidence "
      "they rest on), the primary hypothesis, the knowledge gaps and searches that would test them.",
      {{"type", "object"},
       {"properties",
        {{"hypotheses", {{"type", "array"}, {"minItems", 1}, {"items", hypothesis}}},
         {"primary_hypothesis", {{"type", "string"}}},
         {"knowledge_gaps", kStringList},
         {"suggested_searches", kStringList}}},
       {"required", {"hypotheses"}},
       {"additionalProperties", false}}};
  specs[kSubmitReportTool] = ToolSpec{
      kSubmitReportTool,
      "Submit the final research report. `markdown` is the whole report; cite evidence by its reference number "
      "from get_bibliography as [n]; list the numbers cited in references_cited. Never cite a number the "
      "bibliography does not have.",
      {{"type", "object"},
       {"properties",
        {{"title", {{"type", "string"}, {"minLength", 1}}},
         {"executive_summary", {{"type", "string"}, {"minLength", 1}}},
         {"methodology", {{"type", "string"}}},
         {"findings", kStringList},
         {"limitations", kStringList},
         {"conclusion", {{"type", "string"}, {"minLength", 1}}},
         {"references_cited", {{"type", "array"}, {"items", {{"type", "integer"}, {"minimum", 1}}}}},
         {"markdown", {{"type", "string"}, {"minLength", 1}}}}},
       {"required", {"title", "executive_summary", "conclusion", "markdown"}},
       {"additionalProperties", false}}};
  return specs;
}

const std::map<std::string, ToolSpec>& Specs() {
  static const std::map<std::string, ToolSpec> specs = BuildSpecs();
  return specs;
}

// The validated arguments, or why they are not: the reads check the shape
// again, because a run that ended without a valid call hands back what it read.
Status CheckShape(const std::string& tool, const Json& fields) {
  static std::mutex mu;
  static std::map<std::string, JsonSchema> compiled;
  const JsonSchema* schema = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = compiled.find(tool);
    if (it == compiled.end()) {
      Result<JsonSchema> c = JsonSchema::Compile(Specs().at(tool).parameters);
      if (!c.ok()) return c.status();
      it = compiled.emplace(tool, std::move(c).value()).first;
    }
    schema = &it->second;
  }
  if (!fields.is_object()) {
    return Status::InvalidArgument("no valid " + tool + " call: the run ended with " + DescribeJsonValue(fields));
  }
  std::vector<SchemaProblem> problems = schema->Validate(fields);
  if (problems.empty()) return Status::OK();
  std::string text;
  for (size_t i = 0; i < problems.size() && i < 5; ++i) {
    text += (i ? "; " : "") + problems[i].pointer + ": " + problems[i].text;
  }
  return Status::InvalidArgument(tool + " arguments do not validate: " + text);
}

std::vector<std::string> Strings(const Json& object, const char* key) {
  std::vector<std::string> out;
  auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return out;
  for (const Json& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

int Score(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) return 0;
  return static_cast<int>(ExactInteger(*it, 0, 10).value_or(0));
}

}  // namespace

bool IsSufficientEvidence(double confidence, int mechanism_score, int clinical_evidence_score) {
  return confidence >= kSufficientConfidence && mechanism_score >= kSufficientMechanismScore &&
         clinical_evidence_score >= kSufficientClinicalScore;
}

Status RegisterResearchFinishingTools(ToolRegistry& registry, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    Result<ToolSpec> spec = ResearchFinishingToolSpec(name);
    if (!spec.ok()) return spec.status();
    Status s = registry.Register(MakeFunctionTool(*spec, [](const Json& args, const ToolContext&) {
      return ToolResult::OkJson(args);
    }));
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Result<ToolSpec> ResearchFinishingToolSpec(const std::string& name) {
  auto it = Specs().find(name);
  if (it == Specs().end()) return Status::NotFound("no research finishing tool named '" + name + "'");
  return it->second;
}

Result<ProgressLedger> ReadLedger(const Json& fields) {
  if (Status s = CheckShape(kSubmitLedgerTool, fields); !s.ok()) return s;
  return ProgressLedger{.is_request_satisfied = BoolOr(fields, "is_request_satisfied", false),
                        .is_in_loop = BoolOr(fields, "is_in_loop", false),
                        .is_progress_being_made = BoolOr(fields, "is_progress_being_made", true),
                        .next_speaker = StringOr(fields, "next_speaker"),
                        .instruction = StringOr(fields, "instruction"),
                        .reason = StringOr(fields, "reason")};
}

Result<SearchSummary> ReadSearchSummary(const Json& fields) {
  if (Status s = CheckShape(kSubmitSearchTool, fields); !s.ok()) return s;
  return SearchSummary{.summary = StringOr(fields, "summary"), .queries = Strings(fields, "queries")};
}

Result<JudgeAssessment> ReadJudgement(const Json& fields) {
  if (Status s = CheckShape(kSubmitJudgementTool, fields); !s.ok()) return s;
  JudgeAssessment j;
  if (auto it = fields.find("details"); it != fields.end() && it->is_object()) {
    const Json& d = *it;
    if (auto n = d.find("evidence_assessed"); n != d.end()) {
      j.details.evidence_assessed = static_cast<int>(ExactInteger(*n, 0, 1'000'000).value_or(0));
    }
    j.details.relevant_evidence = Strings(d, "relevant_evidence");
    j.details.study_designs = Strings(d, "study_designs");
    j.details.gaps = Strings(d, "gaps");
  }
  j.mechanism_score = Score(fields, "mechanism_score");
  j.mechanism_reasoning = StringOr(fields, "mechanism_reasoning");
  j.clinical_evidence_score = Score(fields, "clinical_evidence_score");
  j.clinical_reasoning = StringOr(fields, "clinical_reasoning");
  j.confidence = std::clamp(NumberOr(fields, "confidence", 0), 0.0, 1.0);
  j.next_search_queries = Strings(fields, "next_search_queries");
  j.reasoning = StringOr(fields, "reasoning");
  j.key_findings = Strings(fields, "key_findings");
  j.drug_candidates = Strings(fields, "drug_candidates");
  // Seed 003, "Sufficiency Decision": the rule decides, not the model's boolean.
  const bool said = BoolOr(fields, "sufficient", false);
  j.sufficient = IsSufficientEvidence(j.confidence, j.mechanism_score, j.clinical_evidence_score);
  j.recommendation = j.sufficient ? "synthesize" : "continue";
  if (said != j.sufficient || StringOr(fields, "recommendation") != j.recommendation) {
    j.override_note = std::string("the judge said sufficient=") + (said ? "true" : "false") + ", recommendation=" +
                      StringOr(fields, "recommendation") + "; seed 003's rule (confidence >= 0.7, both scores >= 6) " +
                      "gives " + (j.sufficient ? "sufficient" : "insufficient");
  }
  return j;
}

Result<HypothesisAssessment> ReadHypotheses(const Json& fields) {
  if (Status s = CheckShape(kSubmitHypothesesTool, fields); !s.ok()) return s;
  HypothesisAssessment a;
  for (const Json& h : fields.at("hypotheses")) {
    a.hypotheses.push_back(HypothesisItem{.drug = StringOr(h, "drug"),
                                          .target = StringOr(h, "target"),
                                          .pathway = StringOr(h, "pathway"),
                                          .effect = StringOr(h, "effect"),
                                          .confidence = std::clamp(NumberOr(h, "confidence", 0), 0.0, 1.0),
                                          .statement = StringOr(h, "statement"),
                                          .evidence = Strings(h, "evidence")});
  }
  a.primary_hypothesis = StringOr(fields, "primary_hypothesis");
  a.knowledge_gaps = Strings(fields, "knowledge_gaps");
  a.suggested_searches = Strings(fields, "suggested_searches");
  return a;
}

Result<ResearchReport> ReadReport(const Json& fields) {
  if (Status s = CheckShape(kSubmitReportTool, fields); !s.ok()) return s;
  ResearchReport r;
  r.title = StringOr(fields, "title");
  r.executive_summary = StringOr(fields, "executive_summary");
  r.methodology = StringOr(fields, "methodology");
  r.findings = Strings(fields, "findings");
  r.limitations = Strings(fields, "limitations");
  r.conclusion = StringOr(fields, "conclusion");
  if (auto it = fields.find("references_cited"); it != fields.end() && it->is_array()) {
    for (const Json& n : *it) {
      if (auto v = ExactInteger(n, 1, 1'000'000)) r.references_cited.push_back(static_cast<int>(*v));
    }
  }
  r.markdown = StringOr(fields, "markdown");
  return r;
}

OrderedJson ToJson(const ProgressLedger& l) {
  OrderedJson j;
  j["is_request_satisfied"] = l.is_request_satisfied;
  j["is_in_loop"] = l.is_in_loop;
  j["is_progress_being_made"] = l.is_progress_being_made;
  j["next_speaker"] = l.next_speaker;
  j["instruction"] = l.instruction;
  if (!l.reason.empty()) j["reason"] = l.reason;
  return j;
}

OrderedJson ToJson(const AssessmentDetails& d) {
  OrderedJson j;
  j["evidence_assessed"] = d.evidence_assessed;
  j["relevant_evidence"] = d.relevant_evidence;
  j["study_designs"] = d.study_designs;
  j["gaps"] = d.gaps;
  return j;
}

OrderedJson ToJson(const JudgeAssessment& a) {
  OrderedJson j;
  j["details"] = ToJson(a.details);
  j["mechanism_score"] = a.mechanism_score;
  j["mechanism_reasoning"] = a.mechanism_reasoning;
  j["clinical_evidence_score"] = a.clinical_evidence_score;
  j["clinical_reasoning"] = a.clinical_reasoning;
  j["confidence"] = a.confidence;
  j["sufficient"] = a.sufficient;
  j["recommendation"] = a.recommendation;
  j["next_search_queries"] = a.next_search_queries;
  j["reasoning"] = a.reasoning;
  j["key_findings"] = a.key_findings;
  j["drug_candidates"] = a.drug_candidates;
  if (!a.override_note.empty()) j["override_note"] = a.override_note;
  return j;
}

OrderedJson ToJson(const HypothesisAssessment& a) {
  OrderedJson list = OrderedJson::array();
  for (const HypothesisItem& h : a.hypotheses) {
    OrderedJson item;
    item["drug"] = h.drug;
    item["target"] = h.target;
    item["pathway"] = h.pathway;
    item["effect"] = h.effect;
    item["confidence"] = h.confidence;
    item["statement"] = h.statement;
    item["evidence"] = h.evidence;
    list.push_back(std::move(item));
  }
  OrderedJson j;
  j["hypotheses"] = std::move(list);
  j["primary_hypothesis"] = a.primary_hypothesis;
  j["knowledge_gaps"] = a.knowledge_gaps;
  j["suggested_searches"] = a.suggested_searches;
  return j;
}

OrderedJson ToJson(const ResearchReport& r) {
  OrderedJson j;
  j["title"] = r.title;
  j["executive_summary"] = r.executive_summary;
  j["methodology"] = r.methodology;
  j["findings"] = r.findings;
  j["limitations"] = r.limitations;
  j["conclusion"] = r.conclusion;
  j["references_cited"] = r.references_cited;
  j["markdown"] = r.markdown;
  return j;
}

}  // namespace medreact
