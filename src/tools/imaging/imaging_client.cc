// ImagingClient: the imaging endpoints' requests, retries and the strict
// reading of their replies. See imaging_client.h and docs/imaging-endpoints.md.
//
// Each call is one POST through CallWithRetriesT (llm/retry.h: the model
// clients' policy), then a walk over the reply that names the first field
// that breaks the contract by its path ("labels[3].probability: 1.7 is
// outside [0, 1]"). Masks are decoded here (base64, then PNG, its size read
// from the header and compared with the image's before any pixel is
// decoded), so a tool receives rasters it can measure without checking
// them again. The API key is sent as a Bearer token and kept out of every
// message, the server's words included.
#include "tools/imaging/imaging_client.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <utility>

#include "core/printable.h"
#include "core/text_util.h"
#include "llm/retry.h"

namespace medreact::imaging {
namespace {

constexpr char kDataUrlPrefix[] = "data:image/png;base64,";
constexpr Millis kConnectTimeout{10'000};
constexpr double kBoxSlackPx = 1.0;  // boxes may overshoot the image by this much; clipped

// A reply that is not the contract's: "response is not the contract's JSON:
// <path>: <problem>".
Status Shape(const std::string& path, const std::string& problem) {
  return Status::ParseError("response is not the contract's JSON: " + path + ": " + problem);
}

Status TypeShape(const std::string& path, const std::string& expected, const Json& got) {
  return Shape(path, "expected " + expected + ", got " + std::string(got.type_name()));
}

// A number for a message: whole numbers without ".0".
std::string Number(double v) {
  if (std::nearbyint(v) == v && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  return DumpJson(Json(v));
}

std::string Indexed(const std::string& array, size_t i) { return array + "[" + std::to_string(i) + "]"; }

// The member `key` of `object` at `path`, or an error when it is missing.
Result<const Json*> Member(const Json& object, const std::string& path, const char* key) {
  auto it = object.find(key);
  const std::string where = path.empty() ? key : path + "." + key;
  if (it == object.end()) return Shape(where, "missing");
  return &*it;
}

std::string Where(const std::string& path, const char* key) { return path.empty() ? key : path + "." + key; }

Result<std::string> StringMember(const Json& object, const std::string& path, const char* key) {
  Result<const Json*> v = Member(object, path, key);
  if (!v.ok()) return v.status();
  if (!(*v)->is_string()) return TypeShape(Where(path, key), "a string", **v);
  std::string text = (*v)->get<std::string>();
  if (IsBlank(text)) return Shape(Where(path, key), "is empty");
  return text;
}

// A name the endpoint gives (a label, a structure, its model): one line of
// text wherever it goes (the answer, the model's context, the terminal), so
// its control characters, line breaks and bidi overrides are shown escaped
// (core/printable.h) as it is read.
Result<std::string> NameMember(const Json& object, const std::string& path, const char* key) {
  Result<std::string> text = StringMember(object, path, key);
  if (!text.ok()) return text;
  return PrintableLine(*text);
}

Result<double> NumberValue(const Json& v, const std::string& where) {
  if (!v.is_number()) return TypeShape(where, "a number", v);
  const double d = v.get<double>();
  if (!std::isfinite(d)) return Shape(where, "is not a finite number");
  return d;
}

Result<double> NumberMember(const Json& object, const std::string& path, const char* key) {
  Result<const Json*> v = Member(object, path, key);
  if (!v.ok()) return v.status();
  return NumberValue(**v, Where(path, key));
}

Result<double> Probability(const Json& v, const std::string& where) {
  Result<double> p = NumberValue(v, where);
  if (!p.ok()) return p;
  if (*p < 0 || *p > 1) return Shape(where, Number(*p) + " is outside [0, 1]");
  return p;
}

// The reply's top: an object with "model" (a string) and the array `list`.
Result<const Json*> Top(const Json& reply, const char* list, std::string* model) {
  if (!reply.is_object()) {
    return Status::ParseError("response is not the contract's JSON: expected an object, got " +
                              std::string(reply.type_name()));
  }
  Result<std::string> name = NameMember(reply, "", "model");
  if (!name.ok()) return name.status();
  *model = std::move(*name);
  Result<const Json*> items = Member(reply, "", list);
  if (!items.ok()) return items.status();
  if (!(*items)->is_array()) return TypeShape(list, "an array", **items);
  return items;
}

Result<Classification> ReadClassification(const Json& reply) {
  Classification out;
  Result<const Json*> labels = Top(reply, "labels", &out.model);
  if (!labels.ok()) return labels.status();
  if ((*labels)->empty()) return Shape("labels", "is empty: a classifier gives at least one label");
  std::set<std::string> seen;
  for (size_t i = 0; i < (*labels)->size(); ++i) {
    const std::string path = Indexed("labels", i);
    const Json& item = (**labels)[i];
    if (!item.is_object()) return TypeShape(path, "an object", item);
    Result<std::string> label = NameMember(item, path, "label");
    if (!label.ok()) return label.status();
    if (!seen.insert(*label).second) return Shape(path + ".label", "'" + Preview(*label, 60) + "' appears twice");
    Result<const Json*> p = Member(item, path, "probability");
    if (!p.ok()) return p.status();
    Result<double> probability = Probability(**p, path + ".probability");
    if (!probability.ok()) return probability.status();
    out.labels.push_back({std::move(*label), *probability});
  }
  return out;
}

// A mask image: base64 PNG, the image's size, grey (RGB accepted: a pixel
// with any non-zero channel is inside, 255).
Result<Raster> ReadMask(const Json& mask, const std::string& path, const StoredImage& image) {
  if (!mask.is_object()) return TypeShape(path, "an object", mask);
  if (auto it = mask.find("media_type"); it != mask.end() && *it != "image/png") {
    return Shape(path + ".media_type", "expected \"image/png\", got " + Preview(DumpJson(*it), 60));
  }
  const int width = image.raster.width;
  const int height = image.raster.height;
  for (const char* key : {"width", "height"}) {
    auto it = mask.find(key);
    if (it == mask.end()) continue;
    const std::optional<int64_t> n = ExactInteger(*it, 0, 1 << 30);
    if (!n) return TypeShape(path + "." + key, "a non-negative integer", *it);
    const int expected = std::string_view(key) == "width" ? width : height;
    if (*n != expected) {
      return Shape(path + "." + key, std::to_string(*n) + " is not the image's " + key + " (" +
                                         std::to_string(expected) + " px)");
    }
  }
  Result<std::string> data = StringMember(mask, path, "data");
  if (!data.ok()) return data.status();
  Result<std::string> png = Base64Decode(*data);
  if (!png.ok()) return Shape(path + ".data", "not base64: " + png.status().message());
  Result<ImageSize> size = PeekPngSize(*png);
  if (!size.ok()) return Shape(path + ".data", "not a PNG: " + size.status().message());
  if (size->width != width || size->height != height) {
    return Shape(path, "the mask is " + std::to_string(size->width) + " × " + std::to_string(size->height) +
                           " px, the image " + image.id + " is " + std::to_string(width) + " × " +
                           std::to_string(height) + " px");
  }
  const ImageLimits limits{.max_side = std::max(width, height),
                           .max_pixels = static_cast<uint64_t>(width) * static_cast<uint64_t>(height)};
  Result<Raster> raster = DecodePng(*png, path, limits);
  if (!raster.ok()) return Shape(path + ".data", raster.status().message());
  if (raster->width != width || raster->height != height || !raster->valid()) {
    return Shape(path, "the decoded mask is not " + std::to_string(width) + " × " + std::to_string(height) + " px");
  }
  if (raster->channels == 3) {
    Raster grey{.width = width, .height = height, .channels = 1, .pixels = {}};
    grey.pixels.resize(static_cast<size_t>(width) * static_cast<size_t>(height));
    for (size_t i = 0; i < grey.pixels.size(); ++i) {
      const uint8_t* rgb = &raster->pixels[3 * i];
      grey.pixels[i] = (rgb[0] | rgb[1] | rgb[2]) != 0 ? 255 : 0;
    }
    return grey;
  }
  return raster;
}

Result<Segmentation> ReadSegmentation(const Json& reply, const StoredImage& image) {
  Segmentation out;
  Result<const Json*> structures = Top(reply, "structures", &out.model);
  if (!structures.ok()) return structures.status();
  if ((*structures)->empty()) return Shape("structures", "is empty: a segmentation gives at least one structure");
  std::set<std::string> seen;
  for (size_t i = 0; i < (*structures)->size(); ++i) {
    const std::string path = Indexed("structures", i);
    const Json& item = (**structures)[i];
    if (!item.is_object()) return TypeShape(path, "an object", item);
    Result<std::string> name = NameMember(item, path, "name");
    if (!name.ok()) return name.status();
    if (!seen.insert(*name).second) return Shape(path + ".name", "'" + Preview(*name, 60) + "' appears twice");
    Result<const Json*> mask = Member(item, path, "mask");
    if (!mask.ok()) return mask.status();
    Result<Raster> raster = ReadMask(**mask, path + ".mask", image);
    if (!raster.ok()) return raster.status();
    out.structures.push_back({std::move(*name), std::move(*raster)});
  }
  return out;
}

// One box: finite corners, x0 < x1 and y0 < y1, within 1 px of the image,
// then clipped to it.
Result<Box> ReadBox(const Json& item, const std::string& path, const StoredImage& image) {
  if (!item.is_object()) return TypeShape(path, "an object", item);
  Box box;
  const double width = image.raster.width;
  const double height = image.raster.height;
  struct Corner {
    const char* key;
    double* value;
    double limit;
  };
  for (const Corner& c : {Corner{"x0", &box.x0, width}, Corner{"y0", &box.y0, height}, Corner{"x1", &box.x1, width},
                          Corner{"y1", &box.y1, height}}) {
    Result<double> v = NumberMember(item, path, c.key);
    if (!v.ok()) return v.status();
    if (*v < -kBoxSlackPx || *v > c.limit + kBoxSlackPx) {
      return Shape(path + "." + c.key, Number(*v) + " px is outside the image (0 to " + Number(c.limit) + " px)");
    }
    *c.value = *v;
  }
  if (!(box.x0 < box.x1)) {
    return Shape(path, "x0 (" + Number(box.x0) + ") is not less than x1 (" + Number(box.x1) + ")");
  }
  if (!(box.y0 < box.y1)) {
    return Shape(path, "y0 (" + Number(box.y0) + ") is not less than y1 (" + Number(box.y1) + ")");
  }
  box.x0 = std::clamp(box.x0, 0.0, width);
  box.x1 = std::clamp(box.x1, 0.0, width);
  box.y0 = std::clamp(box.y0, 0.0, height);
  box.y1 = std::clamp(box.y1, 0.0, height);
  if (!(box.x0 < box.x1) || !(box.y0 < box.y1)) return Shape(path, "is empty once clipped to the image");
  if (auto it = item.find("score"); it != item.end() && !it->is_null()) {
    Result<double> score = Probability(*it, path + ".score");
    if (!score.ok()) return score.status();
    box.score = *score;
  }
  return box;
}

Result<Grounding> ReadGrounding(const Json& reply, const StoredImage& image) {
  Grounding out;
  Result<const Json*> boxes = Top(reply, "boxes", &out.model);
  if (!boxes.ok()) return boxes.status();
  for (size_t i = 0; i < (*boxes)->size(); ++i) {
    Result<Box> box = ReadBox((**boxes)[i], Indexed("boxes", i), image);
    if (!box.ok()) return box.status();
    out.boxes.push_back(*box);
  }
  return out;
}

// The image the endpoints are sent: pixels and PNG bytes present.
Status CheckImage(const StoredImage& image) {
  if (!image.raster.valid() || image.png.empty()) {
    return Status::InvalidArgument("image '" + Preview(image.id, 40) + "' has no pixels to send");
  }
  return Status::OK();
}

// The endpoints' words for RetryCall (Post prefixes the endpoint).
Status Stopped(RetryStop stop) {
  switch (stop) {
    case RetryStop::kDeadlineBeforeFirstAttempt:
      return Status::Timeout("the deadline passed before the request was sent");
    case RetryStop::kStoppedWhileWaiting:
      return Status::Cancelled("cancelled while waiting to retry");
    case RetryStop::kCancelledBeforeAttempt:
    case RetryStop::kCancelledAfterAttempt:
      break;
  }
  return Status::Cancelled("cancelled");
}

// "HTTP 500 after 3 attempts: model crashed", or "after 2 attempts: <the
// transport's error>", and why it stopped early when it did.
Status GiveUp(const RetryGiveUpInfo& info) {
  const std::string after = "after " + std::to_string(info.attempts) + (info.attempts == 1 ? " attempt" : " attempts");
  const std::string& last = info.last.message();
  const std::string http = "HTTP " + std::to_string(info.http_status);
  std::string text = info.http_status != 0 && StartsWith(last, http + ": ")
                         ? http + " " + after + last.substr(http.size())
                         : after + ": " + last;
  if (info.reason == RetryGiveUp::kDeadlinePassed) {
    text += " (gave up: the deadline passed)";
  } else if (info.reason == RetryGiveUp::kDeadlineNearerThanDelay) {
    text += " (gave up: the deadline leaves " + std::to_string(info.left.count()) + " ms, less than the " +
            std::to_string(info.delay.count()) + " ms retry delay)";
  }
  if (info.http_status == 429) return Status::ResourceExhausted(std::move(text));
  if (info.last.code() == StatusCode::kTimeout) return Status::Timeout(std::move(text));
  return Status::Unavailable(std::move(text));
}

// The server's words, with the API key (should a server echo it) hidden.
std::string ServerSaid(const std::string& body, const std::string& api_key) {
  std::string text = ServerErrorText(body);
  if (api_key.empty()) return text;
  for (size_t at = text.find(api_key); at != std::string::npos; at = text.find(api_key, at + 3)) {
    text.replace(at, api_key.size(), "***");
  }
  return text;
}

// One attempt's reading of a non-2xx reply: retryable statuses (llm/retry.h)
// marked, 401/403 kPermissionDenied, 404 kNotFound, other 4xx kInvalidArgument.
RetryAttempt<Json> HttpFailure(const HttpResponse& response, const std::string& api_key) {
  RetryAttempt<Json> attempt;
  attempt.http_status = response.status;
  std::string text = "HTTP " + std::to_string(response.status) + ": " + ServerSaid(response.body, api_key);
  if (IsRetryableHttpStatus(response.status)) {
    attempt.retryable = true;
    attempt.retry_after = RetryAfter(response);
    attempt.error = Status::Unavailable(std::move(text));
  } else if (response.status == 401 || response.status == 403) {
    attempt.error = Status::PermissionDenied(std::move(text));
  } else if (response.status == 404) {
    attempt.error = Status::NotFound(std::move(text));
  } else {
    attempt.error = Status::InvalidArgument(std::move(text));
  }
  return attempt;
}

// Fills `url` from `variable` when empty; checks the scheme.
Status ResolveUrl(std::string& url, const char* variable, const char* what) {
  std::string from = "the option";
  if (url.empty()) {
    if (const char* v = std::getenv(variable); v != nullptr && !IsBlank(v)) {
      url = v;
      from = variable;
    }
  }
  url = Trim(url);
  if (url.empty()) return Status::OK();
  const std::string lower = AsciiLower(url);
  const size_t scheme = StartsWith(lower, "http://") ? 7 : StartsWith(lower, "https://") ? 8 : 0;
  if (scheme == 0 || url.size() == scheme || url[scheme] == '/') {
    return Status::InvalidArgument(std::string(what) + " endpoint: the URL given by " + from + " ('" +
                                   Preview(RedactUrl(url), 80) + "') is not an http:// or https:// URL with a host (" +
                                   variable + ")");
  }
  return Status::OK();
}

}  // namespace

Result<Classification> ReadClassificationReply(const Json& reply) { return ReadClassification(reply); }
Result<Segmentation> ReadSegmentationReply(const Json& reply, const StoredImage& image) {
  return ReadSegmentation(reply, image);
}
Result<Grounding> ReadGroundingReply(const Json& reply, const StoredImage& image) {
  return ReadGrounding(reply, image);
}

Result<ImagingEndpoints> ResolveImagingEndpoints(ImagingEndpoints endpoints) {
  if (Status s = ResolveUrl(endpoints.classifier_url, "MEDREACT_CXR_CLASSIFIER_URL", "classifier"); !s.ok()) return s;
  if (Status s = ResolveUrl(endpoints.segmentation_url, "MEDREACT_CXR_SEGMENTATION_URL", "segmentation"); !s.ok()) {
    return s;
  }
  if (Status s = ResolveUrl(endpoints.grounding_url, "MEDREACT_CXR_GROUNDING_URL", "grounding"); !s.ok()) return s;
  if (endpoints.api_key.empty()) {
    if (const char* v = std::getenv("MEDREACT_CXR_API_KEY"); v != nullptr) endpoints.api_key = Trim(v);
  }
  return endpoints;
}

Json ImagePayload(const StoredImage& image) {
  std::string data = StartsWith(image.data_url, kDataUrlPrefix) ? image.data_url.substr(sizeof(kDataUrlPrefix) - 1)
                                                                : Base64Encode(image.png);
  return Json{{"id", image.id},
              {"media_type", "image/png"},
              {"width", image.raster.width},
              {"height", image.raster.height},
              {"data", std::move(data)}};
}

ImagingClient::ImagingClient(ImagingEndpoints endpoints, std::shared_ptr<HttpTransport> transport)
    : endpoints_(std::move(endpoints)), transport_(transport ? std::move(transport) : MakeCurlTransport()) {}

Result<Classification> ImagingClient::Classify(const StoredImage& image, const std::vector<std::string>& labels,
                                               const Deadline& deadline, const CancellationToken& cancel) const {
  if (!has_classifier()) {
    return Status::FailedPrecondition("the classifier endpoint is not configured (MEDREACT_CXR_CLASSIFIER_URL)");
  }
  if (Status s = CheckImage(image); !s.ok()) return s;
  Json body = {{"image", ImagePayload(image)}};
  if (!labels.empty()) body["labels"] = labels;
  Result<Json> reply = Post("classifier", endpoints_.classifier_url, body, deadline, cancel);
  if (!reply.ok()) return reply.status();
  Result<Classification> read = ReadClassification(*reply);
  if (!read.ok()) return read.status().WithContext("classifier endpoint " + RedactUrl(endpoints_.classifier_url));
  return read;
}

Result<Segmentation> ImagingClient::Segment(const StoredImage& image, const std::vector<std::string>& structures,
                                            const Deadline& deadline, const CancellationToken& cancel) const {
  if (!has_segmentation()) {
    return Status::FailedPrecondition("the segmentation endpoint is not configured (MEDREACT_CXR_SEGMENTATION_URL)");
  }
  if (Status s = CheckImage(image); !s.ok()) return s;
  Json body = {{"image", ImagePayload(image)}};
  if (!structures.empty()) body["structures"] = structures;
  Result<Json> reply = Post("segmentation", endpoints_.segmentation_url, body, deadline, cancel);
  if (!reply.ok()) return reply.status();
  Result<Segmentation> read = ReadSegmentation(*reply, image);
  if (!read.ok()) return read.status().WithContext("segmentation endpoint " + RedactUrl(endpoints_.segmentation_url));
  return read;
}

Result<Grounding> ImagingClient::Ground(const StoredImage& image, const std::string& phrase, const Deadline& deadline,
                                        const CancellationToken& cancel) const {
  if (!has_grounding()) {
    return Status::FailedPrecondition("the grounding endpoint is not configured (MEDREACT_CXR_GROUNDING_URL)");
  }
  if (Status s = CheckImage(image); !s.ok()) return s;
  if (IsBlank(phrase)) return Status::InvalidArgument("grounding: the phrase is empty");
  Json body = {{"image", ImagePayload(image)}, {"phrase", phrase}};
  Result<Json> reply = Post("grounding", endpoints_.grounding_url, body, deadline, cancel);
  if (!reply.ok()) return reply.status();
  Result<Grounding> read = ReadGrounding(*reply, image);
  if (!read.ok()) return read.status().WithContext("grounding endpoint " + RedactUrl(endpoints_.grounding_url));
  return read;
}

Result<Json> ImagingClient::Post(const std::string& what, const std::string& url, const Json& body,
                                 const Deadline& deadline, const CancellationToken& cancel) const {
  const std::string endpoint = what + " endpoint " + RedactUrl(url);
  HttpRequest http;
  http.url = url;
  http.body = DumpJson(body);
  http.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
  if (!endpoints_.api_key.empty()) http.headers.emplace_back("Authorization", "Bearer " + endpoints_.api_key);

  const RetryPolicy policy{.max_retries = endpoints_.max_retries, .request_timeout = endpoints_.request_timeout};
  const RetryCall call{.deadline = deadline, .cancel = cancel, .what = endpoint, .stopped = Stopped, .give_up = GiveUp};
  Result<Json> reply = CallWithRetriesT<Json>(policy, call, [&](Millis budget) {
    http.total_timeout = budget;
    http.idle_timeout = budget;
    http.connect_timeout = std::min(kConnectTimeout, budget);
    RetryAttempt<Json> attempt;
    Result<HttpResponse> sent = transport_->Send(http, nullptr, cancel);
    if (!sent.ok()) {
      attempt.error = sent.status();
      attempt.retryable = IsRetryableTransportError(attempt.error);
      return attempt;
    }
    if (sent->status / 100 != 2) return HttpFailure(*sent, endpoints_.api_key);
    Result<Json> parsed = ParseJson(sent->body);
    if (!parsed.ok()) {
      attempt.error = Status::ParseError("response is not JSON (HTTP " + std::to_string(sent->status) + ", " +
                                         std::to_string(sent->body.size()) + " bytes): " + parsed.status().message());
      return attempt;
    }
    attempt.response = std::move(*parsed);
    return attempt;
  });
  if (!reply.ok()) return reply.status().WithContext(endpoint);
  return reply;
}

}  // namespace medreact::imaging
