// `medreact serve`: the HTTP API over the run service (src/server/server.h),
// with the model and imaging endpoints configured as for the other commands.
// Listens on 127.0.0.1 unless --host says otherwise, and then only with a
// token (--token-file). A refused start (no token off loopback, the port in
// use, a bad flag) exits 2 with one line. SIGINT or SIGTERM stops it: it
// stops accepting, stops its runs (they end interrupted, resumable: the next
// start takes them over) and exits 0.
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "cli/cli_io.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/model_flags.h"
#include "cli/setting_flags.h"
#include "cli/store_flags.h"
#include "core/file_io.h"
#include "server/auth.h"
#include "server/server.h"

namespace medreact::cli {
namespace {

struct ServeFlags {
  server::ServeOptions options;
  std::string token_file;
  std::string port_file;
  StoreFlags store;
  ModelFlags model;
  double max_body_mb = 64;
  bool no_take_over = false;
  bool no_access_log = false;
  bool queue_worklists = false;
};

int Fail(const std::string& message) {
  std::cerr << "medreact serve: " << WithFlagNames(message) << "\n";
  return kExitBadInput;
}

int RunServe(ServeFlags& flags) {
  server::ServeOptions& o = flags.options;
  if (!flags.token_file.empty()) {
    Result<server::TokenFile> token = server::ReadTokenFile(flags.token_file);
    if (!token.ok()) return Fail(token.status().message());
    if (token->world_readable) {
      std::cerr << "medreact serve: warning: the token file can be read by other users (chmod 600 it)\n";
    }
    o.token = token->token;
  }
  o.max_body_bytes = static_cast<size_t>(flags.max_body_mb * 1024 * 1024);
  o.take_over = !flags.no_take_over;
  o.access_log = !flags.no_access_log;
  o.model = ModelSettingsOf(flags.model);
  if (Status s = server::CheckServeOptions(o); !s.ok()) return Fail(s.message());
  std::string store_problem;
  Result<std::shared_ptr<RunStore>> store =
      OpenStoreForRun(flags.store, [&](const std::string& why) { store_problem = why; });
  if (!store.ok()) return Fail(store.status().message());
  if (!*store) return Fail("the server needs a run store: " + (store_problem.empty() ? "none given" : store_problem));
  if (flags.queue_worklists) {
    // The store's own job queue (its SQLite file, or its PostgreSQL database:
    // the URL as given, the store keeps it redacted).
    std::string where = flags.store.path;
    if (const char* env = std::getenv("MEDREACT_STORE"); where.empty() && env && *env) where = env;
    if (where.empty()) where = (*store)->path();
    Result<std::unique_ptr<JobQueue>> queue = OpenJobQueue(where);
    if (!queue.ok()) return Fail(queue.status().message());
    o.worklist_queue = std::move(*queue);
  }
  // Each event stream is a socket: lift the soft limit on open files to the
  // hard one (often 1024 → 1048576), so a thousand streams fit.
  struct rlimit files {};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  const CancellationToken& stop = InstallInterruptHandlers();
  server::Server srv(o, *store);
  if (Status s = srv.Start(); !s.ok()) return Fail(s.message());
  std::cerr << "medreact serve: listening on http://" << (o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host)
            << ":" << srv.port() << (o.token.empty() ? " (no token: loopback only)" : " (token required)") << "\n";
  if (!flags.port_file.empty()) {
    if (Status s = WriteFileAtomic(flags.port_file, std::to_string(srv.port()) + "\n"); !s.ok()) {
      srv.Stop(0);
      return Fail(s.message());
    }
  }
  if (!srv.taken_over().empty()) {
    std::cerr << "medreact serve: took over " << srv.taken_over().size()
              << " run(s) whose owner had died; going on with them\n";
  }
  while (!stop.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::cerr << "medreact serve: stopping (runs under way end interrupted and are taken over at the next start)\n";
  srv.Stop(10);
  return kExitOk;
}

}  // namespace

void AddServeCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<ServeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "the HTTP API: runs of every app, their live events (SSE), approvals, an OpenAI-compatible facade");
  server::ServeOptions& o = flags->options;
  cmd->add_option("--host", o.host, "address to listen on; anything but loopback needs --token-file")
      ->capture_default_str();
  cmd->add_option("--port", o.port, "port (0: any free one, printed at start)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--token-file", flags->token_file,
                  "file holding the bearer token clients must send (at least 16 characters; chmod 600)");
  cmd->add_option("--port-file", flags->port_file, "write the bound port to this file once listening (for scripts)");
  cmd->add_option("--cors-origin", o.cors_origins, "an origin whose pages may call the API (repeatable)");
  cmd->add_option("--input-root", o.input_roots,
                  "a folder runs may read input files from (repeatable; absolute); none: uploads only");
  cmd->add_option("--upload-dir", o.upload_dir, "where uploads are kept (default: <store>.uploads)");
  cmd->add_option("--max-body-mb", flags->max_body_mb, "largest request body, uploads included, in MiB")
      ->check(CLI::Range(0.001, 4096.0))
      ->capture_default_str();
  cmd->add_option("--rate", o.rate_per_second, "requests per second per client")->capture_default_str();
  cmd->add_option("--burst", o.rate_burst, "requests a client may make at once")->capture_default_str();
  cmd->add_option("--max-runs", o.max_concurrent_runs, "runs executing at once (more wait in a queue)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_flag("--network-tools", o.network_tools,
                "let runs use tools that reach the internet (literature services); off by default");
  cmd->add_option("--mcp-packs", o.mcp_packs,
                  "tool packs also served to MCP clients at /mcp (comma-separated; no fhir or rag)")
      ->delimiter(',');
  cmd->add_flag("--queue-worklists", flags->queue_worklists,
                "POST /v1/worklists puts the cases in the store's job queue for 'medreact worker's instead of "
                "running them here");
  cmd->add_flag("--no-take-over", flags->no_take_over, "do not resume, at start, the runs whose owner died");
  cmd->add_flag("--no-access-log", flags->no_access_log, "no line per request on stderr");
  cmd->add_option("--vision-url", o.vision_url, "OpenAI-compatible vision model server for cxr runs")
      ->envname("MEDREACT_CXR_VISION_URL");
  cmd->add_option("--vision-model", o.vision_model, "the vision model's name")->envname("MEDREACT_CXR_VISION_MODEL");
  cmd->add_option("--vision-api-key", o.vision_api_key, "bearer token for the vision server")
      ->envname("MEDREACT_CXR_VISION_API_KEY");
  cmd->add_option("--classifier-url", o.classifier_url, "chest X-ray classifier endpoint")
      ->envname("MEDREACT_CXR_CLASSIFIER_URL");
  cmd->add_option("--segmentation-url", o.segmentation_url, "chest X-ray segmentation endpoint")
      ->envname("MEDREACT_CXR_SEGMENTATION_URL");
  cmd->add_option("--grounding-url", o.grounding_url, "phrase grounding endpoint")
      ->envname("MEDREACT_CXR_GROUNDING_URL");
  AddStoreFlags(cmd, &flags->store);
  AddModelFlags(cmd, &flags->model);
  cmd->callback([flags, exit_code] { *exit_code = RunServe(*flags); });
}

}  // namespace medreact::cli
