// JSON repair for small models' output: one lexer, two passes of use.
//
// The rule (issue 23, item 8): never a silently wrong value. A repair recovers
// the value a reader of the text sees, or the input is refused saying why
// ("could not read JSON without guessing: ..."); docs/reliability.md lists the
// classes and tests/fixtures/json_repair/peer_cases.json a corpus of real
// breakage with a verdict for each case.
//
// StripJsonDecoration finds the JSON inside a reply (the first top-level fenced
// block holding a plausible JSON start, else the whole text; then the first '{'
// or '[' that really looks like JSON, or a Python tuple that is the whole reply,
// up to its balanced end). RepairJson is a single-pass scanner that copies
// valid JSON through byte for byte and fixes, as it goes, only what has one
// plausible meaning: Python literals and tuples, single and curly quotes,
// comments, trailing or doubled commas, unquoted keys and bare-word values
// (120/80 too), missing commas between values, raw control characters in
// strings, paired unescaped inner quotes, and truncation (an unterminated
// string, literal or number, a dangling key, and the open brackets are closed
// in order). What has two readings (an unpaired inner quote, a key with no
// value before its object closes, JSON continuing after the value closed) is
// refused. Both passes share FindStringEnd, whose rule for "this quote closes
// the string" (it is followed by , : } ] a quote, a comment, a fence, a newline
// or the end) never misreads valid JSON. Everything is linear in the input
// size: each byte is looked at a bounded number of times.
#include "medreact/json_repair.h"
#include "core/text_util.h"
#include "llm/json_duplicate_keys.h"

#include <optional>
#include <vector>

