// Text from outside (a file, a server, a model, a tool, a store) on a
// terminal: one rule, in one function, for every printer of every command, so
// that no text can drive the terminal it is printed on (clear it, retitle the
// window, forge an output line, reorder what follows):
//
//   - C0 control bytes (ESC, NUL, CR, BEL, ...) are shown as \x1b, \x00, ...;
//   - DEL, the C1 controls U+0080-U+009F, the bidirectional overrides and
//     isolates U+202A-U+202E and U+2066-U+2069, and the line and paragraph
//     separators U+2028/U+2029 are shown as \u007f, \u009b, \u202e, ...;
//   - bytes that are not UTF-8 are shown as \xNN (to an 8-bit terminal a
//     lone 0x9b is CSI);
//   - a newline and a tab are kept in a body (an answer, a report, JSON: its
//     several lines are its own) and shown as \x0a and \x09 in a line (a
//     name, a label, a status, an error: one field of one line).
//
// Printable(text) (medreact/json.h) is the body form; Preview is the line
// form shortened, with newlines, CR and tabs as spaces. JSON text (DumpJson)
// printed as a body stays valid JSON meaning the same: the only characters it
// can hold that are escaped here are inside its strings, where \u.... is
// their own escape. Files are written as they are; this is for stdout and
// stderr. Thread-safe (pure functions).
#ifndef MEDREACT_CORE_PRINTABLE_H_
#define MEDREACT_CORE_PRINTABLE_H_

#include <string>
#include <string_view>

#include "medreact/json.h"

namespace medreact {

enum class TextShape { kBody, kLine };

// `text` whole, escaped by the rule above for its shape.
std::string Printable(std::string_view text, TextShape shape);

// Printable(text, TextShape::kLine): a single-line field.
std::string PrintableLine(std::string_view text);

}  // namespace medreact

#endif  // MEDREACT_CORE_PRINTABLE_H_
