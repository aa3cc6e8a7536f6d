// The span of one model call (core/otel.h), shared by the HTTP model clients
// (openai_client.cc, anthropic_client.cc): `chat <model>`, kind CLIENT, with
// the OpenTelemetry GenAI semantic conventions' attributes (v1.41.0):
// gen_ai.operation.name "chat", gen_ai.provider.name (and the older
// gen_ai.system), gen_ai.request.model, gen_ai.request.max_tokens and
// temperature when set, server.address / server.port; at the end
// gen_ai.response.model, gen_ai.response.finish_reasons,
// gen_ai.usage.input_tokens / output_tokens, or error.type and an ERROR
// status naming the status code only. Never message text. Its parent is
// ModelCallContext::traceparent when set, else the thread's current span.
#ifndef MEDREACT_LLM_MODEL_SPAN_H_
#define MEDREACT_LLM_MODEL_SPAN_H_

#include <string>

#include "core/otel.h"
#include "medreact/http.h"
#include "medreact/model.h"

namespace medreact {

// Starts the span (inactive when tracing is off). `provider`: "openai" or
// "anthropic"; `url`: the endpoint, for server.address and server.port.
otel::Span StartModelSpan(const std::string& provider, const std::string& model, const std::string& url,
                          const ModelRequest& request, const ModelCallContext& ctx);

// Adds the `traceparent` header for `span` (or, when it is inactive, the
// context the call continues, if any) to every attempt of the request.
void AddTraceparent(HttpRequest& http, const otel::Span& span, const ModelCallContext& ctx);

// Records the outcome and ends the span.
void EndModelSpan(otel::Span& span, const Result<ModelResponse>& result);

}  // namespace medreact

#endif  // MEDREACT_LLM_MODEL_SPAN_H_
