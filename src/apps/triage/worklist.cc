#include "apps/triage/worklist.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <latch>
#include <map>
#include <mutex>
#include <set>

#include "apps/triage/triage_policy.h"
#include "core/file_io.h"
#include "core/printable.h"
#include "engine/thread_pool.h"
#include "medreact/trace.h"
#include "store/run_recorder.h"
#include "tools/fhir/fhir_pack.h"
#include "tools/fhir/fhir_rest.h"
#include "tools/rag/corpus_files.h"

namespace medreact {
namespace {

namespace fs = std::filesystem;

constexpr char kStateFile[] = "worklist.state.json";

struct LoadedCase {
  std::shared_ptr<const FhirStore> store;
  TriageCase triage;
  std::string record_path;  // fhir.json or fhir.ndjson
  std::string as_of;        // case.json's, or ""
};

// Whether `path` exists (a broken symlink or an unreadable folder counts as
// absent; the read that follows reports the precise error).
bool Exists(const fs::path& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

// case.json: optional, strict (a misspelt key is an error, not a silent default).
Status ApplyCaseFile(const fs::path& path, FhirStore& store, TriageCase& triage, std::string& as_of) {
  Result<std::string> text = ReadUserFile(path.string(), "case file", kMaxJsonConfigBytes);
  if (!text.ok()) return text.status();
  Result<Json> parsed = ParseJson(*text);
  if (!parsed.ok()) return Status::ParseError(path.string() + ": " + parsed.status().message());
  if (!parsed->is_object()) return Status::InvalidArgument(path.string() + ": expected a JSON object");
  static const std::set<std::string> kKeys = {"base_priority", "as_of", "description", "expected", "fhir_url",
                                              "patient"};
  for (auto it = parsed->begin(); it != parsed->end(); ++it) {
    if (!kKeys.count(it.key())) {
      return Status::InvalidArgument(path.string() + ": unknown key '" + it.key() +
                                     "' (known: base_priority, as_of, description, expected, fhir_url, patient)");
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
    as_of = it->get<std::string>();
  }
  return Status::OK();
}

// A case whose record is on a FHIR server: case.json's fhir_url and patient
// as "<base>/Patient/<id>" (tools/fhir/fhir_rest.h); "" when it names none.
Result<std::string> CaseRecordUrl(const fs::path& folder) {
  const fs::path path = folder / "case.json";
  if (!Exists(path)) return std::string();
  Result<std::string> text = ReadUserFile(path.string(), "case file", kMaxJsonConfigBytes);
  if (!text.ok()) return text.status();
  Result<Json> parsed = ParseJson(*text);
  if (!parsed.ok() || !parsed->is_object()) return std::string();  // ApplyCaseFile names the problem
  const std::string url = StringOr(*parsed, "fhir_url");
  const std::string patient = StringOr(*parsed, "patient");
  if (url.empty() && patient.empty()) return std::string();
  if (url.empty() || patient.empty()) {
    return Status::InvalidArgument(path.string() + ": fhir_url and patient go together");
  }
  const std::string locator = FhirPatientUrl(url, patient);
  if (!IsFhirPatientUrl(locator)) return Status::InvalidArgument(path.string() + ": fhir_url must be an http(s) URL");
  return locator;
}

Result<LoadedCase> LoadCase(const fs::path& folder) {
  fs::path record = folder / "fhir.json";
  if (!Exists(record)) record = folder / "fhir.ndjson";
  Result<std::string> url = CaseRecordUrl(folder);
  if (!url.ok()) return url.status();
  if (!url->empty() && Exists(record)) {
    return Status::InvalidArgument("'" + folder.string() + "' has both a record file and fhir_url in case.json");
  }
  if (url->empty() && !Exists(record)) {
    return Status::NotFound("no fhir.json or fhir.ndjson (or fhir_url in case.json) in '" + folder.string() + "'");
  }
  // Cases run side by side: each holds only what the fhir tools read.
  Result<FhirStore> store = url->empty() ? FhirStore::LoadFile(record.string(), FhirPackResourceTypes())
                                         : LoadFhirRecord(*url);
  if (!store.ok()) return store.status();
  if (!url->empty()) store->KeepOnly(FhirPackResourceTypes());

  LoadedCase loaded;
  loaded.record_path = url->empty() ? record.string() : *url;
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
    if (Status s = ApplyCaseFile(folder / "case.json", *store, loaded.triage, loaded.as_of); !s.ok()) return s;
  }
  loaded.store = std::make_shared<const FhirStore>(std::move(store).value());
  return loaded;
}

// What a case's run needs besides the config: its digest, a cut run of it to
// go on with (--resume), the store and the warning printer.
struct CaseRun {
  const WorklistOptions* options = nullptr;
  std::string dir;
  std::string digest;
  const RunRecord* cut = nullptr;
  std::function<void(const std::string&)> warn;
};

// A case's recorded model run, ended by the worker once the case's files and
// state entry are written: a kill in between leaves the run `running` while
// the folder vouches for the case, so --resume skips it and runs nothing
// twice (the other order would triage a finished case again).
struct RecordedRun {
  std::unique_ptr<RunRecorder> recorder;
  std::optional<RunResult> result;
  bool interrupted = false;
};

WorklistCaseResult TriageOne(const CaseRun& run, const std::string& name, TriageConfig config,
                             const Status& model_status, RecordedRun& recorded) {
  const auto start = std::chrono::steady_clock::now();
  const WorklistOptions& options = *run.options;
  WorklistCaseResult out;
  out.name = name;
  if (!model_status.ok()) {
    out.error = "model: " + model_status.message();
  } else if (Result<LoadedCase> loaded = LoadCase(fs::path(run.dir) / name); !loaded.ok()) {
    out.error = loaded.status().message();
  } else {
    try {
      // The model's investigation is recorded (the rules planner's is not: triage_app.h).
      std::unique_ptr<RunRecorder> recorder;
      std::optional<RunState> state;
      if (options.store && config.model && config.agent) {
        if (run.cut) {
          // The cut run is taken first: another worklist process resuming
          // the same case keeps it, and this one triages it afresh.
          Status claimed = options.store->ClaimRun(run.cut->id);
          Result<std::optional<RunState>> latest =
              claimed.ok() ? options.store->LatestState(run.cut->id) : Result<std::optional<RunState>>(claimed);
          if (latest.ok() && latest->has_value()) {
            state = std::move(**latest);
          } else {
            run.warn("case '" + name + "': cannot resume run '" + run.cut->id + "' (" +
                     (latest.ok() ? std::string("no checkpoint") : latest.status().message()) +
                     "); it is triaged from the start");
          }
        }
        TriageInputs inputs = MakeTriageInputs(loaded->record_path, loaded->as_of, loaded->triage, config);
        inputs.worklist_dir = run.dir;
        inputs.case_name = name;
        inputs.out_dir = options.out_dir;
        inputs.digest = run.digest;
        RunRecord record =
            state ? *run.cut
                  : RunRecord{.app = "triage", .inputs = TriageInputsToJson(inputs), .model = options.model_identity};
        auto warn = run.warn;
        recorder = std::make_unique<RunRecorder>(
            options.store, std::move(record), [warn, name](const std::string& w) { warn("case '" + name + "': " + w); },
            state.has_value());
        config.on_checkpoint = recorder->Hook();
        if (options.on_run_stored) {
          if (state) {
            options.on_run_stored(name, run.cut->id);
          } else {
            // The run's row exists once its first checkpoint is stored.
            config.on_checkpoint = [hook = std::move(config.on_checkpoint), rec = recorder.get(), &options, name,
                                    told = std::make_shared<bool>(false)](const RunState& s) {
              hook(s);
              if (!*told && !rec->run_id().empty()) {
                *told = true;
                options.on_run_stored(name, rec->run_id());
              }
            };
          }
        }
        config.on_event = recorder->Events(std::move(config.on_event));  // the store's copy first
      }
      if (options.on_case_event) {
        config.on_event = [inner = config.on_event, &options, name](const Event& e) {
          if (inner) inner(e);
          options.on_case_event(name, e);
        };
      }
      TriageOutcome triaged = state ? ResumeTriage(loaded->store, loaded->triage, config, *state)
                                    : RunTriage(loaded->store, loaded->triage, config);
      if (recorder && triaged.model_run) {
        // Stopped by the cancel token (Ctrl-C): resumable, as the CLI's single runs are.
        recorded.interrupted = config.cancel.cancelled() && triaged.model_run->status == RunStatus::kError;
        recorded.recorder = std::move(recorder);
        recorded.result = std::move(triaged.model_run);
      } else if (!recorder && options.store && options.record_always) {
        // No model investigated: stored as it ended, with the case's inputs.
        TriageInputs inputs = MakeTriageInputs(loaded->record_path, loaded->as_of, loaded->triage, config);
        inputs.worklist_dir = run.dir;
        inputs.case_name = name;
        inputs.out_dir = options.out_dir;
        inputs.digest = run.digest;
        auto warn = run.warn;
        recorded.recorder = std::make_unique<RunRecorder>(
            options.store,
            RunRecord{.app = "triage", .inputs = TriageInputsToJson(inputs), .model = options.model_identity},
            [warn, name](const std::string& w) { warn("case '" + name + "': " + w); });
        recorded.result = TriageAsEndedRun(triaged);
        if (triaged.trace) triaged.trace->run_id = recorded.result->trace.run_id;
        recorded.interrupted = config.cancel.cancelled() && triaged.status == RunStatus::kError;
      }
      out.ok = true;
      out.resumed = state.has_value();
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

// worklist.state.json's entries (case → {digest, status, elapsed_ms});
// empty when there is none. One that cannot be read vouches
// for nothing: `warn` says so and every case is triaged again.
std::map<std::string, Json> ReadState(const std::string& out_dir, const std::function<void(const std::string&)>& warn) {
  std::map<std::string, Json> entries;
  const fs::path path = fs::path(out_dir) / kStateFile;
  if (!Exists(path)) return entries;
  Result<std::string> text = ReadUserFile(path.string(), "worklist state", kMaxDataFileBytes);
  Result<Json> parsed = text.ok() ? ParseJson(*text) : Result<Json>(text.status());
  const Json* cases = nullptr;
  if (parsed.ok() && parsed->is_object()) {
    auto it = parsed->find("cases");
    if (it != parsed->end() && it->is_object()) cases = &*it;
  }
  if (cases == nullptr) {
    warn(path.string() + " cannot be read (" + (parsed.ok() ? "not a worklist state" : parsed.status().message()) +
         "); every case is triaged again");
    return entries;
  }
  for (auto it = cases->begin(); it != cases->end(); ++it) {
    if (it->is_object() && !StringOr(*it, "digest").empty()) entries[it.key()] = *it;
  }
  return entries;
}

Status WriteState(const std::string& out_dir, const std::map<std::string, Json>& entries) {
  Json cases = Json::object();
  for (const auto& [name, entry] : entries) cases[name] = entry;
  return WriteTextFile(DumpJson(Json{{"version", 1}, {"cases", std::move(cases)}}, 2) + "\n",
                       (fs::path(out_dir) / kStateFile).string());
}

// An earlier run's <case>.json, when it is a JSON object.
std::optional<OrderedJson> ReadEarlierResult(const std::string& out_dir, const std::string& name) {
  Result<std::string> text =
      ReadUserFile((fs::path(out_dir) / (name + ".json")).string(), "case result", kMaxDataFileBytes);
  if (!text.ok()) return std::nullopt;
  Result<OrderedJson> parsed = ParseOrderedJson(*text);
  if (!parsed.ok() || !parsed->is_object()) return std::nullopt;
  return std::move(parsed).value();
}

std::string WorklistPlanner(const WorklistOptions& options) {
  return !options.triage.agent ? "none" : options.make_model ? "model" : "rules";
}

// A plain folder name (an edited worklist.json or state file must not point outside).
bool PlainName(const std::string& name) {
  return !name.empty() && name.find('/') == std::string::npos && name != "." && name != "..";
}

// Removes what an earlier run wrote that this run does not vouch for: the
// <case>.json and <case>.trace.json of every listed case but `keep` (the
// finished, unchanged cases --resume skips), the files of cases named in the
// earlier worklist.json or state file that are gone from the list, and the
// earlier worklist.json (rewritten at the end). Files medreact did not name
// are left alone.
void RemoveStaleResults(const std::string& out_dir, const std::vector<std::string>& cases,
                        const std::set<std::string>& earlier, const std::set<std::string>& keep) {
  std::set<std::string> names(cases.begin(), cases.end());
  for (const std::string& name : earlier) {
    if (PlainName(name)) names.insert(name);
  }
  if (Result<std::string> text =
          ReadUserFile((fs::path(out_dir) / "worklist.json").string(), "worklist.json", kMaxDataFileBytes);
      text.ok()) {
    if (Result<Json> parsed = ParseJson(*text); parsed.ok() && parsed->is_object()) {
      for (const char* list : {"cases", "failed"}) {
        auto entries = parsed->find(list);
        if (entries == parsed->end() || !entries->is_array()) continue;
        for (const Json& entry : *entries) {
          const std::string name = StringOr(entry, "case");
          if (PlainName(name)) names.insert(name);
        }
      }
    }
  }
  std::error_code ec;
  for (const std::string& name : names) {
    if (keep.count(name)) continue;
    fs::remove(fs::path(out_dir) / (name + ".json"), ec);
    fs::remove(fs::path(out_dir) / (name + ".trace.json"), ec);
  }
  fs::remove(fs::path(out_dir) / "worklist.json", ec);
}

// A case's <case>.json and (when `trace` is not null) <case>.trace.json.
Status WriteCaseFiles(const std::string& out_dir, const std::string& name, const OrderedJson& result,
                      const OrderedJson& trace) {
  const fs::path base = fs::path(out_dir) / name;
  Status s = WriteTextFile(DumpJson(result, 2) + "\n", base.string() + ".json");
  if (s.ok() && !trace.is_null()) s = WriteTextFile(DumpJson(trace, 2) + "\n", base.string() + ".trace.json");
  return s;
}

// Vouched for once its files are written: finished, not on a limit, an error or the fallback.
bool Vouched(const WorklistCaseResult& c, const std::string& digest) {
  return c.ok && !c.skipped && c.status == RunStatus::kFinished && !c.fell_back && !digest.empty();
}

Json StateEntry(const WorklistCaseResult& c, const std::string& digest) {
  return Json{{"digest", digest}, {"status", RunStatusName(c.status)}, {"elapsed_ms", c.elapsed_ms}};
}

void SortAndWriteReport(const std::string& out_dir, WorklistReport& report);

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
    return Status::NotFound("'" + dir +
                            "' holds no case folders (each case is a folder with fhir.json and findings.txt)");
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

std::string CaseDigest(const std::string& case_dir, const WorklistOptions& options) {
  const fs::path folder(case_dir);
  fs::path record = folder / "fhir.json";
  if (!Exists(record)) record = folder / "fhir.ndjson";
  // Each file's name, size and FNV-1a of its bytes; then the settings that
  // decide a triage. A digest of digests: no big record is copied.
  std::string material = "medreact worklist case v1\n";
  const struct {
    fs::path path;
    size_t cap;
  } files[] = {{record, kMaxRecordBytes},
               {folder / "findings.txt", kMaxTextInputBytes},
               {folder / "case.json", kMaxJsonConfigBytes}};
  for (const auto& f : files) {
    if (f.path.filename() == "case.json" && !Exists(f.path)) {
      material += "case.json absent\n";
      continue;
    }
    if (f.path == record && !Exists(f.path)) {  // on a FHIR server: case.json names it
      material += "record on a FHIR server\n";
      continue;
    }
    Result<std::string> bytes = ReadUserFile(f.path.string(), "case file", f.cap);
    if (!bytes.ok()) return "";
    material += f.path.filename().string() + " " + std::to_string(bytes->size()) + " " +
                std::to_string(Fnv1a64Value(*bytes)) + "\n";
  }
  const TriageConfig& t = options.triage;
  material += DumpJson(Json{{"planner", WorklistPlanner(options)},
                            {"model", options.make_model ? options.model_identity : Json()},
                            {"max_steps", t.max_steps},
                            {"timeout_ms", t.timeout.count()},
                            {"tool_timeout_ms", t.tool_timeout.count()},
                            {"temperature", t.temperature ? Json(*t.temperature) : Json()},
                            {"max_tokens", t.max_tokens ? Json(*t.max_tokens) : Json()},
                            {"fallback_to_rules", t.fallback_to_rules}});
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(Fnv1a64Value(material)));
  return hex;
}

WorklistReport RunWorklist(const std::string& dir, const std::vector<std::string>& cases,
                           const WorklistOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  WorklistReport report;
  report.planner = WorklistPlanner(options);
  report.cases.resize(cases.size());
  std::mutex warn_mu;
  const std::function<void(const std::string&)> warn = [&](const std::string& w) {
    std::lock_guard<std::mutex> lock(warn_mu);
    if (options.on_warning) options.on_warning(w);
  };

  // What decided each case, and (--resume) the cases finished earlier with the same inputs.
  std::vector<std::string> digests(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) digests[i] = CaseDigest((fs::path(dir) / cases[i]).string(), options);
  std::vector<bool> skip(cases.size(), false);
  std::map<std::string, Json> state;  // the finished cases the output folder vouches for
  const bool writing = !options.out_dir.empty();
  if (writing) {
    std::error_code ec;
    fs::create_directories(options.out_dir, ec);
    if (ec) report.write_error = "cannot create '" + options.out_dir + "': " + ec.message();
    if (!ec) {
      // Without --resume the state only names files to remove: a damaged one is no news.
      const std::map<std::string, Json> earlier =
          ReadState(options.out_dir, options.resume ? warn : [](const std::string&) {});
      std::set<std::string> earlier_names;
      for (const auto& [name, entry] : earlier) earlier_names.insert(name);
      for (size_t i = 0; options.resume && i < cases.size(); ++i) {
        auto it = earlier.find(cases[i]);
        if (it == earlier.end() || digests[i].empty() || StringOr(it->second, "digest") != digests[i]) continue;
        std::optional<OrderedJson> result = ReadEarlierResult(options.out_dir, cases[i]);
        if (!result) continue;
        WorklistCaseResult& c = report.cases[i];
        c.name = cases[i];
        c.ok = true;
        c.skipped = true;
        c.result = std::move(*result);
        c.elapsed_ms = NumberOr(it->second, "elapsed_ms", 0);
        skip[i] = true;
        state[cases[i]] = it->second;
      }
      RemoveStaleResults(options.out_dir, cases, earlier_names, [&] {
        std::set<std::string> keep;
        for (const auto& [name, entry] : state) keep.insert(name);
        return keep;
      }());
      if (Status s = WriteState(options.out_dir, state); !s.ok()) report.write_error = s.message();
    }
  }
  // --resume with a store: the cut runs (killed or interrupted) of these cases with the same inputs, newest first.
  std::map<std::string, RunRecord> cut;
  if (options.resume && options.store && report.planner == "model") {
    Result<std::vector<RunRecord>> runs = options.store->List({.app = "triage"});
    if (!runs.ok()) warn("cannot read the run store (" + runs.status().message() + "); cut cases start over");
    for (const RunRecord& r : runs.ok() ? *runs : std::vector<RunRecord>()) {
      if (r.status != "running" && r.status != "interrupted") continue;
      Result<TriageInputs> inputs = TriageInputsFromJson(r.inputs);
      if (!inputs.ok() || inputs->worklist_dir.empty()) continue;
      for (size_t i = 0; i < cases.size(); ++i) {
        if (skip[i] || inputs->case_name != cases[i] || inputs->digest != digests[i] || cut.count(cases[i])) continue;
        TriageInputs expected;
        expected.worklist_dir = dir;
        expected.case_name = cases[i];
        expected.out_dir = options.out_dir;
        expected.digest = digests[i];
        auto stored = r.inputs.find("worklist");  // there: inputs->worklist_dir is set
        if (stored != r.inputs.end() && TriageInputsToJson(expected)["worklist"] == *stored) cut[cases[i]] = r;
      }
    }
  }

  // Runs named to go on with (a job queue's retry or takeover), when they were cut.
  for (const auto& [name, run_id] : options.resume_runs) {
    if (!options.store || report.planner != "model" || run_id.empty()) break;
    Result<RunRecord> r = options.store->Get(run_id);
    if (!r.ok()) {
      warn("case '" + name + "': run '" + run_id + "' cannot be read (" + r.status().message() +
           "); the case starts over");
      continue;
    }
    if (r->status == "running" || r->status == "interrupted" || r->status == "error") cut[name] = std::move(*r);
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
      RecordedRun recorded;
      try {  // a bug must cost one case, never the list (an escaped exception ends the process)
        if (skip[i]) {
          result = report.cases[i];  // finished earlier with the same inputs; its files stay
        } else if (config.cancel.cancelled()) {
          result.error = "not run: the worklist was cancelled";
          result.not_run = true;
        } else {
          auto found = cut.find(cases[i]);
          const CaseRun run{.options = &options,
                            .dir = dir,
                            .digest = digests[i],
                            .cut = found == cut.end() ? nullptr : &found->second,
                            .warn = warn};
          result = TriageOne(run, cases[i], config, model_status, recorded);
        }
        if (writing && result.ok && !result.skipped) {
          const OrderedJson trace = result.trace ? ToJson(*result.trace) : OrderedJson();
          s = WriteCaseFiles(options.out_dir, cases[i], result.result, trace);
        }
      } catch (const std::exception& e) {
        result.ok = false;
        result.error = std::string("internal error: ") + e.what();
      }
      std::lock_guard<std::mutex> lock(mu);
      if (!s.ok() && report.write_error.empty()) report.write_error = s.message();
      // Vouched for once its files are written: finished, not on a limit, an error or the fallback.
      if (writing && s.ok() && Vouched(result, digests[i])) {
        state[cases[i]] = StateEntry(result, digests[i]);
        if (Status w = WriteState(options.out_dir, state); !w.ok() && report.write_error.empty()) {
          report.write_error = w.message();
        }
      }
      if (recorded.recorder) recorded.recorder->Finish(*recorded.result, recorded.interrupted);
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

  report.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  SortAndWriteReport(options.out_dir, report);
  return report;
}

namespace {

// Sorts the cases, counts them and writes worklist.json (when out_dir is set).
void SortAndWriteReport(const std::string& out_dir, WorklistReport& report) {
  std::stable_sort(report.cases.begin(), report.cases.end(), WorklistOrder);
  for (const WorklistCaseResult& c : report.cases) {
    if (!c.ok) ++report.failed;
    if (c.ok && c.status != RunStatus::kFinished) ++report.not_finished;
    report.skipped += c.skipped;
    report.resumed += c.resumed;
  }
  if (!out_dir.empty()) {
    if (Status s = WriteTextFile(DumpJson(WorklistJson(report), 2) + "\n", (fs::path(out_dir) / "worklist.json").string());
        !s.ok() && report.write_error.empty()) {
      report.write_error = s.message();
    }
  }
}

}  // namespace

OrderedJson WorklistCaseToJson(const WorklistCaseResult& c, const std::string& planner, const std::string& digest) {
  return OrderedJson{{"case", c.name},
                     {"ok", c.ok},
                     {"error", c.error},
                     {"status", RunStatusName(c.status)},
                     {"fell_back", c.fell_back},
                     {"resumed", c.resumed},
                     {"elapsed_ms", c.elapsed_ms},
                     {"planner", planner},
                     {"digest", digest},
                     {"result", c.ok ? c.result : OrderedJson()},
                     {"trace", c.trace ? ToJson(*c.trace) : OrderedJson()}};
}

Result<FinishedCase> WorklistCaseFromJson(const OrderedJson& j) {
  if (!j.is_object()) return Status::InvalidArgument("a worklist case's result is not a JSON object");
  auto text = [&](const char* key) -> std::string {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto flag = [&](const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_boolean() && it->get<bool>();
  };
  FinishedCase out;
  out.result.name = text("case");
  if (!PlainName(out.result.name)) return Status::InvalidArgument("a worklist case's result names no plain case");
  out.result.ok = flag("ok");
  out.result.error = text("error");
  out.result.fell_back = flag("fell_back");
  out.result.resumed = flag("resumed");
  if (auto it = j.find("elapsed_ms"); it != j.end() && it->is_number()) out.result.elapsed_ms = it->get<double>();
  if (out.result.ok) {
    std::optional<RunStatus> status;
    for (RunStatus st : {RunStatus::kFinished, RunStatus::kMaxSteps, RunStatus::kStuck, RunStatus::kTimeout,
                         RunStatus::kBudget, RunStatus::kError, RunStatus::kAwaitingApproval}) {
      if (text("status") == RunStatusName(st)) status = st;
    }
    if (!status) return Status::InvalidArgument("case '" + out.result.name + "': unknown status '" + text("status") + "'");
    out.result.status = *status;
    auto result = j.find("result");
    if (result == j.end() || !result->is_object()) {
      return Status::InvalidArgument("case '" + out.result.name + "': its result is not a JSON object");
    }
    out.result.result = *result;
  }
  if (auto it = j.find("trace"); it != j.end() && it->is_object()) out.trace = *it;
  out.digest = text("digest");
  out.planner = text("planner");
  return out;
}

FinishedCase FailedCase(const std::string& name, const std::string& error) {
  FinishedCase out;
  out.result.name = name;
  out.result.error = error;
  return out;
}

WorklistReport FinishWorklist(const std::string& out_dir, std::vector<FinishedCase> cases, double elapsed_ms) {
  WorklistReport report;
  report.elapsed_ms = elapsed_ms;
  for (const FinishedCase& c : cases) {
    if (!c.planner.empty()) report.planner = c.planner;
  }
  if (report.planner.empty()) report.planner = "model";
  if (!out_dir.empty()) {
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (ec) {
      report.write_error = "cannot create '" + out_dir + "': " + ec.message();
    } else {
      std::set<std::string> earlier;
      for (const auto& [name, entry] : ReadState(out_dir, [](const std::string&) {})) earlier.insert(name);
      std::vector<std::string> names;
      for (const FinishedCase& c : cases) names.push_back(c.result.name);
      RemoveStaleResults(out_dir, names, earlier, {});
      std::map<std::string, Json> state;
      for (const FinishedCase& c : cases) {
        if (!c.result.ok) continue;
        Status s = WriteCaseFiles(out_dir, c.result.name, c.result.result, c.trace);
        if (!s.ok() && report.write_error.empty()) report.write_error = s.message();
        if (s.ok() && Vouched(c.result, c.digest)) state[c.result.name] = StateEntry(c.result, c.digest);
      }
      if (Status s = WriteState(out_dir, state); !s.ok() && report.write_error.empty()) report.write_error = s.message();
    }
  }
  for (FinishedCase& c : cases) report.cases.push_back(std::move(c.result));
  SortAndWriteReport(out_dir, report);
  return report;
}

namespace {

// True when the case's result asks for a person (the safety floor held a
// model's decrease, or a critical finding names what no tool returned).
bool NeedsReview(const WorklistCaseResult& c) {
  auto it = c.result.find("needs_review");
  return c.ok && it != c.result.end() && it->is_boolean() && it->get<bool>();
}

std::vector<std::string> ReviewReasons(const WorklistCaseResult& c) {
  std::vector<std::string> out;
  auto it = c.result.find("review_reasons");
  if (it == c.result.end() || !it->is_array()) return out;
  for (const auto& reason : *it) {
    if (reason.is_string()) out.push_back(reason.get<std::string>());
  }
  return out;
}

}  // namespace

OrderedJson WorklistJson(const WorklistReport& report) {
  OrderedJson triaged = OrderedJson::array();
  OrderedJson failed = OrderedJson::array();
  OrderedJson review = OrderedJson::array();
  std::map<int, int> by_priority = {{1, 0}, {2, 0}, {3, 0}};
  for (const WorklistCaseResult& c : report.cases) {
    if (!c.ok) {
      failed.push_back(OrderedJson{{"case", c.name}, {"error", c.error}});
      continue;
    }
    ++by_priority[Priority(c)];
    if (NeedsReview(c)) review.push_back(OrderedJson{{"case", c.name}, {"reasons", ReviewReasons(c)}});
    triaged.push_back(OrderedJson{{"case", c.name},
                                  {"status", RunStatusName(c.status)},
                                  {"fell_back", c.fell_back},
                                  {"skipped", c.skipped},
                                  {"needs_review", NeedsReview(c)},
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
                       {"skipped", report.skipped},
                       {"resumed", report.resumed},
                       {"needs_review", review.size()},
                       {"by_priority", priorities}}},
                     {"cases", triaged},
                     {"needs_review", review},
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
    if (NeedsReview(c)) adjustment += "!";
    if (c.status != RunStatus::kFinished) adjustment += " (" + std::string(RunStatusName(c.status)) + ")";
    // Names, ids and findings come from the case folders and the model: each shown as one line.
    rows.push_back(
        {std::to_string(++rank), PrintableLine(c.name),
         PrintableLine(Shorten(c.result.value("patient_id", std::string()), 12)),
         std::to_string(base) + " " + PriorityName(base) + " → " + std::to_string(final) + " " + PriorityName(final),
         PrintableLine(adjustment), JoinFindings(c).empty() ? "-" : PrintableLine(JoinFindings(c))});
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
  size_t reviews = 0;
  for (const WorklistCaseResult& c : report.cases) reviews += NeedsReview(c) ? 1 : 0;
  if (reviews > 0) {
    out += "! needs review by a person (" + std::to_string(reviews) + "):\n";
    for (const WorklistCaseResult& c : report.cases) {
      if (!NeedsReview(c)) continue;
      for (const std::string& reason : ReviewReasons(c)) out += "  " + c.name + ": " + reason + "\n";
    }
  }
  if (report.failed > 0) {
    out += "\nFailed cases (" + std::to_string(report.failed) + "):\n";
    for (const WorklistCaseResult& c : report.cases) {
      if (!c.ok) out += "  " + PrintableLine(c.name) + ": " + PrintableLine(c.error) + "\n";
    }
  }
  return out;
}

}  // namespace medreact