namespace medreact {
namespace {

constexpr size_t kNpos = std::string_view::npos;
// Curly double quotes (U+201C, U+201D), which chat front ends and word
// processors put in place of '"'.
constexpr std::string_view kOpenCurly = "\xE2\x80\x9C";
constexpr std::string_view kCloseCurly = "\xE2\x80\x9D";

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsWordStart(char c) { return IsAlpha(c) || c == '_' || c == '$'; }
bool IsWordChar(char c) { return IsWordStart(c) || IsDigit(c) || c == '-' || c == '.'; }
bool IsNumberChar(char c) {
  return IsDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// True when the quote at s[i] ends the string it is in: what follows (after
// spaces) is structural, another string, a comment, a fence, a line break or
// the end. ')' is structural only in a tuple: in prose it follows quotes
// ("[LINK]("https://x")").
bool QuoteClosesString(std::string_view s, size_t i, bool in_tuple) {
  size_t j = i + 1;
  while (j < s.size() && IsSpace(s[j])) {
    if (s[j] == '\n') return true;
    ++j;
  }
  if (j == s.size()) return true;
  const char c = s[j];
  if (c == ',' || c == ':' || c == '}' || c == ']' || c == '"' || c == '\'') return true;
  if (c == ')' && in_tuple) return true;
  if (s.substr(j).starts_with("```")) return true;  // the reply's closing fence
  return c == '/' && j + 1 < s.size() && (s[j + 1] == '/' || s[j + 1] == '*');
}

// Index of the quote closing the string opened at s[open], or kNpos when the
// string runs to the end of the input (truncated).
size_t FindStringEnd(std::string_view s, size_t open, bool in_tuple = false) {
  const char quote = s[open];
  for (size_t i = open + 1; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\\') {
      ++i;
    } else if (c == quote && QuoteClosesString(s, i, in_tuple)) {
      return i;
    }
  }
  return kNpos;
}

// Index just past a comment starting at s[i] ("//" or "/*"), or kNpos if
// s[i] does not start one.
size_t CommentEnd(std::string_view s, size_t i) {
  if (s[i] != '/' || i + 1 >= s.size()) return kNpos;
  if (s[i + 1] == '/') {
    const size_t nl = s.find('\n', i + 2);
    return nl == kNpos ? s.size() : nl;
  }
  if (s[i + 1] == '*') {
    const size_t close = s.find("*/", i + 2);
    return close == kNpos ? s.size() : close + 2;
  }
  return kNpos;
}

// "true"/"false"/"null" for JSON, Python and JavaScript spellings.
std::optional<std::string_view> LiteralFor(std::string_view word) {
  if (word == "true" || word == "True" || word == "TRUE") return "true";
  if (word == "false" || word == "False" || word == "FALSE") return "false";
  if (word == "null" || word == "Null" || word == "None" || word == "NULL" || word == "nil" ||
      word == "undefined" || word == "NaN" || word == "Infinity") {
    return "null";
  }
  return std::nullopt;
}

// A literal cut off by truncation ("tr", "Fals", "n") completed.
std::optional<std::string_view> CompletedLiteral(std::string_view word) {
  static constexpr std::string_view kFull[][2] = {{"true", "true"},   {"True", "true"},
                                                  {"false", "false"}, {"False", "false"},
                                                  {"null", "null"},   {"None", "null"}};
  for (const auto& pair : kFull) {
    if (!word.empty() && pair[0].starts_with(word)) return pair[1];
  }
  return std::nullopt;
}

// True if the '{' or '[' at s[i] plausibly opens JSON rather than prose such
// as "[reasoning]", "[see note]" or "{name}".
bool LooksLikeJsonStart(std::string_view s, size_t i) {
  size_t j = i + 1;
  while (j < s.size() && IsSpace(s[j])) ++j;
  if (j == s.size()) return true;  // truncated right after the bracket
  const char c = s[j];
  if (s[i] == '{') {
    if (c == '"' || c == '\'' || c == '}' || s.substr(j).starts_with(kOpenCurly)) return true;
    if (!IsWordStart(c) && !IsDigit(c)) return false;
    size_t k = j;
    while (k < s.size() && IsWordChar(s[k])) ++k;
    while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
    return k == s.size() || s[k] == ':';  // an unquoted key
  }
  if (c == '"' || c == '\'' || c == '{' || c == '[' || c == ']' || c == '-' || IsDigit(c)) {
    return true;
  }
  if (!IsWordStart(c)) return false;
  size_t k = j;
  while (k < s.size() && IsWordChar(s[k])) ++k;
  if (!LiteralFor(s.substr(j, k - j))) return false;
  while (k < s.size() && IsSpace(s[k])) ++k;
  return k == s.size() || s[k] == ',' || s[k] == ']';
}

// A Python tuple counts only when it is all there is ("(1, 2)", "((1, 2), (3, 4))"):
// a '(' further in is prose far more often than data.
bool LooksLikeTupleStart(std::string_view s, size_t i) {
  size_t j = i;
  while (j < s.size() && s[j] == '(') ++j;
  while (j < s.size() && IsSpace(s[j])) ++j;
  if (j == s.size()) return false;
  const char c = s[j];
  return c == '"' || c == '\'' || c == ')' || c == '[' || c == '{' || c == '-' || IsDigit(c);
}

size_t FindJsonStart(std::string_view s) {
  size_t first = 0;
  while (first < s.size() && IsSpace(s[first])) ++first;
  if (first < s.size() && s[first] == '(' && LooksLikeTupleStart(s, first)) return first;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((s[i] == '{' || s[i] == '[') && LooksLikeJsonStart(s, i)) return i;
  }
  return kNpos;
}

// Index just past the bracket balancing the one at s[start], or kNpos if the
// input ends first. Bracket kinds are not matched here; RepairJson does that.
size_t BalancedEnd(std::string_view s, size_t start) {
  const bool tuple = s[start] == '(';  // parentheses count only in a tuple
  int depth = 0;
  for (size_t i = start; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"' || c == '\'') {
      i = FindStringEnd(s, i, tuple);
      if (i == kNpos) return kNpos;
    } else if (c == '/') {
      const size_t end = CommentEnd(s, i);
      if (end != kNpos) i = end - 1;
    } else if (c == '{' || c == '[' || (tuple && c == '(')) {
      ++depth;
    } else if (c == '}' || c == ']' || (tuple && c == ')')) {
      if (--depth == 0) return i + 1;
    }
  }
  return kNpos;
}

