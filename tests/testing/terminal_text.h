// What a terminal would act on in text a test saw printed: the checker the
// escaping tests share (the rule: src/core/printable.h).
#ifndef MEDREACT_TESTS_TESTING_TERMINAL_TEXT_H_
#define MEDREACT_TESTS_TESTING_TERMINAL_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace medreact::testing {

// Whether `text` holds a control a terminal acts on: a C0 control (newline and
// tab allowed when `newlines_allowed`), DEL, a C1 control, a bidirectional
// override or isolate, a line or paragraph separator, or a byte that is not
// UTF-8 (an 8-bit terminal reads a lone 0x9b as CSI).
inline bool HasTerminalControl(const std::string& text, bool newlines_allowed) {
  for (size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      if (b == 0x7f || (b < 0x20 && !(newlines_allowed && (b == '\n' || b == '\t')))) return true;
      ++i;
      continue;
    }
    const size_t n = b >= 0xf5 ? 0 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 ? 2 : 0;
    if (n == 0 || i + n > text.size()) return true;
    uint32_t cp = b & (0x7f >> n);
    for (size_t k = 1; k < n; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xc0) != 0x80) return true;
      cp = (cp << 6) | (c & 0x3f);
    }
    if ((cp >= 0x80 && cp <= 0x9f) || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) return true;
    i += n;
  }
  return false;
}

// One of each kind a hostile server or model sends, all valid UTF-8 (JSON
// carries it): clear screen, a window title (OSC), NUL, CR LF forging a line,
// DEL, a C1 CSI, a right-to-left override and an isolate.
inline std::string HostileText() {
  std::string s = "clear\x1b[2J title\x1b]0;pwned\x07 nul";
  s += '\0';
  s += " cr\r\nmedreact: forged line del\x7f c1\xc2\x9b" "31m rlo\xe2\x80\xae" "gnp.exe lri\xe2\x81\xa6"
       "x\xe2\x81\xa9 end";
  return s;
}

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_TERMINAL_TEXT_H_
