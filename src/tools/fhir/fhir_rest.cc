#include "tools/fhir/fhir_rest.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <unordered_set>
#include <utility>

#include "core/log.h"
#include "core/text_util.h"
#include "llm/retry.h"
#include "tools/fhir/fhir_pack.h"

namespace medreact {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "scheme://host:port" with the default port made explicit, lower-case; ""
// when the URL has no scheme://host.
std::string OriginOf(std::string_view url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return "";
  const std::string scheme = Lower(url.substr(0, scheme_end));
  std::string_view rest = url.substr(scheme_end + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);
  std::string host(rest);
  if (host.empty()) return "";
  const bool bracketed = host.front() == '[';
  const size_t colon = host.rfind(':');
  const bool has_port = colon != std::string::npos && (!bracketed || host.find(']') < colon);
  if (!has_port) host += scheme == "https" ? ":443" : ":80";
  return scheme + "://" + Lower(host);
}

bool IsHttpUrl(std::string_view url) {
  const std::string l = Lower(url.substr(0, 8));
  return l.rfind("http://", 0) == 0 || l.rfind("https://", 0) == 0;
}

// The issues of an OperationOutcome: "error processing: diagnostics; ...".
std::string OutcomeText(const Json& outcome) {
  std::string out;
  const Json& issues = outcome.contains("issue") ? outcome["issue"] : Json();
  if (!issues.is_array()) return out;
  int shown = 0;
  for (const Json& issue : issues) {
    if (!issue.is_object()) continue;
    if (++shown > 5) {
      out += "; …";
      break;
    }
    std::string text = StringOr(issue, "severity", "?") + " " + StringOr(issue, "code", "?");
    std::string detail = StringOr(issue, "diagnostics");
    if (detail.empty()) detail = ConceptText(ObjectField(issue, "details"));
    if (!detail.empty()) text += ": " + Printable(Preview(detail, 200));
    if (!out.empty()) out += "; ";
    out += text;
  }
  return out;
}

// The worst severity among the issues: 3 fatal, 2 error, 1 warning, 0 other.
int OutcomeSeverity(const Json& outcome) {
  int worst = 0;
  const Json& issues = outcome.contains("issue") ? outcome["issue"] : Json();
  if (!issues.is_array()) return worst;
  for (const Json& issue : issues) {
    const std::string s = StringOr(issue, "severity");
    worst = std::max(worst, s == "fatal" ? 3 : s == "error" ? 2 : s == "warning" ? 1 : 0);
  }
  return worst;
}

class Reader {
 public:
  Reader(std::string base, std::string patient_id, const FhirRestOptions& options, FhirReadReport* report,
         const CancellationToken& cancel)
      : base_(std::move(base)),
        patient_id_(std::move(patient_id)),
        options_(options),
        report_(report),
        cancel_(cancel),
        origin_(OriginOf(base_)) {}

  Status SetUpAuth() {
    if (!options_.client_id.empty() || !options_.private_key_path.empty()) {
      if (options_.client_id.empty() || options_.private_key_path.empty()) {
        return Status::InvalidArgument(
            "SMART backend services needs both a client id (fhir_client_id) and a private key file "
            "(fhir_private_key)");
      }
      smart_ = options_.token_source;
      if (!smart_) {
        std::string token_url = options_.token_url;
        if (token_url.empty()) {
          Result<std::string> discovered = DiscoverTokenUrl();
          if (!discovered.ok()) return discovered.status();
          token_url = *discovered;
        }
        smart_ = std::make_shared<SmartTokenSource>(SmartClientOptions{.client_id = options_.client_id,
                                                                       .private_key_path = options_.private_key_path,
                                                                       .token_url = token_url,
                                                                       .scope = options_.scope,
                                                                       .transport = options_.transport,
                                                                       .now = options_.now});
      }
    }
    return Status::OK();
  }

