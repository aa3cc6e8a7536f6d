// What `medreact serve` is configured with (its flags, README "medreact
// serve"): where it listens, who may talk to it, what runs may touch, and
// the model and imaging endpoints its runs use (the same settings as the
// CLI's commands).
#ifndef MEDREACT_SERVER_SERVER_OPTIONS_H_
#define MEDREACT_SERVER_SERVER_OPTIONS_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "service/run_service.h"
#include "store/job_queue.h"

namespace medreact::server {

struct ServeOptions {
  std::string host = "127.0.0.1";  // any other address needs a token. Default: loopback
  int port = 8080;                 // 0: any free port (printed at start). Default: 8080
  // The bearer token every route but /healthz needs ("" = none, allowed on
  // loopback only). Read from a file (--token-file), never a flag's value.
  std::string token;
  // Origins a browser page may call from (CORS); empty: none (same origin only).
  std::vector<std::string> cors_origins;
  // Folders a run's input paths must be inside (absolute, resolved); empty:
  // no path is accepted, only uploads.
  std::vector<std::string> input_roots;
  // Where uploads are kept (created 0700). "": <store>.uploads beside the store.
  std::string upload_dir;
  size_t max_body_bytes = 64u << 20;    // a request's body, uploads included. Default: 64 MiB
  size_t max_image_bytes = 20u << 20;   // one image of a chat completion (decoded). Default: 20 MiB
  double rate_per_second = 20;          // requests per client (address or token). Default: 20/s
  double rate_burst = 60;               // Default: 60
  int max_concurrent_runs = 4;          // runs executing at once; more wait in a queue. Default: 4
  int max_queued_runs = 256;            // runs waiting; more get 503. Default: 256
  bool network_tools = false;           // runs may use tools that reach the internet. Default: off
  bool take_over = true;                // at start, resume the runs whose owner died. Default: on
  double heartbeat_s = 15;              // SSE comment lines on idle streams. Default: 15 s
  int sse_retry_ms = 2000;              // the `retry:` an SSE client waits before reconnecting. Default: 2 s
  int io_threads = 2;                   // Default: 2
  // The model and imaging endpoints runs use.
  service::ModelSettings model;
  std::string vision_url, vision_model, vision_api_key;
  std::string classifier_url, segmentation_url, grounding_url;
  bool access_log = true;  // one line per request on stderr (no bodies, no query strings)
  // Tool packs also served to MCP clients at /mcp (streamable HTTP,
  // server/mcp_http.h), behind the same token, Origin and rate rules; packs
  // that read a file (fhir, rag) are refused, literature needs network_tools.
  // Default: none (no /mcp)
  std::vector<std::string> mcp_packs;
  // The job queue POST /v1/worklists puts a worklist's cases in, for
  // `medreact worker`s (on this machine or others) to run, instead of running
  // them in this server (issue 28; --queue-worklists: the store's own queue,
  // store/job_queue.h). The worklist then follows the batch: its cases as the
  // workers finish them. Default: none (worklists run here)
  std::shared_ptr<JobQueue> worklist_queue;
};

}  // namespace medreact::server

#endif  // MEDREACT_SERVER_SERVER_OPTIONS_H_
