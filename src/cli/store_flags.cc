#include "cli/store_flags.h"

#include <algorithm>
#include <cstdlib>

#include "cli/flag_checks.h"
#include "cli/interrupt.h"
#include "cli/setting_flags.h"
#include "core/printable.h"

namespace medreact::cli {
namespace {

// The store's path: the flag, else MEDREACT_STORE, else the default. Whether
// the user named it (flag or environment).
Result<std::string> StorePath(const std::string& flag, bool* named) {
  *named = true;
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("MEDREACT_STORE"); env && *env) return std::string(env);
  *named = false;
  return DefaultRunStorePath();
}

}  // namespace

void AddStoreFlags(CLI::App* command, StoreFlags* flags) {
  command->add_option("--store", flags->path,
                      "the run store this run is recorded in, for 'medreact runs': a SQLite file, or a "
                      "postgres://user@host/db URL (default: MEDREACT_STORE, else "
                      "$XDG_DATA_HOME/medreact/runs.sqlite)");
  command->add_flag("--no-store", flags->no_store, "do not record this run in the run store");
  command->add_flag("--store-fsync", flags->fsync,
                    "sync the run store to disk at every checkpoint (survives a power cut, not only a crash)");
}

void AddStorePathFlag(CLI::App* command, std::string* path) {
  command->add_option("--store", *path,
                      "the run store: a SQLite file or a postgres:// URL (default: MEDREACT_STORE, else "
                      "$XDG_DATA_HOME/medreact/runs.sqlite)");
}

Result<std::shared_ptr<RunStore>> OpenStoreForRun(const StoreFlags& flags,
                                                  const std::function<void(const std::string&)>& warn) {
  if (flags.no_store) {
    if (!flags.path.empty()) return Status::InvalidArgument("give either --store or --no-store, not both");
    return std::shared_ptr<RunStore>();
  }
  bool named = false;
  Result<std::string> path = StorePath(flags.path, &named);
  Result<std::unique_ptr<RunStore>> store =
      path.ok() ? RunStore::Open(*path, {.sync_full = flags.fsync}) : Result<std::unique_ptr<RunStore>>(path.status());
  if (store.ok()) return std::shared_ptr<RunStore>(std::move(*store));
  if (named) return WithFlagNames(store.status());
  if (warn) {
    warn(WithFlagNames(store.status().message()) + "; this run is not recorded (give --store PATH or --no-store)");
  }
  return std::shared_ptr<RunStore>();
}

Result<std::shared_ptr<RunStore>> OpenStoreToRead(const std::string& flag, bool fsync, bool read_only) {
  bool named = false;
  Result<std::string> path = StorePath(flag, &named);
  if (!path.ok()) return WithFlagNames(path.status());
  Result<std::unique_ptr<RunStore>> store =
      RunStore::Open(*path, {.sync_full = fsync, .create_if_missing = false, .read_only = read_only});
  if (!store.ok()) return WithFlagNames(store.status());
  return std::shared_ptr<RunStore>(std::move(*store));
}

Json StoredModelJson(const ModelFlags& flags) { return service::StoredModel(ModelSettingsOf(flags)); }

ModelFlags ModelFlagsFromStored(const Json& model, const std::string& api_key) {
  const service::ModelSettings m = service::ModelFromStored(model, api_key);
  ModelFlags flags;
  flags.llm_url = m.url;
  flags.model = m.name;
  flags.api_key = m.api_key;
  flags.provider = m.provider;
  flags.protocol = m.protocol;
  flags.request_timeout_s = m.request_timeout_s;
  flags.max_retries = m.max_retries;
  flags.context_size = m.context_size;
  return flags;
}

std::unique_ptr<RunRecorder> MakeRunRecorder(std::shared_ptr<RunStore> store, RunRecord run, std::ostream& err,
                                             const std::string& who, bool resumed) {
  if (!store) return nullptr;
  return std::make_unique<RunRecorder>(
      std::move(store), std::move(run),
      [&err, who](const std::string& w) { err << who << ": " << PrintableLine(w) << "\n"; },
      resumed);
}

void FinishRecordedRun(RunRecorder* recorder, const RunResult& result, std::ostream& err, const std::string& who) {
  if (!recorder) return;
  // Stopped by Ctrl-C or SIGTERM (the run ends cancelled, status error): resumable.
  const bool interrupted = InterruptSignal() != 0 && result.status == RunStatus::kError;
  recorder->Finish(result, interrupted);  // a failure was already reported as it happened
  if (interrupted && !recorder->run_id().empty()) {
    err << who << ": the run was interrupted; go on with it with 'medreact runs resume " << recorder->run_id()
        << "'\n";
  }
}

}  // namespace medreact::cli