// True when the fence at text[pos] is at the top level of the reply, not
// inside a JSON value begun before it (a string that quotes a fenced block):
// every JSON start before it closes before it.
bool FenceAtTopLevel(std::string_view text, size_t pos) {
  size_t from = 0;
  while (from < pos) {
    const size_t start = FindJsonStart(text.substr(from, pos - from));
    if (start == kNpos) return true;
    const size_t end = BalancedEnd(text, from + start);
    if (end == kNpos || end > pos) return false;
    from = end;
  }
  return true;
}

// Where the JSON is: the body of the first top-level ``` fence that holds a
// JSON start, else all of text. `several` is set when a second such fence
// holds JSON too: which one is meant is then a guess.
struct Region {
  std::string_view text;
  bool several = false;
};

Region JsonRegion(std::string_view text) {
  // Bounded so that text made of fences stays linear.
  constexpr int kMaxFences = 16;
  std::optional<std::string_view> found;
  size_t pos = 0;
  for (int fences = 0; fences < kMaxFences && (pos = text.find("```", pos)) != kNpos; ++fences) {
    size_t body = pos + 3;
    while (body < text.size() && (IsWordChar(text[body]) || text[body] == '+')) ++body;  // tag
    const size_t close = text.find("```", body);
    const size_t body_end = close == kNpos ? text.size() : close;
    const std::string_view region = text.substr(body, body_end - body);
    if (FindJsonStart(region) != kNpos && FenceAtTopLevel(text, pos)) {
      if (found) return Region{*found, true};
      found = region;
    }
    if (close == kNpos) break;
    pos = close + 3;
  }
  return Region{found.value_or(text), false};
}

// The first JSON value's text in a region and what follows it there.
struct Extracted {
  std::string_view json;  // empty when there is no JSON start
  std::string_view rest;  // after a balanced value; empty when truncated
  bool several_fences = false;
};

Extracted ExtractJson(std::string_view text) {
  const Region region = JsonRegion(text);
  Extracted out;
  out.several_fences = region.several;
  const size_t start = FindJsonStart(region.text);
  if (start == kNpos) return out;
  const size_t end = BalancedEnd(region.text, start);
  if (end == kNpos) {
    out.json = TrimRightView(region.text.substr(start));
  } else {
    out.json = region.text.substr(start, end - start);
    out.rest = region.text.substr(end);
  }
  return out;
}

// Why the text after a complete value makes the value doubtful, or null when
// it is prose. A comma, colon, closing bracket or quote there means the value was
// closed early (its remaining keys follow); another '{' or '[' means several
// values, of which any pick would be a guess.
const char* TrailingJsonReason(std::string_view rest) {
  size_t i = 0;
  while (i < rest.size() && IsSpace(rest[i])) ++i;
  if (i == rest.size()) return nullptr;
  const char c = rest[i];
  if (c == ',' || c == ':' || c == '}' || c == ']' || c == '"') {
    return "the value closes early: JSON continues after it";
  }
  if ((c == '{' || c == '[') && LooksLikeJsonStart(rest, i)) return "several JSON values follow one another";
  return nullptr;
}

// True when the text after an object's closing brace goes on with its members
// (", "key2": ..." or ", key2: ..."): the object was closed early, and the
// reader sees the keys after it as its own.
bool ContinuesAsMembers(std::string_view rest) {
  size_t i = 0;
  while (i < rest.size() && IsSpace(rest[i])) ++i;
  if (i == rest.size() || rest[i] != ',') return false;
  ++i;
  while (i < rest.size() && IsSpace(rest[i])) ++i;
  if (i == rest.size()) return false;
  if (rest[i] == '"' || rest[i] == '\'') {
    i = FindStringEnd(rest, i);
    if (i == kNpos) return false;
    ++i;
  } else if (IsWordStart(rest[i])) {
    while (i < rest.size() && IsWordChar(rest[i])) ++i;
  } else {
    return false;
  }
  while (i < rest.size() && IsSpace(rest[i])) ++i;
  return i < rest.size() && rest[i] == ':';
}

