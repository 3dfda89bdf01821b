#include "services/sessions/api/watch_hub.h"

#include <chrono>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "pqxx/pqxx"
#include "services/sessions/store/sql.h"
#include "spdlog/spdlog.h"

namespace parlor::sessions {
namespace {

class Receiver : public pqxx::notification_receiver {
 public:
  Receiver(pqxx::connection_base& connection, WatchHub* hub)
      : pqxx::notification_receiver(connection, sql::kNotifyChannel), hub_(hub) {}
  void operator()(const std::string& payload, int /*backend_pid*/) override {
    GameChange change;
    if (ParseGameChange(payload, &change)) hub_->Dispatch(change);
  }

 private:
  WatchHub* hub_;
};

}  // namespace

bool ParseGameChange(absl::string_view payload, GameChange* out) {
  std::vector<absl::string_view> parts = absl::StrSplit(payload, absl::MaxSplits(':', 2));
  if (parts.size() != 3 || parts[0].empty()) return false;
  out->game_id = std::string(parts[0]);
  if (!absl::SimpleAtoi(parts[1], &out->version)) return false;
  out->accounts.clear();
  for (absl::string_view a : absl::StrSplit(parts[2], ',', absl::SkipEmpty())) {
    out->accounts.emplace_back(a);
  }
  out->resync = false;
  return true;
}

WatchHub::WatchHub(std::string db_url) : db_url_(std::move(db_url)) {}

WatchHub::~WatchHub() { Stop(); }

void WatchHub::Start() {
  thread_ = std::thread([this] { Run(); });
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::seconds(10), [this] { return listening_; });
}

void WatchHub::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void WatchHub::Run() {
  bool first = true;
  while (!stop_) {
    try {
      pqxx::connection connection(db_url_);
      Receiver receiver(connection, this);
      // LISTEN is issued by the receiver's registration; make sure it has reached the server.
      {
        pqxx::nontransaction ping(connection);
        ping.exec("SELECT 1");
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        listening_ = true;
      }
      cv_.notify_all();
      if (!first) {
        // Anything committed while we were disconnected: every stream re-reads.
        GameChange resync;
        resync.resync = true;
        std::vector<std::shared_ptr<Entry>> all;
        {
          std::lock_guard<std::mutex> lock(mu_);
          for (auto& [id, e] : entries_) all.push_back(e);
        }
        for (auto& e : all) e->callback(resync);
      }
      first = false;
      while (!stop_) connection.await_notification(0, 200000);
    } catch (const std::exception& e) {
      spdlog::warn("sessions listener: {}; reconnecting", e.what());
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }
}

int64_t WatchHub::SubscribeGame(const std::string& game_id, Callback callback) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t id = next_id_++;
  entries_[id] = std::make_shared<Entry>(Entry{game_id, true, std::move(callback)});
  by_game_.emplace(game_id, id);
  return id;
}

int64_t WatchHub::SubscribeAccount(const std::string& account_id, Callback callback) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t id = next_id_++;
  entries_[id] = std::make_shared<Entry>(Entry{account_id, false, std::move(callback)});
  by_account_.emplace(account_id, id);
  return id;
}

void WatchHub::Unsubscribe(int64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  auto& index = it->second->by_game ? by_game_ : by_account_;
  auto [lo, hi] = index.equal_range(it->second->key);
  for (auto i = lo; i != hi; ++i) {
    if (i->second == id) {
      index.erase(i);
      break;
    }
  }
  entries_.erase(it);
}

int64_t WatchHub::subscribers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(entries_.size());
}

void WatchHub::Dispatch(const GameChange& change) {
  std::vector<std::shared_ptr<Entry>> targets;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto [lo, hi] = by_game_.equal_range(change.game_id);
    for (auto i = lo; i != hi; ++i) targets.push_back(entries_[i->second]);
    for (const std::string& account : change.accounts) {
      auto [alo, ahi] = by_account_.equal_range(account);
      for (auto i = alo; i != ahi; ++i) targets.push_back(entries_[i->second]);
    }
  }
  for (auto& e : targets) e->callback(change);
}

}  // namespace parlor::sessions
