// `medreact trace show FILE`: a run trace as a person reads it — status,
// model, timings, then each step's text, calls and results, one line each
// (long values shortened). The JSON file stays the record; this is a view.
#include <fstream>
#include <iostream>
#include <iterator>

#include "cli/commands.h"
#include "medreact/json.h"

namespace medreact::cli {
namespace {

std::string Str(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

int RunTraceShow(const std::string& path, size_t width) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "medreact trace: cannot read '" << path << "'\n";
    return kExitBadInput;
  }
  auto trace = ParseJson(std::string(std::istreambuf_iterator<char>(in), {}));
  if (!trace.ok() || !trace->is_object() || !trace->contains("steps") || !(*trace)["steps"].is_array()) {
    std::cerr << "medreact trace: '" << path << "' is not a medreact run trace"
              << (trace.ok() ? "" : ": " + trace.status().message()) << "\n";
    return kExitBadInput;
  }
  const Json& t = *trace;
  std::cout << "status:   " << Str(t, "status") << "\n"
            << "model:    " << Str(t, "model") << " (" << Str(t, "protocol") << ")\n"
            << "started:  " << Str(t, "started_at") << ", " << t.value("elapsed_ms", 0.0) << " ms\n";
  if (t.contains("usage")) std::cout << "tokens:   " << t["usage"].value("total_tokens", 0) << "\n";
  if (!Str(t, "error").empty()) std::cout << "stopped:  " << Str(t, "error") << "\n";
  for (const Json& s : t["steps"]) {
    std::cout << "step " << s.value("index", 0) << (Str(s, "kind") == "fallback" ? " (fallback synthesis)" : "")
              << ", " << s.value("elapsed_ms", 0.0) << " ms\n";
    const Json& a = s.value("assistant", Json::object());
    if (!Str(a, "content").empty()) std::cout << "  says:   " << Preview(Str(a, "content"), width) << "\n";
    const Json calls = a.value("tool_calls", Json::array());
    const Json results = s.value("tool_results", Json::array());
    for (size_t i = 0; i < calls.size(); ++i) {
      std::cout << "  call:   " << Str(calls[i], "name") << " " << Preview(Str(calls[i], "arguments"), width) << "\n";
      if (i < results.size()) {
        const Json& r = results[i];
        bool ok = r.value("ok", false);
        std::cout << (ok ? "  result: " : "  error:  ") << Preview(ok ? Str(r, "content") : Str(r, "error"), width)
                  << "\n";
      }
    }
    if (!Str(s, "parse_error").empty()) std::cout << "  unusable reply: " << Preview(Str(s, "parse_error"), width) << "\n";
    if (!Str(s, "model_error").empty()) std::cout << "  model error: " << Str(s, "model_error") << "\n";
    for (const Json& note : s.value("notes", Json::array())) {
      if (note.is_string()) std::cout << "  note:   " << note.get<std::string>() << "\n";
    }
  }
  std::cout << "answer:   " << Str(t, "answer") << "\n";
  return kExitOk;
}

}  // namespace

void AddTraceCommand(CLI::App& app, int* exit_code) {
  auto path = std::make_shared<std::string>();
  auto width = std::make_shared<size_t>(160);
  CLI::App* trace = app.add_subcommand("trace", "read run traces");
  trace->require_subcommand(1);
  CLI::App* show = trace->add_subcommand("show", "print a run trace (from --trace) for a person to read");
  show->add_option("file", *path, "the trace JSON file")->required();
  show->add_option("--width", *width, "shorten long values to this many characters");
  show->callback([path, width, exit_code] { *exit_code = RunTraceShow(*path, *width); });
}

}  // namespace medreact::cli
