// The offline extraction planner (`--planner rules`, and the fallback when a
// configured model never answers): a ChatModel that is not a language model.
// It runs a fixed, explained plan through the same tools and loop a model
// would use:
//   1. retrieve the criteria: query_rag (pediatric: ASPEN/AND 2014 and WHO
//      z-score bands; adult: GLIM 2019) and query_extras, when offered;
//   2. compute: percentile_to_zscore for every stated percentile, growth_zscore
//      for the measurements of a child (WHO 2006 under 24 months, CDC 2000
//      from 24 months, as CDC recommends: Grummer-Strawn et al., MMWR Recomm
//      Rep 2010;59(RR-9)), body_mass_index for an adult;
//   3. interpret: interpret_zscore_malnutrition for every z-score whose
//      indicator is known;
//   4. answer: the user's schema filled from what was found (schema_fill.h),
//      as the assistant's JSON text.
// Facts come from NoteFacts (note_facts.h: patterns, not understanding). The
// planner applies GLIM itself for adults (Cederholm T, et al. GLIM criteria
// for the diagnosis of malnutrition. Clin Nutr 2019;38:1-9) and ASPEN/AND for
// children through the interpret tool's bands. Deterministic; each
// Complete() recomputes from the conversation, so it never repeats a call.
#ifndef MEDREACT_APPS_EXTRACT_EXTRACT_PLANNER_H_
#define MEDREACT_APPS_EXTRACT_EXTRACT_PLANNER_H_

#include <memory>
#include <string>

#include "medreact/json.h"
#include "medreact/model.h"

namespace medreact {

struct ExtractionTask {
  std::string note;    // the clinical text; must not be blank
  Json schema;         // the JSON Schema the answer must satisfy (type object)
  std::string label;   // optional diagnosis context (seed 002's label_context); "" when none
};

// name() "extraction-rules-planner", protocol() "rules".
std::unique_ptr<ChatModel> MakeExtractionRulesPlanner(const ExtractionTask& task);

}  // namespace medreact

#endif  // MEDREACT_APPS_EXTRACT_EXTRACT_PLANNER_H_
