// Running the project's own binaries from tests: a command to completion
// (with a timeout, output captured via temporary files so pipes never block),
// or a background server that is killed when the object goes away.
#ifndef MEDREACT_TESTS_TESTING_SUBPROCESS_H_
#define MEDREACT_TESTS_TESTING_SUBPROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace medreact::testing {

using EnvList = std::vector<std::pair<std::string, std::string>>;

struct ProcessResult {
  int exit_code = -1;  // -1: killed on timeout or by a signal
  int term_signal = 0;  // the signal that ended it (SIGABRT, SIGSEGV, ...), else 0
  std::string out;
  std::string err;
};

// Runs argv[0] with the current environment minus MEDREACT_* plus `env`.
ProcessResult RunCommand(const std::vector<std::string>& argv, const EnvList& env = {},
                         std::chrono::milliseconds timeout = std::chrono::seconds(60));

// A command started in the background: signal it, then wait for it. Killed
// (SIGKILL) by the destructor if still running.
class BackgroundCommand {
 public:
  explicit BackgroundCommand(const std::vector<std::string>& argv, const EnvList& env = {});
  ~BackgroundCommand();
  void Signal(int signo) const;
  // What it wrote to stderr so far.
  std::string Stderr() const;
  pid_t pid() const { return pid_; }
  ProcessResult Wait(std::chrono::milliseconds timeout = std::chrono::seconds(60));

 private:
  std::string dir_;
  pid_t pid_ = -1;
};

// A fresh temporary directory, removed with its content by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  void Write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
};

std::string ReadFileOrEmpty(const std::string& path);

// medreact-mock-llm running on a free loopback port with the given script.
class MockLlmProcess {
 public:
  explicit MockLlmProcess(const std::string& script_json);
  ~MockLlmProcess();
  bool ok() const { return port_ > 0; }
  std::string base_url() const;
  // The requests it received (its --requests-log), parsed.
  std::vector<std::string> request_lines() const;

 private:
  TempDir dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_SUBPROCESS_H_
