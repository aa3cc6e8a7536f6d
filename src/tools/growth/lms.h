// LMS arithmetic for growth references: z-scores from a measurement and a
// table row's (L, M, S), the inverse (the measurement at a given z), WHO's
// restricted application of the LMS method beyond |z| > 3, and the standard
// normal distribution function and its exact inverse.
//
// Sources: Cole TJ, Green PJ. Smoothing reference centile curves: the LMS
// method and penalized likelihood. Stat Med 1992;11:1305-19 (the LMS
// transform); WHO Multicentre Growth Reference Study Group. WHO Child Growth
// Standards: Methods and development. Geneva: WHO, 2006, chapter 7
// "Computation of centiles and z-scores" (the restricted tails, used for
// weight-based indicators).
//
// Pure functions of their arguments: thread-safe.
#ifndef MEDREACT_TOOLS_GROWTH_LMS_H_
#define MEDREACT_TOOLS_GROWTH_LMS_H_

namespace medreact {

// One row's Box-Cox power L, median M and coefficient of variation S.
struct Lms {
  double l = 1;
  double m = 0;
  double s = 0;
};

// z = ((X/M)^L - 1) / (L*S), or ln(X/M)/S when L = 0 (computed with expm1 so
// that it is accurate for L near 0 too).
// REQUIRES: x > 0, lms.m > 0, lms.s > 0.
double LmsZ(double x, const Lms& lms);

// The measurement at z: M * (1 + L*S*z)^(1/L), or M*exp(S*z) when L = 0
// (computed with log1p, accurate for L near 0 too). NaN when 1 + L*S*z <= 0
// (no such measurement exists).
double LmsValue(double z, const Lms& lms);

// WHO 2006 restricted tails: plain LMS within [-3, 3]; beyond, the distance
// between the SD2 and SD3 curves is the unit, so the z-score grows linearly
// with the measurement:
//   z =  3 + (X - SD3pos) / (SD3pos - SD2pos)   when LMS z >  3
//   z = -3 + (X - SD3neg) / (SD2neg - SD3neg)   when LMS z < -3
// with SDk = LmsValue(k). REQUIRES as for LmsZ.
double WhoRestrictedZ(double x, const Lms& lms);

// CDC's modified z-score, used to flag biologically implausible values: the
// distance from the median in units of half the distance between the median
// and the z = +2 value (above the median) or the z = -2 value (below):
//   modified z = (X - M) / ((SD2pos - M) / 2)   when X >= M
//   modified z = (X - M) / ((M - SD2neg) / 2)   when X <  M
// Source: CDC, Modified z-scores in the CDC growth charts; the CDC SAS program
// for the 2000 growth charts. NaN when the SD2 value does not exist.
// REQUIRES as for LmsZ.
double CdcModifiedZ(double x, const Lms& lms);

// Phi(z), the standard normal distribution function, via std::erfc (accurate
// to a few ulps relative in both tails).
double NormalCdf(double z);

// Phi^-1(p) for 0 < p < 1: Acklam's rational approximation refined by Halley
// steps on std::erfc, accurate to ~1e-15 relative. -inf at 0, +inf at 1, NaN
// outside [0, 1] or for NaN.
double NormalQuantile(double p);

}  // namespace medreact

#endif  // MEDREACT_TOOLS_GROWTH_LMS_H_
