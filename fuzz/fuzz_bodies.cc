// Fuzz target bodies: see fuzz_bodies.h. Each body runs a parser of untrusted
// text and what its callers do next with a success; only a broken promise of
// the code (stated in the header named next to the check) aborts.

#include "fuzz/fuzz_bodies.h"

#include <sqlite3.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apps/extract/note_facts.h"
#include "apps/extract/schema_fill.h"
#include "apps/research/research_report.h"
#include "apps/triage/findings_lexicon.h"
#include "apps/triage/findings_reader.h"
#include "apps/triage/safety_floor.h"
#include "apps/triage/triage_policy.h"
#include "apps/triage/triage_prompts.h"
#include "core/otel.h"
#include "eval/csv.h"
#include "tools/imaging/dicom_image.h"
#include "tools/imaging/image_codec.h"
#include "tools/imaging/imaging_client.h"
#include "store/run_store.h"
#include "medreact/run_state.h"
#include "eval/py_literal.h"
#include "medreact/json.h"
#include "medreact/json_repair.h"
#include "medreact/json_schema.h"
#include "medreact/model.h"
#include "medreact/openai.h"
#include "medreact/text_protocol.h"
#include "mockllm/mock_response.h"
#include "mockllm/mock_script.h"
#include "server/multipart.h"
#include "tools/fhir/fhir_store.h"
#include "tools/fhir/fhir_tools.h"
#include "tools/literature/clinical_trials.h"
#include "tools/literature/europepmc.h"
#include "tools/literature/literature_pack.h"
#include "tools/literature/pubmed.h"

namespace medreact::fuzz {
namespace {

std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// An invariant the code promises is broken: say which, then crash so that
// libFuzzer (or the regression test) reports the input.
[[noreturn]] void Violated(const char* target, const char* what) {
  std::fprintf(stderr, "fuzz %s: invariant violated: %s\n", target, what);
  std::fflush(stderr);
  std::abort();
}

// json.h: DumpJson "never throws" and its text is JSON; a value that came from a
// parse must survive dump -> parse unchanged (compared as canonical text).
void CheckRoundTrip(const char* target, const Json& value) {
  std::string canonical = CanonicalJson(value);
  Result<Json> again = ParseJson(canonical);
  if (!again.ok()) Violated(target, "CanonicalJson of a parsed value does not parse");
  if (CanonicalJson(*again) != canonical) Violated(target, "dump -> parse -> dump changed the value");
  Result<Json> pretty = ParseJson(DumpJson(value, 2));
  if (!pretty.ok()) Violated(target, "DumpJson(value, 2) of a parsed value does not parse");
}

// Text that DumpJson produced from any Json must parse (json.h: invalid UTF-8
// is replaced, so the output is always valid JSON).
void CheckDumpParses(const char* target, const Json& value) {
  if (!ParseJson(DumpJson(value)).ok()) Violated(target, "DumpJson output does not parse");
}

// A tiny deterministic generator for input-chosen split points.
struct Lcg {
  uint32_t state;
  uint32_t Next() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  }
};

}  // namespace

// --- json ------------------------------------------------------------------

int FuzzJson(const uint8_t* data, size_t size) {
  Result<Json> parsed = ParseJson(AsText(data, size));
  if (!parsed.ok()) return 0;
  CheckRoundTrip("json", *parsed);
  (void)Preview(DumpJson(*parsed), 40);
  return 0;
}

// --- json_repair -----------------------------------------------------------

int FuzzJsonRepair(const uint8_t* data, size_t size) {
  std::string_view text = AsText(data, size);
  Result<Json> lenient = ParseJsonLenient(text);
  if (lenient.ok()) CheckRoundTrip("json_repair", *lenient);
  std::string stripped = StripJsonDecoration(text);
  (void)ParseJson(RepairJson(text));
  (void)ParseJson(RepairJson(stripped));
  return 0;
}

// --- text_protocol ---------------------------------------------------------

namespace {

void CheckTextReply(const TextReply& reply) {
  CheckDumpParses("text_protocol", reply.final_fields);
  for (const ToolCall& call : reply.tool_calls) {
    if (call.id.empty()) Violated("text_protocol", "a parsed tool call has no id (text_protocol.h: ids minted)");
    (void)ParseJson(call.arguments);
  }
}

}  // namespace

