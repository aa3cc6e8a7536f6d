// The chest X-ray agent's runs in the run service (issue 22): started,
// recorded, resumed and decided here, under every front end; `medreact cxr`
// keeps its flags and its printing.
//
//   Result<std::unique_ptr<PreparedCxr>> p = PrepareCxr(service, settings);  // every check, the images read
//   Result<CxrRunOutcome> r = RunCxrQuestion(service, **p, question, history, hooks);
//   ...killed...
//   Result<RunRecord> run = service.PrepareResume(id);                     // status, app table, lease
//   Result<std::unique_ptr<PreparedCxrResume>> q = PrepareCxrResume(service, *run, spec, vision_key);
//   CxrRunOutcome again = RunCxrResume(service, std::move(*q), hooks);
//
// Images by content hash. A recorded run keeps every image it saw in the
// run folder beside the store (run_images.h: <store>.images/<sha-256>): the
// bytes of each file the user named (so a DICOM is read again as it was,
// whatever became of the original) and the PNG of each image its tools made
// (masks, annotated pictures). The checkpoint's RunState::app["images"]
// lists them in the order of their ids ({"id", "sha256", "origin", "label",
// "path"}), so a resume (a new process, after kill -9) puts each back under
// the same id, checking its hash first: a kept image that is missing or
// changed is an error naming it, before any work. The generated images are
// written again to the run's image folder (made again when it is gone).
//
// Approval. The chat rules (apps/common/approval_policy.h) apply to a cxr
// run's tools: `all`, `network` (the tools that call an imaging endpoint or
// the vision model: chest_xray_classifier, chest_xray_segmentation,
// xray_phrase_grounding, xray_vqa, chest_xray_report) and `tool:NAME`; a
// `pack:` rule is refused (the imaging tools are in no pack). A call that
// waits pauses the run (awaiting_approval) unless `hooks.approve` decides;
// RunService::Decide stores the decisions, then PrepareCxrResume /
// RunCxrResume go on with them.
//
// A conversation over several runs (CxrSettings::continues): each question
// of a front end that keeps no process per user (the server's page) is a run
// of its own that goes on from the earlier one: its conversation (the last
// checkpoint's, and the answer) becomes the history and its kept images are
// put back under the same ids, so the new run's checkpoints list them too
// and it resumes on its own like any other.
//
// Messages name settings (the classifier URL, `classifier_url`), never a
// front end's flag.
#ifndef MEDREACT_SERVICE_CXR_RUNS_H_
#define MEDREACT_SERVICE_CXR_RUNS_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "apps/common/app_runner.h"
#include "apps/cxr/cxr_app.h"
#include "service/run_service.h"
#include "tools/imaging/imaging_client.h"

