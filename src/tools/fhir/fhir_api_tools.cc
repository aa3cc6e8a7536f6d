#include "tools/fhir/fhir_api_tools.h"

#include <cctype>
#include <map>
#include <utility>

#include "core/text_util.h"
#include "medreact/tool.h"

namespace medreact {

void FhirApiLog::AddPost(RecordedPost post) {
  std::lock_guard<std::mutex> lock(mu_);
  posts_.push_back(std::move(post));
}
std::vector<RecordedPost> FhirApiLog::posts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return posts_;
}
void FhirApiLog::AddGet() {
  std::lock_guard<std::mutex> lock(mu_);
  ++gets_;
}
int FhirApiLog::gets() const {
  std::lock_guard<std::mutex> lock(mu_);
  return gets_;
}

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "Observation.Search (Labs) ..." → "labs"; "" without a parenthesis.
std::string Qualifier(const std::string& description) {
  const size_t open = description.find('(');
  const size_t close = description.find(')', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos || open > 40) return "";
  std::string out;
  for (char c : description.substr(open + 1, close - open - 1)) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

// A query value: strings as they are, other JSON as its text.
std::string QueryValue(const Json& v) { return v.is_string() ? v.get<std::string>() : DumpJson(v); }

}  // namespace

Result<std::vector<FhirApiFunction>> FhirApiFunctions(const Json& funcs) {
  if (!funcs.is_array()) return Status::InvalidArgument("the FHIR functions file must hold a JSON array");
  std::vector<FhirApiFunction> out;
  std::map<std::string, int> base_counts;
  for (size_t i = 0; i < funcs.size(); ++i) {
    const Json& f = funcs[i];
    const std::string where = "function " + std::to_string(i + 1);
    const std::string name = StringOr(f, "name");
    const size_t space = name.find(' ');
    const std::string marker = "{api_base}/";
    const size_t at = name.find(marker);
    if (space == std::string::npos || at == std::string::npos || !f.contains("parameters") ||
        !f["parameters"].is_object()) {
      return Status::InvalidArgument(where + ": expected {\"name\": \"GET|POST {api_base}/<Resource>\", "
                                     "\"description\", \"parameters\"}");
    }
    FhirApiFunction fn;
    fn.method = name.substr(0, space);
    fn.resource = name.substr(at + marker.size());
    if ((fn.method != "GET" && fn.method != "POST") || fn.resource.empty() ||
        fn.resource.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") != std::string::npos) {
      return Status::InvalidArgument(where + ": '" + Preview(name, 80) + "' is not GET or POST of a resource type");
    }
    fn.spec.description = StringOr(f, "description");
    fn.spec.parameters = f["parameters"];
    fn.spec.idempotent = fn.method == "GET";
    fn.spec.name = Lower(fn.method) + "_" + Lower(fn.resource);
    ++base_counts[fn.spec.name];
    out.push_back(std::move(fn));
  }
  for (FhirApiFunction& fn : out) {
    if (base_counts[fn.spec.name] > 1) {
      const std::string q = Qualifier(fn.spec.description);
      if (q.empty()) return Status::InvalidArgument("two FHIR functions are both " + fn.spec.name);
      fn.spec.name += "_" + q;
    }
  }
  return out;
}

Status RegisterFhirApiTools(ToolRegistry& registry, const std::vector<FhirApiFunction>& functions,
                            const FhirApiOptions& options, std::shared_ptr<FhirApiLog> log) {
  if (!log) return Status::InvalidArgument("FHIR API tools: no log");
  std::string base = options.base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  std::shared_ptr<HttpTransport> transport = options.transport ? options.transport : MakeCurlTransport();
  for (const FhirApiFunction& fn : functions) {
    const std::string url = base + "/" + fn.resource;
    ToolFunction run;
    if (fn.method == "GET") {
      run = [url, options, transport, log](const Json& args, const ToolContext& ctx) -> ToolResult {
        std::string query;
        if (args.is_object()) {
          for (auto it = args.begin(); it != args.end(); ++it) {
            if (it->is_null()) continue;
            query += (query.empty() ? "" : "&") + UrlEncode(it.key()) + "=" + UrlEncode(QueryValue(*it));
          }
        }
        query += std::string(query.empty() ? "" : "&") + "_format=json";
        HttpRequest request;
        request.method = "GET";
        request.url = url + "?" + query;
        request.headers = {{"Accept", "application/fhir+json"}};
        if (!options.bearer_token.empty()) request.headers.push_back({"Authorization", "Bearer " + options.bearer_token});
        request.total_timeout = options.request_timeout;
        request.max_response_bytes = size_t{16} << 20;
        log->AddGet();
        Result<HttpResponse> response = transport->Send(request, nullptr, ctx.cancel);
        if (!response.ok()) return ToolResult::Error("GET " + RedactUrl(request.url) + ": " + response.status().message());
        if (response->status < 200 || response->status >= 300) {
          return ToolResult::Error("GET answered HTTP " + std::to_string(response->status) + ": " +
                                   Preview(response->body, 400));
        }
        std::string body = response->body;
        if (body.size() > options.max_body_chars) body = body.substr(0, options.max_body_chars) + "…(cut)";
        return ToolResult::Ok("Here is the response from the GET request:\n" + body);
      };
    } else {
      run = [url, options, transport, log](const Json& args, const ToolContext& ctx) -> ToolResult {
        log->AddPost({url, args});
        if (options.allow_post) {
          HttpRequest request;
          request.method = "POST";
          request.url = url;
          request.headers = {{"Content-Type", "application/fhir+json"}, {"Accept", "application/fhir+json"}};
          if (!options.bearer_token.empty()) {
            request.headers.push_back({"Authorization", "Bearer " + options.bearer_token});
          }
          request.body = DumpJson(args);
          request.total_timeout = options.request_timeout;
          request.max_response_bytes = size_t{1} << 20;
          Result<HttpResponse> response = transport->Send(request, nullptr, ctx.cancel);
          if (!response.ok()) return ToolResult::Error("POST: " + response.status().message());
          if (response->status < 200 || response->status >= 300) {
            return ToolResult::Error("POST answered HTTP " + std::to_string(response->status) + ": " +
                                     Preview(response->body, 400));
          }
        }
        // The benchmark's harness answers every POST with these words.
        return ToolResult::Ok(
            "POST request accepted and executed successfully. Please call FINISH if you have got answers for all "
            "the questions and finished all the requested tasks");
      };
    }
    if (Status s = registry.Register(MakeFunctionTool(fn.spec, std::move(run))); !s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace medreact