int FuzzTextProtocol(const uint8_t* data, size_t size) {
  std::string_view text = AsText(data, size);
  static const TextProtocolOptions kDefault;
  static const ToolSpec kSubmit = [] {
    ToolRegistry registry;
    if (!RegisterSubmitAssessment(registry).ok()) std::abort();
    return registry.Specs().front();
  }();
  static const TextProtocolOptions kTriage = FinalBlockOptions(kSubmit);

  CheckTextReply(ParseTextReply(text, kDefault));

  TextReply triage = ParseTextReply(text, kTriage);
  CheckTextReply(triage);
  // What a triage run does with a reply (text_protocol.h, triage_policy.h):
  // the final block read as submit_assessment's arguments, an object however
  // the text is written; the triage result built from them has one of three
  // risk words and a list of strings.
  const Json assessment = ReadFinalBlock(text, kSubmit);
  if (!assessment.is_object()) Violated("text_protocol", "ReadFinalBlock did not return an object");
  if (triage.is_final) {
    const Json args = FinalBlockArguments(triage, kSubmit, kTriage);
    if (!args.is_object()) Violated("text_protocol", "FinalBlockArguments did not return an object");
  }
  RunResult run;
  run.status = RunStatus::kFinished;
  run.answer = "x";
  run.final_fields = assessment;
  const OrderedJson result = BuildTriageResult("p", "PE", 2, "", &run);
  const OrderedJson& risk = result["agent_reasoning"]["risk_adjustment"];
  if (!risk.is_string() || (risk != "INCREASE" && risk != "DECREASE" && risk != "NONE")) {
    Violated("text_protocol", "the triage result's risk_adjustment is not INCREASE|DECREASE|NONE");
  }
  const OrderedJson& critical = result["agent_reasoning"]["critical_findings"];
  if (!critical.is_array()) Violated("text_protocol", "the triage result's critical_findings is not a list");
  for (const OrderedJson& item : critical) {
    if (!item.is_string()) Violated("text_protocol", "the triage result's critical_findings holds a non-string");
  }
  CheckDumpParses("text_protocol", assessment);
  return 0;
}

// --- sse -------------------------------------------------------------------

namespace {

struct StreamOutcome {
  Result<ModelResponse> response = Status::Internal("not run");
  std::string streamed_text;
};

// Feeds `pieces` as the client does: stop at the first false, then Finish().
StreamOutcome RunStream(const std::vector<std::string_view>& pieces) {
  StreamOutcome out;
  StreamAccumulator acc;
  acc.set_on_text([&out](std::string_view t) { out.streamed_text.append(t); });
  for (std::string_view piece : pieces) {
    if (!acc.Feed(piece)) break;
  }
  (void)acc.error();
  (void)acc.done();
  out.response = acc.Finish();
  return out;
}

}  // namespace

// Input: two bytes choosing the split (max piece length, generator seed), then
// the SSE body. openai.h: Feed() accepts "any split", so the split stream must
// give what the whole stream gives.
int FuzzSse(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  size_t max_piece = (data[0] & 63u) + 1;
  Lcg rng{data[1]};
  std::string_view body = AsText(data + 2, size - 2);

  std::vector<std::string_view> pieces;
  for (size_t at = 0; at < body.size();) {
    size_t n = std::min<size_t>(1 + rng.Next() % max_piece, body.size() - at);
    pieces.push_back(body.substr(at, n));
    at += n;
  }
  StreamOutcome split = RunStream(pieces);
  StreamOutcome whole = RunStream({body});

  if (split.response.ok() != whole.response.ok()) Violated("sse", "split and whole stream disagree on success");
  if (split.streamed_text != whole.streamed_text) Violated("sse", "split and whole stream streamed different text");
  if (!split.response.ok()) return 0;
  const ModelResponse& a = *split.response;
  const ModelResponse& b = *whole.response;
  if (a.message.content != b.message.content || a.finish_reason != b.finish_reason || a.model != b.model ||
      a.usage.prompt_tokens != b.usage.prompt_tokens || a.usage.completion_tokens != b.usage.completion_tokens ||
      a.message.tool_calls.size() != b.message.tool_calls.size()) {
    Violated("sse", "split and whole stream built different replies");
  }
  for (size_t i = 0; i < a.message.tool_calls.size(); ++i) {
    if (a.message.tool_calls[i].name != b.message.tool_calls[i].name ||
        a.message.tool_calls[i].arguments != b.message.tool_calls[i].arguments) {
      Violated("sse", "split and whole stream built different tool calls");
    }
  }
  // The client sends the reply back as history: that body must be JSON.
  ModelRequest request;
  request.messages = {Message{.role = Role::kUser, .content = "q"}, a.message};
  CheckDumpParses("sse", BuildChatCompletionsBody(request, "m"));
  return 0;
}

// --- chat_completion -------------------------------------------------------