namespace medreact::service {

// A cxr run as a front end gives it.
struct CxrSettings {
  std::vector<std::string> images;  // PNG, JPEG or DICOM files, as the user named them
  std::string planner = "auto";     // auto (the model when one is set) | model | rules (the offline plan)
  ModelSettings model;              // the reasoning model; no URL: the offline plan
  std::string vision_url;           // OpenAI-compatible vision model server; "" = none
  std::string vision_model;
  std::string vision_api_key;       // never stored
  // The imaging endpoints; "" = the environment's (MEDREACT_CXR_*).
  std::string classifier_url;
  std::string segmentation_url;
  std::string grounding_url;
  std::string image_dir;            // the generated images; "" = a new private temp folder
  int image_max_side = 1024;
  double threshold = imaging::kDefaultFindingThreshold;
  std::string system_prompt_file;   // "" = data/prompts/cxr_system.md
  int max_steps = 12;               // model turns per question
  double timeout_s = 600;           // per question
  double tool_timeout_s = 120;
  int parallel = 4;
  bool keep_phi = false;
  bool stream = false;
  std::string out_path;             // stored with the run's inputs (the front end writes it)
  std::vector<std::string> require_approval;  // approval rules (see above)
  // The id of an earlier, ended cxr run of the same store this run goes on
  // from (a conversation over several runs: a follow-up question, or the
  // user's answer to the agent's clarifying question). Its conversation is
  // this run's history and its images are put back under their ids before
  // `images`, which are added to them. Default: "" (a new conversation)
  std::string continues;
};

// A cxr run checked and assembled (PrepareCxr): the toolbox and the images,
// read once and shared by every question of a conversation.
struct PreparedCxr {
  CxrSettings settings;
  imaging::ImagingEndpoints endpoints;
  std::shared_ptr<ChatModel> model;  // null: the offline plan only
  CxrConfig config;                  // toolbox, prompt, limits, approval predicate (hooks set per run)
  std::string image_dir;             // where generated images go
  std::vector<std::string> image_ids;                             // the images read, in order
  std::vector<std::pair<std::string, std::string>> image_errors;  // (path, why) of those not read
  std::vector<std::string> rules;    // the approval rules, checked
  Json kept_images = Json::array();  // the images kept in the run folder so far (see above)
  std::vector<Message> history;      // `continues`: the earlier run's conversation (system prompt excluded)
};

// One question's run.
struct CxrRunOutcome {
  CxrOutcome outcome;
  std::string run_id;
  std::string status;  // as stored: finished, interrupted, awaiting_approval, error, ...
  bool stored = false;
  FallbackOutcome how;  // the model, or the offline plan (and why)
};

// Every check before any work: the settings (planner, endpoints, vision
// model, model, system prompt, image folder, approval rules and a store to
// wait in), then the images read (a file that cannot be read is kept in
// image_errors: the model is told, the run goes on) and, with a store, kept
// in the run folder. InvalidArgument naming the setting.
Result<std::unique_ptr<PreparedCxr>> PrepareCxr(const RunService& service, CxrSettings settings);

// Runs one question (`history`: the conversation's earlier turns, the last
// outcome's messages; empty: the prepared run's, which is the earlier run's
// when it `continues` one), recorded when the service has a store: the
// model, and when it never answered the offline plan (a run of its own).
Result<CxrRunOutcome> RunCxrQuestion(RunService& service, PreparedCxr& prepared, const std::string& question,
                                     const std::vector<Message>& history, const RunHooks& hooks);

// A stored cxr run checked and rebuilt, ready to go on (PrepareCxrResume).
struct PreparedCxrResume {
  RunRecord run;
  RunState state;  // its last checkpoint
  CxrSettings settings;
  CxrConfig config;
  CxrTurn turn;
  std::shared_ptr<ChatModel> model;
};

// After RunService::PrepareResume (status, app table, lease) or Decide:
// every check and every input read again before any work: the inputs, the
// checkpoint (a cxr graph's; no call still waiting), the images from the run
// folder by hash (a missing or changed one named), the endpoints, the vision
// model (`vision_api_key`), the model (the spec's when it names one, else
// the stored one; a run of the offline plan goes on with it) and the rules.
// The run's lease is given back when a check fails.
Result<std::unique_ptr<PreparedCxrResume>> PrepareCxrResume(RunService& service, const RunRecord& run,
                                                            const ResumeSpec& spec,
                                                            const std::string& vision_api_key);
// Goes on with a prepared cxr run from its checkpoint into the same run id,
// recording it.
CxrRunOutcome RunCxrResume(RunService& service, std::unique_ptr<PreparedCxrResume> prepared,
                           const RunHooks& hooks);

// The images a stored cxr run kept, as its last checkpoint lists them (the
// run folder, see above), for a front end to show: per image {"id", "sha256",
// "origin" ("user" or the tool that made it), "label", "format"} and, when
// the kept bytes are not a picture a browser shows (a DICOM file),
// "png_sha256": the image as the run saw it, rendered to PNG. The user's
// paths are left out. NotFound for an unknown run; an empty array for a run
// without images or checkpoint.
Result<Json> CxrRunImages(const RunService& service, const std::string& run_id);

// The tools a stored cxr run offers (from its stored settings), for
// RunService::Decide to check a reviewer's edited arguments against.
Result<std::shared_ptr<ToolRegistry>> CxrDecisionTools(const RunService& service, const RunRecord& run);

}  // namespace medreact::service

#endif  // MEDREACT_SERVICE_CXR_RUNS_H_
