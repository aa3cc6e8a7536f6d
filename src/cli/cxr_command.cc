// `medreact cxr IMAGE... [--question TEXT]`: the chest X-ray agent (seed 000,
// MedRAX) on PNG, JPEG or DICOM images.
//
// The images are read once into the run's image store (downscaled, encoded
// once, referred to by id); a file that cannot be read is named on stderr
// and told to the model, and the run goes on with the others. The toolbox is
// what is configured: imaging endpoints by URL (--classifier-url,
// --segmentation-url, --grounding-url or MEDREACT_CXR_*), a vision model for
// VQA, reports and grounding (--vision-url, --vision-model); stderr says which
// tools are offered and why the others are not. The reasoning model is the
// usual --llm-url; without one (or with --planner rules) the offline plan runs
// the tools in MedRAX's order and writes a templated, cited summary that says
// no language model was involved.
//
// With --question, one question; without it, a conversation on a terminal
// (or with --interactive, questions read line by line from stdin): the model
// may ask a clarifying question, the user answers, history and images are
// kept. stdout gets each answer; --out writes the last turn's result JSON
// (answer, findings, tool calls and results, annotated image paths); --trace
// the last turn's trace. Generated images (masks, annotated pictures) go to
// --image-dir, else to a new private folder under the temp directory.
// Exit 0: answered; 1: a run ended on a limit or error, or no image could be
// read (an answer is still printed); 2: bad usage.
//
// Each question's run is recorded in the run store (--store, --no-store): its
// inputs (image paths, question, endpoint URLs without credentials, options),
// its steps as they complete, its status and result, for `medreact runs
// list/show`. A cxr run is not resumed (runs_resume_apps.cc says why).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "apps/common/app_runner.h"
#include "apps/cxr/cxr_app.h"
#include "apps/cxr/cxr_planner.h"
#include "cli/cli_io.h"
#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/interrupt.h"
#include "cli/model_flags.h"
#include "cli/runs_resume_apps.h"
#include "cli/setting_flags.h"
#include "cli/store_flags.h"
#include "medreact/model_factory.h"
#include "tools/imaging/imaging_client.h"
#include "tools/imaging/vision_client.h"

