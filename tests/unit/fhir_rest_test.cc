// The FHIR REST client (tools/fhir/fhir_rest.h, smart_auth.h) against the
// loopback FHIR fixture server: $everything and per-type searches with
// paging give the same FhirStore as the bundle file; the MedAgentBench
// patients and HbA1c searchsets; static and SMART (RS384, ES384) auth with a
// cached token and one refresh after 401; 429 with Retry-After; OperationOutcome
// errors and warnings; paging that loops, never ends or leaves the host;
// the size cap.
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/file_io.h"
#include "testing/fhir_builders.h"
#include "testing/fhir_fixture_server.h"
#include "testing/fixtures.h"
#include "testing/subprocess.h"
#include "tools/fhir/fhir_pack.h"
#include "tools/fhir/fhir_rest.h"
#include "tools/fhir/smart_auth.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::FhirFixtureOptions;
using testing::FhirFixtureServer;

// A fresh key pair, as PEM (private PKCS#8, public SubjectPublicKeyInfo).
struct KeyPair {
  std::string private_pem;
  std::string public_pem;
};

KeyPair MakeKeys(bool ec) {
  EVP_PKEY* key = ec ? EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-384")
                     : EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(2048));
  KeyPair out;
  if (key == nullptr) return out;
  BIO* priv = BIO_new(BIO_s_mem());
  BIO* pub = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(priv, key, nullptr, nullptr, 0, nullptr, nullptr);
  PEM_write_bio_PUBKEY(pub, key);
  char* data = nullptr;
  long n = BIO_get_mem_data(priv, &data);
  out.private_pem.assign(data, static_cast<size_t>(n));
  n = BIO_get_mem_data(pub, &data);
  out.public_pem.assign(data, static_cast<size_t>(n));
  BIO_free(priv);
  BIO_free(pub);
  EVP_PKEY_free(key);
  return out;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Json SyntheaBundle(const std::string& name) {
  for (const auto& p : testing::SyntheaBundles()) {
    if (p.filename().string().rfind(name, 0) == 0) return ParseJson(ReadText(p.string())).value_or(Json());
  }
  return Json();
}

std::string SyntheaPatientId(const Json& bundle) {
  for (const Json& e : bundle["entry"]) {
    if (e["resource"]["resourceType"] == "Patient") return e["resource"]["id"];
  }
  return "";
}

// Every fhir tool's output over `store`, in order.
std::vector<std::string> ToolOutputs(const FhirStore& store) {
  ToolRegistry registry;
  EXPECT_TRUE(RegisterFhirPack(registry, std::make_shared<const FhirStore>(store)).ok());
  std::vector<std::pair<std::string, Json>> calls = {
      {"search_clinical_history", {{"query", "fibrillation"}}},
      {"get_recent_labs", {{"category", "Renal"}, {"lookback_days", 3650}}},
      {"check_medication_status", {{"medication_name", "anticoag"}}},
      {"get_vital_signs", {{"lookback_days", 3650}}},
      {"check_allergies", Json::object()},
      {"get_imaging_history", Json::object()}};
  std::vector<std::string> out;
  for (const auto& [name, args] : calls) {
    ToolResult r = registry.Execute({.id = "c", .name = name, .arguments = DumpJson(args)}, {});
    out.push_back(name + ": " + r.content);
  }
  return out;
}

FhirRestOptions Options() {
  FhirRestOptions o;
  o.sleep = [](Millis) {};
  return o;
}

