// A FHIR R4 server for tests, on 127.0.0.1 (cpp-httplib, a free port): the
// REST client's peer (tools/fhir/fhir_rest.h) and the MedAgentBench
// evaluation's record server.
//
// It holds resources (AddResource / AddBundle / AddNdjsonFile /
// AddSearchsetFile) and answers, under /fhir:
//   GET metadata                      a CapabilityStatement, with or without
//                                     Patient/$everything (options.everything)
//   GET .well-known/smart-configuration   token_endpoint = <origin>/token
//   POST /token                       SMART client_credentials: the JWT
//                                     assertion verified with the public key
//                                     given (iss = sub, aud, exp - iat <= 300,
//                                     a jti never seen before)
//   GET Patient/<id>, Patient/<id>/$everything, <Type>?patient=<id>
//   GET Patient?identifier=&name=&family=&given=&birthdate=
//   GET Observation?patient=&code=&date=ge…
// Searches page with _count and a _offset in the `next` link. Faults on
// demand: a required bearer token, 401 for the first N requests, 429 with
// Retry-After, a searchset OperationOutcome entry, a `next` that loops, one
// that never ends, one to another host. Every request is recorded.
#ifndef MEDREACT_TESTS_TESTING_FHIR_FIXTURE_SERVER_H_
#define MEDREACT_TESTS_TESTING_FHIR_FIXTURE_SERVER_H_

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "medreact/json.h"
#include "testing/build_paths.h"
#include "testing/loopback_http.h"
#include "tools/fhir/smart_auth.h"

namespace medreact::testing {

inline const std::string kMedAgentBenchDir = MEDREACT_SOURCE_DIR + "/tests/fixtures/medagentbench";

struct FhirFixtureOptions {
  bool everything = true;          // the CapabilityStatement declares Patient/$everything
  std::string required_token;      // "" = none; else "Bearer <it>" is required
  std::string smart_public_key;    // PEM: /token grants tokens to JWTs signed by its key
  std::string smart_client_id = "medreact-test";
  int token_expires_in = 300;
  int unauthorized_first = 0;      // answer 401 to the first N FHIR requests whatever the token
  int throttle_first = 0;          // answer 429 (Retry-After: retry_after) to the first N FHIR requests
  std::string retry_after = "1";
  std::string outcome_severity;    // "" = none; else each searchset page carries an OperationOutcome entry
  bool loop_next = false;          // a searchset's last page links back to its first
  bool endless_next = false;       // every page links to one more page, forever
  std::string foreign_next;        // "" = none; else the first page's next link goes to this origin
  int max_count = 0;               // caps _count (0 = none)
};

struct FhirSeenRequest {
  std::string method;
  std::string path;
  std::string query;  // as sent
  std::string authorization;
  std::string body;
};

class FhirFixtureServer {
 public:
  explicit FhirFixtureServer(FhirFixtureOptions options = {}) : options_(std::move(options)) {}
  ~FhirFixtureServer() { Stop(); }
  FhirFixtureServer(const FhirFixtureServer&) = delete;
  FhirFixtureServer& operator=(const FhirFixtureServer&) = delete;

  // Before Start(). The resource's patient comes from its subject / patient
  // reference ("Patient/<id>" or "urn:uuid:<id>").
  void AddResource(Json resource) {
    const std::string type = resource.value("resourceType", "");
    if (type.empty()) return;
    resources_.push_back(std::move(resource));
  }
  // Every entry's resource (a Synthea transaction bundle, a searchset).
  void AddBundle(const Json& bundle) {
    if (!bundle.contains("entry")) return;
    for (const Json& e : bundle["entry"]) {
      if (e.contains("resource") && e["resource"].is_object()) AddResource(e["resource"]);
    }
  }
  bool AddNdjsonFile(const std::string& path) {
    std::ifstream in(path);
    if (!in) return false;
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      Result<Json> j = ParseJson(line);
      if (j.ok()) AddResource(std::move(*j));
    }
    return true;
  }
  // {request URL: {"data": Bundle}} (fhir_a1c_searchsets.json).
  bool AddSearchsetFile(const std::string& path) {
    std::ifstream in(path);
    if (!in) return false;
    std::stringstream ss;
    ss << in.rdbuf();
    Result<Json> j = ParseJson(ss.str());
    if (!j.ok() || !j->is_object()) return false;
    for (auto it = j->begin(); it != j->end(); ++it) {
      if (it->contains("data")) AddBundle((*it)["data"]);
    }
    return true;
  }
  // The MedAgentBench extracts: 500 patients and the task10 HbA1c searchsets.
  bool AddMedAgentBench() {
    return AddNdjsonFile(kMedAgentBenchDir + "/fhir_patients_snapshot.ndjson") &&
           AddSearchsetFile(kMedAgentBenchDir + "/fhir_a1c_searchsets.json");
  }

