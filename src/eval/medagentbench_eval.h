// `medreact eval medagentbench`: MedAgentBench (Jiang Y et al., "MedAgentBench:
// a virtual EHR environment to benchmark medical LLM agents", NEJM AI 2025;
// stanfordmlgroup/MedAgentBench, test_data_v2.json) run as agent runs and
// scored as the benchmark's reference solutions (refsol.py) score them.
//
// Each task is a free-text instruction (+ context, "now" is
// 2023-11-13T10:15:00+00:00). The agent gets the benchmark's FHIR functions
// (funcs_v1.json, tools/fhir/fhir_api_tools.h) over a FHIR server and ends
// with FINISH([answer, ...]); its answer list is parsed as JSON. POSTs are
// recorded (sent only with allow_post) and scored from the record.
//
// Scored categories, with refsol.py's rules (task1, task2 and task10 read
// the fixtures' records: the 500 Patient resources and task10's HbA1c
// searchsets; task3 and task8 are judged by their POST alone):
//   task1  patient search by name + DOB: no POST, answer == the task's `sol`
//          (["<MRN>"] or ["Patient not found"]).
//   task2  age: no POST, answer == [age in whole years at 2023-11-13] from
//          the server's Patient?identifier=<eval_MRN> birthDate.
//   task3  record a blood pressure: exactly one POST to Observation (one
//          vital-signs category coding, code {"text": "BP"},
//          effectiveDateTime 2023-11-13T10:15:00+00:00, status final,
//          valueString the measured value, subject Patient/<MRN>).
//   task8  orthopaedic referral: exactly one POST to ServiceRequest (SNOMED
//          306181000000106, authoredOn 2023-11-13T10:15:00+00:00, status
//          active, intent order, priority stat, note.text holding the
//          instruction's SBAR text, subject Patient/<MRN>).
//   task10 last HbA1c: from Observation?patient=<MRN>&code=A1C the latest
//          (value, effectiveDateTime), or [-1] when none; when none or older
//          than 2022-11-13T10:15:00+00:00 exactly one POST to ServiceRequest
//          (LOINC 4548-4, authoredOn 2023-11-13T10:15:00+00:00, status
//          active, intent order, priority stat, subject Patient/<MRN>), else
//          no POST; the answer == [value, time] or [] (the benchmark accepts
//          an empty list: it only asks the model to check).
// Categories task4-7 and task9 need records (magnesium, CBG, potassium)
// that exist only in the benchmark's server image: they are "not scorable
// offline (records not available)", never passes or failures, and not run.
#ifndef MEDREACT_EVAL_MEDAGENTBENCH_EVAL_H_
#define MEDREACT_EVAL_MEDAGENTBENCH_EVAL_H_

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/json.h"
#include "medreact/model.h"
#include "medreact/status.h"
#include "tools/fhir/fhir_api_tools.h"

namespace medreact::eval {

struct MabTask {
  std::string id;        // "task10_3"
  std::string category;  // "task10"
  std::string instruction;
  std::string context;
  Json sol;              // the task's `sol` (task1), else null
  std::string eval_mrn;  // eval_MRN
};

// Parses test_data_v2.json. Errors name the entry.
Result<std::vector<MabTask>> ReadMabTasks(std::string_view json_text);

// The categories this harness scores.
bool MabScorable(const std::string& category);

enum class MabVerdict { kCorrect, kWrong, kNotScorable, kNotRun };
const char* MabVerdictName(MabVerdict v);  // "correct", "wrong", "not scorable offline (records not available)", "not run"

struct MabTaskResult {
  std::string id, category;
  MabVerdict verdict = MabVerdict::kNotRun;
  std::string answer;     // the agent's final text
  Json parsed;            // the FINISH list as JSON (null when unreadable)
  Json expected;          // the reference solution (null when not scored)
  std::string reason;     // why wrong / not run
  std::vector<RecordedPost> posts;
  int steps = 0;
  int gets = 0;

  Json ToJson() const;
};

// The answer list of a final text: the inside of its last FINISH(...),
// else the text, parsed as JSON; null when it is not JSON.
Json ParseFinishAnswer(const std::string& text);

// refsol's verdict for a run that answered `answer` and made `posts`; the
// reference values come from the FHIR server (`api`: base URL, transport).
// Sets result.verdict, expected and reason.
void ScoreMabTask(const MabTask& task, const FhirApiOptions& api, MabTaskResult& result);

struct MabCategoryTally {
  int correct = 0, wrong = 0, not_scorable = 0, not_run = 0;
};

struct MabReport {
  std::vector<MabTaskResult> results;
  std::map<std::string, MabCategoryTally> by_category;  // "task1" ...
  int correct = 0, scored = 0, not_scorable = 0, not_run = 0;
  double ScoredAccuracy() const { return scored == 0 ? 0.0 : static_cast<double>(correct) / scored; }

  Json ToJson() const;
  std::string Table() const;
};

struct MabRunOptions {
  // The model; null = no model: scorable tasks are "not run" (the offline
  // planners read structured inputs, not these free-text instructions).
  std::shared_ptr<ChatModel> model;
  FhirApiOptions api;                       // the FHIR server
  std::vector<FhirApiFunction> functions;  // funcs_v1.json's
  int max_steps = 8;  // model turns per task (the benchmark's limit). Default: 8
  // Called after each task (progress). Default: none
  std::function<void(const MabTaskResult&, size_t done, size_t total)> on_task;
};

// The system prompt: the benchmark's instructions to the agent.
std::string MabSystemPrompt();

MabReport RunMedAgentBench(const std::vector<MabTask>& tasks, const MabRunOptions& options);

}  // namespace medreact::eval

#endif  // MEDREACT_EVAL_MEDAGENTBENCH_EVAL_H_
