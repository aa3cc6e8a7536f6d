// The tests' PostgreSQL server (see postgres_server.h).
#include "testing/postgres_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "store/pg_conn.h"
#include "testing/build_paths.h"
#include "testing/subprocess.h"

namespace medreact::testing {

namespace {

namespace fs = std::filesystem;

constexpr const char* kBin = "/usr/lib/postgresql/15/bin";

// The user the server runs as: `postgres` when we are root, else ourselves.
struct RunUser {
  bool change = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

bool FindRunUser(RunUser* u, std::string* why_not) {
  if (::geteuid() != 0) return true;
  struct passwd* pw = ::getpwnam("postgres");
  if (!pw) {
    *why_not = "running as root and there is no `postgres` user to run the server as";
    return false;
  }
  u->change = true;
  u->uid = pw->pw_uid;
  u->gid = pw->pw_gid;
  return true;
}

bool Chown(const std::string& path, const RunUser& u) {
  if (!u.change) return true;
  std::error_code ec;
  if (::chown(path.c_str(), u.uid, u.gid) != 0) return false;
  if (fs::is_directory(path)) {
    for (const auto& e : fs::recursive_directory_iterator(path, ec)) {
      if (::lchown(e.path().c_str(), u.uid, u.gid) != 0) return false;
    }
  }
  return !ec;
}

// Starts argv as `u`, its output to `log`; `die_with_parent`: the child
// gets SIGQUIT (postgres: immediate shutdown) when this process dies.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& log, const RunUser& u, bool die_with_parent) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The environment built before fork (only async-signal-safe calls after it).
  std::vector<std::string> env_text = {"LC_ALL=C.UTF-8"};
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "LC_ALL=", 7) != 0) env_text.emplace_back(*e);
  }
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::dup2(fd, 1);
    ::dup2(fd, 2);
  }
  const int null = ::open("/dev/null", O_RDONLY);
  if (null >= 0) ::dup2(null, 0);
  if (u.change) {
    if (::setgroups(0, nullptr) != 0 || ::setgid(u.gid) != 0 || ::setuid(u.uid) != 0) _exit(126);
  }
  if (die_with_parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGQUIT);  // after the credential change, which clears it
    if (::getppid() != parent) _exit(125);
  }
  ::execve(args[0], args.data(), envp.data());
  _exit(127);
}

int WaitExit(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int FreePort() {
  const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  int port = 0;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  ::close(s);
  return port;
}

std::string Tail(const std::string& text, size_t n = 2000) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

// build/pg-template: initdb once for every test process of this build.
bool EnsureTemplate(const RunUser& u, std::string* template_dir, std::string* why_not) {
  const std::string build = fs::path(BuildBinary()).parent_path().string();
  const std::string dir = build + "/pg-template";
  const std::string done = dir + "/.medreact-ready";
  *template_dir = dir + "/data";
  if (fs::exists(done)) return true;
  const std::string lock_path = build + "/pg-template.lock";
  const int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0 || ::flock(lock, LOCK_EX) != 0) {
    *why_not = "cannot lock " + lock_path + ": " + std::strerror(errno);
    if (lock >= 0) ::close(lock);
    return false;
  }
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }
  } unlock{lock};
  if (fs::exists(done)) return true;
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec || !Chown(dir, u)) {
    *why_not = "cannot make " + dir + " for the server's user";
    return false;
  }
  const std::string log = dir + "/initdb.log";
  const pid_t pid = Spawn({std::string(kBin) + "/initdb", "-D", *template_dir, "-A", "trust", "-U", "postgres",
                           "-E", "UTF8", "--locale=C.UTF-8", "--no-sync", "--no-instructions"},
                          log, u, /*die_with_parent=*/false);
  if (pid < 0 || WaitExit(pid) != 0) {
    *why_not = "initdb failed: " + Tail(ReadFileOrEmpty(log));
    return false;
  }
  FILE* f = std::fopen(done.c_str(), "w");
  if (!f) {
    *why_not = "cannot write " + done;
    return false;
  }
  std::fclose(f);
  return true;
}

