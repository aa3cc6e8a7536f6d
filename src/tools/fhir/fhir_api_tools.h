// The raw FHIR REST functions MedAgentBench gives its agents (funcs_v1.json:
// "GET {api_base}/Patient", "POST {api_base}/ServiceRequest", ...) as tools
// over a FHIR R4 server, for `medreact eval medagentbench`.
//
// Each function becomes one tool with the benchmark's description and
// parameter schema; its name is the method and resource in lower case
// ("get_patient", "post_servicerequest"), with the description's
// parenthesised word added where two would share a name
// ("get_observation_labs", "get_observation_vitals").
//   GET  sends GET <base>/<Resource>?<arguments>&_format=json through the
//        HttpTransport and returns the server's body (capped) to the model.
//   POST is recorded (url and payload, in order: posts()) and, unless
//        allow_post, not sent; the model is told it was accepted, as the
//        benchmark's harness tells it.
// Thread-safe: the recorded posts are behind a mutex.
#ifndef MEDREACT_TOOLS_FHIR_FHIR_API_TOOLS_H_
#define MEDREACT_TOOLS_FHIR_FHIR_API_TOOLS_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "medreact/http.h"
#include "medreact/json.h"
#include "medreact/status.h"
#include "medreact/tool_registry.h"

namespace medreact {

struct FhirApiOptions {
  std::string base_url;         // the FHIR server's base, without a trailing '/'
  std::string bearer_token;     // Default: none
  bool allow_post = false;      // send POSTs to the server. Default: false (recorded only)
  size_t max_body_chars = 60'000;  // a GET's body shown to the model, at most. Default: 60,000
  Millis request_timeout{30'000};  // Default: 30 s
  std::shared_ptr<HttpTransport> transport;  // Default: libcurl
};

struct RecordedPost {
  std::string url;  // <base>/<Resource>
  Json payload;
};

// What the tools did during one run.
class FhirApiLog {
 public:
  void AddPost(RecordedPost post);
  std::vector<RecordedPost> posts() const;
  void AddGet();
  int gets() const;

 private:
  mutable std::mutex mu_;
  std::vector<RecordedPost> posts_;
  int gets_ = 0;
};

struct FhirApiFunction {
  ToolSpec spec;
  std::string method;    // "GET" or "POST"
  std::string resource;  // "Observation"
};

// The functions of funcs_v1.json's parsed text: InvalidArgument naming the
// entry that is not {name: "GET|POST {api_base}/<Resource>", description,
// parameters}.
Result<std::vector<FhirApiFunction>> FhirApiFunctions(const Json& funcs);

// Registers one tool per function; `log` receives the calls.
Status RegisterFhirApiTools(ToolRegistry& registry, const std::vector<FhirApiFunction>& functions,
                            const FhirApiOptions& options, std::shared_ptr<FhirApiLog> log);

}  // namespace medreact

#endif  // MEDREACT_TOOLS_FHIR_FHIR_API_TOOLS_H_
