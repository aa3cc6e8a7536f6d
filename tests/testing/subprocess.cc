#include "testing/build_paths.h"
#include "testing/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace medreact::testing {
namespace {

// Where the children's default run store goes (XDG_DATA_HOME): a folder of
// this test process, so no test writes runs into the real home directory.
const std::string& TestDataHome() {
  static const TempDir dir;
  return dir.path();
}

std::vector<std::string> ChildEnvironment(const EnvList& extra) {
  auto given = [&extra](const std::string& key) {
    for (const auto& [k, v] : extra) {
      if (k == key) return true;
    }
    return false;
  };
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (kv.rfind("MEDREACT_", 0) == 0) continue;  // tests set what they need
    if (given(kv.substr(0, kv.find('=')))) continue;  // the test's value wins (getenv takes the first)
    if (kv.rfind("XDG_DATA_HOME=", 0) == 0) continue;
    env.push_back(kv);
  }
  for (const auto& [k, v] : extra) env.push_back(k + "=" + v);
  if (!given("XDG_DATA_HOME")) env.push_back("XDG_DATA_HOME=" + TestDataHome());
  return env;
}

pid_t Spawn(const std::vector<std::string>& argv, const EnvList& env, const std::string& out_path,
            const std::string& err_path) {
  // Everything the child needs is built before fork(): after it, only
  // async-signal-safe calls (the test process has other threads).
  std::vector<std::string> env_strings = ChildEnvironment(env);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = fork();
  if (pid != 0) return pid;
  int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  int in = open("/dev/null", O_RDONLY);
  dup2(out, 1);
  dup2(err, 2);
  dup2(in, 0);
  execve(args[0], args.data(), envp.data());
  _exit(127);
}

}  // namespace

std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "medreact-test-XXXXXX").string();
  char* made = mkdtemp(tmpl.data());
  path_ = made ? made : "";
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

void TempDir::Write(const std::string& name, const std::string& content) const {
  std::ofstream out(File(name), std::ios::binary | std::ios::trunc);
  out << content;
}

namespace {

ProcessResult WaitFor(pid_t pid, const std::string& out_path, const std::string& err_path,
                      std::chrono::milliseconds timeout) {
  ProcessResult result;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.err = "[killed after timeout]\n";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  result.out = ReadFileOrEmpty(out_path);
  result.err += ReadFileOrEmpty(err_path);
  return result;
}

}  // namespace

ProcessResult RunCommand(const std::vector<std::string>& argv, const EnvList& env,
                         std::chrono::milliseconds timeout) {
  TempDir dir;
  pid_t pid = Spawn(argv, env, dir.File("out"), dir.File("err"));
  return WaitFor(pid, dir.File("out"), dir.File("err"), timeout);
}

BackgroundCommand::BackgroundCommand(const std::vector<std::string>& argv, const EnvList& env) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "medreact-bg-XXXXXX").string();
  char* made = mkdtemp(tmpl.data());
  dir_ = made ? made : "";
  pid_ = Spawn(argv, env, dir_ + "/out", dir_ + "/err");
}

BackgroundCommand::~BackgroundCommand() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

void BackgroundCommand::Signal(int signo) const {
  if (pid_ > 0) kill(pid_, signo);
}

std::string BackgroundCommand::Stderr() const { return ReadFileOrEmpty(dir_ + "/err"); }

ProcessResult BackgroundCommand::Wait(std::chrono::milliseconds timeout) {
  ProcessResult result = WaitFor(pid_, dir_ + "/out", dir_ + "/err", timeout);
  pid_ = -1;
  return result;
}

MockLlmProcess::MockLlmProcess(const std::string& script_json) {
  dir_.Write("script.json", script_json);
  pid_ = Spawn({MEDREACT_MOCK_LLM_BINARY, "--script", dir_.File("script.json"), "--port", "0", "--port-file",
                dir_.File("port"), "--requests-log", dir_.File("requests.jsonl")},
               {}, dir_.File("out"), dir_.File("err"));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    std::string port = ReadFileOrEmpty(dir_.File("port"));
    if (!port.empty()) {
      port_ = std::atoi(port.c_str());
      if (port_ > 0) return;
    }
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

MockLlmProcess::~MockLlmProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 200 && waitpid(pid_, &status, WNOHANG) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (waitpid(pid_, &status, WNOHANG) == 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
  }
}

std::string MockLlmProcess::base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

std::vector<std::string> MockLlmProcess::request_lines() const {
  std::vector<std::string> lines;
  std::stringstream ss(ReadFileOrEmpty(dir_.File("requests.jsonl")));
  for (std::string line; std::getline(ss, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

}  // namespace medreact::testing