namespace medreact::cli {
namespace {

struct CxrFlags {
  ModelFlags model;
  std::vector<std::string> images;
  std::string question;
  bool interactive = false;
  std::string planner = "auto";
  std::string vision_url;
  std::string vision_model;
  std::string vision_api_key;
  std::string classifier_url;
  std::string segmentation_url;
  std::string grounding_url;
  std::string image_dir;
  int image_max_side = 1024;
  double threshold = imaging::kDefaultFindingThreshold;
  std::string system_file;
  int max_steps = 12;
  double timeout_s = 600;
  double tool_timeout_s = 120;
  int parallel = 4;
  bool keep_phi = false;
  bool require_model = false;
  bool stream = false;
  bool verbose = false;
  bool quiet = false;
  std::string out_path;
  std::string trace_path;
  std::string events_path;
  StoreFlags store;
};

int Fail(const std::string& message) {
  std::cerr << "medreact cxr: " << WithFlagNames(message) << "\n";
  return kExitBadInput;
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
  std::error_code ec;
  std::filesystem::create_directories(requested, ec);
  if (ec || !std::filesystem::is_directory(requested)) {
    return Status::InvalidArgument("--image-dir " + requested + " is not a folder that can be created or written");
  }
  return requested;
}

// What the run store keeps of a cxr run: what it was asked and with what,
// never a key (URLs without credentials or query).
Json CxrInputs(const CxrFlags& flags, const imaging::ImagingEndpoints& endpoints, const std::string& image_dir,
               const std::string& question) {
  Json images = Json::array();
  for (const std::string& path : flags.images) images.push_back(AbsoluteInputPath(path));
  return Json{{"message", question},
              {"images", std::move(images)},
              {"planner", flags.planner},
              {"vision", {{"url", UrlForStore(flags.vision_url)}, {"model", flags.vision_model}}},
              {"endpoints",
               {{"classifier", UrlForStore(endpoints.classifier_url)},
                {"segmentation", UrlForStore(endpoints.segmentation_url)},
                {"grounding", UrlForStore(endpoints.grounding_url)}}},
              {"system_prompt", AbsoluteInputPath(flags.system_file)},
              {"image_dir", AbsoluteInputPath(image_dir)},
              {"out", AbsoluteInputPath(flags.out_path)},
              {"options",
               {{"max_steps", flags.max_steps},
                {"timeout_s", flags.timeout_s},
                {"tool_timeout_s", flags.tool_timeout_s},
                {"parallel", flags.parallel},
                {"threshold", flags.threshold},
                {"image_max_side", flags.image_max_side},
                {"keep_phi", flags.keep_phi}}}};
}

// The end of a recorded cxr run: its status, answer, steps and the --out JSON.
void FinishRecordedCxr(RunRecorder* recorder, const CxrOutcome& outcome) {
  if (!recorder) return;
  RunResult end;
  end.status = outcome.status;
  end.answer = outcome.answer;
  end.error = outcome.error;
  end.final_fields = outcome.result;
  end.trace = outcome.trace;
  end.usage = outcome.trace.usage;
  end.steps = static_cast<int>(outcome.trace.steps.size());
  for (const StepRecord& step : outcome.trace.steps) end.tool_calls += static_cast<int>(step.tool_results.size());
  recorder->Finish(end, /*interrupted=*/false);  // not resumable: a stopped run ends as it stood
}

int RunCxrCommand(const CxrFlags& flags) {
  if (!flags.question.empty() && IsBlank(flags.question)) return Fail("the question is empty");
  if (!flags.question.empty() && flags.interactive) return Fail("give --question or --interactive, not both");
  const RunOutputs outputs{.trace_path = flags.trace_path,
                           .events_path = flags.events_path,
                           .result_path = flags.out_path,
                           .verbose = flags.verbose,
                           .stream = flags.stream};
  if (Status s = RunReporter::CheckPaths(outputs); !s.ok()) return Fail(s.message());
  Result<std::string> provider = ResolveProvider(flags.planner, flags.model.protocol, HasModel(flags.model), true);
  if (!provider.ok()) return Fail(provider.status().message());

  // The toolbox.
  Result<imaging::ImagingEndpoints> endpoints =
      imaging::ResolveImagingEndpoints({.classifier_url = flags.classifier_url,
                                        .segmentation_url = flags.segmentation_url,
                                        .grounding_url = flags.grounding_url,
                                        .request_timeout = SecondsToMillis(flags.tool_timeout_s)});
  if (!endpoints.ok()) return Fail(endpoints.status().message());
  std::shared_ptr<const imaging::VisionClient> vision;
  if (!flags.vision_url.empty()) {
    Result<std::shared_ptr<ChatModel>> model = BuildModel({.provider = "native",
                                                           .base_url = flags.vision_url,
                                                           .model = flags.vision_model,
                                                           .api_key = flags.vision_api_key,
                                                           .request_timeout = SecondsToMillis(flags.tool_timeout_s),
                                                           .max_retries = 2});
    if (!model.ok()) return Fail("--vision-url: " + model.status().message());
    vision = std::make_shared<imaging::VisionClient>(*model);
  }
  std::shared_ptr<ChatModel> model;
  if (*provider != "rules") {
    Result<std::shared_ptr<ChatModel>> made = MakeModel(flags.model, {});
    if (!made.ok()) return Fail(made.status().message());
    model = *made;
  }
  std::string system_prompt;
  {
    Result<std::string> prompt = LoadCxrSystemPrompt(flags.system_file);
    if (!prompt.ok()) return Fail(prompt.status().message());
    system_prompt = std::move(*prompt);
  }
  Result<std::string> image_dir = PrepareImageDir(flags.image_dir);
  if (!image_dir.ok()) return Fail(image_dir.status().message());

  // The images, read once.
  auto store = std::make_shared<imaging::ImageStore>(imaging::ImageStoreOptions{
      .max_side = flags.image_max_side, .keep_phi = flags.keep_phi, .output_dir = *image_dir});
  CxrTurn turn;
  for (const std::string& path : flags.images) {
    auto added = store->AddFile(path);
    if (added.ok()) {
      turn.image_ids.push_back((*added)->id);
      if (!flags.quiet) {
        std::cerr << "cxr: " << (*added)->id << " = " << (*added)->label << " ("
                  << imaging::ImageFormatName((*added)->source_format) << ", " << (*added)->original_width << " x "
                  << (*added)->original_height << " px)\n";
      }
    } else {
      turn.image_errors.push_back({path, added.status().message()});
      std::cerr << "medreact cxr: " << added.status().message() << "\n";
    }
  }

  CxrConfig config;
  config.tools.store = store;
  if (!endpoints->classifier_url.empty() || !endpoints->segmentation_url.empty() || !endpoints->grounding_url.empty()) {
    config.tools.endpoints = std::make_shared<imaging::ImagingClient>(*endpoints);
  }
  config.tools.vision = vision;
  config.tools.finding_threshold = flags.threshold;
  config.tools.input_errors = turn.image_errors;
  config.system_prompt = system_prompt;
  config.max_steps = flags.max_steps;
  config.timeout = SecondsToMillis(flags.timeout_s);
  config.tool_timeout = SecondsToMillis(flags.tool_timeout_s);
  config.max_parallel_tools = flags.parallel;
  config.stream = flags.stream;
  if (!flags.quiet) {
    std::string offered, missing;
    for (const auto& t : imaging::ImagingToolsStatus(config.tools)) {
      (t.offered ? offered : missing) += "\n  " + t.name + ": " + WithFlagNames(t.reason);
    }
    std::cerr << "cxr: tools offered:" << (offered.empty() ? " none" : offered) << "\n";
    if (!missing.empty()) std::cerr << "cxr: tools not offered:" << missing << "\n";
    std::cerr << "cxr: generated images go to " << *image_dir << "\n";
  }

  Result<std::shared_ptr<RunStore>> run_store =
      OpenStoreForRun(flags.store, [](const std::string& w) { std::cerr << "medreact cxr: " << w << "\n"; });
  if (!run_store.ok()) return Fail(run_store.status().message());
  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
  if (!reporter.ok()) return Fail(reporter.status().message());
  const EventSink sink = (*reporter)->sink();  // each attempt's recorder keeps its copy first
  config.on_event = sink;
  config.cancel = InstallInterruptHandlers();
  auto planner = [&] { return MakeCxrPlanner(store, flags.threshold); };

  const bool no_image_read = turn.image_ids.empty();
  const bool conversation = flags.interactive || (flags.question.empty() && isatty(STDIN_FILENO) != 0);
  int exit_code = kExitOk;
  CxrOutcome last;
  std::vector<Message> history;
  bool first = true;
  while (true) {
    std::string question = flags.question;
    if (conversation) {
      if (isatty(STDIN_FILENO) != 0) std::cerr << (first ? "Question (empty line or 'exit' to stop): " : "> ");
      if (!std::getline(std::cin, question)) break;
      if (IsBlank(question) || question == "exit" || question == "quit") break;
    } else if (question.empty()) {
      question = kDefaultCxrQuestion;
    }
    turn.question = question;
    turn.history = history;
    if (!first) {
      turn.image_ids.clear();  // the images are in the history already, by id
      turn.image_errors.clear();
    }
    FallbackOutcome how = RunWithFallback(model, planner, true, config.cancel,
                                          [&](std::shared_ptr<ChatModel> m) -> std::optional<std::string> {
                                            // RunWithFallback gives the configured model, then (or,
                                            // without one, only) the offline plan.
                                            const bool offline = m != model;
                                            config.model = std::move(m);
                                            std::unique_ptr<RunRecorder> recorder = MakeRunRecorder(
                                                *run_store,
                                                {.app = "cxr",
                                                 .inputs = CxrInputs(flags, *endpoints, *image_dir, question),
                                                 .model =
                                                     offline
                                                         ? Json{{"name", config.model->name()}, {"protocol", "rules"}}
                                                           : StoredModelJson(flags.model)},
                                                std::cerr, "medreact cxr");
                                            config.on_checkpoint = recorder ? recorder->Hook() : nullptr;
                                            config.on_event = recorder ? recorder->Events(sink) : sink;
                                            last = RunCxr(turn, config);
                                            config.on_checkpoint = nullptr;
                                            config.on_event = sink;
                                            FinishRecordedCxr(recorder.get(), last);
                                            if (last.model_answered || offline) {
                                              return std::nullopt;
                                            }
                                            return last.error.empty() ? "no usable reply" : last.error;
                                          });
    if (how.fell_back) {
      std::cerr << "medreact cxr: the model never answered (" << how.model_failure
                << "); the offline plan answered instead\n";
      if (flags.require_model) exit_code = kExitRunFailed;
    }
    std::cout << last.answer << "\n" << std::flush;
    if (last.status != RunStatus::kFinished) {
      std::cerr << "medreact cxr: run ended with status '" << RunStatusName(last.status) << "': " << last.error << "\n";
      exit_code = kExitRunFailed;
    }
    for (const Json& a : last.result.value("annotated_images", Json::array())) {
      if (!a.value("path", std::string()).empty())
        std::cerr << "cxr: annotated image " << a["path"].get<std::string>() << "\n";
    }
    history = last.messages;
    first = false;
    if (!conversation || config.cancel.cancelled()) break;
  }
  if (first) return ExitCodeAfterInterrupt(kExitOk);  // a conversation ended before any question
  if (no_image_read) exit_code = kExitRunFailed;      // an answer was printed, but no image could be read
  if (Status s = (*reporter)->WriteTrace(last.trace); !s.ok()) {
    std::cerr << "medreact cxr: " << s.message() << "\n";
    exit_code = kExitRunFailed;
  }
  if (Status s = (*reporter)->WriteResult(DumpJson(last.result, 2) + "\n"); !s.ok()) {
    std::cerr << "medreact cxr: " << s.message() << "\n";
    exit_code = kExitRunFailed;
  }
  return ExitCodeAfterInterrupt(exit_code);
}

}  // namespace

void AddCxrCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<CxrFlags>();
  CLI::App* cmd = app.add_subcommand(
      "cxr", "the chest X-ray agent (MedRAX): imaging tools over model endpoints, a model or the offline plan");
  AddModelFlags(cmd, &flags->model);
  cmd->add_option("images", flags->images, "chest X-ray images: PNG, JPEG or DICOM")->required();
  cmd->add_option("--question", flags->question,
                  "the question (default: a conversation on a terminal, else a general read of the images)");
  cmd->add_flag("--interactive", flags->interactive, "a conversation: questions read line by line from stdin");
  cmd->add_option("--planner", flags->planner, "auto (the model when configured), model, or rules (offline plan)")
      ->check(CLI::IsMember({"auto", "model", "rules"}));
  cmd->add_option("--vision-url", flags->vision_url,
                  "OpenAI-compatible vision model server for VQA, reports, grounding")
      ->envname("MEDREACT_CXR_VISION_URL");
  cmd->add_option("--vision-model", flags->vision_model, "the vision model's name")
      ->envname("MEDREACT_CXR_VISION_MODEL");
  cmd->add_option("--vision-api-key", flags->vision_api_key, "bearer token for the vision server")
      ->envname("MEDREACT_CXR_VISION_API_KEY");
  cmd->add_option("--classifier-url", flags->classifier_url,
                  "classifier endpoint, docs/imaging-endpoints.md (or MEDREACT_CXR_CLASSIFIER_URL)");
  cmd->add_option("--segmentation-url", flags->segmentation_url,
                  "segmentation endpoint (or MEDREACT_CXR_SEGMENTATION_URL)");
  cmd->add_option("--grounding-url", flags->grounding_url,
                  "phrase-grounding endpoint (or MEDREACT_CXR_GROUNDING_URL; MEDREACT_CXR_API_KEY for all three)");
  cmd->add_option("--image-dir", flags->image_dir,
                  "folder for masks and annotated images (default: a new temp folder)");
  cmd->add_option("--image-max-side", flags->image_max_side, "longest side in pixels after downscaling")
      ->check(CLI::Range(64, 8192));
  cmd->add_option("--threshold", flags->threshold, "classifier probability at which a finding counts (0..1)")
      ->check(FiniteRange(0, 1, "probability"));
  cmd->add_option("--system-prompt", flags->system_file,
                  "the system prompt file (default: data/prompts/cxr_system.md)");
  cmd->add_option("--max-steps", flags->max_steps, "model turns per question")->check(CLI::Range(1, 100));
  cmd->add_option("--timeout", flags->timeout_s, "seconds per question")->check(Seconds());
  cmd->add_option("--tool-timeout", flags->tool_timeout_s, "seconds for one tool call")->check(Seconds());
  cmd->add_option("--parallel", flags->parallel, "tool calls of one turn run at once")->check(CLI::Range(1, 64));
  cmd->add_flag("--keep-phi", flags->keep_phi, "keep patient identifiers in DICOM metadata");
  cmd->add_flag("--require-model", flags->require_model, "exit 1 when the offline plan stood in for the model");
  cmd->add_flag("--stream", flags->stream, "stream the model's text to stderr as it arrives");
  cmd->add_flag("-v,--verbose", flags->verbose, "progress on stderr (tool names and timings only)");
  cmd->add_flag("-q,--quiet", flags->quiet, "no information lines on stderr");
  cmd->add_option("--out", flags->out_path, "write the result (JSON) to this file");
  cmd->add_option("--trace", flags->trace_path, "write the run trace (JSON) to this file");
  cmd->add_option("--events", flags->events_path, "write every event as JSON lines to this file");
  AddStoreFlags(cmd, &flags->store);
  cmd->callback([flags, exit_code] { *exit_code = RunCxrCommand(*flags); });
}

}  // namespace medreact::cli
