#include "server/event_hub.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "medreact/json.h"

namespace medreact::server {

struct EventHub::Sub {
  Subscription s;
  int64_t last = 0;  // by_seq: the run's last sequence number delivered; else the last cursor
  std::atomic<bool> dropped{false};
  // The hub's subscriber count, shared: a handle may be let go after the
  // hub is gone (a stream closed late, a request finished after a stop).
  std::shared_ptr<std::atomic<int64_t>> count;
  ~Sub() {
    if (count) --*count;
  }
};

namespace {

bool RunHasEnded(const std::string& status) { return status != "running" && status != "awaiting_approval"; }

}  // namespace

std::string SseMessage(const StoreEvent& e, int64_t id) {
  std::string data = "{\"run_id\":" + DumpJson(Json(e.run_id)) + ",\"seq\":" + std::to_string(e.event.seq);
  if (!e.app.empty()) data += ",\"app\":" + DumpJson(Json(e.app));
  if (!e.event.at.empty()) data += ",\"at\":" + DumpJson(Json(e.event.at));
  const std::string& body = e.event.json;
  if (body.size() >= 2 && body.front() == '{' && body.back() == '}') {
    if (body.size() > 2) data += "," + body.substr(1);
    else data += "}";
  } else {
    data += ",\"event\":" + (body.empty() ? std::string("null") : body) + "}";
  }
  // The type is a stored word; anything else in it would break the framing.
  std::string type;
  for (char c : e.event.type) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') type.push_back(c);
  }
  std::string out = "id: " + std::to_string(id) + "\n";
  if (!type.empty()) out += "event: " + type + "\n";
  out += "data: " + data + "\n\n";
  return out;
}

EventHub::EventHub(std::shared_ptr<RunStore> store, EventHubOptions options)
    : store_(std::move(store)), options_(options) {}

EventHub::~EventHub() { Stop(); }

Status EventHub::Start() {
  Result<int64_t> cursor = store_->LastEventCursor();
  if (!cursor.ok()) return cursor.status();
  cursor_ = *cursor;
  store_->SetWriteListener([this] { Notify(); });
  pump_ = std::thread([this] { Pump(); });
  return Status::OK();
}