int FuzzChatCompletion(const uint8_t* data, size_t size) {
  Result<Json> body = ParseJson(AsText(data, size));
  if (!body.ok()) return 0;
  Result<ModelResponse> response = ParseChatCompletion(*body);
  if (!response.ok()) return 0;
  for (const ToolCall& call : response->message.tool_calls) {
    if (call.id.empty()) Violated("chat_completion", "a tool call has no id (openai.h: ids minted when missing)");
  }
  // The reply goes back to the server as history (openai.h: always valid).
  ModelRequest request;
  request.messages = {Message{.role = Role::kUser, .content = "q"}, response->message};
  for (const ToolCall& call : response->message.tool_calls) {
    request.messages.push_back(
        Message{.role = Role::kTool, .content = "ok", .tool_call_id = call.id, .name = call.name});
  }
  CheckDumpParses("chat_completion", BuildChatCompletionsBody(request, "m"));
  return 0;
}

// --- fhir ------------------------------------------------------------------

int FuzzFhir(const uint8_t* data, size_t size) {
  std::string_view text = AsText(data, size);
  Result<Json> document = ParseJson(text);
  Result<FhirStore> loaded = document.ok() ? FhirStore::FromJson(*document, "fuzz")
                                           : FhirStore::FromNdjson(text, "fuzz");
  if (!loaded.ok()) return 0;
  auto store = std::make_shared<FhirStore>(std::move(loaded).value());

  (void)store->ResourceCounts();
  (void)store->as_of_date();
  (void)store->patient();
  size_t resolved = 0;
  for (const Json& resource : store->resources()) {
    if (++resolved > 64) break;
    if (!resource.is_object()) continue;
    auto id = resource.find("id");
    auto type = resource.find("resourceType");
    if (id != resource.end() && type != resource.end() && id->is_string() && type->is_string()) {
      (void)store->Resolve(type->get<std::string>() + "/" + id->get<std::string>());
    }
  }
  (void)store->Resolve("urn:uuid:x");
  (void)store->Resolve("Patient/");

  fhir_tools::Shared shared{store, fhir_tools::BuildIndex(*store)};
  const auto check = [](const ToolResult& result) {
    // fhir_tools.cc answers with ToolResult::OkJson: content is JSON.
    if (result.ok && !ParseJson(result.content).ok()) Violated("fhir", "a fhir tool's ok content is not JSON");
  };
  check(fhir_tools::RunManifest(shared));
  check(fhir_tools::RunSearchHistory(shared, Json{{"query", "a"}}));
  check(fhir_tools::RunRecentLabs(shared, Json{{"category", "Coag"}, {"lookback_days", 36500}}));
  check(fhir_tools::RunRecentLabs(shared, Json{{"category", "Renal"}}));
  check(fhir_tools::RunMedicationStatus(shared, Json{{"medication_name", "anticoag"}}));
  check(fhir_tools::RunVitalSigns(shared, Json{{"lookback_days", 36500}}));
  check(fhir_tools::RunAllergies(shared, Json::object()));
  check(fhir_tools::RunImagingHistory(shared));
  return 0;
}

// --- schema ----------------------------------------------------------------

int FuzzSchema(const uint8_t* data, size_t size) {
  Result<Json> document = ParseJson(AsText(data, size));
  if (!document.ok()) return 0;
  Result<JsonSchema> schema = JsonSchema::Compile(*document);
  if (!schema.ok()) return 0;
  static const Json kValues[] = {
      nullptr, true, 0, -1, 1.5, "", "abc", "2024-01-31", Json::array(), Json::array({1, "a", nullptr}),
      Json::object(), Json{{"a", 1}, {"b", "x"}}, Json{{"type", "object"}, {"properties", Json::object()}},
  };
  for (const Json& value : kValues) {
    (void)JoinSchemaProblems(schema->Validate(value));
  }
  (void)JoinSchemaProblems(schema->Validate(*document));
  (void)DescribeJsonValue(*document);
  return 0;
}

// --- py_literal ------------------------------------------------------------

int FuzzPyLiteral(const uint8_t* data, size_t size) {
  Result<Json> value = eval::ParsePyLiteral(AsText(data, size));
  if (value.ok()) CheckDumpParses("py_literal", *value);
  return 0;
}

// --- csv -------------------------------------------------------------------

int FuzzCsv(const uint8_t* data, size_t size) {
  std::string_view text = AsText(data, size);
  (void)eval::ParseCsvRecords(text);
  Result<eval::CsvTable> table = eval::ParseCsv(text);
  if (!table.ok()) return 0;
  for (const eval::CsvRecord& row : table->rows) {
    // csv.h: "every further record must have as many fields" as the header.
    if (row.fields.size() != table->header.size()) Violated("csv", "a row's field count differs from the header's");
    if (!table->header.empty()) (void)table->Field(row, table->header.front());
  }
  (void)table->Column("Calculator ID");
  return 0;
}