// The single-pass rewriter behind RepairJson. It keeps a stack of open
// containers, each with what it expects next, and emits JSON as it goes.
class Repairer {
 public:
  explicit Repairer(std::string_view in) : in_(in) { out_.reserve(in.size() + 16); }

  std::string Run() {
    while (pos_ < in_.size() && !done_) Step();
    if (!broken_) {
      while (!stack_.empty()) CloseTop();
    }
    return std::move(out_);
  }

  // Why the input was refused although the copied-through text might parse
  // (a repair that would have guessed); "" otherwise. Valid after Run().
  const std::string& refusal() const { return refusal_; }

 private:
  enum class Expect { kKey, kColon, kValue, kAfter };
  enum class Role { kKey, kValue };
  struct Frame {
    char open;  // '{', '[' or '(' (a Python tuple, written as an array)
    Expect expect;
    size_t key_start = 0;  // where the current key begins in out_
    size_t open_at = 0;    // where the container's bracket is in out_
    bool comma = false;    // a comma was seen (a tuple, not a parenthesised value)
  };

  Expect& expect() { return stack_.empty() ? top_ : stack_.back().expect; }
  bool in_object() const { return !stack_.empty() && stack_.back().open == '{'; }

  void Step() {
    const char c = in_[pos_];
    if (in_.substr(pos_).starts_with(kOpenCurly)) return CurlyString();
    if (in_.substr(pos_).starts_with("```")) {
      // The reply's closing fence: the JSON ended here, its closers left out.
      done_ = true;
      return;
    }
    if (IsSpace(c)) {
      out_ += c;
      ++pos_;
      return;
    }
    if (const size_t end = CommentEnd(in_, pos_); end != kNpos) {
      pos_ = end;
      return;
    }
    switch (c) {
      case '"':
      case '\'':
        return String();
      case '{':
      case '[':
      case '(':
        return Open(c);
      case '}':
      case ']':
      case ')':
        return Close(c);
      case ',':
        return Comma();
      case ':':
        return Colon();
      default:
        break;
    }
    if (IsDigit(c) || c == '-' || c == '+' || c == '.') return Number();
    if (IsWordStart(c)) return Word();
    Fail();
  }

  // Unrepairable: copy the rest through so the strict parser names the spot.
  // A reason marks input the repair could turn into a value only by guessing.
  void Fail(std::string_view reason = {}) {
    if (refusal_.empty()) refusal_ = reason;
    out_.append(in_.substr(pos_));
    pos_ = in_.size();
    broken_ = true;
    done_ = true;
  }

  // Called when a key or value token begins. Inserts a missing comma after a
  // previous value; returns nullopt when no token may start here.
  std::optional<Role> BeginToken() {
    Expect& e = expect();
    if (e == Expect::kAfter) {
      if (stack_.empty()) return std::nullopt;
      InsertCommaBeforeSpace();
      e = in_object() ? Expect::kKey : Expect::kValue;
    }
    if (e == Expect::kColon) return std::nullopt;
    if (e == Expect::kKey) {
      stack_.back().key_start = out_.size();
      return Role::kKey;
    }
    return Role::kValue;
  }

  void ValueDone() {
    if (!stack_.empty()) {
      stack_.back().expect = Expect::kAfter;
      return;
    }
    // The top-level value is complete: keep trailing whitespace, drop prose.
    if (closing_brace_ && ContinuesAsMembers(in_.substr(pos_))) {
      reopen_ = true;  // Close() reopens the object once its closing is done
      return;
    }
    if (const char* why = TrailingJsonReason(in_.substr(pos_))) return Fail(why);
    if (TrimRightView(in_.substr(pos_)).empty()) out_.append(in_.substr(pos_));
    pos_ = in_.size();
    done_ = true;
  }

  void InsertCommaBeforeSpace() {
    size_t at = out_.size();
    while (at > 0 && IsSpace(out_[at - 1])) --at;
    out_.insert(at, 1, ',');
  }

