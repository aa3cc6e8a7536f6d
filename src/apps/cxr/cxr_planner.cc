#include "apps/cxr/cxr_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "apps/common/planner_support.h"
#include "tools/imaging/imaging_pack.h"

namespace medreact {
namespace {

// Labels that concern the heart's size: segment the heart with the lungs so
// that the cardiothoracic ratio can be derived.
bool CardiacLabel(const std::string& label) { return label == "Cardiomegaly" || label == "Enlarged Cardiomediastinum"; }

std::string Fixed(double value, int digits) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, value);
  return buffer;
}

// What the last question's tools returned, in order.
struct Seen {
  std::string tool;
  Json arguments;
  ToolObservation observation;
};

// The index of the conversation's last question: the last user message that
// is neither a correction nor the last-call prompt (both written by the app).
size_t LastQuestion(const std::vector<Message>& conversation) {
  for (size_t i = conversation.size(); i-- > 0;) {
    const Message& m = conversation[i];
    if (m.role != Role::kUser) continue;
    if (m.content.rfind("Your last reply could not be read", 0) == 0) continue;
    if (m.content.rfind("You must stop now", 0) == 0) continue;  // fallback synthesis (FallbackPrompt)
    return i;
  }
  return 0;
}

std::vector<Seen> ResultsSince(const std::vector<Message>& conversation, size_t from) {
  std::map<std::string, std::pair<std::string, Json>> calls;
  std::vector<Seen> out;
  for (size_t i = from; i < conversation.size(); ++i) {
    const Message& m = conversation[i];
    for (const ToolCall& call : m.tool_calls) {
      Result<Json> args = ParseJson(call.arguments);
      calls[call.id] = {call.name, args.ok() ? std::move(*args) : Json::object()};
    }
    if (m.role != Role::kTool) continue;
    Seen seen{m.name, Json::object(), ReadToolObservation(m.content)};
    if (auto it = calls.find(m.tool_call_id); it != calls.end()) seen.arguments = it->second.second;
    out.push_back(std::move(seen));
  }
  return out;
}

// Every image part's id in the conversation (parts name their image in `text`).
std::vector<std::string> ImageIds(const std::vector<Message>& conversation) {
  std::vector<std::string> ids;
  for (const Message& m : conversation) {
    for (const ContentPart& part : m.images) {
      if (part.kind == ContentPart::Kind::kImage && !part.text.empty() &&
          std::find(ids.begin(), ids.end(), part.text) == ids.end()) {
        ids.push_back(part.text);
      }
    }
  }
  return ids;
}

class CxrPlanner : public ChatModel {
 public:
  CxrPlanner(std::shared_ptr<const imaging::ImageStore> store, double threshold)
      : store_(std::move(store)), threshold_(threshold) {}

  Result<ModelResponse> Complete(const ModelRequest& request, const ModelCallContext&) override {
    std::vector<Message> conversation;
    for (const Message& m : request.messages) {
      if (m.role != Role::kSystem) conversation.push_back(m);
    }
    ModelResponse response;
    response.model = name();
    response.message.role = Role::kAssistant;
    std::set<std::string> offered;
    for (const ToolSpec& spec : request.tools) offered.insert(spec.name);
    std::vector<ToolCall> calls;
    if (!offered.empty()) calls = NextCalls(conversation, offered);
    if (calls.empty()) {
      response.message.content = CxrOfflineSummary(conversation, threshold_, "no language model was configured");
      response.finish_reason = "stop";
    } else {
      response.message.tool_calls = std::move(calls);
      response.finish_reason = "tool_calls";
    }
    return response;
  }

  std::string name() const override { return "cxr-offline-plan"; }
  std::string protocol() const override { return "rules"; }
  ModelCapabilities capabilities() const override { return {.tool_calling = ToolCalling::kPlanner, .images = true}; }