// --- mock_script -----------------------------------------------------------

int FuzzMockScript(const uint8_t* data, size_t size) {
  Result<Json> document = ParseJson(AsText(data, size));
  if (!document.ok()) return 0;
  Result<mockllm::MockScript> script = mockllm::ParseMockScript(*document);
  if (!script.ok()) return 0;
  // What the server does with an entry: render it as JSON and as SSE frames.
  const Json request = {{"model", "m"}, {"stream", true}, {"messages", Json::array()}};
  int64_t sequence = 0;
  for (const mockllm::MockEntry& entry : script->responses) {
    if (++sequence > 16) break;
    if (entry.kind == mockllm::MockEntry::Kind::kMessage) {
      // mock_response.h: a completion body is one chat.completion JSON document.
      Result<Json> body = ParseJson(mockllm::CompletionBody(entry, request, sequence));
      if (!body.ok()) Violated("mock_script", "CompletionBody is not JSON");
      (void)ParseChatCompletion(*body);
    }
    if (entry.kind == mockllm::MockEntry::Kind::kMessage || entry.kind == mockllm::MockEntry::Kind::kChunks) {
      StreamAccumulator acc;
      for (const std::string& frame : mockllm::StreamFrames(entry, request, sequence)) {
        if (!acc.Feed(frame)) break;
      }
      (void)acc.Finish();
    }
  }
  return 0;
}

// --- note_facts ------------------------------------------------------------

namespace {

void CheckFinite(const std::optional<double>& value, const char* what) {
  if (value && !std::isfinite(*value)) Violated("note_facts", what);
}

}  // namespace

// A clinical note (extraction's input). note_facts.h: numbers are read with
// their units and bounded digits, so every fact is a finite number; a weight
// or height is positive.
int FuzzNoteFacts(const uint8_t* data, size_t size) {
  const std::string_view text = AsText(data, size);
  const NoteFacts f = ReadNoteFacts(text);
  CheckFinite(f.age_months, "age_months is not finite");
  CheckFinite(f.weight_kg, "weight_kg is not finite");
  CheckFinite(f.height_cm, "height_cm is not finite");
  CheckFinite(f.bmi, "bmi is not finite");
  CheckFinite(f.weight_loss_percent, "weight_loss_percent is not finite");
  if (f.age_months && *f.age_months < 0) Violated("note_facts", "a negative age");
  (void)f.population();
  (void)IndicatorNamedIn(text);
  const std::string name(text.substr(0, 200));
  (void)FieldIndicator(name, Json{{"type", "number"}, {"description", std::string(text.substr(0, 400))}});
  return 0;
}

// --- findings ----------------------------------------------------------------

// Radiology findings (triage's input). findings_reader.h: every mention lies
// inside the text and quotes it; the base priority is a tier 1..3.
int FuzzFindings(const uint8_t* data, size_t size) {
  const std::string_view text = AsText(data, size);
  const FindingsReader reader(text);
  for (const FindingConcept* finding : {&PulmonaryEmbolism(), &VenousThrombosis(), &ThrombusUnnamedSite(),
                                        &IschemicStroke(), &LargeVesselOcclusion(), &TransientIschemicAttack(),
                                        &SubduralHematoma(), &EpiduralHematoma(), &SubarachnoidHemorrhage(),
                                        &IntracranialHemorrhage(), &OtherBleeding()}) {
    for (const FindingMention& m : reader.Read(*finding)) (void)DescribeMention(m);
  }
  (void)reader.Read("pe");
  std::string why;
  const int priority = BasePriorityFromFindings(text, &why);
  if (priority < 1 || priority > 3) Violated("findings", "BasePriorityFromFindings outside 1..3");
  (void)MentionsAffirmed(text, "thrombus");
  (void)reader.LimitedSentences(PulmonaryArteryContext());
  // The safety floor (safety_floor.h) over the text as findings, as a tool
  // result and as a model's critical finding: the floor never lowers a
  // priority and stays in 1..3.
  RunResult run;
  StepRecord step;
  step.tool_results = {{"c1", "search_clinical_history", true, std::string(text), "", 0}};
  run.trace.steps.push_back(step);
  const ReaderFloor floor = AcuteCriticalFloor(text);
  (void)SupportingEvidence(run, floor);
  for (int adjusted = 1; adjusted <= 3; ++adjusted) {
    const SafetyReview review = ReviewModelDecision(text, adjusted, "DECREASE", run, {std::string(text)});
    if (review.priority < 1 || review.priority > adjusted) Violated("findings", "the safety floor lowered a priority");
  }
  return 0;
}

// --- literature --------------------------------------------------------------

