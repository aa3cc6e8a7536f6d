// What a reviewer needs to decide a paused run's calls. See approval_view.h.
#include "service/approval_view.h"

#include <algorithm>
#include <set>

#include "apps/chat/chat_app.h"
#include "core/printable.h"
#include "service/app_table.h"
#include "service/cxr_runs.h"
#include "service/research_runs.h"
#include "tools/fhir/fhir_store.h"

namespace medreact::service {
namespace {

// "Ines Fictitious-Example" from a FHIR HumanName list: the official name's
// text, else its given names and family; the first name when none is official.
std::string PatientName(const Json& patient) {
  auto it = patient.find("name");
  if (it == patient.end() || !it->is_array() || it->empty()) return "";
  const Json* chosen = nullptr;
  for (const Json& n : *it) {
    if (!n.is_object()) continue;
    if (!chosen) chosen = &n;
    if (StringOr(n, "use") == "official") {
      chosen = &n;
      break;
    }
  }
  if (!chosen) return "";
  if (std::string text = StringOr(*chosen, "text"); !text.empty()) return text;
  std::string out;
  if (auto given = chosen->find("given"); given != chosen->end() && given->is_array()) {
    for (const Json& g : *given) {
      if (g.is_string()) out += (out.empty() ? "" : " ") + g.get<std::string>();
    }
  }
  if (std::string family = StringOr(*chosen, "family"); !family.empty()) out += (out.empty() ? "" : " ") + family;
  return out;
}

std::string FirstIdentifier(const Json& patient) {
  auto it = patient.find("identifier");
  if (it == patient.end() || !it->is_array()) return "";
  for (const Json& id : *it) {
    if (!id.is_object()) continue;
    if (std::string v = StringOr(id, "value"); !v.empty()) return v;
  }
  return "";
}

// The question a run without a record was asked, shortened for one line.
std::string Question(const RunRecord& run) {
  std::string q = StringOr(run.inputs, "message");
  if (q.empty()) q = StringOr(run.inputs, "question");
  q = PrintableLine(q);
  if (q.size() > 160) {
    size_t cut = 157;
    while (cut > 0 && (static_cast<unsigned char>(q[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
    q = q.substr(0, cut) + "...";
  }
  return q;
}

}  // namespace

Result<std::shared_ptr<ToolRegistry>> DecisionTools(const RunService& service, const RunRecord& run) {
  if (run.app == "cxr") return CxrDecisionTools(service, run);
  if (run.app == "research") return ResearchDecisionTools(run);
  if (run.app != "chat") {
    return Status::FailedPrecondition("a '" + PrintableLine(run.app) + "' run never waits for approval");
  }
  Result<ChatInputs> inputs = ChatInputsFromJson(run.inputs);
  if (!inputs.ok()) return Status::InvalidArgument("run '" + run.id + "': " + inputs.status().message());
  return ChatTools(inputs->packs, inputs->context);
}

RunSubject SubjectOfRun(const RunRecord& run) {
  RunSubject out;
  const std::string record = StringOr(run.inputs, "fhir");
  if (!record.empty()) {
    Result<FhirStore> store = FhirStore::LoadFile(record, {"Patient"});
    if (!store.ok()) {
      out.text = "The run's patient record cannot be read any more (moved or removed since the run started).";
      return out;
    }
    if (const Json* patient = store->patient()) {
      out.has_patient = true;
      out.patient = Json{{"id", store->patient_id()},
                         {"name", PatientName(*patient)},
                         {"birth_date", StringOr(*patient, "birthDate")},
                         {"gender", StringOr(*patient, "gender")},
                         {"identifier", FirstIdentifier(*patient)}};
      std::string text = PatientName(*patient);
      if (text.empty()) text = "Unnamed patient";
      if (std::string g = StringOr(*patient, "gender"); !g.empty()) text += ", " + g;
      if (std::string b = StringOr(*patient, "birthDate"); !b.empty()) text += ", born " + b;
      const std::string id = FirstIdentifier(*patient).empty() ? store->patient_id() : FirstIdentifier(*patient);
      if (!id.empty()) text += " (identifier " + id + ")";
      out.text = PrintableLine(text);
      return out;
    }
    out.text = "The run's record names no patient (it has no Patient resource).";
    return out;
  }
  const std::string q = Question(run);
  if (run.app == "research") {
    out.text = "No patient: a literature question" + (q.empty() ? std::string(".") : " (\"" + q + "\").");
  } else {
    out.text = "No patient record given to this run" + (q.empty() ? std::string(".") : "; its question: \"" + q + "\".");
  }
  return out;
}

Json RunSubjectJson(const RunSubject& subject) {
  return Json{{"patient", subject.has_patient ? subject.patient : Json()}, {"text", subject.text}};
}

std::vector<std::string> ApprovalRulesOf(const RunRecord& run) {
  std::vector<std::string> rules;
  auto it = run.inputs.find("require_approval");
  if (it == run.inputs.end() || !it->is_array()) return rules;
  for (const Json& r : *it) {
    if (r.is_string()) rules.push_back(r.get<std::string>());
  }
  return rules;
}

std::string DecisionWord(const ApprovalDecision& d) {
  if (!d.approved) return "rejected";
  return d.arguments.empty() ? "approved" : "edited";
}

std::vector<TakenDecision> TakenDecisions(const RunStore& store, const std::string& run_id) {
  std::vector<TakenDecision> out;
  std::set<std::string> seen;
  // The state first, then the events: a run that applies its decisions
  // between the two reads has them in its events by then.
  std::vector<TakenDecision> stored;
  if (Result<std::optional<RunState>> state = store.LatestState(run_id); state.ok() && state->has_value()) {
    const RunState& st = **state;
    for (const auto& [call, d] : st.approvals) {
      const std::string& id = call;  // clang 14 cannot capture a structured binding
      auto named = std::find_if(st.turn.tool_calls.begin(), st.turn.tool_calls.end(),
                                [&id](const ToolCall& c) { return c.id == id; });
      stored.push_back({.call_id = call,
                        .tool = named == st.turn.tool_calls.end() ? "" : named->name,
                        .decision = DecisionWord(d),
                        .reviewer = d.reviewer,
                        .decided_at = d.decided_at,
                        .reason = d.approved ? "" : d.reason,
                        .arguments = d.arguments});
    }
  }
  if (Result<std::vector<RunEvent>> events = store.Events(run_id); events.ok()) {
    for (const RunEvent& e : *events) {
      if (e.type != "approval" || seen.count(e.tool_call_id)) continue;
      Result<Json> j = ParseJson(e.json);
      if (!j.ok() || !j->is_object()) continue;
      const Json data = j->contains("data") && (*j)["data"].is_object() ? (*j)["data"] : Json::object();
      const std::string decision = StringOr(data, "decision");
      if (decision.empty() || decision == "awaiting") continue;
      seen.insert(e.tool_call_id);
      TakenDecision d{.call_id = e.tool_call_id,
                      .tool = StringOr(*j, "tool_name"),
                      .decision = decision,
                      .reviewer = StringOr(data, "reviewer"),
                      .decided_at = StringOr(data, "decided_at"),
                      .reason = StringOr(data, "reason")};
      // The edited arguments are in the stored state while it lasts.
      for (const TakenDecision& s : stored) {
        if (s.call_id == d.call_id) d.arguments = s.arguments;
      }
      out.push_back(std::move(d));
    }
  }
  for (TakenDecision& s : stored) {
    if (seen.insert(s.call_id).second) out.push_back(std::move(s));
  }
  return out;
}

Json TakenDecisionJson(const TakenDecision& d) {
  Json j{{"call_id", d.call_id}, {"tool", d.tool}, {"decision", d.decision}, {"reviewer", d.reviewer},
         {"decided_at", d.decided_at}};
  if (!d.reason.empty()) j["reason"] = d.reason;
  if (!d.arguments.empty()) {
    Result<Json> args = ParseJson(d.arguments);
    j["arguments"] = args.ok() ? *args : Json(d.arguments);
  }
  return j;
}

}  // namespace medreact::service
