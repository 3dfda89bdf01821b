// Information-set Monte-Carlo tree search (the "hard" bot): see IsmctsBot in bot.h.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "engine/bots/bot.h"

namespace parlor::bots {

using engine::Action;
using engine::Rng;
using engine::State;

namespace {

// Statistics of one (seat, action) edge of a node: how often it was taken, the sum of the results
// for the seat that took it, and how often it was available (legal in the determinization of a
// visit), which replaces the parent's visit count in the exploration term.
struct Edge {
  int seat;
  Action action;
  double reward = 0.0;
  int visits = 0;
  int available = 0;
};

struct Node {
  std::vector<Edge> edges;  // sorted by (seat, action)
  // The node reached by each step taken from here, keyed by the step's (seat, action) pairs.
  std::vector<std::pair<uint64_t, int>> children;
};

uint64_t StepKey(const std::vector<std::pair<int, Action>>& step) {
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (const auto& [seat, action] : step) {
    h ^= static_cast<uint64_t>(seat) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= static_cast<uint64_t>(action) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  }
  return h;
}

size_t FindOrAddEdge(Node& node, int seat, Action action) {
  auto less = [](const Edge& e, std::pair<int, Action> key) {
    return std::make_pair(e.seat, e.action) < key;
  };
  auto it =
      std::lower_bound(node.edges.begin(), node.edges.end(), std::make_pair(seat, action), less);
  if (it == node.edges.end() || it->seat != seat || it->action != action) {
    it = node.edges.insert(it, Edge{seat, action});
  }
  return static_cast<size_t>(it - node.edges.begin());
}

constexpr double kExploration = 0.7;

class Search {
 public:
  Search(int seat, Rng& rng, int max_playout_moves)
      : root_seat_(seat), rng_(rng), max_playout_moves_(max_playout_moves) {
    nodes_.emplace_back();
  }

  absl::Status Iterate(const State& real) {
    std::unique_ptr<State> state = real.ResampleHidden(root_seat_, rng_);
    // The edges taken, as (node, seat, action), for the update.
    path_.clear();
    int node = 0;
    bool expanded = false;
    while (!state->IsTerminal() && !expanded) {
      // Every seat acting in this step chooses from the node's statistics of its own edges,
      // without seeing the others' choices of the same step (decoupled selection), so a
      // simultaneous choice is never searched as if the later chooser knew the earlier one.
      const std::vector<int> acting = state->ActingSeats().ToVector();
      step_.clear();
      for (int seat : acting) {
        const std::vector<Action> legal = state->LegalActions(seat);
        if (legal.empty()) continue;
        Action chosen;
        bool unvisited;
        Select(nodes_[node], seat, legal, &chosen, &unvisited);
        if (unvisited) expanded = true;
        step_.emplace_back(seat, chosen);
      }
      for (const auto& [seat, action] : step_) {
        if (state->IsTerminal() || !state->ActingSeats().Contains(seat)) break;
        if (absl::Status s = state->Apply(seat, action); !s.ok()) {
          return absl::InternalError(absl::StrCat("search: legal action ", action, " of seat ",
                                                  seat, " was refused: ", s.message()));
        }
        path_.push_back({node, seat, action});
      }
      const uint64_t key = StepKey(step_);
      auto it = std::find_if(nodes_[node].children.begin(), nodes_[node].children.end(),
                             [&](const auto& c) { return c.first == key; });
      if (it == nodes_[node].children.end()) {
        const int child = static_cast<int>(nodes_.size());
        nodes_[node].children.emplace_back(key, child);
        nodes_.emplace_back();
        node = child;
        expanded = true;
      } else {
        node = it->second;
      }
    }
    // Random playout from the new node, cut short in long games.
    int moves = 0;
    for (; !state->IsTerminal() && moves < max_playout_moves_; ++moves) {
      const std::vector<int> acting = state->ActingSeats().ToVector();
      const int mover = acting[rng_.Uniform(acting.size())];
      absl::StatusOr<Action> action = RandomLegalAction(*state, mover, rng_);
      if (!action.ok()) return action.status();
      if (absl::Status s = state->Apply(mover, *action); !s.ok()) return s;
    }
    std::vector<double> result(state->num_players());
    for (int s = 0; s < state->num_players(); ++s) {
      result[s] = state->IsTerminal() ? FinalValue(*state, s) : CutOffValue(*state, s);
    }
    for (const Taken& t : path_) {
      Edge& e = nodes_[t.node].edges[FindOrAddEdge(nodes_[t.node], t.seat, t.action)];
      ++e.visits;
      e.reward += result[t.seat];
    }
    return absl::OkStatus();
  }

