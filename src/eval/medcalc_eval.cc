#include "eval/medcalc_eval.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "eval/csv.h"
#include "eval/medcalc_mapping.h"
#include "eval/py_literal.h"
#include "tools/calc/calculator.h"
#include "core/text_util.h"

namespace medreact::eval {
namespace {

std::optional<long long> ParseInteger(std::string_view text) {
  const std::string s = Trim(text);
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (*end != '\0') return std::nullopt;
  return v;
}

std::optional<double> ParseNumber(std::string_view text) {
  const std::string s = Trim(text);
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

struct Ymd {
  int y = 0, m = 0, d = 0;
  bool operator==(const Ymd&) const = default;
};

// "MM/DD/YYYY" (the benchmark's) or "YYYY-MM-DD" (ours).
std::optional<Ymd> ParseDate(std::string_view text) {
  const std::string s = Trim(text);
  Ymd out;
  char tail = 0;
  if (std::sscanf(s.c_str(), "%d/%d/%d%c", &out.m, &out.d, &out.y, &tail) == 3 ||
      std::sscanf(s.c_str(), "%d-%d-%d%c", &out.y, &out.m, &out.d, &tail) == 3) {
    if (out.m >= 1 && out.m <= 12 && out.d >= 1 && out.d <= 31) return out;
  }
  return std::nullopt;
}

// (weeks, days) from "('6 weeks', '2 days')", "(6 weeks, 2 days)" or "(6, 2)".
std::optional<std::pair<int, int>> ParseWeeksDays(std::string_view text) {
  const std::string s = Trim(text);
  if (s.empty() || s.front() != '(') return std::nullopt;
  std::vector<int> numbers;
  if (Result<Json> literal = ParsePyLiteral(s); literal.ok() && literal->is_array()) {
    for (const Json& item : *literal) {
      if (item.is_number_integer()) {
        numbers.push_back(item.get<int>());
      } else if (item.is_string()) {
        const std::string t = item.get<std::string>();
        char* end = nullptr;
        const long v = std::strtol(t.c_str(), &end, 10);
        if (end == t.c_str()) return std::nullopt;
        numbers.push_back(static_cast<int>(v));
      } else {
        return std::nullopt;
      }
    }
  } else {
    int w = 0, d = 0;
    if (std::sscanf(s.c_str(), "(%d weeks, %d days)", &w, &d) != 2) return std::nullopt;
    numbers = {w, d};
  }
  if (numbers.size() != 2) return std::nullopt;
  return std::make_pair(numbers[0], numbers[1]);
}

std::string FormatNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

}  // namespace

Result<std::vector<MedcalcRow>> ReadMedcalcRows(std::string_view csv_text) {
  Result<CsvTable> table = ParseCsv(csv_text);
  if (!table.ok()) return table.status();
  static const char* kColumns[] = {"Row Number",   "Calculator ID",       "Calculator Name", "Output Type",
                                   "Note ID",      "Relevant Entities",   "Ground Truth Answer",
                                   "Lower Limit",  "Upper Limit"};
  for (const char* column : kColumns) {
    if (table->Column(column) < 0) {
      return Status::InvalidArgument(std::string("line 1: the header has no '") + column +
                                     "' column (is this MedCalc-Bench's test_data.csv?)");
    }
  }
  std::vector<MedcalcRow> rows;
  for (const CsvRecord& rec : table->rows) {
    auto field = [&](const char* name) { return *table->Field(rec, name); };
    MedcalcRow row;
    row.line = rec.line;
    const auto number = ParseInteger(field("Row Number"));
    const auto id = ParseInteger(field("Calculator ID"));
    if (!number || !id) {
      return Status::ParseError("line " + std::to_string(rec.line) + ": " +
                                (!number ? "Row Number '" + Preview(field("Row Number"), 20)
                                         : "Calculator ID '" + Preview(field("Calculator ID"), 20)) +
                                "' is not an integer");
    }
    row.row_number = static_cast<int>(*number);
    row.calculator_id = static_cast<int>(*id);
    row.calculator_name = field("Calculator Name");
    row.output_type = Trim(field("Output Type"));
    row.note_id = field("Note ID");
    row.entities = field("Relevant Entities");
    row.ground_truth = Trim(field("Ground Truth Answer"));
    row.lower_limit = Trim(field("Lower Limit"));
    row.upper_limit = Trim(field("Upper Limit"));
    rows.push_back(std::move(row));
  }
  return rows;
}

Result<bool> ScoreAnswer(const MedcalcRow& row, const Json& answer, std::string* formatted) {
  if (row.output_type == "date") {
    const auto truth = ParseDate(row.ground_truth);
    if (!truth) return Status::InvalidArgument("ground truth '" + row.ground_truth + "' is not a date");
    const auto ours = answer.is_string() ? ParseDate(answer.get<std::string>()) : std::nullopt;
    if (!ours) return Status::InvalidArgument("the calculator's answer " + DumpJson(answer) + " is not a date");
    char buf[16];
    std::snprintf(buf, sizeof(buf), "%02d/%02d/%04d", ours->m, ours->d, ours->y);
    *formatted = buf;
    return *ours == *truth;
  }
  if (const auto truth = ParseWeeksDays(row.ground_truth)) {
    const auto ours = answer.is_string() ? ParseWeeksDays(answer.get<std::string>()) : std::nullopt;
    if (!ours) return Status::InvalidArgument("the calculator's answer " + DumpJson(answer) + " is not (weeks, days)");
    *formatted = "(" + std::to_string(ours->first) + " weeks, " + std::to_string(ours->second) + " days)";
    return *ours == *truth;
  }
  if (!answer.is_number()) return Status::InvalidArgument("the calculator's answer " + DumpJson(answer) + " is not a number");
  const double v = answer.get<double>();
  *formatted = FormatNumber(v);
  if (row.output_type == "integer") {
    const auto truth = ParseInteger(row.ground_truth);
    if (!truth) return Status::InvalidArgument("ground truth '" + row.ground_truth + "' is not an integer");
    return std::llround(v) == *truth;
  }
  if (row.output_type == "decimal") {
    const auto lower = ParseNumber(row.lower_limit);
    const auto upper = ParseNumber(row.upper_limit);
    if (!lower || !upper) {
      return Status::InvalidArgument("limits '" + row.lower_limit + "', '" + row.upper_limit + "' are not numbers");
    }
    // The limits are printed with a few decimals: allow for the last digit's rounding.
    const double slack = 1e-9 * std::max(1.0, std::fabs(*upper));
    return v >= *lower - slack && v <= *upper + slack;
  }
  return Status::InvalidArgument("unknown Output Type '" + row.output_type + "'");
}

Json BenchmarkConventions(int medcalc_id) {
  switch (medcalc_id) {
    case 68:
      // Estimated conception date: the benchmark dates conception at LMP + 14 days whatever the cycle length,
      // the textbook rule for a 28-day cycle ("conception about 2 weeks after the LMP"; ACOG Committee
      // Opinion No. 700, Obstet Gynecol 2017;129:e150-4). The calculator's default moves it by
      // (cycle - 28) days (Lenton 1984); lmp_plus_14 is its documented option for the plain rule.
      return {{"method", "lmp_plus_14"}};
    default:
      return Json::object();
  }
}

RowResult EvaluateRow(const MedcalcRow& row) {
  RowResult r;
  r.row_number = row.row_number;
  r.calculator_id = row.calculator_id;
  r.calculator_name = row.calculator_name;
  r.ground_truth = row.ground_truth;
  r.lower_limit = row.lower_limit;
  r.upper_limit = row.upper_limit;
  const calc::Calculator* calculator = calc::FindCalculatorByMedcalcId(row.calculator_id);
  if (calculator == nullptr) {
    r.error = "no calculator with MedCalc-Bench id " + std::to_string(row.calculator_id);
    return r;
  }
  r.calculator = calculator->name;
  Result<Json> entities = ParsePyLiteral(row.entities);
  if (!entities.ok()) {
    r.error = "Relevant Entities (line " + std::to_string(row.line) + "): " + entities.status().message();
    return r;
  }
  MappedArgs mapped = MapEntities(*calculator, *entities);
  r.arguments = std::move(mapped.args);
  r.ignored = std::move(mapped.ignored);
  r.notes = std::move(mapped.notes);
  const Json conventions = BenchmarkConventions(row.calculator_id);
  for (const auto& [name, value] : conventions.items()) {
    if (!r.arguments.contains(name)) r.arguments[name] = value;
  }
  Result<Json> result = calc::RunCalculator(*calculator, r.arguments);
  if (!result.ok()) {
    r.error = result.status().message();
    return r;
  }
  Result<bool> correct = ScoreAnswer(row, (*result)["value"], &r.answer);
  if (!correct.ok()) {
    r.error = correct.status().message();
    return r;
  }
  r.correct = *correct;
  return r;
}

Json RowResult::ToJson() const {
  Json j = {{"row_number", row_number},
            {"calculator_id", calculator_id},
            {"calculator_name", calculator_name},
            {"calculator", calculator},
            {"answer", answer},
            {"ground_truth", ground_truth},
            {"lower_limit", lower_limit},
            {"upper_limit", upper_limit},
            {"correct", correct},
            {"arguments", arguments}};
  if (!error.empty()) j["error"] = error;
  if (!ignored.empty()) j["ignored_entities"] = ignored;
  if (!notes.empty()) j["notes"] = notes;
  return j;
}

EvalReport EvaluateRows(const std::vector<MedcalcRow>& rows, int calculator_id) {
  EvalReport report;
  for (const MedcalcRow& row : rows) {
    if (calculator_id != 0 && row.calculator_id != calculator_id) continue;
    RowResult r = EvaluateRow(row);
    CalculatorTally& tally = report.by_calculator[row.calculator_id];
    tally.calculator_id = row.calculator_id;
    if (tally.name.empty()) tally.name = row.calculator_name;
    ++tally.total;
    ++report.total;
    if (r.correct) ++tally.correct, ++report.correct;
    report.rows.push_back(std::move(r));
  }
  return report;
}

Json EvalReport::ToJson() const {
  Json calculators = Json::array();
  for (const auto& [id, t] : by_calculator) {
    calculators.push_back({{"calculator_id", id}, {"name", t.name}, {"correct", t.correct}, {"total", t.total},
                           {"accuracy", t.total == 0 ? 0.0 : static_cast<double>(t.correct) / t.total}});
  }
  Json row_list = Json::array();
  for (const RowResult& r : rows) row_list.push_back(r.ToJson());
  return {{"overall", {{"correct", correct}, {"total", total}, {"accuracy", Accuracy()}}},
          {"calculators", calculators},
          {"rows", row_list}};
}

std::string EvalReport::Table() const {
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof(buf), "%4s  %-60s %9s %7s\n", "id", "calculator", "correct", "%");
  out += buf;
  for (const auto& [id, t] : by_calculator) {
    std::string name = t.name.size() > 60 ? t.name.substr(0, 57) + "..." : t.name;
    const std::string frac = std::to_string(t.correct) + "/" + std::to_string(t.total);
    std::snprintf(buf, sizeof(buf), "%4d  %-60s %9s %6.1f%%\n", id, name.c_str(), frac.c_str(),
                  t.total == 0 ? 0.0 : 100.0 * t.correct / t.total);
    out += buf;
  }
  std::snprintf(buf, sizeof(buf), "overall: %d/%d = %.1f%%\n", correct, total, 100.0 * Accuracy());
  out += buf;
  return out;
}

}  // namespace medreact::eval
