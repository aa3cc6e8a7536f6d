// Physical bounds and biologically-implausible-value (BIV) flags for the
// growth tools. See growth_plausibility.h for the two layers.
#include "tools/growth/growth_plausibility.h"

#include <cmath>
#include <cstdio>
#include <tuple>

namespace medreact {
namespace {

// Physically possible measurements of a child (birth to 20 years). Not
// clinical thresholds: each bound lies well beyond the most extreme humans on
// record, so only a wrong unit, a typo or a wrong field falls outside.
//   weight  0.1-700 kg   smallest surviving newborns about 0.21-0.25 kg (The
//                        Tiniest Babies Registry, University of Iowa); the
//                        heaviest person recorded about 635 kg (Jon Brower
//                        Minnoch, Guinness World Records)
//   length  15-280 cm    smallest surviving newborns about 24 cm long (same
//                        registry); the tallest person recorded 272 cm
//                        (Robert Wadlow, Guinness World Records)
//   head    10-120 cm    extremely preterm newborns about 17-20 cm; extreme
//                        untreated hydrocephalus reported near 90 cm
//   BMI     2-250 kg/m2  0.21 kg at 24 cm is 3.7; the heaviest person
//                        recorded about 186 (635 kg at about 1.85 m)
struct PhysicalRange {
  const char* what;
  const char* unit;
  double low;
  double high;
};

constexpr PhysicalRange kWeight = {"weight", "kg", 0.1, 700};
constexpr PhysicalRange kLength = {"length or height", "cm", 15, 280};
constexpr PhysicalRange kHead = {"head circumference", "cm", 10, 120};
constexpr PhysicalRange kBmi = {"BMI", "kg/m2", 2, 250};

const PhysicalRange& RangeFor(GrowthIndicator indicator) {
  switch (indicator) {
    case GrowthIndicator::kLengthForAge:
    case GrowthIndicator::kHeightForAge: return kLength;
    case GrowthIndicator::kHeadCircumferenceForAge: return kHead;
    case GrowthIndicator::kBmiForAge: return kBmi;
    default: return kWeight;
  }
}

std::string Num(double value) {
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  return buffer;
}

bool Within(const PhysicalRange& range, double value) { return value >= range.low && value <= range.high; }

// The unit mistakes that would explain `value`, most likely first.
std::string UnitHint(const PhysicalRange& range, double value) {
  const bool high = value > range.high;
  if (&range == &kWeight) {
    std::string hint;
    if (high && Within(range, value / 1000)) hint = "It looks like grams: " + Num(value) + " g = " + Num(value / 1000) + " kg. ";
    return hint + "Weight must be in kilograms: grams / 1000, pounds / 2.2046; also check the decimal point";
  }
  if (&range == &kBmi) {
    return std::string(high ? "Check that the weight was in kg (not g or lb)"
                            : "Check that the height was in metres (a height in cm gives a BMI 10,000 times too "
                              "small)") +
           ": BMI = weight in kg / (height in m)^2";
  }
  std::string hint;
  if (high && Within(range, value / 10)) hint = "It looks like millimetres: " + Num(value) + " mm = " + Num(value / 10) + " cm. ";
  if (!high && Within(range, value * 100)) hint = "It looks like metres: " + Num(value) + " m = " + Num(value * 100) + " cm. ";
  return hint + "The " + range.what + " must be in centimetres: mm / 10, m x 100, inches x 2.54; also check the "
                                      "decimal point";
}

Status Impossible(const PhysicalRange& range, double value, const std::string& field) {
  return Status::InvalidArgument(field + " " + Num(value) + " " + range.unit + " is not a possible " + range.what +
                                 " for a child (possible: " + Num(range.low) + " to " + Num(range.high) + " " +
                                 range.unit + "). " + UnitHint(range, value) + ".");
}

}  // namespace

const char* const kWhoBivSource =
    "WHO Anthro (version 3.2.2, 2011) and WHO AnthroPlus (2009) software manuals, Geneva: WHO; flags for "
    "biologically implausible z-scores: weight-for-age < -6 or > +5, length/height-for-age < -6 or > +6, "
    "weight-for-length/height, BMI-for-age and head circumference-for-age < -5 or > +5";
const char* const kCdcBivSource =
    "CDC, A SAS Program for the 2000 CDC Growth Charts (ages 0 to <20 years): biologically implausible values on "
    "modified z-scores, weight-for-age < -5 or > +8, length/height-for-age < -5 or > +4, weight-for-length/"
    "height and BMI-for-age < -4 or > +8, head circumference-for-age < -5 or > +5; modified z as in CDC, "
    "Modified z-scores in the CDC growth charts";

Status CheckPhysicallyPossible(GrowthIndicator indicator, double value, const std::string& field) {
  const PhysicalRange& range = RangeFor(indicator);
  if (!std::isfinite(value)) {
    return Status::InvalidArgument(field + " must be a finite number (the " + range.what + " in " + range.unit +
                                   "), got " + Num(value));
  }
  return Within(range, value) ? Status::OK() : Impossible(range, value, field);
}

Status CheckPossibleLengthCm(double cm, const std::string& field) {
  if (!std::isfinite(cm)) return Status::InvalidArgument(field + " must be a finite number of cm, got " + Num(cm));
  return Within(kLength, cm) ? Status::OK() : Impossible(kLength, cm, field);
}

std::pair<double, double> WhoBivLimits(GrowthIndicator indicator) {
  switch (indicator) {
    case GrowthIndicator::kWeightForAge: return {-6.0, 5.0};
    case GrowthIndicator::kLengthForAge:
    case GrowthIndicator::kHeightForAge: return {-6.0, 6.0};
    default: return {-5.0, 5.0};
  }
}

std::pair<double, double> CdcBivLimits(GrowthIndicator indicator) {
  switch (indicator) {
    case GrowthIndicator::kWeightForAge: return {-5.0, 8.0};
    case GrowthIndicator::kLengthForAge:
    case GrowthIndicator::kHeightForAge: return {-5.0, 4.0};
    case GrowthIndicator::kHeadCircumferenceForAge: return {-5.0, 5.0};
    default: return {-4.0, 8.0};  // BMI-for-age, weight-for-length/height
  }
}

GrowthBiv CheckBiologicallyPlausible(GrowthReference reference, GrowthIndicator indicator, double z, double measured,
                                     const Lms& lms) {
  GrowthBiv biv;
  if (reference == GrowthReference::kWho) {
    std::tie(biv.low, biv.high) = WhoBivLimits(indicator);
    biv.statistic = "z";
    biv.value = z;
    biv.source = kWhoBivSource;
  } else {
    std::tie(biv.low, biv.high) = CdcBivLimits(indicator);
    biv.statistic = "modified z";
    biv.value = CdcModifiedZ(measured, lms);
    if (!std::isfinite(biv.value)) biv.value = z;  // no ±2 SD value exists: fall back to z
    biv.source = kCdcBivSource;
  }
  if (biv.value < biv.low) biv.direction = "low";
  if (biv.value > biv.high) biv.direction = "high";
  biv.implausible = !biv.direction.empty();
  return biv;
}

}  // namespace medreact