namespace {

// evidence.h: every record a parser returns has an id, and survives
// EvidenceToJson -> text -> EvidenceFromJson with the same id.
void CheckEvidence(const std::vector<Evidence>& evidence) {
  for (const Evidence& e : evidence) {
    if (e.id.empty()) Violated("literature", "a parsed record has no id");
    Result<Json> text = ParseJson(DumpJson(EvidenceToJson(e)));
    if (!text.ok()) Violated("literature", "EvidenceToJson output does not parse");
    Result<Evidence> back = EvidenceFromJson(*text);
    if (!back.ok() || back->id != e.id) Violated("literature", "EvidenceFromJson(EvidenceToJson(e)) lost the record");
  }
  (void)FormatSearchResults("fuzz", "q", {.evidence = evidence});
  (void)FormatBibliography(evidence);
}

}  // namespace

int FuzzLiterature(const uint8_t* data, size_t size) {
  const std::string_view text = AsText(data, size);
  (void)ParseEsearch(text);
  if (Result<std::vector<Evidence>> r = ParsePubmedXml(text); r.ok()) CheckEvidence(*r);
  if (Result<CtgovPage> r = ParseCtgovStudies(text); r.ok()) CheckEvidence(r->evidence);
  if (Result<Evidence> r = ParseCtgovStudy(text); r.ok()) CheckEvidence({*r});
  if (Result<EuropePmcPage> r = ParseEuropePmcSearch(text); r.ok()) CheckEvidence(r->evidence);
  return 0;
}

// --- dicom -----------------------------------------------------------------

int FuzzDicom(const uint8_t* data, size_t size) {
  Result<imaging::DicomFile> file = imaging::DicomFile::Parse(AsText(data, size), "fuzz.dcm");
  if (!file.ok()) return 0;
  for (bool keep_phi : {false, true}) {
    Result<Json> metadata = file->Metadata({.keep_phi = keep_phi});
    if (metadata.ok() && !metadata->is_object()) Violated("dicom", "metadata is not a JSON object");
  }
  Result<imaging::RenderedFrame> frame = file->RenderFirstFrame();
  if (!frame.ok()) return 0;
  // dicom_image.h: pixels are width × height × channels bytes.
  if (frame->pixels.size() != static_cast<size_t>(frame->width) * frame->height * frame->channels) {
    Violated("dicom", "a rendered frame's pixel count differs from its sizes");
  }
  if (!imaging::EncodePng(*frame).ok()) Violated("dicom", "a rendered frame does not encode as PNG");
  return 0;
}

// --- image -----------------------------------------------------------------

// image_codec.h: a decoded raster is valid(), encodes as PNG, and downscales to
// a valid raster; base64 decodes what it encodes. Limits far below the
// defaults keep one input from asking for hundreds of MB (their check is
// covered by the unit tests).
int FuzzImage(const uint8_t* data, size_t size) {
  const std::string_view bytes = AsText(data, size);
  const imaging::ImageLimits limits{.max_side = 4096, .max_pixels = 4'000'000};
  (void)imaging::SniffFormat(bytes);
  (void)imaging::PeekPngSize(bytes);
  (void)imaging::PeekJpegSize(bytes);
  for (bool png : {true, false}) {
    Result<imaging::Raster> raster =
        png ? imaging::DecodePng(bytes, "fuzz.png", limits) : imaging::DecodeJpeg(bytes, "fuzz.jpg", limits);
    if (!raster.ok()) continue;
    if (!raster->valid()) Violated("image", "a decoded raster is not valid()");
    if (!imaging::EncodePng(*raster).ok()) Violated("image", "a decoded raster does not encode as PNG");
    if (!imaging::Downscale(*raster, 17).valid()) Violated("image", "a downscaled raster is not valid()");
  }
  (void)imaging::Base64Decode(bytes);
  Result<std::string> back = imaging::Base64Decode(imaging::Base64Encode(bytes));
  if (!back.ok() || *back != bytes) Violated("image", "Base64Decode(Base64Encode(x)) != x");
  return 0;
}

// --- research_report ---------------------------------------------------------

