// The app table. See app_table.h.
#include "service/app_table.h"

namespace medreact::service {
namespace {

// Small builders for the inputs' JSON Schemas (a subset app_inputs.cc checks:
// type, enum, minimum, maximum, minLength, minItems, items, required,
// additionalProperties; "format": "path" marks a file on the server).
Json Text(const std::string& description, bool non_empty = false) {
  Json j{{"type", "string"}, {"description", description}};
  if (non_empty) j["minLength"] = 1;
  return j;
}
Json Path(const std::string& description) {
  return {{"type", "string"}, {"format", "path"}, {"description", description}};
}
Json Integer(const std::string& description, int64_t low, int64_t high) {
  return {{"type", "integer"}, {"minimum", low}, {"maximum", high}, {"description", description}};
}
Json Flag(const std::string& description) { return {{"type", "boolean"}, {"description", description}}; }
Json Texts(const std::string& description, const Json& items = {{"type", "string"}}) {
  return {{"type", "array"}, {"items", items}, {"description", description}};
}
Json Planner() {
  return {{"type", "string"},
          {"enum", {"auto", "model", "rules"}},
          {"description", "who plans: the model, the app's rules (offline, deterministic), or auto (the model when the "
                          "server has one). Default: auto"}};
}
Json Rules(const std::string& which) {
  return Texts("approval rules: the calls that wait for a person's decision (" + which +
               "); a waiting call pauses the run (awaiting_approval). Default: none");
}
Json Schema(const std::string& title, const Json& properties, const Json& required) {
  return {{"$schema", "http://json-schema.org/draft-07/schema#"},
          {"title", title},
          {"type", "object"},
          {"properties", properties},
          {"required", required},
          {"additionalProperties", false}};
}

Json ChatSchema() {
  return Schema(
      "chat inputs",
      {{"message", Text("the question or task", true)},
       {"packs", Texts("tool packs: util, finish, fhir, calc, growth, rag, literature (literature only when the "
                       "server allows network tools). Default: [\"util\"]")},
       {"fhir", Path("a FHIR R4 record (Bundle JSON or NDJSON) for the fhir pack")},
       {"fhir_url", Text("a FHIR R4 server's base URL to read the patient from instead of fhir (with patient; only "
                         "when the server allows network tools)", true)},
       {"patient", Text("the patient's id on the fhir_url server", true)},
       {"as_of", Text("YYYY-MM-DD used as now by the fhir pack. Default: the record's latest clinical date")},
       {"corpus_dir", Path("a guideline folder for the rag pack's query_rag")},
       {"extras", Path("a hints file (JSON) for the rag pack's query_extras")},
       {"system_prompt", Text("the system prompt's text. Default: the agent's")},
       {"max_steps", Integer("model turns. Default: 20", 1, 200)},
       {"images", Texts("images for a vision model: PNG, JPEG or DICOM files", Path("an image file"))},
       {"require_approval", Rules("all, network, pack:NAME, tool:NAME")},
       {"stream", Flag("stream the model's text (model_delta events). Default: false")}},
      {"message"});
}

Json TriageSchema() {
  return Schema("triage inputs",
                {{"fhir", Path("the patient's FHIR R4 record (Bundle JSON or NDJSON); or fhir_url with patient")},
                 {"fhir_url", Text("a FHIR R4 server's base URL to read the patient from (with patient; only when the "
                                   "server allows network tools)", true)},
                 {"patient", Text("the patient's id on the fhir_url server", true)},
                 {"findings", Text("the imaging findings", true)},
                 {"base_priority", Integer("the base priority (1 most urgent). Default: from the findings", 1, 3)},
                 {"as_of", Text("YYYY-MM-DD used as now. Default: the record's latest clinical date")},
                 {"planner", Planner()},
                 {"max_steps", Integer("model turns of the investigation. Default: 10", 1, 100)}},
                {"findings"});
}

Json ExtractSchema() {
  return Schema(
      "extract inputs (the note as `note` or `note_path`, the schema as `schema` or `schema_path`: one of each)",
      {{"note", Text("the clinical note's text", true)},
       {"note_path", Path("the clinical note's file (a run from a file can be resumed after a crash)")},
       {"schema", {{"type", "object"}, {"description", "the JSON Schema to fill"}}},
       {"schema_path", Path("the JSON Schema's file")},
       {"label", Text("context from the requester, e.g. an expected diagnosis (not proof)")},
       {"planner", Planner()},
       {"max_iterations", Integer("model turns over the whole extraction. Default: 20", 1, 200)}},
      Json::array());
}

Json CxrSchema() {
  return Schema("cxr inputs",
                {{"question", Text("the question about the images", true)},
                 {"images", [] {
                    Json j = Texts("chest X-rays: PNG, JPEG or DICOM files (at least one, unless the question "
                                   "continues an earlier run)",
                                   Path("an image file"));
                    j["minItems"] = 1;
                    return j;
                  }()},
                 {"continues", Text("the id of an earlier cxr run this question goes on from: its conversation and "
                                    "images (a follow-up question, or the answer to the agent's clarifying "
                                    "question); images given here are added to them",
                                    true)},
                 {"planner", Planner()},
                 {"max_steps", Integer("model turns. Default: 12", 1, 100)},
                 {"require_approval", Rules("all, network, tool:NAME")},
                 {"stream", Flag("stream the model's text (model_delta events). Default: false")}},
                {"question"});
}

Json ResearchSchema() {
  return Schema(
      "research inputs",
      {{"question", Text("the research question", true)},
       {"sources", Texts("the literature services. Default: all three",
                         {{"type", "string"}, {"enum", {"pubmed", "trials", "preprints"}}})},
       {"max_rounds", Integer("search and judge rounds. Default: 5", 1, 100)},
       {"results", Integer("records per search the rules planner asks for. Default: 5", 1, 50)},
       {"token_budget", Integer("tokens over the whole research; 0 = none. Default: 50000", 0, 1'000'000'000)},
       {"planner", Planner()},
       {"online", Flag("reach the literature services (only when the server allows network tools); else answer "
                       "from the literature cache. Default: false")},
       {"replay", Path("recorded literature responses (JSON lines) imported into the server's literature cache "
                       "first")},
       {"require_approval", Rules("all, network, pack:literature, tool:NAME over the search tools")}},
      {"question"});
}

}  // namespace

const std::vector<AppRow>& AppTable() {
  static const std::vector<AppRow> table = {
      {.name = "chat",
       .summary = "the general agent (seed 004): any tool packs, any question",
       .resumable = true,
       .waits_for_approval = true,
       .inputs_schema = ChatSchema()},
      {.name = "triage",
       .summary = "CT triage over a FHIR record (seed 001): silent failures",
       .resumable = true,
       .inputs_schema = TriageSchema()},
      {.name = "extract",
       .summary = "a JSON Schema filled from a clinical note (seed 002)",
       .resumable = true,
       .inputs_schema = ExtractSchema()},
      {.name = "cxr",
       .summary = "the chest X-ray agent on the graph runner (seed 000)",
       .resumable = true,
       .waits_for_approval = true,  // service/cxr_runs.h: checkpoints per graph node, images by hash
       .inputs_schema = CxrSchema()},
      {.name = "research",
       .summary = "multi-agent literature research (seed 003)",
       .resumable = true,
       .waits_for_approval = true,  // from the checkpoint after its last agent's turn; searches may wait (service/research_runs.h)
       .inputs_schema = ResearchSchema()},
  };
  return table;
}

const AppRow* FindApp(const std::string& app) {
  for (const AppRow& row : AppTable()) {
    if (row.name == app) return &row;
  }
  return nullptr;
}

}  // namespace medreact::service
