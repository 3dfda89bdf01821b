#include "services/sessions/api/watch_hub.h"

#include <utility>
#include <vector>

namespace parlor::sessions {

WatchHub::WatchHub(std::unique_ptr<ChangeFeed> feed, SessionsMetrics* metrics)
    : metrics_(metrics), feed_(std::move(feed)) {}

WatchHub::~WatchHub() { Stop(); }

void WatchHub::Start() {
  feed_->Start([this](const GameChange& change) {
    if (change.resync) {
      if (metrics_ != nullptr) metrics_->WatchFeedResynced();
      Resync();
    } else {
      if (metrics_ != nullptr) metrics_->WatchChangeReceived();
      Dispatch(change);
    }
  });
}

void WatchHub::Stop() { feed_->Stop(); }

void WatchHub::Resync() {
  // Anything committed while the feed was disconnected: every stream re-reads.
  GameChange resync;
  resync.resync = true;
  std::vector<std::shared_ptr<Entry>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, e] : entries_) all.push_back(e);
  }
  for (auto& e : all) e->callback(resync);
}

int64_t WatchHub::SubscribeGame(const std::string& game_id, Callback callback) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t id = next_id_++;
  entries_[id] = std::make_shared<Entry>(Entry{game_id, Scope::kGame, std::move(callback)});
  by_game_.emplace(game_id, id);
  return id;
}

int64_t WatchHub::SubscribeAccount(const std::string& account_id, Callback callback) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t id = next_id_++;
  entries_[id] = std::make_shared<Entry>(Entry{account_id, Scope::kAccount, std::move(callback)});
  by_account_.emplace(account_id, id);
  return id;
}

int64_t WatchHub::SubscribeAll(Callback callback) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t id = next_id_++;
  entries_[id] = std::make_shared<Entry>(Entry{"", Scope::kAll, std::move(callback)});
  all_.push_back(id);
  return id;
}

void WatchHub::Unsubscribe(int64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  if (it->second->scope == Scope::kAll) {
    std::erase(all_, id);
    entries_.erase(it);
    return;
  }
  auto& index = it->second->scope == Scope::kGame ? by_game_ : by_account_;
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
    for (int64_t id : all_) targets.push_back(entries_[id]);
  }
  for (auto& e : targets) e->callback(change);
}

HubChangeFeed::~HubChangeFeed() { Stop(); }

void HubChangeFeed::Start(OnChange on_change) {
  Stop();
  receiver_ = std::make_shared<Receiver>();
  receiver_->on_change = std::move(on_change);
  subscription_ = hub_->SubscribeAll([receiver = receiver_](const GameChange& change) {
    std::lock_guard<std::mutex> lock(receiver->mu);
    if (receiver->on_change) receiver->on_change(change);
  });
}

void HubChangeFeed::Stop() {
  if (receiver_ == nullptr) return;
  hub_->Unsubscribe(subscription_);
  {
    // A Dispatch that took the callback before Unsubscribe waits here, then finds nothing to call.
    std::lock_guard<std::mutex> lock(receiver_->mu);
    receiver_->on_change = nullptr;
  }
  receiver_ = nullptr;
}

}  // namespace parlor::sessions