// A report agent's markdown and a bibliography (research_report.h). Input:
// bibliography lines, a line "----", the markdown (no such line: the whole
// input is the markdown, over a fixed four-entry bibliography). Promises of
// NumberInCitationOrder: every listed reference is a bibliography entry,
// listed once; references_cited is 1..K for the K cited.
int FuzzResearchReport(const uint8_t* data, size_t size) {
  const std::string_view text = AsText(data, size);
  const size_t cut = text.find("\n----\n");
  const std::string bibliography = cut == std::string_view::npos
                                       ? std::string("[1] A. http://a\n[2] B. http://b\n[3] C.\n[4] D. http://d\n")
                                       : std::string(text.substr(0, cut));
  const std::string markdown(cut == std::string_view::npos ? text : text.substr(cut + 6));
  const std::map<int, std::string> entries = BibliographyEntries(bibliography);
  ResearchReport report{.findings = {markdown.substr(0, 300)}, .markdown = markdown};
  for (int n : CitedReferenceNumbers(markdown)) {
    if (report.references_cited.size() < 64) report.references_cited.push_back(n);
  }
  (void)CheckReportReferences(report, entries.size());
  const VancouverReport v = NumberInCitationOrder(report, bibliography, size % 2 == 0);
  std::set<int> listed;
  for (const std::vector<int>* list : {&v.bibliography_numbers, &v.uncited_numbers}) {
    for (int m : *list) {
      if (!entries.count(m)) Violated("research_report", "a listed reference is not in the bibliography");
      if (!listed.insert(m).second) Violated("research_report", "a reference is listed twice");
    }
  }
  if (v.report.references_cited.size() != v.bibliography_numbers.size()) {
    Violated("research_report", "references_cited does not count the cited references");
  }
  for (size_t k = 0; k < v.report.references_cited.size(); ++k) {
    if (v.report.references_cited[k] != static_cast<int>(k) + 1) {
      Violated("research_report", "references_cited is not 1..K");
    }
  }
  (void)WithFailedSearches(markdown, {FailedSearch{.round = 1, .tool = "search_pubmed", .source = "PubMed",
                                                   .query = markdown.substr(0, 60), .error = "PubMed error"}});
  return 0;
}

// --- imaging_reply -----------------------------------------------------------

namespace {

// The image the replies are read against: 24 × 16 grey (masks must have its size).
const imaging::StoredImage& ReplyImage() {
  static const imaging::StoredImage image = [] {
    imaging::StoredImage im;
    im.id = "img1";
    im.raster.width = 24;
    im.raster.height = 16;
    im.raster.channels = 1;
    im.raster.pixels.assign(24 * 16, 128);
    Result<std::string> png = imaging::EncodePng(im.raster);
    if (png.ok()) im.png = *png;
    return im;
  }();
  return image;
}

bool IsProbability(double p) { return std::isfinite(p) && p >= 0 && p <= 1; }

}  // namespace

int FuzzImagingReply(const uint8_t* data, size_t size) {
  Result<Json> reply = ParseJson(AsText(data, size));
  if (!reply.ok()) return 0;
  const imaging::StoredImage& image = ReplyImage();
  const double width = image.raster.width, height = image.raster.height;
  if (Result<imaging::Classification> c = imaging::ReadClassificationReply(*reply); c.ok()) {
    if (c->labels.empty()) Violated("imaging_reply", "a classification without labels was accepted");
    std::set<std::string> labels;
    for (const imaging::LabelProbability& l : c->labels) {
      if (!IsProbability(l.probability)) Violated("imaging_reply", "a probability outside [0, 1] was accepted");
      if (!labels.insert(l.label).second) Violated("imaging_reply", "a label given twice was accepted");
    }
  }
  if (Result<imaging::Segmentation> seg = imaging::ReadSegmentationReply(*reply, image); seg.ok()) {
    for (const imaging::StructureMask& m : seg->structures) {
      if (!m.mask.valid() || m.mask.width != image.raster.width || m.mask.height != image.raster.height) {
        Violated("imaging_reply", "a mask not of the image's size was accepted");
      }
    }
  }
  if (Result<imaging::Grounding> g = imaging::ReadGroundingReply(*reply, image); g.ok()) {
    for (const imaging::Box& b : g->boxes) {
      if (!(b.x0 >= 0 && b.x0 < b.x1 && b.x1 <= width && b.y0 >= 0 && b.y0 < b.y1 && b.y1 <= height)) {
        Violated("imaging_reply", "a box outside the image, or empty, was accepted");
      }
      if (b.score && !IsProbability(*b.score)) Violated("imaging_reply", "a box score outside [0, 1] was accepted");
    }
  }
  return 0;
}

// --- run_state -----------------------------------------------------------------

