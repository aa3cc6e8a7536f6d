// Reading one patient's record from a FHIR R4 server (REST API) into the
// same FhirStore that bundle files give, so every fhir tool and app works on
// either.
//
// Flow (ReadFhirPatient): GET [base]/metadata (the CapabilityStatement). When
// it declares the `everything` operation on Patient, GET
// Patient/<id>/$everything and follow its `next` links; otherwise GET
// Patient/<id> and search each resource type the fhir pack reads
// (FhirPackResourceTypes, plus Encounter for the record's as-of date) with
// `patient=<id>&_count=<page_size>`, following `next` links; Observation
// takes `date=ge<as_of - lookback_days>` when a lookback is set, and
// MedicationRequest `_include=MedicationRequest:medication`.
//
// Auth: a static bearer token (MEDREACT_FHIR_TOKEN), or SMART backend
// services client credentials (smart_auth.h) whose token URL comes from
// [base]/.well-known/smart-configuration unless given. A 401 refreshes the
// SMART token once (a static token cannot be refreshed), then fails.
//
// Errors: an HTTP error is named with its OperationOutcome issues (severity,
// code, diagnostics); a searchset's OperationOutcome entry (search mode
// `outcome`) is a warning, or an error when its severity is error or fatal;
// 429 and 5xx are retried after Retry-After (llm/retry.h's loop, with an
// injectable sleep); a `next` URL seen before, more than max_pages pages or
// max_resources resources stop the read with an error; a `next` link to
// another scheme, host or port is refused; every response is size-capped and
// parsed with the guarded parser. The patient id appears in request URLs (as
// FHIR requires) but in no message or log line above debug.
#ifndef MEDREACT_TOOLS_FHIR_FHIR_REST_H_
#define MEDREACT_TOOLS_FHIR_FHIR_REST_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/cancel.h"
#include "medreact/http.h"
#include "medreact/status.h"
#include "tools/fhir/fhir_store.h"
#include "tools/fhir/smart_auth.h"

namespace medreact {

struct FhirRestOptions {
  // Sent as "Authorization: Bearer ...". Default: "" = MEDREACT_FHIR_TOKEN
  std::string bearer_token;
  // SMART backend services: the client id and its PEM private key file. When
  // both are set the static token is not used. Default: "" =
  // MEDREACT_FHIR_CLIENT_ID / MEDREACT_FHIR_PRIVATE_KEY
  std::string client_id;
  std::string private_key_path;
  // The token endpoint. Default: "" = MEDREACT_FHIR_TOKEN_URL, else
  // [base]/.well-known/smart-configuration's token_endpoint
  std::string token_url;
  std::string scope = "system/*.read";  // Default: "system/*.read"
  // Shares SMART tokens between reads (the cache lives in it). Default: one
  // per read, or the process-wide one LoadFhirRecord keeps
  std::shared_ptr<SmartTokenSource> token_source;
  int page_size = 200;          // _count. Default: 200
  int max_pages = 200;          // over the whole read. Default: 200
  size_t max_resources = 200'000;  // over the whole read. Default: 200,000
  // One response's cap. Default: 32 MiB
  size_t max_response_bytes = size_t{32} << 20;
  // Observation searches take date=ge(today - lookback); 0 = no date filter.
  // Default: 0
  int lookback_days = 0;
  // Use Patient/$everything when the server declares it. Default: true
  bool use_everything = true;
  int max_retries = 3;             // after 429/5xx/transport failures. Default: 3
  Millis max_backoff{30'000};      // cap on any wait, Retry-After included. Default: 30 s
  Millis request_timeout{60'000};  // one request. Default: 60 s
  std::shared_ptr<HttpTransport> transport;  // Default: libcurl
  std::function<void(Millis)> sleep;         // waits before retries; tests record them. Default: real wait
  // The clock for the lookback date and tokens. Default: system_clock::now
  std::function<std::chrono::system_clock::time_point()> now;
};

// Fills the empty auth fields from the environment (`getenv` Default:
// std::getenv).
FhirRestOptions ResolveFhirRestOptions(FhirRestOptions options,
                                       const std::function<const char*(const char*)>& getenv = {});

// What a read did.
struct FhirReadReport {
  std::string mode;  // "$everything" or "search"
  int requests = 0;  // HTTP requests sent, retries and token grants excluded
  int pages = 0;     // Bundle pages read
  int retries = 0;
  std::vector<std::string> warnings;  // OperationOutcome warnings, also in the store's warnings()
};

// Reads patient `patient_id` from the server at `base` (http or https).
Result<FhirStore> ReadFhirPatient(const std::string& base, const std::string& patient_id,
                                  const FhirRestOptions& options, FhirReadReport* report = nullptr,
                                  const CancellationToken& cancel = {});

// GET [base]/.well-known/smart-configuration's token_endpoint.
Result<std::string> DiscoverSmartTokenUrl(const std::string& base, const FhirRestOptions& options);

// --- One string for "a record": a file path or a server's patient ---------

// "<base>/Patient/<id>": how a record on a FHIR server is named where a path
// is expected (the apps' `fhir` input, a run's saved inputs), which is the
// patient's own absolute FHIR URL.
std::string FhirPatientUrl(std::string_view base, std::string_view patient_id);
// True for an http(s) URL whose last two segments are "Patient/<id>".
bool IsFhirPatientUrl(std::string_view text);
// Splits a FhirPatientUrl; false when it is not one.
bool SplitFhirPatientUrl(std::string_view url, std::string* base, std::string* patient_id);
// The text to show for a record: a path as it is, a server's patient as
// "<base>/Patient/…" (the id is an identifier).
std::string FhirRecordDisplay(std::string_view path_or_url);

// A file path (FhirStore::LoadFile) or a FhirPatientUrl (ReadFhirPatient with
// the environment's options and a process-wide SMART token cache).
Result<FhirStore> LoadFhirRecord(const std::string& path_or_url);

}  // namespace medreact

#endif  // MEDREACT_TOOLS_FHIR_FHIR_REST_H_
