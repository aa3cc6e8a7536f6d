// Model-call spans (llm/model_span.h).
#include "llm/model_span.h"

#include <optional>
#include <utility>

#include "core/text_util.h"

namespace medreact {
namespace {

// The context a call continues: ModelCallContext::traceparent when it
// parses, else the calling thread's.
otel::SpanContext ParentOf(const ModelCallContext& ctx) {
  if (!ctx.traceparent.empty()) {
    if (std::optional<otel::SpanContext> parsed = otel::ParseTraceparent(ctx.traceparent)) return *parsed;
  }
  return otel::CurrentContext();
}

// host and port of an http(s) URL; port from the scheme when not given.
void ServerOf(const std::string& url, std::string* host, int64_t* port) {
  std::string_view rest = url;
  const bool https = StartsWith(AsciiLower(rest.substr(0, 8)), "https://");
  const size_t scheme = rest.find("://");
  if (scheme != std::string_view::npos) rest.remove_prefix(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);
  *port = https ? 443 : 80;
  std::string_view h = rest;
  size_t colon = std::string_view::npos;
  if (!rest.empty() && rest.front() == '[') {  // [::1]:8080
    const size_t close = rest.find(']');
    h = rest.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1);
    if (close != std::string_view::npos && close + 1 < rest.size() && rest[close + 1] == ':') colon = close + 1;
  } else {
    colon = rest.rfind(':');
    if (colon != std::string_view::npos) h = rest.substr(0, colon);
  }
  if (colon != std::string_view::npos) {
    int64_t p = 0;
    bool digits = colon + 1 < rest.size();
    for (size_t i = colon + 1; i < rest.size() && digits; ++i) {
      digits = rest[i] >= '0' && rest[i] <= '9' && p < 65536;
      if (digits) p = p * 10 + (rest[i] - '0');
    }
    if (digits && p > 0 && p < 65536) *port = p;
  }
  *host = std::string(h);
}

}  // namespace

otel::Span StartModelSpan(const std::string& provider, const std::string& model, const std::string& url,
                          const ModelRequest& request, const ModelCallContext& ctx) {
  otel::Span span = otel::StartSpan("chat " + model, otel::SpanKind::kClient, ParentOf(ctx));
  if (!span.active()) return span;
  span.Set("gen_ai.operation.name", "chat");
  span.Set("gen_ai.provider.name", provider);
  span.Set("gen_ai.system", provider);  // the name before semantic conventions v1.37
  span.Set("gen_ai.request.model", model);
  if (request.max_tokens) span.Set("gen_ai.request.max_tokens", static_cast<int64_t>(*request.max_tokens));
  if (request.temperature) span.Set("gen_ai.request.temperature", *request.temperature);
  std::string host;
  int64_t port = 0;
  ServerOf(url, &host, &port);
  if (!host.empty()) span.Set("server.address", host);
  if (port > 0) span.Set("server.port", port);
  return span;
}

void AddTraceparent(HttpRequest& http, const otel::Span& span, const ModelCallContext& ctx) {
  const std::string value = span.active() ? span.context().Traceparent() : ParentOf(ctx).Traceparent();
  if (!value.empty()) http.headers.emplace_back("traceparent", value);
}

void EndModelSpan(otel::Span& span, const Result<ModelResponse>& result) {
  if (!span.active()) return;
  if (result.ok()) {
    if (!result->model.empty()) span.Set("gen_ai.response.model", result->model);
    if (!result->finish_reason.empty()) span.Set("gen_ai.response.finish_reasons", std::vector{result->finish_reason});
    span.Set("gen_ai.usage.input_tokens", result->usage.prompt_tokens);
    span.Set("gen_ai.usage.output_tokens", result->usage.completion_tokens);
    span.Set("medreact.model.attempts", static_cast<int64_t>(result->attempts));
  } else {
    // The status code's name only: a server's error text may echo the request.
    const std::string code = StatusCodeName(result.status().code());
    span.SetError(code, "model call failed: " + code);
  }
  span.End();
}

}  // namespace medreact
