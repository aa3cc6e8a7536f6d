// A patient's record on the command line: --fhir PATH (a Bundle or NDJSON
// file) or --fhir-url BASE --patient ID (a FHIR R4 server, read by
// tools/fhir/fhir_rest.h), with the server's auth flags --fhir-client-id,
// --fhir-private-key and --fhir-token-url (SMART backend services; a static
// token comes from MEDREACT_FHIR_TOKEN only, never a flag, so it stays out of
// shell history and process lists) and --fhir-lookback-days.
//
// RecordLocator checks the combination and returns the one string the apps
// take for a record: the path, or "<base>/Patient/<id>" (FhirPatientUrl).
// The auth flags are handed to the loader through the process environment
// (MEDREACT_FHIR_CLIENT_ID, MEDREACT_FHIR_PRIVATE_KEY, MEDREACT_FHIR_TOKEN_URL,
// MEDREACT_FHIR_LOOKBACK_DAYS), set once before any run starts, so a resumed
// run, a worklist case and a served app read the record the same way.
#ifndef MEDREACT_CLI_FHIR_FLAGS_H_
#define MEDREACT_CLI_FHIR_FLAGS_H_

#include <string>

#include <CLI/CLI.hpp>

#include "medreact/status.h"

namespace medreact::cli {

struct FhirRecordFlags {
  std::string path;         // --fhir
  std::string url;          // --fhir-url
  std::string patient;      // --patient
  std::string client_id;    // --fhir-client-id
  std::string private_key;  // --fhir-private-key
  std::string token_url;    // --fhir-token-url
  int lookback_days = 0;    // --fhir-lookback-days
};

// Adds the flags; `what` completes --fhir's help text.
void AddFhirRecordFlags(CLI::App* command, FhirRecordFlags* flags, const std::string& what);

// "" when no record was given (and `required` is false); else the path or
// the server's patient URL. InvalidArgument naming the flags when both or
// half of a pair were given.
Result<std::string> RecordLocator(const FhirRecordFlags& flags, bool required);

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_FHIR_FLAGS_H_
