// Regexes std::regex would take exponential time on (ReDoS): libstdc++'s
// executor backtracks, so a variable repetition applied to something that
// itself repeats ("(a+)+", "(a|b*)*"), stacked repetitions ("a*+", which
// ECMAScript itself rejects but libstdc++ accepts), alternatives under a
// repetition that can begin alike ("(a|ab)*", "([a-z]|x)+"), and huge counts
// ("a{100000}") are refused when the schema is compiled. Found by the schema
// fuzzer: "(a|b)*++++…c{2,6}" ran for minutes on a 20-character string. The
// check is conservative (it may refuse a pattern that would have been fast);
// the message says how to rewrite it.
//
// Pure function: thread-safe.
#ifndef MEDREACT_ENGINE_REGEX_COST_H_
#define MEDREACT_ENGINE_REGEX_COST_H_

#include <string>

namespace medreact {

inline constexpr int kMaxRegexCount = 1000;  // a repetition count or back-reference number

// "" when `pattern` (ECMAScript, as valijson gives it to std::regex) is
// cheap to match; otherwise what makes it costly ("a repetition of a group
// that itself repeats (as in \"(a+)+\")", "a repetition count above 1000", ...).
std::string RegexCostProblem(const std::string& pattern);

}  // namespace medreact

#endif  // MEDREACT_ENGINE_REGEX_COST_H_