  void DropTrailingComma() {
    size_t at = out_.size();
    while (at > 0 && IsSpace(out_[at - 1])) --at;
    if (at > 0 && out_[at - 1] == ',') out_.resize(at - 1);
  }

  void String() {
    const bool in_tuple = !stack_.empty() && stack_.back().open == '(';
    const size_t close = FindStringEnd(in_, pos_, in_tuple);
    const size_t body_end = close == kNpos ? in_.size() : close;
    if (in_[pos_] == '"') {
      const std::string_view body = in_.substr(pos_ + 1, body_end - pos_ - 1);
      if (std::string_view reason = StrayQuoteReason(body, close == kNpos); !reason.empty()) {
        return Fail(reason);
      }
    }
    const std::optional<Role> role = BeginToken();
    if (!role) return Fail();
    out_ += '"';
    AppendStringBody(in_.substr(pos_ + 1, body_end - pos_ - 1));
    out_ += '"';
    pos_ = close == kNpos ? in_.size() : close + 1;
    if (*role == Role::kKey) {
      expect() = Expect::kColon;
    } else {
      ValueDone();
    }
  }

  // Why a double-quoted string's extent is a guess, or "". Inner quotes that
  // pair up ("he said "stop" twice") are quoted words; an odd one may as well
  // have been the closing quote with a word or value after it ("a" b", "v"alue").
  // A string that runs to the end of the input is a truncation only if it
  // holds no inner quote and does not end the way the JSON would (a closing
  // bracket or fence): then its closing quote was left out, and where it
  // should have gone is a guess.
  static std::string_view StrayQuoteReason(std::string_view body, bool unterminated) {
    size_t quotes = 0;
    for (size_t i = 0; i < body.size(); ++i) {
      if (body[i] == '\\') {
        ++i;
      } else if (body[i] == '"') {
        ++quotes;
      }
    }
    if (unterminated && quotes > 0) return "a string with a stray quote runs to the end of the text";
    if (quotes % 2 == 1) return "a string holds an unpaired quote: where it ends is a guess";
    if (!unterminated) return "";
    const std::string_view tail = TrimRightView(body);
    if (tail.ends_with("```") || tail.ends_with('}') || tail.ends_with(']')) {
      return "a string's closing quote is missing before the end of the JSON";
    }
    return "";
  }

  // A string in curly quotes; its body keeps any straight quotes as text.
  void CurlyString() {
    const size_t body = pos_ + kOpenCurly.size();
    const size_t close = in_.find(kCloseCurly, body);
    if (close == kNpos) return Fail("a curly-quoted string never closes");
    const std::optional<Role> role = BeginToken();
    if (!role) return Fail();
    out_ += '"';
    AppendStringBody(in_.substr(body, close - body));
    out_ += '"';
    pos_ = close + kCloseCurly.size();
    if (*role == Role::kKey) {
      expect() = Expect::kColon;
    } else {
      ValueDone();
    }
  }

  // Copies a string body (without quotes) as valid JSON string content.
  void AppendStringBody(std::string_view body) {
    size_t i = 0;
    while (i < body.size()) {
      size_t run = i;
      while (run < body.size() && body[run] != '\\' && body[run] != '"' &&
             static_cast<unsigned char>(body[run]) >= 0x20) {
        ++run;
      }
      out_.append(body.substr(i, run - i));
      if (run == body.size()) return;
      i = run;
      const char c = body[i];
      if (c == '"') {
        out_ += "\\\"";
        ++i;
      } else if (c == '\\') {
        i += AppendEscape(body.substr(i));
      } else {
        AppendControl(c);
        ++i;
      }
    }
  }

