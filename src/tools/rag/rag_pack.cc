// The rag pack's tool definitions: specs written for the model (seed 002's
// wording, made precise) and thin Run functions over RagIndex and ExtrasFile.
#include "tools/rag/rag_pack.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "medreact/tool.h"

namespace medreact {
namespace {

constexpr int kDefaultK = 5;
constexpr int kMaxK = 10;
constexpr size_t kMaxHints = 8;

constexpr const char* kQueryRagDescription =
    "Searches the guideline library (local summaries of clinical guidelines and consensus statements, e.g. "
    "ASPEN/AND pediatric malnutrition indicators, WHO growth z-score cut-offs, GLIM adult malnutrition criteria, "
    "interpretation bands of common clinical scores) and returns the most relevant passages, each with its "
    "source file, section heading, relevance score and text. Use it before you state a criterion, cut-off or "
    "classification, so the answer rests on a cited source; call it again with other or more specific keywords "
    "when the passages do not answer the question. Write 4-8 specific keywords (guideline or score names, "
    "measures, conditions), not a sentence: {\"query\": \"ASPEN pediatric malnutrition z-score severity\", "
    "\"purpose\": \"grade a BMI-for-age z-score of -2.3\"}. Words are matched after stemming, any word may match, "
    "and passages with more and rarer matching words rank higher; there are no operators. Returns {\"query\", "
    "\"purpose\", \"mode\", \"results\": [{\"rank\", \"source\", \"heading\", \"score\", \"text\"}]} (score: larger "
    "is more relevant). Cite the source and heading of every passage you rely on.";

constexpr const char* kQueryExtrasDescription =
    "Looks up short task hints by keyword: rules of thumb, conversions and reminders of how to apply a guideline "
    "(e.g. \"the 3rd percentile is z = -1.88\", \"BMI-for-age replaces weight-for-length from 2 years\"). Use it "
    "for a quick check while you work; for the guideline text itself use query_rag. Pass 1-5 specific "
    "keywords: {\"keywords\": [\"percentile\", \"z-score\"]}. Matching ignores case and punctuation, any keyword "
    "may match, and hints matching more keywords come first. Returns {\"keywords\", \"hints\": [{\"hint\", "
    "\"source\", \"matched\"}]}; an empty list means no hint exists for those words.";

// Four significant digits: enough to order by, short for the model.
double Rounded(double value) {
  if (!std::isfinite(value)) return 0;
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4g", value);
  return std::strtod(buffer, nullptr);
}

ToolSpec QueryRagSpec() {
  ToolSpec spec;
  spec.name = "query_rag";
  spec.description = kQueryRagDescription;
  spec.parameters = {
      {"type", "object"},
      {"properties",
       {{"query",
         {{"type", "string"},
          {"minLength", 1},
          {"maxLength", 500},
          {"description", "4-8 specific keywords, e.g. \"GLIM phenotypic criteria weight loss BMI\"."}}},
        {"purpose",
         {{"type", "string"},
          {"maxLength", 500},
          {"description", "Why you need the information (recorded with the result; does not change the ranking)."}}},
        {"k",
         {{"type", "integer"},
          {"minimum", 1},
          {"maximum", kMaxK},
          {"description", "How many passages to return. Default: 5."}}}}},
      {"required", {"query"}},
      {"additionalProperties", false}};
  return spec;
}

std::unique_ptr<Tool> MakeQueryRagTool(std::shared_ptr<RagIndex> index) {
  return MakeFunctionTool(QueryRagSpec(), [index = std::move(index)](const Json& args, const ToolContext& ctx) {
    const std::string query = args.at("query").get<std::string>();
    const std::string purpose = args.value("purpose", std::string());
    const int k = args.value("k", kDefaultK);
    Result<RagSearch> search = index->Search(query, k, ctx.cancel);
    if (!search.ok()) {
      return ToolResult::Error("the guideline search failed (" + search.status().message() +
                               "); retry once, then continue without the guideline library and say so");
    }
    OrderedJson result;
    result["query"] = query;
    if (!purpose.empty()) result["purpose"] = purpose;
    result["mode"] = search->mode;
    OrderedJson hits = OrderedJson::array();
    for (const RagHit& hit : search->hits) {
      hits.push_back({{"rank", hit.rank},
                      {"source", hit.source},
                      {"heading", hit.heading},
                      {"score", Rounded(hit.score)},
                      {"text", hit.text}});
    }
    result["results"] = std::move(hits);
    if (!search->warning.empty()) result["warning"] = search->warning;
    if (search->hits.empty()) {
      result["note"] =
          "No passage matched. Try other keywords: the guideline or score name (GLIM, ASPEN, WHO, KDIGO, "
          "CURB-65), the measure (BMI-for-age, MUAC, eGFR) or a synonym.";
    }
    return ToolResult::Ok(DumpJson(result));
  });
}

ToolSpec QueryExtrasSpec() {
  ToolSpec spec;
  spec.name = "query_extras";
  spec.description = kQueryExtrasDescription;
  spec.parameters = {
      {"type", "object"},
      {"properties",
       {{"keywords",
         {{"type", "array"},
          {"minItems", 1},
          {"maxItems", 10},
          {"items", {{"type", "string"}, {"minLength", 1}, {"maxLength", 100}}},
          {"description", "1-5 specific keywords, e.g. [\"malnutrition\", \"pediatric\", \"z-score\"]."}}}}},
      {"required", {"keywords"}},
      {"additionalProperties", false}};
  return spec;
}

std::unique_ptr<Tool> MakeQueryExtrasTool(std::shared_ptr<const ExtrasFile> extras) {
  return MakeFunctionTool(QueryExtrasSpec(), [extras = std::move(extras)](const Json& args, const ToolContext&) {
    const std::vector<std::string> keywords = args.at("keywords").get<std::vector<std::string>>();
    OrderedJson result;
    result["keywords"] = keywords;
    OrderedJson hints = OrderedJson::array();
    for (const ExtraMatch& match : extras->Lookup(keywords, kMaxHints)) {
      OrderedJson hint = {{"hint", match.hint->hint}};
      if (!match.hint->source.empty()) hint["source"] = match.hint->source;
      hint["matched"] = match.matched;
      hints.push_back(std::move(hint));
    }
    const bool none = hints.empty();
    result["hints"] = std::move(hints);
    if (none) {
      result["note"] = "No hint for these keywords. Try broader words (malnutrition, z-score, percentile, BMI, "
                       "eGFR) or use query_rag for guideline text.";
    }
    return ToolResult::Ok(DumpJson(result));
  });
}

}  // namespace

std::vector<std::string> RagPackToolNames() { return {"query_rag", "query_extras"}; }

std::vector<ToolSpec> RagPackSpecs() { return {QueryRagSpec(), QueryExtrasSpec()}; }

Status RegisterRagPack(ToolRegistry& registry, std::shared_ptr<RagIndex> index,
                        std::shared_ptr<const ExtrasFile> extras) {
  if (!index && !extras) {
    return Status::InvalidArgument("rag pack: neither a guideline index nor an extras file was given");
  }
  std::vector<std::unique_ptr<Tool>> tools;
  if (index) tools.push_back(MakeQueryRagTool(std::move(index)));
  if (extras) tools.push_back(MakeQueryExtrasTool(std::move(extras)));
  for (const auto& tool : tools) {
    if (registry.Find(tool->spec().name)) {
      return Status::InvalidArgument("rag pack: tool '" + tool->spec().name + "' is already registered");
    }
  }
  for (auto& tool : tools) {
    if (Status s = registry.Register(std::move(tool)); !s.ok()) return s.WithContext("rag pack");
  }
  return Status::OK();
}

}  // namespace medreact
