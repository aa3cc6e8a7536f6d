// ImagingClient: the JSON-over-HTTP contract of the imaging endpoints
// (docs/imaging-endpoints.md is the reference a model server implements).
//
// Three endpoints, each configured by its own URL and each optional:
//   classifier    POST {"image": IMAGE, "labels": [..]?}
//                 → {"model": str, "labels": [{"label": str, "probability": 0..1}, ...]}
//   segmentation  POST {"image": IMAGE, "structures": [..]?}
//                 → {"model": str, "structures": [{"name": str, "mask": IMAGE}, ...]}
//   grounding     POST {"image": IMAGE, "phrase": str}
//                 → {"model": str, "boxes": [{"x0","y0","x1","y1": pixels, "score": 0..1?}, ...]}
// where IMAGE is {"id": str, "media_type": "image/png", "width": int,
// "height": int, "data": base64}. A mask is a PNG of the image's size, grey,
// non-zero inside the structure. Errors are non-2xx with
// {"error": {"message": str}}.
//
// The client sends the stored (downscaled) image, validates every response
// strictly (the shapes above; probabilities in [0, 1]; boxes inside the image
// with x0 < x1 and y0 < y1, clipped by at most 1 px; masks decoded and of the
// image's size) and retries with the model clients' policy (llm/retry.h:
// transport failures, 408/409/429/5xx, Retry-After), within the call's
// deadline and cancellation. Every failure is a Status whose message names
// the endpoint (by its redacted URL), what went wrong and what the server
// said, e.g. "segmentation endpoint http://127.0.0.1:8081/segment: HTTP 500:
// out of memory" or "...: response is not the contract's JSON: boxes[0].x1:
// expected a number". Thread-safe.
#ifndef MEDREACT_TOOLS_IMAGING_IMAGING_CLIENT_H_
#define MEDREACT_TOOLS_IMAGING_IMAGING_CLIENT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "medreact/cancel.h"
#include "medreact/http.h"
#include "medreact/json.h"
#include "medreact/status.h"
#include "tools/imaging/image_codec.h"
#include "tools/imaging/image_store.h"

namespace medreact::imaging {

struct LabelProbability {
  std::string label;
  double probability = 0;
};

struct Classification {
  std::string model;
  std::vector<LabelProbability> labels;  // in the server's order
};

struct StructureMask {
  std::string name;
  Raster mask;  // grey, the image's size; non-zero = inside
};

struct Segmentation {
  std::string model;
  std::vector<StructureMask> structures;
};

struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // pixels of the stored image, x0 < x1, y0 < y1
  std::optional<double> score;
};

struct Grounding {
  std::string model;
  std::vector<Box> boxes;  // may be empty: the phrase was not found
};

struct ImagingEndpoints {
  std::string classifier_url;    // "" = not configured. Default: MEDREACT_CXR_CLASSIFIER_URL or ""
  std::string segmentation_url;  // Default: MEDREACT_CXR_SEGMENTATION_URL or ""
  std::string grounding_url;     // Default: MEDREACT_CXR_GROUNDING_URL or ""
  std::string api_key;           // sent as "Authorization: Bearer" when set; never logged. Default: MEDREACT_CXR_API_KEY or ""
  Millis request_timeout{120'000};  // one attempt. Default: 120 s
  int max_retries = 2;              // Default: 2
};

// Fills the empty URLs and the key from the environment. InvalidArgument when
// a URL is set but is not http(s).
Result<ImagingEndpoints> ResolveImagingEndpoints(ImagingEndpoints endpoints);

// The strict readers of an endpoint's reply (what ImagingClient applies to
// every reply; public for the fuzz target `imaging_reply` and tests): the
// first field that breaks the contract named by its path; masks decoded
// and checked against `image`'s size, boxes clipped to it.
Result<Classification> ReadClassificationReply(const Json& reply);
Result<Segmentation> ReadSegmentationReply(const Json& reply, const StoredImage& image);
Result<Grounding> ReadGroundingReply(const Json& reply, const StoredImage& image);

class ImagingClient {
 public:
  // transport null → the libcurl transport.
  ImagingClient(ImagingEndpoints endpoints, std::shared_ptr<HttpTransport> transport = nullptr);

  bool has_classifier() const { return !endpoints_.classifier_url.empty(); }
  bool has_segmentation() const { return !endpoints_.segmentation_url.empty(); }
  bool has_grounding() const { return !endpoints_.grounding_url.empty(); }
  const ImagingEndpoints& endpoints() const { return endpoints_; }

  // FailedPrecondition when the endpoint is not configured.
  Result<Classification> Classify(const StoredImage& image, const std::vector<std::string>& labels,
                                  const Deadline& deadline, const CancellationToken& cancel) const;
  Result<Segmentation> Segment(const StoredImage& image, const std::vector<std::string>& structures,
                               const Deadline& deadline, const CancellationToken& cancel) const;
  Result<Grounding> Ground(const StoredImage& image, const std::string& phrase, const Deadline& deadline,
                           const CancellationToken& cancel) const;

 private:
  Result<Json> Post(const std::string& what, const std::string& url, const Json& body, const Deadline& deadline,
                    const CancellationToken& cancel) const;

  ImagingEndpoints endpoints_;
  std::shared_ptr<HttpTransport> transport_;
};

// The request body's "image" object for a stored image.
Json ImagePayload(const StoredImage& image);

}  // namespace medreact::imaging

#endif  // MEDREACT_TOOLS_IMAGING_IMAGING_CLIENT_H_
