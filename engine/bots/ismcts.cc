// Information-set Monte-Carlo tree search (the "hard" bot): see IsmctsBot in bot.h.

#include <algorithm>
#include <bit>
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
  // Regret matching, at a simultaneous step: the cumulative regret of not having taken this
  // action, and the sum of the probabilities it was given (the average strategy).
  double regret = 0.0;
  double strategy_sum = 0.0;
};

struct Node {
  std::vector<Edge> edges;  // sorted by (seat, action)
  // The node reached by each step taken from here, keyed by the step's (seat, action) pairs.
  std::vector<std::pair<uint64_t, int>> children;
};

// The k-th seat (from 0) of `seats`, in ascending order, as SeatSet::ToVector()[k] without the
// vector.
int NthSeat(engine::SeatSet seats, uint64_t k) {
  uint32_t bits = seats.bits();
  for (; k > 0; --k) bits &= bits - 1;
  return std::countr_zero(bits);
}

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

// Regret matching mixes this share of uniform choice into its strategy, so that every action is
// tried now and then and the sampled regret estimates stay bounded.
constexpr double kRegretMixing = 0.1;

// No action is favoured by the progressive bias (action codes are never negative).
constexpr Action kNoPrior = -1;

class Search {
 public:
  Search(int seat, Rng& rng, const IsmctsSettings& settings, PlayoutPolicy policy,
         HiddenChoiceModel hidden, LeafHeuristic leaf)
      : root_seat_(seat),
        rng_(rng),
        settings_(settings),
        policy_(policy),
        hidden_(hidden),
        leaf_(leaf) {
    nodes_.emplace_back();
  }

  // Whether another seat has already made a hidden choice of the root's simultaneous step, which
  // the search then draws from that seat's own root statistics (IsmctsSettings::hidden_choice).
  void PrepareRoot(const State& real) {
    hidden_seat_ = -1;
    if (settings_.hidden_choice != 2 || hidden_.chooser == nullptr || hidden_.choice == nullptr) {
      return;
    }
    hidden_seat_ = hidden_.chooser(real, root_seat_, &hidden_options_);
    if (hidden_options_.empty()) hidden_seat_ = -1;
  }

