// The imaging pack's tools: specs written for a model choosing among them
// (seed 000 §2: the description is the tool's implicit prompt), and thin Run
// functions over the image store, the endpoint client and the vision client.
#include "tools/imaging/imaging_pack.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <utility>

#include "medreact/http.h"
#include "medreact/tool.h"
#include "tools/imaging/image_draw.h"

namespace medreact::imaging {
namespace {

constexpr const char* kDicomDescription =
    "Opens a DICOM file the user gave (by its path exactly as the user wrote it, or by its image_id) and "
    "returns the image as an image_id you can pass to the other tools, its size, how the pixels were rendered "
    "(transfer syntax, photometric interpretation, windowing) and its DICOM attributes as DICOM JSON with "
    "patient identifiers removed. Use it first when the user gives a .dcm file and you need its acquisition "
    "details (modality, view position PA/AP, body part, pixel spacing). It never opens a file the user did "
    "not give.";

constexpr const char* kClassifierDescription =
    "Classifies a chest X-ray and returns, for each of 18 findings (Atelectasis, Consolidation, Infiltration, "
    "Pneumothorax, Edema, Emphysema, Fibrosis, Effusion, Pneumonia, Pleural_Thickening, Cardiomegaly, Nodule, "
    "Mass, Hernia, Lung Lesion, Fracture, Lung Opacity, Enlarged Cardiomediastinum), the probability that it "
    "is present, highest first, and the list of findings at or above the decision threshold. Use it first to "
    "find out what is likely abnormal; then localise the findings with xray_phrase_grounding or "
    "chest_xray_segmentation. Probabilities are a model's output, not a diagnosis.";

constexpr const char* kSegmentationDescription =
    "Segments anatomical structures on a chest X-ray and returns, for each, a mask image (its image_id, usable "
    "by image_visualizer), the area in pixels and as a fraction of the image, the bounding box "
    "[x0, y0, x1, y1] and the centroid [x, y] in image pixels (origin top-left). When the heart and both lungs "
    "are segmented it also returns the cardiothoracic ratio derived from the masks. Use it to measure or "
    "localise anatomy (heart size, lung fields, mediastinum). Structures: Left Clavicle, Right Clavicle, Left "
    "Scapula, Right Scapula, Left Lung, Right Lung, Left Hilus Pulmonis, Right Hilus Pulmonis, Heart, Aorta, "
    "Facies Diaphragmatica, Mediastinum, Weasand, Spine. Omit structures to get all the model has.";

constexpr const char* kVqaDescription =
    "Asks a medical vision-language model a free-text question about one or more chest X-rays (e.g. 'Is there "
    "a pleural effusion, and on which side?', 'Is the endotracheal tube well positioned?', 'Compare the two "
    "images: has the consolidation improved?') and returns its answer with a confidence (high, medium, low). "
    "Use it for questions the classifier's fixed labels do not answer: position of lines and tubes, laterality, "
    "comparisons, descriptions.";

constexpr const char* kReportDescription =
    "Writes a radiology report for a chest X-ray with a medical vision-language model: FINDINGS and IMPRESSION "
    "in the style of a chest radiograph report. Use it when the user asks for a report or a full read of the "
    "image; check its statements against the classifier and VQA before relying on them.";

constexpr const char* kGroundingDescription =
    "Finds where a finding or structure described by a short phrase is on a chest X-ray (e.g. 'right pleural "
    "effusion', 'cardiomegaly', 'left upper lobe nodule') and returns boxes [x0, y0, x1, y1] in image pixels "
    "(origin top-left) with scores; no boxes when the phrase is not found. Use it after the classifier or VQA "
    "to localise a finding, then image_visualizer to show it.";

constexpr const char* kVisualizerDescription =
    "Draws boxes (e.g. from xray_phrase_grounding) and masks (mask image_ids from chest_xray_segmentation) "
    "with labels on a chest X-ray and returns the annotated image's image_id and the PNG file the user can "
    "open. Use it to show the user where findings are. Boxes are in image pixels of image_id; a box's own "
    "label is drawn beside it, else the label at the same position in labels.";

Json ImageIdProperty() {
  return {{"type", "string"},
          {"pattern", "^img[0-9]+$"},
          {"description", "An image id such as \"img1\": the user's images are listed in their message."}};
}

// The parameters of a tool that takes one image and nothing else.
Json OneImageParameters() {
  return {{"type", "object"},
          {"properties", {{"image_id", ImageIdProperty()}}},
          {"required", {"image_id"}},
          {"additionalProperties", false}};
}

// How a result's pixel coordinates are to be read.
std::string CoordinatesText(const StoredImage& image) {
  return "pixels of " + image.id + " (" + std::to_string(image.raster.width) + " x " +
         std::to_string(image.raster.height) + "), origin top-left";
}

Json BoxSchema() {
  return {{"type", "object"},
          {"properties",
           {{"x0", {{"type", "number"}}},
            {"y0", {{"type", "number"}}},
            {"x1", {{"type", "number"}}},
            {"y1", {{"type", "number"}}},
            {"label", {{"type", "string"}, {"maxLength", 80}}}}},
          {"required", {"x0", "y0", "x1", "y1"}},
          {"additionalProperties", false}};
}

// The image or the tool's error result text naming the ids there are.
Result<std::shared_ptr<const StoredImage>> ImageArg(const ImageStore& store, const Json& args,
                                                    const char* key = "image_id") {
  return store.Get(args.value(key, std::string()));
}

std::string EndpointSource(const char* what, const std::string& url) {
  return std::string(what) + " endpoint " + RedactUrl(url);
}

Json BoxesJson(const std::vector<Box>& boxes) {
  Json out = Json::array();
  for (const Box& b : boxes) {
    Json box = {{"x0", std::round(b.x0 * 10) / 10},
                {"y0", std::round(b.y0 * 10) / 10},
                {"x1", std::round(b.x1 * 10) / 10},
                {"y1", std::round(b.y1 * 10) / 10}};
    if (b.score) box["score"] = *b.score;
    out.push_back(std::move(box));
  }
  return out;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::unique_ptr<Tool> DicomProcessorTool(const ImagingPackOptions& o) {
  ToolSpec spec{"dicom_processor",
                kDicomDescription,
                {{"type", "object"},
                 {"properties",
                  {{"path",
                    {{"type", "string"},
                     {"minLength", 1},
                     {"maxLength", 4096},
                     {"description", "The DICOM file's path exactly as the user gave it."}}},
                   {"image_id", ImageIdProperty()}}},
                 {"minProperties", 1},
                 {"additionalProperties", false}}};
  return MakeFunctionTool(std::move(spec), [o](const Json& args, const ToolContext&) -> ToolResult {
    std::shared_ptr<const StoredImage> image;
    if (args.contains("image_id")) {
      auto found = ImageArg(*o.store, args);
      if (!found.ok()) return ToolResult::Error(found.status().message());
      image = *found;
    } else {
      const std::string path = args.value("path", std::string());
      image = o.store->UserPath(path);
      if (!image) {
        for (const auto& [failed, why] : o.input_errors) {
          if (failed == path) return ToolResult::Error("'" + path + "' could not be read: " + why);
        }
        std::string named;
        for (const auto& s : o.store->All()) {
          if (s->origin == "user") named += (named.empty() ? "" : ", ") + s->id + " (" + s->label + ")";
        }
        return ToolResult::Error(
            "dicom_processor opens only files the user gave; '" + path +
            "' is not one of them. The user's images: " + (named.empty() ? std::string("none") : named));
      }
    }
    if (image->source_format != ImageFormat::kDicom) {
      return ToolResult::Error(image->id + " (" + image->label + ") is a " + ImageFormatName(image->source_format) +
                               " image, not DICOM: pass its image_id to the other tools directly");
    }
    Json out = image->Describe();
    out.erase("path");  // the user's own path is not the model's business (it may name the patient)
    if (image->dicom.is_object()) {
      for (const char* key : {"transfer_syntax", "photometric", "voi", "frames"}) {
        if (image->dicom.contains(key)) out["rendering"][key] = image->dicom[key];
      }
      out["metadata"] = image->dicom.value("metadata", Json::object());
    }
    return ToolResult::OkJson(out);
  });
}

std::unique_ptr<Tool> ClassifierTool(const ImagingPackOptions& o) {
  ToolSpec spec{"chest_xray_classifier", kClassifierDescription, OneImageParameters()};
  return MakeFunctionTool(std::move(spec), [o](const Json& args, const ToolContext& ctx) -> ToolResult {
    auto image = ImageArg(*o.store, args);
    if (!image.ok()) return ToolResult::Error(image.status().message());
    auto result = o.endpoints->Classify(**image, {}, ctx.deadline, ctx.cancel);
    if (!result.ok()) return ToolResult::Error(result.status().message());
    std::vector<LabelProbability> sorted = result->labels;
    std::stable_sort(sorted.begin(), sorted.end(), [](const LabelProbability& a, const LabelProbability& b) {
      return a.probability > b.probability;
    });
    Json probabilities = Json::array();
    Json above = Json::array();
    for (const LabelProbability& l : sorted) {
      probabilities.push_back({{"label", l.label}, {"probability", std::round(l.probability * 1000) / 1000}});
      if (l.probability >= o.finding_threshold) above.push_back(l.label);
    }
    return ToolResult::OkJson({{"image_id", (*image)->id},
                               {"model", result->model},
                               {"source", EndpointSource("classifier", o.endpoints->endpoints().classifier_url)},
                               {"probabilities", std::move(probabilities)},
                               {"threshold", o.finding_threshold},
                               {"above_threshold", std::move(above)},
                               {"caution", "model probabilities, not diagnoses"}});
  });
}

std::unique_ptr<Tool> SegmentationTool(const ImagingPackOptions& o) {
  ToolSpec spec{"chest_xray_segmentation",
                kSegmentationDescription,
                {{"type", "object"},
                 {"properties",
                  {{"image_id", ImageIdProperty()},
                   {"structures",
                    {{"type", "array"},
                     {"items", {{"type", "string"}, {"minLength", 1}, {"maxLength", 64}}},
                     {"maxItems", 14},
                     {"description", "Structure names; omit for all."}}}}},
                 {"required", {"image_id"}},
                 {"additionalProperties", false}}};
  return MakeFunctionTool(std::move(spec), [o](const Json& args, const ToolContext& ctx) -> ToolResult {
    auto image = ImageArg(*o.store, args);
    if (!image.ok()) return ToolResult::Error(image.status().message());
    std::vector<std::string> wanted = args.value("structures", std::vector<std::string>{});
    auto result = o.endpoints->Segment(**image, wanted, ctx.deadline, ctx.cancel);
    if (!result.ok()) return ToolResult::Error(result.status().message());
    Json structures = Json::array();
    std::optional<MaskStats> heart;
    std::vector<MaskStats> lungs;
    for (StructureMask& s : result->structures) {
      MaskStats stats = MeasureMask(s.mask);
      const std::string name = Lower(s.name);
      if (name == "heart") heart = stats;
      if (name == "left lung" || name == "right lung") lungs.push_back(stats);
      auto stored = o.store->AddGenerated(std::move(s.mask), "mask-" + s.name, "chest_xray_segmentation");
      if (!stored.ok()) return ToolResult::Error("mask of " + s.name + ": " + stored.status().message());
      Json entry = ToJson(stats);
      entry["name"] = s.name;
      entry["mask_image_id"] = (*stored)->id;
      structures.push_back(std::move(entry));
    }
    Json out = {{"image_id", (*image)->id},
                {"model", result->model},
                {"source", EndpointSource("segmentation", o.endpoints->endpoints().segmentation_url)},
                {"coordinates", CoordinatesText(**image)},
                {"structures", std::move(structures)}};
    if (heart) {
      if (std::optional<double> ctr = CardiothoracicRatio(*heart, lungs)) {
        out["cardiothoracic_ratio"] = {
            {"value", std::round(*ctr * 1000) / 1000},
            {"method", "heart mask width / width across both lung masks (Danzer 1919)"},
            {"note",
             "derived from masks, not measured by a reader; > 0.5 suggests cardiomegaly on a PA film only "
             "(an AP film magnifies the heart)"}};
      }
    }
    return ToolResult::OkJson(out);
  });
}

std::unique_ptr<Tool> VqaTool(const ImagingPackOptions& o) {
  ToolSpec spec{"xray_vqa",
                kVqaDescription,
                {{"type", "object"},
                 {"properties",
                  {{"image_ids", {{"type", "array"}, {"items", ImageIdProperty()}, {"minItems", 1}, {"maxItems", 4}}},
                   {"question", {{"type", "string"}, {"minLength", 1}, {"maxLength", 2000}}}}},
                 {"required", {"image_ids", "question"}},
                 {"additionalProperties", false}}};
  return MakeFunctionTool(std::move(spec), [o](const Json& args, const ToolContext& ctx) -> ToolResult {
    std::vector<std::shared_ptr<const StoredImage>> images;
    for (const Json& id : args["image_ids"]) {
      auto image = o.store->Get(id.get<std::string>());
      if (!image.ok()) return ToolResult::Error(image.status().message());
      images.push_back(*image);
    }
    auto answer = o.vision->Answer(images, args["question"].get<std::string>(), ctx.deadline, ctx.cancel);
    if (!answer.ok()) return ToolResult::Error(answer.status().message());
    Json ids = Json::array();
    for (const auto& image : images) ids.push_back(image->id);
    return ToolResult::OkJson({{"image_ids", std::move(ids)},
                               {"answer", answer->answer},
                               {"confidence", answer->confidence},
                               {"model", answer->model},
                               {"source", "vision model " + o.vision->model_name()}});
  });
}

std::unique_ptr<Tool> ReportTool(const ImagingPackOptions& o) {
  ToolSpec spec{"chest_xray_report", kReportDescription, OneImageParameters()};
  return MakeFunctionTool(std::move(spec), [o](const Json& args, const ToolContext& ctx) -> ToolResult {
    auto image = ImageArg(*o.store, args);
    if (!image.ok()) return ToolResult::Error(image.status().message());
    auto report = o.vision->Report(**image, ctx.deadline, ctx.cancel);
    if (!report.ok()) return ToolResult::Error(report.status().message());
    return ToolResult::OkJson({{"image_id", (*image)->id},
                               {"findings", report->findings},
                               {"impression", report->impression},
                               {"model", report->model},
                               {"source", "vision model " + o.vision->model_name()}});
  });
}

std::unique_ptr<Tool> GroundingTool(const ImagingPackOptions& o) {
  ToolSpec spec{
      "xray_phrase_grounding",
      kGroundingDescription,
      {{"type", "object"},
       {"properties",
        {{"image_id", ImageIdProperty()}, {"phrase", {{"type", "string"}, {"minLength", 1}, {"maxLength", 200}}}}},
       {"required", {"image_id", "phrase"}},
       {"additionalProperties", false}}};
  return MakeFunctionTool(std::move(spec), [o](const Json& args, const ToolContext& ctx) -> ToolResult {
    auto image = ImageArg(*o.store, args);
    if (!image.ok()) return ToolResult::Error(image.status().message());
    const std::string phrase = args["phrase"].get<std::string>();
    const bool endpoint = o.endpoints && o.endpoints->has_grounding();
    Result<imaging::Grounding> found = endpoint ? o.endpoints->Ground(**image, phrase, ctx.deadline, ctx.cancel)
                                                : o.vision->Ground(**image, phrase, ctx.deadline, ctx.cancel);
    if (!found.ok()) return ToolResult::Error(found.status().message());
    return ToolResult::OkJson({{"image_id", (*image)->id},
                               {"phrase", phrase},
                               {"model", found->model},
                               {"source", endpoint ? EndpointSource("grounding", o.endpoints->endpoints().grounding_url)
                                                   : "vision model " + o.vision->model_name()},
                               {"coordinates", CoordinatesText(**image)},
                               {"boxes", BoxesJson(found->boxes)}});
  });
}

std::unique_ptr<Tool> VisualizerTool(const ImagingPackOptions& o) {
  ToolSpec spec{"image_visualizer",
                kVisualizerDescription,
                {{"type", "object"},
                 {"properties",
                  {{"image_id", ImageIdProperty()},
                   {"boxes", {{"type", "array"}, {"items", BoxSchema()}, {"maxItems", 50}}},
                   {"masks", {{"type", "array"}, {"items", ImageIdProperty()}, {"maxItems", 14}}},
                   {"labels",
                    {{"type", "array"},
                     {"items", {{"type", "string"}, {"maxLength", 80}}},
                     {"maxItems", 64},
                     {"description", "Labels for the boxes, then the masks, in order."}}}}},
                 {"required", {"image_id"}},
                 {"additionalProperties", false}}};
  return MakeFunctionTool(std::move(spec), [o](const Json& args, const ToolContext&) -> ToolResult {
    auto image = ImageArg(*o.store, args);
    if (!image.ok()) return ToolResult::Error(image.status().message());
    const Json boxes = args.value("boxes", Json::array());
    const Json masks = args.value("masks", Json::array());
    const std::vector<std::string> labels = args.value("labels", std::vector<std::string>{});
    if (boxes.empty() && masks.empty()) {
      return ToolResult::Error(
          "nothing to draw: give boxes (from xray_phrase_grounding) and/or masks (mask image "
          "ids from chest_xray_segmentation)");
    }
    Raster canvas = ToRgb((*image)->raster);
    const int line = std::max(2, std::max(canvas.width, canvas.height) / 300);
    const int scale = LabelScale(canvas);
    size_t colour = 0;
    size_t label_index = boxes.size();
    Json drawn_masks = Json::array();
    Json drawn_labels = Json::array();  // what the picture says, for the user's alt text and the model
    for (const Json& id : masks) {
      auto mask = o.store->Get(id.get<std::string>());
      if (!mask.ok()) return ToolResult::Error("masks: " + mask.status().message());
      if ((*mask)->raster.channels != 1) {
        return ToolResult::Error("masks: " + (*mask)->id +
                                 " is not a mask (a grey image from "
                                 "chest_xray_segmentation)");
      }
      const Rgb c = PaletteColor(colour++);
      OverlayMask(canvas, (*mask)->raster, c, 0.35);
      const MaskStats stats = MeasureMask((*mask)->raster);
      std::string text = label_index < labels.size() ? labels[label_index] : (*mask)->label;
      if (text.rfind("mask-", 0) == 0) text = text.substr(5);  // a segmentation mask: its structure's name
      ++label_index;
      if (!text.empty()) drawn_labels.push_back(text);
      if (!stats.empty()) {
        const double sx = static_cast<double>(canvas.width) / (*mask)->raster.width;
        const double sy = static_cast<double>(canvas.height) / (*mask)->raster.height;
        DrawLabel(canvas, static_cast<int>(stats.x0 * sx), static_cast<int>(stats.y0 * sy), text, c, scale);
      }
      drawn_masks.push_back((*mask)->id);
    }
    for (size_t i = 0; i < boxes.size(); ++i) {
      const Json& b = boxes[i];
      const Rgb c = PaletteColor(colour++);
      const double x0 = b["x0"].get<double>(), y0 = b["y0"].get<double>();
      const double x1 = b["x1"].get<double>(), y1 = b["y1"].get<double>();
      if (!std::isfinite(x0) || !std::isfinite(y0) || !std::isfinite(x1) || !std::isfinite(y1)) {
        return ToolResult::Error("boxes[" + std::to_string(i) + "]: coordinates must be finite numbers");
      }
      DrawRectangle(canvas, x0, y0, x1, y1, c, line);
      std::string text = b.contains("label") ? b["label"].get<std::string>() : i < labels.size() ? labels[i] : "";
      if (!text.empty()) {
        drawn_labels.push_back(text);
        const int ty = static_cast<int>(std::min(y0, y1)) - 8 * scale - line;
        DrawLabel(canvas, static_cast<int>(std::min(x0, x1)), std::max(0, ty), text, c, scale);
      }
    }
    auto stored = o.store->AddGenerated(std::move(canvas), "annotated-" + (*image)->id, "image_visualizer");
    if (!stored.ok()) return ToolResult::Error(stored.status().message());
    Json out = (*stored)->Describe();
    out["source_image_id"] = (*image)->id;
    out["boxes_drawn"] = boxes.size();
    out["masks_drawn"] = std::move(drawn_masks);
    out["labels_drawn"] = std::move(drawn_labels);
    if ((*stored)->path.empty()) out["note"] = "not written to a file (no output folder set)";
    return ToolResult::OkJson(out);
  });
}

}  // namespace

std::string LabelPhrase(const std::string& label) {
  if (label == "Effusion") return "pleural effusion";
  if (label == "Pleural_Thickening") return "pleural thickening";
  std::string out = Lower(label);
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

std::vector<ImagingToolStatus> ImagingToolsStatus(const ImagingPackOptions& o) {
  const bool classifier = o.endpoints && o.endpoints->has_classifier();
  const bool segmentation = o.endpoints && o.endpoints->has_segmentation();
  const bool grounding = o.endpoints && o.endpoints->has_grounding();
  const bool vision = o.vision != nullptr;
  auto url = [&](const std::string& u) { return RedactUrl(u); };
  const std::string vision_where = vision ? "vision model " + o.vision->model_name() : "";
  const char* no_vision = "no vision model: set its URL (vision_url) and name (vision_model)";
  const char* no_images = "no images: offered to runs given images (the chest X-ray app)";
  std::vector<ImagingToolStatus> out;
  out.push_back({"dicom_processor", o.store != nullptr, o.store ? "DCMTK, on the files the user gave" : no_images});
  out.push_back({"chest_xray_classifier", classifier,
                 classifier ? "classifier endpoint " + url(o.endpoints->endpoints().classifier_url)
                            : "no classifier endpoint (classifier_url)"});
  out.push_back({"chest_xray_segmentation", segmentation,
                 segmentation ? "segmentation endpoint " + url(o.endpoints->endpoints().segmentation_url)
                              : "no segmentation endpoint (segmentation_url)"});
  out.push_back({"xray_vqa", vision, vision ? vision_where : no_vision});
  out.push_back({"chest_xray_report", vision, vision ? vision_where : no_vision});
  out.push_back({"xray_phrase_grounding", grounding || vision,
                 grounding ? "grounding endpoint " + url(o.endpoints->endpoints().grounding_url)
                 : vision  ? vision_where + " (no grounding endpoint)"
                           : "neither a grounding endpoint (grounding_url) nor a vision model (vision_url)"});
  out.push_back({"image_visualizer", o.store != nullptr, o.store ? "drawn by medreact" : no_images});
  return out;
}

namespace {

// The seven tools in MedRAX's order (ImagingToolsStatus's order).
using Factory = std::unique_ptr<Tool> (*)(const ImagingPackOptions&);
constexpr Factory kToolFactories[] = {&DicomProcessorTool, &ClassifierTool, &SegmentationTool, &VqaTool,
                                      &ReportTool,         &GroundingTool,  &VisualizerTool};

}  // namespace

std::vector<ToolSpec> ImagingPackSpecs() {
  std::vector<ToolSpec> out;
  for (Factory make : kToolFactories) out.push_back(make(ImagingPackOptions{})->spec());  // never run
  return out;
}

Status RegisterImagingPack(ToolRegistry& registry, const ImagingPackOptions& options) {
  if (!options.store) return Status::InvalidArgument("the imaging pack needs the run's image store");
  const std::vector<ImagingToolStatus> status = ImagingToolsStatus(options);
  for (size_t i = 0; i < status.size(); ++i) {
    if (!status[i].offered) continue;
    if (Status s = registry.Register(kToolFactories[i](options)); !s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace medreact::imaging