namespace {

// One run store in a private temp folder for the whole fuzzing process, with
// one run whose checkpoint holds two messages and one step; each input
// replaces one of the checkpoint's stored texts, then puts it back.
struct StateStore {
  std::string folder;
  std::unique_ptr<RunStore> store;
  sqlite3* raw = nullptr;  // a second connection: what a damaged file would hold
  std::vector<std::string> good;  // the stored texts, by column below
  ~StateStore() {
    if (raw) sqlite3_close(raw);
    store.reset();
    std::error_code ec;
    if (!folder.empty()) std::filesystem::remove_all(folder, ec);
  }
};

// The texts an input may replace: the state header, a message, a step, the trace input.
constexpr const char* kStateColumns[][2] = {
    {"UPDATE checkpoints SET state = ?1 WHERE run_id = 'run_fuzz'", "SELECT state FROM checkpoints"},
    {"UPDATE messages SET message = ?1 WHERE run_id = 'run_fuzz' AND idx = 2",
     "SELECT message FROM messages WHERE idx = 2"},
    {"UPDATE steps SET record = ?1 WHERE run_id = 'run_fuzz' AND idx = 1", "SELECT record FROM steps WHERE idx = 1"},
    {"UPDATE checkpoints SET trace_input = ?1 WHERE run_id = 'run_fuzz'", "SELECT trace_input FROM checkpoints"},
};

void SetText(sqlite3* db, const char* sql, std::string_view text) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) Violated("run_state", "an update did not prepare");
  sqlite3_bind_text(stmt, 1, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  const int rc = sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE || sqlite3_changes(db) != 1) Violated("run_state", "an update of the checkpoint failed");
}

// Made once; closed and removed by an exit handler registered once the
// store is open, so that it runs before the statics the store's own code
// made on the way (its owner registry) are destroyed.
StateStore* g_state_store = nullptr;

StateStore& FuzzStateStore() {
  static const bool ready = [] {
    g_state_store = new StateStore;
    StateStore& out = *g_state_store;
    char folder[] = "/tmp/medreact-fuzz-run-state-XXXXXX";
    if (!mkdtemp(folder)) Violated("run_state", "no temp folder");
    out.folder = folder;
    const std::string path = std::string(folder) + "/runs.sqlite";
    Result<std::unique_ptr<RunStore>> store = RunStore::Open(path);
    if (!store.ok()) Violated("run_state", "the store did not open");
    out.store = std::move(*store);
    RunState state;
    state.trace.run_id = "run_fuzz";
    state.trace.input = Json{{"message", "What is 2+2?"}};
    state.messages = {Message::System("You are a test."), Message::User("What is 2+2?")};
    StepRecord step;
    step.index = 1;
    step.assistant = Message::Assistant("4");
    state.trace.steps.push_back(step);
    state.step = 1;
    if (!out.store->CreateRun({.id = "run_fuzz", .app = "chat"}, &state).ok()) Violated("run_state", "no run");
    if (sqlite3_open_v2(path.c_str(), &out.raw, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      Violated("run_state", "the second connection did not open");
    }
    sqlite3_busy_timeout(out.raw, 5000);
    for (const auto& column : kStateColumns) {
      sqlite3_stmt* stmt = nullptr;
      std::string text;
      if (sqlite3_prepare_v2(out.raw, column[1], -1, &stmt, nullptr) == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW &&
          sqlite3_column_text(stmt, 0)) {
        text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
      }
      sqlite3_finalize(stmt);
      out.good.push_back(text);
    }
    if (!out.store->LatestState("run_fuzz").ok()) Violated("run_state", "the intact checkpoint does not read");
    std::atexit([] {
      delete g_state_store;
      g_state_store = nullptr;
    });
    return true;
  }();
  (void)ready;
  return *g_state_store;
}

}  // namespace

namespace {

// server/multipart.h: SafeUploadName's promises.
void CheckUploadName(std::string_view raw) {
  const std::string name = server::SafeUploadName(raw);
  if (name.empty() || name.size() > server::kMaxUploadNameBytes) Violated("multipart", "upload name empty or too long");
  if (name == "." || name == ".." || name.front() == '.' || name.back() == '.' ||
      name.find("..") != std::string::npos) {
    Violated("multipart", "upload name with a leading, trailing or double dot");
  }
  for (char c : name) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                         std::string_view("._-+()").find(c) != std::string_view::npos;
    if (!allowed) Violated("multipart", "upload name holds a byte outside its alphabet");
  }
  if (server::SafeUploadName(name) != name) Violated("multipart", "SafeUploadName is not idempotent");
}

}  // namespace