void EventHub::Stop() {
  {
    std::lock_guard<std::mutex> lock(wake_mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (pump_.joinable()) pump_.join();
  store_->SetWriteListener(nullptr);
  live_.clear();
  by_run_.clear();
  std::lock_guard<std::mutex> lock(pending_mu_);
  pending_.clear();
}

void EventHub::Notify() {
  {
    std::lock_guard<std::mutex> lock(wake_mu_);
    woken_ = true;
  }
  wake_.notify_one();
}

std::shared_ptr<void> EventHub::Subscribe(Subscription subscription) {
  auto sub = std::make_shared<Sub>();
  sub->s = std::move(subscription);
  sub->last = sub->s.after;
  sub->count = count_;
  ++*count_;
  {
    std::lock_guard<std::mutex> lock(pending_mu_);
    pending_.push_back(sub);
  }
  Notify();
  // The handle marks the subscriber dropped; the pump lets it go.
  return std::shared_ptr<void>(nullptr, [sub](void*) { sub->dropped = true; });
}

bool EventHub::Deliver(Sub& sub, const StoreEvent& event) {
  if (sub.dropped) return false;
  if (!sub.s.app.empty() && event.app != sub.s.app) return true;
  const int64_t key = sub.s.by_seq ? event.event.seq : event.cursor;
  if (key <= sub.last) return true;  // already sent (the replay and the live read overlap)
  if (!sub.s.deliver(event)) {
    sub.dropped = true;
    return false;
  }
  sub.last = key;
  ++delivered_;
  return true;
}

void EventHub::CatchUp(const std::shared_ptr<Sub>& sub) {
  if (sub->s.by_seq && sub->s.runs.size() == 1) {
    const std::string& run_id = sub->s.runs.front();
    Result<std::vector<RunEvent>> events = store_->Events(run_id);
    if (events.ok()) {
      StoreEvent e{.run_id = run_id};
      for (RunEvent& ev : *events) {
        e.event = std::move(ev);
        if (!Deliver(*sub, e)) return;
      }
    }
    Result<RunRecord> run = store_->Get(run_id);
    if (run.ok() && RunHasEnded(run->status)) {
      if (sub->s.ended) sub->s.ended(run->status);
      sub->dropped = true;
    }
    return;
  }
  // A stream over many runs: from its cursor up to the pump's.
  EventQuery query{.runs = sub->s.runs, .app = sub->s.app, .limit = options_.batch};
  for (int64_t from = sub->last; from < cursor_;) {
    Result<std::vector<StoreEvent>> page = store_->EventsSince(from, query);
    if (!page.ok() || page->empty()) break;
    for (const StoreEvent& e : *page) {
      if (e.cursor > cursor_) return;  // the pump delivers the rest
      if (!Deliver(*sub, e)) return;
    }
    from = page->back().cursor;
  }
}

void EventHub::CheckEnded(const std::string& run_id) {
  auto it = by_run_.find(run_id);
  if (it == by_run_.end()) return;
  bool any = false;
  for (const auto& sub : it->second) any = any || (sub->s.by_seq && sub->s.ended && !sub->dropped);
  if (!any) return;
  Result<RunRecord> run = store_->Get(run_id);
  if (!run.ok() || !RunHasEnded(run->status)) return;
  for (const auto& sub : it->second) {
    if (!sub->s.by_seq || sub->dropped) continue;
    if (sub->s.ended) sub->s.ended(run->status);
    sub->dropped = true;
  }
}

void EventHub::Pump() {
  using Clock = std::chrono::steady_clock;
  const auto poll = std::chrono::milliseconds(static_cast<int64_t>(options_.poll_interval_s * 1000));
  const auto beat = std::chrono::milliseconds(static_cast<int64_t>(options_.heartbeat_s * 1000));
  auto next_beat = Clock::now() + beat;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(wake_mu_);
      wake_.wait_for(lock, poll, [&] { return woken_ || stopping_; });
      if (stopping_) return;
      woken_ = false;
    }
    // 1. New events first: the pump's cursor moves before a newcomer's
    //    replay, so the replay ends where the live reading starts.
    std::set<std::string> touched;
    for (;;) {
      Result<std::vector<StoreEvent>> page = store_->EventsSince(cursor_, {.limit = options_.batch});
      if (!page.ok() || page->empty()) break;
      for (const StoreEvent& e : *page) {
        touched.insert(e.run_id);
        if (auto it = by_run_.find(e.run_id); it != by_run_.end()) {
          for (const auto& sub : it->second) Deliver(*sub, e);
        }
        for (const auto& sub : live_) {
          if (sub->s.runs.empty()) Deliver(*sub, e);
        }
      }
      cursor_ = page->back().cursor;
      if (static_cast<int64_t>(page->size()) < options_.batch) break;
    }
    for (const std::string& run_id : touched) CheckEnded(run_id);
    // 2. Newcomers: replay what they missed, then they are live.
    std::vector<std::shared_ptr<Sub>> arrived;
    {
      std::lock_guard<std::mutex> lock(pending_mu_);
      arrived.swap(pending_);
    }
    for (const auto& sub : arrived) {
      CatchUp(sub);
      if (sub->dropped) continue;
      live_.push_back(sub);
      for (const std::string& run_id : sub->s.runs) by_run_[run_id].push_back(sub);
    }
    // 3. Heartbeats.
    if (Clock::now() >= next_beat) {
      next_beat = Clock::now() + beat;
      for (const auto& sub : live_) {
        if (!sub->dropped && sub->s.heartbeat && !sub->s.heartbeat()) sub->dropped = true;
      }
    }
    // 4. Let the dropped go.
    auto gone = [](const std::shared_ptr<Sub>& s) { return s->dropped.load(); };
    if (std::any_of(live_.begin(), live_.end(), gone)) {
      live_.erase(std::remove_if(live_.begin(), live_.end(), gone), live_.end());
      for (auto it = by_run_.begin(); it != by_run_.end();) {
        auto& v = it->second;
        v.erase(std::remove_if(v.begin(), v.end(), gone), v.end());
        it = v.empty() ? by_run_.erase(it) : std::next(it);
      }
    }
  }
}

}  // namespace medreact::server
