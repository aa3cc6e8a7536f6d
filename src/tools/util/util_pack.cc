// The util pack's tool definitions: specs written for the model, and thin Run
// functions over the calculator and the injected clock.
//
// current_time formats with C++20 calendar types (no time zone database: the
// caller names an offset, which is all a model can reliably supply). Dates are
// proleptic Gregorian; seconds are truncated, never rounded up.
#include "tools/util/util_pack.h"

#include <cstdio>
#include <memory>
#include <utility>

#include "medreact/tool.h"
#include "tools/util/calculator.h"

namespace medreact {
namespace {

using Clock = std::function<std::chrono::system_clock::time_point()>;

constexpr const char* kCurrentTimeDescription =
    "Returns the current date and time as {\"iso8601\", \"unix_seconds\", \"weekday\"}. Use it whenever the "
    "answer depends on today's date or the time now: a patient's age, days since an admission or a dose, whether "
    "a date is in the past. Never guess the date. Without arguments the time is UTC, e.g. "
    "{\"iso8601\": \"2026-11-22T03:04:05Z\", \"unix_seconds\": 1795316645, \"weekday\": \"Sunday\"}. Pass "
    "utc_offset_minutes for local time at that offset: {\"utc_offset_minutes\": 60} gives "
    "\"2026-11-22T04:04:05+01:00\"; -300 is UTC-5, 330 is UTC+5:30.";

constexpr const char* kCalculatorDescription =
    "Evaluates an arithmetic expression and returns {\"expression\", \"result\"}. Use it for every calculation "
    "instead of doing arithmetic in your head: doses per kg, infusion rates, unit conversions, BMI, clearance "
    "formulas. Supports numbers (12, 3.5, 1.2e-3), + - * / % (remainder), ^ or ** (power, right-associative: "
    "2^3^2 = 512), parentheses, the constants pi and e, and the functions sqrt, cbrt, abs, exp, ln, log (natural "
    "log, same as ln; use log10 for base 10), log10, log2, sin, cos, tan (radians), min(a, b, ...), "
    "max(a, b, ...), round(x) or round(x, digits), floor, ceil, pow(a, b). Unary minus binds looser than power: "
    "-2^2 = -4, write (-2)^2 for 4. There are no variables, units or implicit multiplication: write 2*pi, not "
    "2pi, and 1000, not 1,000. Results are rounded to 15 significant digits. Example: {\"expression\": "
    "\"70 / 1.75^2\"} returns {\"expression\": \"70 / 1.75^2\", \"result\": 22.8571428571429}. On an error "
    "the message gives the 1-based character position; fix the expression and call again.";

std::string FormatIso8601(std::chrono::sys_seconds utc, int offset_minutes) {
  using namespace std::chrono;
  const sys_seconds local = utc + minutes(offset_minutes);
  const sys_days day = floor<days>(local);
  const year_month_day date(day);
  const hh_mm_ss<seconds> time(local - day);
  char zone[16] = "Z";
  if (offset_minutes != 0) {
    int magnitude = offset_minutes < 0 ? -offset_minutes : offset_minutes;
    std::snprintf(zone, sizeof(zone), "%c%02d:%02d", offset_minutes < 0 ? '-' : '+', magnitude / 60,
                  magnitude % 60);
  }
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%04d-%02u-%02uT%02d:%02d:%02d%s", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
                static_cast<int>(time.seconds().count()), zone);
  return buffer;
}

std::unique_ptr<Tool> MakeCurrentTimeTool(Clock now) {
  ToolSpec spec;
  spec.name = "current_time";
  spec.description = kCurrentTimeDescription;
  spec.parameters = {
      {"type", "object"},
      {"properties",
       {{"utc_offset_minutes",
         {{"type", "integer"},
          {"minimum", -720},
          {"maximum", 840},
          {"description", "Offset from UTC in minutes (60 = UTC+1, -300 = UTC-5). Default: 0 (UTC)."}}}}},
      {"additionalProperties", false}};
  return MakeFunctionTool(std::move(spec), [now = std::move(now)](const Json& args, const ToolContext&) {
    static const char* const kWeekdays[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                            "Thursday", "Friday", "Saturday"};
    const int offset = args.value("utc_offset_minutes", 0);
    const auto utc = std::chrono::floor<std::chrono::seconds>(now());
    const auto local_day = std::chrono::floor<std::chrono::days>(utc + std::chrono::minutes(offset));
    Json result = {{"iso8601", FormatIso8601(utc, offset)},
                   {"unix_seconds", static_cast<int64_t>(utc.time_since_epoch().count())},
                   {"weekday", kWeekdays[std::chrono::weekday(local_day).c_encoding()]}};
    return ToolResult::OkJson(result);
  });
}

std::unique_ptr<Tool> MakeCalculatorTool() {
  ToolSpec spec;
  spec.name = "calculator";
  spec.description = kCalculatorDescription;
  spec.parameters = {
      {"type", "object"},
      {"properties",
       {{"expression",
         {{"type", "string"},
          {"minLength", 1},
          {"maxLength", 500},
          {"description", "The arithmetic expression, e.g. \"(140 - 67) * 72 / (72 * 0.9)\"."}}}}},
      {"required", {"expression"}},
      {"additionalProperties", false}};
  return MakeFunctionTool(std::move(spec), [](const Json& args, const ToolContext&) {
    const std::string expression = args.at("expression").get<std::string>();
    Result<double> value = EvaluateExpression(expression);
    if (!value.ok()) {
      return ToolResult::Error("Could not evaluate '" + Preview(expression, 80) + "': " + value.status().message());
    }
    return ToolResult::OkJson({{"expression", expression}, {"result", CalculatorResultJson(*value)}});
  });
}

}  // namespace

std::vector<std::string> UtilPackToolNames() { return {"current_time", "calculator"}; }

Status RegisterUtilPack(ToolRegistry& registry, const UtilPackOptions& options) {
  for (const std::string& name : UtilPackToolNames()) {
    if (registry.Find(name)) return Status::InvalidArgument("util pack: tool '" + name + "' is already registered");
  }
  Clock now = options.now ? options.now : [] { return std::chrono::system_clock::now(); };
  if (Status s = registry.Register(MakeCurrentTimeTool(std::move(now))); !s.ok()) return s.WithContext("util pack");
  if (Status s = registry.Register(MakeCalculatorTool()); !s.ok()) return s.WithContext("util pack");
  return Status::OK();
}

}  // namespace medreact