  bool Start() {
    server_.Get(".*", [this](const httplib::Request& req, httplib::Response& res) { Serve(req, res); });
    server_.Post(".*", [this](const httplib::Request& req, httplib::Response& res) { Serve(req, res); });
    port_ = ServeOnLoopback(server_, thread_);
    return port_ > 0;
  }
  void Stop() {
    StopLoopback(server_, thread_);
  }

  std::string origin() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string base_url() const { return origin() + "/fhir"; }
  std::vector<FhirSeenRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  int grants() const {
    std::lock_guard<std::mutex> lock(mu_);
    return grants_;
  }
  // Reasons /token refused an assertion.
  std::vector<std::string> token_refusals() const {
    std::lock_guard<std::mutex> lock(mu_);
    return token_refusals_;
  }

 private:
  static std::string ReferenceId(const Json& resource) {
    for (const char* key : {"subject", "patient"}) {
      if (!resource.contains(key) || !resource[key].is_object()) continue;
      std::string ref = resource[key].value("reference", "");
      if (ref.rfind("urn:uuid:", 0) == 0) return ref.substr(9);
      const size_t slash = ref.rfind('/');
      return slash == std::string::npos ? ref : ref.substr(slash + 1);
    }
    return "";
  }

  static Json Outcome(const std::string& severity, const std::string& code, const std::string& text) {
    return {{"resourceType", "OperationOutcome"},
            {"issue", {{{"severity", severity}, {"code", code}, {"diagnostics", text}}}}};
  }

  static void Reply(httplib::Response& res, int status, const Json& body) {
    res.status = status;
    res.set_content(DumpJson(body), "application/fhir+json");
  }

  Json Capability() const {
    Json patient = {{"type", "Patient"}, {"interaction", {{{"code", "read"}}, {{"code", "search-type"}}}}};
    if (options_.everything) {
      patient["operation"] = {{{"name", "everything"},
                               {"definition", "http://hl7.org/fhir/OperationDefinition/Patient-everything"}}};
    }
    return {{"resourceType", "CapabilityStatement"},
            {"status", "active"},
            {"fhirVersion", "4.0.1"},
            {"format", {"json"}},
            {"rest", {{{"mode", "server"}, {"resource", {patient, {{"type", "Observation"}}}}}}}};
  }

  // The searchset page [offset, offset + count) of `matches`.
  Json Page(const std::vector<const Json*>& matches, const std::string& self_path, std::string query_wo_offset,
            size_t offset, size_t count) const {
    Json bundle = {{"resourceType", "Bundle"},
                   {"type", "searchset"},
                   {"total", matches.size()},
                   {"entry", Json::array()}};
    for (size_t i = offset; i < matches.size() && i < offset + count; ++i) {
      const Json& r = *matches[i];
      bundle["entry"].push_back({{"fullUrl", base_url() + "/" + r.value("resourceType", "") + "/" + r.value("id", "")},
                                 {"resource", r},
                                 {"search", {{"mode", "match"}}}});
    }
    if (!options_.outcome_severity.empty()) {
      bundle["entry"].push_back({{"resource", Outcome(options_.outcome_severity, "processing",
                                                      "search parameter date was partly ignored")},
                                 {"search", {{"mode", "outcome"}}}});
    }
    const std::string self = base_url() + self_path + "?" + query_wo_offset;
    std::string next;
    if (!options_.foreign_next.empty() && offset == 0) {
      next = options_.foreign_next + "/fhir" + self_path + "?" + query_wo_offset + "&_offset=" + std::to_string(count);
    } else if (options_.endless_next) {
      next = self + "&_offset=" + std::to_string(offset + count);
    } else if (offset + count < matches.size()) {
      next = self + "&_offset=" + std::to_string(offset + count);
    } else if (options_.loop_next && offset > 0) {
      next = self + "&_offset=0";
    } else if (options_.loop_next) {
      next = self;
    }
    bundle["link"] = Json::array({{{"relation", "self"}, {"url", self + "&_offset=" + std::to_string(offset)}}});
    if (!next.empty()) bundle["link"].push_back({{"relation", "next"}, {"url", next}});
    return bundle;
  }

