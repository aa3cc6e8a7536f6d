// Plausibility of a child's measurement, in two layers (used by the growth
// pack's tools):
//
//  1. Physically possible (CheckPhysicallyPossible): a number no human child
//     can measure, e.g. a 7,000 kg infant, is refused with the value, the
//     unit and the likely unit mistake (g vs kg, lb vs kg, mm vs cm, m vs
//     cm). The bounds lie well beyond the most extreme humans on record (see
//     growth_plausibility.cc): they catch unit and typing mistakes, never an
//     unusual child.
//  2. Biologically implausible (CheckBiologicallyPlausible): a possible
//     number whose z-score lies beyond the published cut-offs for
//     biologically implausible values (BIV) of the reference: WHO's on the
//     z-score (WHO Anthro and AnthroPlus), CDC's on the modified z-score (CDC
//     SAS program for the 2000 growth charts). Such a value is returned, but
//     flagged: it is far more often a measurement, unit, age or sex error than
//     a child, and must not be graded.
//
// Pure functions: thread-safe.
#ifndef MEDREACT_TOOLS_GROWTH_GROWTH_PLAUSIBILITY_H_
#define MEDREACT_TOOLS_GROWTH_GROWTH_PLAUSIBILITY_H_

#include <string>
#include <utility>

#include "medreact/status.h"
#include "tools/growth/growth_tables.h"
#include "tools/growth/lms.h"

namespace medreact {

// OK when `value` (in GrowthValueUnit(indicator)) is a finite number a child
// could measure; otherwise InvalidArgument naming `field`, the value, the unit,
// the possible range and what to check.
Status CheckPhysicallyPossible(GrowthIndicator indicator, double value, const std::string& field = "/value");

// The same for a length or height given as the position of
// weight-for-length/height (`field` is "/length_cm" or "/height_cm").
Status CheckPossibleLengthCm(double cm, const std::string& field);

// WHO's BIV limits on the z-score for an indicator: (low, high); a z below
// low or above high is flagged.
std::pair<double, double> WhoBivLimits(GrowthIndicator indicator);

// CDC's BIV limits on the modified z-score for an indicator.
std::pair<double, double> CdcBivLimits(GrowthIndicator indicator);

struct GrowthBiv {
  bool implausible = false;
  std::string direction;   // "low" or "high" when implausible
  std::string statistic;   // "z" (WHO) or "modified z" (CDC)
  double value = 0;        // the statistic's value
  double low = 0;          // the limits it is compared with
  double high = 0;
  std::string source;      // citation of the limits
};

// Compares a measurement's z (WHO) or modified z (CDC, from `measured` and
// `lms`) with the reference's BIV limits.
GrowthBiv CheckBiologicallyPlausible(GrowthReference reference, GrowthIndicator indicator, double z, double measured,
                                     const Lms& lms);

// The citations, for tool descriptions and results.
extern const char* const kWhoBivSource;
extern const char* const kCdcBivSource;

}  // namespace medreact

#endif  // MEDREACT_TOOLS_GROWTH_GROWTH_PLAUSIBILITY_H_
