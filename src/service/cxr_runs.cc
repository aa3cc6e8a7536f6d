// The chest X-ray agent's runs in the run service. See cxr_runs.h.
#include "service/cxr_runs.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "apps/common/approval_policy.h"
#include "apps/cxr/cxr_planner.h"
#include "core/file_io.h"
#include "core/printable.h"
#include "core/text_util.h"
#include "service/run_images.h"
#include "store/run_recorder.h"
#include "tools/imaging/image_codec.h"
#include "tools/imaging/vision_client.h"

namespace medreact::service {
namespace {

Millis ToMillis(double seconds) { return Millis(static_cast<int64_t>(seconds * 1000.0)); }

// The tools that call an imaging endpoint or the vision model: the `network` rule's.
const std::set<std::string>& NetworkTools() {
  static const std::set<std::string> tools = {"chest_xray_classifier", "chest_xray_segmentation",
                                              "xray_phrase_grounding", "xray_vqa", "chest_xray_report"};
  return tools;
}

// A new private folder for the generated images: $TMPDIR/medreact-cxr-XXXXXX, mode 0700.
Result<std::string> MakeImageDir() {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / "medreact-cxr-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return Status::Unavailable("cannot create a folder for the generated images under " + base.string());
  }
  return pattern;
}

Result<std::string> PrepareImageDir(const std::string& requested) {
  if (requested.empty()) return MakeImageDir();
  if (Status s = MakePrivateFolders(requested); !s.ok() || !std::filesystem::is_directory(requested)) {
    return Status::InvalidArgument("the image folder (image_dir) " + requested +
                                   " is not a folder that can be created or written");
  }
  return requested;
}

// The endpoints and the vision model of the settings: the toolbox's network side.
struct Toolbox {
  imaging::ImagingEndpoints endpoints;
  std::shared_ptr<const imaging::ImagingClient> client;
  std::shared_ptr<const imaging::VisionClient> vision;
};

Result<Toolbox> BuildToolbox(const RunService& service, const CxrSettings& s) {
  Toolbox box;
  Result<imaging::ImagingEndpoints> endpoints =
      imaging::ResolveImagingEndpoints({.classifier_url = s.classifier_url,
                                        .segmentation_url = s.segmentation_url,
                                        .grounding_url = s.grounding_url,
                                        .request_timeout = ToMillis(s.tool_timeout_s)});
  if (!endpoints.ok()) return endpoints.status();
  box.endpoints = std::move(*endpoints);
  if (!box.endpoints.classifier_url.empty() || !box.endpoints.segmentation_url.empty() ||
      !box.endpoints.grounding_url.empty()) {
    box.client = std::make_shared<imaging::ImagingClient>(box.endpoints);
  }
  if (!s.vision_url.empty()) {
    Result<std::shared_ptr<ChatModel>> vision = service.BuildModel({.url = s.vision_url,
                                                                    .name = s.vision_model,
                                                                    .api_key = s.vision_api_key,
                                                                    .request_timeout_s = s.tool_timeout_s,
                                                                    .max_retries = 2});
    if (!vision.ok()) return Status::InvalidArgument("the vision model (vision_url): " + vision.status().message());
    box.vision = std::make_shared<imaging::VisionClient>(*vision);
  }
  return box;
}

// The approval predicate over the tools the run offers (see cxr_runs.h).
Status ApplyCxrRules(const std::vector<std::string>& rules, CxrConfig& config) {
  config.needs_approval = nullptr;
  if (rules.empty()) return Status::OK();
  ToolRegistry offered;
  if (Status s = imaging::RegisterImagingPack(offered, config.tools); !s.ok()) return s;
  std::vector<std::string> own;  // `network` as the tools that reach it
  for (const std::string& rule : rules) {
    if (rule.rfind("pack:", 0) == 0) {
      return Status::InvalidArgument("approval rule '" + Preview(rule, 80) +
                                     "': the chest X-ray tools are in no pack (rules: all, network, tool:NAME)");
    }
    if (rule != "network") {
      own.push_back(rule);
      continue;
    }
    for (const std::string& name : offered.Names()) {
      if (NetworkTools().count(name)) own.push_back("tool:" + name);
    }
  }
  if (own.empty()) return Status::OK();  // `network` with no network tool offered: nothing waits
  Result<std::function<bool(const ToolCall&, const ToolSpec&)>> needs = ApprovalPredicate(own, offered, {});
  if (!needs.ok()) return needs.status();
  config.needs_approval = std::move(*needs);
  return Status::OK();
}

// What the run store keeps of a cxr run: what it was asked and with what,
// never a key (URLs without credentials or query).
Json CxrInputs(const PreparedCxr& p, const std::string& question) {
  const CxrSettings& s = p.settings;
  Json images = Json::array();
  for (const std::string& path : s.images) images.push_back(AbsoluteInputPath(path));
  Json errors = Json::array();
  for (const auto& [path, why] : p.image_errors) errors.push_back({{"file", path}, {"error", why}});
  return Json{{"message", question},
              {"images", std::move(images)},
              {"image_errors", std::move(errors)},
              {"planner", s.planner},
              {"vision", {{"url", UrlForStore(s.vision_url)}, {"model", s.vision_model}}},
              {"endpoints",
               {{"classifier", UrlForStore(p.endpoints.classifier_url)},
                {"segmentation", UrlForStore(p.endpoints.segmentation_url)},
                {"grounding", UrlForStore(p.endpoints.grounding_url)}}},
              {"system_prompt", AbsoluteInputPath(s.system_prompt_file)},
              {"image_dir", AbsoluteInputPath(p.image_dir)},
              {"out", AbsoluteInputPath(s.out_path)},
              {"require_approval", p.rules},
              {"continues", s.continues.empty() ? Json() : Json(s.continues)},
              {"options",
               {{"max_steps", s.max_steps},
                {"timeout_s", s.timeout_s},
                {"tool_timeout_s", s.tool_timeout_s},
                {"parallel", s.parallel},
                {"threshold", s.threshold},
                {"image_max_side", s.image_max_side},
                {"keep_phi", s.keep_phi},
                {"stream", s.stream}}}};
}

// The settings back from a run's stored inputs (the keys come from the front end).
CxrSettings SettingsFromInputs(const Json& in) {
  CxrSettings s;
  for (const Json& p : in.value("images", Json::array())) {
    if (p.is_string()) s.images.push_back(p.get<std::string>());
  }
  s.planner = StringOr(in, "planner", s.planner);
  const Json vision = in.value("vision", Json::object());
  s.vision_url = StringOr(vision, "url");
  s.vision_model = StringOr(vision, "model");
  const Json endpoints = in.value("endpoints", Json::object());
  s.classifier_url = StringOr(endpoints, "classifier");
  s.segmentation_url = StringOr(endpoints, "segmentation");
  s.grounding_url = StringOr(endpoints, "grounding");
  s.system_prompt_file = StringOr(in, "system_prompt");
  s.image_dir = StringOr(in, "image_dir");
  s.out_path = StringOr(in, "out");
  s.continues = StringOr(in, "continues");
  for (const Json& r : in.value("require_approval", Json::array())) {
    if (r.is_string()) s.require_approval.push_back(r.get<std::string>());
  }
  const Json o = in.value("options", Json::object());
  s.max_steps = static_cast<int>(std::clamp<int64_t>(IntegerOr(o, "max_steps", s.max_steps), 1, 100));
  s.timeout_s = NumberOr(o, "timeout_s", s.timeout_s);
  s.tool_timeout_s = NumberOr(o, "tool_timeout_s", s.tool_timeout_s);
  s.parallel = static_cast<int>(std::clamp<int64_t>(IntegerOr(o, "parallel", s.parallel), 1, 64));
  s.threshold = std::clamp(NumberOr(o, "threshold", s.threshold), 0.0, 1.0);
  s.image_max_side = static_cast<int>(std::clamp<int64_t>(IntegerOr(o, "image_max_side", s.image_max_side), 64, 8192));
  s.keep_phi = BoolOr(o, "keep_phi", false);
  s.stream = BoolOr(o, "stream", false);
  return s;
}

// The limits of the settings on a config.
void ApplyLimits(const CxrSettings& s, CxrConfig& config) {
  config.tools.finding_threshold = s.threshold;
  config.max_steps = s.max_steps;
  config.timeout = ToMillis(s.timeout_s);
  config.tool_timeout = ToMillis(s.tool_timeout_s);
  config.max_parallel_tools = s.parallel;
  config.stream = s.stream;
}

// Keeps the images the store has that `kept` does not list yet (those the
// tools made since: their PNG) in the run folder, in the order of their ids.
Status KeepNewImages(const RunImageFolder& folder, const imaging::ImageStore& store, Json& kept) {
  const std::vector<std::shared_ptr<const imaging::StoredImage>> all = store.All();
  for (size_t i = kept.size(); i < all.size(); ++i) {
    const imaging::StoredImage& image = *all[i];
    if (image.origin == "user") {
      return Status::Internal("image " + image.id + " was read from a file but not kept when it was read");
    }
    Result<std::string> hash = folder.Put(image.png);
    if (!hash.ok()) return hash.status();
    kept.push_back({{"id", image.id},
                    {"sha256", *hash},
                    {"origin", image.origin},
                    {"label", image.label},
                    {"path", image.path}});
  }
  return Status::OK();
}

// The checkpoint hook of a recorded cxr run: the images kept first, then
// the state with their list, to the recorder. An image that cannot be kept
// skips the checkpoint (a resume from it could not see the image); the
// warning says so once.
std::function<void(const RunState&)> KeepingHook(std::function<void(const RunState&)> save,
                                                 std::shared_ptr<RunImageFolder> folder,
                                                 std::shared_ptr<const imaging::ImageStore> store, Json* kept,
                                                 std::function<void(const std::string&)> warn) {
  auto warned = std::make_shared<bool>(false);
  return [save = std::move(save), folder, store, kept, warn = std::move(warn), warned](const RunState& state) {
    if (Status s = KeepNewImages(*folder, *store, *kept); !s.ok()) {
      if (!*warned && warn) warn(s.message() + " (the run goes on without its checkpoints)");
      *warned = true;
      return;
    }
    RunState copy = state;
    if (!copy.app.is_object()) copy.app = Json::object();
    copy.app["images"] = *kept;
    save(copy);
  };
}

// The end of a recorded cxr run: its status, answer, steps and result; the
// stored result also keeps the conversation and the kept images (a run's
// checkpoints go when it ends), for a later run that continues it.
RunResult EndOf(const CxrOutcome& outcome, const Json* kept = nullptr) {
  RunResult end;
  end.status = outcome.status;
  end.answer = outcome.answer;
  end.error = outcome.error;
  end.final_fields = outcome.result;
  if (kept && end.final_fields.is_object()) {
    Json conversation = Json::array();
    for (const Message& m : outcome.messages) {
      if (m.role != Role::kSystem) conversation.push_back(MessageToStateJson(m));
    }
    end.final_fields["conversation"] = std::move(conversation);
    end.final_fields["images_kept"] = *kept;
  }
  end.trace = outcome.trace;
  end.usage = outcome.trace.usage;
  end.steps = static_cast<int>(outcome.trace.steps.size());
  for (const StepRecord& step : outcome.trace.steps) end.tool_calls += static_cast<int>(step.tool_results.size());
  return end;
}

// The images of a stored run back into a new image store under their ids,
// each checked against its hash. FailedPrecondition naming the image.
Status RestoreImages(const RunImageFolder& folder, const Json& kept, imaging::ImageStore& store,
                     const std::string& run_id) {
  for (const Json& k : kept) {
    const std::string id = StringOr(k, "id"), origin = StringOr(k, "origin"), label = StringOr(k, "label");
    const std::string name = "image " + PrintableLine(id) + " (" + PrintableLine(label) + ", " +
                             (origin == "user" ? "read from " + PrintableLine(StringOr(k, "path"))
                                               : "made by " + PrintableLine(origin)) +
                             ")";
    Result<std::string> bytes = folder.Get(StringOr(k, "sha256"));
    if (!bytes.ok()) {
      return Status::FailedPrecondition("run '" + run_id + "': " + name + ": " + bytes.status().message() +
                                        "; the run cannot go on without it");
    }
    Result<std::shared_ptr<const imaging::StoredImage>> added = Status::Internal("");
    if (origin == "user") {
      added = store.AddFileBytes(std::move(*bytes), StringOr(k, "path"));
    } else {
      Result<imaging::Raster> raster = imaging::DecodePng(*bytes, folder.PathOf(StringOr(k, "sha256")), {});
      if (!raster.ok()) return Status::FailedPrecondition("run '" + run_id + "': " + name + ": " +
                                                          raster.status().message());
      added = store.AddGenerated(std::move(*raster), label, origin);
    }
    if (!added.ok()) {
      return Status::FailedPrecondition("run '" + run_id + "': " + name + ": " + added.status().message());
    }
    if ((*added)->id != id) {
      return Status::FailedPrecondition("run '" + run_id + "': " + name + " came back as " + (*added)->id);
    }
  }
  return Status::OK();
}

// `continues`: the earlier run's images back into `store` under their ids
// (listed in `kept`, in order) and its conversation into `history`. Every
// refusal names the setting (continues).
Status LoadEarlierRun(const RunService& service, const std::string& id, imaging::ImageStore& store, Json& kept,
                      std::vector<Message>& history) {
  const std::string named = "the earlier run (continues) '" + PrintableLine(Preview(id, 80)) + "'";
  if (!service.store()) return Status::FailedPrecondition("going on from an earlier run needs a run store");
  Result<RunRecord> run = service.store()->Get(id);
  if (!run.ok()) {
    if (run.status().code() != StatusCode::kNotFound) return run.status();
    return Status::InvalidArgument(named + " is not in this run store");
  }
  if (run->app != "cxr") {
    return Status::InvalidArgument(named + " is a " + PrintableLine(run->app) +
                                   " run, not a chest X-ray conversation");
  }
  if (run->status == "running" || run->status == "awaiting_approval") {
    return Status::InvalidArgument(named + " has not ended (status " + run->status +
                                   "): ask the next question once it has answered" +
                                   (run->status == "awaiting_approval" ? " (its waiting calls need a decision)" : ""));
  }
  // An ended run's checkpoints are gone: its result keeps the conversation and the images (EndOf).
  const Json fields = run->result.is_object() ? run->result.value("final_fields", Json::object()) : Json::object();
  const Json conversation = fields.is_object() ? fields.value("conversation", Json()) : Json();
  const Json images = fields.is_object() ? fields.value("images_kept", Json()) : Json();
  if (!conversation.is_array() || conversation.empty() || !images.is_array()) {
    return Status::InvalidArgument(named + " has no conversation stored to go on from (it ended before its " +
                                   "first question was asked, or a medreact that kept none recorded it)");
  }
  history.clear();
  for (const Json& m : conversation) {
    Result<Message> message = MessageFromStateJson(m);
    if (!message.ok()) {
      return Status::FailedPrecondition("the earlier run (continues) '" + id +
                                        "': its stored conversation cannot be read: " + message.status().message());
    }
    if (message->role != Role::kSystem) history.push_back(std::move(*message));
  }
  if (Status s = RestoreImages(RunImageFolder(RunImageFolder::ForStore(service.store()->path())), images, store, id);
      !s.ok()) {
    return Status::FailedPrecondition("the earlier run (continues): " + s.message());
  }
  kept = images;
  // A summary written without a model is the answer but not in the conversation.
  const std::string answer = StringOr(run->result, "answer");
  const bool answered = !history.empty() && history.back().role == Role::kAssistant &&
                        history.back().tool_calls.empty() && history.back().content == answer;
  if (!answer.empty() && !answered) history.push_back(Message::Assistant(answer));
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<PreparedCxr>> PrepareCxr(const RunService& service, CxrSettings settings) {
  auto p = std::make_unique<PreparedCxr>();
  const bool has_model = !settings.model.url.empty();
  Result<std::string> provider = ResolveProvider(settings.planner, settings.model.protocol, has_model, true);
  if (!provider.ok()) return provider.status();
  Result<Toolbox> box = BuildToolbox(service, settings);
  if (!box.ok()) return box.status();
  p->endpoints = box->endpoints;
  if (*provider != "rules") {
    Result<std::shared_ptr<ChatModel>> model = service.BuildModel(settings.model);
    if (!model.ok()) return model.status();
    p->model = std::move(*model);
  }
  Result<std::string> prompt = LoadCxrSystemPrompt(settings.system_prompt_file);
  if (!prompt.ok()) return prompt.status();
  Result<std::vector<std::string>> rules = CheckApprovalRules(settings.require_approval);
  if (!rules.ok()) return rules.status();
  p->rules = std::move(*rules);
  Result<std::string> image_dir = PrepareImageDir(settings.image_dir);
  if (!image_dir.ok()) return image_dir.status();
  p->image_dir = std::move(*image_dir);

  // The images, read once; with a store, kept in the run folder as read.
  auto store = std::make_shared<imaging::ImageStore>(imaging::ImageStoreOptions{
      .max_side = settings.image_max_side, .keep_phi = settings.keep_phi, .output_dir = p->image_dir});
  std::unique_ptr<RunImageFolder> folder;
  if (service.store()) folder = std::make_unique<RunImageFolder>(RunImageFolder::ForStore(service.store()->path()));
  if (!settings.continues.empty()) {
    if (Status s = LoadEarlierRun(service, settings.continues, *store, p->kept_images, p->history); !s.ok()) return s;
  }
  for (const std::string& path : settings.images) {
    Result<std::string> bytes = ReadUserFile(path, "image", store->options().max_file_bytes);
    Result<std::shared_ptr<const imaging::StoredImage>> added =
        bytes.ok() ? store->AddFileBytes(*bytes, path) : Result<std::shared_ptr<const imaging::StoredImage>>(
                                                             bytes.status());
    if (!added.ok()) {
      p->image_errors.push_back({path, added.status().message()});
      continue;
    }
    p->image_ids.push_back((*added)->id);
    if (folder) {
      Result<std::string> hash = folder->Put(*bytes);
      if (!hash.ok()) return hash.status();
      Json entry{{"id", (*added)->id},
                 {"sha256", *hash},
                 {"origin", "user"},
                 {"label", (*added)->label},
                 {"format", imaging::ImageFormatName((*added)->source_format)},
                 {"path", path}};
      if ((*added)->source_format == imaging::ImageFormat::kDicom) {
        // A browser shows no DICOM: the image as the run sees it, for a front end to show.
        Result<std::string> png = folder->Put((*added)->png);
        if (!png.ok()) return png.status();
        entry["png_sha256"] = *png;
      }
      p->kept_images.push_back(std::move(entry));
    }
  }

  CxrConfig& config = p->config;
  config.tools.store = store;
  config.tools.endpoints = box->client;
  config.tools.vision = box->vision;
  config.tools.input_errors = p->image_errors;
  config.system_prompt = std::move(*prompt);
  ApplyLimits(settings, config);
  if (Status s = ApplyCxrRules(p->rules, config); !s.ok()) return s;
  if (config.needs_approval && !service.store()) {
    return Status::FailedPrecondition(
        "calls that wait for approval need a run store to wait in (or an approver that decides them at once)");
  }
  p->settings = std::move(settings);
  return p;
}

Result<CxrRunOutcome> RunCxrQuestion(RunService& service, PreparedCxr& p, const std::string& question,
                                     const std::vector<Message>& history, const RunHooks& hooks) {
  if (IsBlank(question)) return Status::InvalidArgument("the question is empty");
  CxrTurn turn{.question = question, .history = history.empty() ? p.history : history};
  if (history.empty()) {  // later questions of the CLI's have the images in the history already, by id
    turn.image_ids = p.image_ids;
    turn.image_errors = p.image_errors;
  }
  CxrConfig config = p.config;
  config.cancel = hooks.cancel;
  config.approve = hooks.approve;
  std::shared_ptr<RunImageFolder> folder;
  if (service.store()) {
    folder = std::make_shared<RunImageFolder>(RunImageFolder::ForStore(service.store()->path()));
  }
  CxrRunOutcome out;
  std::shared_ptr<void> live;  // this run in the service's Cancel while it runs
  bool started = false;        // hooks.on_started called (once: for the first of the attempts)
  auto planner = [&] { return MakeCxrPlanner(config.tools.store, p.settings.threshold); };
  out.how = RunWithFallback(
      p.model, planner, true, hooks.cancel, [&](std::shared_ptr<ChatModel> m) -> std::optional<std::string> {
        // The configured model, then (or, without one, only) the offline plan.
        const bool offline = m != p.model;
        config.model = std::move(m);
        std::unique_ptr<RunRecorder> recorder;
        if (service.store()) {
          recorder = std::make_unique<RunRecorder>(
              service.store(),
              RunRecord{.app = "cxr",
                        .inputs = CxrInputs(p, question),
                        .model = offline ? Json{{"name", config.model->name()}, {"protocol", "rules"}}
                                         : StoredModel(p.settings.model)},
              hooks.warn);
          std::function<void(const RunState&)> keep =
              KeepingHook(recorder->Hook(), folder, config.tools.store, &p.kept_images, hooks.warn);
          // The run's id is known at its first checkpoint: from then on Cancel finds it.
          config.on_checkpoint = [&service, &live, &hooks, &started, rec = recorder.get(),
                                  keep = std::move(keep)](const RunState& s) {
            if (!live && !s.trace.run_id.empty()) live = service.TrackRun(s.trace.run_id, hooks.cancel);
            keep(s);
            if (!started && !rec->run_id().empty()) {
              started = true;
              if (hooks.on_started) hooks.on_started(rec->run_id());
            }
          };
          config.on_event = recorder->Events(hooks.on_event);
        } else {
          config.on_checkpoint = nullptr;
          config.on_event = hooks.on_event;
        }
        out.outcome = RunCxr(turn, config);
        live.reset();
        const bool interrupted = hooks.cancel.cancelled() && out.outcome.status == RunStatus::kError;
        const RunResult end = EndOf(out.outcome, &p.kept_images);
        out.status = StoredRunStatus(end, interrupted);
        out.run_id = out.outcome.trace.run_id;
        out.stored = false;
        if (recorder) {
          recorder->Finish(end, interrupted);
          out.stored = !recorder->run_id().empty();
          if (out.stored && !started) {
            started = true;
            if (hooks.on_started) hooks.on_started(recorder->run_id());
          }
        }
        if (out.outcome.model_answered || offline || out.outcome.status == RunStatus::kAwaitingApproval) {
          return std::nullopt;
        }
        return out.outcome.error.empty() ? "no usable reply" : out.outcome.error;
      });
  return out;
}

Result<std::unique_ptr<PreparedCxrResume>> PrepareCxrResume(RunService& service, const RunRecord& run,
                                                            const ResumeSpec& spec,
                                                            const std::string& vision_api_key) {
  const std::shared_ptr<RunStore>& store = service.store();
  if (!store) return Status::FailedPrecondition("no run store: a cxr run cannot be resumed without one");
  auto fail = [&](Status s) {
    store->ReleaseRun(run.id);
    return s;
  };
  if (run.app != "cxr") return fail(Status::InvalidArgument("run '" + run.id + "' is not a cxr run"));
  auto p = std::make_unique<PreparedCxrResume>();
  p->run = run;
  p->settings = SettingsFromInputs(run.inputs);
  p->settings.vision_api_key = vision_api_key;
  Result<std::optional<RunState>> state = store->LatestState(run.id);
  if (!state.ok()) return fail(state.status());
  if (!state->has_value()) {
    return fail(Status::FailedPrecondition("run '" + run.id + "' has no checkpoint to resume from"));
  }
  p->state = std::move(**state);
  if (!p->state.app.is_object() || !p->state.app["graph"].is_object()) {
    return fail(Status::FailedPrecondition("run '" + run.id + "' was recorded by a medreact whose cxr runs could "
                                           "not be resumed (its checkpoint has no graph position)"));
  }
  for (const std::string& call : p->state.awaiting_approval) {
    if (!p->state.approvals.count(call)) {
      return fail(Status::FailedPrecondition("run '" + run.id + "' still waits for a decision on " +
                                             PrintableLine(call)));
    }
  }
  // The toolbox, then the images from the run folder under their ids.
  Result<Toolbox> box = BuildToolbox(service, p->settings);
  if (!box.ok()) return fail(Status::InvalidArgument("run '" + run.id + "': " + box.status().message()));
  Result<std::string> image_dir = PrepareImageDir(p->settings.image_dir);
  if (!image_dir.ok()) return fail(image_dir.status());
  auto images = std::make_shared<imaging::ImageStore>(imaging::ImageStoreOptions{
      .max_side = p->settings.image_max_side, .keep_phi = p->settings.keep_phi, .output_dir = *image_dir});
  const RunImageFolder folder(RunImageFolder::ForStore(store->path()));
  if (Status s = RestoreImages(folder, p->state.app.value("images", Json::array()), *images, run.id); !s.ok()) {
    return fail(s);
  }
  for (const Json& e : run.inputs.value("image_errors", Json::array())) {
    p->turn.image_errors.push_back({StringOr(e, "file"), StringOr(e, "error")});
  }
  p->turn.question = StringOr(run.inputs, "message");
  CxrConfig& config = p->config;
  config.tools.store = images;
  config.tools.endpoints = box->client;
  config.tools.vision = box->vision;
  config.tools.input_errors = p->turn.image_errors;
  ApplyLimits(p->settings, config);
  config.stream = config.stream || spec.stream;
  if (Status s = ApplyCxrRules(p->settings.require_approval, config); !s.ok()) {
    return fail(Status::InvalidArgument("run '" + run.id + "': " + s.message()));
  }
  // The model: the spec's when it names one, else the stored one (the offline plan's too).
  if (spec.model.url.empty() && StringOr(run.model, "protocol") == "rules") {
    p->model = MakeCxrPlanner(images, p->settings.threshold);
  } else {
    const ModelSettings settings = spec.model.url.empty() ? ModelFromStored(run.model, spec.model.api_key) : spec.model;
    if (settings.url.empty()) {
      return fail(
          Status::InvalidArgument("run '" + run.id + "' has no model URL stored; give the model URL (llm_url)"));
    }
    Result<std::shared_ptr<ChatModel>> model = service.BuildModel(settings);
    if (!model.ok()) return fail(model.status());
    p->model = std::move(*model);
  }
  p->settings.image_dir = *image_dir;
  return p;
}

CxrRunOutcome RunCxrResume(RunService& service, std::unique_ptr<PreparedCxrResume> p, const RunHooks& hooks) {
  CxrConfig& config = p->config;
  config.model = p->model;
  config.cancel = hooks.cancel;
  config.approve = hooks.approve;
  RunRecorder recorder(service.store(), p->run, hooks.warn, /*resumed=*/true);
  Json kept = p->state.app.value("images", Json::array());
  auto folder = std::make_shared<RunImageFolder>(RunImageFolder::ForStore(service.store()->path()));
  config.on_checkpoint = KeepingHook(recorder.Hook(), folder, config.tools.store, &kept, hooks.warn);
  config.on_event = recorder.Events(hooks.on_event);
  CxrRunOutcome out;
  std::shared_ptr<void> live = service.TrackRun(p->run.id, hooks.cancel);
  if (hooks.on_started) hooks.on_started(p->run.id);
  out.outcome = ResumeCxr(p->turn, config, p->state);
  live.reset();
  const bool interrupted = hooks.cancel.cancelled() && out.outcome.status == RunStatus::kError;
  const RunResult end = EndOf(out.outcome, &kept);
  recorder.Finish(end, interrupted);
  out.run_id = p->run.id;
  out.status = StoredRunStatus(end, interrupted);
  out.stored = true;
  out.how.planner = StringOr(p->run.model, "protocol") == "rules" ? "rules" : "model";
  return out;
}

Result<Json> CxrRunImages(const RunService& service, const std::string& run_id) {
  if (!service.store()) return Status::FailedPrecondition("no run store");
  Result<RunRecord> run = service.store()->Get(run_id);
  if (!run.ok()) return run.status();
  Json out = Json::array();
  // A run under way or paused: its last checkpoint's list; an ended one: its result's (EndOf).
  Json kept;
  Result<std::optional<RunState>> state = service.store()->LatestState(run_id);
  if (!state.ok()) return state.status();
  if (state->has_value() && (*state)->app.is_object()) kept = (*state)->app.value("images", Json());
  if (!kept.is_array() && run->result.is_object()) {
    const Json fields = run->result.value("final_fields", Json::object());
    if (fields.is_object()) kept = fields.value("images_kept", Json());
  }
  if (!kept.is_array()) return out;
  for (const Json& k : kept) {
    if (!k.is_object()) continue;
    const std::string origin = StringOr(k, "origin");
    Json image{{"id", StringOr(k, "id")},
               {"sha256", StringOr(k, "sha256")},
               {"origin", origin},
               {"label", StringOr(k, "label")},
               {"format", StringOr(k, "format", origin == "user" ? "unknown" : "png")}};
    if (const std::string png = StringOr(k, "png_sha256"); !png.empty()) image["png_sha256"] = png;
    out.push_back(std::move(image));
  }
  return out;
}

Result<std::shared_ptr<ToolRegistry>> CxrDecisionTools(const RunService& service, const RunRecord& run) {
  const CxrSettings settings = SettingsFromInputs(run.inputs);
  Result<Toolbox> box = BuildToolbox(service, settings);
  if (!box.ok()) return Status::InvalidArgument("run '" + run.id + "': " + box.status().message());
  imaging::ImagingPackOptions options{.store = std::make_shared<imaging::ImageStore>(),
                                      .endpoints = box->client,
                                      .vision = box->vision,
                                      .finding_threshold = settings.threshold};
  auto tools = std::make_shared<ToolRegistry>();
  if (Status s = imaging::RegisterImagingPack(*tools, options); !s.ok()) return s;
  return tools;
}

}  // namespace medreact::service