  void Token(const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    auto refuse = [&](const std::string& why) {
      token_refusals_.push_back(why);
      Reply(res, 400, {{"error", "invalid_client"}, {"error_description", why}});
    };
    if (req.get_param_value("grant_type") != "client_credentials") return refuse("grant_type");
    if (req.get_param_value("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer") {
      return refuse("client_assertion_type");
    }
    Result<Json> claims = VerifyJwt(req.get_param_value("client_assertion"), options_.smart_public_key);
    if (!claims.ok()) return refuse(claims.status().message());
    const std::string client = claims->value("iss", "");
    if (client != options_.smart_client_id || claims->value("sub", "") != client) return refuse("iss/sub");
    if (claims->value("aud", "") != origin() + "/token") return refuse("aud");
    if (claims->value("exp", int64_t{0}) - claims->value("iat", int64_t{0}) > 300) return refuse("exp");
    const std::string jti = claims->value("jti", "");
    if (jti.empty() || !jtis_.insert(jti).second) return refuse("jti replayed");
    ++grants_;
    const std::string token = "tok-" + std::to_string(grants_);
    tokens_.insert(token);
    Reply(res, 200, {{"access_token", token}, {"token_type", "bearer"}, {"expires_in", options_.token_expires_in},
                     {"scope", req.get_param_value("scope")}});
  }

  bool Authorized(const std::string& header) {
    if (!options_.smart_public_key.empty()) {
      return header.rfind("Bearer ", 0) == 0 && tokens_.count(header.substr(7)) > 0;
    }
    if (options_.required_token.empty()) return true;
    return header == "Bearer " + options_.required_token;
  }

  static bool MatchesPatientSearch(const Json& p, const httplib::Request& req) {
    auto lower = [](std::string s) {
      std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
      return s;
    };
    if (req.has_param("identifier")) {
      std::string want = req.get_param_value("identifier");
      if (const size_t bar = want.find('|'); bar != std::string::npos) want = want.substr(bar + 1);
      bool hit = p.value("id", "") == want;
      if (p.contains("identifier")) {
        for (const Json& id : p["identifier"]) hit = hit || id.value("value", "") == want;
      }
      if (!hit) return false;
    }
    if (req.has_param("birthdate") && p.value("birthDate", "") != req.get_param_value("birthdate")) return false;
    std::string names;
    std::string family, given;
    if (p.contains("name")) {
      for (const Json& n : p["name"]) {
        family += " " + lower(n.value("family", ""));
        if (n.contains("given")) {
          for (const Json& g : n["given"]) given += " " + lower(g.get<std::string>());
        }
      }
    }
    names = family + " " + given;
    auto has = [](const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; };
    if (req.has_param("family") && !has(family, " " + lower(req.get_param_value("family")))) return false;
    if (req.has_param("given") && !has(given, " " + lower(req.get_param_value("given")))) return false;
    if (req.has_param("name") && !has(names, lower(req.get_param_value("name")))) return false;
    return true;
  }

  void Serve(const httplib::Request& req, httplib::Response& res) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      std::string query;
      for (const auto& [k, v] : req.params) query += (query.empty() ? "" : "&") + k + "=" + v;
      requests_.push_back({req.method, req.path, query, req.get_header_value("Authorization"), req.body});
    }
    if (req.method == "POST" && req.path == "/token") return Token(req, res);
    const std::string prefix = "/fhir";
    if (req.path.rfind(prefix, 0) != 0) return Reply(res, 404, Outcome("error", "not-found", "no such path"));
    const std::string path = req.path.substr(prefix.size());
    if (path == "/metadata") return Reply(res, 200, Capability());
    if (path == "/.well-known/smart-configuration") {
      return Reply(res, 200, {{"token_endpoint", origin() + "/token"},
                              {"grant_types_supported", {"client_credentials"}},
                              {"token_endpoint_auth_signing_alg_values_supported", {"RS384", "ES384"}}});
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++fhir_requests_;
      if (fhir_requests_ <= options_.unauthorized_first) {
        return Reply(res, 401, Outcome("error", "login", "token expired"));
      }
      if (!Authorized(req.get_header_value("Authorization"))) {
        return Reply(res, 401, Outcome("error", "login", "no valid bearer token"));
      }
      if (fhir_requests_ <= options_.unauthorized_first + options_.throttle_first) {
        res.set_header("Retry-After", options_.retry_after);
        return Reply(res, 429, Outcome("error", "throttled", "too many requests"));
      }
    }
    if (req.method == "POST") return Reply(res, 405, Outcome("error", "not-supported", "this server is read-only"));

