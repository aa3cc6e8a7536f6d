// The research team's deterministic plan (`--planner rules`, and the fallback
// when a configured model never answers): one ChatModel that is not a
// language model and plays each agent's part, chosen by the run's finishing
// tool (ModelRequest::answer_tool): submit_ledger → manager, submit_search →
// search, submit_judgement → judge, submit_hypotheses → hypothesis,
// submit_report → report. It reads the facts from the task's CONTEXT_JSON
// line (research_prompts.h) and the tool results in the conversation, and is
// stateless, so one instance serves every agent run of a research.
//
//   manager     search first; after a search with new evidence, judge; a
//               judgement "insufficient" with rounds to spare (3 or more,
//               this one included) and a search that found something new →
//               search again with the judge's queries; otherwise (sufficient,
//               nothing new, a replan, rounds running out) → hypothesis, then
//               report; the last round always goes to the report.
//   search      one call per selected source tool and query (the judge's
//               queries, else the question's key terms), then submit_search.
//   judge       the rule below, then submit_judgement.
//   hypothesis  no mechanistic hypothesis (it reads none): one entry saying
//               so, with confidence 0, naming the drug (brand / generic) and
//               citing the three best-matching records.
//   report      get_bibliography, then a template report citing real
//               records, written section by section; when the agent run
//               streams (ModelRequest::stream) each section goes to the
//               call's text sink as it is written. The app adds the failed
//               searches and the References (research_report.h).
//
// The judge's rule (explicit, not clinical judgement): a record counts when
// its title or abstract holds one of the question's key terms, a brand name
// and its generic name being one term (drug_names.h: Keytruda and
// pembrolizumab). Clinical points per counted record, after seed 003's
// clinical scale (RCTs and meta-analyses are what reach 6-9): meta-analysis
// or systematic review 3, randomized controlled trial 3, published clinical
// trial 2, observational study, review or journal article 1, a trial
// registration (ClinicalTrials.gov: a design, no results) 1, preprint or
// other 0.5; clinical score = min(10, floor(points)). Mechanism score =
// min(10, 2 per counted record that names a mechanism word: mechanism,
// pathway, receptor, target, signal, inhibit, express, mediat, antibod, bind,
// block). Confidence = min(0.9, 0.1 per source with a counted record + 0.05
// per counted record). Sufficiency is seed 003's rule (research_types.h). The
// judgement's mechanism_reasoning, clinical_reasoning and details say exactly
// this: which records were counted, as what, for how many points.
#ifndef MEDREACT_APPS_RESEARCH_RESEARCH_PLANNER_H_
#define MEDREACT_APPS_RESEARCH_RESEARCH_PLANNER_H_

#include <memory>

#include "apps/research/research_types.h"
#include "medreact/json.h"
#include "medreact/model.h"

namespace medreact {

// name() "research-rules-planner", protocol() "rules".
std::unique_ptr<ChatModel> MakeResearchRulesPlanner();

// The judge's rule above over an evidence context array (EvidenceContext
// objects) and the question. Exposed for tests and the bench.
JudgeAssessment RulesJudgement(const std::string& question, const Json& evidence);

}  // namespace medreact

#endif  // MEDREACT_APPS_RESEARCH_RESEARCH_PLANNER_H_
