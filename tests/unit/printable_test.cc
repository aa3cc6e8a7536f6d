// The one escaping rule for outside text on a terminal (medreact/json.h
// and core/printable.h: Printable, PrintableLine, Preview), as a class of input: every C0 control,
// DEL, every C1 control, the bidirectional overrides and isolates, the line
// separators and bytes that are not UTF-8, each in a body and in a line; text
// that is only text passes unchanged; JSON printed through it stays the same
// JSON. The printers that use it: tests/integration/terminal_escapes_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "core/printable.h"
#include "medreact/json.h"
#include "testing/terminal_text.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using testing::HasTerminalControl;

// One of each kind a hostile server or model has been seen to send.
std::string Hostile() {
  std::string s = "clear\x1b[2J title\x1b]0;pwned\x07 nul";
  s += '\0';
  s += " cr\rforged line\r\nreal? del\x7f c1\xc2\x9b" "31m csi8\x9b" "31m rlo\xe2\x80\xae" "gnp.exe lri\xe2\x81\xa6"
       "x\xe2\x81\xa9 ls\xe2\x80\xa8 end";
  return s;
}

TEST(PrintableTest, EveryControlIsEscapedInABodyAndNewlinesAndTabsKept) {
  const std::string body = Printable(Hostile() + "\nsecond\tline");
  EXPECT_FALSE(HasTerminalControl(body, /*newlines_allowed=*/true)) << body;
  EXPECT_THAT(body, HasSubstr("clear\\x1b[2J"));
  EXPECT_THAT(body, HasSubstr("title\\x1b]0;pwned\\x07"));
  EXPECT_THAT(body, HasSubstr("nul\\x00"));
  EXPECT_THAT(body, HasSubstr("cr\\x0dforged line\\x0d\nreal?"));
  EXPECT_THAT(body, HasSubstr("del\\u007f"));
  EXPECT_THAT(body, HasSubstr("c1\\u009b31m"));
  EXPECT_THAT(body, HasSubstr("csi8\\x9b31m"));
  EXPECT_THAT(body, HasSubstr("rlo\\u202egnp.exe"));
  EXPECT_THAT(body, HasSubstr("lri\\u2066x\\u2069"));
  EXPECT_THAT(body, HasSubstr("ls\\u2028 end"));
  EXPECT_THAT(body, HasSubstr("\nsecond\tline"));
}

TEST(PrintableTest, ALineEscapesNewlinesAndTabsToo) {
  const std::string line = PrintableLine(Hostile() + "\nsecond\tline");
  EXPECT_FALSE(HasTerminalControl(line, /*newlines_allowed=*/false)) << line;
  EXPECT_THAT(line, HasSubstr("\\x0d\\x0areal?"));
  EXPECT_THAT(line, HasSubstr("\\x0asecond\\x09line"));
  EXPECT_EQ(PrintableLine("img1"), "img1");
}

TEST(PrintableTest, EveryByteValueAloneIsEscapedOrItself) {
  for (int b = 0; b < 256; ++b) {
    const std::string one(1, static_cast<char>(b));
    const std::string line = PrintableLine(one);
    EXPECT_FALSE(HasTerminalControl(line, false)) << b;
    if (b >= 0x20 && b < 0x7f) {
      EXPECT_EQ(line, one) << b;
    }
  }
  for (unsigned cp = 0x80; cp <= 0x9f; ++cp) {  // every C1 control, UTF-8 encoded
    const std::string c1 = {static_cast<char>(0xc2), static_cast<char>(cp)};
    EXPECT_FALSE(HasTerminalControl(Printable(c1), true)) << cp;
  }
  for (unsigned low : {0xaa, 0xab, 0xac, 0xad, 0xae}) {  // U+202A-U+202E
    const std::string bidi = {static_cast<char>(0xe2), static_cast<char>(0x80), static_cast<char>(low)};
    EXPECT_EQ(Printable(bidi).substr(0, 4), "\\u20") << low;
  }
}

TEST(PrintableTest, TextThatIsOnlyTextIsUnchanged) {
  for (const char* text : {"Cardiomegaly: probability 0.58", "Müller, Zoë — 37,5 °C", "心脏扩大 😀",
                           "right-to-left: עברית", "a\\x1b literal backslash"}) {
    EXPECT_EQ(Printable(text), text);
    EXPECT_EQ(PrintableLine(text), text);
  }
}

TEST(PrintableTest, JsonPrintedAsABodyIsTheSameJson) {
  std::string answer = Hostile();
  answer.erase(answer.find("csi8"), 9);  // JSON text is UTF-8: DumpJson replaces a stray byte
  const Json value = {{"answer", answer}, {"labels", Json::array({"rlo\xe2\x80\xae", "del\x7f"})}, {"n", 1}};
  const std::string printed = Printable(DumpJson(value, 2));
  EXPECT_FALSE(HasTerminalControl(printed, /*newlines_allowed=*/true)) << printed;
  Result<Json> parsed = ParseJson(printed);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString() << "\n" << printed;
  EXPECT_EQ(*parsed, value);
}

TEST(PrintableTest, PreviewIsOneLineByTheSameRuleAndCutsWholeCharacters) {
  const std::string preview = Preview(Hostile(), 1000);
  EXPECT_FALSE(HasTerminalControl(preview, /*newlines_allowed=*/false)) << preview;
  EXPECT_THAT(preview, HasSubstr("rlo\\u202egnp.exe"));
  EXPECT_EQ(Preview("a\nb\tc\rd"), "a b c d");
  const std::string cut = Preview("ab\xe2\x80\xae" "cd", 3);  // the override is escaped, never cut in half
  EXPECT_FALSE(HasTerminalControl(cut, false)) << cut;
  EXPECT_EQ(Preview(std::string(10, 'x') + "\xc3\xa9", 10), std::string(10, 'x') + "...");
}

}  // namespace
}  // namespace medreact