    std::vector<std::string> parts;
    for (size_t start = 1; start <= path.size();) {
      size_t slash = path.find('/', start);
      if (slash == std::string::npos) slash = path.size();
      parts.push_back(path.substr(start, slash - start));
      start = slash + 1;
    }
    size_t count = req.has_param("_count") ? std::stoul(req.get_param_value("_count")) : 50;
    if (options_.max_count > 0) count = std::min<size_t>(count, options_.max_count);
    if (count == 0) count = 1;
    const size_t offset = req.has_param("_offset") ? std::stoul(req.get_param_value("_offset")) : 0;
    std::string query_wo_offset;
    for (const auto& [k, v] : req.params) {
      if (k == "_offset") continue;
      query_wo_offset += (query_wo_offset.empty() ? "" : "&") + k + "=" + httplib::detail::encode_query_param(v);
    }

    auto find_patient = [&](const std::string& id) -> const Json* {
      for (const Json& r : resources_) {
        if (r.value("resourceType", "") == "Patient" && r.value("id", "") == id) return &r;
      }
      return nullptr;
    };
    if (parts.size() == 2 && parts[0] == "Patient") {
      const Json* p = find_patient(parts[1]);
      if (p == nullptr) return Reply(res, 404, Outcome("error", "not-found", "Resource Patient/" + parts[1] + " is not known"));
      return Reply(res, 200, *p);
    }
    if (parts.size() == 3 && parts[0] == "Patient" && parts[2] == "$everything") {
      const Json* p = find_patient(parts[1]);
      if (p == nullptr) return Reply(res, 404, Outcome("error", "not-found", "Resource Patient/" + parts[1] + " is not known"));
      std::vector<const Json*> matches = {p};
      for (const Json& r : resources_) {
        // The patient's compartment, and what belongs to no patient (the
        // organizations and practitioners its resources point to).
        const std::string owner = ReferenceId(r);
        if (&r != p && r.value("resourceType", "") != "Patient" && (owner == parts[1] || owner.empty())) {
          matches.push_back(&r);
        }
      }
      return Reply(res, 200, Page(matches, path, query_wo_offset, offset, count));
    }
    if (parts.size() == 1) {
      const std::string& type = parts[0];
      std::vector<const Json*> matches;
      std::string patient = req.get_param_value("patient");
      if (patient.rfind("Patient/", 0) == 0) patient = patient.substr(8);
      for (const Json& r : resources_) {
        if (r.value("resourceType", "") != type) continue;
        if (type == "Patient") {
          if (!MatchesPatientSearch(r, req)) continue;
        } else {
          if (patient.empty() || ReferenceId(r) != patient) continue;
        }
        if (req.has_param("code")) {
          bool hit = false;
          const std::string want = req.get_param_value("code");
          if (r.contains("code") && r["code"].contains("coding")) {
            for (const Json& c : r["code"]["coding"]) {
              const std::string code = c.value("code", "");
              const std::string sys = c.value("system", "");
              hit = hit || want == code || want == sys + "|" + code;
            }
          }
          if (!hit) continue;
        }
        if (req.has_param("date")) {
          const std::string d = req.get_param_value("date");
          const std::string when = r.value("effectiveDateTime", "");
          if (d.rfind("ge", 0) == 0 && when.substr(0, 10) < d.substr(2, 10)) continue;
        }
        matches.push_back(&r);
      }
      if (type == "MedicationRequest" && req.get_param_value("_include") == "MedicationRequest:medication") {
        std::vector<const Json*> included;
        for (const Json* m : matches) {
          if (!m->contains("medicationReference")) continue;
          std::string ref = (*m)["medicationReference"].value("reference", "");
          if (ref.rfind("urn:uuid:", 0) == 0) ref = ref.substr(9);
          if (const size_t slash = ref.rfind('/'); slash != std::string::npos) ref = ref.substr(slash + 1);
          for (const Json& r : resources_) {
            if (r.value("resourceType", "") == "Medication" && r.value("id", "") == ref) included.push_back(&r);
          }
        }
        matches.insert(matches.end(), included.begin(), included.end());
      }
      return Reply(res, 200, Page(matches, path, query_wo_offset, offset, count));
    }
    return Reply(res, 404, Outcome("error", "not-supported", "unknown interaction"));
  }

  FhirFixtureOptions options_;
  std::vector<Json> resources_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  std::vector<FhirSeenRequest> requests_;
  int fhir_requests_ = 0;
  int grants_ = 0;
  std::set<std::string> jtis_;
  std::set<std::string> tokens_;
  std::vector<std::string> token_refusals_;
};

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_FHIR_FIXTURE_SERVER_H_
