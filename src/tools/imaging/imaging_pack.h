// The imaging tool pack: MedRAX's toolbox (seed 000 §2) over the run's image
// store, the imaging endpoints and a vision model.
//
//   dicom_processor(path | image_id)       a DICOM file the user named → its PNG
//                                          and de-identified metadata
//   chest_xray_classifier(image_id)        the 18 TorchXRayVision labels' probabilities
//   chest_xray_segmentation(image_id, structures?)
//                                          mask images, area, bounding box, centroid;
//                                          the cardiothoracic ratio when heart and lungs are there
//   xray_vqa(image_ids, question)          a vision model's answer
//   chest_xray_report(image_id)            a vision model's findings + impression
//   xray_phrase_grounding(image_id, phrase) boxes in image pixels (the grounding
//                                          endpoint, else the vision model)
//   image_visualizer(image_id, boxes?, masks?, labels?)
//                                          an annotated PNG the user can open
//
// A tool is registered only when what it needs is configured (the
// classifier without a classifier endpoint is not offered), and
// ImagingToolStatus says for each tool whether it is offered and why not.
// Tools take image ids, never paths; the one path a tool accepts
// (dicom_processor's) must be a file the user named (ImageStore::UserPath).
// Every result is JSON with the image ids it made, and a failure of an
// endpoint is the tool's error result naming the endpoint and the reason, so
// the model sees it and goes on.
#ifndef MEDREACT_TOOLS_IMAGING_IMAGING_PACK_H_
#define MEDREACT_TOOLS_IMAGING_IMAGING_PACK_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "medreact/json.h"
#include "medreact/status.h"
#include "medreact/tool_registry.h"
#include "tools/imaging/image_store.h"
#include "tools/imaging/imaging_client.h"
#include "tools/imaging/vision_client.h"

namespace medreact::imaging {

// TorchXRayVision's output normalisation (xrv.models.op_norm) maps each
// label's operating point to 0.5, so 0.5 is where its classifiers call a
// finding present (Cohen et al., TorchXRayVision, MIDL 2022, arXiv:2111.00595).
inline constexpr double kDefaultFindingThreshold = 0.5;

struct ImagingPackOptions {
  std::shared_ptr<ImageStore> store;               // required
  std::shared_ptr<const ImagingClient> endpoints;  // classifier / segmentation / grounding; null = none
  std::shared_ptr<const VisionClient> vision;      // VQA, report, grounding fallback; null = none
  double finding_threshold = kDefaultFindingThreshold;  // "above_threshold" in the classifier's result
  // Files the user named that could not be read, and why (path, error):
  // dicom_processor answers with the reason instead of "not named". Default: none
  std::vector<std::pair<std::string, std::string>> input_errors;
};

struct ImagingToolStatus {
  std::string name;
  bool offered = false;
  std::string reason;  // why it is not offered, or where it goes ("classifier endpoint http://...")
};

// The seven tools in MedRAX's order, each offered or not and why.
std::vector<ImagingToolStatus> ImagingToolsStatus(const ImagingPackOptions& options);

// The seven tools' specs, in the same order, whatever is configured (for
// catalogues such as `medreact tools list`; the specs do not depend on it).
std::vector<ToolSpec> ImagingPackSpecs();

// Registers the offered tools. InvalidArgument when options.store is null.
Status RegisterImagingPack(ToolRegistry& registry, const ImagingPackOptions& options);

// The grounding phrase for a classifier label ("Effusion" → "pleural
// effusion", "Pleural_Thickening" → "pleural thickening").
std::string LabelPhrase(const std::string& label);

}  // namespace medreact::imaging

#endif  // MEDREACT_TOOLS_IMAGING_IMAGING_PACK_H_
