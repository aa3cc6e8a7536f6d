// Runs of every app from JSON inputs, for a front end that speaks JSON (the
// server's `POST /v1/runs {"app": NAME, "inputs": {...}}`): the inputs read
// as the app table defines them (AppRow::inputs_schema), mapped onto the
// app's Start struct and its Prepare function (chat: RunService::
// PrepareChat; triage_runs.h, extract_runs.h, cxr_runs.h, research_runs.h),
// run to its end or a pause, and gone on with after a decision or a crash —
// one result shape for every app.
//
//   std::string field;
//   Result<std::unique_ptr<PreparedAppRun>> p = PrepareAppRun(service, "triage", inputs, ctx, &field);
//   if (!p.ok()) ... 400 naming `field` ("inputs.findings") ...
//   AppRunResult r = RunAppPrepared(service, std::move(*p), {.on_started = [&](const std::string& id) { ... 201 ... }});
//   // after RunService::Decide left nothing waiting, or a crash (RunsToTakeOver + RunService::PrepareResume):
//   Result<AppRunResult> again = ContinueAppRun(service, run, spec, hooks, ctx);
//
// Paths. Every path in the inputs (the schema's "format": "path") must be
// absolute and resolve (realpath: symlinks followed, `..` collapsed) inside
// one of the context's input roots; the app reads the resolved path. No
// roots: no path is accepted.
//
// Recording. Every run is stored when the service has a store, whatever its
// planner (a triage of the rules planner too: TriageSettings::record_always).
// Nothing waits inline for a person: a call that needs approval pauses the
// run (awaiting_approval); RunService::Decide decides it and ContinueAppRun
// goes on.
//
// Messages name the inputs' JSON paths and settings, never a front end's flag.
// Thread-safety: as RunService (each run on its caller's thread; Cancel from any).
#ifndef MEDREACT_SERVICE_APP_RUNS_H_
#define MEDREACT_SERVICE_APP_RUNS_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apps/research/research_events.h"
#include "medreact/cancel.h"
#include "medreact/events.h"
#include "medreact/json.h"
#include "service/cxr_runs.h"
#include "service/extract_runs.h"
#include "service/research_runs.h"
#include "service/run_service.h"
#include "service/triage_runs.h"

namespace medreact::service {

// The imaging side a cxr run needs, from the front end's settings (the
// CLI's cxr flags; the server's configuration). Keys are never stored.
struct ImagingSettings {
  std::string vision_url;      // OpenAI-compatible vision model server; "" = none
  std::string vision_model;
  std::string vision_api_key;  // never stored
  // The imaging endpoints; "" = the environment's (MEDREACT_CXR_*).
  std::string classifier_url;
  std::string segmentation_url;
  std::string grounding_url;
  std::string image_dir;       // the generated images; "" = a new private temp folder per run
};

// What the front end decides for every run it starts (not the caller's inputs).
struct AppRunContext {
  ModelSettings model;      // the model every app uses; no URL: the rules/offline planners only
  ImagingSettings imaging;  // cxr's endpoints and vision model
  // Absolute folders every input path must resolve inside. Default: none (no path accepted)
  std::vector<std::string> input_roots;
  // Allow tools that reach the network from inputs: chat's network packs
  // (literature), research's `online`. Default: false (refused, naming the input)
  bool network_tools = false;
  // The research literature cache ("" = the default one); a `replay` input
  // is imported into it and so needs it set. Default: ""
  std::string research_cache;
};

// A run checked and assembled from JSON inputs, ready to run: one of the
// app's prepared structs (the one `app` names) and what the inputs gave.
struct PreparedAppRun {
  std::string app;
  std::unique_ptr<PreparedChat> chat;
  std::unique_ptr<PreparedTriage> triage;
  std::unique_ptr<PreparedExtract> extract;
  std::unique_ptr<PreparedCxr> cxr;
  std::string cxr_question;
  std::unique_ptr<PreparedResearch> research;
  std::vector<std::string> warnings;  // about the inputs (a corpus's skipped files, an unreadable image)
};

// A front end's hooks into one run of any app (RunHooks and ResearchHooks
// in one). No inline approver: a call that waits pauses the run.
struct AppRunHooks {
  EventSink on_event;                    // engine events (chat, triage, extract, cxr): model_delta, tool_*, ...
  ResearchEventSink on_research_event;   // research's own events (research runs emit these instead)
  // Called once as soon as the run's id is known and its row is in the store
  // (before the run ends, except a rules triage that is stored as it ended).
  std::function<void(const std::string& run_id)> on_started;
  CancellationToken cancel;  // stops the run: it ends `interrupted` (resumable). Also RunService::Cancel(id)
  std::function<void(const std::string&)> warn;  // warnings while it runs (also kept in AppRunResult::warnings)
};

// What a run of any app gives.
struct AppRunResult {
  std::string run_id;   // "" when not recorded (a service without a store)
  std::string status;   // as stored: finished, awaiting_approval, interrupted, error, max_steps, ...
  bool stored = false;
  // The app's result: chat the stored result (answer, status, error, final
  // fields, counts, usage); triage the contract JSON; extract the extraction
  // JSON; cxr the answer JSON; research the structured report and its facts.
  Json result;
  Json usage = Json::object();  // tokens over every model call: prompt_tokens, completion_tokens, total_tokens
  std::vector<std::string> warnings;
};

// The JSON inputs of `app` checked against its schema and every app check,
// then prepared (the model built, the files read, the images kept) before
// any work. InvalidArgument with `*field` the offending input's JSON path
// ("inputs.findings", "inputs.images[1]"; "app" for an unknown app, naming
// the apps known; "inputs" when the inputs are not an object; "" when the
// context is at fault, e.g. no model for the planner `model`). `field` may
// be null. Other codes as the app's Prepare gives them.
Result<std::unique_ptr<PreparedAppRun>> PrepareAppRun(RunService& service, const std::string& app, const Json& inputs,
                                                      const AppRunContext& ctx, std::string* field);

// Runs a prepared run to its end or a pause (awaiting_approval), recording it.
AppRunResult RunAppPrepared(RunService& service, std::unique_ptr<PreparedAppRun> prepared, const AppRunHooks& hooks);

// Goes on with a stored run this service holds the lease of: after
// RunService::PrepareResume (a crash takeover, an interrupted run) or after
// RunService::Decide left nothing waiting. The app's resume (chat:
// RunService::Continue; triage, extract, cxr, research: their PrepareResume
// and runner) from its last checkpoint into the same run id. `spec.model`
// without a URL: the stored model with that key; the cxr vision key comes
// from ctx.imaging. The lease is given back when a check fails.
Result<AppRunResult> ContinueAppRun(RunService& service, const RunRecord& run, const ResumeSpec& spec,
                                    const AppRunHooks& hooks, const AppRunContext& ctx);

// The runs a starting front end should take over: stored `running` runs of
// a resumable app whose lease holder is gone (RunOwnerGone), whose lease
// ran out, or that no one holds — not a worklist's triage case (its
// worklist goes on with it). Oldest first. The caller takes each with
// RunService::PrepareResume (which may still refuse one another process
// took meanwhile), then ContinueAppRun.
Result<std::vector<RunRecord>> RunsToTakeOver(RunService& service);

// The schema's check of `inputs` alone (types, required and unknown keys,
// ranges, enums, non-empty strings), for a front end that wants to refuse
// early; PrepareAppRun runs it first. `*field` as PrepareAppRun.
Status CheckAppInputs(const std::string& app, const Json& inputs, std::string* field);

}  // namespace medreact::service

#endif  // MEDREACT_SERVICE_APP_RUNS_H_
