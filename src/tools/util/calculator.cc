// Calculator evaluation: a lexer that turns the text into tokens with
// character positions, then a recursive-descent parser that computes the
// value while it parses (see calculator.h for the grammar and conventions).
//
// Errors are values, not exceptions: each Parse* step returns false after
// recording the first error, and the caller unwinds. Messages are written for
// a model that has to repair its expression: they quote the offending token,
// give its 1-based position, and say what would have been accepted.
#include "tools/util/calculator.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <numbers>
#include <utility>

namespace medreact {
namespace {

// ---- Functions ---------------------------------------------------------------

using Args = std::vector<double>;

struct Function {
  const char* name;
  size_t min_args;
  size_t max_args;  // kVariadic: no upper bound
  double (*apply)(const Args& a);
};

constexpr size_t kVariadic = static_cast<size_t>(-1);

double RoundTo(double x, double digits) {
  if (digits == 0) return std::round(x);
  double scale = std::pow(10.0, digits);
  double scaled = x * scale;
  if (!std::isfinite(scaled)) return x;  // already more precise than asked
  return std::round(scaled) / scale;
}

// Sorted by name (binary search and the "known functions" list rely on it).
const Function kFunctions[] = {
    {"abs", 1, 1, [](const Args& a) { return std::fabs(a[0]); }},
    {"cbrt", 1, 1, [](const Args& a) { return std::cbrt(a[0]); }},
    {"ceil", 1, 1, [](const Args& a) { return std::ceil(a[0]); }},
    {"cos", 1, 1, [](const Args& a) { return std::cos(a[0]); }},
    {"exp", 1, 1, [](const Args& a) { return std::exp(a[0]); }},
    {"floor", 1, 1, [](const Args& a) { return std::floor(a[0]); }},
    {"ln", 1, 1, [](const Args& a) { return std::log(a[0]); }},
    {"log", 1, 1, [](const Args& a) { return std::log(a[0]); }},
    {"log10", 1, 1, [](const Args& a) { return std::log10(a[0]); }},
    {"log2", 1, 1, [](const Args& a) { return std::log2(a[0]); }},
    {"max", 1, kVariadic, [](const Args& a) { return *std::max_element(a.begin(), a.end()); }},
    {"min", 1, kVariadic, [](const Args& a) { return *std::min_element(a.begin(), a.end()); }},
    {"pow", 2, 2, [](const Args& a) { return std::pow(a[0], a[1]); }},
    {"round", 1, 2, [](const Args& a) { return a.size() == 1 ? std::round(a[0]) : RoundTo(a[0], a[1]); }},
    {"sin", 1, 1, [](const Args& a) { return std::sin(a[0]); }},
    {"sqrt", 1, 1, [](const Args& a) { return std::sqrt(a[0]); }},
    {"tan", 1, 1, [](const Args& a) { return std::tan(a[0]); }},
};

const Function* FindFunction(const std::string& name) {
  for (const Function& f : kFunctions) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

bool FindConstant(const std::string& name, double* value) {
  if (name == "pi") *value = std::numbers::pi;
  else if (name == "e") *value = std::numbers::e;
  else return false;
  return true;
}

std::string KnownFunctionList() {
  std::string out;
  for (const Function& f : kFunctions) out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out;
}

std::string FormatNumber(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.15g", x);
  return buffer;
}

std::string At(size_t position) { return " at position " + std::to_string(position); }

// ---- Lexer -------------------------------------------------------------------

enum class Kind { kNumber, kName, kOperator, kLeftParen, kRightParen, kComma, kEnd };

struct Token {
  Kind kind;
  std::string text;   // as written ("**" for power written that way)
  size_t position;    // 1-based character (not byte) position
  double number = 0;  // kNumber
  char op = 0;        // kOperator: + - * / % ^
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || IsDigit(c); }

// Familiar non-ASCII operators, to point at their ASCII spelling.
std::string UnicodeHint(const std::string& ch) {
  if (ch == "\u00d7" || ch == "\u00b7" || ch == "\u22c5") return " (use * for multiplication)";
  if (ch == "\u00f7") return " (use / for division)";
  if (ch == "\u2212" || ch == "\u2013") return " (use - for subtraction)";
  return "";
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Result<std::vector<Token>> Run() {
    std::vector<Token> tokens;
    while (true) {
      while (i_ < text_.size() && (text_[i_] == ' ' || text_[i_] == '\t' || text_[i_] == '\n' || text_[i_] == '\r')) {
        Advance(1);
      }
      size_t start = i_;
      size_t position = chars_ + 1;
      if (i_ == text_.size()) {
        tokens.push_back({Kind::kEnd, "end of expression", position});
        return tokens;
      }
      char c = text_[i_];
      if (IsDigit(c) || (c == '.' && i_ + 1 < text_.size() && IsDigit(text_[i_ + 1]))) {
        Result<Token> number = LexNumber(position);
        if (!number.ok()) return number.status();
        tokens.push_back(std::move(*number));
      } else if (IsNameStart(c)) {
        while (i_ < text_.size() && IsNameChar(text_[i_])) Advance(1);
        tokens.push_back({Kind::kName, std::string(text_.substr(start, i_ - start)), position});
      } else if (c == '*' && i_ + 1 < text_.size() && text_[i_ + 1] == '*') {
        Advance(2);
        tokens.push_back({Kind::kOperator, "**", position, 0, '^'});
      } else if (std::string_view("+-*/%^").find(c) != std::string_view::npos) {
        Advance(1);
        tokens.push_back({Kind::kOperator, std::string(1, c), position, 0, c});
      } else if (c == '(' || c == ')' || c == ',') {
        Advance(1);
        Kind kind = c == '(' ? Kind::kLeftParen : c == ')' ? Kind::kRightParen : Kind::kComma;
        tokens.push_back({kind, std::string(1, c), position});
      } else {
        size_t length = 1;  // show a whole UTF-8 character, not a stray byte
        while (i_ + length < text_.size() && (static_cast<unsigned char>(text_[i_ + length]) & 0xC0) == 0x80) {
          ++length;
        }
        std::string ch(text_.substr(i_, length));
        return Status::InvalidArgument("Unexpected character '" + ch + "'" + At(position) + UnicodeHint(ch));
      }
    }
  }

 private:
  void Advance(size_t bytes) {
    for (size_t k = 0; k < bytes && i_ < text_.size(); ++k, ++i_) {
      if ((static_cast<unsigned char>(text_[i_]) & 0xC0) != 0x80) ++chars_;
    }
  }

  // digits [. digits] [(e|E) [+|-] digits], or . digits [...]
  Result<Token> LexNumber(size_t position) {
    size_t start = i_;
    int dots = 0;
    while (i_ < text_.size() && (IsDigit(text_[i_]) || text_[i_] == '.')) {
      dots += text_[i_] == '.';
      Advance(1);
    }
    bool malformed = dots > 1;
    if (i_ < text_.size() && (text_[i_] == 'e' || text_[i_] == 'E')) {
      size_t k = i_ + 1;
      if (k < text_.size() && (text_[k] == '+' || text_[k] == '-')) ++k;
      if (k < text_.size() && IsDigit(text_[k])) {
        Advance(k - i_);
        while (i_ < text_.size() && IsDigit(text_[i_])) Advance(1);
      } else if (k > i_ + 1) {
        Advance(k - i_);  // "1e+" with no digits
        malformed = true;
      }
    }
    std::string text(text_.substr(start, i_ - start));
    if (malformed) return Status::InvalidArgument("Malformed number '" + text + "'" + At(position));
    double value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc::result_out_of_range) {
      return Status::InvalidArgument("Number '" + text + "'" + At(position) + " is out of range");
    }
    if (error != std::errc() || end != text.data() + text.size()) {
      return Status::InvalidArgument("Malformed number '" + text + "'" + At(position));
    }
    return Token{Kind::kNumber, text, position, value};
  }

  std::string_view text_;
  size_t i_ = 0;      // byte index
  size_t chars_ = 0;  // characters consumed
};

// ---- Parser / evaluator ------------------------------------------------------

class Evaluator {
 public:
  explicit Evaluator(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Result<double> Run() {
    double value = 0;
    if (!ParseExpression(&value)) return Status::InvalidArgument(error_);
    if (Peek().kind != Kind::kEnd) {
      Unexpected(Peek());
      return Status::InvalidArgument(error_);
    }
    return value;
  }

 private:
  const Token& Peek() const { return tokens_[next_]; }
  const Token& Take() { return tokens_[next_ < tokens_.size() - 1 ? next_++ : next_]; }
  bool PeekOperator(char op) const { return Peek().kind == Kind::kOperator && Peek().op == op; }

  bool Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return false;
  }

