// The run store on the command line (issue 14): --store PATH / --no-store /
// --store-fsync for the commands that run agents, where the store is, how a
// run's model is kept in it, and a run's recorder.
//
// Every agent run is recorded by default (so a killed run can be resumed
// with `medreact runs resume`). The store is --store PATH, else
// MEDREACT_STORE, else the XDG data folder (DefaultRunStorePath). A store
// the user named that cannot be opened is an error (exit 2, nothing run); the
// default one failing is a warning and the run goes on unrecorded.
#ifndef MEDREACT_CLI_STORE_FLAGS_H_
#define MEDREACT_CLI_STORE_FLAGS_H_

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/model_flags.h"
#include "medreact/agent.h"
#include "store/run_recorder.h"
#include "store/run_store.h"

namespace medreact::cli {

struct StoreFlags {
  std::string path;     // --store; "" = MEDREACT_STORE or the default
  bool no_store = false;  // --no-store
  bool fsync = false;     // --store-fsync: synchronous=FULL
};

// --store, --no-store and --store-fsync (the commands that run agents).
void AddStoreFlags(CLI::App* command, StoreFlags* flags);
// --store only (the `runs` commands).
void AddStorePathFlag(CLI::App* command, std::string* path);

// The store a run writes to: null with --no-store or when the default store
// cannot be opened (then `warn` says why).
Result<std::shared_ptr<RunStore>> OpenStoreForRun(const StoreFlags& flags,
                                                  const std::function<void(const std::string&)>& warn);
// The store the `runs` commands read: --store, MEDREACT_STORE or the
// default; never created (NotFound naming the path when missing).
// `read_only`: opened read-only (runs list, runs show: nothing written, a
// store on read-only media read as it stands; RunStoreOptions::read_only).
Result<std::shared_ptr<RunStore>> OpenStoreToRead(const std::string& path, bool fsync = false, bool read_only = false);

// The model as the store keeps it: URL (UrlForStore: no user:password@, no
// query or fragment, where a key may hide), name,
// protocol, request limits. Never the API key.
Json StoredModelJson(const ModelFlags& flags);
// The stored model back as flags, with `api_key` (from the environment).
ModelFlags ModelFlagsFromStored(const Json& model, const std::string& api_key);

// The recorder of a run, or null when there is no store. Its warnings go to
// `err` prefixed with `who` ("medreact chat").
std::unique_ptr<RunRecorder> MakeRunRecorder(std::shared_ptr<RunStore> store, RunRecord run, std::ostream& err,
                                             const std::string& who, bool resumed = false);
// Records the run's end (interrupted when a signal stopped it) and, for an
// interrupted run, tells `err` how to resume it.
void FinishRecordedRun(RunRecorder* recorder, const RunResult& result, std::ostream& err, const std::string& who);

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_STORE_FLAGS_H_
