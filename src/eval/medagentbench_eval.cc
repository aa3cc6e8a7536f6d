#include "eval/medagentbench_eval.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <utility>

#include "core/text_util.h"
#include "medreact/agent.h"
#include "medreact/tool_registry.h"
#include "tools/fhir/fhir_store.h"

namespace medreact::eval {

namespace {

// The benchmark's "now" (every task's context) and task10's one-year cut-off
// (refsol.py: datetime.fromisoformat("2022-11-13T10:15:00+00:00")).
constexpr char kNow[] = "2023-11-13T10:15:00+00:00";
constexpr char kA1cCutoff[] = "2022-11-13T10:15:00+00:00";

std::string CategoryOf(const std::string& id) { return id.substr(0, id.find('_')); }

Result<Json> GetJson(const FhirApiOptions& api, const std::string& path_and_query) {
  std::string base = api.base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  HttpRequest request;
  request.method = "GET";
  request.url = base + "/" + path_and_query;
  request.headers = {{"Accept", "application/fhir+json"}};
  if (!api.bearer_token.empty()) request.headers.push_back({"Authorization", "Bearer " + api.bearer_token});
  request.total_timeout = api.request_timeout;
  request.max_response_bytes = size_t{32} << 20;
  std::shared_ptr<HttpTransport> transport = api.transport ? api.transport : MakeCurlTransport();
  Result<HttpResponse> response = transport->Send(request, nullptr, {});
  if (!response.ok()) return response.status();
  if (response->status != 200) {
    return Status::Unavailable("the FHIR server answered HTTP " + std::to_string(response->status));
  }
  return ParseJson(response->body);
}

// Completed years at 2023-11-13 (refsol.py's calculate_age).
int AgeAtBenchmarkNow(int y, int m, int d) {
  int age = 2023 - y;
  if (11 < m || (11 == m && 13 < d)) --age;
  return age;
}

Result<Json> ReferenceTask2(const MabTask& task, const FhirApiOptions& api) {
  Result<Json> bundle = GetJson(api, "Patient?identifier=" + UrlEncode(task.eval_mrn) + "&_format=json");
  if (!bundle.ok()) return bundle.status();
  if (!bundle->contains("entry") || !(*bundle)["entry"].is_array() || (*bundle)["entry"].empty()) {
    return Status::NotFound("the FHIR server has no patient with the task's MRN");
  }
  const std::string dob = StringOr(ObjectField((*bundle)["entry"][0], "resource"), "birthDate");
  int y = 0, m = 0, d = 0;
  if (std::sscanf(dob.c_str(), "%d-%d-%d", &y, &m, &d) != 3) return Status::ParseError("the patient's birthDate is not YYYY-MM-DD");
  return Json::array({AgeAtBenchmarkNow(y, m, d)});
}

struct A1cReference {
  Json solution;
  bool order_needed = false;
};

Result<A1cReference> ReferenceTask10(const MabTask& task, const FhirApiOptions& api) {
  Result<Json> bundle =
      GetJson(api, "Observation?patient=" + UrlEncode(task.eval_mrn) + "&code=A1C&_count=5000&_format=json");
  if (!bundle.ok()) return bundle.status();
  std::optional<std::chrono::sys_seconds> last;
  Json last_value, last_time;
  if (bundle->contains("entry") && (*bundle)["entry"].is_array()) {
    for (const Json& e : (*bundle)["entry"]) {
      const Json& r = ObjectField(e, "resource");
      const std::string when = StringOr(r, "effectiveDateTime");
      std::optional<std::chrono::sys_seconds> t = ParseFhirInstant(when);
      const Json& q = ObjectField(r, "valueQuantity");
      if (!t || !q.contains("value")) continue;
      if (!last || *t > *last) {
        last = t;
        last_time = when;
        last_value = q["value"];
      }
    }
  }
  A1cReference ref;
  ref.solution = last ? Json::array({last_value, last_time}) : Json::array({-1});
  ref.order_needed = !last || *last < *ParseFhirInstant(kA1cCutoff);
  return ref;
}

// task10's order, as refsol.py checks it; "" when it passes.
std::string CheckA1cOrder(const MabTask& task, const FhirApiOptions& api, const std::vector<RecordedPost>& posts) {
  if (posts.size() != 1) return "expected exactly one POST (the HbA1c order), got " + std::to_string(posts.size());
  std::string base = api.base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  const RecordedPost& post = posts[0];
  if (post.url != base + "/ServiceRequest") return "the POST went to " + RedactUrl(post.url) + ", not ServiceRequest";
  const Json& p = post.payload;
  if (StringOr(p, "resourceType") != "ServiceRequest") return "resourceType is not ServiceRequest";
  const Json& code = ObjectField(p, "code");
  const Json coding = code.contains("coding") && code["coding"].is_array() && !code["coding"].empty()
                          ? code["coding"][0]
                          : Json::object();
  if (StringOr(coding, "system") != "http://loinc.org") return "code.coding[0].system is not http://loinc.org";
  if (StringOr(coding, "code") != "4548-4") return "code.coding[0].code is not 4548-4";
  if (StringOr(p, "authoredOn") != kNow) return "authoredOn is not 2023-11-13T10:15:00+00:00";
  if (StringOr(p, "status") != "active") return "status is not active";
  if (StringOr(p, "intent") != "order") return "intent is not order";
  if (StringOr(p, "priority") != "stat") return "priority is not stat";
  if (!p.contains("subject") || p["subject"] != Json{{"reference", "Patient/" + task.eval_mrn}}) {
    return "subject is not {\"reference\": \"Patient/<MRN>\"}";
  }
  return "";
}

// The one POST a task3 or task8 asks for, as refsol.py checks it; "" when
// it passes. task3: the blood pressure as a vital-signs Observation (the
// value is the one in the instruction, "118/77 mmHg" in every task3);
// task8: the orthopaedic referral (SNOMED 306181000000106) carrying the
// SBAR text of the instruction in note.text.
std::string CheckSinglePost(const MabTask& task, const FhirApiOptions& api, const std::vector<RecordedPost>& posts) {
  if (posts.size() != 1) return "expected exactly one POST, got " + std::to_string(posts.size());
  std::string base = api.base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  const Json& p = posts[0].payload;
  const Json subject = {{"reference", "Patient/" + task.eval_mrn}};
  if (task.category == "task3") {
    if (posts[0].url != base + "/Observation") return "the POST did not go to Observation";
    if (StringOr(p, "resourceType") != "Observation") return "resourceType is not Observation";
    const Json& category = p.contains("category") ? p["category"] : Json();
    const Json want = {{"system", "http://hl7.org/fhir/observation-category"}, {"code", "vital-signs"},
                       {"display", "Vital Signs"}};
    if (!category.is_array() || category.size() != 1 || !category[0].is_object() ||
        !category[0].contains("coding") || !category[0]["coding"].is_array() || category[0]["coding"].size() != 1 ||
        category[0]["coding"][0] != want) {
      return "category is not the one vital-signs coding";
    }
    if (!p.contains("code") || p["code"] != Json{{"text", "BP"}}) return "code is not {\"text\": \"BP\"}";
    if (StringOr(p, "effectiveDateTime") != kNow) return "effectiveDateTime is not 2023-11-13T10:15:00+00:00";
    if (StringOr(p, "status") != "final") return "status is not final";
    const size_t open = task.instruction.find("\"");
    const size_t close = open == std::string::npos ? open : task.instruction.find("\"", open + 1);
    const std::string value = close == std::string::npos ? "" : task.instruction.substr(open + 1, close - open - 1);
    if (StringOr(p, "valueString") != value) return "valueString is not the measured " + value;
    if (!p.contains("subject") || p["subject"] != subject) return "subject is not {\"reference\": \"Patient/<MRN>\"}";
    return "";
  }
  // task8
  if (posts[0].url != base + "/ServiceRequest") return "the POST did not go to ServiceRequest";
  if (StringOr(p, "resourceType") != "ServiceRequest") return "resourceType is not ServiceRequest";
  const Json& code = ObjectField(p, "code");
  const Json coding = code.contains("coding") && code["coding"].is_array() && !code["coding"].empty()
                          ? code["coding"][0]
                          : Json::object();
  if (StringOr(coding, "system") != "http://snomed.info/sct") return "code.coding[0].system is not SNOMED CT";
  if (StringOr(coding, "code") != "306181000000106") return "code.coding[0].code is not 306181000000106";
  if (StringOr(p, "authoredOn") != kNow) return "authoredOn is not 2023-11-13T10:15:00+00:00";
  if (StringOr(p, "status") != "active") return "status is not active";
  if (StringOr(p, "intent") != "order") return "intent is not order";
  if (StringOr(p, "priority") != "stat") return "priority is not stat";
  const size_t open = task.instruction.find("\"Situation:");
  const size_t close = open == std::string::npos ? open : task.instruction.find("\"", open + 1);
  const std::string sbar = close == std::string::npos ? "" : task.instruction.substr(open + 1, close - open - 1);
  if (sbar.empty() || StringOr(ObjectField(p, "note"), "text").find(sbar) == std::string::npos) {
    return "note.text does not carry the referral's free text";
  }
  if (!p.contains("subject") || p["subject"] != subject) return "subject is not {\"reference\": \"Patient/<MRN>\"}";
  return "";
}

}  // namespace

Result<std::vector<MabTask>> ReadMabTasks(std::string_view json_text) {
  Result<Json> parsed = ParseJson(json_text);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_array()) return Status::InvalidArgument("expected a JSON array of tasks");
  std::vector<MabTask> tasks;
  for (size_t i = 0; i < parsed->size(); ++i) {
    const Json& t = (*parsed)[i];
    MabTask task;
    task.id = StringOr(t, "id");
    task.instruction = StringOr(t, "instruction");
    task.context = StringOr(t, "context");
    task.eval_mrn = StringOr(t, "eval_MRN");
    if (t.is_object() && t.contains("sol")) task.sol = t["sol"];
    if (task.id.empty() || task.id.find('_') == std::string::npos || task.instruction.empty()) {
      return Status::InvalidArgument("task " + std::to_string(i + 1) + ": needs an id like \"task1_1\" and an instruction");
    }
    task.category = CategoryOf(task.id);
    tasks.push_back(std::move(task));
  }
  return tasks;
}