  // The URL fit for messages: no query, the patient id as "{id}".
  std::string Display(std::string_view url) const {
    std::string out = RedactUrl(url);
    if (!patient_id_.empty()) {
      for (size_t at = out.find(patient_id_); at != std::string::npos; at = out.find(patient_id_, at + 4)) {
        out.replace(at, patient_id_.size(), "{id}");
      }
    }
    return out;
  }

  Result<Json> Get(const std::string& url) {
    for (int auth_try = 0;; ++auth_try) {
      HttpRequest request;
      request.method = "GET";
      request.url = url;
      request.headers = {{"Accept", "application/fhir+json"}};
      if (smart_) {
        Result<std::string> token = smart_->Token(cancel_);
        if (!token.ok()) return token.status();
        request.headers.push_back({"Authorization", "Bearer " + *token});
      } else if (!options_.bearer_token.empty()) {
        request.headers.push_back({"Authorization", "Bearer " + options_.bearer_token});
      }
      request.total_timeout = options_.request_timeout;
      request.max_response_bytes = options_.max_response_bytes;

      RetryPolicy policy{.max_retries = options_.max_retries,
                         .initial_backoff = Millis(500),
                         .max_backoff = options_.max_backoff,
                         .request_timeout = options_.request_timeout,
                         .sleep = options_.sleep};
      RetryCall call{.cancel = cancel_, .what = "FHIR request"};
      const std::string shown = Display(url);
      int attempts = 0;
      Result<HttpResponse> response = CallWithRetriesT<HttpResponse>(
          policy, call,
          [&](Millis budget) {
            RetryAttempt<HttpResponse> a;
            HttpRequest r = request;
            r.total_timeout = budget;
            if (report_ != nullptr) ++report_->requests;
            Result<HttpResponse> got = options_.transport->Send(r, nullptr, cancel_);
            if (!got.ok()) {
              a.error = got.status().WithContext("FHIR GET " + shown);
              a.retryable = got.status().code() == StatusCode::kUnavailable || got.status().code() == StatusCode::kTimeout;
              return a;
            }
            if (IsRetryableHttpStatus(got->status)) {
              a.error = HttpError(*got, shown);
              a.retryable = true;
              a.http_status = got->status;
              a.retry_after = RetryAfter(*got);
              return a;
            }
            a.response = std::move(got).value();
            return a;
          },
          &attempts);
      if (report_ != nullptr && attempts > 1) report_->retries += attempts - 1;
      if (!response.ok()) return response.status();
      if (response->status == 401) {
        if (smart_ && auth_try == 0) {
          Log().debug("FHIR server answered 401; asking for a new SMART token");
          smart_->Invalidate();
          continue;
        }
        Status s = HttpError(*response, shown);
        return Status::PermissionDenied(s.message() + (smart_ ? " (after a fresh SMART token)"
                                                              : options_.bearer_token.empty()
                                                                    ? " (no token: set MEDREACT_FHIR_TOKEN or SMART client credentials)"
                                                                    : " (the token in MEDREACT_FHIR_TOKEN was refused)"));
      }
      if (response->status < 200 || response->status >= 300) return HttpError(*response, shown);
      Result<Json> json = ParseJson(response->body);
      if (!json.ok()) return Status::ParseError("FHIR GET " + shown + ": the response is not JSON (" + json.status().message() + ")");
      if (!json->is_object()) return Status::ParseError("FHIR GET " + shown + ": the response is not a JSON object");
      return std::move(*json);
    }
  }

