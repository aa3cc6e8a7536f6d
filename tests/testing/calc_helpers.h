// Helpers shared by the calculator tests: run a calculator by name and take
// its value, its text answer or its error message.
#ifndef MEDREACT_TESTS_TESTING_CALC_HELPERS_H_
#define MEDREACT_TESTS_TESTING_CALC_HELPERS_H_

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tools/calc/calculator.h"

namespace medreact::calc::test_util {

inline Result<Json> RunCalc(const std::string& name, const Json& args) {
  const Calculator* c = FindCalculator(name);
  if (c == nullptr) return Status::NotFound("no calculator " + name);
  return RunCalculator(*c, args);
}

// The numeric value; NAN (and a test failure) when the calculator fails.
inline double Value(const std::string& name, const Json& args) {
  Result<Json> r = RunCalc(name, args);
  EXPECT_TRUE(r.ok()) << name << ": " << r.status().ToString();
  return r.ok() ? (*r)["value"].get<double>() : NAN;
}

// A text answer (dates, gestational age); "" (and a failure) on error.
inline std::string Text(const std::string& name, const Json& args) {
  Result<Json> r = RunCalc(name, args);
  EXPECT_TRUE(r.ok()) << name << ": " << r.status().ToString();
  return r.ok() ? (*r)["value"].get<std::string>() : "";
}

// The error message, or "(ok)" when the calculator succeeded.
inline std::string Error(const std::string& name, const Json& args) {
  Result<Json> r = RunCalc(name, args);
  return r.ok() ? std::string("(ok)") : r.status().message();
}

// A measurement with its unit: {"value": v, "unit": u}.
inline Json Q(double value, const std::string& unit) { return {{"value", value}, {"unit", unit}}; }

}  // namespace medreact::calc::test_util

#endif  // MEDREACT_TESTS_TESTING_CALC_HELPERS_H_