 private:
  std::vector<ToolCall> NextCalls(const std::vector<Message>& conversation,
                                  const std::set<std::string>& offered) const {
    const size_t question_at = LastQuestion(conversation);
    const std::vector<Seen> seen = ResultsSince(conversation, question_at);
    auto called = [&](const char* tool) {
      return std::any_of(seen.begin(), seen.end(), [&](const Seen& s) { return s.tool == tool; });
    };
    auto has = [&](const char* tool) { return offered.count(tool) > 0; };
    const std::vector<std::string> images = ImageIds(conversation);
    std::vector<ToolCall> calls;
    auto call = [&](const char* tool, Json args) { calls.push_back({MintToolCallId(), tool, DumpJson(args)}); };

    // 1. Read the DICOM files and classify.
    if (!called("dicom_processor") && !called("chest_xray_classifier")) {
      for (const std::string& id : images) {
        auto image = store_->Get(id);
        if (has("dicom_processor") && image.ok() && (*image)->source_format == imaging::ImageFormat::kDicom) {
          call("dicom_processor", {{"image_id", id}});
        }
        if (has("chest_xray_classifier")) call("chest_xray_classifier", {{"image_id", id}});
      }
      if (!calls.empty()) return calls;
    }

    // 2. Localise what is above the threshold.
    std::map<std::string, std::vector<std::string>> labels;  // image -> labels above threshold, highest first
    for (const Seen& s : seen) {
      if (s.tool != "chest_xray_classifier" || !s.observation.ok) continue;
      const std::string id = s.observation.value.value("image_id", std::string());
      for (const Json& l : s.observation.value.value("above_threshold", Json::array())) {
        if (l.is_string() && labels[id].size() < static_cast<size_t>(kCxrPlannerMaxGroundedLabels)) {
          labels[id].push_back(l.get<std::string>());
        }
      }
    }
    if (!called("xray_phrase_grounding") && !called("chest_xray_segmentation")) {
      for (const auto& [id, found] : labels) {
        if (found.empty()) continue;
        if (has("xray_phrase_grounding")) {
          for (const std::string& label : found) {
            call("xray_phrase_grounding", {{"image_id", id}, {"phrase", imaging::LabelPhrase(label)}});
          }
        }
        if (has("chest_xray_segmentation")) {
          const bool cardiac = std::any_of(found.begin(), found.end(), CardiacLabel);
          Json structures = cardiac ? Json{"Heart", "Left Lung", "Right Lung"} : Json{"Left Lung", "Right Lung"};
          call("chest_xray_segmentation", {{"image_id", id}, {"structures", structures}});
        }
      }
      if (!calls.empty()) return calls;
    }

    // 3. Show it.
    if (!called("image_visualizer") && has("image_visualizer")) {
      std::map<std::string, Json> boxes, masks;
      for (const Seen& s : seen) {
        if (!s.observation.ok) continue;
        const Json& v = s.observation.value;
        const std::string id = v.value("image_id", std::string());
        if (s.tool == "xray_phrase_grounding") {
          for (Json box : v.value("boxes", Json::array())) {
            box.erase("score");
            box["label"] = v.value("phrase", std::string());
            boxes[id].push_back(std::move(box));
          }
        } else if (s.tool == "chest_xray_segmentation") {
          for (const Json& structure : v.value("structures", Json::array())) {
            if (structure.contains("mask_image_id") && !structure.value("empty", false)) {
              masks[id].push_back(structure["mask_image_id"]);
            }
          }
        }
      }
      for (const std::string& id : images) {
        if (!boxes.count(id) && !masks.count(id)) continue;
        Json args = {{"image_id", id}};
        if (boxes.count(id)) args["boxes"] = boxes[id];
        if (masks.count(id)) args["masks"] = masks[id];
        call("image_visualizer", std::move(args));
      }
      if (!calls.empty()) return calls;
    }

    // 4. Ask the vision model.
    if (!called("chest_xray_report") && !called("xray_vqa")) {
      for (const std::string& id : images) {
        if (has("chest_xray_report")) call("chest_xray_report", {{"image_id", id}});
      }
      if (has("xray_vqa") && !images.empty() && question_at < conversation.size()) {
        std::string question = conversation[question_at].content;
        question = question.substr(0, question.find("\n\nImages ("));
        Json ids = Json::array();
        for (size_t i = 0; i < images.size() && i < 4; ++i) ids.push_back(images[i]);
        if (!question.empty()) call("xray_vqa", {{"image_ids", ids}, {"question", question.substr(0, 2000)}});
      }
    }
    return calls;
  }

  std::shared_ptr<const imaging::ImageStore> store_;
  double threshold_;
};

}  // namespace

std::shared_ptr<ChatModel> MakeCxrPlanner(std::shared_ptr<const imaging::ImageStore> store, double threshold) {
  return std::make_shared<CxrPlanner>(std::move(store), threshold);
}

