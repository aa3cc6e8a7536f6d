// What a reviewer needs to decide a paused run's calls, for every front end
// (the server's approval routes, the page's Approvals view): the tools the
// run offers (each waiting call's parameter schema, to check an edit before
// sending it), whom the run is about (its subject: the patient of its
// record, or why there is none), why its calls wait (its approval rules),
// and every decision taken so far with who and when — the stored ones not
// yet applied by the run included.
//
//   Result<std::shared_ptr<ToolRegistry>> tools = DecisionTools(service, run);
//   RunSubject who = SubjectOfRun(run);       // never logged: it names a patient
//   std::vector<TakenDecision> taken = TakenDecisions(*service.store(), run.id);
//
// Privacy: a subject names a patient (name, identifier, birth date). It is
// for a response body a person reads; never for a log, a URL or a title.
// Thread-safety: free functions over a store that is itself thread-safe.
#ifndef MEDREACT_SERVICE_APPROVAL_VIEW_H_
#define MEDREACT_SERVICE_APPROVAL_VIEW_H_

#include <memory>
#include <string>
#include <vector>

#include "medreact/json.h"
#include "medreact/status.h"
#include "medreact/tool_registry.h"
#include "service/run_service.h"
#include "store/run_store.h"

namespace medreact::service {

// The tools a stored run offers (chat: its packs and record; cxr: its
// stored settings; research: its search tools), as its decisions are checked
// against them. FailedPrecondition for an app whose calls never wait.
Result<std::shared_ptr<ToolRegistry>> DecisionTools(const RunService& service, const RunRecord& run);

// Whom a run is about.
struct RunSubject {
  bool has_patient = false;  // the run names a patient record with a Patient in it
  // has_patient: {"id", "name", "birth_date", "gender", "identifier"} (each
  // "" when the record has none); else null.
  Json patient;
  // One line for people: "Ines Fictitious-Example, female, born 1956-03-14
  // (identifier DEMO-0001)", or "No patient record: ..." saying what the run
  // is about instead.
  std::string text;
};
// From the run's stored inputs: its `fhir` record's first Patient (read
// again, only that resource kept), else the question it was asked. A record
// that cannot be read is said so (without its path or content).
RunSubject SubjectOfRun(const RunRecord& run);
Json RunSubjectJson(const RunSubject& subject);

// The approval rules a run was started with (its inputs' `require_approval`).
std::vector<std::string> ApprovalRulesOf(const RunRecord& run);

// A decision taken on one call of a run.
struct TakenDecision {
  std::string call_id;
  std::string tool;      // "" when only the stored state names the call and not its tool
  std::string decision;  // approved | edited | rejected
  std::string reviewer;
  std::string decided_at;
  std::string reason;     // rejected: why
  std::string arguments;  // edited: the reviewer's arguments (JSON text)
};
// Every decision of the run, once per call, in the order they were taken:
// those its approval events record, and those stored by a decision the run
// has not applied yet (its checkpoint's state).
std::vector<TakenDecision> TakenDecisions(const RunStore& store, const std::string& run_id);
Json TakenDecisionJson(const TakenDecision& d);
// The word for a stored decision: approved, edited or rejected.
std::string DecisionWord(const ApprovalDecision& d);

}  // namespace medreact::service

#endif  // MEDREACT_SERVICE_APPROVAL_VIEW_H_
