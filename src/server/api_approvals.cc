// The approval routes: GET /v1/approvals (every call waiting, over the
// paused runs), GET /v1/runs/{id}/approvals (one run's waiting calls and
// decisions) and POST /v1/runs/{id}/approvals/{call_id} (a decision).
//
// A waiting call comes with what a reviewer needs to decide it: the tool's
// parameter schema (a page checks an edit against it before sending; the
// service checks it again), the run's app, its subject (the patient its
// record names, or why there is none: service/approval_view.h) and its
// approval rules. A run's tools and subject never change, so they are read
// once per run and kept (a bounded cache), not on every refetch.
//
// Privacy: a subject names a patient; it goes into response bodies only,
// never into a log line.
#include <map>
#include <mutex>

#include "core/printable.h"
#include "server/api_state.h"
#include "service/app_table.h"
#include "service/approval_view.h"

namespace medreact::server {
namespace {

// What a run's waiting calls need that never changes for the run.
struct RunFacts {
  Json subject;
  std::map<std::string, Json> parameters;  // tool → its parameter schema
  std::string tools_note;  // why the schemas are missing ("" when they are there)
};

constexpr size_t kMaxCachedRuns = 512;

// By store path and run id; cleared whole when full (a page shows a few
// dozen paused runs at most).
std::mutex facts_mu;
std::map<std::string, std::shared_ptr<const RunFacts>>& FactsCache() {
  static auto* cache = new std::map<std::string, std::shared_ptr<const RunFacts>>();
  return *cache;
}

std::shared_ptr<const RunFacts> FactsOf(ApiState& s, const RunRecord& run) {
  const std::string key = s.service.store()->path() + '\n' + run.id;
  {
    std::lock_guard<std::mutex> lock(facts_mu);
    auto it = FactsCache().find(key);
    if (it != FactsCache().end()) return it->second;
  }
  auto facts = std::make_shared<RunFacts>();
  facts->subject = service::RunSubjectJson(service::SubjectOfRun(run));
  Result<std::shared_ptr<ToolRegistry>> tools = service::DecisionTools(s.service, run);
  if (tools.ok()) {
    for (const ToolSpec& spec : (*tools)->Specs()) facts->parameters[spec.name] = spec.parameters;
  } else {
    facts->tools_note = "the run's tools cannot be built again here (" + tools.status().message() +
                        "): an edit is checked by the server only";
  }
  std::lock_guard<std::mutex> lock(facts_mu);
  if (FactsCache().size() >= kMaxCachedRuns) FactsCache().clear();
  FactsCache()[key] = facts;
  return facts;
}

// One run's approvals: {run_id, app, status, created_at, updated_at,
// subject, rules, waiting: [{call_id, tool, arguments, step, parameters}],
// decided: [{call_id, tool, decision, reviewer, decided_at, reason?, arguments?}]}.
Json RunApprovals(ApiState& s, const service::RunView& view) {
  Json waiting = Json::array();
  std::shared_ptr<const RunFacts> facts;
  if (!view.waiting.empty()) facts = FactsOf(s, view.run);
  for (const ToolCall& c : view.waiting) {
    Result<Json> args = ParseJson(c.arguments);
    Json entry{{"call_id", c.id},
               {"tool", c.name},
               {"arguments", args.ok() ? *args : Json(c.arguments)},
               {"step", view.waiting_step}};
    auto schema = facts->parameters.find(c.name);
    if (schema != facts->parameters.end()) {
      entry["parameters"] = schema->second;
    } else {
      entry["parameters"] = nullptr;
      entry["parameters_note"] = facts->tools_note.empty()
                                     ? "the run offers no tool '" + PrintableLine(c.name) + "' any more"
                                     : facts->tools_note;
    }
    waiting.push_back(std::move(entry));
  }
  Json decided = Json::array();
  for (const service::TakenDecision& d : service::TakenDecisions(*s.service.store(), view.run.id)) {
    decided.push_back(service::TakenDecisionJson(d));
  }
  return Json{{"run_id", view.run.id},
              {"app", view.run.app},
              {"status", view.run.status},
              {"created_at", view.run.created_at},
              {"updated_at", view.run.updated_at},
              {"subject", facts ? facts->subject : service::RunSubjectJson(service::SubjectOfRun(view.run))},
              {"rules", service::ApprovalRulesOf(view.run)},
              {"waiting", std::move(waiting)},
              {"decided", std::move(decided)}};
}

}  // namespace

void ListAllApprovals(ApiState& s, const std::shared_ptr<Exchange>& ex) {
  constexpr int64_t kMaxRuns = 200;
  Result<std::vector<RunRecord>> runs = s.service.List({.status = "awaiting_approval", .limit = kMaxRuns + 1});
  if (!runs.ok()) return ex->Respond(StatusResponse(runs.status()));
  Json out = Json::array();
  size_t calls = 0;
  for (size_t i = 0; i < runs->size() && i < static_cast<size_t>(kMaxRuns); ++i) {
    Result<service::RunView> view = s.service.Show((*runs)[i].id);
    if (!view.ok() || view->waiting.empty()) continue;  // decided or gone since the list was read
    Json j = RunApprovals(s, *view);
    calls += j["waiting"].size();
    out.push_back(std::move(j));
  }
  ex->Respond(JsonResponse(200, Json{{"runs", std::move(out)},
                                     {"waiting_calls", calls},
                                     {"truncated", runs->size() > static_cast<size_t>(kMaxRuns)}}));
}

void ListApprovals(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p) {
  Result<service::RunView> view = s.service.Show(p[0]);
  if (!view.ok()) return ex->Respond(StatusResponse(view.status()));
  ex->Respond(JsonResponse(200, RunApprovals(s, *view)));
}

void DecideApproval(ApiState& s, const std::shared_ptr<Exchange>& ex, const Params& p) {
  std::string field;
  Result<Json> body = JsonBody(ex->request(), &field);
  if (!body.ok()) return ex->Respond(StatusResponse(body.status(), field));
  for (const auto& [key, value] : body->items()) {
    if (key != "decision" && key != "arguments" && key != "reason" && key != "reviewer") {
      return ex->Respond(ErrorResponse("bad_request", "unknown field '" + PrintableLine(key) +
                                                          "' (decision, arguments, reason, reviewer)", key));
    }
  }
  const Json& decision = (*body)["decision"];
  if (!decision.is_string() || (decision != "approve" && decision != "edit" && decision != "reject")) {
    return ex->Respond(ErrorResponse("bad_request", "decision must be \"approve\", \"edit\" or \"reject\"", "decision"));
  }
  const Json& reviewer = body->contains("reviewer") ? (*body)["reviewer"] : Json();
  if (!reviewer.is_string() || reviewer.get_ref<const std::string&>().empty() ||
      reviewer.get_ref<const std::string&>().size() > 200) {
    return ex->Respond(ErrorResponse("bad_request", "reviewer must name who decides (1..200 characters)", "reviewer"));
  }
  service::CallDecision d{.call_id = p[1], .approve = decision != "reject"};
  if (decision == "edit") {
    if (!body->contains("arguments") || !(*body)["arguments"].is_object()) {
      return ex->Respond(ErrorResponse("bad_request", "an edit needs the call's arguments as a JSON object", "arguments"));
    }
    d.arguments = DumpJson((*body)["arguments"]);
  } else if (body->contains("arguments")) {
    return ex->Respond(ErrorResponse("bad_request", "arguments go with an edit only", "arguments"));
  }
  if (decision == "reject") {
    const Json& reason = body->contains("reason") ? (*body)["reason"] : Json();
    if (!reason.is_string() || reason.get_ref<const std::string&>().empty()) {
      return ex->Respond(ErrorResponse("bad_request", "a rejection needs a reason (the model reads it)", "reason"));
    }
    d.reason = reason.get<std::string>();
  }
  Result<service::DecideOutcome> out =
      s.service.Decide(p[0], {d}, {.identity = reviewer.get<std::string>()});
  if (!out.ok()) {
    return ex->Respond(StatusResponse(out.status(), out.status().code() == StatusCode::kInvalidArgument &&
                                                            decision == "edit"
                                                        ? "arguments"
                                                        : ""));
  }
  const bool go_on = out->waiting.empty();
  if (go_on) {
    Result<RunRecord> run = s.service.store()->Get(p[0]);
    if (run.ok()) ContinueOnPool(s, *run);
  }
  // Who decided what and when, as stored: the page shows it from here.
  Json decisions = Json::array();
  for (const std::string& call : out->decided) {
    auto it = out->decisions.find(call);
    if (it == out->decisions.end()) continue;
    const ApprovalDecision& a = it->second;
    decisions.push_back(service::TakenDecisionJson({.call_id = call,
                                                    .decision = service::DecisionWord(a),
                                                    .reviewer = a.reviewer,
                                                    .decided_at = a.decided_at,
                                                    .reason = a.approved ? "" : a.reason,
                                                    .arguments = a.arguments}));
  }
  ex->Respond(JsonResponse(200, Json{{"run_id", p[0]},
                                     {"decided", out->decided},
                                     {"decisions", std::move(decisions)},
                                     {"waiting", out->waiting},
                                     {"continuing", go_on}}));
}

}  // namespace medreact::server
