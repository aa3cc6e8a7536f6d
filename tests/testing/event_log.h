// Reading a run's event log (`--events FILE`, JSON lines) from the crash
// tests, where the process writing it may be killed mid-line.
#ifndef MEDREACT_TESTS_TESTING_EVENT_LOG_H_
#define MEDREACT_TESTS_TESTING_EVENT_LOG_H_

#include <chrono>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "medreact/json.h"
#include "testing/subprocess.h"

namespace medreact::testing {

// The file's events; a line cut by a kill is not an event.
inline std::vector<Json> EventLines(const std::string& path) {
  std::vector<Json> out;
  std::stringstream ss(ReadFileOrEmpty(path));
  for (std::string line; std::getline(ss, line);) {
    Result<Json> j = ParseJson(line);
    if (j.ok()) out.push_back(std::move(*j));
  }
  return out;
}

// The tool_call_id of every event of `type`.
inline std::set<std::string> CallIds(const std::vector<Json>& events, const std::string& type) {
  std::set<std::string> ids;
  for (const Json& e : events) {
    if (StringOr(e, "type") == type) ids.insert(StringOr(e, "tool_call_id"));
  }
  return ids;
}

// Polls the file until it holds `text`; false after `limit`.
inline bool WaitForText(const std::string& path, const std::string& text, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ReadFileOrEmpty(path).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

// Polls the event log until an event of `type` is in it.
inline bool WaitForEvent(const std::string& path, const std::string& type, std::chrono::seconds limit) {
  return WaitForText(path, "\"" + type + "\"", limit);
}

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_EVENT_LOG_H_
