// A parser for Python literals (the `repr` of dicts, lists and scalars) into
// Json, for datasets that store structured fields as Python rather than JSON,
// such as MedCalc-Bench's "Relevant Entities":
//
//   {'age': [45, 'years'], 'Hypertension history': True, 'sex': 'Female'}
//
// Accepted: dict {k: v}, list [..], tuple (..) (incl. (x,) and ()), set {a, b},
// strings in single, double or triple quotes with an optional r/u/b prefix and
// Python escapes (\n \t \\ \' \" \xhh \uXXXX \UXXXXXXXX, octal), adjacent
// strings concatenated, int (with _ separators, 0x/0o/0b), float (with
// exponent; inf/nan are not literals), unary + and -, True/False/None, trailing
// commas, comments (#). Tuples and sets become JSON arrays; dict keys that are
// not strings become their text (1 → "1", True → "True"); a repeated key keeps
// the last value, as Python does. Integers beyond 64 bits become doubles.
//
// Errors (ParseError) give the byte offset and what was expected, e.g.
// "offset 14: expected ':' after a dict key, found ','". Pure function;
// nesting is limited to 200 levels.
#ifndef MEDREACT_EVAL_PY_LITERAL_H_
#define MEDREACT_EVAL_PY_LITERAL_H_

#include <string_view>

#include "medreact/json.h"
#include "medreact/status.h"

namespace medreact::eval {

Result<Json> ParsePyLiteral(std::string_view text);

}  // namespace medreact::eval

#endif  // MEDREACT_EVAL_PY_LITERAL_H_
