// A test's HTTP server (cpp-httplib) on a free loopback port, on a thread of
// its own, for the fixture servers (literature, FHIR, OTLP receiver).
//
//   httplib::Server server;  server.Get(...);
//   std::thread thread;
//   int port = testing::ServeOnLoopback(server, thread);   // 0: it did not start
//   ...
//   testing::StopLoopback(server, thread);
#ifndef MEDREACT_TESTS_TESTING_LOOPBACK_HTTP_H_
#define MEDREACT_TESTS_TESTING_LOOPBACK_HTTP_H_

#include <httplib.h>
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <thread>

namespace medreact::testing {

// Binds `server` to a free port of 127.0.0.1 and serves it on `thread`
// (SIGPIPE blocked there: a client that hung up must not kill the test
// process). The port once it serves, 0 when it could not bind or did not
// start within 10 s.
inline int ServeOnLoopback(httplib::Server& server, std::thread& thread) {
  const int port = server.bind_to_any_port("127.0.0.1");
  if (port <= 0) return 0;
  thread = std::thread([&server] {
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    server.listen_after_bind();
  });
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!server.is_running() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return server.is_running() ? port : 0;
}

// Stops the server and joins its thread; a no-op when it never started.
inline void StopLoopback(httplib::Server& server, std::thread& thread) {
  if (thread.joinable()) {
    server.stop();
    thread.join();
  }
}

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_LOOPBACK_HTTP_H_