  absl::Status Iterate(const State& real) {
    std::unique_ptr<State> state = real.ResampleHidden(root_seat_, rng_);
    // The edges taken, as (node, seat, action), for the update.
    path_.clear();
    choices_.clear();
    legal_pool_.clear();
    int node = 0;
    bool expanded = false;
    Action hidden_action = 0;
    if (hidden_seat_ >= 0) {
      // The hidden choice is picked by UCB1 from its seat's statistics, then a determinization
      // in which it was made is drawn (ResampleHidden draws it uniformly, so redrawing until it
      // matches keeps everything else as ResampleHidden would draw it).
      bool unvisited;
      const Action wanted = ModelsOpponent()
                                ? policy_(*state, hidden_seat_, hidden_options_, rng_)
                                : SelectByUcb(nodes_[0], hidden_seat_, hidden_options_, &unvisited);
      for (int tries = 1; hidden_.choice(*state, hidden_seat_) != wanted && tries < 64; ++tries) {
        state = real.ResampleHidden(root_seat_, rng_);
      }
      hidden_action = hidden_.choice(*state, hidden_seat_);
      path_.push_back({0, hidden_seat_, hidden_action, Choice{}});
      choices_.push_back(Choice{});
    }
    while (!state->IsTerminal() && !expanded) {
      // Every seat acting in this step chooses from the node's statistics of its own edges,
      // without seeing the others' choices of the same step (decoupled selection), so a
      // simultaneous choice is never searched as if the later chooser knew the earlier one.
      const std::vector<int> acting = state->ActingSeats().ToVector();
      step_.clear();
      choosers_.clear();
      for (int seat : acting) {
        std::vector<Action> legal = state->LegalActions(seat);
        if (!legal.empty()) choosers_.emplace_back(seat, std::move(legal));
      }
      const bool regret = settings_.simultaneous == 1 && choosers_.size() > 1;
      for (const auto& [seat, legal] : choosers_) {
        Choice choice;
        if (regret) {
          choice = SelectByRegret(nodes_[node], seat, legal);
        } else if (seat != root_seat_ && ModelsOpponent()) {
          choice.action = policy_(*state, seat, legal, rng_);
        } else {
          bool unvisited;
          const bool prior = policy_ != nullptr && settings_.prior_weight > 0.0;
          choice.action = SelectByUcb(nodes_[node], seat, legal, &unvisited,
                                      prior ? policy_(*state, seat, legal, rng_) : kNoPrior);
          if (unvisited) expanded = true;
        }
        step_.emplace_back(seat, choice.action);
        choices_.push_back(choice);
      }
      for (const auto& [seat, action] : step_) {
        if (state->IsTerminal() || !state->ActingSeats().Contains(seat)) break;
        if (absl::Status s = state->Apply(seat, action); !s.ok()) {
          return absl::InternalError(absl::StrCat("search: legal action ", action, " of seat ",
                                                  seat, " was refused: ", s.message()));
        }
        path_.push_back({node, seat, action, choices_[path_.size()]});
      }
      choices_.resize(path_.size());
      if (node == 0 && hidden_seat_ >= 0) step_.emplace_back(hidden_seat_, hidden_action);
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
    // Playout from the new node, random or guided, cut short in long games.
    int moves = 0;
    for (; !state->IsTerminal() && moves < settings_.max_playout_moves; ++moves) {
      const engine::SeatSet acting = state->ActingSeats();
      const int mover = NthSeat(acting, rng_.Uniform(static_cast<uint64_t>(acting.size())));
      std::vector<Action> legal = state->LegalActions(mover);
      if (legal.empty()) return CannotAct(*state, mover);
      const Action action = policy_ != nullptr && rng_.UniformDouble() >= settings_.playout_epsilon
                                ? policy_(*state, mover, legal, rng_)
                                : legal[rng_.Uniform(legal.size())];
      if (absl::Status s = state->Apply(mover, action); !s.ok()) return s;
    }
    std::vector<double> result(state->num_players());
    for (int s = 0; s < state->num_players(); ++s) {
      result[s] = state->IsTerminal() ? FinalValue(*state, s) : LeafValue(*state, s);
    }
    for (const Taken& t : path_) {
      Node& n = nodes_[t.node];
      const double u = result[t.seat];
      Edge& e = n.edges[FindOrAddEdge(n, t.seat, t.action)];
      ++e.visits;
      e.reward += u;
      if (t.choice.probability > 0.0) {
        // Sampled regrets: every action the seat could take lost u, the one taken gained the
        // importance-weighted u / p.
        n.edges[FindOrAddEdge(n, t.seat, t.action)].regret += u / t.choice.probability;
        for (int i = 0; i < t.choice.legal_count; ++i) {
          n.edges[FindOrAddEdge(n, t.seat, legal_pool_[t.choice.legal_begin + i])].regret -= u;
        }
      }
    }
    return absl::OkStatus();
  }

  // Whether the root is a simultaneous step searched by regret matching.
  static bool RegretRoot(const State& real, const IsmctsSettings& settings) {
    if (settings.simultaneous != 1) return false;
    int choosers = 0;
    for (int seat : real.ActingSeats().ToVector()) choosers += !real.LegalActions(seat).empty();
    return choosers > 1;
  }

  // An action drawn from the root seat's average strategy (regret matching's answer).
  Action Mixed(const std::vector<Action>& legal) {
    std::vector<double> weights(legal.size(), 0.0);
    double total = 0.0;
    for (size_t i = 0; i < legal.size(); ++i) {
      weights[i] = nodes_[0].edges[FindOrAddEdge(nodes_[0], root_seat_, legal[i])].strategy_sum;
      total += weights[i];
    }
    if (total <= 0.0) return legal[rng_.Uniform(legal.size())];
    double x = rng_.UniformDouble() * total;
    for (size_t i = 0; i < legal.size(); ++i) {
      if (x < weights[i]) return legal[i];
      x -= weights[i];
    }
    return legal.back();
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
  // How a seat's action at a node was chosen: by UCB1 (probability 0), or drawn by regret
  // matching with `probability` among the legal actions legal_pool_[legal_begin ...].
  struct Choice {
    Action action = 0;
    double probability = 0.0;
    int legal_begin = 0;
    int legal_count = 0;
  };
  struct Taken {
    int node;
    int seat;
    Action action;
    Choice choice;
  };

  // Whether this choice of another seat in the tree is the playout policy's move
  // (IsmctsSettings::opponent_policy) rather than its own statistics'.
  bool ModelsOpponent() {
    return policy_ != nullptr && settings_.opponent_policy > 0.0 &&
           rng_.UniformDouble() < settings_.opponent_policy;
  }

  double LeafValue(const State& state, int seat) const {
    if (settings_.heuristic_scale < 0) return CutOffValue(state, seat);
    const double h = leaf_ != nullptr ? leaf_(state, seat) : state.Heuristic(seat);
    return 0.5 + 0.5 * std::tanh(h / settings_.heuristic_scale);
  }

  // Regret matching: each action with probability proportional to its positive regret (uniform
  // while none is positive), mixed with a little uniform choice.
  Choice SelectByRegret(Node& node, int seat, const std::vector<Action>& legal) {
    probabilities_.assign(legal.size(), 0.0);
    double positive = 0.0;
    for (size_t i = 0; i < legal.size(); ++i) {
      Edge& e = node.edges[FindOrAddEdge(node, seat, legal[i])];
      ++e.available;
      probabilities_[i] = std::max(e.regret, 0.0);
      positive += probabilities_[i];
    }
    const double n = static_cast<double>(legal.size());
    for (size_t i = 0; i < legal.size(); ++i) {
      const double strategy = positive > 0.0 ? probabilities_[i] / positive : 1.0 / n;
      node.edges[FindOrAddEdge(node, seat, legal[i])].strategy_sum += strategy;
      probabilities_[i] = (1.0 - kRegretMixing) * strategy + kRegretMixing / n;
    }
    double x = rng_.UniformDouble();
    size_t pick = legal.size() - 1;
    for (size_t i = 0; i < legal.size(); ++i) {
      if (x < probabilities_[i]) {
        pick = i;
        break;
      }
      x -= probabilities_[i];
    }
    Choice choice;
    choice.action = legal[pick];
    choice.probability = probabilities_[pick];
    choice.legal_begin = static_cast<int>(legal_pool_.size());
    choice.legal_count = static_cast<int>(legal.size());
    legal_pool_.insert(legal_pool_.end(), legal.begin(), legal.end());
    return choice;
  }

  // The action UCB1 picks for `seat` among `legal`: an untried one first (the prior's, when it is
  // untried), else the best mean plus exploration, plus the progressive bias on `prior`.
  Action SelectByUcb(Node& node, int seat, const std::vector<Action>& legal, bool* unvisited,
                     Action prior = kNoPrior) {
    unvisited_.clear();
    double best = -1.0;
    Action best_action = legal[0];
    bool prior_unvisited = false;
    for (Action a : legal) {
      Edge& e = node.edges[FindOrAddEdge(node, seat, a)];
      ++e.available;
      if (e.visits == 0) {
        unvisited_.push_back(a);
        prior_unvisited = prior_unvisited || a == prior;
        continue;
      }
      const double ucb = e.reward / e.visits +
                         settings_.exploration * std::sqrt(std::log(e.available) / e.visits) +
                         (a == prior ? settings_.prior_weight / (e.visits + 1) : 0.0);
      if (ucb > best) {
        best = ucb;
        best_action = a;
      }
    }
    *unvisited = !unvisited_.empty();
    if (prior_unvisited) return prior;
    return *unvisited ? unvisited_[rng_.Uniform(unvisited_.size())] : best_action;
  }

  int root_seat_;
  Rng& rng_;
  IsmctsSettings settings_;
  PlayoutPolicy policy_;
  HiddenChoiceModel hidden_;
  LeafHeuristic leaf_;
  int hidden_seat_ = -1;
  std::vector<Action> hidden_options_;
  std::vector<Node> nodes_;
  std::vector<Taken> path_;
  std::vector<std::pair<int, Action>> step_;
  std::vector<std::pair<int, std::vector<Action>>> choosers_;
  std::vector<Choice> choices_;
  std::vector<Action> legal_pool_;
  std::vector<Action> unvisited_;
  std::vector<double> probabilities_;
};

}  // namespace

IsmctsSettings IsmctsBot::SettingsFor(const engine::Game& game) const {
  // The games' calibrated settings (engine/README.md, "Bot levels"). Budgets: a decision takes at
  // most about 50 ms on one core of the development machine. Long dice games are judged by the
  // game's heuristic after a short playout: more iterations in the budget, and less noise than a
  // random game played to its end. Scales of the continuous leaf value: about one typical lead
  // (points in Pico and Pescado, ten per card in KA'DICE!); Picadice and Pict keep the three steps
  // they were measured with. Simultaneous steps: decoupled UCB1, which beat regret matching in
  // Pico. Pico, Pescado and KA'DICE! play guided playouts (PlayoutPolicyFor, one move in five at
  // random). Against greedy, 100 seeded games each (seed 7): Pescado 0.705 -> 0.850 with the
  // progressive bias toward the policy's move; KA'DICE! 0.375 with guided 30-move playouts (a
  // certain elimination looked no better than one likely a turn later, among 31 holds of 500
  // iterations) -> 0.970 with 8-move playouts judged by LeafHeuristicFor and the progressive
  // bias; Pico 0.665 -> 0.880 with the other seat playing the policy's card in half of its tree
  // choices (an opponent model: greedy plays that card, so part of this gain is specific to
  // opponents who play the best single trick).
  static const std::map<std::string, IsmctsSettings> kGames = {
      {"pico", {2400, 300, 0.7, 3.0, 2, 2, 0.2, 2, 1, -1.0, 0.5}},
      {"picadice", {800, 30, 0.7, -1.0, 2, 1, -1, 1, 1, -1.0, -1.0}},
      {"pescado", {1300, 10, 0.7, 4.0, 2, 2, 0.2, 1, 1, 1.0, -1.0}},
      {"pict", {400, 300, 0.7, -1.0, 2, 1, -1, 1, 1, -1.0, -1.0}},
      {"kadice", {500, 8, 0.7, 15.0, 2, 2, 0.2, 1, 2, 1.0, -1.0}},
  };
  static const IsmctsSettings kOther = {500, 300, 0.7, 5.0, 2, 1, -1, 1, 1, -1.0, -1.0};
  auto it = kGames.find(game.name());
  const IsmctsSettings& base = it == kGames.end() ? kOther : it->second;
  IsmctsSettings s = settings_;
  if (s.iterations <= 0) s.iterations = base.iterations;
  if (s.max_playout_moves <= 0) s.max_playout_moves = base.max_playout_moves;
  if (s.exploration <= 0) s.exploration = base.exploration;
  if (s.heuristic_scale == 0) s.heuristic_scale = base.heuristic_scale;
  if (s.simultaneous <= 0) s.simultaneous = base.simultaneous;
  if (s.playout <= 0) s.playout = base.playout;
  if (s.playout_epsilon == 0) s.playout_epsilon = base.playout_epsilon;
  if (s.hidden_choice <= 0) s.hidden_choice = base.hidden_choice;
  if (s.leaf <= 0) s.leaf = base.leaf > 0 ? base.leaf : 1;
  if (s.prior_weight == 0) s.prior_weight = base.prior_weight;
  if (s.opponent_policy == 0) s.opponent_policy = base.opponent_policy;
  return s;
}

absl::StatusOr<Action> IsmctsBot::Choose(const State& state, int seat, Rng& rng) {
  std::vector<Action> legal = state.LegalActions(seat);
  if (legal.empty()) return CannotAct(state, seat);
  if (legal.size() == 1) return legal[0];
  const IsmctsSettings settings = SettingsFor(state.game());
  // The search draws millions of numbers: from a fast stream seeded by the one handed over.
  Rng fast = Rng::Fast(rng.Uniform(uint64_t{1} << 63));
  Search search(seat, fast, settings,
                settings.playout == 2 ? PlayoutPolicyFor(state.game()) : nullptr,
                HiddenChoiceModelFor(state.game()),
                settings.leaf == 2 ? LeafHeuristicFor(state.game()) : nullptr);
  search.PrepareRoot(state);
  for (int i = 0; i < settings.iterations; ++i) {
    if (absl::Status s = search.Iterate(state); !s.ok()) return s;
  }
  if (Search::RegretRoot(state, settings)) return search.Mixed(legal);
  return search.Best(legal);
}

}  // namespace parlor::bots
