// `medreact runs list|show|resume|prune`: the run store (issue 14).
//
//   list               the runs, newest first: id, app, status, steps, last update, model (--json: records)
//   show RUN_ID        a run's record and its steps (--json: {"run", "steps"}; --events: its stored
//                      events as JSON lines)
//   resume RUN_ID      goes on with a run that did not end (killed, crashed, interrupted) from its
//                      last checkpoint, into the same run id, and prints the answer as `chat` does
//   prune              deletes ended runs (--older-than DAYS, --status S, --dry-run)
//
// The model of a resumed run: the model flags or MEDREACT_LLM_* when a URL is
// given, else the stored URL, name and protocol with the API key from
// MEDREACT_LLM_API_KEY (the store never holds one). Exit codes as elsewhere:
// 0 done, 1 the resumed run ended on a limit or error, 2 bad usage (an
// unknown run, a run that ended, an unusable store).
#include <cmath>
#include <iostream>
#include <memory>

#include "apps/chat/chat_app.h"
#include "apps/common/app_runner.h"
#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/interrupt.h"
#include "cli/model_flags.h"
#include "cli/store_flags.h"
#include "medreact/json.h"

namespace medreact::cli {
namespace {

constexpr char kWho[] = "medreact runs";

int Fail(const std::string& message, int code = kExitBadInput) {
  std::cerr << kWho << ": " << message << "\n";
  return code;
}

Json RecordJson(const RunRecord& r) {
  return Json{{"id", r.id},           {"app", r.app},          {"status", r.status},     {"steps", r.steps},
              {"checkpoints", r.checkpoints}, {"created_at", r.created_at}, {"updated_at", r.updated_at},
              {"model", r.model},     {"inputs", r.inputs},    {"result", r.result},     {"events", r.events}};
}

std::string ModelName(const RunRecord& r) {
  std::string name = StringOr(r.model, "name");
  return Printable(name.empty() ? StringOr(r.model, "url") : name);
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
  Result<std::shared_ptr<RunStore>> store = OpenStoreToRead(flags.store);
  if (!store.ok()) return Fail(store.status().message());
  Result<std::vector<RunRecord>> runs =
      (*store)->List({.app = flags.app, .status = flags.status, .limit = flags.limit});
  if (!runs.ok()) return Fail(runs.status().message());
  if (flags.json) {
    Json out = Json::array();
    for (const RunRecord& r : *runs) {
      Json j = RecordJson(r);
      j.erase("inputs");  // `show` has them; a list stays short
      out.push_back(std::move(j));
    }
    std::cout << DumpJson(out, 2) << "\n";
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
    std::snprintf(line, sizeof line, "%-22s %-10s %-12s %5lld  %-20s  %s\n", Printable(r.id).c_str(),
                  Printable(r.app).c_str(), Printable(r.status).c_str(), static_cast<long long>(r.steps),
                  r.updated_at.c_str(), Preview(ModelName(r), 60).c_str());
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
  Result<std::shared_ptr<RunStore>> store = OpenStoreToRead(flags.store);
  if (!store.ok()) return Fail(store.status().message());
  Result<RunRecord> run = (*store)->Get(flags.run_id);
  if (!run.ok()) return Fail(run.status().message());
  if (flags.events) {  // the lines as --events wrote them (model_delta left out)
    Result<std::vector<RunEvent>> events = (*store)->Events(flags.run_id);
    if (!events.ok()) return Fail(events.status().message());
    for (const RunEvent& e : *events) std::cout << e.json << "\n";
    return kExitOk;
  }
  Result<std::vector<StepRecord>> steps = (*store)->Steps(flags.run_id);
  if (!steps.ok()) return Fail(steps.status().message());
  if (flags.json) {
    Json out_steps = Json::array();
    for (const StepRecord& s : *steps) out_steps.push_back(StepRecordToStateJson(s));
    std::cout << DumpJson(Json{{"run", RecordJson(*run)}, {"steps", std::move(out_steps)}}, 2) << "\n";
    return kExitOk;
  }
  const RunRecord& r = *run;
  std::cout << "run:      " << Printable(r.id) << " (" << Printable(r.app) << ")\n"
            << "status:   " << Printable(r.status) << "\n"
            << "model:    " << ModelName(r) << " (" << Printable(StringOr(r.model, "protocol")) << ")\n"
            << "created:  " << r.created_at << ", updated " << r.updated_at << "\n"
            << "steps:    " << r.steps << ", checkpoints " << r.checkpoints << ", events " << r.events << "\n"
            << "message:  " << Preview(StringOr(r.inputs, "message"), 200) << "\n";
  if (r.result.is_object()) {
    std::cout << "answer:   " << Preview(StringOr(r.result, "answer"), 400) << "\n";
    const std::string error = StringOr(r.result, "error");
    if (!error.empty()) std::cout << "stopped:  " << Printable(error) << "\n";
  }
  for (const StepRecord& s : *steps) {
    std::cout << "step " << s.index << (s.kind == "fallback" ? " (fallback synthesis)" : "") << "\n";
    if (!s.assistant.content.empty()) std::cout << "  says:   " << Preview(s.assistant.content, 160) << "\n";
    for (size_t i = 0; i < s.assistant.tool_calls.size(); ++i) {
      const ToolCall& c = s.assistant.tool_calls[i];
      std::cout << "  call:   " << Printable(c.name) << " " << Preview(c.arguments, 160) << "\n";
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

// ---- resume ----

struct ResumeFlags {
  std::string store;
  std::string run_id;
  ModelFlags model;
  bool json = false;
  bool verbose = false;
  bool stream = false;
  std::string trace_path;
  std::string events_path;
};

int RunResume(const ResumeFlags& flags) {
  const RunOutputs outputs{.trace_path = flags.trace_path, .events_path = flags.events_path,
                           .verbose = flags.verbose, .stream = flags.stream};
  if (Status s = RunReporter::CheckPaths(outputs); !s.ok()) return Fail(s.message());
  Result<std::shared_ptr<RunStore>> store = OpenStoreToRead(flags.store);
  if (!store.ok()) return Fail(store.status().message());
  Result<RunRecord> run = (*store)->Get(flags.run_id);
  if (!run.ok()) return Fail(run.status().message());
  if (run->status != "running" && run->status != "interrupted") {
    return Fail("run '" + flags.run_id + "' ended with status '" + Printable(run->status) +
                "'; there is nothing to resume (see 'medreact runs show " + flags.run_id + "')");
  }
  if (run->app != "chat") {
    return Fail("resuming a '" + Printable(run->app) + "' run is not supported yet (only chat runs)");
  }
  Result<std::optional<RunState>> state = (*store)->LatestState(flags.run_id);
  if (!state.ok()) return Fail(state.status().message());
  if (!state->has_value()) return Fail("run '" + flags.run_id + "' has no checkpoint to resume from");
  Result<ChatInputs> inputs = ChatInputsFromJson(run->inputs);
  if (!inputs.ok()) return Fail("run '" + flags.run_id + "': " + inputs.status().message());

  // The model: the flags (or MEDREACT_LLM_URL) when they name one, else the stored one.
  const ModelFlags model_flags =
      HasModel(flags.model) ? flags.model : ModelFlagsFromStored(run->model, flags.model.api_key);
  if (!HasModel(model_flags)) {
    return Fail("run '" + flags.run_id + "' has no model URL stored; give --llm-url");
  }
  PackContext context = inputs->context;
  context.on_warning = [](const std::string& w) { std::cerr << kWho << ": " << w << "\n"; };
  Result<std::shared_ptr<ToolRegistry>> tools = ChatTools(inputs->packs, context);
  if (!tools.ok()) return Fail(tools.status().message());
  Result<std::shared_ptr<ChatModel>> model = MakeModel(model_flags);
  if (!model.ok()) return Fail(model.status().message());

  Result<std::unique_ptr<RunReporter>> reporter = RunReporter::Open(outputs, std::cerr);
  if (!reporter.ok()) return Fail(reporter.status().message());
  AgentOptions options = inputs->options;
  options.stream = options.stream || flags.stream;
  options.cancel = InstallInterruptHandlers();
  options.on_event = (*reporter)->sink();
  RunRecord record = *run;
  std::unique_ptr<RunRecorder> recorder = MakeRunRecorder(*store, record, std::cerr, kWho, /*resumed=*/true);
  options.on_checkpoint = recorder->Hook();
  options.on_event = recorder->Events(std::move(options.on_event));

  RunResult result = ResumeChat(*model, *tools, **state, options);
  FinishRecordedRun(recorder.get(), result, std::cerr, kWho);

  if (Status s = (*reporter)->WriteTrace(result.trace); !s.ok()) {
    std::cerr << kWho << ": " << s.message() << "\n";
    return ExitCodeAfterInterrupt(kExitRunFailed);
  }
  if (flags.json) {
    Json out{{"run_id", result.trace.run_id},
             {"status", RunStatusName(result.status)},
             {"answer", result.answer},
             {"steps", result.steps},
             {"tool_calls", result.tool_calls},
             {"usage", ToJson(result.usage)}};
    if (!result.error.empty()) out["error"] = result.error;
    std::cout << DumpJson(out, 2) << "\n";
  } else {
    std::cout << result.answer << "\n";
  }
  if (result.status != RunStatus::kFinished) {
    std::cerr << kWho << ": run ended with status '" << RunStatusName(result.status) << "': " << result.error << "\n";
    return ExitCodeAfterInterrupt(kExitRunFailed);
  }
  return ExitCodeAfterInterrupt(kExitOk);
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
  Result<std::vector<std::string>> ids = (*store)->Prune(
      {.updated_before = std::chrono::system_clock::now() - age, .statuses = flags.statuses,
       .dry_run = flags.dry_run});
  if (!ids.ok()) return Fail(ids.status().message());
  if (flags.json) {
    std::cout << DumpJson(Json{{"dry_run", flags.dry_run}, {"runs", *ids}}, 2) << "\n";
    return kExitOk;
  }
  for (const std::string& id : *ids) std::cout << Printable(id) << "\n";
  std::cerr << kWho << ": " << ids->size() << " run(s) " << (flags.dry_run ? "would be deleted" : "deleted") << "\n";
  return kExitOk;
}

}  // namespace

void AddRunsCommand(CLI::App& app, int* exit_code) {
  CLI::App* runs = app.add_subcommand("runs", "the run store: list, show, resume and prune recorded runs");
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
  AddStorePathFlag(r, &resume->store);
  r->add_option("run_id", resume->run_id, "the run's id (see 'medreact runs list')")->required();
  AddModelFlags(r, &resume->model);
  r->add_flag("--stream", resume->stream, "stream the model's text to stderr as it arrives (SSE)");
  r->add_flag("--json", resume->json, "print the result as JSON");
  r->add_flag("-v,--verbose", resume->verbose, "progress on stderr (tool names and timings only)");
  r->add_option("--trace", resume->trace_path, "write the whole run's trace (JSON) to this file");
  r->add_option("--events", resume->events_path, "write the resumed run's events as JSON lines to this file");
  r->callback([resume, exit_code] { *exit_code = RunResume(*resume); });

  auto prune = std::make_shared<PruneFlags>();
  CLI::App* p = runs->add_subcommand("prune", "delete ended runs from the store");
  AddStorePathFlag(p, &prune->store);
  p->add_option("--older-than", prune->older_than_days, "only runs last updated more than DAYS days ago (default 0)")
      ->check(FiniteRange(0, 365'000, "days"));
  p->add_option("--status", prune->statuses,
                "only runs with this status (repeatable; default: every status but 'running')");
  p->add_flag("--dry-run", prune->dry_run, "list the runs that would be deleted, delete nothing");
  p->add_flag("--json", prune->json, "print the pruned ids as JSON");
  p->callback([prune, exit_code] { *exit_code = RunPrune(*prune); });
}

}  // namespace medreact::cli