TEST(FhirRestTest, EverythingWithPagingGivesTheFileStore) {
  const Json bundle = SyntheaBundle("Eura_Treutel");
  ASSERT_TRUE(bundle.is_object());
  FhirFixtureServer server({.everything = true});
  server.AddBundle(bundle);
  ASSERT_TRUE(server.Start());
  FhirRestOptions options = Options();
  options.page_size = 100;
  FhirReadReport report;
  Result<FhirStore> rest = ReadFhirPatient(server.base_url(), SyntheaPatientId(bundle), options, &report);
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  Result<FhirStore> file = FhirStore::FromJson(bundle, "file");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(report.mode, "$everything");
  EXPECT_GT(report.pages, 3);  // the record is hundreds of resources
  EXPECT_EQ(rest->resources().size(), file->resources().size());
  EXPECT_EQ(rest->ResourceCounts(), file->ResourceCounts());
  EXPECT_EQ(rest->patient_id(), file->patient_id());
  EXPECT_EQ(rest->as_of_date(), file->as_of_date());
  EXPECT_EQ(ToolOutputs(*rest), ToolOutputs(*file));
  // The manifest too (it counts every type).
  EXPECT_THAT(rest->source(), Not(HasSubstr(SyntheaPatientId(bundle))));
  // The first request read the CapabilityStatement, the second asked for $everything.
  const auto seen = server.requests();
  ASSERT_GE(seen.size(), 2u);
  EXPECT_EQ(seen[0].path, "/fhir/metadata");
  EXPECT_EQ(seen[1].path, "/fhir/Patient/" + SyntheaPatientId(bundle) + "/$everything");
  EXPECT_THAT(seen[1].query, HasSubstr("_count=100"));
}

TEST(FhirRestTest, SearchesPerTypeWithoutEverything) {
  const Json bundle = SyntheaBundle("Mafalda_Turcotte");
  FhirFixtureServer server({.everything = false});
  server.AddBundle(bundle);
  ASSERT_TRUE(server.Start());
  FhirRestOptions options = Options();
  options.page_size = 40;
  FhirReadReport report;
  Result<FhirStore> rest = ReadFhirPatient(server.base_url(), SyntheaPatientId(bundle), options, &report);
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  Result<FhirStore> file = FhirStore::FromJson(bundle, "file");
  EXPECT_EQ(report.mode, "search");
  for (const char* type : {"Observation", "Condition", "MedicationRequest", "AllergyIntolerance", "Encounter"}) {
    EXPECT_EQ(rest->OfType(type).size(), file->OfType(type).size()) << type;
  }
  EXPECT_EQ(rest->OfType("Claim").size(), 0u);  // billing is not searched
  EXPECT_EQ(rest->as_of_date(), file->as_of_date());
  EXPECT_EQ(ToolOutputs(*rest), ToolOutputs(*file));
  std::set<std::string> searched;
  for (const auto& r : server.requests()) {
    if (r.query.find("patient=" + SyntheaPatientId(bundle)) != std::string::npos) searched.insert(r.path);
    if (r.path == "/fhir/MedicationRequest") {
      EXPECT_THAT(r.query, HasSubstr("_include=MedicationRequest:medication"));
    }
  }
  EXPECT_TRUE(searched.count("/fhir/Observation") && searched.count("/fhir/Condition") &&
              searched.count("/fhir/AllergyIntolerance") && searched.count("/fhir/ImagingStudy"));
}

TEST(FhirRestTest, ObservationLookbackSendsADateFilter) {
  const Json bundle = SyntheaBundle("Mafalda_Turcotte");
  FhirFixtureServer server({.everything = false});
  server.AddBundle(bundle);
  ASSERT_TRUE(server.Start());
  FhirRestOptions options = Options();
  options.lookback_days = 30;
  options.now = [] { return std::chrono::sys_days(std::chrono::year_month_day(std::chrono::year(2021), std::chrono::month(3), std::chrono::day(1))); };
  Result<FhirStore> rest = ReadFhirPatient(server.base_url(), SyntheaPatientId(bundle), options);
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  bool dated = false;
  for (const auto& r : server.requests()) {
    if (r.path == "/fhir/Observation") dated = r.query.find("date=ge2021-01-30") != std::string::npos;
  }
  EXPECT_TRUE(dated);
  Result<FhirStore> file = FhirStore::FromJson(bundle, "file");
  EXPECT_LT(rest->OfType("Observation").size(), file->OfType("Observation").size());
  for (const Json* o : rest->OfType("Observation")) EXPECT_GE(StringField(*o, "effectiveDateTime"), "2021-01-30");
}

