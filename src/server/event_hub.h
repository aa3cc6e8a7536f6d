// EventHub: the stored events of every run, handed to the server's open
// event streams as they are committed. The store is the source: a stream
// replays what its client missed from the store (after a dropped
// connection, or a server killed and started again), then follows new
// events; nothing is delivered that is not stored, so a reconnecting client
// with its last id gets exactly what it has not seen.
//
//   EventHub hub(store, {});
//   hub.Start();
//   auto sub = hub.Subscribe({.runs = {id}, .after = 12, .by_seq = true,
//                             .deliver = [&](const StoreEvent& e) { return stream->Send(Format(e)); },
//                             .heartbeat = [&] { return stream->Send(": keep-alive\n\n"); },
//                             .ended = [&](const std::string& status) { stream->Close(); }});
//   ...
//   sub.reset();   // or the deliver callback returns false: the subscriber is dropped
//
// One thread (the pump) reads the store and calls every callback: a
// callback must only queue (EventStream::Send), never block. The pump wakes
// on this process's commits (RunStore::SetWriteListener) and polls every
// `poll_interval_s` for commits of other processes (a CLI run on the same
// store).
//
// Thread-safety: Subscribe and dropping a subscription from any thread.
#ifndef MEDREACT_SERVER_EVENT_HUB_H_
#define MEDREACT_SERVER_EVENT_HUB_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "medreact/status.h"
#include "store/run_store.h"

namespace medreact::server {

struct EventHubOptions {
  double poll_interval_s = 0.25;  // how often other processes' commits are looked for. Default: 250 ms
  double heartbeat_s = 15;        // every subscriber's heartbeat. Default: 15 s
  int64_t batch = 2000;           // events read per query. Default: 2000
};

struct Subscription {
  // Which events: these runs (empty: every run), of this app ("" = any).
  std::vector<std::string> runs;
  std::string app;
  // Where the client is: with by_seq (one run's stream) the run's sequence
  // number of the last event it has; else the store-wide cursor. 0: from the start.
  int64_t after = 0;
  bool by_seq = false;
  // An event for the client; false: the client is gone (the subscriber is dropped).
  std::function<bool(const StoreEvent&)> deliver;
  // Every heartbeat_s; false as above.
  std::function<bool()> heartbeat;
  // One run's stream (by_seq, one run): the run has ended (its status), after
  // its last event was delivered. The subscriber is dropped after.
  std::function<void(const std::string& status)> ended;
};

class EventHub {
 public:
  EventHub(std::shared_ptr<RunStore> store, EventHubOptions options = {});
  ~EventHub();  // Stop()
  EventHub(const EventHub&) = delete;
  EventHub& operator=(const EventHub&) = delete;

  // Reads the store's newest position and starts the pump.
  Status Start();
  void Stop();
  // Wakes the pump (a commit happened).
  void Notify();

  // Adds a subscriber: the pump replays what it missed, then follows. Drop
  // the returned handle to unsubscribe.
  std::shared_ptr<void> Subscribe(Subscription subscription);

  int64_t subscribers() const { return *count_; }
  // Events delivered so far (for /metrics).
  int64_t delivered() const { return delivered_; }

 private:
  struct Sub;
  void Pump();
  void CatchUp(const std::shared_ptr<Sub>& sub);
  bool Deliver(Sub& sub, const StoreEvent& event);
  void CheckEnded(const std::string& run_id);

  std::shared_ptr<RunStore> store_;
  EventHubOptions options_;
  std::thread pump_;
  std::mutex wake_mu_;
  std::condition_variable wake_;
  bool woken_ = false;     // guarded by wake_mu_
  bool stopping_ = false;  // guarded by wake_mu_
  std::mutex pending_mu_;
  std::vector<std::shared_ptr<Sub>> pending_;  // guarded by pending_mu_
  // The pump's own (no lock): the live subscribers and their index.
  std::vector<std::shared_ptr<Sub>> live_;
  std::unordered_map<std::string, std::vector<std::shared_ptr<Sub>>> by_run_;
  int64_t cursor_ = 0;
  std::shared_ptr<std::atomic<int64_t>> count_ = std::make_shared<std::atomic<int64_t>>(0);
  std::atomic<int64_t> delivered_{0};
};

// One stored event as an SSE message: `id:` (`id`), `event:` (its type),
// `data:` the stored event's JSON with the run's id, its app, its sequence
// number and its time added.
std::string SseMessage(const StoreEvent& event, int64_t id);

}  // namespace medreact::server

#endif  // MEDREACT_SERVER_EVENT_HUB_H_