  // Handles the escape at the front of s; returns the bytes consumed.
  size_t AppendEscape(std::string_view s) {
    if (s.size() == 1) return 1;  // dangling backslash of a truncated string
    const char e = s[1];
    if (e == '\'') {
      out_ += '\'';
      return 2;
    }
    if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
        e == 't') {
      out_.append(s.substr(0, 2));
      return 2;
    }
    if (e == 'u' && s.size() >= 6 && IsHex(s[2]) && IsHex(s[3]) && IsHex(s[4]) && IsHex(s[5])) {
      out_.append(s.substr(0, 6));
      return 6;
    }
    out_ += "\\\\";  // an invalid escape keeps its backslash as text
    return 1;
  }

  void AppendControl(char c) {
    switch (c) {
      case '\n': out_ += "\\n"; return;
      case '\r': out_ += "\\r"; return;
      case '\t': out_ += "\\t"; return;
      case '\b': out_ += "\\b"; return;
      case '\f': out_ += "\\f"; return;
      default: break;
    }
    static constexpr char kHex[] = "0123456789abcdef";
    const auto u = static_cast<unsigned char>(c);
    out_ += "\\u00";
    out_ += kHex[u >> 4];
    out_ += kHex[u & 0xF];
  }

  void Open(char c) {
    const std::optional<Role> role = BeginToken();
    if (!role || *role == Role::kKey) return Fail();
    Frame frame{c, c == '{' ? Expect::kKey : Expect::kValue};
    frame.open_at = out_.size();
    out_ += c == '(' ? '[' : c;
    ++pos_;
    stack_.push_back(frame);
  }

  void Close(char c) {
    const char want = c == '}' ? '{' : c == ']' ? '[' : '(';
    size_t match = stack_.size();
    while (match > 0 && stack_[match - 1].open != want) --match;
    if (match == 0) return Fail();  // nothing open of this kind
    // A closing bracket where a key's value should be drops that key: refuse
    // ("{"a": }", "{"key:"v"}" whose key swallowed the colon).
    const Frame& inner = stack_.back();
    if (inner.open == '{' && (inner.expect == Expect::kColon || inner.expect == Expect::kValue)) {
      return Fail("a key has no value before the object closes");
    }
    ++pos_;
    closing_brace_ = c == '}';
    while (stack_.size() >= match) CloseTop();
    closing_brace_ = false;
    if (reopen_) {
      // An object closed early: its members go on after the brace.
      reopen_ = false;
      out_.pop_back();
      stack_.push_back(Frame{'{', Expect::kAfter});
    }
  }

  // Closes the innermost container, dropping a dangling key and a trailing comma.
  void CloseTop() {
    const Frame frame = stack_.back();
    if (frame.open == '{' && (frame.expect == Expect::kColon || frame.expect == Expect::kValue)) {
      out_.resize(frame.key_start);
    }
    DropTrailingComma();
    if (frame.open == '(' && !frame.comma && frame.expect == Expect::kAfter) {
      out_.erase(frame.open_at, 1);  // "(1)" is 1 in Python, not a tuple
    } else {
      out_ += frame.open == '{' ? '}' : ']';
    }
    stack_.pop_back();
    ValueDone();
  }

  void Comma() {
    ++pos_;
    Expect& e = expect();
    if (e == Expect::kAfter && !stack_.empty()) {
      out_ += ',';
      stack_.back().comma = true;
      e = in_object() ? Expect::kKey : Expect::kValue;
    } else if (e == Expect::kKey || (e == Expect::kValue && !in_object() && !stack_.empty())) {
      // A doubled or leading comma: drop it.
    } else {
      --pos_;
      Fail();
    }
  }

  void Colon() {
    if (expect() != Expect::kColon) return Fail();
    out_ += ':';
    ++pos_;
    expect() = Expect::kValue;
  }

  void Number() {
    size_t end = pos_;
    bool underscores = false;  // Python's digit grouping, 82_461_110
    while (end < in_.size()) {
      if (in_[end] == '_' && end > pos_ && IsDigit(in_[end - 1]) && end + 1 < in_.size() &&
          IsDigit(in_[end + 1])) {
        underscores = true;
      } else if (!IsNumberChar(in_[end])) {
        break;
      }
      ++end;
    }
    std::string_view token = in_.substr(pos_, end - pos_);
    if ((token == "-" || token == "+") && end < in_.size() && IsWordStart(in_[end])) {
      return Word();  // -Infinity and friends
    }
    const std::optional<Role> role = BeginToken();
    if (!role) return Fail();
    if (*role == Role::kValue && !stack_.empty()) {
      size_t after = end;
      while (after < in_.size() && (in_[after] == ' ' || in_[after] == '\t')) ++after;
      if (after < in_.size() && IsWordStart(in_[after])) return BareString();  // "5 mg"
      // "120/80", "10-20", "1.1.1": text a reader sees, not a number.
      if (end < in_.size() && in_[end] == '/' && end + 1 < in_.size() && IsDigit(in_[end + 1])) {
        return BareString();
      }
      if (!underscores && !IsNumberText(NormalizeNumber(token)) && !NormalizeNumber(token).empty() &&
          end < in_.size()) {
        return BareString();
      }
    }
    pos_ = end;
    if (*role == Role::kKey) {
      out_ += '"';
      out_.append(token);
      out_ += '"';
      expect() = Expect::kColon;
      return;
    }
    std::string number = NormalizeNumber(token);
    if (underscores) std::erase(number, '_');
    if (number.empty()) {
      if (pos_ == in_.size()) return;  // a sign cut off by truncation: no value
      pos_ -= token.size();
      return Fail();
    }
    out_ += number;
    ValueDone();
  }

  // True if s is a JSON number (RFC 8259's grammar).
  static bool IsNumberText(std::string_view s) {
    size_t i = 0;
    if (i < s.size() && s[i] == '-') ++i;
    if (i == s.size() || !IsDigit(s[i])) return false;
    if (s[i] == '0') {
      ++i;
    } else {
      while (i < s.size() && IsDigit(s[i])) ++i;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      if (i == s.size() || !IsDigit(s[i])) return false;
      while (i < s.size() && IsDigit(s[i])) ++i;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      ++i;
      if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
      if (i == s.size() || !IsDigit(s[i])) return false;
      while (i < s.size() && IsDigit(s[i])) ++i;
    }
    return i == s.size();
  }

  // Fixes the invalid spellings of a number ("+1", ".5", "5.", "1e" when
  // truncated); valid numbers come back unchanged. "" when there is no digit.
  static std::string NormalizeNumber(std::string_view token) {
    if (!token.empty() && token[0] == '+') token.remove_prefix(1);
    while (!token.empty() && (token.back() == 'e' || token.back() == 'E' ||
                              token.back() == '+' || token.back() == '-')) {
      token.remove_suffix(1);
    }
    if (token.find_first_of("0123456789") == kNpos) return "";
    std::string n(token);
    const size_t lead = n[0] == '-' ? 1 : 0;
    if (n[lead] == '.') n.insert(lead, 1, '0');
    if (n.back() == '.') n += '0';
    return n;
  }

  void Word() {
    size_t end = pos_;
    if (in_[end] == '-' || in_[end] == '+') ++end;
    while (end < in_.size() && IsWordChar(in_[end])) ++end;
    const std::string_view word = in_.substr(pos_, end - pos_);
    const std::optional<Role> role = BeginToken();
    if (!role) return Fail();
    if (*role == Role::kKey) {
      pos_ = end;
      out_ += '"';
      out_.append(word);
      out_ += '"';
      expect() = Expect::kColon;
      return;
    }
    size_t after = end;
    while (after < in_.size() && (in_[after] == ' ' || in_[after] == '\t')) ++after;
    const bool ends_value = after == in_.size() || in_[after] == ',' || in_[after] == '}' ||
                            in_[after] == ']' || IsSpace(in_[after]) ||
                            CommentEnd(in_, after) != kNpos;
    std::string_view bare = word;
    if (bare[0] == '-' && bare.substr(1) == "Infinity") bare = "Infinity";
    std::optional<std::string_view> literal = ends_value ? LiteralFor(bare) : std::nullopt;
    if (!literal && end == in_.size()) literal = CompletedLiteral(word);
    if (literal) {
      pos_ = end;
      out_.append(*literal);
      return ValueDone();
    }
    if (stack_.empty()) return Fail();  // prose, not JSON
    BareString();
  }

  // An unquoted string value: words, spaces and a little punctuation up to
  // the next , } ] or line end, or a quote after a space (the next key, its
  // comma left out). Anything else means it was not a value.
  void BareString() {
    size_t end = pos_;
    while (end < in_.size()) {
      const char c = in_[end];
      if (c == ',' || c == '}' || c == ']' || c == '\n' || c == '\r') break;
      if (c == '"' && end > pos_ && IsSpace(in_[end - 1])) break;
      if (!IsWordChar(c) && c != ' ' && c != '\t' && c != '/' && c != '+' && c != '%') {
        return Fail();
      }
      ++end;
    }
    const std::string_view text = TrimRightView(in_.substr(pos_, end - pos_));
    out_ += '"';
    out_.append(text);
    out_ += '"';
    pos_ += text.size();
    ValueDone();
  }

  std::string_view in_;
  size_t pos_ = 0;
  std::string out_;
  std::vector<Frame> stack_;
  Expect top_ = Expect::kValue;
  bool done_ = false;
  bool broken_ = false;
  bool closing_brace_ = false;  // Close() is closing the top-level object with a '}'
  bool reopen_ = false;         // ... and the text goes on with its members
  std::string refusal_;
};

