// The chest X-ray agent without a language model: a deterministic planner
// that plays the model's part in the same graph (a ChatModel that is not a
// model, protocol "rules"), and the templated summary it answers with.
//
// The plan is MedRAX's order (seed 000 §4: classification first, then
// localisation, then synthesis), each turn's calls issued together so they
// run concurrently:
//   1. dicom_processor for each DICOM image; chest_xray_classifier for each image;
//   2. for each label at or above the threshold (at most 5, highest first):
//      xray_phrase_grounding with the label's phrase; chest_xray_segmentation
//      (heart and lungs when a cardiac label is among them, else the lungs);
//   3. image_visualizer with the boxes and masks found;
//   4. chest_xray_report, and xray_vqa with the user's question;
//   5. the summary.
// A step whose tool is not offered is skipped; a tool that failed is named in
// the summary. The planner reads only the conversation (tool results) and
// the image store (which images are DICOM).
#ifndef MEDREACT_APPS_CXR_CXR_PLANNER_H_
#define MEDREACT_APPS_CXR_CXR_PLANNER_H_

#include <memory>
#include <string>
#include <vector>

#include "medreact/message.h"
#include "medreact/model.h"
#include "tools/imaging/image_store.h"

namespace medreact {

inline constexpr int kCxrPlannerMaxGroundedLabels = 5;

std::shared_ptr<ChatModel> MakeCxrPlanner(std::shared_ptr<const imaging::ImageStore> store, double threshold);

// The answer written from the tool results of the conversation's last
// question: what each tool found (cited by tool and image), the annotated
// images, the tools that failed, and plainly that no language model wrote it
// and why (`why`, e.g. "no model was configured").
std::string CxrOfflineSummary(const std::vector<Message>& conversation, double threshold, const std::string& why);

}  // namespace medreact

#endif  // MEDREACT_APPS_CXR_CXR_PLANNER_H_