TEST(FhirRestTest, MedAgentBenchPatientAndHbA1cSearchset) {
  FhirFixtureServer server({.everything = false});
  ASSERT_TRUE(server.AddMedAgentBench());
  ASSERT_TRUE(server.Start());
  Result<FhirStore> rest = ReadFhirPatient(server.base_url(), "S1698248", Options());
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  ASSERT_NE(rest->patient(), nullptr);
  EXPECT_EQ(rest->patient_id(), "S1698248");
  EXPECT_EQ(rest->OfType("Observation").size(), 11u);  // its searchset's 11 HbA1c results
  ASSERT_FALSE(rest->OfType("Observation").empty());
  for (const Json* o : rest->OfType("Observation")) EXPECT_EQ(ConceptCode(ObjectField(*o, "code")), "A1C");
  // An unknown patient: the server's OperationOutcome is named.
  Result<FhirStore> missing = ReadFhirPatient(server.base_url(), "S0000000", Options());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("HTTP 404: OperationOutcome error not-found"));
}

TEST(FhirRestTest, StaticBearerToken) {
  FhirFixtureServer server({.everything = true, .required_token = "s3cret"});
  server.AddBundle(testing::PeOnWarfarinBundle());
  ASSERT_TRUE(server.Start());
  FhirRestOptions options = Options();
  options.bearer_token = "s3cret";
  Result<FhirStore> ok = ReadFhirPatient(server.base_url(), "pat", options);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(server.requests().back().authorization, "Bearer s3cret");
  options.bearer_token = "wrong";
  Result<FhirStore> refused = ReadFhirPatient(server.base_url(), "pat", options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(refused.status().message(), HasSubstr("HTTP 401: OperationOutcome error login: no valid bearer token"));
  EXPECT_THAT(refused.status().message(), HasSubstr("MEDREACT_FHIR_TOKEN was refused"));
  EXPECT_THAT(refused.status().message(), Not(HasSubstr("wrong")));  // never the token
  // From the environment.
  FhirRestOptions env = ResolveFhirRestOptions({}, [](const char* name) -> const char* {
    return std::string(name) == "MEDREACT_FHIR_TOKEN" ? "s3cret" : nullptr;
  });
  EXPECT_EQ(env.bearer_token, "s3cret");
}

TEST(FhirRestTest, JwtAssertionSignedRs384AndEs384VerifiesWithThePublicKey) {
  for (bool ec : {false, true}) {
    SCOPED_TRACE(ec ? "ES384" : "RS384");
    const KeyPair keys = MakeKeys(ec);
    ASSERT_FALSE(keys.private_pem.empty());
    const auto now = std::chrono::system_clock::now();
    Result<std::string> jwt = SignJwtAssertion(
        keys.private_pem, {.client_id = "client-1", .audience = "https://auth.example/token", .now = now});
    ASSERT_TRUE(jwt.ok()) << jwt.status().ToString();
    Result<Json> claims = VerifyJwt(*jwt, keys.public_pem);
    ASSERT_TRUE(claims.ok()) << claims.status().ToString();
    EXPECT_EQ((*claims)["iss"], "client-1");
    EXPECT_EQ((*claims)["sub"], "client-1");
    EXPECT_EQ((*claims)["aud"], "https://auth.example/token");
    EXPECT_EQ((*claims)["exp"].get<int64_t>() - (*claims)["iat"].get<int64_t>(), 300);
    EXPECT_EQ((*claims)["jti"].get<std::string>().size(), 32u);
    const std::string header = *Base64UrlDecode(jwt->substr(0, jwt->find('.')));
    EXPECT_THAT(header, HasSubstr(ec ? "\"ES384\"" : "\"RS384\""));
    if (ec) {  // JOSE r||s, not DER
      EXPECT_EQ(Base64UrlDecode(jwt->substr(jwt->rfind('.') + 1))->size(), 96u);
    }
    // Two assertions never share a jti.
    Result<std::string> again = SignJwtAssertion(keys.private_pem, {.client_id = "client-1", .audience = "a", .now = now});
    EXPECT_NE((*VerifyJwt(*again, keys.public_pem))["jti"], (*claims)["jti"]);
    // A changed claim or another key fails.
    std::string tampered = *jwt;
    tampered[tampered.find('.') + 5] ^= 1;
    EXPECT_FALSE(VerifyJwt(tampered, keys.public_pem).ok());
    EXPECT_FALSE(VerifyJwt(*jwt, MakeKeys(ec).public_pem).ok());
    // SMART: at most 5 minutes.
    EXPECT_FALSE(SignJwtAssertion(keys.private_pem, {.client_id = "c", .audience = "a", .now = now,
                                                     .lifetime = std::chrono::seconds(301)})
                     .ok());
  }
  Result<std::string> not_a_key = SignJwtAssertion("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
                                                   {.client_id = "c", .audience = "a"});
  EXPECT_EQ(not_a_key.status().code(), StatusCode::kInvalidArgument);
  EVP_PKEY* p256 = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, p256, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  Result<std::string> wrong_curve = SignJwtAssertion(std::string(data, n), {.client_id = "c", .audience = "a"});
  BIO_free(bio);
  EVP_PKEY_free(p256);
  EXPECT_THAT(wrong_curve.status().message(), HasSubstr("P-384"));
}

TEST(FhirRestTest, SmartBackendServicesTokenIsCachedAndRefreshedOnceAfter401) {
  for (bool ec : {false, true}) {
    SCOPED_TRACE(ec ? "ES384" : "RS384");
    const KeyPair keys = MakeKeys(ec);
    testing::TempDir dir;
    dir.Write("key.pem", keys.private_pem);
    FhirFixtureServer server({.everything = true, .smart_public_key = keys.public_pem});
    server.AddBundle(testing::PeOnWarfarinBundle());
    ASSERT_TRUE(server.Start());
    FhirRestOptions options = Options();
    options.client_id = "medreact-test";
    options.private_key_path = dir.File("key.pem");
    // Token URL from .well-known/smart-configuration; one grant for two reads.
    Result<FhirStore> first = ReadFhirPatient(server.base_url(), "pat", options);
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    EXPECT_EQ(server.grants(), 1);
    EXPECT_TRUE(server.token_refusals().empty());
    EXPECT_EQ(server.requests().back().authorization, "Bearer tok-1");

    auto now = std::chrono::system_clock::now();
    auto source = std::make_shared<SmartTokenSource>(SmartClientOptions{
        .client_id = "medreact-test", .private_key_path = dir.File("key.pem"), .token_url = server.origin() + "/token",
        .transport = MakeCurlTransport(), .now = [&now] { return now; }});
    options.token_source = source;
    ASSERT_TRUE(ReadFhirPatient(server.base_url(), "pat", options).ok());
    ASSERT_TRUE(ReadFhirPatient(server.base_url(), "pat", options).ok());
    EXPECT_EQ(source->grants(), 1);  // cached
    now += std::chrono::seconds(241);  // within 60 s of expires_in (300): a new grant
    ASSERT_TRUE(ReadFhirPatient(server.base_url(), "pat", options).ok());
    EXPECT_EQ(source->grants(), 2);
    EXPECT_EQ(server.grants(), 3);
    EXPECT_TRUE(server.token_refusals().empty());

    // A wrong key is refused at the token endpoint, named.
    dir.Write("other.pem", MakeKeys(ec).private_pem);
    FhirRestOptions wrong = Options();
    wrong.client_id = "medreact-test";
    wrong.private_key_path = dir.File("other.pem");
    Result<FhirStore> refused = ReadFhirPatient(server.base_url(), "pat", wrong);
    ASSERT_FALSE(refused.ok());
    EXPECT_THAT(refused.status().message(), HasSubstr("SMART token request"));
    EXPECT_THAT(refused.status().message(), HasSubstr("invalid_client"));
  }
  // 401 once: one new token, then success; 401 twice: a clear failure.
  const KeyPair keys = MakeKeys(false);
  testing::TempDir dir;
  dir.Write("key.pem", keys.private_pem);
  for (int unauthorized : {1, 2}) {
    FhirFixtureServer server({.everything = true, .smart_public_key = keys.public_pem,
                              .unauthorized_first = unauthorized});
    server.AddBundle(testing::PeOnWarfarinBundle());
    ASSERT_TRUE(server.Start());
    FhirRestOptions options = Options();
    options.client_id = "medreact-test";
    options.private_key_path = dir.File("key.pem");
    Result<FhirStore> got = ReadFhirPatient(server.base_url(), "pat", options);
    EXPECT_EQ(server.grants(), 2);
    if (unauthorized == 1) {
      EXPECT_TRUE(got.ok()) << got.status().ToString();
    } else {
      ASSERT_FALSE(got.ok());
      EXPECT_EQ(got.status().code(), StatusCode::kPermissionDenied);
      EXPECT_THAT(got.status().message(), HasSubstr("HTTP 401"));
      EXPECT_THAT(got.status().message(), HasSubstr("after a fresh SMART token"));
    }
  }
}

// LoadFhirRecord (what the apps call) with SMART credentials in the
// environment: the token endpoint is discovered and the token granted once
// for the process, then reused by the next record's read.
TEST(FhirRestTest, LoadFhirRecordSharesOneSmartTokenAcrossReads) {
  const KeyPair keys = MakeKeys(true);
  testing::TempDir dir;
  dir.Write("key.pem", keys.private_pem);
  FhirFixtureServer server({.everything = false, .smart_public_key = keys.public_pem});
  server.AddBundle(testing::PeOnWarfarinBundle());
  ASSERT_TRUE(server.Start());
  setenv("MEDREACT_FHIR_CLIENT_ID", "medreact-test", 1);
  setenv("MEDREACT_FHIR_PRIVATE_KEY", dir.File("key.pem").c_str(), 1);
  Result<FhirStore> first = LoadFhirRecord(FhirPatientUrl(server.base_url(), "pat"));
  Result<FhirStore> second = LoadFhirRecord(FhirPatientUrl(server.base_url(), "pat"));
  unsetenv("MEDREACT_FHIR_CLIENT_ID");
  unsetenv("MEDREACT_FHIR_PRIVATE_KEY");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(server.grants(), 1);
  EXPECT_EQ(second->OfType("Observation").size(), 1u);
}

TEST(FhirRestTest, ThrottledRequestsWaitForRetryAfter) {
  FhirFixtureServer server({.everything = true, .throttle_first = 2, .retry_after = "3"});
  server.AddBundle(testing::PeOnWarfarinBundle());
  ASSERT_TRUE(server.Start());
  std::vector<Millis> waits;
  FhirRestOptions options = Options();
  options.sleep = [&waits](Millis d) { waits.push_back(d); };
  FhirReadReport report;
  Result<FhirStore> got = ReadFhirPatient(server.base_url(), "pat", options, &report);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(waits, (std::vector<Millis>{Millis(3000), Millis(3000)}));
  EXPECT_EQ(report.retries, 2);
  // Retries run out: the OperationOutcome is named.
  FhirFixtureServer busy({.everything = true, .throttle_first = 100, .retry_after = "1"});
  busy.AddBundle(testing::PeOnWarfarinBundle());
  ASSERT_TRUE(busy.Start());
  options.max_retries = 1;
  Result<FhirStore> gave_up = ReadFhirPatient(busy.base_url(), "pat", options);
  ASSERT_FALSE(gave_up.ok());
  EXPECT_THAT(gave_up.status().message(), HasSubstr("429"));
  EXPECT_THAT(gave_up.status().message(), HasSubstr("throttled: too many requests"));
}

TEST(FhirRestTest, SearchsetOperationOutcomeWarnsOrFails) {
  for (const std::string severity : {"warning", "error"}) {
    FhirFixtureServer server({.everything = false, .outcome_severity = severity});
    server.AddBundle(testing::PeOnWarfarinBundle());
    ASSERT_TRUE(server.Start());
    FhirReadReport report;
    Result<FhirStore> got = ReadFhirPatient(server.base_url(), "pat", Options(), &report);
    if (severity == "warning") {
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ASSERT_FALSE(got->warnings().empty());
      EXPECT_THAT(got->warnings()[0], HasSubstr("warning processing: search parameter date was partly ignored"));
      EXPECT_EQ(report.warnings.size(), got->warnings().size());
      EXPECT_EQ(got->OfType("Observation").size(), 1u);  // the outcome is not a resource of the record
    } else {
      ASSERT_FALSE(got.ok());
      EXPECT_THAT(got.status().message(), HasSubstr("search: error processing: search parameter date was partly ignored"));
    }
  }
}

TEST(FhirRestTest, PagingThatLoopsNeverEndsOrLeavesTheHostIsStopped) {
  std::vector<Json> many;
  for (int i = 0; i < 12; ++i) {
    many.push_back(testing::Observation("o" + std::to_string(i), "2160-0", "Creatinine", 1.0, "mg/dL", "2025-06-01"));
  }
  const Json bundle = testing::PatientBundle(many);
  {
    FhirFixtureServer server({.everything = true, .loop_next = true});
    server.AddBundle(bundle);
    ASSERT_TRUE(server.Start());
    FhirRestOptions options = Options();
    options.page_size = 5;
    Result<FhirStore> got = ReadFhirPatient(server.base_url(), "pat", options);
    ASSERT_FALSE(got.ok());
    EXPECT_THAT(got.status().message(), HasSubstr("FHIR paging loops"));
  }
  {
    FhirFixtureServer server({.everything = true, .endless_next = true});
    server.AddBundle(bundle);
    ASSERT_TRUE(server.Start());
    FhirRestOptions options = Options();
    options.page_size = 5;
    options.max_pages = 7;
    Result<FhirStore> got = ReadFhirPatient(server.base_url(), "pat", options);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kResourceExhausted);
    EXPECT_THAT(got.status().message(), HasSubstr("more than 7 pages"));
    options.max_pages = 100;
    options.max_resources = 10;
    got = ReadFhirPatient(server.base_url(), "pat", options);
    EXPECT_THAT(got.status().message(), HasSubstr("more than 10 resources"));
  }
  {
    FhirFixtureServer server({.everything = true, .foreign_next = "http://127.0.0.2:9"});
    server.AddBundle(bundle);
    ASSERT_TRUE(server.Start());
    FhirRestOptions options = Options();
    options.page_size = 5;
    Result<FhirStore> got = ReadFhirPatient(server.base_url(), "pat", options);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kPermissionDenied);
    EXPECT_THAT(got.status().message(), HasSubstr("refused a next link"));
    EXPECT_THAT(got.status().message(), HasSubstr("another server"));
  }
  {
    FhirFixtureServer server({.everything = true});
    server.AddBundle(bundle);
    ASSERT_TRUE(server.Start());
    FhirRestOptions options = Options();
    options.max_response_bytes = 2000;
    Result<FhirStore> got = ReadFhirPatient(server.base_url(), "pat", options);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kResourceExhausted);
  }
}

