#include "apps/triage/worklist.h"

#include <algorithm>
#include <cctype>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iterator>
#include <latch>
#include <map>
#include <mutex>
#include <set>

#include "apps/triage/triage_policy.h"
#include "core/file_io.h"
#include "engine/thread_pool.h"
#include "tools/fhir/fhir_pack.h"
#include "medreact/trace.h"

namespace medreact {
namespace {

namespace fs = std::filesystem;

struct LoadedCase {
  std::shared_ptr<const FhirStore> store;
  TriageCase triage;
};

// Whether `path` exists (a broken symlink or an unreadable folder counts as
// absent; the read that follows reports the precise error).
bool Exists(const fs::path& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

// case.json: optional, strict (a misspelt key is an error, not a silent default).
Status ApplyCaseFile(const fs::path& path, FhirStore& store, TriageCase& triage) {
  Result<std::string> text = ReadUserFile(path.string(), "case file", kMaxJsonConfigBytes);
  if (!text.ok()) return text.status();
  Result<Json> parsed = ParseJson(*text);
  if (!parsed.ok()) return Status::ParseError(path.string() + ": " + parsed.status().message());
  if (!parsed->is_object()) return Status::InvalidArgument(path.string() + ": expected a JSON object");
  static const std::set<std::string> kKeys = {"base_priority", "as_of", "description", "expected"};
  for (auto it = parsed->begin(); it != parsed->end(); ++it) {
    if (!kKeys.count(it.key())) {
      return Status::InvalidArgument(path.string() + ": unknown key '" + it.key() +
                                     "' (known: base_priority, as_of, description, expected)");
    }
  }
  if (auto it = parsed->find("base_priority"); it != parsed->end()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > 3) {
      return Status::InvalidArgument(path.string() + ": base_priority must be 1, 2 or 3, got " + DumpJson(*it));
    }
    triage.base_priority = it->get<int>();
  }
  if (auto it = parsed->find("as_of"); it != parsed->end()) {
    if (!it->is_string()) return Status::InvalidArgument(path.string() + ": as_of must be a \"YYYY-MM-DD\" string");
    if (Status s = store.SetAsOf(it->get<std::string>()); !s.ok()) {
      return Status::InvalidArgument(path.string() + ": as_of: " + s.message());
    }
  }
  return Status::OK();
}

Result<LoadedCase> LoadCase(const fs::path& folder) {
  fs::path record = folder / "fhir.json";
  if (!Exists(record)) record = folder / "fhir.ndjson";
  if (!Exists(record)) return Status::NotFound("no fhir.json or fhir.ndjson in '" + folder.string() + "'");
  // Cases run side by side: each holds only what the fhir tools read.
  Result<FhirStore> store = FhirStore::LoadFile(record.string(), FhirPackResourceTypes());
  if (!store.ok()) return store.status();

  LoadedCase loaded;
  Result<std::string> findings = ReadUserFile((folder / "findings.txt").string(), "findings", kMaxTextInputBytes);
  if (!findings.ok() && findings.status().code() == StatusCode::kNotFound) {
    return Status::NotFound("no findings.txt in '" + folder.string() + "'");
  }
  if (!findings.ok()) return findings.status();
  if (findings->find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::InvalidArgument((folder / "findings.txt").string() + " is empty");
  }
  loaded.triage.findings = std::move(findings).value();
  while (!loaded.triage.findings.empty() && std::isspace(static_cast<unsigned char>(loaded.triage.findings.back()))) {
    loaded.triage.findings.pop_back();
  }
  if (Exists(folder / "case.json")) {
    if (Status s = ApplyCaseFile(folder / "case.json", *store, loaded.triage); !s.ok()) return s;
  }
  loaded.store = std::make_shared<const FhirStore>(std::move(store).value());
  return loaded;
}

WorklistCaseResult TriageOne(const std::string& dir, const std::string& name, const TriageConfig& config,
                             const Status& model_status) {
  const auto start = std::chrono::steady_clock::now();
  WorklistCaseResult out;
  out.name = name;
  if (!model_status.ok()) {
    out.error = "model: " + model_status.message();
  } else if (Result<LoadedCase> loaded = LoadCase(fs::path(dir) / name); !loaded.ok()) {
    out.error = loaded.status().message();
  } else {
    try {
      TriageOutcome triaged = RunTriage(loaded->store, loaded->triage, config);
      out.ok = true;
      out.result = std::move(triaged.result);
      out.status = triaged.status;
      out.fell_back = triaged.fell_back;
      out.trace = std::move(triaged.trace);
    } catch (const std::exception& e) {  // a bug must cost one case, never the list
      out.error = std::string("internal error: ") + e.what();
    }
  }
  out.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

// Removes what an earlier run wrote that this run may not overwrite: every
// listed case's <case>.json and <case>.trace.json (rewritten only if the case
// succeeds now), and the files of cases named in the earlier worklist.json
// that are gone from the list. Files medreact did not name are left alone.
void RemoveStaleResults(const std::string& out_dir, const std::vector<std::string>& cases) {
  std::set<std::string> names(cases.begin(), cases.end());
  if (Result<std::string> text = ReadUserFile((fs::path(out_dir) / "worklist.json").string(), "worklist.json",
                                              kMaxDataFileBytes);
      text.ok()) {
    if (Result<Json> earlier = ParseJson(*text); earlier.ok() && earlier->is_object()) {
      for (const char* list : {"cases", "failed"}) {
        const Json& entries = earlier->value(list, Json::array());
        if (!entries.is_array()) continue;
        for (const Json& entry : entries) {
          const std::string name = StringOr(entry, "case");
          // Only plain folder names: an edited worklist.json must not point outside.
          if (!name.empty() && name.find('/') == std::string::npos && name != "." && name != "..") {
            names.insert(name);
          }
        }
      }
    }
  }
  for (const std::string& name : names) {
    std::error_code ec;
    fs::remove(fs::path(out_dir) / (name + ".json"), ec);
    fs::remove(fs::path(out_dir) / (name + ".trace.json"), ec);
  }
}

int Priority(const WorklistCaseResult& c) { return c.result.value("priority_level", 9); }
int BasePriority(const WorklistCaseResult& c) { return c.result.value("base_priority", 9); }

std::string Adjustment(const WorklistCaseResult& c) {
  const auto& reasoning = c.result.contains("agent_reasoning") ? c.result["agent_reasoning"] : OrderedJson();
  if (!reasoning.is_object() || !reasoning.contains("risk_adjustment") || !reasoning["risk_adjustment"].is_string()) {
    return "-";
  }
  return reasoning["risk_adjustment"].get<std::string>();
}

int AdjustmentRank(const std::string& adjustment) {
  if (adjustment == "INCREASE") return 0;
  if (adjustment == "DECREASE") return 2;
  return 1;
}

std::string JoinFindings(const WorklistCaseResult& c) {
  std::string out;
  if (!c.result.contains("agent_reasoning")) return out;
  const auto& findings = c.result["agent_reasoning"]["critical_findings"];
  if (!findings.is_array()) return out;
  for (const auto& f : findings) {
    if (f.is_string()) out += (out.empty() ? "" : "; ") + f.get<std::string>();
  }
  return out;
}

// Display width in code points (UTF-8 continuation bytes do not count).
size_t Width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string Pad(const std::string& s, size_t width) {
  const size_t w = Width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

std::string Shorten(const std::string& s, size_t max) {
  if (Width(s) <= max) return s;
  std::string out;
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if ((c & 0xC0) != 0x80 && ++n > max - 1) break;
    out += s[i];
  }
  return out + "…";
}

}  // namespace

Result<std::vector<std::string>> ListWorklistCases(const std::string& dir, const std::string& skip) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::NotFound("'" + dir + "' is not a directory");
  fs::path skip_path;
  if (!skip.empty() && fs::exists(skip, ec)) skip_path = fs::canonical(skip, ec);
  std::vector<std::string> names;
  fs::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code entry_ec;
    if (!it->is_directory(entry_ec)) continue;
    if (!skip_path.empty() && fs::canonical(it->path(), entry_ec) == skip_path) continue;
    names.push_back(it->path().filename().string());
  }
  if (ec) return Status::InvalidArgument("cannot list '" + dir + "': " + ec.message());
  if (names.empty()) {
    return Status::NotFound("'" + dir + "' holds no case folders (each case is a folder with fhir.json and findings.txt)");
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool WorklistOrder(const WorklistCaseResult& a, const WorklistCaseResult& b) {
  if (a.ok != b.ok) return a.ok;
  if (a.ok) {
    if (Priority(a) != Priority(b)) return Priority(a) < Priority(b);
    if (AdjustmentRank(Adjustment(a)) != AdjustmentRank(Adjustment(b))) {
      return AdjustmentRank(Adjustment(a)) < AdjustmentRank(Adjustment(b));
    }
    if (BasePriority(a) != BasePriority(b)) return BasePriority(a) < BasePriority(b);
  }
  return a.name < b.name;
}

WorklistReport RunWorklist(const std::string& dir, const std::vector<std::string>& cases,
                           const WorklistOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  WorklistReport report;
  report.planner = !options.triage.agent ? "none" : options.make_model ? "model" : "rules";
  report.cases.resize(cases.size());
  if (!options.out_dir.empty()) {
    std::error_code ec;
    fs::create_directories(options.out_dir, ec);
    if (ec) report.write_error = "cannot create '" + options.out_dir + "': " + ec.message();
    if (!ec) RemoveStaleResults(options.out_dir, cases);
  }

  std::atomic<size_t> next{0};
  size_t done = 0;
  std::mutex mu;
  auto worker = [&] {
    TriageConfig config = options.triage;
    Status model_status = Status::OK();
    if (options.make_model && config.agent) {
      Result<std::shared_ptr<ChatModel>> model = options.make_model();
      if (model.ok()) {
        config.model = *model;
      } else {
        model_status = model.status();
      }
    }
    for (size_t i = next++; i < cases.size(); i = next++) {
      WorklistCaseResult result;
      result.name = cases[i];
      Status s = Status::OK();
      try {  // a bug must cost one case, never the list (an escaped exception ends the process)
        if (config.cancel.cancelled()) {
          result.error = "not run: the worklist was cancelled";
        } else {
          result = TriageOne(dir, cases[i], config, model_status);
        }
        if (!options.out_dir.empty() && result.ok) {
          const fs::path base = fs::path(options.out_dir) / cases[i];
          s = WriteTextFile(DumpJson(result.result, 2) + "\n", base.string() + ".json");
          if (s.ok() && result.trace) s = WriteTraceFile(*result.trace, base.string() + ".trace.json");
        }
      } catch (const std::exception& e) {
        result.ok = false;
        result.error = std::string("internal error: ") + e.what();
      }
      std::lock_guard<std::mutex> lock(mu);
      if (!s.ok() && report.write_error.empty()) report.write_error = s.message();
      ++done;
      if (options.on_case_done) {
        try {
          options.on_case_done(result, done, cases.size());
        } catch (...) {  // a progress printer must not end the list
        }
      }
      report.cases[i] = std::move(result);
    }
  };
  // The other workers run on the engine's shared threads (the cases' agents
  // reuse them for their tool calls); this thread is one of the workers.
  const size_t threads = std::max<size_t>(1, std::min<size_t>(std::max(1, options.concurrency), cases.size()));
  std::latch finished(static_cast<std::ptrdiff_t>(threads - 1));
  ThreadPool pool(static_cast<int>(threads));
  for (size_t t = 1; t < threads; ++t) {
    pool.Submit([&] {
      worker();
      finished.count_down();
    });
  }
  worker();
  finished.wait();

  std::stable_sort(report.cases.begin(), report.cases.end(), WorklistOrder);
  for (const WorklistCaseResult& c : report.cases) {
    if (!c.ok) ++report.failed;
    if (c.ok && c.status != RunStatus::kFinished) ++report.not_finished;
  }
  report.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!options.out_dir.empty()) {
    if (Status s = WriteTextFile(DumpJson(WorklistJson(report), 2) + "\n",
                                 (fs::path(options.out_dir) / "worklist.json").string());
        !s.ok() && report.write_error.empty()) {
      report.write_error = s.message();
    }
  }
  return report;
}

OrderedJson WorklistJson(const WorklistReport& report) {
  OrderedJson triaged = OrderedJson::array();
  OrderedJson failed = OrderedJson::array();
  std::map<int, int> by_priority = {{1, 0}, {2, 0}, {3, 0}};
  for (const WorklistCaseResult& c : report.cases) {
    if (!c.ok) {
      failed.push_back(OrderedJson{{"case", c.name}, {"error", c.error}});
      continue;
    }
    ++by_priority[Priority(c)];
    triaged.push_back(OrderedJson{{"case", c.name},
                                  {"status", RunStatusName(c.status)},
                                  {"fell_back", c.fell_back},
                                  {"elapsed_ms", c.elapsed_ms},
                                  {"result", c.result}});
  }
  OrderedJson priorities = OrderedJson::object();
  for (const auto& [priority, count] : by_priority) priorities[PriorityName(priority)] = count;
  return OrderedJson{{"planner", report.planner},
                     {"elapsed_ms", report.elapsed_ms},
                     {"counts",
                      {{"cases", report.cases.size()},
                       {"triaged", report.cases.size() - report.failed},
                       {"failed", report.failed},
                       {"not_finished", report.not_finished},
                       {"by_priority", priorities}}},
                     {"cases", triaged},
                     {"failed", failed}};
}

std::string RenderWorklistTable(const WorklistReport& report) {
  struct Row {
    std::string rank, name, patient, priority, adjustment, findings;
  };
  std::vector<Row> rows = {{"#", "case", "patient", "base → final", "adjust", "critical findings"}};
  int rank = 0;
  for (const WorklistCaseResult& c : report.cases) {
    if (!c.ok) continue;
    const int base = BasePriority(c);
    const int final = Priority(c);
    std::string adjustment = Adjustment(c);
    if (c.fell_back) adjustment += "*";
    if (c.status != RunStatus::kFinished) adjustment += " (" + std::string(RunStatusName(c.status)) + ")";
    rows.push_back({std::to_string(++rank), c.name, Shorten(c.result.value("patient_id", std::string()), 12),
                    std::to_string(base) + " " + PriorityName(base) + " → " + std::to_string(final) + " " +
                        PriorityName(final),
                    adjustment, JoinFindings(c).empty() ? "-" : JoinFindings(c)});
  }
  std::vector<size_t> widths(5, 0);
  for (const Row& r : rows) {
    const std::string cells[] = {r.rank, r.name, r.patient, r.priority, r.adjustment};
    for (size_t i = 0; i < 5; ++i) widths[i] = std::max(widths[i], Width(cells[i]));
  }
  std::string out;
  for (const Row& r : rows) {
    out += Pad(r.rank, widths[0]) + "  " + Pad(r.name, widths[1]) + "  " + Pad(r.patient, widths[2]) + "  " +
           Pad(r.priority, widths[3]) + "  " + Pad(r.adjustment, widths[4]) + "  " + r.findings + "\n";
  }
  bool any_fallback = false;
  for (const WorklistCaseResult& c : report.cases) any_fallback = any_fallback || c.fell_back;
  if (any_fallback) out += "* the model never answered; the rules planner decided this case\n";
  if (report.failed > 0) {
    out += "\nFailed cases (" + std::to_string(report.failed) + "):\n";
    for (const WorklistCaseResult& c : report.cases) {
      if (!c.ok) out += "  " + c.name + ": " + c.error + "\n";
    }
  }
  return out;
}

}  // namespace medreact