std::string CxrOfflineSummary(const std::vector<Message>& conversation, double threshold, const std::string& why) {
  const std::vector<Seen> seen = ResultsSince(conversation, LastQuestion(conversation));
  std::string out =
      "Offline summary: no language model wrote this answer (" + why +
      "). The imaging tools ran in MedRAX's order and each line below is copied from one tool's output, named in "
      "brackets. It is not a diagnosis: a clinician must read the image.\n";
  std::string images, findings, below, located, measured, reports, shown, failed;
  for (const Seen& s : seen) {
    if (!s.observation.ok) {
      failed += "- " + s.tool + " failed: " + s.observation.error + "\n";
      continue;
    }
    const Json& v = s.observation.value;
    const std::string image = v.value("image_id", std::string());
    if (s.tool == "dicom_processor") {
      const Json& meta = v.value("metadata", Json::object());
      auto attr = [&](const char* tag) -> std::string {
        if (!meta.contains(tag)) return "";
        const Json& values = meta[tag].value("Value", Json::array());
        return !values.empty() && values[0].is_string() ? values[0].get<std::string>() : "";
      };
      std::string modality = attr("00080060"), view = attr("00185101");
      images += "- " + image + ": DICOM" + (modality.empty() ? "" : " " + modality) +
                (view.empty() ? "" : ", view " + view) + " [dicom_processor]\n";
    } else if (s.tool == "chest_xray_classifier") {
      int others = 0;
      for (const Json& p : v.value("probabilities", Json::array())) {
        const double probability = p.value("probability", 0.0);
        const std::string label = p.value("label", std::string());
        if (probability >= threshold) {
          findings +=
              "- " + label + ": probability " + Fixed(probability, 2) + " on " + image + " [chest_xray_classifier]\n";
        } else if (others++ < 3) {
          below += (below.empty() ? "" : ", ") + label + " " + Fixed(probability, 2);
        }
      }
    } else if (s.tool == "xray_phrase_grounding") {
      const Json& boxes = v.value("boxes", Json::array());
      located += "- " + v.value("phrase", std::string()) + " on " + image + ": ";
      if (boxes.empty()) {
        located += "not located";
      } else {
        for (size_t i = 0; i < boxes.size(); ++i) {
          const Json& b = boxes[i];
          located += (i ? "; " : "") + std::string("box (") + Fixed(b.value("x0", 0.0), 0) + ", " +
                     Fixed(b.value("y0", 0.0), 0) + ")-(" + Fixed(b.value("x1", 0.0), 0) + ", " +
                     Fixed(b.value("y1", 0.0), 0) + ")";
        }
      }
      located += " [xray_phrase_grounding]\n";
    } else if (s.tool == "chest_xray_segmentation") {
      for (const Json& structure : v.value("structures", Json::array())) {
        measured += "- " + structure.value("name", std::string()) + " on " + image + ": " +
                    (structure.value("empty", false)
                         ? std::string("not found")
                         : Fixed(structure.value("area_fraction", 0.0) * 100, 1) + " % of the image") +
                    " [chest_xray_segmentation]\n";
      }
      if (v.contains("cardiothoracic_ratio")) {
        const Json& ctr = v["cardiothoracic_ratio"];
        measured += "- Cardiothoracic ratio " + Fixed(ctr.value("value", 0.0), 2) + " on " + image + " (" +
                    ctr.value("note", std::string()) + ") [chest_xray_segmentation]\n";
      }
    } else if (s.tool == "image_visualizer") {
      const std::string path = v.value("path", std::string());
      shown += "- " + v.value("image_id", std::string()) + " (" + v.value("source_image_id", std::string()) +
               " annotated)" + (path.empty() ? "" : ": " + path) + " [image_visualizer]\n";
    } else if (s.tool == "chest_xray_report") {
      reports += "- " + image + " impression: " + v.value("impression", std::string()) + " [chest_xray_report, " +
                 v.value("source", std::string()) + "]\n";
    } else if (s.tool == "xray_vqa") {
      reports += "- Q: " + s.arguments.value("question", std::string()) + " A: " + v.value("answer", std::string()) +
                 " (confidence " + v.value("confidence", std::string()) + ") [xray_vqa, " +
                 v.value("source", std::string()) + "]\n";
    }
  }
  if (seen.empty()) out += "\nNo imaging tool ran: none is configured for these images, or none could run.\n";
  if (!images.empty()) out += "\nImages:\n" + images;
  if (!findings.empty())
    out += "\nFindings at or above the classifier's threshold (" + Fixed(threshold, 2) + "):\n" + findings;
  if (!below.empty()) out += "\nHighest below the threshold: " + below + " [chest_xray_classifier]\n";
  if (!located.empty()) out += "\nLocalisation (pixels of the image as sent):\n" + located;
  if (!measured.empty()) out += "\nSegmentation:\n" + measured;
  if (!reports.empty()) out += "\nVision model:\n" + reports;
  if (!shown.empty()) out += "\nAnnotated images:\n" + shown;
  if (!failed.empty()) out += "\nTools that failed:\n" + failed;
  return out;
}

}  // namespace medreact
