// `medreact runs list|show|resume|prune`: the run store (issue 14).
//
//   list               the runs, newest first: id, app, status, steps, last update, model (--json: records)
//   show RUN_ID        a run's record and its steps (--json: {"run", "steps"}; --events: its stored
//                      events as JSON lines)
//   resume RUN_ID      goes on with a run that did not end (killed, crashed, interrupted) from its
//                      last checkpoint, into the same run id, and prints the answer as `chat` does
//                      (a triage or extract run: its result as that command does, runs_resume_apps.h;
//                      a research run: its report as `research` does, research_runs_cli.h)
//                      a cxr run: its answer as `cxr` does, runs_resume_cxr.h)
//   approve RUN_ID     a run paused for approval (status awaiting_approval): runs the waiting
//                      calls (--call ID: one of them; --args JSON: with these arguments) and goes on
//   reject RUN_ID      the same, not running them; --reason TEXT reaches the model as their result
//   prune              deletes ended runs (--older-than DAYS, --status S, --dry-run)
//
// A decision is stored before the run goes on, so a crash after it loses
// nothing; deciding some of several waiting calls stores the decisions and
// leaves the run paused (exit 3) until the last is decided.
//
// The model of a resumed run: the model flags or MEDREACT_LLM_* when a URL is
// given, else the stored URL, name and protocol with the API key from
// MEDREACT_LLM_API_KEY (the store never holds one). Exit codes as elsewhere:
// 0 done, 1 the resumed run ended on a limit or error, 2 bad usage (an
// unknown run, a run that ended, an unusable store), 3 the run is (still,
// or again) paused for approval.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>

#include "apps/chat/chat_app.h"
#include "apps/common/app_runner.h"
#include "cli/approval_flags.h"
#include "cli/chat_output.h"
#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/interrupt.h"
#include "cli/model_flags.h"
#include "cli/research_runs_cli.h"
#include "cli/runs_resume_apps.h"
#include "cli/runs_resume_cxr.h"
#include "cli/setting_flags.h"
#include "cli/store_flags.h"
#include "core/printable.h"
#include "medreact/json.h"
#include "service/run_json.h"
#include "service/run_service.h"