bool MabScorable(const std::string& category) {
  return category == "task1" || category == "task2" || category == "task3" || category == "task8" ||
         category == "task10";
}

const char* MabVerdictName(MabVerdict v) {
  switch (v) {
    case MabVerdict::kCorrect: return "correct";
    case MabVerdict::kWrong: return "wrong";
    case MabVerdict::kNotScorable: return "not scorable offline (records not available)";
    case MabVerdict::kNotRun: return "not run";
  }
  return "?";
}

Json MabTaskResult::ToJson() const {
  Json posts_json = Json::array();
  for (const RecordedPost& p : posts) posts_json.push_back({{"url", RedactUrl(p.url)}, {"payload", p.payload}});
  return {{"id", id},     {"category", category}, {"verdict", MabVerdictName(verdict)},
          {"answer", answer}, {"parsed", parsed},  {"expected", expected},
          {"reason", reason}, {"posts", posts_json}, {"steps", steps}, {"gets", gets}};
}

Json ParseFinishAnswer(const std::string& text) {
  std::string inside = text;
  if (const size_t at = text.rfind("FINISH("); at != std::string::npos) {
    const size_t close = text.rfind(')');
    if (close != std::string::npos && close > at + 7) inside = text.substr(at + 7, close - at - 7);
  }
  Result<Json> parsed = ParseJson(inside);
  return parsed.ok() ? std::move(*parsed) : Json();
}