std::mutex g_mu;
std::unique_ptr<PostgresServer> g_server;  // stopped when the process ends
std::string g_why_not;
bool g_tried = false;

}  // namespace

PostgresServer* PostgresServer::Shared(std::string* why_not) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_tried) {
    g_tried = true;
    std::unique_ptr<PostgresServer> s(new PostgresServer());
    if (s->Start(&g_why_not)) g_server = std::move(s);
  }
  if (!g_server && why_not) *why_not = g_why_not;
  return g_server.get();
}

bool PostgresServer::Start(std::string* why_not) {
  if (!fs::exists(std::string(kBin) + "/postgres")) {
    *why_not = std::string("no PostgreSQL 15 server binaries in ") + kBin + " (Debian package postgresql-15)";
    return false;
  }
  RunUser u;
  if (!FindRunUser(&u, why_not)) return false;
  std::string template_dir;
  if (!EnsureTemplate(u, &template_dir, why_not)) return false;
  char tmpl[] = "/tmp/medreact-pg.XXXXXX";
  if (!::mkdtemp(tmpl)) {
    *why_not = std::string("mkdtemp: ") + std::strerror(errno);
    return false;
  }
  dir_ = tmpl;
  const ProcessResult cp = RunCommand({"/bin/cp", "-a", template_dir, dir_ + "/data"});
  if (cp.exit_code != 0 || !Chown(dir_, u)) {
    *why_not = "cannot copy the cluster template " + template_dir + ": " + cp.err;
    return false;
  }
  ::chmod((dir_ + "/data").c_str(), 0700);
  for (int attempt = 0; attempt < 3; ++attempt) {
    port_ = FreePort();
    if (port_ == 0) continue;
    std::string why;
    if (Restart(&why)) return true;
    *why_not = why;
  }
  return false;
}

bool PostgresServer::Restart(std::string* why_not) {
  Stop();
  RunUser u;
  if (!FindRunUser(&u, why_not)) return false;
  const std::string log = dir_ + "/server.log";
  pid_ = Spawn({std::string(kBin) + "/postgres", "-D", dir_ + "/data", "-p", std::to_string(port_), "-k", dir_, "-c",
                "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c",
                "full_page_writes=off", "-c", "max_connections=200", "-c", "shared_buffers=32MB"},
               log, u, /*die_with_parent=*/true);
  if (pid_ < 0) {
    *why_not = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < give_up) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      *why_not = "postgres exited at start: " + Tail(ReadFileOrEmpty(log));
      return false;
    }
    auto c = PgConnection::Connect(Url(), {.connect_timeout = std::chrono::seconds(2)});
    if (c.ok()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  *why_not = "postgres did not accept connections within 30 s: " + Tail(ReadFileOrEmpty(log));
  Stop();
  return false;
}

void PostgresServer::Stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGINT);  // fast shutdown: backends rolled back, no wait for clients
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > give_up) {
      ::kill(pid_, SIGQUIT);
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
}

PostgresServer::~PostgresServer() {
  Stop();
  if (!dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

std::string PostgresServer::Url(const std::string& database) const {
  return "postgres://postgres@127.0.0.1:" + std::to_string(port_) + "/" + database;
}

std::string PostgresServer::NewDatabase(std::string* why_not) {
  std::string name;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    name = "t" + std::to_string(::getpid()) + "_" + std::to_string(++counter_);
  }
  auto c = PgConnection::Connect(Url());
  if (!c.ok()) {
    *why_not = c.status().message();
    return "";
  }
  auto r = (*c)->Exec("CREATE DATABASE " + name);
  if (!r.ok()) {
    *why_not = r.status().message();
    return "";
  }
  return Url(name);
}

bool PostgresServer::TerminateConnections(std::string* why_not) {
  auto c = PgConnection::Connect(Url());
  if (!c.ok()) {
    *why_not = c.status().message();
    return false;
  }
  auto r = (*c)->Exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'");
  if (!r.ok()) {
    *why_not = r.status().message();
    return false;
  }
  return true;
}

}  // namespace medreact::testing
