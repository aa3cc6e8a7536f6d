// medreact-mock-llm: the scripted OpenAI-compatible model server as a program.
//
//   medreact-mock-llm --script FILE [--host 127.0.0.1] [--port 0]
//                     [--port-file FILE] [--requests-log FILE]
//
// Loads and validates the script (docs/mock-llm.md), listens on a loopback
// address only, prints exactly one line "listening on http://HOST:PORT/v1"
// once connections are accepted, writes the port to --port-file atomically
// (temp file, then rename, so a reader never sees half a number) and appends
// each received request as one JSON line to --requests-log. The script's
// routes (e.g. the imaging endpoints, http://HOST:PORT/classify) are served
// beside the chat API, at the root of the same address. It runs until
// SIGINT or SIGTERM, then stops cleanly. Exit codes: 0 after a clean stop,
// 1 when the server cannot start, 2 for bad usage or a bad script.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "core/file_io.h"
#include "medreact/json.h"
#include "mockllm/mock_server.h"

namespace {

using medreact::Json;
using medreact::Result;
using medreact::Status;
using medreact::mockllm::MockLlmServer;
using medreact::mockllm::MockScript;

Result<MockScript> LoadScript(const std::string& path) {
  Result<std::string> text = medreact::ReadUserFile(path, "script", medreact::kMaxJsonConfigBytes);
  if (!text.ok()) return text.status();
  Result<Json> json = medreact::ParseJson(*text);
  if (!json.ok()) return json.status().WithContext("script '" + path + "'");
  Result<MockScript> script = MockLlmServer::ParseScript(*json);
  if (!script.ok()) return script.status().WithContext("script '" + path + "'");
  return script;
}

// Writes `port` to a sibling temp file and renames it over `path`.
Status WritePortFile(const std::string& path, int port) {
  const std::string temp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temp, std::ios::trunc);
    out << port << "\n";
    out.close();
    if (!out) return Status::Unavailable("cannot write '" + temp + "'");
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(temp.c_str());
    return Status::Unavailable("cannot rename '" + temp + "' to '" + path + "': " + why);
  }
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Scripted OpenAI-compatible model server for tests and demos (loopback only)",
               "medreact-mock-llm"};
  std::string script_path;
  std::string host = "127.0.0.1";
  int port = 0;
  std::string port_file;
  std::string requests_log;
  app.add_option("--script", script_path, "JSON script of responses (docs/mock-llm.md)")->required();
  app.add_option("--host", host, "loopback address to listen on")->capture_default_str();
  app.add_option("--port", port, "port; 0 picks a free one")->capture_default_str()
      ->check(CLI::Range(0, 65535));
  app.add_option("--port-file", port_file, "write the chosen port here (atomically)");
  app.add_option("--requests-log", requests_log, "append each request as one JSON line");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  if (!MockLlmServer::IsLoopbackHost(host)) {
    std::cerr << "medreact-mock-llm: refusing non-loopback host '" << host
              << "': use 127.0.0.1 (or any 127.0.0.0/8 address), localhost or ::1\n";
    return 2;
  }
  Result<MockScript> script = LoadScript(script_path);
  if (!script.ok()) {
    std::cerr << "medreact-mock-llm: " << script.status().ToString() << "\n";
    return 2;
  }

  std::ofstream log;
  if (!requests_log.empty()) {
    log.open(requests_log, std::ios::app);
    if (!log) {
      std::cerr << "medreact-mock-llm: cannot open requests log '" << requests_log << "'\n";
      return 2;
    }
  }

  // Block the stop signals in every thread (the server's threads inherit the
  // mask) and take them synchronously below with sigwait.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a vanished reader of stdout or the log is not fatal

  MockLlmServer server(std::move(script).value());
  if (log.is_open()) {
    server.SetRequestObserver([&log](const Json& request) {
      log << medreact::DumpJson(request) << "\n";
      log.flush();
    });
  }
  if (Status s = server.Start(host, port); !s.ok()) {
    std::cerr << "medreact-mock-llm: " << s.ToString() << "\n";
    return 1;
  }
  if (!port_file.empty()) {
    if (Status s = WritePortFile(port_file, server.port()); !s.ok()) {
      std::cerr << "medreact-mock-llm: " << s.ToString() << "\n";
      server.Stop();
      return 1;
    }
  }
  std::cout << "listening on " << server.base_url() << std::endl;

  int received = 0;
  sigwait(&signals, &received);
  server.Stop();
  std::cerr << "medreact-mock-llm: stopped on " << (received == SIGINT ? "SIGINT" : "SIGTERM")
            << " after " << server.served() << " scripted responses\n";
  return 0;
}