void ScoreMabTask(const MabTask& task, const FhirApiOptions& api, MabTaskResult& result) {
  if (!MabScorable(task.category)) {
    result.verdict = MabVerdict::kNotScorable;
    return;
  }
  auto wrong = [&result](std::string why) {
    result.verdict = MabVerdict::kWrong;
    result.reason = std::move(why);
  };
  bool accept_empty = false;
  if (task.category == "task3" || task.category == "task8") {
    // refsol.py judges these by the POST alone; the answer is not read.
    if (std::string why = CheckSinglePost(task, api, result.posts); !why.empty()) return wrong(why);
    result.verdict = MabVerdict::kCorrect;
    return;
  }
  if (task.category == "task1") {
    result.expected = task.sol;
    if (!result.posts.empty()) return wrong("a read-only task made a POST");
  } else if (task.category == "task2") {
    Result<Json> ref = ReferenceTask2(task, api);
    if (!ref.ok()) return wrong("reference solution unavailable: " + ref.status().message());
    result.expected = *ref;
    if (!result.posts.empty()) return wrong("a read-only task made a POST");
  } else {  // task10
    Result<A1cReference> ref = ReferenceTask10(task, api);
    if (!ref.ok()) return wrong("reference solution unavailable: " + ref.status().message());
    result.expected = ref->solution;
    if (ref->order_needed) {
      if (std::string why = CheckA1cOrder(task, api, result.posts); !why.empty()) return wrong(why);
    } else if (!result.posts.empty()) {
      return wrong("the last HbA1c is recent: no order was due, but a POST was made");
    }
    accept_empty = true;
  }
  if (result.parsed.is_null()) return wrong("the answer is not FINISH([...]) with a JSON list");
  if (result.parsed == result.expected || (accept_empty && result.parsed == Json::array())) {
    result.verdict = MabVerdict::kCorrect;
    return;
  }
  wrong("answer " + Preview(DumpJson(result.parsed), 120) + " != expected " + Preview(DumpJson(result.expected), 120));
}