  bool Unexpected(const Token& token, const std::string& expected = "") {
    if (token.kind == Kind::kEnd) {
      return Fail("Unexpected end of expression" + At(token.position) +
                  (expected.empty() ? "" : " (expected " + expected + ")"));
    }
    std::string hint = expected.empty() ? "" : " (expected " + expected + ")";
    const Token* before = next_ > 0 ? &tokens_[next_ - 1] : nullptr;
    if (&token == &Peek() && before &&
        (before->kind == Kind::kNumber || before->kind == Kind::kRightParen ||
         (before->kind == Kind::kName && token.kind != Kind::kLeftParen)) &&
        (token.kind == Kind::kNumber || token.kind == Kind::kName || token.kind == Kind::kLeftParen)) {
      hint = " (use * for multiplication, e.g. 2*pi or 2*(1+3))";
    } else if (token.kind == Kind::kComma && call_depth_ == 0) {
      hint = " (commas only separate function arguments; write 1000, not 1,000)";
    }
    return Fail("Unexpected '" + token.text + "'" + At(token.position) + hint);
  }

  // Nesting guard for parentheses, calls, signs and exponents.
  bool Enter(const Token& at) {
    if (++depth_ > kMaxExpressionDepth) {
      return Fail("Expression is nested too deeply" + At(at.position) + " (the limit is " +
                  std::to_string(kMaxExpressionDepth) + " levels)");
    }
    return true;
  }
  void Leave() { --depth_; }

