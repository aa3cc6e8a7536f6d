#include "apps/triage/triage_prompts.h"

#include <algorithm>
#include <cctype>

#include "medreact/json_repair.h"
#include "medreact/tool.h"
#include "core/text_util.h"

namespace medreact {
namespace {

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
    "failure), DECREASE when it clearly makes it less urgent, NONE otherwise.\n"
    "- A DECREASE on an acute critical finding (acute PE, acute bleed, large vessel occlusion or "
    "acute infarct) needs a tool result showing the finding is known or old (a recorded condition, "
    "an earlier study); without one the priority is kept and the case goes to a person.\n"
    "- critical_findings name only drugs, values and conditions that the findings or a tool result "
    "contain.\n";

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

}  // namespace

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
            "description": "Short phrases such as \"Anticoagulation failure\"; empty when none."},
          "rule": {"type": "string",
            "description": "Optional: the silent-failure pattern that decided the adjustment (e.g. vte_anticoagulation)."},
          "rules_matched": {"type": "array", "items": {"type": "string"},
            "description": "Optional: every pattern that matched."},
          "sources": {"type": "array", "items": {"type": "string"},
            "description": "Optional: the guidelines or papers behind the adjustment."}},
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

}  // namespace medreact
