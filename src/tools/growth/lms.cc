// LMS transform, WHO restricted tails, Phi and Phi^-1.
//
// Phi^-1 starts from P. J. Acklam's rational approximation ("An algorithm for
// computing the inverse normal cumulative distribution function", 2003;
// relative error < 1.15e-9) and polishes it with Halley's method on
// Phi(x) - p computed through std::erfc, which converges cubically: one step
// reaches double precision, a second is a guard. The upper half is computed
// as -Phi^-1(1 - p), exact in floating point for p >= 0.5, so that the
// residual is evaluated where erfc has full relative accuracy.
#include "tools/growth/lms.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace medreact {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Acklam's coefficients.
constexpr double kA[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                         1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
constexpr double kB[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                         6.680131188771972e+01, -1.328068155288572e+01};
constexpr double kC[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                         -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
constexpr double kD[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                         3.754408661907416e+00};
constexpr double kLowBreak = 0.02425;

// Acklam's initial estimate for 0 < p <= 0.5.
double AcklamLowerHalf(double p) {
  if (p < kLowBreak) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((kC[0] * q + kC[1]) * q + kC[2]) * q + kC[3]) * q + kC[4]) * q + kC[5]) /
           ((((kD[0] * q + kD[1]) * q + kD[2]) * q + kD[3]) * q + 1);
  }
  const double q = p - 0.5;
  const double r = q * q;
  return (((((kA[0] * r + kA[1]) * r + kA[2]) * r + kA[3]) * r + kA[4]) * r + kA[5]) * q /
         (((((kB[0] * r + kB[1]) * r + kB[2]) * r + kB[3]) * r + kB[4]) * r + 1);
}

}  // namespace

double LmsZ(double x, const Lms& lms) {
  const double log_ratio = std::log(x / lms.m);
  if (lms.l == 0) return log_ratio / lms.s;
  return std::expm1(lms.l * log_ratio) / (lms.l * lms.s);
}

double LmsValue(double z, const Lms& lms) {
  if (lms.l == 0) return lms.m * std::exp(lms.s * z);
  const double lsz = lms.l * lms.s * z;
  if (!(lsz > -1)) return kNaN;
  return lms.m * std::exp(std::log1p(lsz) / lms.l);
}

double WhoRestrictedZ(double x, const Lms& lms) {
  const double z = LmsZ(x, lms);
  if (z > 3) {
    const double sd3 = LmsValue(3, lms);
    return 3 + (x - sd3) / (sd3 - LmsValue(2, lms));
  }
  if (z < -3) {
    const double sd3 = LmsValue(-3, lms);
    return -3 + (x - sd3) / (LmsValue(-2, lms) - sd3);
  }
  return z;
}

double CdcModifiedZ(double x, const Lms& lms) {
  const double half_sd = x >= lms.m ? (LmsValue(2, lms) - lms.m) / 2 : (lms.m - LmsValue(-2, lms)) / 2;
  return (x - lms.m) / half_sd;
}

double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

double NormalQuantile(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return kNaN;
  if (p == 0) return -kInf;
  if (p == 1) return kInf;
  if (p > 0.5) return -NormalQuantile(1 - p);
  double x = AcklamLowerHalf(p);
  for (int step = 0; step < 2; ++step) {
    // Halley: x -= u / (1 + x*u/2), u = (Phi(x) - p) / phi(x).
    const double error = NormalCdf(x) - p;
    const double u = error * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
    if (!std::isfinite(u)) break;  // p below ~1e-300: the density underflows
    x -= u / (1 + x * u / 2);
  }
  return x;
}

}  // namespace medreact
