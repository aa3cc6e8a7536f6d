#include "apps/extract/extract_prompts.h"

#include "medreact/json_repair.h"
#include "medreact/tool.h"

namespace medreact {
namespace {

constexpr char kRole[] =
    "You are a clinical dietitian and information-extraction specialist. You extract structured information "
    "from clinical text into a JSON object that must validate against the schema the user gives.\n\n"
    "Tools (call them as often as you need, one step at a time):\n"
    "- query_rag(query, purpose): passages from the guideline library (ASPEN/AND pediatric malnutrition, WHO "
    "z-score cut-offs, GLIM adult malnutrition, score bands). Refine the query when the passages do not answer.\n"
    "- call_medical_function(function_name, parameters): calculations. Use it for every derived number: "
    "percentile_to_zscore, growth_zscore (WHO under 24 months, CDC 2000 from 24 months), "
    "interpret_zscore_malnutrition, body_mass_index and other calculators. Never compute a z-score or percentile "
    "in your head. Call it again for each measurement of serial data.\n"
    "- query_extras(keywords): short hints and rules of thumb for this kind of task.\n\n"
    "Workflow: read the text; decide what you need; call a tool; learn from the result; call more tools if the "
    "result shows you need them; when you have enough, answer.\n\n"
    "Rules:\n"
    "- Every value in the answer comes from the text or from a tool result. Never invent a measurement, a date or "
    "a citation; if the text does not document something, say so in the field (or use null where the schema "
    "allows it).\n"
    "- A single z-score is one indicator: a malnutrition diagnosis needs the criteria the guideline lists.\n"
    "- The label, when given, is context from the requester, not proof. Report what the text supports; if it "
    "disagrees with the label, say so in the answer's free-text field.\n"
    "- Cite the guideline passages you relied on (source file and heading) where the schema has room.\n";

constexpr char kNativeAnswer[] =
    "\nWhen you are ready, call submit_extraction with the JSON object as its `json` argument (or reply with the "
    "JSON object only: no prose before or after it, no code fence). It must validate against the schema; if it "
    "does not, you will be told what to fix.\n";

constexpr char kTextAnswer[] =
    "\nWhen you are ready, write your final block as\n"
    "THOUGHT: <why the extraction is complete>\n"
    "FINAL_JSON: <the JSON object, which must validate against the schema>\n";

}  // namespace

std::string ExtractionSystemPrompt(ToolCalling tool_calling) {
  return std::string(kRole) + (tool_calling == ToolCalling::kTextProtocol ? kTextAnswer : kNativeAnswer);
}

std::string ExtractionTaskMessage(const ExtractionTask& task) {
  std::string out = "Extract the information the schema asks for from the clinical text below.\n\n";
  if (!task.label.empty()) out += "LABEL (context from the requester): " + task.label + "\n\n";
  out += "CLINICAL TEXT:\n" + task.note + "\n\n";
  out += "OUTPUT SCHEMA (JSON Schema):\n" + DumpJson(task.schema, 2) + "\n";
  return out;
}

std::string ValidationFeedback(const std::vector<SchemaProblem>& problems) {
  return "Your JSON does not validate against the output schema: " + JoinSchemaProblems(problems) +
         ". Fix these fields (call tools first if you need information) and answer again with the whole corrected "
         "JSON object.";
}

std::string NoJsonFeedback(const std::string& why) {
  return "Your reply did not contain the JSON answer (" + why +
         "). Continue the extraction, calling tools as needed, and answer with the JSON object only.";
}

Status RegisterSubmitExtraction(ToolRegistry& registry) {
  ToolSpec spec{
      kSubmitExtractionTool,
      "Submit the extraction and end the task: the JSON object that validates against the output schema.",
      Json::parse(R"({"type": "object",
        "properties": {
          "json": {"type": "object",
            "description": "The whole extraction, a JSON object that validates against the output schema."},
          "notes": {"type": "array", "items": {"type": "string"},
            "description": "Optional: what the reader should know (assumptions, values the text does not give)."}},
        "required": ["json"],
        "additionalProperties": false})")};
  return registry.Register(MakeFunctionTool(std::move(spec), [](const Json& args, const ToolContext&) {
    return ToolResult::Ok(DumpJson(args.at("json"), 2));
  }));
}

Result<Json> ParseExtractionAnswer(std::string_view answer) {
  Result<Json> parsed = ParseJsonLenient(answer);
  if (!parsed.ok()) return Status::InvalidArgument("no JSON object found: " + parsed.status().message());
  if (!parsed->is_object()) {
    return Status::InvalidArgument("the answer is JSON but not an object (" + DescribeJsonValue(*parsed) + ")");
  }
  return parsed;
}

}  // namespace medreact
