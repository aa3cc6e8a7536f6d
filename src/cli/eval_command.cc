// `medreact eval medcalc --data CSV [--out FILE] [--calculator ID]`: scores
// the calculator pack on MedCalc-Bench (src/eval/medcalc_eval.h). Prints the
// per-calculator table (id, name, correct/total, %) and the overall accuracy;
// --out writes every row's result as JSON (answer, ground truth, limits,
// correct, error, the mapped arguments). The report holds benchmark note
// data (entity values), so it goes only where --out asks.
// Exit 0 when the evaluation ran, whatever the accuracy; 1 when --out cannot
// be written; 2 on an unreadable or malformed CSV (the message names the
// file and line) or an unknown calculator id.
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/cli_io.h"
#include "cli/commands.h"
#include "core/printable.h"
#include "eval/medcalc_eval.h"
#include "medreact/json.h"
#include "medreact/trace.h"
#include "tools/calc/calculator.h"

namespace medreact::cli {
namespace {

struct EvalFlags {
  std::string data;
  std::string out;
  int calculator_id = 0;
};

int RunEvalMedcalc(const EvalFlags& flags) {
  if (!flags.out.empty()) {
    if (Status s = CheckOutputPath(flags.out, "results (--out)"); !s.ok()) {
      std::cerr << "medreact eval medcalc: " << s.message() << "\n";
      return kExitBadInput;
    }
  }
  Result<std::string> text = ReadInputFile(flags.data, "benchmark CSV", kMaxDataFileBytes);
  if (!text.ok()) {
    std::cerr << "medreact eval medcalc: " << text.status().message() << "\n";
    return kExitBadInput;
  }
  Result<std::vector<eval::MedcalcRow>> rows = eval::ReadMedcalcRows(*text);
  if (!rows.ok()) {
    std::cerr << "medreact eval medcalc: " << flags.data << ": " << rows.status().message() << "\n";
    return kExitBadInput;
  }
  if (flags.calculator_id != 0 && calc::FindCalculatorByMedcalcId(flags.calculator_id) == nullptr) {
    std::cerr << "medreact eval medcalc: no calculator with MedCalc-Bench id " << flags.calculator_id
              << " (see 'medreact calc list')\n";
    return kExitBadInput;
  }
  const eval::EvalReport report = eval::EvaluateRows(*rows, flags.calculator_id);
  if (report.total == 0) {
    std::cerr << "medreact eval medcalc: " << flags.data << ": no rows"
              << (flags.calculator_id != 0 ? " for calculator " + std::to_string(flags.calculator_id) : "") << "\n";
    return kExitBadInput;
  }
  std::cout << Printable(report.Table());  // names from the benchmark's CSV
  if (!flags.out.empty()) {
    if (Status s = WriteTextFile(DumpJson(report.ToJson(), 2) + "\n", flags.out); !s.ok()) {
      std::cerr << "medreact eval medcalc: " << s.message() << "\n";
      return kExitRunFailed;
    }
  }
  return kExitOk;
}

}  // namespace

void AddEvalCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("eval", "evaluate the calculator pack on a benchmark ('eval medcalc')");
  cmd->require_subcommand(1);
  auto flags = std::make_shared<EvalFlags>();
  CLI::App* medcalc = cmd->add_subcommand("medcalc", "score the calculators on MedCalc-Bench's test_data.csv");
  medcalc->add_option("--data", flags->data, "MedCalc-Bench test_data.csv")->required();
  medcalc->add_option("--out", flags->out, "write per-row results as JSON to this file");
  medcalc->add_option("--calculator", flags->calculator_id, "only this MedCalc-Bench Calculator ID");
  medcalc->callback([flags, exit_code] { *exit_code = RunEvalMedcalc(*flags); });
}

}  // namespace medreact::cli