TEST(FhirRestTest, BadArgumentsAndLocators) {
  EXPECT_EQ(ReadFhirPatient("ftp://x/fhir", "pat", Options()).status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(ReadFhirPatient("http://127.0.0.1:9/fhir", "a/b", Options()).status().message(),
              HasSubstr("not a FHIR id"));
  EXPECT_EQ(FhirPatientUrl("https://h/fhir/", "p-1"), "https://h/fhir/Patient/p-1");
  std::string base, id;
  EXPECT_TRUE(SplitFhirPatientUrl("https://h/fhir/Patient/p-1", &base, &id));
  EXPECT_EQ(base, "https://h/fhir");
  EXPECT_EQ(id, "p-1");
  EXPECT_FALSE(IsFhirPatientUrl("/data/Patient/p-1"));
  EXPECT_FALSE(IsFhirPatientUrl("https://h/fhir/Patient/p-1/x"));
  EXPECT_EQ(FhirRecordDisplay("https://h/fhir/Patient/p-1"), "https://h/fhir/Patient/…");
  EXPECT_EQ(FhirRecordDisplay("rec.json"), "rec.json");
  // LoadFhirRecord: a file, or the server.
  FhirFixtureServer server({.everything = false});
  server.AddBundle(testing::PeOnWarfarinBundle());
  ASSERT_TRUE(server.Start());
  Result<FhirStore> loaded = LoadFhirRecord(FhirPatientUrl(server.base_url(), "pat"));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->patient_id(), "pat");
  EXPECT_THAT(LoadFhirRecord("http://127.0.0.1:9/fhir").status().message(), HasSubstr("give the server (fhir_url) and the patient (patient_id)"));
}

}  // namespace
}  // namespace medreact