  bool Finite(double value, const std::string& what, size_t position) {
    if (std::isfinite(value)) return true;
    return Fail("Non-finite result: " + what + At(position) +
                (std::isnan(value) ? " is undefined (not a real number)" : " is infinite or too large to represent"));
  }

  bool ParseExpression(double* out) {
    if (!ParseTerm(out)) return false;
    while (PeekOperator('+') || PeekOperator('-')) {
      const Token& op = Take();
      double rhs = 0;
      if (!ParseTerm(&rhs)) return false;
      double lhs = *out;
      *out = op.op == '+' ? lhs + rhs : lhs - rhs;
      if (!Finite(*out, FormatNumber(lhs) + op.text + FormatNumber(rhs), op.position)) return false;
    }
    return true;
  }

  bool ParseTerm(double* out) {
    if (!ParseUnary(out)) return false;
    while (PeekOperator('*') || PeekOperator('/') || PeekOperator('%')) {
      const Token& op = Take();
      double rhs = 0;
      if (!ParseUnary(&rhs)) return false;
      double lhs = *out;
      if (op.op != '*' && rhs == 0) {
        return Fail(std::string(op.op == '/' ? "Division" : "Modulo") + " by zero" + At(op.position));
      }
      *out = op.op == '*' ? lhs * rhs : op.op == '/' ? lhs / rhs : std::fmod(lhs, rhs);
      if (!Finite(*out, FormatNumber(lhs) + op.text + FormatNumber(rhs), op.position)) return false;
    }
    return true;
  }

  bool ParseUnary(double* out) {
    if (!PeekOperator('-') && !PeekOperator('+')) return ParsePower(out);
    const Token& sign = Take();
    if (!Enter(sign)) return false;
    bool ok = ParseUnary(out);
    Leave();
    if (ok && sign.op == '-') *out = -*out;
    return ok;
  }

  bool ParsePower(double* out) {
    if (!ParsePrimary(out)) return false;
    if (!PeekOperator('^')) return true;
    const Token& op = Take();
    double exponent = 0;
    if (!Enter(op)) return false;
    bool ok = ParseUnary(&exponent);  // right-associative; allows 2^-1
    Leave();
    if (!ok) return false;
    double base = *out;
    *out = std::pow(base, exponent);
    std::string what = (base < 0 ? "(" + FormatNumber(base) + ")" : FormatNumber(base)) + "^" + FormatNumber(exponent);
    if (std::isnan(*out) && base < 0) {
      return Fail("Non-finite result: " + what + At(op.position) +
                  " is not a real number (a negative base needs a whole exponent; use cbrt() for cube roots)");
    }
    return Finite(*out, what, op.position);
  }

  bool ParsePrimary(double* out) {
    const Token& token = Peek();
    switch (token.kind) {
      case Kind::kNumber:
        Take();
        *out = token.number;
        return true;
      case Kind::kName:
        Take();
        return ParseName(token, out);
      case Kind::kLeftParen: {
        Take();
        if (!Enter(token)) return false;
        bool ok = ParseExpression(out) && Close(token);
        Leave();
        return ok;
      }
      default:
        return Unexpected(token, "a number, a name or '('");
    }
  }

