#include "mcp/mcp_stdio.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>

#include "core/log.h"
#include "core/printable.h"

extern char** environ;

namespace medreact::mcp {

Result<std::vector<std::string>> SplitCommandLine(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      const size_t end = line.find('\'', i + 1);
      if (end == std::string::npos) return Status::InvalidArgument("MCP command line: a ' quote is not closed");
      word += line.substr(i + 1, end - i - 1);
      i = end;
      in_word = true;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '\\' && j + 1 < line.size() && std::strchr("\"\\$`", line[j + 1])) ++j;
        word += line[j];
      }
      if (j >= line.size()) return Status::InvalidArgument("MCP command line: a \" quote is not closed");
      i = j;
      in_word = true;
    } else if (c == '\\') {
      if (i + 1 < line.size()) word += line[++i];
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  if (words.empty()) return Status::InvalidArgument("MCP command line is empty: give the server's command and its arguments (mcp_command)");
  return words;
}

namespace {

bool SecretName(const std::string& entry) {
  if (entry.rfind("MEDREACT_", 0) != 0) return false;
  const std::string name = entry.substr(0, entry.find('='));
  for (const char* word : {"KEY", "TOKEN", "SECRET", "PASSWORD"}) {
    if (name.find(word) != std::string::npos) return true;
  }
  return false;
}

std::string ExitText(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "stopped";
}

class StdioChannel : public McpChannel {
 public:
  StdioChannel(std::string command_line, McpStdioOptions options)
      : command_line_(std::move(command_line)), options_(options) {}
  ~StdioChannel() override { Close(); }

  std::string Describe() const override { return "stdio: " + PrintableLine(Preview(program_, 60)); }

  Status Start(OnMessage on_message, OnFault on_fault, OnClosed on_closed) override {
    Result<std::vector<std::string>> words = SplitCommandLine(command_line_);
    if (!words.ok()) return words.status();
    program_ = (*words)[0];
    on_message_ = std::move(on_message);
    on_fault_ = std::move(on_fault);
    on_closed_ = std::move(on_closed);
    // Everything the child needs is built before fork (only async-signal-safe calls after).
    std::vector<char*> argv;
    for (std::string& w : *words) argv.push_back(w.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_strings;
    for (char** e = environ; e && *e; ++e) {
      if (!SecretName(*e)) env_strings.emplace_back(*e);
    }
    std::vector<char*> envp;
    for (std::string& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    int in[2], out[2], err[2], exec_err[2];
    if (pipe2(in, O_CLOEXEC) != 0) return Status::Unavailable("MCP server: pipe: " + std::string(std::strerror(errno)));
    if (pipe2(out, O_CLOEXEC) != 0) {
      close(in[0]), close(in[1]);
      return Status::Unavailable("MCP server: pipe: " + std::string(std::strerror(errno)));
    }
    if (pipe2(err, O_CLOEXEC) != 0 || pipe2(exec_err, O_CLOEXEC) != 0) {
      for (int fd : {in[0], in[1], out[0], out[1]}) close(fd);
      return Status::Unavailable("MCP server: pipe: " + std::string(std::strerror(errno)));
    }
    const pid_t pid = fork();
    if (pid < 0) {
      for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1], exec_err[0], exec_err[1]}) close(fd);
      return Status::Unavailable("MCP server: fork: " + std::string(std::strerror(errno)));
    }
    if (pid == 0) {
      setpgid(0, 0);
      sigset_t none;
      sigemptyset(&none);
      pthread_sigmask(SIG_SETMASK, &none, nullptr);
      signal(SIGPIPE, SIG_DFL);
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      dup2(in[0], 0);
      dup2(out[1], 1);
      dup2(err[1], 2);
      execvpe(argv[0], argv.data(), envp.data());
      const int e = errno;
      ssize_t ignored = write(exec_err[1], &e, sizeof e);
      (void)ignored;
      _exit(127);
    }
    setpgid(pid, pid);  // also here: no race with the child's own call
    pid_ = pid;
    close(in[0]);
    close(out[1]);
    close(err[1]);
    close(exec_err[1]);
    int child_errno = 0;
    ssize_t n;
    do {
      n = read(exec_err[0], &child_errno, sizeof child_errno);
    } while (n < 0 && errno == EINTR);
    close(exec_err[0]);
    stdin_fd_ = in[1];
    if (n == static_cast<ssize_t>(sizeof child_errno)) {
      close(stdin_fd_), close(out[0]), close(err[0]);
      stdin_fd_ = -1;
      int status = 0;
      waitpid(pid_, &status, 0);
      pid_ = -1;
      return Status::Unavailable("cannot start the MCP server '" + PrintableLine(Preview(program_, 120)) +
                                 "': " + std::strerror(child_errno));
    }
    reader_ = std::thread([this, fd = out[0]] { ReadStdout(fd); });
    stderr_reader_ = std::thread([this, fd = err[0]] { ReadStderr(fd); });
    return Status::OK();
  }

