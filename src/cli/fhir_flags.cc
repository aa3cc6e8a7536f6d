#include "cli/fhir_flags.h"

#include <cstdlib>

#include "tools/fhir/fhir_rest.h"

namespace medreact::cli {

void AddFhirRecordFlags(CLI::App* command, FhirRecordFlags* flags, const std::string& what) {
  command->add_option("--fhir", flags->path, what);
  command->add_option("--fhir-url", flags->url,
                      "read the record from this FHIR R4 server (base URL; with --patient)");
  command->add_option("--patient", flags->patient, "the patient's id on the FHIR server (--fhir-url)");
  command->add_option("--fhir-client-id", flags->client_id,
                      "SMART backend services client id for --fhir-url (with --fhir-private-key)");
  command->add_option("--fhir-private-key", flags->private_key,
                      "PEM private key (RSA or EC P-384) that signs the SMART client assertion");
  command->add_option("--fhir-token-url", flags->token_url,
                      "SMART token endpoint (default: the server's .well-known/smart-configuration)");
  command->add_option("--fhir-lookback-days", flags->lookback_days,
                      "only Observations from the last N days when searching the server (default: all)")
      ->check(CLI::Range(0, 36500));
}

Result<std::string> RecordLocator(const FhirRecordFlags& flags, bool required) {
  const bool rest = !flags.url.empty() || !flags.patient.empty();
  if (!flags.path.empty() && rest) return Status::InvalidArgument("give either --fhir PATH or --fhir-url with --patient, not both");
  const bool auth = !flags.client_id.empty() || !flags.private_key.empty() || !flags.token_url.empty() ||
                    flags.lookback_days > 0;
  if (auth && !rest) return Status::InvalidArgument("--fhir-client-id, --fhir-private-key, --fhir-token-url and --fhir-lookback-days go with --fhir-url");
  if (!rest) {
    if (flags.path.empty() && required) {
      return Status::InvalidArgument("give the patient's record: --fhir PATH, or --fhir-url BASE with --patient ID");
    }
    return flags.path;
  }
  if (flags.url.empty() || flags.patient.empty()) return Status::InvalidArgument("--fhir-url and --patient go together");
  const std::string locator = FhirPatientUrl(flags.url, flags.patient);
  if (!IsFhirPatientUrl(locator)) return Status::InvalidArgument("--fhir-url must be an http:// or https:// base URL");
  // The loader reads these (fhir_rest.h, ResolveFhirRestOptions).
  if (!flags.client_id.empty()) setenv("MEDREACT_FHIR_CLIENT_ID", flags.client_id.c_str(), 1);
  if (!flags.private_key.empty()) setenv("MEDREACT_FHIR_PRIVATE_KEY", flags.private_key.c_str(), 1);
  if (!flags.token_url.empty()) setenv("MEDREACT_FHIR_TOKEN_URL", flags.token_url.c_str(), 1);
  if (flags.lookback_days > 0) setenv("MEDREACT_FHIR_LOOKBACK_DAYS", std::to_string(flags.lookback_days).c_str(), 1);
  return locator;
}

}  // namespace medreact::cli