  // The root action of the search's seat taken most often (ties: better mean, then lower code).
  Action Best(const std::vector<Action>& legal) const {
    Action best = legal[0];
    int best_visits = -1;
    double best_mean = -1.0;
    for (const Edge& e : nodes_[0].edges) {
      if (e.seat != root_seat_ || !std::binary_search(legal.begin(), legal.end(), e.action)) {
        continue;
      }
      const double mean = e.visits > 0 ? e.reward / e.visits : 0.0;
      if (e.visits > best_visits || (e.visits == best_visits && mean > best_mean)) {
        best = e.action;
        best_visits = e.visits;
        best_mean = mean;
      }
    }
    return best;
  }

 private:
  struct Taken {
    int node;
    int seat;
    Action action;
  };

  void Select(Node& node, int seat, const std::vector<Action>& legal, Action* chosen,
              bool* unvisited) {
    unvisited_.clear();
    double best = -1.0;
    Action best_action = legal[0];
    for (Action a : legal) {
      Edge& e = node.edges[FindOrAddEdge(node, seat, a)];
      ++e.available;
      if (e.visits == 0) {
        unvisited_.push_back(a);
        continue;
      }
      const double ucb =
          e.reward / e.visits + kExploration * std::sqrt(std::log(e.available) / e.visits);
      if (ucb > best) {
        best = ucb;
        best_action = a;
      }
    }
    *unvisited = !unvisited_.empty();
    *chosen = *unvisited ? unvisited_[rng_.Uniform(unvisited_.size())] : best_action;
  }

  int root_seat_;
  Rng& rng_;
  int max_playout_moves_;
  std::vector<Node> nodes_;
  std::vector<Taken> path_;
  std::vector<std::pair<int, Action>> step_;
  std::vector<Action> unvisited_;
};

}  // namespace

int IsmctsBot::IterationsFor(const engine::Game& game) const {
  if (iterations_ > 0) return iterations_;
  // Calibrated so that a decision takes at most about 50 ms on one core of the development
  // machine in the longest positions of each game (figures in engine/README.md).
  static const std::map<std::string, int> kBudget = {
      {"pico", 1500}, {"picadice", 800}, {"pescado", 800}, {"pict", 400}, {"kadice", 500}};
  auto it = kBudget.find(game.name());
  return it == kBudget.end() ? 500 : it->second;
}

int IsmctsBot::PlayoutMovesFor(const engine::Game& game) const {
  if (max_playout_moves_ > 0) return max_playout_moves_;
  // Long dice games are judged by the game's heuristic after a short playout: more iterations in
  // the budget, and less noise than a random game played to its end.
  static const std::map<std::string, int> kPlayout = {
      {"pico", 300}, {"picadice", 30}, {"pescado", 30}, {"pict", 300}, {"kadice", 30}};
  auto it = kPlayout.find(game.name());
  return it == kPlayout.end() ? 300 : it->second;
}

absl::StatusOr<Action> IsmctsBot::Choose(const State& state, int seat, Rng& rng) {
  std::vector<Action> legal = state.LegalActions(seat);
  if (legal.empty()) return CannotAct(state, seat);
  if (legal.size() == 1) return legal[0];
  Search search(seat, rng, PlayoutMovesFor(state.game()));
  const int iterations = IterationsFor(state.game());
  for (int i = 0; i < iterations; ++i) {
    if (absl::Status s = search.Iterate(state); !s.ok()) return s;
  }
  return search.Best(legal);
}

}  // namespace parlor::bots
