// The research app's structured answers (seed 003, "Agent Contracts"): each
// agent of the research team ends its run with one finishing tool whose JSON
// Schema is its answer, so a native model, the text protocol and the rules
// planner all hand back validated JSON (docs/architecture.md, "One way to
// finish"). This file holds those tools' specs, their registration, and the
// typed reads of their validated arguments.
//
//   agent       finishing tool       answer
//   manager     submit_ledger        ProgressLedger (Magentic-One's progress ledger)
//   search      submit_search        SearchSummary
//   judge       submit_judgement     JudgeAssessment (seed 003, "JudgeAssessment Model")
//   hypothesis  submit_hypotheses    HypothesisAssessment
//   report      submit_report        ResearchReport
//
// The reads never trust the model where the seed gives a rule: the judge's
// `sufficient` and `recommendation` are recomputed from its scores
// (IsSufficientEvidence), and a disagreement is kept as a note.
#ifndef MEDREACT_APPS_RESEARCH_RESEARCH_TYPES_H_
#define MEDREACT_APPS_RESEARCH_RESEARCH_TYPES_H_

#include <string>
#include <vector>

#include "medreact/json.h"
#include "medreact/status.h"
#include "medreact/tool_registry.h"

namespace medreact {

inline constexpr char kSubmitLedgerTool[] = "submit_ledger";
inline constexpr char kSubmitSearchTool[] = "submit_search";
inline constexpr char kSubmitJudgementTool[] = "submit_judgement";
inline constexpr char kSubmitHypothesesTool[] = "submit_hypotheses";
inline constexpr char kSubmitReportTool[] = "submit_report";

// Seed 003, "Critical Thresholds" / "Sufficiency Decision".
inline constexpr double kSufficientConfidence = 0.7;
inline constexpr int kSufficientMechanismScore = 6;
inline constexpr int kSufficientClinicalScore = 6;

// Who the manager may hand the next round to.
inline constexpr const char* kSpeakers[] = {"search", "judge", "hypothesis", "report"};

// Magentic-One's progress ledger, one per manager round.
struct ProgressLedger {
  bool is_request_satisfied = false;
  bool is_in_loop = false;
  bool is_progress_being_made = true;
  std::string next_speaker;  // one of kSpeakers
  std::string instruction;   // what that agent is asked to do
  std::string reason;        // the manager's reasoning, optional
};

struct SearchSummary {
  std::string summary;
  std::vector<std::string> queries;  // the queries it ran
};

// Seed 003 names `details: AssessmentDetails` without defining it. medreact's
// definition: what the judgement rests on, so a reader can check the scores.
struct AssessmentDetails {
  int evidence_assessed = 0;                   // records the judge was shown
  std::vector<std::string> relevant_evidence;  // those it counted: "[n]" or identifiers
  std::vector<std::string> study_designs;      // one line per design counted ("1 trial registration")
  std::vector<std::string> gaps;               // what the evidence lacks for the question
};

struct JudgeAssessment {
  AssessmentDetails details;
  int mechanism_score = 0;          // 0-10
  std::string mechanism_reasoning;  // why that score (seed 003: at least 10 characters)
  int clinical_evidence_score = 0;  // 0-10
  std::string clinical_reasoning;   // why that score (seed 003: at least 10 characters)
  double confidence = 0;            // 0-1
  bool sufficient = false;          // recomputed: IsSufficientEvidence
  std::string recommendation;       // "continue" | "synthesize", recomputed
  std::vector<std::string> next_search_queries;
  std::string reasoning;
  std::vector<std::string> key_findings;
  std::vector<std::string> drug_candidates;
  // When the model's own `sufficient` disagreed with the seed's rule: says so.
  std::string override_note;
};

struct HypothesisItem {
  std::string drug, target, pathway, effect;
  double confidence = 0;
  std::string statement;
  std::vector<std::string> evidence;  // identifiers or reference numbers "[3]"
};

struct HypothesisAssessment {
  std::vector<HypothesisItem> hypotheses;
  std::string primary_hypothesis;
  std::vector<std::string> knowledge_gaps;
  std::vector<std::string> suggested_searches;
};

struct ResearchReport {
  std::string title;
  std::string executive_summary;
  std::string methodology;
  std::vector<std::string> findings;
  std::vector<std::string> limitations;
  std::string conclusion;
  std::vector<int> references_cited;  // reference numbers [n] of the bibliography
  std::string markdown;               // the whole report
};

// Seed 003: sufficient when confidence >= 0.7 and both scores >= 6.
bool IsSufficientEvidence(double confidence, int mechanism_score, int clinical_evidence_score);

// Registers the five finishing tools; each returns its arguments as JSON.
Status RegisterResearchFinishingTools(ToolRegistry& registry, const std::vector<std::string>& names);
// The spec of one of them (for tests and prompts); NotFound for another name.
Result<ToolSpec> ResearchFinishingToolSpec(const std::string& name);

// Typed reads of validated arguments (RunResult::final_fields). InvalidArgument
// naming the field when the value is not an object of the tool's shape (a run
// that ended without a valid call).
Result<ProgressLedger> ReadLedger(const Json& fields);
Result<SearchSummary> ReadSearchSummary(const Json& fields);
Result<JudgeAssessment> ReadJudgement(const Json& fields);
Result<HypothesisAssessment> ReadHypotheses(const Json& fields);
Result<ResearchReport> ReadReport(const Json& fields);

OrderedJson ToJson(const ProgressLedger& ledger);
OrderedJson ToJson(const AssessmentDetails& details);
OrderedJson ToJson(const JudgeAssessment& judgement);
OrderedJson ToJson(const HypothesisAssessment& hypotheses);
OrderedJson ToJson(const ResearchReport& report);

}  // namespace medreact

#endif  // MEDREACT_APPS_RESEARCH_RESEARCH_TYPES_H_
