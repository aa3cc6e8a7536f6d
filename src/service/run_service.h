// RunService: the one place where runs are started, recorded, resumed,
// decided, stopped, shown and listed — under every front end (the CLI's
// commands now; `medreact serve`, the page and workers next), so that none
// of them re-decides any of it.
//
//   RunService service(store);                        // store may be null: runs are not recorded
//   Result<RunOutcome> r = service.StartChat(start, {.on_event = sink});
//   Result<RunView> v = service.Show(r->run_id);
//   Result<DecideOutcome> d = service.Decide(id, {{.call_id = "c1", .approve = true}}, {.reviewer = "dr.a"});
//   Result<RunOutcome> again = service.Resume(id, {}, hooks);
//
// What it owns, once for every front end:
//  - the model a run uses (ModelSettings → the factory; the stored model
//    when a resume names none; the store's context-size cache; the URL
//    policy: the store never holds user info, a query or a fragment);
//  - the recorder (checkpoints, events with their time and number, the end);
//  - the lease: Resume and Decide take the run for this process (a run whose
//    holder is alive is refused, naming it), the end gives it back;
//  - which runs can be resumed (the app table, app_table.h) and from which
//    statuses (running, interrupted — a stop by the user —, and error: a
//    model or tool outage, from its last checkpoint);
//  - the approval rules: which calls still wait, what a partial decision
//    does (stores it and leaves the run paused), an edit checked against
//    the tool's schema, who decided and when.
// The front end keeps its flags, its files and its printing.
//
// Messages name settings (the model URL, `llm_url`), never a front end's
// flag: a front end adds its own names where it maps them.
//
// Thread-safety: Start/Resume run on the caller's thread; Cancel and
// Subscribe may be called from any thread while they do.
#ifndef MEDREACT_SERVICE_RUN_SERVICE_H_
#define MEDREACT_SERVICE_RUN_SERVICE_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "apps/chat/chat_app.h"
#include "medreact/agent.h"
#include "medreact/cancel.h"
#include "medreact/events.h"
#include "medreact/model_factory.h"
#include "service/app_table.h"
#include "store/run_store.h"

namespace medreact::service {

// What builds a model, as a front end gives it (the CLI's --llm-url etc.).
struct ModelSettings {
  std::string provider = "openai";  // openai | anthropic (the model API)
  std::string url;               // the server's base URL; "" = none (anthropic: its default)
  std::string name;              // the model name sent to the server
  std::string api_key;           // never stored
  std::string protocol = "native";  // native | text
  double request_timeout_s = 300;   // Default: 300 s
  int max_retries = 4;              // Default: 4
  int context_size = 0;             // 0: asked from the server once (cached in the store)
};
// The model as the store keeps it (UrlForStore; no key).
Json StoredModel(const ModelSettings& model);
// The stored model back, with `api_key` from the front end.
ModelSettings ModelFromStored(const Json& stored, const std::string& api_key);

// A front end's hooks into one run.
struct RunHooks {
  EventSink on_event;  // every event as it happens (after the store's copy); may be empty
  // Stops the run: it ends `interrupted` and can be resumed. Default: none
  CancellationToken cancel;
  // Decides a waiting call inline (a terminal prompt); empty or nullopt:
  // the run pauses (awaiting_approval) until Decide.
  std::function<std::optional<ApprovalDecision>(const ToolCall&, const ToolSpec&)> approve;
  // A warning for the person (the store failed mid-run, a pack's note).
  std::function<void(const std::string&)> warn;
  // Called once, on the run's thread, as soon as the run's id is known and
  // its row is in the store (a new run: at its first checkpoint, or at its
  // end when it took none; a resumed one: at its start), so that a front end
  // can name the run before it ends. Never called for a run that is not
  // recorded. May be empty.
  std::function<void(const std::string& run_id)> on_started;
};

// A chat run to start.
struct ChatStart {
  ChatInputs inputs;               // message, packs, context, options (limits, system prompt), approval rules
  ModelSettings model;
  std::vector<ContentPart> images;  // image parts of the user turn (already read and encoded)
  // Earlier turns of the conversation (a previous run's RunResult::messages):
  // a follow-up, or the answer to the model's clarifying question.
  std::vector<Message> history;
};

// A resume's settings.
struct ResumeSpec {
  // The model to go on with; none (no URL): the stored one, with this key.
  ModelSettings model;
  bool stream = false;  // stream the model's text (model_delta events)
};

// A chat run checked and assembled, ready to run (PrepareChat).
struct PreparedChat {
  ChatInputs inputs;  // as stored (the rules checked)
  ModelSettings model;
  std::shared_ptr<ChatModel> chat_model;
  std::shared_ptr<ToolRegistry> tools;
  AgentOptions options;  // limits, system prompt, approval predicate
  std::vector<ContentPart> images;
  std::vector<Message> history;
};

struct RunOutcome {
  std::string run_id;
  std::string status;  // as stored: finished, interrupted, awaiting_approval, error, ...
  bool stored = false;  // in the run store
  RunResult result;     // the agent's result
};

// One decision on a waiting call.
struct CallDecision {
  std::string call_id;    // "" = every call still waiting
  bool approve = false;
  std::string arguments;  // approve: the reviewer's arguments (JSON); "" = the model's. One call only
  std::string reason;     // reject: for the model
};
struct Reviewer {
  std::string identity;  // who decides (the front end's name for the person); stored with the decision
};
struct DecideOutcome {
  std::vector<std::string> decided;  // the calls decided now, in call order
  std::vector<std::string> waiting;  // still undecided: the run stays paused
  std::map<std::string, ApprovalDecision> decisions;  // the decisions taken now, by call: who, when, what
};

// What Show returns: the record, its steps, and the calls a paused run waits for.
struct RunView {
  RunRecord run;
  std::vector<StepRecord> steps;
  std::vector<ToolCall> waiting;  // awaiting_approval: the undecided calls, in call order
  int waiting_step = 0;
};

class RunService {
 public:
  // `store` may be null: runs are not recorded (and cannot pause for approval).
  explicit RunService(std::shared_ptr<RunStore> store);
  ~RunService();
  RunService(const RunService&) = delete;
  RunService& operator=(const RunService&) = delete;