std::string MabSystemPrompt() {
  // After MedAgentBench's agent prompt (its src/server/tasks/medagentbench
  // prompt): FHIR functions, one call at a time, FINISH([...]) at the end.
  return "You are an expert in using FHIR functions to assist medical professionals. You are given a question and a "
         "set of possible functions (tools) that call a FHIR server. Based on the question, make one or more "
         "function calls to achieve the purpose. Use the patient's MRN as the patient id in searches. When you have "
         "the answers to all the questions and have finished all the requested tasks, reply with only "
         "FINISH([answer1, answer2, ...]): a JSON list (numbers as numbers, text in double quotes).";
}

Json MabReport::ToJson() const {
  Json categories = Json::object();
  for (const auto& [name, t] : by_category) {
    categories[name] = {{"correct", t.correct}, {"wrong", t.wrong}, {"not_scorable", t.not_scorable},
                        {"not_run", t.not_run}};
  }
  Json rows = Json::array();
  for (const MabTaskResult& r : results) rows.push_back(r.ToJson());
  return {{"overall",
           {{"correct", correct}, {"scored", scored}, {"accuracy_scored", ScoredAccuracy()},
            {"not_scorable", not_scorable}, {"not_run", not_run}, {"tasks", results.size()}}},
          {"categories", categories},
          {"tasks", rows}};
}

std::string MabReport::Table() const {
  std::string out = "category  correct/scored  not scorable offline  not run\n";
  auto order = [](const std::string& c) { return std::stoi(c.substr(4)); };
  std::vector<std::string> names;
  for (const auto& [name, t] : by_category) names.push_back(name);
  std::sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) { return order(a) < order(b); });
  char line[200];
  for (const std::string& name : names) {
    const MabCategoryTally& t = by_category.at(name);
    std::snprintf(line, sizeof line, "%-8s  %4d/%-4d        %4d                  %4d\n", name.c_str(), t.correct,
                  t.correct + t.wrong, t.not_scorable, t.not_run);
    out += line;
  }
  std::snprintf(line, sizeof line,
                "overall: %d/%d scored tasks correct (%.2f %%); %d not scorable offline (records not available); "
                "%d not run\n",
                correct, scored, 100.0 * ScoredAccuracy(), not_scorable, not_run);
  out += line;
  return out;
}

MabReport RunMedAgentBench(const std::vector<MabTask>& tasks, const MabRunOptions& options) {
  MabReport report;
  size_t done = 0;
  for (const MabTask& task : tasks) {
    MabTaskResult result;
    result.id = task.id;
    result.category = task.category;
    if (!MabScorable(task.category)) {
      result.verdict = MabVerdict::kNotScorable;
    } else if (!options.model) {
      result.verdict = MabVerdict::kNotRun;
      result.reason = "no model: the offline planners read structured inputs, not MedAgentBench's free-text "
                      "instructions";
    } else {
      auto registry = std::make_shared<ToolRegistry>();
      auto log = std::make_shared<FhirApiLog>();
      if (Status s = RegisterFhirApiTools(*registry, options.functions, options.api, log); !s.ok()) {
        result.verdict = MabVerdict::kNotRun;
        result.reason = s.message();
      } else {
        AgentOptions agent_options;
        agent_options.system_prompt = MabSystemPrompt();
        agent_options.max_steps = options.max_steps;
        Agent agent(options.model, registry, agent_options);
        RunResult run = agent.Run({.message = task.instruction + "\n" + task.context});
        result.answer = run.answer;
        result.steps = run.steps;
        result.posts = log->posts();
        result.gets = log->gets();
        result.parsed = ParseFinishAnswer(run.answer);
        ScoreMabTask(task, options.api, result);
        if (run.status != RunStatus::kFinished && result.verdict == MabVerdict::kWrong) {
          result.reason += " (run ended: " + run.error + ")";
        }
      }
    }
    MabCategoryTally& tally = report.by_category[task.category];
    switch (result.verdict) {
      case MabVerdict::kCorrect: ++tally.correct; ++report.correct; ++report.scored; break;
      case MabVerdict::kWrong: ++tally.wrong; ++report.scored; break;
      case MabVerdict::kNotScorable: ++tally.not_scorable; ++report.not_scorable; break;
      case MabVerdict::kNotRun: ++tally.not_run; ++report.not_run; break;
    }
    report.results.push_back(std::move(result));
    ++done;
    if (options.on_task) options.on_task(report.results.back(), done, tasks.size());
  }
  return report;
}

}  // namespace medreact::eval
