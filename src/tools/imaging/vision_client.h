// VisionClient: questions about images to an OpenAI-compatible vision model
// (CheXagent, MedGemma, LLaVA-Med, ... served by vLLM, llama-server or
// Ollama), answered as JSON that follows a schema.
//
// One request per question: a system prompt, one user turn with the images
// as image_url parts (the store's data URLs, encoded once) and the text, and
// `response_format` {"type": "json_schema", "json_schema": {"name", "schema",
// "strict": true}} (ModelRequest::response_format), which vLLM, llama-server
// and Ollama's OpenAI endpoint honour. The reply is read leniently
// (ParseJsonLenient: fences, prose around the object, small repairs) and
// validated against the schema; a reply that does not validate is sent back
// once with the problems, then the call fails with them. No tools are offered.
//
// Three uses, each a function with its own schema and prompt:
//   Answer   (xray_vqa)              {"answer": str, "confidence": "high|medium|low"}
//   Report   (chest_xray_report)     {"findings": str, "impression": str}
//   Ground   (xray_phrase_grounding) {"boxes": [{"x0","y0","x1","y1"}]} in
//            0..1 fractions of the image (what vision LLMs are asked for),
//            converted to pixels of the stored image and validated like the
//            grounding endpoint's (a coordinate up to 0.02 outside 0..1 is
//            clipped, one further out is sent back as a problem; corners are
//            sorted; a box under a pixel after clipping is dropped).
// Errors name the model and what failed ("vision model chexagent at
// http://...: reply is not the schema's JSON: /impression: required").
// Thread-safe when the model is (the OpenAI client is).
#ifndef MEDREACT_TOOLS_IMAGING_VISION_CLIENT_H_
#define MEDREACT_TOOLS_IMAGING_VISION_CLIENT_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "medreact/cancel.h"
#include "medreact/json.h"
#include "medreact/model.h"
#include "medreact/status.h"
#include "tools/imaging/image_store.h"
#include "tools/imaging/imaging_client.h"

namespace medreact::imaging {

struct VisionAnswer {
  std::string answer;
  std::string confidence;  // "high", "medium" or "low"
  std::string model;       // the server's model name
};

struct VisionReport {
  std::string findings;
  std::string impression;
  std::string model;
};

class VisionClient {
 public:
  // model: an OpenAI-compatible client (BuildModel with provider "native").
  // REQUIRES: model != nullptr.
  explicit VisionClient(std::shared_ptr<ChatModel> model);

  const std::string& model_name() const { return name_; }

  // REQUIRES: images non-empty.
  Result<VisionAnswer> Answer(const std::vector<std::shared_ptr<const StoredImage>>& images,
                              const std::string& question, const Deadline& deadline,
                              const CancellationToken& cancel) const;
  Result<VisionReport> Report(const StoredImage& image, const Deadline& deadline,
                              const CancellationToken& cancel) const;
  Result<Grounding> Ground(const StoredImage& image, const std::string& phrase, const Deadline& deadline,
                           const CancellationToken& cancel) const;

 private:
  // A check beyond the schema ("" when the value is fine, else its problems),
  // whose problems are sent back like the schema's. May be empty.
  using Check = std::function<std::string(const Json& value)>;
  struct Reply {
    Json value;         // validated against the schema and the check
    std::string model;  // the server's model name, else model_name()
  };
  // One question with a schema; the validated JSON.
  Result<Reply> Ask(const std::vector<std::shared_ptr<const StoredImage>>& images, const std::string& system,
                    const std::string& text, const std::string& schema_name, const Json& schema, const Check& check,
                    const Deadline& deadline, const CancellationToken& cancel) const;

  std::shared_ptr<ChatModel> model_;
  std::string name_;
};

}  // namespace medreact::imaging

#endif  // MEDREACT_TOOLS_IMAGING_VISION_CLIENT_H_