  // Reads every page from `url` on; resources go to Add.
  Status ReadPages(std::string url, const std::string& what) {
    std::set<std::string> seen;
    while (!url.empty()) {
      if (!seen.insert(url).second) {
        return Status::FailedPrecondition("FHIR paging loops: a next link of the " + what +
                                          " returns to a page already read (" + Display(url) + ")");
      }
      if (pages_ >= options_.max_pages) {
        return Status::ResourceExhausted("FHIR paging stopped: more than " + std::to_string(options_.max_pages) +
                                         " pages (the " + what + " never ends, or raise the page cap)");
      }
      Result<Json> page = Get(url);
      if (!page.ok()) return page.status();
      ++pages_;
      if (report_ != nullptr) report_->pages = pages_;
      if (StringOr(*page, "resourceType") != "Bundle") {
        return Status::ParseError("FHIR " + what + ": expected a Bundle, got '" +
                                  Printable(Preview(StringOr(*page, "resourceType"), 40)) + "'");
      }
      if (page->contains("entry") && (*page)["entry"].is_array()) {
        for (Json& entry : (*page)["entry"]) {
          if (!entry.is_object() || !entry.contains("resource") || !entry["resource"].is_object()) continue;
          Json& resource = entry["resource"];
          const std::string mode = StringOr(ObjectField(entry, "search"), "mode");
          if (mode == "outcome" || StringOr(resource, "resourceType") == "OperationOutcome") {
            if (Status s = Outcome(resource, what); !s.ok()) return s;
            continue;
          }
          if (Status s = Add(std::move(resource), StringOr(entry, "fullUrl")); !s.ok()) return s;
        }
      }
      url = NextLink(*page);
      if (!url.empty()) {
        if (!IsHttpUrl(url)) {
          url = base_ + (url.front() == '/' ? "" : "/") + url;  // a relative link, read against the base
        }
        if (OriginOf(url) != origin_) {
          return Status::PermissionDenied("FHIR paging: refused a next link of the " + what +
                                          " to another server (" + RedactUrl(url) + ")");
        }
      }
    }
    return Status::OK();
  }

  Status Add(Json resource, const std::string& full_url) {
    const std::string type = StringOr(resource, "resourceType");
    if (type.empty()) return Status::OK();
    const std::string key = type + "/" + StringOr(resource, "id");
    if (!StringOr(resource, "id").empty() && !keys_.insert(key).second) return Status::OK();  // seen on another page
    if (resources_.size() >= options_.max_resources) {
      return Status::ResourceExhausted("FHIR read stopped: more than " + std::to_string(options_.max_resources) +
                                       " resources for one patient (the resource cap)");
    }
    Json entry = {{"resource", std::move(resource)}};
    if (!full_url.empty()) entry["fullUrl"] = full_url;
    if (type == "Patient" && StringOr(entry["resource"], "id") == patient_id_) {
      patient_entry_ = std::move(entry);
    } else {
      resources_.push_back(std::move(entry));
    }
    return Status::OK();
  }

  Status Outcome(const Json& outcome, const std::string& what) {
    const std::string text = OutcomeText(outcome);
    if (OutcomeSeverity(outcome) >= 2) {
      return Status::FailedPrecondition("FHIR server reported an error in the " + what + ": " + text);
    }
    warnings_.push_back("FHIR server, " + what + ": " + text);
    return Status::OK();
  }