  Status Send(const Json& message, Deadline, const CancellationToken&) override {
    std::string line = DumpJson(message);
    line += '\n';
    std::lock_guard<std::mutex> lock(write_mu_);
    if (stdin_fd_ < 0) return Status::Unavailable("the MCP server's connection is closed");
    // SIGPIPE blocked in this thread while writing: a dead child is EPIPE, not a dead medreact.
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    size_t off = 0;
    int error = 0;
    while (off < line.size()) {
      ssize_t w = write(stdin_fd_, line.data() + off, line.size() - off);
      if (w < 0) {
        if (errno == EINTR) continue;
        error = errno;
        break;
      }
      off += static_cast<size_t>(w);
    }
    if (error == EPIPE) {
      timespec zero{};
      sigtimedwait(&pipe_set, nullptr, &zero);  // consume the pending SIGPIPE
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (error != 0) {
      return Status::Unavailable("cannot write to the MCP server '" + PrintableLine(Preview(program_, 60)) +
                                 "': " + std::strerror(error));
    }
    return Status::OK();
  }

  void Close() override {
    std::lock_guard<std::mutex> close_lock(close_mu_);
    if (closed_) return;
    closed_ = true;
    quiet_ = true;  // no callbacks from here on: the end is ours
    {
      std::lock_guard<std::mutex> lock(write_mu_);
      if (stdin_fd_ >= 0) close(stdin_fd_);
      stdin_fd_ = -1;
    }
    if (pid_ > 0) {
      // A polite end (stdin closed), then SIGTERM after 1 s, SIGKILL after 3 s.
      const auto start = SteadyClock::now();
      bool termed = false;
      for (;;) {
        {
          std::lock_guard<std::mutex> lock(pid_mu_);
          if (reaped_) break;
          int status = 0;
          if (waitpid(pid_, &status, WNOHANG) == pid_) {
            reaped_ = true;
            break;
          }
        }
        const auto waited = SteadyClock::now() - start;
        if (!termed && waited > std::chrono::seconds(1)) {
          kill(-pid_, SIGTERM);
          termed = true;
        }
        if (waited > std::chrono::seconds(3)) {
          kill(-pid_, SIGKILL);
          std::lock_guard<std::mutex> lock(pid_mu_);
          if (!reaped_) {
            int status = 0;
            waitpid(pid_, &status, 0);
            reaped_ = true;
          }
          break;
        }
        std::this_thread::sleep_for(Millis(20));
      }
      kill(-pid_, SIGKILL);  // anything of its group still holding the pipes
    }
    if (reader_.joinable()) reader_.join();
    if (stderr_reader_.joinable()) stderr_reader_.join();
  }

 private:
  void ReadStdout(int fd) {
    std::string line;
    bool discarding = false;
    char buf[65536];
    for (;;) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      size_t start = 0;
      for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
        if (buf[i] != '\n') continue;
        if (!discarding) {
          line.append(buf + start, i - start);
          Deliver(line);
        }
        line.clear();
        discarding = false;
        start = i + 1;
      }
      if (!discarding) line.append(buf + start, static_cast<size_t>(n) - start);
      if (!discarding && line.size() > options_.max_message_bytes) {
        discarding = true;
        line.clear();
        if (!quiet_) {
          on_fault_("a message longer than " + std::to_string(options_.max_message_bytes) +
                    " bytes (the limit); it was dropped");
        }
      }
    }
    close(fd);
    if (!discarding && !line.empty()) Deliver(line);
    // The child closed its stdout: how did it end? (It may still run: then say so.)
    std::string how = "closed its standard output";
    const auto start = SteadyClock::now();
    while (SteadyClock::now() - start < std::chrono::seconds(2) && !quiet_) {
      std::lock_guard<std::mutex> lock(pid_mu_);
      if (reaped_) break;
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        how = ExitText(status);
        break;
      }
      std::this_thread::sleep_for(Millis(10));
    }
    if (!quiet_) on_closed_(how);
  }

  void Deliver(std::string& line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) return;
    Result<Json> parsed = ParseJson(line);
    if (quiet_) return;
    if (!parsed.ok()) {
      on_fault_("a line that is not JSON (" + parsed.status().message() + ")");
      return;
    }
    on_message_(std::move(*parsed));
  }

  void ReadStderr(int fd) {
    char buf[4096];
    for (;;) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      std::lock_guard<std::mutex> lock(stderr_mu_);
      stderr_tail_.append(buf, static_cast<size_t>(n));
      if (stderr_tail_.size() > options_.stderr_keep_bytes) {
        stderr_tail_.erase(0, stderr_tail_.size() - options_.stderr_keep_bytes);
      }
      Log().debug("mcp client: {} stderr: {}", Describe(), PrintableLine(Preview(std::string_view(buf, n), 200)));
    }
    close(fd);
  }

  const std::string command_line_;
  const McpStdioOptions options_;
  std::string program_;
  OnMessage on_message_;
  OnFault on_fault_;
  OnClosed on_closed_;
  pid_t pid_ = -1;
  std::mutex pid_mu_;
  bool reaped_ = false;
  std::mutex write_mu_;
  int stdin_fd_ = -1;
  std::mutex close_mu_;
  bool closed_ = false;
  std::atomic<bool> quiet_{false};
  std::thread reader_;
  std::thread stderr_reader_;
  std::mutex stderr_mu_;
  std::string stderr_tail_;
};

}  // namespace

std::unique_ptr<McpChannel> MakeStdioChannel(std::string command_line, McpStdioOptions options) {
  return std::make_unique<StdioChannel>(std::move(command_line), options);
}

}  // namespace medreact::mcp
