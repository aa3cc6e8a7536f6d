#include "cli/model_flags.h"

#include "cli/flag_checks.h"
#include "medreact/http.h"
#include "medreact/openai.h"

namespace medreact::cli {

void AddModelFlags(CLI::App* command, ModelFlags* flags) {
  command->add_option("--llm-url", flags->llm_url,
                      "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
      ->envname("MEDREACT_LLM_URL");
  command->add_option("--model", flags->model, "model name sent to the server")
      ->envname("MEDREACT_LLM_MODEL");
  command->add_option("--api-key", flags->api_key, "bearer token (prefer the environment variable)")
      ->envname("MEDREACT_LLM_API_KEY");
  command->add_option("--protocol", flags->protocol,
                      "native: the server's tool calling; text: tools described in the prompt")
      ->envname("MEDREACT_LLM_PROTOCOL")
      ->check(CLI::IsMember({"native", "text"}));
  command->add_option("--request-timeout", flags->request_timeout_s,
                      "seconds allowed for one model request")
      ->check(Seconds());
  command->add_option("--max-retries", flags->max_retries, "retries on 408/409/429/5xx and connection errors")
      ->check(CLI::Range(0, 20));
}

Result<std::shared_ptr<ChatModel>> MakeModel(const ModelFlags& flags, const TextProtocolOptions& text_options) {
  if (flags.llm_url.rfind("http://", 0) != 0 && flags.llm_url.rfind("https://", 0) != 0) {
    return Status::InvalidArgument("--llm-url must start with http:// or https://, got '" + RedactUrl(flags.llm_url) + "'");
  }
  OpenAIOptions options;
  options.base_url = flags.llm_url;
  options.model = flags.model;
  options.api_key = flags.api_key;
  options.request_timeout = SecondsToMillis(flags.request_timeout_s);
  options.max_retries = flags.max_retries;
  std::unique_ptr<ChatModel> model = MakeOpenAIModel(std::move(options));
  if (flags.protocol == "text") return std::shared_ptr<ChatModel>(MakeTextProtocolModel(std::move(model), text_options));
  if (flags.protocol != "native") {
    return Status::InvalidArgument("--protocol must be 'native' or 'text', got '" + flags.protocol + "'");
  }
  return std::shared_ptr<ChatModel>(std::move(model));
}

}  // namespace medreact::cli