namespace medreact::cli {
namespace {

constexpr char kWho[] = "medreact runs";

int Fail(const std::string& message, int code = kExitBadInput) {
  std::cerr << kWho << ": " << WithFlagNames(message) << "\n";
  return code;
}

// What the run was asked, as the app stored it: the message (chat, cxr,
// research), the findings (triage) or the note's path (extract).
std::string TaskLine(const Json& inputs) {
  for (const auto& [key, label] : {std::pair{"message", "message:  "}, std::pair{"findings", "findings: "},
                                   std::pair{"note", "note:     "}}) {
    const std::string text = StringOr(inputs, key);
    if (!text.empty()) return label + Preview(text, 200);
  }
  return "message:  (none stored)";
}

std::string ModelName(const RunRecord& r) {
  std::string name = StringOr(r.model, "name");
  return PrintableLine(name.empty() ? StringOr(r.model, "url") : name);
}

// ---- list ----

struct ListFlags {
  std::string store;
  std::string app;
  std::string status;
  int64_t limit = 0;
  bool json = false;
};

int RunList(const ListFlags& flags) {
  Result<std::shared_ptr<RunStore>> store = OpenStoreToRead(flags.store, /*fsync=*/false, /*read_only=*/true);
  if (!store.ok()) return Fail(store.status().message());
  Result<std::vector<RunRecord>> runs =
      (*store)->List({.app = flags.app, .status = flags.status, .limit = flags.limit});
  if (!runs.ok()) return Fail(runs.status().message());
  if (flags.json) {
    Json out = Json::array();
    for (const RunRecord& r : *runs) out.push_back(service::RunRecordJson(r, /*brief=*/true));  // `show` has the inputs
    std::cout << Printable(DumpJson(out, 2)) << "\n";
    return kExitOk;
  }
  if (runs->empty()) {
    std::cout << "no runs in " << (*store)->path() << "\n";
    return kExitOk;
  }
  char line[512];
  std::snprintf(line, sizeof line, "%-22s %-10s %-12s %5s  %-20s  %s\n", "ID", "APP", "STATUS", "STEPS", "UPDATED",
                "MODEL");
  std::cout << line;
  for (const RunRecord& r : *runs) {
    std::snprintf(line, sizeof line, "%-22s %-10s %-12s %5lld  %-20s  %s\n", PrintableLine(r.id).c_str(),
                  PrintableLine(r.app).c_str(), PrintableLine(r.status).c_str(), static_cast<long long>(r.steps),
                  PrintableLine(r.updated_at).c_str(), Preview(ModelName(r), 60).c_str());
    std::cout << line;
  }
  return kExitOk;
}

// ---- show ----

struct ShowFlags {
  std::string store;
  std::string run_id;
  bool json = false;
  bool events = false;
};

int RunShow(const ShowFlags& flags) {
  Result<std::shared_ptr<RunStore>> store = OpenStoreToRead(flags.store, /*fsync=*/false, /*read_only=*/true);
  if (!store.ok()) return Fail(store.status().message());
  service::RunService runs(*store);
  if (flags.events) {  // the lines as --events wrote them (model_delta left out)
    Result<std::vector<RunEvent>> events = runs.Events(flags.run_id);
    if (!events.ok()) return Fail(events.status().message());
    for (const RunEvent& e : *events) std::cout << e.json << "\n";
    return kExitOk;
  }
  Result<service::RunView> view = runs.Show(flags.run_id);
  if (!view.ok()) return Fail(view.status().message());
  const RunRecord* run = &view->run;
  const std::vector<StepRecord>* steps = &view->steps;
  const std::vector<ToolCall>& waiting = view->waiting;
  const int waiting_step = view->waiting_step;
  if (flags.json) {
    const Json out = service::RunViewJson(*view);
    std::cout << Printable(DumpJson(out, 2)) << "\n";
    return kExitOk;
  }
  const RunRecord& r = *run;
  std::cout << "run:      " << PrintableLine(r.id) << " (" << PrintableLine(r.app) << ")\n"
            << "status:   " << PrintableLine(r.status) << "\n"
            << "model:    " << ModelName(r) << " (" << PrintableLine(StringOr(r.model, "protocol")) << ")\n"
            << "created:  " << PrintableLine(r.created_at) << ", updated " << PrintableLine(r.updated_at) << "\n"
            << "steps:    " << r.steps << ", checkpoints " << r.checkpoints << ", events " << r.events << "\n"
            << TaskLine(r.inputs) << "\n";
  if (!r.owner.empty()) {
    std::cout << "held by:  " << PrintableLine(DescribeRunOwner(r.owner)) << " (lease until "
              << PrintableLine(r.lease_until) << ")\n";
  }
  if (r.result.is_object()) {
    std::cout << "answer:   " << Preview(StringOr(r.result, "answer"), 400) << "\n";
    const std::string error = StringOr(r.result, "error");
    if (!error.empty()) std::cout << "stopped:  " << PrintableLine(error) << "\n";
  }
  if (!waiting.empty()) {
    std::cout << "waiting for approval (step " << waiting_step << "):\n";
    for (const ToolCall& c : waiting) {
      std::cout << "  call " << PrintableLine(c.id) << ": " << PrintableLine(c.name) << " "
                << Preview(c.arguments, 2000)
                << "\n";
    }
  }
  for (const StepRecord& s : *steps) {
    std::cout << "step " << s.index << (s.kind == "fallback" ? " (fallback synthesis)" : "") << "\n";
    if (!s.assistant.content.empty()) std::cout << "  says:   " << Preview(s.assistant.content, 160) << "\n";
    for (size_t i = 0; i < s.assistant.tool_calls.size(); ++i) {
      const ToolCall& c = s.assistant.tool_calls[i];
      std::cout << "  call:   " << PrintableLine(c.name) << " " << Preview(c.arguments, 160) << "\n";
      if (i < s.tool_results.size()) {
        const ToolResultRecord& t = s.tool_results[i];
        std::cout << (t.ok ? "  result: " : "  error:  ") << Preview(t.ok ? t.content : t.error, 160) << "\n";
      }
    }
    if (!s.model_error.empty()) std::cout << "  model error: " << Preview(s.model_error, 200) << "\n";
    for (const std::string& note : s.notes) std::cout << "  note:   " << Preview(note, 200) << "\n";
  }
  return kExitOk;
}

// ---- resume, approve, reject ----

struct ResumeFlags {
  std::string store;
  std::string run_id;
  ModelFlags model;
  bool json = false;
  bool verbose = false;
  bool stream = false;
  std::string trace_path;
  std::string events_path;
  std::string approval_prompt = "auto";
};

struct DecideFlags {
  ResumeFlags run;
  std::string call;    // --call: one waiting call; "" = all of them
  std::string args;    // --args (approve): the arguments to run it with
  std::string reason;  // --reason (reject): for the model
  std::string reviewer;  // --reviewer: who decides (default: the OS user)
};

RunOutputs OutputsOf(const ResumeFlags& flags) {
  return {.trace_path = flags.trace_path, .events_path = flags.events_path, .verbose = flags.verbose,
          .stream = flags.stream};
}

// The service's hooks for a run the CLI goes on with: events to the
// reporter (--events, -v, --stream), Ctrl-C, the terminal approver.
service::RunHooks CliHooks(RunReporter& reporter, const std::string& approval_prompt,
                           std::shared_ptr<const ToolRegistry> tools) {
  return {.on_event = reporter.sink(),
          .cancel = InstallInterruptHandlers(),
          .approve = tools ? TerminalApprover(approval_prompt, std::move(tools), std::cin, std::cerr) : nullptr,
          .warn = [](const std::string& w) { std::cerr << kWho << ": " << PrintableLine(w) << "\n"; }};
}

// Goes on with a chat run (resumed, or decided) through the service, and
// prints the result as `chat` does.
int ContinueChatRun(const ResumeFlags& flags, service::RunService& runs, const RunRecord& run) {
  const RunOutputs outputs{.trace_path = flags.trace_path, .events_path = flags.events_path,
                           .verbose = flags.verbose, .stream = flags.stream};
  if (Status s = RunReporter::CheckPaths(outputs); !s.ok()) return Fail(s.message());
  // The terminal approver needs the run's tools (an edit is checked against
  // their schemas).
  std::shared_ptr<const ToolRegistry> tools;
  if (Result<ChatInputs> inputs = ChatInputsFromJson(run.inputs); inputs.ok() && !inputs->require_approval.empty()) {
    Result<std::shared_ptr<ToolRegistry>> built = ChatTools(inputs->packs, inputs->context);
    if (built.ok()) tools = std::move(*built);
  }
  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
  if (!reporter.ok()) return Fail(reporter.status().message());
  service::ResumeSpec spec{.stream = flags.stream};
  spec.model = HasModel(flags.model) ? ModelSettingsOf(flags.model)
                                     : service::ModelSettings{.api_key = flags.model.api_key};
  Result<service::RunOutcome> out = runs.Continue(run.id, spec, CliHooks(**reporter, flags.approval_prompt, tools));
  if (!out.ok()) return Fail(out.status().message());
  if (out->status == "interrupted") {
    std::cerr << kWho << ": the run was interrupted; go on with it with 'medreact runs resume " << run.id << "'\n";
  }
  if (Status s = (*reporter)->WriteTrace(out->result.trace); !s.ok()) {
    std::cerr << kWho << ": " << s.message() << "\n";
    return ExitCodeAfterInterrupt(kExitRunFailed);
  }
  return ReportChatResult(out->result, flags.json, /*stored=*/true, kWho);
}

// Goes on with a stored run the service let this process take (after
// PrepareResume or a Decide that left nothing waiting), with the app's own
// printing: the one place the CLI picks a front end by the run's app. (The
// choice of what to run belongs in the service; the coming server is its
// first user besides this command.)
int GoOn(const ResumeFlags& flags, service::RunService& runs, const RunRecord& run) {
  if (run.app == "chat") return ContinueChatRun(flags, runs, run);
  if (run.app == "research") {  // research_runs_cli.h
    return ResumeResearchRun(runs, run, flags.model,
                             {.events_path = flags.events_path,
                              .trace_path = flags.trace_path,
                              .approval_prompt = flags.approval_prompt});
  }
  if (run.app == "cxr") return ResumeCxrRun(runs, run, flags.model, OutputsOf(flags), flags.approval_prompt);
  // triage, extract: runs_resume_apps.h
  return ResumeAppRun(runs, run,
                      {.model = flags.model,
                       .verbose = flags.verbose,
                       .stream = flags.stream,
                       .trace_path = flags.trace_path,
                       .events_path = flags.events_path});
}

int RunResume(const ResumeFlags& flags) {
  // The output paths first: a device or a FIFO there is refused before the store is opened.
  if (Status s = RunReporter::CheckPaths(OutputsOf(flags)); !s.ok()) return Fail(s.message());
  Result<std::shared_ptr<RunStore>> store = OpenStoreToRead(flags.store);
  if (!store.ok()) return Fail(store.status().message());
  service::RunService runs(*store);
  // Every app's checks in the service: status, resumability, the lease.
  Result<RunRecord> run = runs.PrepareResume(flags.run_id);
  if (!run.ok()) {
    std::string message = run.status().message();
    if (message.find("is waiting for approval") != std::string::npos) {
      message += ": 'medreact runs approve|reject " + flags.run_id + "'";
    }
    if (run.status().code() == StatusCode::kFailedPrecondition) {
      message += " (see 'medreact runs show " + flags.run_id + "')";
    }
    return Fail(message);
  }
  return GoOn(flags, runs, *run);
}

// approve (`approve` true) or reject the waiting calls of a paused run.
int RunDecide(const DecideFlags& flags, bool approve) {
  const std::string& id = flags.run.run_id;
  if (Status s = RunReporter::CheckPaths(OutputsOf(flags.run)); !s.ok()) return Fail(s.message());
  Result<std::shared_ptr<RunStore>> store = OpenStoreToRead(flags.run.store);
  if (!store.ok()) return Fail(store.status().message());
  service::RunService runs(*store);
  const service::CallDecision decision{
      .call_id = flags.call, .approve = approve, .arguments = flags.args, .reason = flags.reason};
  Result<service::DecideOutcome> decided =
      runs.Decide(id, {decision}, {.identity = flags.reviewer.empty() ? OsUserName() : flags.reviewer});
  if (!decided.ok()) {
    return Fail(decided.status().message());  // Fail names the flags (--args, --call)
  }
  auto names = [](const std::vector<std::string>& ids) {
    std::string out;
    for (const std::string& c : ids) out += (out.empty() ? "" : ", ") + PrintableLine(c);
    return out;
  };
  std::cerr << kWho << ": " << (approve ? "approved " : "rejected ") << names(decided->decided) << "\n";
  if (!decided->waiting.empty()) {
    std::cerr << kWho << ": run '" << id << "' still waits for " << names(decided->waiting) << "\n";
    return kExitAwaitingApproval;
  }
  Result<RunRecord> run = (*store)->Get(id);
  if (!run.ok()) return Fail(run.status().message());
  return GoOn(flags.run, runs, *run);
}

void AddContinueFlags(CLI::App* command, ResumeFlags* flags) {
  AddStorePathFlag(command, &flags->store);
  command->add_option("run_id", flags->run_id, "the run's id (see 'medreact runs list')")->required();
  AddModelFlags(command, &flags->model);
  command->add_flag("--stream", flags->stream, "stream the model's text to stderr as it arrives (SSE)");
  command->add_flag("--json", flags->json, "print the result as JSON");
  command->add_flag("-v,--verbose", flags->verbose, "progress on stderr (tool names and timings only)");
  command->add_option("--trace", flags->trace_path, "write the whole run's trace (JSON) to this file");
  command->add_option("--events", flags->events_path, "write the resumed run's events as JSON lines to this file");
  AddApprovalPromptFlag(command, &flags->approval_prompt);
}

// ---- prune ----

struct PruneFlags {
  std::string store;
  double older_than_days = 0;
  std::vector<std::string> statuses;
  bool dry_run = false;
  bool json = false;
};

int RunPrune(const PruneFlags& flags) {
  Result<std::shared_ptr<RunStore>> store = OpenStoreToRead(flags.store);
  if (!store.ok()) return Fail(store.status().message());
  const auto age = std::chrono::duration_cast<std::chrono::system_clock::duration>(
      std::chrono::duration<double>(flags.older_than_days * 86400.0));
  service::RunService runs(*store);
  Result<service::RunService::Pruned> pruned = runs.Prune(
      {.updated_before = std::chrono::system_clock::now() - age, .statuses = flags.statuses,
       .dry_run = flags.dry_run});
  if (!pruned.ok()) return Fail(pruned.status().message());
  if (flags.json) {
    std::cout << Printable(DumpJson(Json{{"dry_run", flags.dry_run},
                                         {"runs", pruned->runs},
                                         {"images", pruned->images},
                                         {"uploads", pruned->uploads}},
                                    2))
              << "\n";
    return kExitOk;
  }
  for (const std::string& id : pruned->runs) std::cout << PrintableLine(id) << "\n";
  std::cerr << kWho << ": " << pruned->runs.size() << " run(s) " << (flags.dry_run ? "would be deleted" : "deleted");
  if (!pruned->images.empty()) {
    std::cerr << ", " << pruned->images.size() << " image(s) no checkpoint names "
              << (flags.dry_run ? "would be removed" : "removed") << " from the run folder";
  }
  if (!pruned->uploads.empty()) {
    std::cerr << ", " << pruned->uploads.size() << " upload(s) no run names "
              << (flags.dry_run ? "would be removed" : "removed");
  }
  std::cerr << "\n";
  return kExitOk;
}

}  // namespace

void AddRunsCommand(CLI::App& app, int* exit_code) {
  CLI::App* runs =
      app.add_subcommand("runs", "the run store: list, show, resume, approve, reject and prune recorded runs");
  runs->require_subcommand(1);

  auto list = std::make_shared<ListFlags>();
  CLI::App* l = runs->add_subcommand("list", "the recorded runs, newest first");
  AddStorePathFlag(l, &list->store);
  l->add_option("--app", list->app, "only runs of this app (chat, triage, ...)");
  l->add_option("--status", list->status, "only runs with this status (running, interrupted, finished, ...)");
  l->add_option("--limit", list->limit, "at most this many runs (0 = all)")->check(CLI::NonNegativeNumber);
  l->add_flag("--json", list->json, "print the runs as JSON");
  l->callback([list, exit_code] { *exit_code = RunList(*list); });

  auto show = std::make_shared<ShowFlags>();
  CLI::App* s = runs->add_subcommand("show", "a run's record and its steps");
  AddStorePathFlag(s, &show->store);
  s->add_option("run_id", show->run_id, "the run's id (see 'medreact runs list')")->required();
  s->add_flag("--json", show->json, "print the run and its steps as JSON");
  s->add_flag("--events", show->events,
              "print the run's stored events as JSON lines, as --events writes them (without model_delta)")
      ->excludes("--json");
  s->callback([show, exit_code] { *exit_code = RunShow(*show); });

  auto resume = std::make_shared<ResumeFlags>();
  CLI::App* r =
      runs->add_subcommand("resume", "go on with a run that was killed or interrupted, from its last checkpoint");
  AddContinueFlags(r, resume.get());
  r->callback([resume, exit_code] { *exit_code = RunResume(*resume); });

  auto approve = std::make_shared<DecideFlags>();
  CLI::App* a = runs->add_subcommand("approve", "run the tool calls a paused run waits for, and go on");
  AddContinueFlags(a, &approve->run);
  a->add_option("--call", approve->call, "only this waiting call (its id, see 'medreact runs show')");
  a->add_option("--args", approve->args, "run the call with these arguments (JSON) instead of the model's");
  a->add_option("--reviewer", approve->reviewer, "who decides, stored with the decision (default: the OS user)");
  a->callback([approve, exit_code] { *exit_code = RunDecide(*approve, /*approve=*/true); });

  auto reject = std::make_shared<DecideFlags>();
  CLI::App* j = runs->add_subcommand("reject", "do not run the tool calls a paused run waits for, and go on");
  AddContinueFlags(j, &reject->run);
  j->add_option("--call", reject->call, "only this waiting call (its id, see 'medreact runs show')");
  j->add_option("--reason", reject->reason, "why, for the model (it reads this as the call's result)");
  j->add_option("--reviewer", reject->reviewer, "who decides, stored with the decision (default: the OS user)");
  j->callback([reject, exit_code] { *exit_code = RunDecide(*reject, /*approve=*/false); });

  auto prune = std::make_shared<PruneFlags>();
  CLI::App* p = runs->add_subcommand("prune", "delete ended runs from the store");
  AddStorePathFlag(p, &prune->store);
  // At most 100,000 days (274 years): the age is taken from the clock in
  // nanoseconds, whose 64 bits hold about 106,751 days; more overflowed.
  p->add_option("--older-than", prune->older_than_days, "only runs last updated more than DAYS days ago (default 0)")
      ->check(FiniteRange(0, 100'000, "days"));
  p->add_option("--status", prune->statuses,
                "only runs with this status (repeatable; default: every status but 'running' and 'awaiting_approval')");
  p->add_flag("--dry-run", prune->dry_run, "list the runs that would be deleted, delete nothing");
  p->add_flag("--json", prune->json, "print the pruned ids as JSON");
  p->callback([prune, exit_code] { *exit_code = RunPrune(*prune); });
}

}  // namespace medreact::cli