  const std::shared_ptr<RunStore>& store() const { return store_; }

  // The model for `settings` (InvalidArgument naming the setting when
  // unusable), with the store's context-size cache.
  Result<std::shared_ptr<ChatModel>> BuildModel(const ModelSettings& settings, const AppModelParts& app = {}) const;

  // Every check of a chat run before any work: the message, the tools
  // (packs and their files), the model, the images (a vision model), the
  // approval rules (and a store to wait in, unless `hooks.approve` decides).
  Result<std::unique_ptr<PreparedChat>> PrepareChat(ChatStart start, const RunHooks& hooks) const;
  // Runs a prepared chat run to its end or a pause, recording it.
  Result<RunOutcome> RunPrepared(std::unique_ptr<PreparedChat> prepared, const RunHooks& hooks);
  // PrepareChat, then RunPrepared.
  Result<RunOutcome> StartChat(ChatStart start, const RunHooks& hooks);

  // The checks before a resume, for every app: the run exists, its app can
  // be resumed (the app table says why not), its status allows it (running,
  // interrupted, error with a checkpoint; a paused run is decided, not
  // resumed), and this process takes its lease. Returns the record.
  Result<RunRecord> PrepareResume(const std::string& run_id);
  // Resumes a chat run (PrepareResume first) from its last checkpoint.
  Result<RunOutcome> Resume(const std::string& run_id, const ResumeSpec& spec, const RunHooks& hooks);

  // Decides waiting calls of a paused run and stores the decisions (with
  // `reviewer` and the time) before anything runs. A compare-and-set: the
  // run is taken (its lease) and read again before anything is decided, so
  // of several deciders racing on one call exactly one decides it; the
  // others get FailedPrecondition saying who decided it and when ("already
  // decided: call c1 approved by dr.a at ...") — also when the run is not
  // paused any more, or another process holds it. InvalidArgument for a call
  // that is not waiting, arguments for several calls, or arguments the
  // tool's schema refuses. Each decision is stored with an `approval` event
  // of its own (data: decision, reviewer, decided_at, reason or edited
  // arguments, "recorded": true), so a live follower sees it before the run
  // goes on (the run emits its own when it applies it). When no call waits
  // any more, the caller goes on with Continue (the lease stays with this
  // service).
  Result<DecideOutcome> Decide(const std::string& run_id, const std::vector<CallDecision>& decisions,
                               const Reviewer& reviewer);
  // Goes on with a run whose decisions are all taken (after Decide).
  Result<RunOutcome> Continue(const std::string& run_id, const ResumeSpec& spec, const RunHooks& hooks);

  // Stops a run this service is running (it ends `interrupted`). NotFound
  // when it runs no such run.
  Status Cancel(const std::string& run_id);
  // Makes a run that an app's runner (triage_runs.h, ...) runs here
  // cancellable by Cancel with `cancel`, until the returned guard is dropped.
  [[nodiscard]] std::shared_ptr<void> TrackRun(const std::string& run_id, const CancellationToken& cancel);

  // Deletes the runs `filter` selects (RunStore::Prune), then the run
  // folder's images (run_images.h) that no remaining checkpoint names: the
  // folder serves resumes, and a run without a checkpoint (finished, or
  // gone) is never resumed — nor any remaining run's result (an ended cxr
  // run's images, for the run that continues its conversation). An image written in the last
  // kImageGraceMinutes is kept whatever the checkpoints say (a run may be
  // about to commit the checkpoint that names it). The same for the server's
  // upload folder (run_images.h): an upload no remaining run's inputs name,
  // older than the grace period, is removed. A dry run deletes nothing.
  static constexpr int kImageGraceMinutes = 10;
  struct Pruned {
    std::vector<std::string> runs;     // the runs deleted (or that would be)
    std::vector<std::string> images;   // the image files deleted (or that would be), by hash
    std::vector<std::string> uploads;  // the server's uploads no run names any more (UploadFolderForStore)
  };
  Result<Pruned> Prune(const PruneFilter& filter);

  Result<RunView> Show(const std::string& run_id) const;
  Result<std::vector<RunRecord>> List(const RunFilter& filter = {}) const;
  // The run's stored events after `after_seq` (0: all), in order.
  Result<std::vector<RunEvent>> Events(const std::string& run_id, int64_t after_seq = 0) const;

 private:
  struct Live;
  Result<RunOutcome> RunChatFrom(const RunRecord& run, const ChatInputs& inputs, const ResumeSpec& spec,
                                 const RunHooks& hooks, const RunState& state);
  Status NeedStore() const;

  std::shared_ptr<RunStore> store_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Live>> live_;  // runs in progress here; guarded by mu_
};

}  // namespace medreact::service

#endif  // MEDREACT_SERVICE_RUN_SERVICE_H_
