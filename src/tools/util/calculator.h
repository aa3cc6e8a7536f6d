// Calculator: a safe arithmetic evaluator for the util pack's `calculator`
// tool.
//
// A hand-written recursive-descent parser that evaluates as it parses; no
// eval, no external processes, no allocation beyond the token list. Grammar,
// loosest binding first:
//
//   expression := term (('+' | '-') term)*
//   term       := unary (('*' | '/' | '%') unary)*
//   unary      := ('+' | '-') unary | power
//   power      := primary (('^' | '**') unary)?      right-associative
//   primary    := number | constant | function '(' args ')' | '(' expression ')'
//
// So unary minus binds looser than power, as in mathematics and Python:
// -2^2 = -(2^2) = -4, while 2^-1 = 0.5 and 2^3^2 = 2^9 = 512. '%' is the C
// remainder (sign of the dividend). Names are case-insensitive. Nesting
// (parentheses, function calls, signs, exponents) is limited to
// kMaxExpressionDepth levels. Every error is an InvalidArgument whose message
// names the problem and its 1-based character position. Pure and thread-safe.
#ifndef MEDREACT_TOOLS_UTIL_CALCULATOR_H_
#define MEDREACT_TOOLS_UTIL_CALCULATOR_H_

#include <string>
#include <string_view>
#include <vector>

#include "medreact/json.h"
#include "medreact/status.h"

namespace medreact {

inline constexpr int kMaxExpressionDepth = 100;

// Evaluates `expression`; the result is always finite.
Result<double> EvaluateExpression(std::string_view expression);

// The result as the tool reports it: a JSON integer, exact, when it is a whole
// number a double represents exactly (|x| <= 2^53); otherwise rounded to 15
// significant digits (so 0.1+0.2 gives 0.3, and 0.1*3*10 gives the integer 3).
Json CalculatorResultJson(double value);

// The functions EvaluateExpression knows, sorted.
std::vector<std::string> CalculatorFunctionNames();

}  // namespace medreact

#endif  // MEDREACT_TOOLS_UTIL_CALCULATOR_H_