// The strict, guarded parse (depth and number limits); nullopt when the text
// is not JSON.
std::optional<Json> TryParse(std::string_view text) {
  Result<Json> value = ParseJson(text);
  if (!value.ok()) return std::nullopt;
  return std::move(*value);
}

}  // namespace

std::string StripJsonDecoration(std::string_view text) {
  return std::string(ExtractJson(text).json);
}

std::string RepairJson(std::string_view text) {
  return Repairer(text).Run();
}

namespace {

Result<Json> ParseJsonLenientUnchecked(std::string_view text, std::string* parsed_text) {
  if (std::optional<Json> strict = TryParse(text)) {
    *parsed_text = text;
    return std::move(*strict);
  }
  const Extracted extracted = ExtractJson(text);
  const std::string_view stripped = extracted.json;
  if (stripped.empty()) {
    return Status::ParseError("no JSON object or array found (tried: strict parse, stripping "
                              "fences and prose): \"" + Preview(text) + "\"");
  }
  auto refuse = [&](std::string_view why) {
    return Status::ParseError("could not read JSON without guessing (tried: strict parse, stripping fences and "
                              "prose, repairing): " + std::string(why) + ": \"" + Preview(stripped) + "\"");
  };
  if (extracted.several_fences) return refuse("several fenced blocks hold JSON");
  // An object closed early is read with the members after its brace; the
  // repair then sees them too.
  std::string_view to_repair = stripped;
  if (stripped.front() == '{' && ContinuesAsMembers(extracted.rest)) {
    to_repair = std::string_view(stripped.data(), stripped.size() + extracted.rest.size());
  } else if (const char* why = TrailingJsonReason(extracted.rest)) {
    return refuse(why);
  } else if (stripped.size() != text.size()) {
    if (std::optional<Json> plain = TryParse(stripped)) {
      *parsed_text = stripped;
      return std::move(*plain);
    }
  }
  Repairer repairer(to_repair);
  std::string repaired = repairer.Run();
  if (!repairer.refusal().empty()) return refuse(repairer.refusal());
  Result<Json> fixed = ParseJson(repaired);
  if (fixed.ok()) {
    *parsed_text = std::move(repaired);
    return std::move(*fixed);
  }
  return Status::ParseError("could not parse JSON (tried: strict parse, stripping fences and "
                            "prose, repairing; after repair: " + fixed.status().message() + "): \"" +
                            Preview(stripped) + "\"");
}

}  // namespace

Result<Json> ParseJsonLenient(std::string_view text) {
  std::string parsed_text;
  Result<Json> value = ParseJsonLenientUnchecked(text, &parsed_text);
  if (value.ok() && HasConflictingKeys(parsed_text)) {
    return Status::ParseError("could not read JSON without guessing: an object gives a key two different "
                              "values: \"" + Preview(text) + "\"");
  }
  return value;
}

}  // namespace medreact
