// The "growth" tool pack: pediatric anthropometry against the CDC 2000 and
// WHO 2006/2007 growth references (LMS tables shipped in data/growth/).
//
//   growth_zscore(reference, indicator, sex, value, age_months|age_days |
//                 length_cm|height_cm)      z-score and percentile of a measurement
//   percentile_to_zscore(percentile)         exact inverse normal
//   zscore_to_percentile(z)                  normal distribution function
//   interpret_zscore_malnutrition(z, indicator, age_months?)
//                                            ASPEN/AND 2014 and WHO bands, cited
//
// Plausibility (growth_plausibility.h): a measurement no child can have (a
// 7,000 kg infant: grams given as kg) is a tool error naming the value, the
// unit and the likely unit mistake; a possible one whose z lies beyond the
// reference's cut-offs for biologically implausible values (WHO on z, CDC on
// the modified z) comes back with "biologically_implausible": true, a
// "plausibility" object and a summary that says so instead of a rank, and
// interpret_zscore_malnutrition refuses to grade it.
//
// The tables are read from DataPath("growth/...") on first use (once per
// file, thread-safe); a missing or malformed table is a tool error naming the
// file. Every tool is a pure function of its arguments and the immutable
// tables, so the tools are safe to run concurrently.
#ifndef MEDREACT_TOOLS_GROWTH_GROWTH_PACK_H_
#define MEDREACT_TOOLS_GROWTH_GROWTH_PACK_H_

#include <string>
#include <vector>

#include "medreact/status.h"
#include "medreact/tool_registry.h"

namespace medreact {

// Registers every growth tool, or none: fails without registering anything
// when a name is already taken.
Status RegisterGrowthPack(ToolRegistry& registry);

// The names RegisterGrowthPack adds, in registration order.
std::vector<std::string> GrowthPackToolNames();

}  // namespace medreact

#endif  // MEDREACT_TOOLS_GROWTH_GROWTH_PACK_H_
