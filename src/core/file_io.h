// Files the user names: read with a type check and a size cap, written
// atomically and privately.
//
// Every file medreact reads because a user named it (a note, a schema, a FHIR
// bundle, a trace, a worklist case) goes through ReadUserFile: a directory, a
// missing file or one larger than its cap is an error naming the path and the
// limit, never an exception or an allocation failure. Pipes and character
// devices (`--message-file <(cmd)`, /dev/stdin) are read up to the cap.
//
// Everything medreact writes may hold patient data (traces, results, events),
// so files are created readable and writable by their owner only (0600) and
// replaced atomically (a temporary file in the same folder, then rename), so a
// reader never sees half a file and a crash never leaves one. Thread-safe.
#ifndef MEDREACT_CORE_FILE_IO_H_
#define MEDREACT_CORE_FILE_IO_H_

#include <cstddef>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "medreact/status.h"

namespace medreact {

// Size caps by kind of input (documented in docs/reliability.md). A cap is
// far above any real input of its kind and far below what a 2-core, few-GiB
// machine can hold several of at once.
inline constexpr size_t kMaxTextInputBytes = 4u << 20;      // a note, findings, message, prompt: 4 MiB
inline constexpr size_t kMaxJsonConfigBytes = 16u << 20;    // a schema, case.json, hints, mock script: 16 MiB
inline constexpr size_t kMaxRecordBytes = 512u << 20;       // a FHIR bundle or NDJSON export: 512 MiB
inline constexpr size_t kMaxDataFileBytes = 512u << 20;     // a trace, a CSV of benchmark rows: 512 MiB

// The whole file. `what` names it in errors ("note", "FHIR bundle").
// NotFound when it does not exist; InvalidArgument when it is a directory or
// another non-readable kind, or larger than `max_bytes`; Unavailable when it
// cannot be opened or read (the OS's reason is given).
Result<std::string> ReadUserFile(const std::string& path, std::string_view what, size_t max_bytes);

// Everything left on `stream` (standard input), up to `max_bytes`.
Result<std::string> ReadUserStream(std::FILE* stream, std::string_view what, size_t max_bytes);

// A path as the user gave it, made absolute (lexically: the file may be gone
// by the time a resume reads it, which then fails naming it), for a run's
// stored inputs; "" and "-" stay as they are.
std::string AbsoluteInputPath(const std::string& path);

// Replaces `path` with `text` atomically, mode 0600. Creates no folders.
// InvalidArgument naming the path when it is a folder or its folder does not
// exist or is not writable.
Status WriteFileAtomic(const std::string& path, std::string_view text);

// Whether `path` can be written as an output file: new or a regular file
// (after symlinks: never a folder, a device, a FIFO or a socket, which the
// atomic writer's rename would replace and the opener would write into), not
// "-" (a command that prints to standard output by itself turns its "-" into
// "no file" before this), and its folder exists and is writable. Checked
// before a run starts, so a bad --out or --trace is a usage error (exit 2)
// instead of a lost run or a replaced /dev/null.
Status CheckOutputPath(const std::string& path, std::string_view what);

// The first half of CheckOutputPath, for files medreact keeps and reopens
// (SQLite databases: a cache, a memory, an index): OK when `path` does not
// exist or is a regular file (after symlinks); InvalidArgument naming what it
// is otherwise.
Status CheckRegularOrNew(const std::string& path, std::string_view what);

// Creates the folder `dir` and its missing parents, each new one 0700 (the
// run store, the caches: what medreact keeps may hold patient data); folders
// that exist are left as they are. Unavailable ("cannot create the folder
// 'X': <the OS's reason>") for the first that cannot be made; the caller adds
// what the folder was for and what to do.
Status MakePrivateFolders(const std::string& dir);

// Creates `path` with mode 0600 (or truncates an existing regular file,
// keeping its mode: never chmod what medreact did not create) and returns
// the stream, or an error naming the path; a device, FIFO or socket (or a
// symlink to one) is refused, never opened. The caller closes it with fclose.
Result<std::FILE*> OpenPrivateFile(const std::string& path, std::string_view what);

// A file of lines written as a run goes (an event log): every write and
// flush is checked, and the first that fails (a full disk) is kept, named,
// and ends the writing, so that the run can say its log is incomplete and
// exit accordingly. Thread-safe.
class LineLog {
 public:
  // OpenPrivateFile(path, what).
  static Result<std::unique_ptr<LineLog>> Open(const std::string& path, std::string_view what);
  ~LineLog();
  LineLog(const LineLog&) = delete;
  LineLog& operator=(const LineLog&) = delete;

  // Appends `line` (with its newline) and flushes; nothing after a failure.
  void Write(std::string_view line);
  // OK, or Unavailable naming the file, the OS's reason and how many lines were lost.
  Status status() const;

 private:
  LineLog(std::FILE* file, std::string path, std::string what);
  std::FILE* file_;
  const std::string path_;
  const std::string what_;
  mutable std::mutex mu_;
  Status failed_;       // guarded by mu_
  size_t lost_ = 0;     // lines not written since the failure; guarded by mu_
};

}  // namespace medreact

#endif  // MEDREACT_CORE_FILE_IO_H_
