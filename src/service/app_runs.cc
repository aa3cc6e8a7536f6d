// Runs of every app from JSON inputs. See app_runs.h.
#include "service/app_runs.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <utility>

#include "core/file_io.h"
#include "core/printable.h"
#include "core/text_util.h"
#include "service/app_inputs.h"
#include "store/run_recorder.h"
#include "tools/fhir/fhir_rest.h"
#include "tools/imaging/image_store.h"
#include "tools/packs.h"

namespace medreact::service {
namespace {

// The keys of an app's inputs, for FieldNamed.
std::vector<std::string> Keys(const AppRow& row) {
  std::vector<std::string> out;
  auto properties = row.inputs_schema.find("properties");
  if (properties == row.inputs_schema.end() || !properties->is_object()) return out;
  for (auto it = properties->begin(); it != properties->end(); ++it) out.push_back(it.key());
  return out;
}

// A Prepare function's refusal with `*field` set to the input it names.
Status Refused(const Status& s, const AppRow& row, std::string* field,
               const std::vector<std::pair<std::string, std::string>>& aliases = {}) {
  if (field && s.code() == StatusCode::kInvalidArgument) *field = FieldNamed(s.message(), Keys(row), aliases);
  return s;
}

Json UsageJson(const Usage& u) {
  return {{"prompt_tokens", u.prompt_tokens},
          {"completion_tokens", u.completion_tokens},
          {"total_tokens", u.total_tokens}};
}

// A trace's tokens: its total, else the sum of its steps'.
Usage TraceUsage(const RunTrace& trace) {
  if (!trace.usage.empty()) return trace.usage;
  Usage sum;
  for (const StepRecord& step : trace.steps) sum += step.usage;
  return sum;
}

Json ToPlainJson(const OrderedJson& j) {
  Result<Json> parsed = ParseJson(j.dump());
  return parsed.ok() ? std::move(*parsed) : Json();
}

// The warnings of a run, from any thread.
struct Warnings {
  std::mutex mu;
  std::vector<std::string> list;
};

RunHooks EngineHooks(const AppRunHooks& hooks, const std::shared_ptr<Warnings>& warnings) {
  return {.on_event = hooks.on_event,
          .cancel = hooks.cancel,
          .approve = nullptr,  // a waiting call pauses the run
          .warn =
              [warnings, warn = hooks.warn](const std::string& w) {
                {
                  std::lock_guard<std::mutex> lock(warnings->mu);
                  warnings->list.push_back(w);
                }
                if (warn) warn(w);
              },
          .on_started = hooks.on_started};
}

ResearchHooks ResearchHooksOf(const AppRunHooks& hooks, const RunHooks& engine) {
  return {.on_event = hooks.on_research_event, .cancel = hooks.cancel, .warn = engine.warn, .on_started = hooks.on_started};
}

// ---- the results, by app ----

void FromChat(const RunOutcome& r, AppRunResult& out) {
  out.run_id = r.run_id;
  out.status = r.status;
  out.stored = r.stored;
  out.result = StoredRunResult(r.result, r.status == "interrupted");
  out.usage = UsageJson(r.result.usage);
}

void FromTriage(const TriageRan& ran, AppRunResult& out) {
  out.run_id = ran.run_id;
  out.status = ran.status;
  out.stored = ran.stored;
  out.result = ToPlainJson(ran.outcome.result);
  Usage u;
  if (ran.outcome.trace) u += TraceUsage(*ran.outcome.trace);
  if (ran.outcome.model_trace) u += TraceUsage(*ran.outcome.model_trace);
  out.usage = UsageJson(u);
}

void FromExtract(const ExtractRan& ran, AppRunResult& out) {
  out.run_id = ran.run_id;
  out.status = ran.status;
  out.stored = ran.stored;
  out.result = ToPlainJson(ran.outcome.result);
  Usage u = TraceUsage(ran.outcome.trace);
  if (ran.outcome.model_trace) u += TraceUsage(*ran.outcome.model_trace);
  out.usage = UsageJson(u);
}

void FromCxr(const CxrRunOutcome& r, AppRunResult& out) {
  out.run_id = r.stored ? r.run_id : "";
  out.status = r.status;
  out.stored = r.stored;
  out.result = r.outcome.result.is_null() ? Json{{"answer", r.outcome.answer}} : r.outcome.result;
  out.usage = UsageJson(TraceUsage(r.outcome.trace));
}

void FromResearch(const ResearchRun& r, AppRunResult& out) {
  out.run_id = r.run_id;
  out.status = r.status;
  out.stored = r.stored;
  if (!r.outcome.status.ok()) {
    out.result = Json{{"error", r.outcome.status.message()}};
  } else {
    out.result = ToPlainJson(r.outcome.result);
    if (out.result.is_object() && !out.result.contains("report_markdown")) {
      out.result["report_markdown"] = r.outcome.report.markdown;
    }
  }
  out.usage = UsageJson(r.outcome.usage);
}

void Failed(const Status& s, AppRunResult& out) {
  out.status = "error";
  out.result = Json{{"error", s.message()}};
}

// ---- the inputs, by app ----

// The record an app's inputs name: `fhir` (a file), or `fhir_url` with
// `patient` (a FHIR R4 server, tools/fhir/fhir_rest.h), which reaches the
// network and so needs network_tools. "" when neither is given.
Result<std::string> RecordInput(const Json& in, const AppRunContext& ctx, std::string* field) {
  const std::string file = InputText(in, "fhir");
  const std::string url = InputText(in, "fhir_url");
  const std::string patient = InputText(in, "patient");
  if (url.empty() && patient.empty()) return file;
  if (!file.empty()) return InputError(field, "inputs.fhir_url", "give either fhir or fhir_url with patient, not both");
  if (url.empty()) return InputError(field, "inputs.fhir_url", "patient needs the FHIR server's base URL (fhir_url)");
  if (patient.empty()) return InputError(field, "inputs.patient", "fhir_url needs the patient's id (patient)");
  if (!ctx.network_tools) {
    return InputError(field, "inputs.fhir_url",
                      "reading a FHIR server reaches the network, which is not allowed here (network_tools)");
  }
  const std::string locator = FhirPatientUrl(url, patient);
  if (!IsFhirPatientUrl(locator)) return InputError(field, "inputs.fhir_url", "must be an http:// or https:// base URL");
  return locator;
}

Status PrepareChatRun(RunService& service, const Json& in, const AppRunContext& ctx, const AppRow& row,
                      PreparedAppRun& p, std::string* field) {
  ChatStart start;
  start.inputs.message = InputText(in, "message");
  start.inputs.packs = in.contains("packs") ? InputTexts(in, "packs") : std::vector<std::string>{"util"};
  const std::vector<PackInfo> known = KnownPacks();
  for (size_t i = 0; i < start.inputs.packs.size(); ++i) {
    const std::string& name = start.inputs.packs[i];
    auto info = std::find_if(known.begin(), known.end(), [&](const PackInfo& k) { return k.name == name; });
    if (info == known.end()) {
      std::string names;
      for (const PackInfo& k : known) names += (names.empty() ? "" : ", ") + k.name;
      return InputError(field, "inputs.packs[" + std::to_string(i) + "]",
                        "unknown pack '" + PrintableLine(Preview(name, 60)) + "' (known: " + names + ")");
    }
    if (info->network && !ctx.network_tools) {
      return InputError(field, "inputs.packs[" + std::to_string(i) + "]",
                        "the pack '" + name + "' may reach the network, which is not allowed here (network_tools)");
    }
  }
  Result<std::string> record = RecordInput(in, ctx, field);
  if (!record.ok()) return record.status();
  start.inputs.context = {.fhir_path = *record,
                          .as_of = InputText(in, "as_of"),
                          .corpus_dir = InputText(in, "corpus_dir"),
                          .extras_path = InputText(in, "extras")};
  AgentOptions& options = start.inputs.options;
  options.system_prompt = InputText(in, "system_prompt");
  options.max_steps = static_cast<int>(InputInteger(in, "max_steps").value_or(20));  // as `medreact chat`
  options.timeout = Millis(600'000);
  options.tool_timeout = Millis(60'000);
  options.stream = BoolOr(in, "stream", false);
  start.inputs.require_approval = InputTexts(in, "require_approval");
  start.model = ctx.model;
  const std::vector<std::string> images = InputTexts(in, "images");
  imaging::ImageStore store({.max_side = 1024});
  for (size_t i = 0; i < images.size(); ++i) {
    Result<std::shared_ptr<const imaging::StoredImage>> image = store.AddFile(images[i]);
    if (!image.ok()) return InputError(field, "inputs.images[" + std::to_string(i) + "]", image.status().message());
    start.images.push_back((*image)->Part());
  }
  auto warnings = std::make_shared<Warnings>();
  Result<std::unique_ptr<PreparedChat>> chat = service.PrepareChat(std::move(start), EngineHooks({}, warnings));
  if (!chat.ok()) {
    return Refused(chat.status(), row, field,
                   {{"the message is empty", "message"},
                    {"approval rule", "require_approval"},
                    {"cannot take images", "images"},
                    {"unknown pack", "packs"},
                    {"system prompt", "system_prompt"}});
  }
  p.chat = std::move(*chat);
  p.warnings = std::move(warnings->list);
  return Status::OK();
}

Status PrepareTriageRun(RunService& service, const Json& in, const AppRunContext& ctx, const AppRow& row,
                        PreparedAppRun& p, std::string* field) {
  Result<std::string> record = RecordInput(in, ctx, field);
  if (!record.ok()) return record.status();
  if (record->empty()) return InputError(field, "inputs.fhir", "give the patient's record: fhir, or fhir_url with patient");
  TriageStart start{.fhir_path = *record,
                    .findings = InputText(in, "findings"),
                    .as_of = InputText(in, "as_of"),
                    .settings = {.planner = InputText(in, "planner", "auto"),
                                 .max_steps = static_cast<int>(InputInteger(in, "max_steps").value_or(10)),
                                 .model = ctx.model,
                                 .record_always = true}};
  if (std::optional<int64_t> base = InputInteger(in, "base_priority")) start.base_priority = static_cast<int>(*base);
  const std::string fhir = start.fhir_path;
  Result<std::unique_ptr<PreparedTriage>> triage = PrepareTriage(service, std::move(start));
  if (!triage.ok()) {
    std::vector<std::pair<std::string, std::string>> aliases = {{"as-of date", "as_of"}, {"planner", "planner"}};
    if (!fhir.empty()) aliases.insert(aliases.begin(), {fhir, IsFhirPatientUrl(fhir) ? "fhir_url" : "fhir"});  // the record's errors name its file
    Status s = triage.status();
    if (s.code() == StatusCode::kNotFound || s.code() == StatusCode::kFailedPrecondition) {
      if (s.message().find(fhir) != std::string::npos) s = Status::InvalidArgument(s.message());
    }
    return Refused(s, row, field, aliases);
  }
  p.triage = std::move(*triage);
  return Status::OK();
}

Status PrepareExtractRun(RunService& service, const Json& in, const AppRunContext& ctx, const AppRow& row,
                         PreparedAppRun& p, std::string* field) {
  const bool note_text = in.contains("note"), note_file = in.contains("note_path");
  const bool schema_object = in.contains("schema"), schema_file = in.contains("schema_path");
  if (note_text == note_file) {
    return InputError(field, note_text ? "inputs.note_path" : "inputs.note",
                      note_text ? "give the note as text (note) or as a file (note_path), not both"
                                : "missing: the note as text (note) or as a file (note_path)");
  }
  if (schema_object == schema_file) {
    return InputError(field, schema_object ? "inputs.schema_path" : "inputs.schema",
                      schema_object ? "give the schema as an object (schema) or as a file (schema_path), not both"
                                    : "missing: the schema as an object (schema) or as a file (schema_path)");
  }
  ExtractStart start;
  if (note_text) {
    start.note = InputText(in, "note");
  } else {
    start.note_path = InputText(in, "note_path");
    Result<std::string> text = ReadUserFile(start.note_path, "note", kMaxTextInputBytes);
    if (!text.ok()) return InputError(field, "inputs.note_path", text.status().message());
    start.note = std::move(*text);
  }
  if (schema_object) {
    start.schema_text = DumpJson(in["schema"]);
  } else {
    start.schema_path = InputText(in, "schema_path");
    Result<std::string> text = ReadUserFile(start.schema_path, "schema", kMaxJsonConfigBytes);
    if (!text.ok()) return InputError(field, "inputs.schema_path", text.status().message());
    start.schema_text = std::move(*text);
  }
  start.label = InputText(in, "label");
  start.planner = InputText(in, "planner", "auto");
  start.max_iterations = static_cast<int>(InputInteger(in, "max_iterations").value_or(20));
  start.model = ctx.model;
  Result<std::unique_ptr<PreparedExtract>> extract = PrepareExtract(service, std::move(start));
  if (!extract.ok()) {
    return Refused(extract.status(), row, field,
                   {{"(note_path)", note_text ? "note" : "note_path"},
                    {"(schema_path)", schema_object ? "schema" : "schema_path"}});
  }
  p.warnings = (*extract)->warnings;
  p.extract = std::move(*extract);
  return Status::OK();
}

Status PrepareCxrRun(RunService& service, const Json& in, const AppRunContext& ctx, const AppRow& row,
                     PreparedAppRun& p, std::string* field) {
  const ImagingSettings& im = ctx.imaging;
  CxrSettings settings{.images = InputTexts(in, "images"),
                       .planner = InputText(in, "planner", "auto"),
                       .model = ctx.model,
                       .vision_url = im.vision_url,
                       .vision_model = im.vision_model,
                       .vision_api_key = im.vision_api_key,
                       .classifier_url = im.classifier_url,
                       .segmentation_url = im.segmentation_url,
                       .grounding_url = im.grounding_url,
                       .image_dir = im.image_dir,
                       .max_steps = static_cast<int>(InputInteger(in, "max_steps").value_or(12)),
                       .stream = BoolOr(in, "stream", false),
                       .require_approval = InputTexts(in, "require_approval"),
                       .continues = InputText(in, "continues")};
  if (settings.images.empty() && settings.continues.empty()) {
    return InputError(field, "inputs.images",
                      "give at least one image (PNG, JPEG or DICOM), or continues: the id of the earlier run of "
                      "this conversation");
  }
  const std::vector<std::string> images = settings.images;
  Result<std::unique_ptr<PreparedCxr>> cxr = PrepareCxr(service, std::move(settings));
  if (!cxr.ok()) return Refused(cxr.status(), row, field, {{"approval rule", "require_approval"}});
  // An image that cannot be read is refused here (the CLI tells the model and goes on).
  for (const auto& [path, why] : (*cxr)->image_errors) {
    const size_t i = std::find(images.begin(), images.end(), path) - images.begin();
    return InputError(field, "inputs.images[" + std::to_string(i) + "]", why);
  }
  p.cxr = std::move(*cxr);
  p.cxr_question = InputText(in, "question");
  return Status::OK();
}

Status PrepareResearchRun(RunService& service, const Json& in, const AppRunContext& ctx, const AppRow& row,
                          PreparedAppRun& p, std::string* field) {
  ResearchStart start{.question = InputText(in, "question"),
                      .planner = InputText(in, "planner", "auto"),
                      .model = ctx.model,
                      .max_rounds = static_cast<int>(InputInteger(in, "max_rounds").value_or(5)),
                      .token_budget = InputInteger(in, "token_budget").value_or(50'000),
                      .results = static_cast<int>(InputInteger(in, "results").value_or(5)),
                      .online = BoolOr(in, "online", false),
                      .cache_path = ctx.research_cache,
                      .replay_path = InputText(in, "replay"),
                      .require_approval = InputTexts(in, "require_approval")};
  if (in.contains("sources")) start.sources = InputTexts(in, "sources");
  if (start.online && !ctx.network_tools) {
    return InputError(field, "inputs.online", "reaching the literature services is not allowed here (network_tools)");
  }
  if (!start.replay_path.empty() && ctx.research_cache.empty()) {
    return InputError(field, "inputs.replay",
                      "a recording is imported into the literature cache, and none is set here (research_cache)");
  }
  Result<std::unique_ptr<PreparedResearch>> research = PrepareResearch(service, start);
  if (!research.ok()) {
    return Refused(research.status(), row, field,
                   {{"(replay_path)", "replay"}, {"question is empty", "question"}, {"approval rules", "require_approval"}});
  }
  p.research = std::move(*research);
  return Status::OK();
}

}  // namespace

Status CheckAppInputs(const std::string& app, const Json& inputs, std::string* field) {
  const AppRow* row = FindApp(app);
  if (!row) {
    std::string names;
    for (const AppRow& r : AppTable()) names += (names.empty() ? "" : ", ") + r.name;
    return InputError(field, "app", "unknown app '" + PrintableLine(Preview(app, 60)) + "' (known: " + names + ")");
  }
  return CheckAgainstSchema(row->inputs_schema, inputs, "inputs", field);
}

Result<std::unique_ptr<PreparedAppRun>> PrepareAppRun(RunService& service, const std::string& app, const Json& inputs,
                                                      const AppRunContext& ctx, std::string* field) {
  std::string ignored;
  if (!field) field = &ignored;
  field->clear();
  if (Status s = CheckAppInputs(app, inputs, field); !s.ok()) return s;
  const AppRow& row = *FindApp(app);
  Result<Json> in = ResolveInputPaths(row.inputs_schema, inputs, ctx.input_roots, field);
  if (!in.ok()) return in.status();
  auto p = std::make_unique<PreparedAppRun>();
  p->app = app;
  Status s = app == "chat"      ? PrepareChatRun(service, *in, ctx, row, *p, field)
             : app == "triage"  ? PrepareTriageRun(service, *in, ctx, row, *p, field)
             : app == "extract" ? PrepareExtractRun(service, *in, ctx, row, *p, field)
             : app == "cxr"     ? PrepareCxrRun(service, *in, ctx, row, *p, field)
                                : PrepareResearchRun(service, *in, ctx, row, *p, field);
  if (!s.ok()) return s;
  return p;
}

AppRunResult RunAppPrepared(RunService& service, std::unique_ptr<PreparedAppRun> p, const AppRunHooks& hooks) {
  AppRunResult out;
  if (!p) {
    Failed(Status::InvalidArgument("no prepared run"), out);
    return out;
  }
  auto warnings = std::make_shared<Warnings>();
  const RunHooks engine = EngineHooks(hooks, warnings);
  if (p->chat) {
    Result<RunOutcome> r = service.RunPrepared(std::move(p->chat), engine);
    r.ok() ? FromChat(*r, out) : Failed(r.status(), out);
  } else if (p->triage) {
    FromTriage(RunTriagePrepared(service, std::move(p->triage), engine), out);
  } else if (p->extract) {
    Result<ExtractRan> r = RunExtractPrepared(service, std::move(p->extract), engine);
    r.ok() ? FromExtract(*r, out) : Failed(r.status(), out);
  } else if (p->cxr) {
    Result<CxrRunOutcome> r = RunCxrQuestion(service, *p->cxr, p->cxr_question, {}, engine);
    r.ok() ? FromCxr(*r, out) : Failed(r.status(), out);
  } else if (p->research) {
    FromResearch(RunPreparedResearch(service, std::move(p->research), ResearchHooksOf(hooks, engine)), out);
  } else {
    Failed(Status::InvalidArgument("the prepared run holds no app's run"), out);
  }
  out.warnings = std::move(p->warnings);
  std::lock_guard<std::mutex> lock(warnings->mu);
  out.warnings.insert(out.warnings.end(), warnings->list.begin(), warnings->list.end());
  return out;
}

Result<AppRunResult> ContinueAppRun(RunService& service, const RunRecord& run, const ResumeSpec& spec,
                                    const AppRunHooks& hooks, const AppRunContext& ctx) {
  auto release = [&](Status s) {
    if (service.store()) service.store()->ReleaseRun(run.id);
    return s;
  };
  auto warnings = std::make_shared<Warnings>();
  const RunHooks engine = EngineHooks(hooks, warnings);
  AppRunResult out;
  if (run.app == "chat") {
    Result<RunOutcome> r = service.Continue(run.id, spec, engine);
    if (!r.ok()) return release(r.status());
    FromChat(*r, out);
  } else if (run.app == "triage") {
    Result<std::unique_ptr<PreparedTriage>> p = PrepareTriageResume(service, run.id, spec);
    if (!p.ok()) return release(p.status());
    FromTriage(RunTriagePrepared(service, std::move(*p), engine), out);
  } else if (run.app == "extract") {
    Result<std::unique_ptr<PreparedExtract>> p = PrepareExtractResume(service, run.id, spec);
    if (!p.ok()) return release(p.status());
    out.warnings = (*p)->warnings;
    Result<ExtractRan> r = RunExtractPrepared(service, std::move(*p), engine);
    if (!r.ok()) return release(r.status());
    FromExtract(*r, out);
  } else if (run.app == "cxr") {
    Result<std::unique_ptr<PreparedCxrResume>> p =
        PrepareCxrResume(service, run, spec, ctx.imaging.vision_api_key);  // gives the lease back itself
    if (!p.ok()) return p.status();
    FromCxr(RunCxrResume(service, std::move(*p), engine), out);
  } else if (run.app == "research") {
    Result<std::unique_ptr<PreparedResearch>> p = PrepareResearchResume(service, run.id, spec);
    if (!p.ok()) return release(p.status());
    FromResearch(RunPreparedResearch(service, std::move(*p), ResearchHooksOf(hooks, engine)), out);
  } else {
    return release(Status::InvalidArgument("run '" + run.id + "' is of an app this medreact does not know ('" +
                                           PrintableLine(run.app) + "')"));
  }
  std::lock_guard<std::mutex> lock(warnings->mu);
  out.warnings.insert(out.warnings.end(), warnings->list.begin(), warnings->list.end());
  return out;
}

Result<std::vector<RunRecord>> RunsToTakeOver(RunService& service) {
  if (!service.store()) return Status::FailedPrecondition("no run store: no run can be taken over");
  Result<std::vector<RunRecord>> running = service.List({.status = "running"});
  if (!running.ok()) return running.status();
  const std::string now = StoreTimestampMillis(std::chrono::system_clock::now());
  const std::string& self = service.store()->owner();
  std::vector<RunRecord> out;
  for (auto it = running->rbegin(); it != running->rend(); ++it) {  // oldest first
    const RunRecord& r = *it;
    const AppRow* app = FindApp(r.app);
    if (!app || !app->resumable || r.owner == self) continue;
    const bool free = r.owner.empty() || RunOwnerGone(r.owner) || (!r.lease_until.empty() && r.lease_until <= now);
    if (!free) continue;
    if (r.app == "triage" && r.inputs.is_object() && r.inputs.contains("worklist")) continue;
    out.push_back(r);
  }
  return out;
}

}  // namespace medreact::service
