// Arbitrary EnqueueRequest messages into the matchmaking domain: GameCatalog::Validate (game,
// options, table sizes against the real engine registry), then a pool of fuzzed tickets with the
// validated table layouts through the real matcher (MatchPool). Checks: no crash; a refusal is
// INVALID_ARGUMENT with a message; canonical options are a fixed point (parse → validate gives
// the same text) and every accepted table size has a seat-team layout; every table the matcher
// forms is well made (sizes the pool allows and every seated ticket accepts, each ticket in at
// most one table, nobody seated twice, a party kept on one team, the pool's team layout).
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/games/all_games.h"
#include "fuzz/fuzz_support.h"
#include "parlor/matchmaking/v1/matchmaking.pb.h"
#include "services/matchmaking/domain/catalog.h"
#include "services/matchmaking/domain/matcher.h"

namespace parlor::fuzz {
namespace {

using matchmaking::GameCatalog;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

void CheckTables(const matchmaking::Pool& pool, const std::vector<matchmaking::Table>& tables) {
  std::set<size_t> used;
  for (const matchmaking::Table& table : tables) {
    const int size = static_cast<int>(table.seat_accounts.size());
    auto layout = pool.seat_teams.find(size);
    PARLOR_FUZZ_CHECK(layout != pool.seat_teams.end(),
                      absl::StrCat("a table of ", size, " seats, which the pool does not allow"));
    PARLOR_FUZZ_CHECK(table.seat_teams == layout->second, "a table with another team layout");
    PARLOR_FUZZ_CHECK(table.seat_ratings.size() == table.seat_accounts.size(),
                      "one rating per seat");
    PARLOR_FUZZ_CHECK(!table.tickets.empty(), "a table without tickets");
    std::set<std::string> seated(table.seat_accounts.begin(), table.seat_accounts.end());
    PARLOR_FUZZ_CHECK(static_cast<int>(seated.size()) == size, "a player seated twice");
    size_t players = 0;
    for (size_t index : table.tickets) {
      PARLOR_FUZZ_CHECK(index < pool.tickets.size(), "a table names a ticket not in the pool");
      PARLOR_FUZZ_CHECK(used.insert(index).second, "a ticket in two tables");
      const matchmaking::PoolTicket& ticket = pool.tickets[index];
      PARLOR_FUZZ_CHECK(
          std::count(ticket.player_counts.begin(), ticket.player_counts.end(), size) > 0,
          "a ticket seated at a table size it did not accept");
      std::set<int> teams;
      for (const std::string& player : ticket.players) {
        auto seat = std::find(table.seat_accounts.begin(), table.seat_accounts.end(), player);
        PARLOR_FUZZ_CHECK(seat != table.seat_accounts.end(), "a ticket's player is not seated");
        teams.insert(table.seat_teams[seat - table.seat_accounts.begin()]);
      }
      PARLOR_FUZZ_CHECK(teams.size() == 1 || ticket.players.size() == 1 || teams.empty(),
                        "a party split over teams");
      players += ticket.players.size();
    }
    PARLOR_FUZZ_CHECK(players == table.seat_accounts.size(), "seats and tickets' players differ");
  }
}

void Run(FuzzedDataProvider& in) {
  static const engine::Registry* const registry = new engine::Registry(engine::AllGames());
  static const GameCatalog* const catalog = new GameCatalog(registry);

  matchmaking::v1::EnqueueRequest request;
  if (!request.ParseFromString(in.ConsumeRandomLengthString(512))) return;
  if (in.ConsumeBool()) {
    // Spend most runs on real game names, so the options and sizes get explored.
    const std::vector<const engine::Game*> games = registry->games();
    request.set_game(games[in.ConsumeIntegralInRange<size_t>(0, games.size() - 1)]->name());
  }
  const std::map<std::string, std::string> options(request.options().begin(),
                                                   request.options().end());
  const std::vector<int> counts(request.player_counts().begin(), request.player_counts().end());
  absl::StatusOr<GameCatalog::Validated> valid = catalog->Validate(request.game(), options, counts);
  if (!valid.ok()) {
    PARLOR_FUZZ_CHECK(valid.status().code() == absl::StatusCode::kInvalidArgument,
                      "Validate refused with " + valid.status().ToString());
    PARLOR_FUZZ_CHECK(!valid.status().message().empty(), "a refusal without a message");
    return;
  }
  PARLOR_FUZZ_CHECK(
      !valid->player_counts.empty() &&
          std::is_sorted(valid->player_counts.begin(), valid->player_counts.end()) &&
          std::adjacent_find(valid->player_counts.begin(), valid->player_counts.end()) ==
              valid->player_counts.end(),
      "player counts not ascending and distinct");
  for (int count : valid->player_counts) {
    PARLOR_FUZZ_CHECK(valid->seat_teams.count(count) == 1 &&
                          static_cast<int>(valid->seat_teams.at(count).size()) == count,
                      absl::StrCat("no team layout for ", count, " players"));
  }
  absl::StatusOr<GameCatalog::Validated> again = catalog->Validate(
      request.game(), GameCatalog::ParseCanonical(valid->canonical_options), valid->player_counts);
  PARLOR_FUZZ_CHECK(again.ok() && again->canonical_options == valid->canonical_options,
                    "canonical options are not a fixed point: " + valid->canonical_options);
  absl::StatusOr<std::map<int, std::vector<int>>> layouts =
      catalog->SeatTeamsForPool(request.game(), valid->canonical_options);
  PARLOR_FUZZ_CHECK(layouts.ok(), "SeatTeamsForPool refuses validated options");

  matchmaking::Pool pool;
  pool.ranked = request.ranked();
  pool.seat_teams = *layouts;
  const int num_tickets = in.ConsumeIntegralInRange(0, 24);
  for (int t = 0; t < num_tickets; ++t) {
    matchmaking::PoolTicket ticket;
    const int party = in.ConsumeIntegralInRange(0, 7) == 0 ? in.ConsumeIntegralInRange(2, 4) : 1;
    // A small id space, so the same player sometimes holds two tickets (a party's members are
    // distinct, as the service guarantees).
    const int first = in.ConsumeIntegralInRange(0, 40);
    for (int p = 0; p < party; ++p) ticket.players.push_back(absl::StrCat("player-", first + p));
    ticket.rating = in.ConsumeFloatingPointInRange(0.0, 3000.0);
    ticket.enqueue_time = kNow - absl::Seconds(in.ConsumeIntegralInRange(0, 3600));
    for (int count : valid->player_counts) {
      if (in.ConsumeBool()) ticket.player_counts.push_back(count);
    }
    if (ticket.player_counts.empty()) ticket.player_counts.push_back(valid->player_counts[0]);
    pool.tickets.push_back(std::move(ticket));
  }
  matchmaking::MatcherConfig config;
  config.full_table_wait = absl::Seconds(in.ConsumeIntegralInRange(0, 120));
  CheckTables(pool, matchmaking::MatchPool(pool, kNow, config));
}

}  // namespace
}  // namespace parlor::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  parlor::fuzz::Run(in);
  return 0;
}
