// `medreact eval medcalc`: the calculator pack scored on MedCalc-Bench
// (Khandekar N et al., NeurIPS 2024 Datasets and Benchmarks; test_data.csv).
// Each row names a calculator (Calculator ID, matched to Calculator::medcalc_id),
// gives the note's extracted "Relevant Entities" (a Python dict literal) and
// the ground truth. The harness maps the entities to the calculator's
// arguments (medcalc_mapping.h), runs it, and scores the answer as the
// benchmark does:
//   decimal   correct when Lower Limit <= ours <= Upper Limit (the benchmark's
//             ±5 % band around the ground truth)
//   integer   ours rounded to the nearest integer equals the ground truth;
//             when the ground truth is a tuple ('W weeks', 'D days')
//             (gestational age), weeks and days must both match
//   date      the same calendar day (MM/DD/YYYY; ours is YYYY-MM-DD)
// A row whose entities cannot be parsed, whose calculator is unknown, or
// whose calculator fails, is a miss with the error recorded.
//
// A few calculators take a documented option that selects a published
// variant the benchmark follows (BenchmarkConventions); the defaults a
// clinician gets are never changed for the benchmark. Pure functions;
// thread-compatible.
#ifndef MEDREACT_EVAL_MEDCALC_EVAL_H_
#define MEDREACT_EVAL_MEDCALC_EVAL_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/json.h"
#include "medreact/status.h"

namespace medreact::eval {

// One benchmark row (the columns the harness uses).
struct MedcalcRow {
  int line = 0;  // line of the CSV where the row starts
  int row_number = 0;
  int calculator_id = 0;
  std::string calculator_name;
  std::string output_type;  // "decimal", "integer" or "date"
  std::string note_id;
  std::string entities;  // the Python dict literal
  std::string ground_truth;
  std::string lower_limit;
  std::string upper_limit;
};

// Parses test_data.csv. Errors name the line: malformed CSV, a missing
// column (named), a Row Number or Calculator ID that is not an integer.
Result<std::vector<MedcalcRow>> ReadMedcalcRows(std::string_view csv_text);

struct RowResult {
  int row_number = 0;
  int calculator_id = 0;
  std::string calculator_name;  // the benchmark's
  std::string calculator;       // ours (Calculator::name), "" when none
  std::string answer;           // ours, in the benchmark's format; "" on error
  std::string ground_truth, lower_limit, upper_limit;
  bool correct = false;
  std::string error;                 // why the row could not be computed or scored
  Json arguments = Json::object();   // the mapped arguments (with any convention options)
  std::vector<std::string> ignored;  // entity keys that fed no input
  std::vector<std::string> notes;    // fuzzy matches, unreadable values

  Json ToJson() const;
};

// Extra arguments selecting a published variant the benchmark follows for
// this calculator (e.g. {"method": "..."}); an empty object for most. Each
// entry in the table is commented with its source in medcalc_eval.cc.
Json BenchmarkConventions(int medcalc_id);

// Maps, runs and scores one row.
RowResult EvaluateRow(const MedcalcRow& row);

// Scores `answer` (our result's "value": a number, a "YYYY-MM-DD" date or a
// "(W weeks, D days)" text) against the row's ground truth. Sets
// `formatted` to the answer in the benchmark's format. Error when the ground
// truth or limits cannot be read, or the answer's kind does not fit.
Result<bool> ScoreAnswer(const MedcalcRow& row, const Json& answer, std::string* formatted);

struct CalculatorTally {
  int calculator_id = 0;
  std::string name;
  int correct = 0;
  int total = 0;
};

struct EvalReport {
  std::vector<RowResult> rows;
  std::map<int, CalculatorTally> by_calculator;  // by Calculator ID
  int correct = 0;
  int total = 0;
  double Accuracy() const { return total == 0 ? 0.0 : static_cast<double>(correct) / total; }

  // {"overall": {...}, "calculators": [...], "rows": [...]}
  Json ToJson() const;
  // The per-calculator table (id, name, correct/total, %) and the overall line.
  std::string Table() const;
};

// Evaluates every row (only those of `calculator_id` when it is not 0).
EvalReport EvaluateRows(const std::vector<MedcalcRow>& rows, int calculator_id = 0);

}  // namespace medreact::eval

#endif  // MEDREACT_EVAL_MEDCALC_EVAL_H_
