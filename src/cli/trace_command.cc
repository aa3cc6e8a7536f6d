// `medreact trace show FILE`: a run trace as a person reads it — status,
// model, timings, then each step's text, calls and results, one line each
// (long values shortened). The JSON file stays the record; this is a view.
//
// The file is the user's and may have been edited or cut short. A file
// without a trace's shape (CheckTraceShape: no status, a null elapsed_ms, an
// array, {}) is refused, exit 2, naming what is missing or wrong: printing an
// empty trace would pass it off as one. Within a trace every field is read
// with a type check (a step that is not an object, a number where a string
// was expected are shown as absent), and text is printed through Preview, so
// control characters cannot reach the terminal.
#include <cstdio>
#include <iostream>

#include "cli/cli_io.h"
#include "cli/commands.h"
#include "core/printable.h"
#include "medreact/json.h"
#include "medreact/trace.h"

namespace medreact::cli {
namespace {

// A field of the trace file (outside text) as one line of the terminal.
std::string Str(const Json& j, const char* key) { return PrintableLine(StringOr(j, key)); }
// The same field as it is, for Preview (which escapes it by the same rule).
std::string Raw(const Json& j, const char* key) { return StringOr(j, key); }

// A duration as whole milliseconds; formatted as a double, because a value
// from the file may be far beyond any integer type (1e308).
std::string Ms(const Json& j, const char* key) {
  char text[64];
  std::snprintf(text, sizeof text, "%.0f ms", NumberOr(j, key, 0.0));
  return text;
}

const Json& ArrayOr(const Json& j, const char* key) {
  static const Json kEmpty = Json::array();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

const Json& ObjectOr(const Json& j, const char* key) {
  static const Json kEmpty = Json::object();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kEmpty;
}

int RunTraceShow(const std::string& path, size_t width) {
  Result<std::string> text = ReadInputFile(path, "trace", kMaxDataFileBytes);
  if (!text.ok()) {
    std::cerr << "medreact trace: " << text.status().message() << "\n";
    return kExitBadInput;
  }
  auto trace = ParseJson(*text);
  const Status shape = trace.ok() ? CheckTraceShape(*trace) : trace.status();
  if (!shape.ok()) {
    std::cerr << "medreact trace: '" << Printable(path) << "' is not a medreact run trace: " << shape.message()
              << " (a trace written by --trace has status, model, started_at, elapsed_ms and steps)\n";
    return kExitBadInput;
  }
  const Json& t = *trace;
  std::cout << "status:   " << Str(t, "status") << "\n"
            << "model:    " << Str(t, "model") << " (" << Str(t, "protocol") << ")\n"
            << "started:  " << Str(t, "started_at") << ", " << Ms(t, "elapsed_ms") << "\n";
  if (t.contains("usage")) std::cout << "tokens:   " << IntegerOr(ObjectOr(t, "usage"), "total_tokens", 0) << "\n";
  if (!Str(t, "error").empty()) std::cout << "stopped:  " << Str(t, "error") << "\n";
  for (const Json& s : ArrayOr(t, "steps")) {
    std::cout << "step " << IntegerOr(s, "index", 0) << (Str(s, "kind") == "fallback" ? " (fallback synthesis)" : "")
              << ", " << Ms(s, "elapsed_ms") << "\n";
    const Json& a = ObjectOr(s, "assistant");
    if (!Str(a, "content").empty()) std::cout << "  says:   " << Preview(Raw(a, "content"), width) << "\n";
    const Json& calls = ArrayOr(a, "tool_calls");
    const Json& results = ArrayOr(s, "tool_results");
    for (size_t i = 0; i < calls.size(); ++i) {
      std::cout << "  call:   " << Str(calls[i], "name") << " " << Preview(Raw(calls[i], "arguments"), width) << "\n";
      if (i < results.size()) {
        const Json& r = results[i];
        const bool ok = BoolOr(r, "ok", false);
        std::cout << (ok ? "  result: " : "  error:  ") << Preview(ok ? Raw(r, "content") : Raw(r, "error"), width)
                  << "\n";
      }
    }
    if (!Str(s, "parse_error").empty()) std::cout << "  unusable reply: " << Preview(Raw(s, "parse_error"), width) << "\n";
    if (!Str(s, "model_error").empty()) std::cout << "  model error: " << Str(s, "model_error") << "\n";
    for (const Json& note : ArrayOr(s, "notes")) {
      if (note.is_string()) std::cout << "  note:   " << PrintableLine(note.get<std::string>()) << "\n";
    }
  }
  // The answer is a body: its own lines are kept, as `chat` prints them.
  std::cout << "answer:   " << Printable(StringOr(t, "answer")) << "\n";
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
  show->add_option("--width", *width, "shorten long values to this many characters")->check(CLI::Range(8, 100000));
  show->callback([path, width, exit_code] { *exit_code = RunTraceShow(*path, *width); });
}

}  // namespace medreact::cli
