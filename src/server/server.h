// Server: `medreact serve` put together — the run service over a store, the
// event hub, the routes (api.h) and the HTTP engine — with the rules that
// make it safe by default: loopback unless a token is set, the token
// compared in constant time, uploads and input paths confined to folders,
// network tools off.
//
//   Server server(options, store);
//   Status s = server.Start();     // InvalidArgument: no token off loopback; Unavailable: the port in use
//   server.port();                 // the bound port
//   server.Stop(10);               // stops accepting, stops its runs (they end interrupted, resumable)
//
// On Start the server takes over the runs whose owner died (their leases)
// and goes on with them, so a server killed with -9 and started again
// finishes what it had begun.
#ifndef MEDREACT_SERVER_SERVER_H_
#define MEDREACT_SERVER_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include "medreact/status.h"
#include "server/server_options.h"
#include "store/run_store.h"

namespace medreact::server {

class Server {
 public:
  Server(ServeOptions options, std::shared_ptr<RunStore> store);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Every check, then binds and starts (see the top).
  Status Start();
  int port() const;
  // The runs taken over at start.
  const std::vector<std::string>& taken_over() const;
  // Stops accepting and answering, stops the runs it executes and waits up
  // to `grace_s` for them to store their end.
  void Stop(double grace_s = 10);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The checks of Start before anything is bound: a token off loopback, the
// input roots (absolute, existing folders), the limits.
Status CheckServeOptions(const ServeOptions& options);

}  // namespace medreact::server

#endif  // MEDREACT_SERVER_SERVER_H_
