// Owner ids of the run store's leases. See run_owner.h.
#include "store/run_owner.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "store/run_store.h"

namespace medreact {

namespace {

// This process's start time in clock ticks since boot (/proc/PID/stat's
// 22nd field), "" when unreadable.
std::string ProcessStart(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos) return "";
  std::istringstream rest(text.substr(paren + 1));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 22) return field;
  }
  return "";
}

std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || !buf[0]) return "localhost";
  std::string h = buf;
  for (char& c : h) {
    if (c == '/') c = '_';
  }
  return h;
}

// Both never destroyed: a store may be closed on a pool worker while main()
// returns (the last holder of a stopped server's state lets go there), after
// the static destructors ran; a destroyed set was read there (ASan,
// docs/reliability.md, "Sanitizers").
std::mutex& OwnersMu() {
  static auto* const mu = new std::mutex;
  return *mu;
}
std::set<std::string>& LiveOwners() {  // this process's open stores; guarded by OwnersMu
  static auto* const owners = new std::set<std::string>;
  return *owners;
}

}  // namespace

void ForgetOwner(const std::string& owner) {
  std::lock_guard<std::mutex> lock(OwnersMu());
  LiveOwners().erase(owner);
}

std::string NewRunOwnerId() {
  static std::atomic<int64_t> next{0};
  // Not cached: a forked child is another process, with a pid of its own.
  const long pid = static_cast<long>(::getpid());
  std::string id = HostName() + "/" + std::to_string(pid) + "/" + ProcessStart(pid) + "/" + std::to_string(++next);
  std::lock_guard<std::mutex> lock(OwnersMu());
  LiveOwners().insert(id);
  return id;
}

bool RunOwnerGone(const std::string& owner) {
  std::vector<std::string> parts;
  std::stringstream ss(owner);
  for (std::string p; std::getline(ss, p, '/');) parts.push_back(p);
  if (parts.size() != 4 || parts[0] != HostName()) return false;
  char* end = nullptr;
  const long pid = std::strtol(parts[1].c_str(), &end, 10);
  if (!end || *end || pid <= 0) return false;
  if (pid == static_cast<long>(::getpid())) {
    std::lock_guard<std::mutex> lock(OwnersMu());
    return parts[2] == ProcessStart(pid) && !LiveOwners().count(owner);
  }
  const std::string start = ProcessStart(pid);
  return start.empty() || start != parts[2];  // no such process, or the pid was reused
}

std::string DescribeRunOwner(const std::string& owner) {
  std::vector<std::string> parts;
  std::stringstream ss(owner);
  for (std::string p; std::getline(ss, p, '/');) parts.push_back(p);
  if (parts.size() != 4) return "'" + owner + "'";
  return "process " + parts[1] + " on " + parts[0];
}

}  // namespace medreact