  Result<FhirStore> Run() {
    if (Status s = SetUpAuth(); !s.ok()) return s;
    Result<Json> metadata = Get(base_ + "/metadata");
    if (!metadata.ok()) return metadata.status().WithContext("reading the server's CapabilityStatement");
    if (StringOr(*metadata, "resourceType") != "CapabilityStatement") {
      return Status::ParseError("FHIR " + Display(base_) + "/metadata is not a CapabilityStatement");
    }
    const std::string id_part = UrlEncode(patient_id_);
    if (options_.use_everything && DeclaresEverything(*metadata)) {
      if (report_ != nullptr) report_->mode = "$everything";
      std::string url = base_ + "/Patient/" + id_part + "/$everything?_count=" + std::to_string(options_.page_size);
      if (Status s = ReadPages(url, "Patient/$everything"); !s.ok()) return s;
    } else {
      if (report_ != nullptr) report_->mode = "search";
      Result<Json> patient = Get(base_ + "/Patient/" + id_part);
      if (!patient.ok()) return patient.status();
      if (StringOr(*patient, "resourceType") != "Patient") {
        return Status::ParseError("FHIR " + Display(base_ + "/Patient/" + patient_id_) + " is not a Patient");
      }
      if (Status s = Add(std::move(*patient), base_ + "/Patient/" + patient_id_); !s.ok()) return s;
      for (const std::string& type : SearchTypes()) {
        std::string url = base_ + "/" + type + "?patient=" + id_part + "&_count=" + std::to_string(options_.page_size);
        if (type == "MedicationRequest") url += "&_include=MedicationRequest:medication";
        if (type == "Observation" && options_.lookback_days > 0) {
          const auto today = std::chrono::floor<std::chrono::days>(options_.now ? options_.now() : std::chrono::system_clock::now());
          url += "&date=ge" + FormatDate(today - std::chrono::days(options_.lookback_days));
        }
        if (Status s = ReadPages(url, type + " search"); !s.ok()) return s;
      }
    }
    if (patient_entry_.is_null()) {
      return Status::NotFound("the FHIR server returned no Patient resource for the patient asked for");
    }
    Json bundle = {{"resourceType", "Bundle"}, {"type", "collection"}, {"entry", Json::array()}};
    bundle["entry"].push_back(std::move(patient_entry_));
    for (Json& e : resources_) bundle["entry"].push_back(std::move(e));
    resources_.clear();
    Result<FhirStore> store = FhirStore::FromJson(std::move(bundle), "FHIR server " + Display(base_));
    if (!store.ok()) return store.status();
    for (const std::string& w : warnings_) {
      store->AddWarning(w);
      if (report_ != nullptr) report_->warnings.push_back(w);
    }
    return store;
  }

 private:
  static std::vector<std::string> SearchTypes() {
    std::vector<std::string> types;
    for (const std::string& t : FhirPackResourceTypes()) {
      if (t != "Patient" && t != "Medication") types.push_back(t);  // Medication comes with _include
    }
    types.push_back("Encounter");  // the record's latest clinical date (as_of)
    return types;
  }

  static bool DeclaresEverything(const Json& capability) {
    const Json& rests = capability.contains("rest") ? capability["rest"] : Json();
    if (!rests.is_array()) return false;
    for (const Json& rest : rests) {
      if (!rest.is_object() || !rest.contains("resource") || !rest["resource"].is_array()) continue;
      for (const Json& resource : rest["resource"]) {
        if (StringOr(resource, "type") != "Patient" || !resource.contains("operation") ||
            !resource["operation"].is_array()) {
          continue;
        }
        for (const Json& op : resource["operation"]) {
          const std::string name = StringOr(op, "name");
          const std::string def = StringOr(op, "definition");
          if (name == "everything" || name == "$everything" || def.ends_with("/Patient-everything")) return true;
        }
      }
    }
    return false;
  }

  static std::string NextLink(const Json& bundle) {
    if (!bundle.contains("link") || !bundle["link"].is_array()) return "";
    for (const Json& link : bundle["link"]) {
      if (StringOr(link, "relation") == "next") return StringOr(link, "url");
    }
    return "";
  }

  Result<std::string> DiscoverTokenUrl() { return DiscoverSmartTokenUrl(base_, options_); }

  Status HttpError(const HttpResponse& response, const std::string& shown) const {
    std::string text = "FHIR GET " + shown + " answered HTTP " + std::to_string(response.status);
    Result<Json> body = ParseJson(response.body);
    if (body.ok() && body->is_object() && StringOr(*body, "resourceType") == "OperationOutcome") {
      text += ": OperationOutcome " + OutcomeText(*body);
    } else if (!response.body.empty()) {
      text += ": " + ServerErrorText(response.body);
    }
    if (response.status == 404) return Status::NotFound(text);
    if (response.status == 401 || response.status == 403) return Status::PermissionDenied(text);
    if (response.status == 429) return Status::ResourceExhausted(text);
    if (response.status >= 500) return Status::Unavailable(text);
    return Status::InvalidArgument(text);
  }

