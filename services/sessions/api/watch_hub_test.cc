#include "services/sessions/api/watch_hub.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parlor::sessions {
namespace {

using ::testing::ElementsAre;

// A feed the test drives by hand, as the LISTEN thread would.
class HandFeed final : public ChangeFeed {
 public:
  void Start(OnChange on_change) override { on_change_ = std::move(on_change); }
  void Stop() override { on_change_ = nullptr; }
  void Announce(const GameChange& change) {
    if (on_change_) on_change_(change);
  }

 private:
  OnChange on_change_;
};

GameChange ChangeOf(const std::string& game, int64_t version) {
  GameChange change;
  change.game_id = game;
  change.version = version;
  change.accounts = {"alice", "bob"};
  return change;
}

struct Hub {
  Hub() {
    auto owned = std::make_unique<HandFeed>();
    feed = owned.get();
    hub = std::make_unique<WatchHub>(std::move(owned), nullptr);
    hub->Start();
  }
  HandFeed* feed = nullptr;
  std::unique_ptr<WatchHub> hub;
};

TEST(WatchHubTest, AnAllSubscriberHearsEveryGameAndEveryResync) {
  Hub h;
  std::vector<std::string> heard;
  const int64_t id = h.hub->SubscribeAll([&](const GameChange& change) {
    heard.push_back(change.resync ? "resync" : change.game_id);
  });
  h.feed->Announce(ChangeOf("g1", 2));
  h.feed->Announce(ChangeOf("g2", 5));
  GameChange resync;
  resync.resync = true;
  h.feed->Announce(resync);
  h.hub->Unsubscribe(id);
  h.feed->Announce(ChangeOf("g3", 1));
  EXPECT_THAT(heard, ElementsAre("g1", "g2", "resync"));
  EXPECT_EQ(h.hub->subscribers(), 0);
}

TEST(WatchHubTest, GameSubscribersStillHearOnlyTheirGameBesideAnAllSubscriber) {
  Hub h;
  int all = 0;
  std::vector<int64_t> versions;
  h.hub->SubscribeAll([&](const GameChange&) { ++all; });
  h.hub->SubscribeGame("g1", [&](const GameChange& change) { versions.push_back(change.version); });
  h.feed->Announce(ChangeOf("g1", 2));
  h.feed->Announce(ChangeOf("g2", 3));
  EXPECT_EQ(all, 2);
  EXPECT_THAT(versions, ElementsAre(2));
}

// The outbox dispatcher's loop follows the hub's LISTEN connection instead of opening its own.
TEST(HubChangeFeedTest, PassesTheHubsChangesOnUntilStopped) {
  Hub h;
  HubChangeFeed feed(h.hub.get());
  std::vector<std::string> heard;
  feed.Start([&](const GameChange& change) { heard.push_back(change.game_id); });
  h.feed->Announce(ChangeOf("g1", 2));
  feed.Stop();
  h.feed->Announce(ChangeOf("g2", 3));
  feed.Stop();  // idempotent
  EXPECT_THAT(heard, ElementsAre("g1"));
  EXPECT_EQ(h.hub->subscribers(), 0);
}

TEST(HubChangeFeedTest, UnsubscribesWhenDestroyed) {
  Hub h;
  {
    HubChangeFeed feed(h.hub.get());
    feed.Start([](const GameChange&) {});
    EXPECT_EQ(h.hub->subscribers(), 1);
  }
  EXPECT_EQ(h.hub->subscribers(), 0);
  h.feed->Announce(ChangeOf("g1", 2));  // no call into the destroyed feed
}

}  // namespace
}  // namespace parlor::sessions
