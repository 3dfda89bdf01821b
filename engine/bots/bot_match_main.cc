// parlor-bot-match: win-rate tables of the bot levels over seeded games, and the time a decision
// of each bot takes. Long runs belong here, not in unit tests.
//
//   parlor-bot-match [--games N] [--seed S] [--game G]... [--players N]
//                    [--match strong:weak]... [--iterations N] [--playout-moves M]
//
// Defaults: 400 games, seed 1, every game at its minimum player count, and the matches
// medium:easy and hard:greedy. Each match prints one table row per game: wins, draws and losses
// of the strong bot, its score (share of opponents finished ahead of, ties half), and the mean
// and largest CPU time of one of its decisions. --iterations and --playout-moves override the hard
// bot's budget (for calibrating it).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "engine/bots/bot.h"
#include "engine/bots/bot_match.h"
#include "engine/games/all_games.h"

namespace {

using parlor::bots::Bot;

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Times every decision of the bot it wraps (CPU time of the process, so other load on the
// machine does not count).
class TimedBot : public Bot {
 public:
  explicit TimedBot(std::unique_ptr<Bot> bot) : bot_(std::move(bot)) {}
  std::string name() const override { return bot_->name(); }
  absl::StatusOr<parlor::engine::Action> Choose(const parlor::engine::State& state, int seat,
                                                parlor::engine::Rng& rng) override {
    const double start = CpuSeconds();
    absl::StatusOr<parlor::engine::Action> action = bot_->Choose(state, seat, rng);
    const double took = CpuSeconds() - start;
    total_ += took;
    max_ = std::max(max_, took);
    ++decisions_;
    return action;
  }
  double mean_ms() const { return decisions_ > 0 ? 1e3 * total_ / decisions_ : 0.0; }
  double max_ms() const { return 1e3 * max_; }

 private:
  std::unique_ptr<Bot> bot_;
  double total_ = 0.0;
  double max_ = 0.0;
  long decisions_ = 0;
};

int Usage(const std::string& error) {
  std::cerr << "parlor-bot-match: " << error
            << "\nusage: parlor-bot-match [--games N] [--seed S] [--game G]... [--players N] "
               "[--match strong:weak]...\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int games = 400;
  uint64_t seed = 1;
  int players = 0;
  int iterations = 0;  // 0: the hard bot's calibrated budget
  int playout_moves = 0;
  std::vector<std::string> only_games;
  std::vector<std::pair<std::string, std::string>> matches;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return Usage("flag " + flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--games") {
      if (!absl::SimpleAtoi(value, &games) || games < 1) return Usage("--games must be >= 1");
    } else if (flag == "--seed") {
      if (!absl::SimpleAtoi(value, &seed)) return Usage("--seed must be a number");
    } else if (flag == "--players") {
      if (!absl::SimpleAtoi(value, &players)) return Usage("--players must be a number");
    } else if (flag == "--iterations") {
      if (!absl::SimpleAtoi(value, &iterations)) return Usage("--iterations must be a number");
    } else if (flag == "--playout-moves") {
      if (!absl::SimpleAtoi(value, &playout_moves))
        return Usage("--playout-moves must be a number");
    } else if (flag == "--game") {
      only_games.push_back(value);
    } else if (flag == "--match") {
      std::vector<std::string> pair = absl::StrSplit(value, ':');
      if (pair.size() != 2) return Usage("--match takes strong:weak, e.g. hard:greedy");
      matches.emplace_back(pair[0], pair[1]);
    } else {
      return Usage("unknown flag " + flag);
    }
  }
  if (matches.empty()) matches = {{"medium", "easy"}, {"hard", "greedy"}};
  const parlor::engine::Registry registry = parlor::engine::AllGames();
  std::vector<const parlor::engine::Game*> selected;
  if (only_games.empty()) {
    selected = registry.games();
  } else {
    for (const std::string& name : only_games) {
      absl::StatusOr<const parlor::engine::Game*> game = registry.Find(name);
      if (!game.ok()) return Usage(std::string(game.status().message()));
      selected.push_back(*game);
    }
  }
  std::cout << absl::StrFormat(
      "| game | players | strong vs weak | games | wins | draws | losses | score | strong "
      "decision mean / max (ms CPU) |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& [strong_name, weak_name] : matches) {
    for (const parlor::engine::Game* game : selected) {
      absl::StatusOr<std::unique_ptr<Bot>> strong = parlor::bots::MakeBot(strong_name);
      if (strong_name == "hard" && (iterations > 0 || playout_moves > 0)) {
        strong = std::make_unique<parlor::bots::IsmctsBot>(iterations, playout_moves);
      }
      absl::StatusOr<std::unique_ptr<Bot>> weak = parlor::bots::MakeBot(weak_name);
      if (!strong.ok()) return Usage(std::string(strong.status().message()));
      if (!weak.ok()) return Usage(std::string(weak.status().message()));
      TimedBot timed(*std::move(strong));
      parlor::bots::MatchSettings settings;
      settings.games = games;
      settings.seed = seed;
      settings.num_players = players;
      absl::StatusOr<parlor::bots::MatchResult> result =
          parlor::bots::PlayMatch(*game, timed, **weak, settings);
      if (!result.ok()) {
        std::cerr << game->name() << ": " << result.status() << "\n";
        return 1;
      }
      const int n = players > 0 ? players : game->info().min_players;
      std::cout << absl::StrFormat(
          "| %s | %d | %s vs %s | %d | %d | %d | %d | %.3f | %.2f / %.1f |\n", game->name(), n,
          strong_name, weak_name, result->games, result->wins, result->draws, result->losses,
          result->score, timed.mean_ms(), timed.max_ms());
      std::cout.flush();
    }
  }
  return 0;
}