  // Consumes the ')' matching `open`.
  bool Close(const Token& open) {
    if (Peek().kind == Kind::kRightParen) {
      Take();
      return true;
    }
    if (Peek().kind == Kind::kEnd) return Fail("Missing ')' to close the '('" + At(open.position));
    return Unexpected(Peek(), "')'");
  }

  bool ParseName(const Token& name, double* out) {
    std::string lower = name.text;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    bool call = Peek().kind == Kind::kLeftParen;
    if (FindConstant(lower, out)) {
      if (call) return Fail("'" + name.text + "'" + At(name.position) + " is a constant, not a function");
      return true;
    }
    const Function* function = FindFunction(lower);
    if (!function) {
      if (call) {
        return Fail("Unknown function '" + name.text + "'" + At(name.position) +
                    ". Known functions: " + KnownFunctionList() + ".");
      }
      return Fail("Unknown name '" + name.text + "'" + At(name.position) +
                  ". Known constants: pi, e (variables and units are not supported).");
    }
    if (!call) {
      return Fail("Function '" + name.text + "'" + At(name.position) + " must be followed by '(', e.g. " + lower +
                  "(2)");
    }
    return ParseCall(name, *function, out);
  }

  bool ParseCall(const Token& name, const Function& function, double* out) {
    const Token& open = Take();
    if (!Enter(open)) return false;
    ++call_depth_;
    Args args;
    bool ok = true;
    if (Peek().kind != Kind::kRightParen) {
      do {
        if (!args.empty()) Take();  // the comma
        double value = 0;
        ok = ParseExpression(&value);
        args.push_back(value);
      } while (ok && Peek().kind == Kind::kComma);
    }
    ok = ok && Close(open);
    --call_depth_;
    Leave();
    if (!ok) return false;
    if (args.size() < function.min_args || args.size() > function.max_args) {
      std::string takes = function.max_args == kVariadic ? "at least " + std::to_string(function.min_args)
                          : function.min_args == function.max_args
                              ? std::to_string(function.min_args)
                              : std::to_string(function.min_args) + " or " + std::to_string(function.max_args);
      bool plural = takes != "1" && takes != "at least 1";
      return Fail("Function '" + name.text + "'" + At(name.position) + " takes " + takes +
                  (plural ? " arguments" : " argument") + ", got " + std::to_string(args.size()));
    }
    if (std::string_view(function.name) == "round" && args.size() == 2 &&
        (args[1] != std::floor(args[1]) || std::fabs(args[1]) > 15)) {
      return Fail("Function 'round'" + At(name.position) +
                  ": the number of digits must be a whole number from -15 to 15, got " + FormatNumber(args[1]));
    }
    *out = function.apply(args);
    std::string what = std::string(function.name) + "(";
    for (size_t i = 0; i < args.size(); ++i) what += (i ? ", " : "") + FormatNumber(args[i]);
    return Finite(*out, what + ")", name.position);
  }

  std::vector<Token> tokens_;  // ends with a kEnd token
  size_t next_ = 0;
  int depth_ = 0;
  int call_depth_ = 0;
  std::string error_;
};

}  // namespace

Result<double> EvaluateExpression(std::string_view expression) {
  Result<std::vector<Token>> tokens = Lexer(expression).Run();
  if (!tokens.ok()) return tokens.status();
  if (tokens->size() == 1) return Status::InvalidArgument("Expression is empty");
  return Evaluator(std::move(*tokens)).Run();
}

Json CalculatorResultJson(double value) {
  constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53
  auto is_exact_integer = [&](double x) { return std::fabs(x) <= kMaxExactInteger && x == std::floor(x); };
  // Whole numbers are kept exactly; only fractions lose their last digits.
  double rounded = is_exact_integer(value) ? value : std::strtod(FormatNumber(value).c_str(), nullptr);
  if (rounded == 0) return 0;  // also turns -0 into 0
  if (is_exact_integer(rounded)) return static_cast<int64_t>(rounded);
  return rounded;
}

std::vector<std::string> CalculatorFunctionNames() {
  std::vector<std::string> names;
  for (const Function& f : kFunctions) names.push_back(f.name);
  return names;
}

}  // namespace medreact
