#include "services/sessions/api/watch_hub.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace parlor::sessions {

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

WatchHub::WatchHub(std::string listen_db_url)
    : listener_(
          std::move(listen_db_url),
          [this](const std::string& payload) {
            GameChange change;
            if (ParseGameChange(payload, &change)) Dispatch(change);
          },
          [this] { Resync(); }) {}

WatchHub::~WatchHub() { Stop(); }

void WatchHub::Start() { listener_.Start(); }

void WatchHub::Stop() { listener_.Stop(); }

void WatchHub::Resync() {
  // Anything committed while the listener was disconnected: every stream re-reads.
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
