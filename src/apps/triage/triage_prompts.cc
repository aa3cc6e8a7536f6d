#include "apps/triage/triage_prompts.h"

#include <algorithm>
#include <cctype>

#include "medreact/json_repair.h"
#include "medreact/tool.h"
#include "core/text_util.h"

namespace medreact {
namespace {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// The role and the patterns every protocol shares. The patterns follow seed
// 001's "silent failures": an acute event despite the therapy meant to
// prevent it. Their clinical sources are cited with the deterministic rules
// in rules_planner.cc.
constexpr char kRole[] =
    "You are a clinical reasoning agent that supports CT triage. An imaging model has already "
    "described the scan; its findings are the user's message. Your job is to correlate them with "
    "the patient's FHIR record, using the tools, and decide whether the record makes the case more "
    "or less urgent than the findings alone suggest.\n\n"
    "Look above all for silent treatment failures: an acute event that happened despite the therapy "
    "meant to prevent it. They are easy to miss and change management.\n"
    "- Pulmonary embolism, DVT or thrombus while on an active anticoagulant (warfarin, heparin, "
    "enoxaparin, rivaroxaban, apixaban, edoxaban, dabigatran...): anticoagulation failure. Check "
    "coagulation labs (INR) to see whether the dose was therapeutic.\n"
    "- Stroke or TIA while on an active antiplatelet (aspirin, clopidogrel, ticagrelor...) or "
    "anticoagulant: antiplatelet or anticoagulation failure.\n"
    "- A cardiac finding with tachycardia or ischaemia while on an active beta-blocker: rate-control "
    "failure. Check vital signs (heart rate) and cardiac labs (troponin).\n"
    "- Intracranial or other major bleeding while on an anticoagulant or antiplatelet: more urgent; "
    "reversal may be needed.\n"
    "- A contrast study: check renal function (creatinine, eGFR) and allergies.\n\n"
    "Rules:\n"
    "- Only an order whose status is active counts as current therapy (is_currently_active). A "
    "stopped or completed medication is history, not a failure.\n"
    "- Never invent record content: every claim must come from a tool result. If the record has no "
    "data for something, say so.\n"
    "- Call the tools you need, a few at a time; do not repeat a call with the same arguments.\n"
    "- Risk adjustment: INCREASE when the record makes the finding more urgent (e.g. a treatment "
    "failure), DECREASE when it clearly makes it less urgent, NONE otherwise.\n";

constexpr char kNativeFinish[] =
    "\nWhen you have enough information, call submit_assessment once with final_assessment (one or "
    "two sentences citing the values you found), risk_adjustment (INCREASE, DECREASE or NONE) and "
    "critical_findings (short phrases, empty when none). Do not answer in plain text.\n";

// Seed 001's one-shot example (PE on therapeutic warfarin), in each protocol's form.
constexpr char kNativeExample[] =
    "\n## Example\n\n"
    "Findings: \"Filling defect in right pulmonary artery consistent with acute pulmonary "
    "embolism\"\n"
    "1. Call get_patient_manifest {} -> the record has MedicationRequests and Coag labs.\n"
    "2. Call check_medication_status {\"medication_name\": \"anticoag\"} -> Warfarin 5 MG, status "
    "active, is_currently_active true.\n"
    "3. Call get_recent_labs {\"category\": \"Coag\"} -> INR 2.3 (therapeutic range 2-3).\n"
    "4. Therapeutic INR, yet a PE occurred: anticoagulation failure. Call submit_assessment "
    "{\"final_assessment\": \"Acute PE despite therapeutic anticoagulation (INR 2.3) on active "
    "warfarin.\", \"risk_adjustment\": \"INCREASE\", \"critical_findings\": [\"Anticoagulation "
    "failure\", \"PE on therapeutic warfarin\"]}\n";

constexpr char kTextExample[] =
    "\n## Example\n\n"
    "Findings: \"Filling defect in right pulmonary artery consistent with acute pulmonary "
    "embolism\"\n\n"
    "THOUGHT: I see an acute PE. I need the anticoagulation status.\n"
    "TOOL_CALL: {\"tool\": \"get_patient_manifest\", \"arguments\": {}}\n"
    "OBSERVATION: {\"resource_counts\": {\"MedicationRequest\": 3}, \"available_lab_categories\": "
    "[\"Coag\"]}\n"
    "THOUGHT: The patient has medications and coagulation labs. Checking anticoagulants.\n"
    "TOOL_CALL: {\"tool\": \"check_medication_status\", \"arguments\": {\"medication_name\": "
    "\"anticoag\"}}\n"
    "OBSERVATION: {\"found\": true, \"medications\": [{\"name\": \"Warfarin 5 MG\", \"status\": "
    "\"active\"}], \"is_currently_active\": true}\n"
    "THOUGHT: Active warfarin. Checking the INR.\n"
    "TOOL_CALL: {\"tool\": \"get_recent_labs\", \"arguments\": {\"category\": \"Coag\"}}\n"
    "OBSERVATION: {\"values\": [{\"name\": \"INR\", \"value\": 2.3, \"flag\": \"normal\"}]}\n"
    "THOUGHT: A therapeutic INR, yet a PE occurred: anticoagulation failure.\n"
    "FINAL_ASSESSMENT: Acute PE despite therapeutic anticoagulation (INR 2.3).\n"
    "RISK_ADJUSTMENT: INCREASE\n"
    "CRITICAL_FINDINGS: [\"Anticoagulation failure\", \"PE on therapeutic warfarin\"]\n\n"
    "In the example each OBSERVATION came from the system; never write one yourself.\n";

// A list of strings from a JSON list, a JSON-looking string, or plain text.
Json FindingsList(const Json& value) {
  Json out = Json::array();
  if (value.is_array()) {
    for (const Json& item : value) {
      if (item.is_string() && !Trim(item.get<std::string>()).empty()) out.push_back(Trim(item.get<std::string>()));
    }
    return out;
  }
  if (!value.is_string()) return out;
  const std::string text = Trim(value.get<std::string>());
  if (text.empty() || Upper(text) == "NONE" || text == "[]") return out;
  if (text.front() == '[') {
    if (Result<Json> parsed = ParseJsonLenient(text); parsed.ok() && parsed->is_array()) return FindingsList(*parsed);
  }
  out.push_back(text);
  return out;
}

// "INCREASE" | "DECREASE" | "NONE" from a field's value; "" when it says nothing usable.
std::string AdjustmentWord(const Json& value) {
  if (!value.is_string()) return "";
  std::string word = Upper(Trim(value.get<std::string>()));
  // Small models decorate: "INCREASE (-1)", "**INCREASE**", "increase."
  word.erase(std::remove_if(word.begin(), word.end(), [](char c) { return c == '*' || c == '`' || c == '"'; }),
             word.end());
  for (const char* known : {"INCREASE", "DECREASE", "NONE"}) {
    if (word.rfind(known, 0) == 0) return known;
  }
  return "";
}

}  // namespace

TextProtocolOptions TriageTextProtocolOptions() {
  TextProtocolOptions options;
  options.final_markers = {"FINAL_ASSESSMENT", "FINAL_ANSWER"};
  options.final_fields = {
      {"RISK_ADJUSTMENT", "INCREASE, DECREASE or NONE", false},
      {"CRITICAL_FINDINGS", "a JSON list of short phrases, [] when none", true},
  };
  return options;
}

Status RegisterSubmitAssessment(ToolRegistry& registry) {
  ToolSpec spec{
      kSubmitAssessmentTool,
      "Submit the triage assessment and end the investigation. Call it once, when the record has "
      "been checked.",
      Json::parse(R"({"type": "object",
        "properties": {
          "final_assessment": {"type": "string", "minLength": 1,
            "description": "One or two sentences: what the record shows and why it matters, citing values found."},
          "risk_adjustment": {"type": "string", "enum": ["INCREASE", "DECREASE", "NONE"],
            "description": "INCREASE: the record makes the finding more urgent (e.g. a treatment failure); DECREASE: clearly less urgent; NONE otherwise."},
          "critical_findings": {"type": "array", "items": {"type": "string"},
            "description": "Short phrases such as \"Anticoagulation failure\"; empty when none."}},
        "required": ["final_assessment", "risk_adjustment", "critical_findings"],
        "additionalProperties": false})")};
  return registry.Register(MakeFunctionTool(std::move(spec), [](const Json& args, const ToolContext&) {
    return ToolResult::Ok(args.at("final_assessment").get<std::string>());
  }));
}

std::string TriageSystemPrompt(ToolCalling tool_calling, const std::vector<ToolSpec>& tools) {
  std::string prompt = kRole;
  if (tool_calling == ToolCalling::kTextProtocol) return prompt + kTextExample;
  prompt += "\n## Available tools\n\n";
  for (const ToolSpec& tool : tools) prompt += "- " + tool.name + ": " + tool.description + "\n";
  return prompt + kNativeFinish + kNativeExample;
}

Json NormalizeAssessment(const Json& fields, std::string_view answer) {
  Json in = Json::object();
  if (fields.is_object()) {
    for (auto it = fields.begin(); it != fields.end(); ++it) in[AsciiLower(it.key())] = it.value();
  }
  std::string assessment;
  if (auto it = in.find("final_assessment"); it != in.end() && it->is_string()) assessment = Trim(it->get<std::string>());
  std::string adjustment = in.contains("risk_adjustment") ? AdjustmentWord(in["risk_adjustment"]) : "";
  if (adjustment.empty() && !answer.empty()) {
    // A model that wrote the final block as prose (native) or in a form the
    // adapter did not take as final: read the block from the answer text.
    TextReply reply = ParseTextReply(answer, TriageTextProtocolOptions());
    if (reply.is_final) {
      for (auto it = reply.final_fields.begin(); it != reply.final_fields.end(); ++it) {
        const std::string key = AsciiLower(it.key());
        if (!in.contains(key)) in[key] = it.value();
      }
      adjustment = in.contains("risk_adjustment") ? AdjustmentWord(in["risk_adjustment"]) : "";
      if (assessment.empty()) assessment = Trim(reply.final_answer);
    }
  }
  Json out = in;
  out["final_assessment"] = assessment.empty() ? Trim(answer) : assessment;
  out["risk_adjustment"] = adjustment.empty() ? "NONE" : adjustment;
  out["critical_findings"] = in.contains("critical_findings") ? FindingsList(in["critical_findings"]) : Json::array();
  return out;
}

}  // namespace medreact
