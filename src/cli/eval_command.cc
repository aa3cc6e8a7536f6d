// `medreact eval medcalc --data CSV [--out FILE] [--calculator ID]`: scores
// the calculator pack on MedCalc-Bench (src/eval/medcalc_eval.h). Prints the
// per-calculator table (id, name, correct/total, %) and the overall accuracy;
// --out writes every row's result as JSON (answer, ground truth, limits,
// correct, error, the mapped arguments). The report holds benchmark note
// data (entity values), so it goes only where --out asks.
// Exit 0 when the evaluation ran, whatever the accuracy; 1 when --out cannot
// be written; 2 on an unreadable or malformed CSV (the message names the
// file and line) or an unknown calculator id.
//
// `medreact eval medagentbench --tasks test_data_v2.json --funcs funcs_v1.json
// --fhir-url BASE [model flags] [--ids task1_1,...] [--allow-post] [--out FILE]`:
// MedAgentBench's tasks as agent runs over a FHIR server, scored as the
// benchmark does (src/eval/medagentbench_eval.h). Without a model the
// scorable tasks are reported "not run"; categories whose records are not
// available offline are reported as such, never as passes or failures.
// Exit 0 when the evaluation ran, 2 on bad input.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>

#include "cli/cli_io.h"
#include "cli/commands.h"
#include "core/printable.h"
#include "cli/model_flags.h"
#include "cli/setting_flags.h"
#include "eval/medagentbench_eval.h"
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

struct MabFlags {
  std::string tasks;
  std::string funcs;
  std::string fhir_url;
  std::string ids;
  std::string out;
  bool allow_post = false;
  int max_steps = 8;
  bool quiet = false;
  ModelFlags model;
};

int RunEvalMedAgentBench(const MabFlags& flags) {
  auto fail = [](const std::string& m) {
    std::cerr << "medreact eval medagentbench: " << WithFlagNames(m) << "\n";
    return kExitBadInput;
  };
  if (!flags.out.empty()) {
    if (Status s = CheckOutputPath(flags.out, "results (--out)"); !s.ok()) return fail(s.message());
  }
  if (flags.fhir_url.rfind("http://", 0) != 0 && flags.fhir_url.rfind("https://", 0) != 0) {
    return fail("--fhir-url must be an http:// or https:// FHIR base URL");
  }
  Result<std::string> text = ReadInputFile(flags.tasks, "tasks (--tasks)", kMaxDataFileBytes);
  if (!text.ok()) return fail(text.status().message());
  Result<std::vector<eval::MabTask>> tasks = eval::ReadMabTasks(*text);
  if (!tasks.ok()) return fail(flags.tasks + ": " + tasks.status().message());
  Result<std::string> funcs_text = ReadInputFile(flags.funcs, "FHIR functions (--funcs)", kMaxDataFileBytes);
  if (!funcs_text.ok()) return fail(funcs_text.status().message());
  Result<Json> funcs_json = ParseJson(*funcs_text);
  if (!funcs_json.ok()) return fail(flags.funcs + ": " + funcs_json.status().message());
  Result<std::vector<FhirApiFunction>> functions = FhirApiFunctions(*funcs_json);
  if (!functions.ok()) return fail(flags.funcs + ": " + functions.status().message());
  if (!flags.ids.empty()) {
    std::set<std::string> wanted;
    for (size_t start = 0; start <= flags.ids.size();) {
      size_t comma = flags.ids.find(',', start);
      if (comma == std::string::npos) comma = flags.ids.size();
      if (comma > start) wanted.insert(flags.ids.substr(start, comma - start));
      start = comma + 1;
    }
    std::vector<eval::MabTask> kept;
    for (eval::MabTask& t : *tasks) {
      if (wanted.erase(t.id) > 0) kept.push_back(std::move(t));
    }
    if (!wanted.empty()) return fail("--ids: no task " + *wanted.begin() + " in " + flags.tasks);
    *tasks = std::move(kept);
  }
  eval::MabRunOptions options;
  options.functions = std::move(*functions);
  options.api.base_url = flags.fhir_url;
  options.api.allow_post = flags.allow_post;
  if (const char* token = std::getenv("MEDREACT_FHIR_TOKEN")) options.api.bearer_token = token;
  options.max_steps = flags.max_steps;
  if (HasModel(flags.model)) {
    Result<std::shared_ptr<ChatModel>> model = MakeModel(flags.model);
    if (!model.ok()) return fail(model.status().message());
    options.model = std::move(*model);
  } else {
    std::cerr << "medreact eval medagentbench: no model (--llm-url): the scorable tasks are reported as not run\n";
  }
  if (!flags.quiet) {
    options.on_task = [](const eval::MabTaskResult& r, size_t done, size_t total) {
      if (r.verdict == eval::MabVerdict::kNotScorable) return;
      std::cerr << "[" << done << "/" << total << "] " << r.id << ": " << eval::MabVerdictName(r.verdict) << "\n";
    };
  }
  const eval::MabReport report = eval::RunMedAgentBench(*tasks, options);
  std::cout << report.Table();
  if (!flags.out.empty()) {
    if (Status s = WriteTextFile(DumpJson(report.ToJson(), 2) + "\n", flags.out); !s.ok()) {
      std::cerr << "medreact eval medagentbench: " << s.message() << "\n";
      return kExitRunFailed;
    }
  }
  return kExitOk;
}

}  // namespace

void AddEvalCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "eval", "evaluate on a benchmark ('eval medcalc': the calculator pack; 'eval medagentbench': FHIR agent tasks)");
  cmd->require_subcommand(1);
  auto flags = std::make_shared<EvalFlags>();
  CLI::App* medcalc = cmd->add_subcommand("medcalc", "score the calculators on MedCalc-Bench's test_data.csv");
  medcalc->add_option("--data", flags->data, "MedCalc-Bench test_data.csv")->required();
  medcalc->add_option("--out", flags->out, "write per-row results as JSON to this file");
  medcalc->add_option("--calculator", flags->calculator_id, "only this MedCalc-Bench Calculator ID");
  medcalc->callback([flags, exit_code] { *exit_code = RunEvalMedcalc(*flags); });

  auto mab = std::make_shared<MabFlags>();
  CLI::App* bench = cmd->add_subcommand(
      "medagentbench", "run MedAgentBench's tasks as agent runs over a FHIR server and score them (tasks 1, 2, 3, 8, 10)");
  bench->add_option("--tasks", mab->tasks, "MedAgentBench test_data_v2.json")->required();
  bench->add_option("--funcs", mab->funcs, "MedAgentBench funcs_v1.json (the FHIR functions the agent gets)")
      ->required();
  bench->add_option("--fhir-url", mab->fhir_url, "the FHIR R4 server's base URL")->required();
  bench->add_option("--ids", mab->ids, "only these task ids (comma-separated)");
  bench->add_flag("--allow-post", mab->allow_post, "send the agent's POSTs to the server (default: recorded only)");
  bench->add_option("--max-steps", mab->max_steps, "model turns per task (default: 8)")->check(CLI::Range(1, 50));
  bench->add_option("--out", mab->out, "write every task's result as JSON to this file");
  bench->add_flag("-q,--quiet", mab->quiet, "no progress on stderr");
  AddModelFlags(bench, &mab->model);
  bench->callback([mab, exit_code] { *exit_code = RunEvalMedAgentBench(*mab); });
}

}  // namespace medreact::cli
