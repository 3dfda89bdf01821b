// parlor-bot-match: win-rate tables of the bot levels over seeded games, and the time a decision
// of each bot takes. Long runs belong here, not in unit tests.
//
//   parlor-bot-match [--games N] [--seed S] [--game G]... [--players N]
//                    [--match strong:weak]... [--iterations N] [--playout-moves M]
//                    [--exploration C] [--scale H] [--simultaneous 1|2]
//                    [--playout random|guided] [--epsilon E] [--hidden-choice 1|2]
//                    [--leaf game|bot] [--prior W] [--opponent-policy P]
//
// Defaults: 400 games, seed 1, every game at its minimum player count, and the matches
// medium:easy and hard:greedy. Each match prints one table row per game: wins, draws and losses
// of the strong bot, its score (share of opponents finished ahead of, ties half) with a 95%
// interval (normal approximation over the games' scores), and the CPU time of its decisions
// among two or more actions (median, 99th percentile, largest). --iterations, --playout-moves,
// --exploration, --scale, --simultaneous, --playout, --epsilon, --hidden-choice, --leaf,
// --prior and --opponent-policy override the hard bot's settings (IsmctsSettings, for calibrating
// it).

#include <algorithm>
#include <cmath>
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

// Times every decision of the bot it wraps among two or more legal actions (a single legal
// action is played without thinking). CPU time of the process, so other load on the machine
// counts only through shared caches and cores.
class TimedBot : public Bot {
 public:
  explicit TimedBot(std::unique_ptr<Bot> bot) : bot_(std::move(bot)) {}
  std::string name() const override { return bot_->name(); }
  absl::StatusOr<parlor::engine::Action> Choose(const parlor::engine::State& state, int seat,
                                                parlor::engine::Rng& rng) override {
    const bool choice = state.LegalActions(seat).size() > 1;
    const double start = CpuSeconds();
    absl::StatusOr<parlor::engine::Action> action = bot_->Choose(state, seat, rng);
    if (choice) times_ms_.push_back(1e3 * (CpuSeconds() - start));
    return action;
  }
  // The q-quantile (0..1) of the decision times in ms; 0 without decisions.
  double quantile_ms(double q) {
    if (times_ms_.empty()) return 0.0;
    std::sort(times_ms_.begin(), times_ms_.end());
    const size_t i = std::min(times_ms_.size() - 1, static_cast<size_t>(q * times_ms_.size()));
    return times_ms_[i];
  }
  size_t decisions() const { return times_ms_.size(); }

 private:
  std::unique_ptr<Bot> bot_;
  std::vector<double> times_ms_;
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
  double exploration = 0.0;
  double scale = 0.0;
  int simultaneous = 0;
  int playout = 0;
  double epsilon = 0.0;
  int hidden_choice = 0;
  int leaf = 0;
  double prior = 0.0;
  double opponent = 0.0;
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
    } else if (flag == "--exploration") {
      if (!absl::SimpleAtod(value, &exploration)) return Usage("--exploration must be a number");
    } else if (flag == "--scale") {
      if (!absl::SimpleAtod(value, &scale)) return Usage("--scale must be a number");
    } else if (flag == "--simultaneous") {
      if (!absl::SimpleAtoi(value, &simultaneous) || simultaneous < 1 || simultaneous > 2)
        return Usage("--simultaneous must be 1 (regret matching) or 2 (decoupled UCB1)");
    } else if (flag == "--playout") {
      if (value != "random" && value != "guided") {
        return Usage("--playout must be random or guided");
      }
      playout = value == "random" ? 1 : 2;
    } else if (flag == "--epsilon") {
      if (!absl::SimpleAtod(value, &epsilon)) return Usage("--epsilon must be a number");
    } else if (flag == "--hidden-choice") {
      if (!absl::SimpleAtoi(value, &hidden_choice) || hidden_choice < 1 || hidden_choice > 2)
        return Usage("--hidden-choice must be 1 (uniform) or 2 (from the chooser's statistics)");
    } else if (flag == "--leaf") {
      if (value != "game" && value != "bot") return Usage("--leaf must be game or bot");
      leaf = value == "game" ? 1 : 2;
    } else if (flag == "--prior") {
      if (!absl::SimpleAtod(value, &prior)) return Usage("--prior must be a number");
    } else if (flag == "--opponent-policy") {
      if (!absl::SimpleAtod(value, &opponent)) return Usage("--opponent-policy must be a number");
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
      "| game | players | strong vs weak | games | wins | draws | losses | score (95%% "
      "interval) | strong decisions | p50 / p99 / max (ms CPU) |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& [strong_name, weak_name] : matches) {
    for (const parlor::engine::Game* game : selected) {
      absl::StatusOr<std::unique_ptr<Bot>> strong = parlor::bots::MakeBot(strong_name);
      if (strong_name == "hard") {
        strong = std::make_unique<parlor::bots::IsmctsBot>(
            parlor::bots::IsmctsSettings{.iterations = iterations,
                                         .max_playout_moves = playout_moves,
                                         .exploration = exploration,
                                         .heuristic_scale = scale,
                                         .simultaneous = simultaneous,
                                         .playout = playout,
                                         .playout_epsilon = epsilon,
                                         .hidden_choice = hidden_choice,
                                         .leaf = leaf,
                                         .prior_weight = prior,
                                         .opponent_policy = opponent});
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
      // 95% interval of the mean score: normal approximation with the games' sample variance.
      const double half_width =
          result->games > 1
              ? 1.96 * std::sqrt(result->score_variance / static_cast<double>(result->games))
              : 0.0;
      std::cout << absl::StrFormat(
          "| %s | %d | %s vs %s | %d | %d | %d | %d | %.3f (%.3f-%.3f) | %d | %.1f / %.1f / %.1f "
          "|\n",
          game->name(), n, strong_name, weak_name, result->games, result->wins, result->draws,
          result->losses, result->score, std::max(0.0, result->score - half_width),
          std::min(1.0, result->score + half_width), timed.decisions(), timed.quantile_ms(0.5),
          timed.quantile_ms(0.99), timed.quantile_ms(1.0));
      std::cout.flush();
    }
  }
  return 0;
}