  std::string base_;
  std::string patient_id_;
  FhirRestOptions options_;
  FhirReadReport* report_;
  CancellationToken cancel_;
  std::string origin_;
  std::shared_ptr<SmartTokenSource> smart_;
  int pages_ = 0;
  std::unordered_set<std::string> keys_;
  Json patient_entry_;
  std::vector<Json> resources_;
  std::vector<std::string> warnings_;
};

}  // namespace

Result<std::string> DiscoverSmartTokenUrl(const std::string& base, const FhirRestOptions& options) {
  std::string b = base;
  while (!b.empty() && b.back() == '/') b.pop_back();
  HttpRequest request;
  request.method = "GET";
  request.url = b + "/.well-known/smart-configuration";
  request.headers = {{"Accept", "application/json"}};
  request.total_timeout = options.request_timeout;
  request.max_response_bytes = 1 << 20;
  std::shared_ptr<HttpTransport> transport = options.transport ? options.transport : MakeCurlTransport();
  Result<HttpResponse> response = transport->Send(request, nullptr, {});
  const std::string where = RedactUrl(request.url);
  if (!response.ok()) return response.status().WithContext("finding the SMART token endpoint; or name it (fhir_token_url)");
  Result<Json> config = ParseJson(response->body);
  if (response->status != 200 || !config.ok() || !config->is_object()) {
    return Status::NotFound("no SMART configuration at " + where + " (HTTP " + std::to_string(response->status) +
                            "); name the token endpoint (fhir_token_url)");
  }
  std::string token_url = StringOr(*config, "token_endpoint");
  if (token_url.empty() || !IsHttpUrl(token_url)) {
    return Status::NotFound("the server's SMART configuration names no http(s) token_endpoint; name it (fhir_token_url)");
  }
  return token_url;
}

FhirRestOptions ResolveFhirRestOptions(FhirRestOptions options,
                                       const std::function<const char*(const char*)>& getenv) {
  auto env = [&](const char* name) -> std::string {
    const char* v = getenv ? getenv(name) : std::getenv(name);
    return v == nullptr ? "" : v;
  };
  if (options.bearer_token.empty()) options.bearer_token = env("MEDREACT_FHIR_TOKEN");
  if (options.client_id.empty()) options.client_id = env("MEDREACT_FHIR_CLIENT_ID");
  if (options.private_key_path.empty()) options.private_key_path = env("MEDREACT_FHIR_PRIVATE_KEY");
  if (options.token_url.empty()) options.token_url = env("MEDREACT_FHIR_TOKEN_URL");
  if (const std::string days = env("MEDREACT_FHIR_LOOKBACK_DAYS"); !days.empty() && options.lookback_days == 0) {
    options.lookback_days = std::max(0, std::atoi(days.c_str()));
  }
  return options;
}

Result<FhirStore> ReadFhirPatient(const std::string& base, const std::string& patient_id,
                                  const FhirRestOptions& options, FhirReadReport* report,
                                  const CancellationToken& cancel) {
  std::string b = base;
  while (!b.empty() && b.back() == '/') b.pop_back();
  if (!IsHttpUrl(b) || OriginOf(b).empty()) {
    return Status::InvalidArgument("the FHIR server URL must be http:// or https:// (got '" + RedactUrl(base) + "')");
  }
  if (patient_id.empty()) return Status::InvalidArgument("the FHIR patient id is empty (patient_id)");
  // FHIR R4 id: [A-Za-z0-9\-\.]{1,64} (https://hl7.org/fhir/R4/datatypes.html#id).
  if (patient_id.size() > 64 || !std::all_of(patient_id.begin(), patient_id.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
      })) {
    return Status::InvalidArgument("the patient id is not a FHIR id (1-64 of A-Z a-z 0-9 - .)");
  }
  if (options.page_size <= 0 || options.max_pages <= 0) {
    return Status::InvalidArgument("FHIR read: page size and page cap must be positive");
  }
  FhirRestOptions opts = options;
  if (!opts.transport) opts.transport = MakeCurlTransport();
  FhirReadReport local;
  Reader reader(b, patient_id, opts, report != nullptr ? report : &local, cancel);
  Result<FhirStore> store = reader.Run();
  if (store.ok()) {
    const FhirReadReport& r = report != nullptr ? *report : local;
    Log().info("FHIR record read over REST from {} ({}, {} requests, {} pages, {} resources)", RedactUrl(b), r.mode,
               r.requests, r.pages, store->resources().size());
  }
  return store;
}