int FuzzMultipart(const uint8_t* data, size_t size) {
  // Input: the Content-Type header value, '\n', the body.
  const std::string_view text = AsText(data, size);
  const size_t newline = text.find('\n');
  const std::string_view header = text.substr(0, newline);
  const std::string_view body = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
  CheckUploadName(text.substr(0, 4096));
  Result<std::string> boundary = server::MultipartBoundary(header);
  if (boundary.ok() && (boundary->empty() || boundary->size() > 70)) Violated("multipart", "a boundary of 0 or >70");
  const server::MultipartLimits limits{.max_parts = 50, .max_header_bytes = 1024, .max_total_bytes = 1u << 20};
  Result<std::vector<server::FormPart>> parts = server::ParseMultipart(header, body, limits);
  if (!parts.ok()) return 0;
  if (!boundary.ok()) Violated("multipart", "a body parsed under a Content-Type without a boundary");
  if (parts->size() > limits.max_parts) Violated("multipart", "more parts than max_parts");
  for (const server::FormPart& part : *parts) {
    // Each part's data is a piece of the body, not built from elsewhere.
    if (body.find(part.data) == std::string_view::npos) Violated("multipart", "a part's data is not in the body");
    if (part.data.find("\r\n--" + *boundary + "\r\n") != std::string::npos) {
      Violated("multipart", "a part's data holds a delimiter line");
    }
    CheckUploadName(part.filename);
  }
  return 0;
}

int FuzzOtel(const uint8_t* data, size_t size) {
  // Input: the first line is a traceparent header; the rest NAME=value lines
  // of an environment for TracerOptionsFromEnv.
  const std::string_view text = AsText(data, size);
  const size_t newline = text.find('\n');
  const std::string_view header = text.substr(0, newline);
  if (std::optional<otel::SpanContext> c = otel::ParseTraceparent(header)) {
    if (!c->valid()) Violated("otel", "an invalid context parsed");
    // What we write reads back as the same ids.
    std::optional<otel::SpanContext> again = otel::ParseTraceparent(c->Traceparent());
    if (!again || again->trace_id != c->trace_id || again->span_id != c->span_id || again->sampled != c->sampled) {
      Violated("otel", "a parsed traceparent does not round-trip");
    }
  }
  std::map<std::string, std::string> env;
  if (newline != std::string_view::npos) {
    std::string_view rest = text.substr(newline + 1);
    while (!rest.empty()) {
      const size_t end = rest.find('\n');
      const std::string_view line = rest.substr(0, end);
      const size_t eq = line.find('=');
      if (eq != std::string_view::npos) env[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
      if (end == std::string_view::npos) break;
      rest.remove_prefix(end + 1);
    }
  }
  Result<std::optional<otel::TracerOptions>> o = otel::TracerOptionsFromEnv([&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() || it->second.find('\0') != std::string::npos ? nullptr : it->second.c_str();
  });
  if (o.ok() && o->has_value()) {
    const otel::TracerOptions& t = **o;
    if (t.max_export_batch_size > t.max_queue_size || t.max_queue_size == 0) Violated("otel", "batch above the queue");
    for (const auto& [k, v] : t.headers) {
      if (k.empty() || v.find('\n') != std::string::npos || v.find('\r') != std::string::npos) {
        Violated("otel", "a header that cannot be sent");
      }
    }
  }
  return 0;
}

int FuzzRunState(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  StateStore& s = FuzzStateStore();
  const size_t column = data[0] % std::size(kStateColumns);
  const std::string_view text = AsText(data + 1, size - 1);
  SetText(s.raw, kStateColumns[column][0], text);
  Result<std::optional<RunState>> state = s.store->LatestState("run_fuzz");
  if (state.ok()) {
    if (!state->has_value()) Violated("run_state", "a stored checkpoint read as none");
    // What was read is a run state a resume can use: it writes and reads back.
    Result<RunState> again = RunStateFromJson(ToJson(**state));
    if (!again.ok()) Violated("run_state", "a checkpoint read back does not read again");
  }
  SetText(s.raw, kStateColumns[column][0], s.good[column]);
  return 0;
}

const std::vector<FuzzTarget>& FuzzTargets() {
  static const std::vector<FuzzTarget> kTargets = {
      {"json", FuzzJson},
      {"json_repair", FuzzJsonRepair},
      {"text_protocol", FuzzTextProtocol},
      {"sse", FuzzSse},
      {"chat_completion", FuzzChatCompletion},
      {"fhir", FuzzFhir},
      {"schema", FuzzSchema},
      {"py_literal", FuzzPyLiteral},
      {"csv", FuzzCsv},
      {"mock_script", FuzzMockScript},
      {"note_facts", FuzzNoteFacts},
      {"findings", FuzzFindings},
      {"literature", FuzzLiterature},
      {"dicom", FuzzDicom},
      {"image", FuzzImage},
      {"research_report", FuzzResearchReport},
      {"imaging_reply", FuzzImagingReply},
      {"run_state", FuzzRunState},
      {"multipart", FuzzMultipart},
      {"mcp_message", FuzzMcpMessage},
      {"mcp_reply", FuzzMcpReply},
      {"otel", FuzzOtel},
  };
  return kTargets;
}

}  // namespace medreact::fuzz
