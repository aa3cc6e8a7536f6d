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
// its checkpoints, the images it read and made (by content hash in the run
// folder beside the store), its status and result, for `medreact runs
// list/show/resume`. The run itself (checks, toolbox, images, recording,
// resume) is the run service's (service/cxr_runs.h); this file keeps the
// flags, the conversation on stdin and the printing.
//
// Approval (--require-approval RULE, --approval-file, --approval-prompt; the
// rules all, network — the tools that call an imaging endpoint or the vision
// model — and tool:NAME): a call that waits is asked on the terminal or the
// run pauses (exit 3) until `medreact runs approve|reject`.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "apps/common/app_runner.h"
#include "apps/cxr/cxr_app.h"
#include "cli/approval_flags.h"
#include "cli/cli_io.h"
#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/interrupt.h"
#include "cli/model_flags.h"
#include "cli/setting_flags.h"
#include "cli/store_flags.h"
#include "core/printable.h"
#include "service/cxr_runs.h"
#include "tools/imaging/imaging_pack.h"

namespace medreact::cli {
namespace {

constexpr char kWho[] = "medreact cxr";

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
  ApprovalFlags approval;
};

int Fail(const std::string& message) {
  std::cerr << kWho << ": " << WithFlagNames(message) << "\n";
  return kExitBadInput;
}

service::CxrSettings SettingsOf(const CxrFlags& flags, std::vector<std::string> rules) {
  service::CxrSettings s;
  s.images = flags.images;
  s.planner = flags.planner;
  if (HasModel(flags.model)) s.model = ModelSettingsOf(flags.model);
  s.model.protocol = flags.model.protocol;
  s.vision_url = flags.vision_url;
  s.vision_model = flags.vision_model;
  s.vision_api_key = flags.vision_api_key;
  s.classifier_url = flags.classifier_url;
  s.segmentation_url = flags.segmentation_url;
  s.grounding_url = flags.grounding_url;
  s.image_dir = flags.image_dir;
  s.image_max_side = flags.image_max_side;
  s.threshold = flags.threshold;
  s.system_prompt_file = flags.system_file;
  s.max_steps = flags.max_steps;
  s.timeout_s = flags.timeout_s;
  s.tool_timeout_s = flags.tool_timeout_s;
  s.parallel = flags.parallel;
  s.keep_phi = flags.keep_phi;
  s.stream = flags.stream;
  s.out_path = flags.out_path;
  s.require_approval = std::move(rules);
  return s;
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
  Result<std::vector<std::string>> rules = ApprovalRules(flags.approval);
  if (!rules.ok()) return Fail(rules.status().message());
  Result<std::shared_ptr<RunStore>> run_store =
      OpenStoreForRun(flags.store, [](const std::string& w) { std::cerr << kWho << ": " << PrintableLine(w) << "\n"; });
  if (!run_store.ok()) return Fail(run_store.status().message());
  service::RunService runs(*run_store);

  // Every check, then the images read once (service/cxr_runs.h).
  Result<std::unique_ptr<service::PreparedCxr>> prepared = service::PrepareCxr(runs, SettingsOf(flags, *rules));
  if (!prepared.ok()) return Fail(prepared.status().message());
  service::PreparedCxr& p = **prepared;
  for (const auto& [path, why] : p.image_errors) std::cerr << kWho << ": " << why << "\n";
  if (!flags.quiet) {
    for (const std::string& id : p.image_ids) {
      auto image = p.config.tools.store->Get(id);
      if (!image.ok()) continue;
      std::cerr << "cxr: " << PrintableLine((*image)->id) << " = " << PrintableLine((*image)->label) << " ("
                << imaging::ImageFormatName((*image)->source_format) << ", " << (*image)->original_width << " x "
                << (*image)->original_height << " px)\n";
    }
    std::string offered, missing;
    for (const auto& t : imaging::ImagingToolsStatus(p.config.tools)) {
      (t.offered ? offered : missing) += "\n  " + t.name + ": " + PrintableLine(WithFlagNames(t.reason));
    }
    std::cerr << "cxr: tools offered:" << (offered.empty() ? " none" : offered) << "\n";
    if (!missing.empty()) std::cerr << "cxr: tools not offered:" << missing << "\n";
    std::cerr << "cxr: generated images go to " << p.image_dir << "\n";
  }
  // The terminal approver checks an edit against the offered tools' schemas.
  auto offered_tools = std::make_shared<ToolRegistry>();
  (void)imaging::RegisterImagingPack(*offered_tools, p.config.tools);

  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
  if (!reporter.ok()) return Fail(reporter.status().message());
  const service::RunHooks hooks{
      .on_event = (*reporter)->sink(),
      .cancel = InstallInterruptHandlers(),
      .approve = p.config.needs_approval ? TerminalApprover(flags.approval.prompt, offered_tools, std::cin, std::cerr)
                                         : nullptr,
      .warn = [](const std::string& w) { std::cerr << kWho << ": " << PrintableLine(WithFlagNames(w)) << "\n"; }};

  const bool no_image_read = p.image_ids.empty();
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
    Result<service::CxrRunOutcome> ran = service::RunCxrQuestion(runs, p, question, history, hooks);
    if (!ran.ok()) return Fail(ran.status().message());
    last = ran->outcome;
    if (ran->how.fell_back) {
      std::cerr << kWho << ": the model never answered (" << PrintableLine(ran->how.model_failure)
                << "); the offline plan answered instead\n";
      if (flags.require_model) exit_code = kExitRunFailed;
    }
    first = false;
    if (ran->status == "awaiting_approval") {
      RunResult paused;
      paused.error = last.error;
      paused.trace.run_id = ran->run_id;
      ReportPause(paused, ran->stored, std::cerr, kWho);
      exit_code = kExitAwaitingApproval;
      break;
    }
    std::cout << Printable(last.answer) << "\n" << std::flush;  // endpoints' labels and names reach it: escaped
    if (ran->status == "interrupted" && ran->stored) {
      std::cerr << kWho << ": the run was interrupted; go on with it with 'medreact runs resume " << ran->run_id
                << "'\n";
    }
    if (last.status != RunStatus::kFinished) {
      std::cerr << kWho << ": run ended with status '" << RunStatusName(last.status)
                << "': " << PrintableLine(last.error) << "\n";
      exit_code = kExitRunFailed;
    }
    for (const Json& a : last.result.value("annotated_images", Json::array())) {
      if (!a.value("path", std::string()).empty())
        std::cerr << "cxr: annotated image " << PrintableLine(a["path"].get<std::string>()) << "\n";
    }
    history = last.messages;
    if (!conversation || hooks.cancel.cancelled()) break;
  }
  if (first) return ExitCodeAfterInterrupt(kExitOk);  // a conversation ended before any question
  if (exit_code == kExitAwaitingApproval) return exit_code;
  if (no_image_read) exit_code = kExitRunFailed;      // an answer was printed, but no image could be read
  if (Status s = (*reporter)->WriteTrace(last.trace); !s.ok()) {
    std::cerr << kWho << ": " << s.message() << "\n";
    exit_code = kExitRunFailed;
  }
  if (Status s = (*reporter)->WriteResult(DumpJson(last.result, 2) + "\n"); !s.ok()) {
    std::cerr << kWho << ": " << s.message() << "\n";
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
  AddApprovalFlags(cmd, &flags->approval);
  cmd->callback([flags, exit_code] { *exit_code = RunCxrCommand(*flags); });
}

}  // namespace medreact::cli