std::string FhirPatientUrl(std::string_view base, std::string_view patient_id) {
  std::string b(base);
  while (!b.empty() && b.back() == '/') b.pop_back();
  return b + "/Patient/" + std::string(patient_id);
}

bool SplitFhirPatientUrl(std::string_view url, std::string* base, std::string* patient_id) {
  if (!IsHttpUrl(url) || url.find('?') != std::string_view::npos || url.find('#') != std::string_view::npos) return false;
  const size_t marker = url.rfind("/Patient/");
  if (marker == std::string_view::npos) return false;
  const std::string_view id = url.substr(marker + 9);
  if (id.empty() || id.find('/') != std::string_view::npos) return false;
  if (OriginOf(url.substr(0, marker)).empty()) return false;
  if (base != nullptr) *base = std::string(url.substr(0, marker));
  if (patient_id != nullptr) *patient_id = std::string(id);
  return true;
}

bool IsFhirPatientUrl(std::string_view text) { return SplitFhirPatientUrl(text, nullptr, nullptr); }

std::string FhirRecordDisplay(std::string_view path_or_url) {
  std::string base;
  if (SplitFhirPatientUrl(path_or_url, &base, nullptr)) return RedactUrl(base) + "/Patient/…";
  return std::string(path_or_url);
}

Result<FhirStore> LoadFhirRecord(const std::string& path_or_url) {
  std::string base, id;
  if (!SplitFhirPatientUrl(path_or_url, &base, &id)) {
    if (IsHttpUrl(path_or_url)) {
      return Status::InvalidArgument("a FHIR server record is named <base>/Patient/<id>: give the server (fhir_url) and the patient (patient_id)");
    }
    return FhirStore::LoadFile(path_or_url);
  }
  FhirRestOptions options = ResolveFhirRestOptions({});
  if (!options.client_id.empty() && !options.private_key_path.empty()) {
    // One token cache per server and client for the whole process: a
    // worklist's or a server's runs share the token until it expires.
    static std::mutex mu;
    static std::map<std::string, std::shared_ptr<SmartTokenSource>> sources;
    std::lock_guard<std::mutex> lock(mu);
    const std::string key = OriginOf(base) + "|" + base + "|" + options.client_id + "|" + options.token_url;
    auto it = sources.find(key);
    if (it == sources.end() && options.token_url.empty()) {
      // The server's SMART configuration names the token endpoint: asked
      // once per process, like the token.
      Result<std::string> token_url = DiscoverSmartTokenUrl(base, options);
      if (!token_url.ok()) return token_url.status();
      options.token_url = *token_url;
    }
    if (it == sources.end()) {
      it = sources
               .emplace(key, std::make_shared<SmartTokenSource>(SmartClientOptions{
                                 .client_id = options.client_id,
                                 .private_key_path = options.private_key_path,
                                 .token_url = options.token_url,
                                 .scope = options.scope}))
               .first;
    }
    if (it != sources.end()) options.token_source = it->second;
  }
  return ReadFhirPatient(base, id, options);
}

}  // namespace medreact
