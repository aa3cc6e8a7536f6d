// Runs a test twice: with the patient's record read from a bundle file, and
// with the same record served by the loopback FHIR fixture server and read
// over REST (tools/fhir/fhir_rest.h). Used by the triage tests (issue 28:
// every triage test passes with the record read over REST).
//
//   INSTANTIATE_TEST_SUITE_P(Record, MyTest, testing::kRecordVias, testing::RecordViaName);
//   RecordServer record(GetParam());
//   std::shared_ptr<const FhirStore> store = record.Store(bundle, "2025-06-13");
//   std::vector<std::string> args = record.Args(bundle, dir);   // --fhir PATH | --fhir-url BASE --patient ID
#ifndef MEDREACT_TESTS_TESTING_RECORD_VIA_H_
#define MEDREACT_TESTS_TESTING_RECORD_VIA_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "testing/fhir_fixture_server.h"
#include "testing/subprocess.h"
#include "tools/fhir/fhir_rest.h"
#include "tools/fhir/fhir_store.h"

namespace medreact::testing {

enum class RecordVia { kFile, kRest };

inline const auto kRecordVias = ::testing::Values(RecordVia::kFile, RecordVia::kRest);

inline std::string RecordViaName(const ::testing::TestParamInfo<RecordVia>& info) {
  return info.param == RecordVia::kFile ? "File" : "Rest";
}

// The id of the bundle's first Patient.
inline std::string BundlePatientId(const Json& bundle) {
  for (const Json& e : bundle["entry"]) {
    if (e["resource"].value("resourceType", "") == "Patient") return e["resource"].value("id", "");
  }
  return "";
}

class RecordServer {
 public:
  explicit RecordServer(RecordVia via) : via_(via) {}

  RecordVia via() const { return via_; }

  // The record as a FhirStore: parsed from the bundle, or served and read
  // over REST (a server per call, kept until this object goes).
  std::shared_ptr<const FhirStore> Store(const Json& bundle, const std::string& as_of = "") {
    Result<FhirStore> store = via_ == RecordVia::kFile ? FhirStore::FromJson(bundle, "test bundle")
                                                       : ReadFhirPatient(Serve(bundle), BundlePatientId(bundle), {});
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (!store.ok()) return nullptr;
    if (!as_of.empty()) {
      EXPECT_TRUE(store->SetAsOf(as_of).ok());
    }
    return std::make_shared<const FhirStore>(std::move(store).value());
  }

  // The command-line flags naming the record: --fhir <dir>/fhir.json, or
  // --fhir-url <server> --patient <id>.
  std::vector<std::string> Args(const Json& bundle, const TempDir& dir, const std::string& name = "fhir.json") {
    if (via_ == RecordVia::kFile) {
      dir.Write(name, DumpJson(bundle));
      return {"--fhir", dir.File(name)};
    }
    return {"--fhir-url", Serve(bundle), "--patient", BundlePatientId(bundle)};
  }

  // The record as the apps name it: the file's path, or <base>/Patient/<id>.
  std::string Locator(const Json& bundle, const TempDir& dir, const std::string& name = "fhir.json") {
    std::vector<std::string> args = Args(bundle, dir, name);
    return via_ == RecordVia::kFile ? args[1] : FhirPatientUrl(args[1], args[3]);
  }

 private:
  std::string Serve(const Json& bundle) {
    auto server = std::make_unique<FhirFixtureServer>(FhirFixtureOptions{.everything = true});
    server->AddBundle(bundle);
    EXPECT_TRUE(server->Start());
    std::string base = server->base_url();
    servers_.push_back(std::move(server));
    return base;
  }

  RecordVia via_;
  std::vector<std::unique_ptr<FhirFixtureServer>> servers_;
};

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_RECORD_VIA_H_
