#include "engine/tool/tool.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "engine/bots/bot.h"
#include "engine/core/game.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"

namespace parlor::engine_tool {
namespace {

using engine::Game;
using engine::State;

constexpr char kUsage[] =
    "usage: parlor-engine games | new --game G [--players N] [--seed S] [--option k=v]... | "
    "legal --seat K | apply --seat K (--action JSON | --code N) | forfeit --seat K | "
    "view (--seat K | --spectator | --all) | playout --bot easy|medium|hard|random|kind_first|"
    "greedy|mc [--seed S] | replay LOG | verify LOG [--bot SEAT=LEVEL]... [--forfeited-bot NAME]"
    "   (state: --state FILE or stdin; output: --out FILE or stdout)";

// Parsed command line: the subcommand, flags (repeatable) and positional arguments.
struct CommandLine {
  std::string command;
  std::multimap<std::string, std::string> flags;
  std::vector<std::string> positional;

  bool Has(const std::string& name) const { return flags.count(name) > 0; }
  std::string Get(const std::string& name, const std::string& fallback = "") const {
    auto it = flags.find(name);
    return it == flags.end() ? fallback : it->second;
  }
};

// Flags that take no value.
bool IsSwitch(absl::string_view name) { return name == "spectator" || name == "all"; }

absl::StatusOr<CommandLine> Parse(const std::vector<std::string>& args) {
  CommandLine line;
  if (args.empty()) return absl::InvalidArgumentError(kUsage);
  line.command = args[0];
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() > 2 && arg.rfind("--", 0) == 0) {
      std::string name = arg.substr(2), value;
      if (const size_t eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      } else if (!IsSwitch(name)) {
        if (i + 1 >= args.size()) {
          return absl::InvalidArgumentError(absl::StrCat("flag --", name, " needs a value"));
        }
        value = args[++i];
      }
      line.flags.emplace(name, value);
    } else {
      line.positional.push_back(arg);
    }
  }
  return line;
}

absl::Status CheckFlags(const CommandLine& line, const std::vector<std::string>& allowed,
                        size_t max_positional) {
  for (const auto& [name, value] : line.flags) {
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          line.command, ": unknown flag --", name,
          allowed.empty() ? "" : absl::StrCat("; it accepts --", absl::StrJoin(allowed, ", --"))));
    }
  }
  if (line.positional.size() > max_positional) {
    return absl::InvalidArgumentError(absl::StrCat(line.command, ": unexpected argument \"",
                                                   line.positional[max_positional], "\""));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> IntFlag(const CommandLine& line, const std::string& name) {
  if (!line.Has(name)) {
    return absl::InvalidArgumentError(absl::StrCat(line.command, ": --", name, " is required"));
  }
  int64_t value;
  if (!absl::SimpleAtoi(line.Get(name), &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " must be an integer; got \"", line.Get(name), "\""));
  }
  return value;
}

// A seed given as a decimal number (tests, tools) or as 64 hex digits (a real game's seed).
absl::StatusOr<engine::Seed> ParseSeed(const std::string& text) {
  if (text.size() == 64) {
    absl::StatusOr<engine::Seed> seed = engine::Seed::FromHex(text);
    if (seed.ok()) return seed;
  }
  uint64_t value;
  if (!absl::SimpleAtoi(text, &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--seed must be a decimal number or 64 hex digits; got \"", text, "\""));
  }
  return engine::Seed::FromUint64(value);
}

absl::StatusOr<std::string> ReadAll(const std::string& path, std::istream& in) {
  if (path.empty() || path == "-") {
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

std::string OneLine(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"\r\n", " "}, {"\n", " "}, {"\r", " "}});
}

absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message, bool pretty) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = pretty;
  options.preserve_proto_field_names = true;
  const auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat("cannot print JSON: ", status.ToString()));
  }
  return json;
}

absl::Status ParseJson(const std::string& text, google::protobuf::Message* message,
                       absl::string_view what) {
  const auto status = google::protobuf::util::JsonStringToMessage(text, message);
  if (!status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is not a valid ",
                                                   message->GetDescriptor()->full_name(),
                                                   " in JSON: ", std::string(status.message())));
  }
  return absl::OkStatus();
}

class Tool {
 public:
  Tool(const engine::Registry& registry, const CommandLine& line, std::istream& in,
       std::ostream& out)
      : registry_(registry), line_(line), in_(in), out_(out) {}

  absl::Status Run() {
    const std::string& c = line_.command;
    if (c == "games") return Games();
    if (c == "new") return New();
    if (c == "legal") return Legal();
    if (c == "apply") return ApplyAction();
    if (c == "forfeit") return ForfeitSeat();
    if (c == "view") return View();
    if (c == "playout") return Playout();
    if (c == "replay") return Replay(/*verify=*/false);
    if (c == "verify") return Replay(/*verify=*/true);
    if (c == "help" || c == "--help" || c == "-h") {
      out_ << kUsage << "\n";
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(absl::StrCat("unknown command \"", c, "\"; ", kUsage));
  }

 private:
  absl::Status Write(const std::string& text) {
    const std::string path = line_.Get("out");
    if (path.empty() || path == "-") {
      out_ << text << "\n";
      return absl::OkStatus();
    }
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
    file << text << "\n";
    return file.good() ? absl::OkStatus()
                       : absl::DataLossError(absl::StrCat("writing ", path, " failed"));
  }

  absl::Status WriteMessage(const google::protobuf::Message& message) {
    absl::StatusOr<std::string> json = ToJson(message, /*pretty=*/true);
    if (!json.ok()) return json.status();
    return Write(*json);
  }

  absl::StatusOr<engine::v1::GameRecord> ReadRecord(const std::string& path) {
    absl::StatusOr<std::string> text = ReadAll(path, in_);
    if (!text.ok()) return text.status();
    engine::v1::GameRecord record;
    if (absl::Status s = ParseJson(*text, &record, path.empty() || path == "-" ? "stdin" : path);
        !s.ok()) {
      return s;
    }
    return record;
  }

  absl::StatusOr<const Game*> GameOf(const engine::v1::GameRecord& record) {
    absl::StatusOr<const Game*> game = registry_.Find(record.game());
    if (!game.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("record: ", game.status().message()));
    }
    return game;
  }

  // The state from --state (or stdin), loaded from its snapshot.
  absl::StatusOr<std::unique_ptr<State>> ReadState() {
    absl::StatusOr<engine::v1::GameRecord> record = ReadRecord(line_.Get("state"));
    if (!record.ok()) return record.status();
    absl::StatusOr<const Game*> game = GameOf(*record);
    if (!game.ok()) return game.status();
    return (*game)->Deserialize(*record);
  }

  absl::StatusOr<int> Seat(const State& state) {
    absl::StatusOr<int64_t> seat = IntFlag(line_, "seat");
    if (!seat.ok()) return seat.status();
    if (*seat < 0 || *seat >= state.num_players()) {
      return absl::InvalidArgumentError(absl::StrCat("--seat ", *seat, " does not exist; this ",
                                                     state.game().name(), " game has seats 0 to ",
                                                     state.num_players() - 1));
    }
    return static_cast<int>(*seat);
  }

  absl::Status Games() {
    if (absl::Status s = CheckFlags(line_, {}, 0); !s.ok()) return s;
    std::ostringstream text;
    bool first = true;
    for (const Game* game : registry_.games()) {
      const engine::GameInfo& info = game->info();
      if (!first) text << "\n";
      first = false;
      text << info.name << " (" << info.display_name << "): " << info.min_players;
      if (info.max_players != info.min_players) text << " to " << info.max_players;
      text << " players" << (info.has_teams ? ", teams" : "")
           << "; actions: " << absl::StrJoin(info.action_kinds, ", ") << "\n  " << info.summary;
      for (const engine::OptionSpec& o : info.options) {
        text << "\n  --option " << o.name << "=";
        switch (o.type) {
          case engine::OptionSpec::Type::kInt:
            text << o.min_value << ".." << o.max_value;
            break;
          case engine::OptionSpec::Type::kBool:
            text << "true|false";
            break;
          case engine::OptionSpec::Type::kChoice:
            text << absl::StrJoin(o.choices, "|");
            break;
        }
        text << " (default " << engine::FormatOptionValue(o, o.default_value)
             << "): " << o.description;
      }
    }
    return Write(text.str());
  }

  absl::Status New() {
    if (absl::Status s = CheckFlags(line_, {"game", "players", "seed", "option", "out"}, 0);
        !s.ok()) {
      return s;
    }
    if (!line_.Has("game")) return absl::InvalidArgumentError("new: --game is required");
    absl::StatusOr<const Game*> game = registry_.Find(line_.Get("game"));
    if (!game.ok()) return game.status();
    int players = (*game)->info().min_players;
    if (line_.Has("players")) {
      absl::StatusOr<int64_t> n = IntFlag(line_, "players");
      if (!n.ok()) return n.status();
      if (*n < 1 || *n > 32) {
        return absl::InvalidArgumentError(absl::StrCat("--players ", *n, " is out of range"));
      }
      players = static_cast<int>(*n);
    }
    absl::StatusOr<engine::Seed> seed = ParseSeed(line_.Get("seed", "1"));
    if (!seed.ok()) return seed.status();
    std::map<std::string, std::string> raw;
    for (auto [it, end] = line_.flags.equal_range("option"); it != end; ++it) {
      const size_t eq = it->second.find('=');
      if (eq == std::string::npos || eq == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("--option must be name=value; got \"", it->second, "\""));
      }
      raw[it->second.substr(0, eq)] = it->second.substr(eq + 1);
    }
    absl::StatusOr<engine::Options> options = (*game)->ParseOptions(raw, players);
    if (!options.ok()) return options.status();
    absl::StatusOr<std::unique_ptr<State>> state = (*game)->NewGame(players, *options, *seed);
    if (!state.ok()) return state.status();
    return WriteMessage((*state)->Serialize());
  }

  absl::Status Legal() {
    if (absl::Status s = CheckFlags(line_, {"seat", "state", "out"}, 0); !s.ok()) return s;
    absl::StatusOr<std::unique_ptr<State>> state = ReadState();
    if (!state.ok()) return state.status();
    absl::StatusOr<int> seat = Seat(**state);
    if (!seat.ok()) return seat.status();
    std::vector<std::string> entries;
    for (engine::Action a : (*state)->LegalActions(*seat)) {
      absl::StatusOr<std::string> json = ToJson(*(*state)->game().ActionToProto(a), false);
      if (!json.ok()) return json.status();
      entries.push_back(absl::StrCat(
          "  {\"code\": ", a, ", \"action\": ", *json, ", \"text\": \"",
          absl::StrReplaceAll((*state)->ActionToString(*seat, a), {{"\\", "\\\\"}, {"\"", "\\\""}}),
          "\"}"));
    }
    return Write(entries.empty() ? "[]"
                                 : absl::StrCat("[\n", absl::StrJoin(entries, ",\n"), "\n]"));
  }

  absl::Status ApplyAction() {
    if (absl::Status s = CheckFlags(line_, {"seat", "action", "code", "state", "out"}, 0);
        !s.ok()) {
      return s;
    }
    if (line_.Has("action") == line_.Has("code")) {
      return absl::InvalidArgumentError("apply: give exactly one of --action JSON and --code N");
    }
    absl::StatusOr<std::unique_ptr<State>> state = ReadState();
    if (!state.ok()) return state.status();
    const Game& game = (*state)->game();
    // The order of engine/GAMES.md ("Refusals"), as the sessions service applies it: the JSON
    // must parse (step 1), then the seat must exist, and State::ApplyMessage runs the rest.
    if (line_.Has("code")) {
      absl::StatusOr<int64_t> code = IntFlag(line_, "code");
      if (!code.ok()) return code.status();
      absl::StatusOr<int> seat = Seat(**state);
      if (!seat.ok()) return seat.status();
      if (absl::Status s = (*state)->Apply(*seat, *code); !s.ok()) return s;
      return WriteMessage((*state)->Serialize());
    }
    std::unique_ptr<google::protobuf::Message> proto(
        google::protobuf::MessageFactory::generated_factory()
            ->GetPrototype(game.ActionDescriptor())
            ->New());
    if (absl::Status s = ParseJson(line_.Get("action"), proto.get(), "--action"); !s.ok()) {
      return s;
    }
    absl::StatusOr<int> seat = Seat(**state);
    if (!seat.ok()) return seat.status();
    if (absl::StatusOr<engine::Action> applied = (*state)->ApplyMessage(*seat, *proto);
        !applied.ok()) {
      return applied.status();
    }
    return WriteMessage((*state)->Serialize());
  }

  absl::Status ForfeitSeat() {
    if (absl::Status s = CheckFlags(line_, {"seat", "state", "out"}, 0); !s.ok()) return s;
    absl::StatusOr<std::unique_ptr<State>> state = ReadState();
    if (!state.ok()) return state.status();
    absl::StatusOr<int> seat = Seat(**state);
    if (!seat.ok()) return seat.status();
    if (absl::Status s = (*state)->Forfeit(*seat); !s.ok()) return s;
    return WriteMessage((*state)->Serialize());
  }

  absl::Status View() {
    if (absl::Status s = CheckFlags(line_, {"seat", "spectator", "all", "state", "out"}, 0);
        !s.ok()) {
      return s;
    }
    const int chosen = line_.Has("seat") + line_.Has("spectator") + line_.Has("all");
    if (chosen != 1) {
      return absl::InvalidArgumentError("view: give exactly one of --seat K, --spectator, --all");
    }
    absl::StatusOr<std::unique_ptr<State>> state = ReadState();
    if (!state.ok()) return state.status();
    engine::Viewer viewer = engine::Viewer::Spectator();
    if (line_.Has("all")) viewer = engine::Viewer::All();
    if (line_.Has("seat")) {
      absl::StatusOr<int> seat = Seat(**state);
      if (!seat.ok()) return seat.status();
      viewer = engine::Viewer::Seat(*seat);
    }
    return WriteMessage(*(*state)->View(viewer));
  }

  absl::Status Playout() {
    if (absl::Status s = CheckFlags(line_, {"bot", "seed", "state", "out"}, 0); !s.ok()) {
      return s;
    }
    absl::StatusOr<std::unique_ptr<bots::Bot>> bot = bots::MakeBot(line_.Get("bot", "random"));
    if (!bot.ok()) return bot.status();
    absl::StatusOr<engine::Seed> seed = ParseSeed(line_.Get("seed", "1"));
    if (!seed.ok()) return seed.status();
    absl::StatusOr<std::unique_ptr<State>> state = ReadState();
    if (!state.ok()) return state.status();
    // Which acting seat moves next is drawn from --seed; every decision of the bot from
    // BotDecisionRng(game seed, seat, moves so far), as the sessions service does, so
    // `verify --bot SEAT=NAME` can recompute them.
    engine::Rng order(*seed);
    State& s = **state;
    bots::RandomBot forfeited_seat_bot;
    const int64_t max_moves = s.game().MaxMoves(s.num_players(), s.options());
    while (!s.IsTerminal()) {
      if (s.NumMoves() >= max_moves) {
        return absl::InternalError(absl::StrCat("the game is not over after ", s.NumMoves(),
                                                " moves, its declared bound"));
      }
      const std::vector<int> acting = s.ActingSeats().ToVector();
      const int seat = acting[order.Uniform(acting.size())];
      bots::Bot* player = s.IsForfeited(seat) ? &forfeited_seat_bot : bot->get();
      engine::Rng rng = engine::BotDecisionRng(s.seed(), seat, s.NumMoves());
      absl::StatusOr<engine::Action> action = player->Choose(s, seat, rng);
      if (!action.ok()) return action.status();
      if (absl::Status applied = s.Apply(seat, *action); !applied.ok()) return applied;
    }
    return WriteMessage(s.Serialize());
  }

  // verify --bot SEAT=LEVEL: which bot played which seats (and --forfeited-bot NAME: which bot
  // played seats after they forfeited).
  absl::StatusOr<std::map<int, std::string>> BotSeats(int num_players) {
    std::map<int, std::string> bots;
    for (auto [it, end] = line_.flags.equal_range("bot"); it != end; ++it) {
      const size_t eq = it->second.find('=');
      int seat;
      if (eq == std::string::npos || !absl::SimpleAtoi(it->second.substr(0, eq), &seat) ||
          seat < 0 || seat >= num_players) {
        return absl::InvalidArgumentError(
            absl::StrCat("--bot must be SEAT=LEVEL with a seat from 0 to ", num_players - 1,
                         "; got \"", it->second, "\""));
      }
      const std::string name = it->second.substr(eq + 1);
      if (absl::Status s = bots::MakeBot(name).status(); !s.ok()) return s;
      bots[seat] = name;
    }
    if (line_.Has("forfeited-bot")) {
      if (absl::Status s = bots::MakeBot(line_.Get("forfeited-bot")).status(); !s.ok()) return s;
    }
    return bots;
  }

  // Recomputes every decision of the seats played by bots: the move at log position k of a bot
  // seat must be what that bot chooses from BotDecisionRng(seed, seat, k) (engine/core/rng.h).
  // Called on a record whose chance outcomes already verified against the seed.
  absl::Status VerifyBotDecisions(const Game& game, const engine::v1::GameRecord& record,
                                  const std::map<int, std::string>& bot_seats) {
    engine::v1::GameRecord setup = record;
    setup.mutable_log()->DeleteSubrange(1, setup.log_size() - 1);
    setup.clear_forfeits();
    setup.set_ended_by_forfeit(false);
    absl::StatusOr<std::unique_ptr<State>> replayed = game.Replay(setup, /*check_seed=*/true);
    if (!replayed.ok()) return replayed.status();
    State& state = **replayed;
    const std::string forfeited_bot = line_.Get("forfeited-bot");
    std::vector<std::string> mismatches;
    int checked = 0;
    for (int i = 1; i < record.log_size(); ++i) {
      const engine::v1::LogEntry& e = record.log(i);
      if (e.kind() == engine::v1::LogEntry::KIND_ACTION) {
        std::string name;
        if (state.IsForfeited(e.seat())) {
          name = forfeited_bot;
        } else if (auto it = bot_seats.find(e.seat()); it != bot_seats.end()) {
          name = it->second;
        }
        if (!name.empty()) {
          absl::StatusOr<std::unique_ptr<bots::Bot>> bot = bots::MakeBot(name);
          if (!bot.ok()) return bot.status();
          engine::Rng rng = engine::BotDecisionRng(state.seed(), e.seat(), state.NumMoves());
          absl::StatusOr<engine::Action> chosen = (*bot)->Choose(state, e.seat(), rng);
          ++checked;
          if (!chosen.ok() || *chosen != e.action()) {
            mismatches.push_back(absl::StrCat(
                "log entry ", i, ": seat ", e.seat(), " played ",
                state.ActionToString(e.seat(), e.action()), " but the ", name, " bot chooses ",
                chosen.ok() ? state.ActionToString(e.seat(), *chosen)
                            : std::string(chosen.status().message())));
          }
        }
      }
      absl::Status s = e.kind() == engine::v1::LogEntry::KIND_FORFEIT
                           ? state.Forfeit(e.seat())
                           : state.Apply(e.seat(), e.action());
      if (!s.ok()) {
        return absl::DataLossError(
            absl::StrCat("log entry ", i, " does not replay: ", s.message()));
      }
    }
    if (!mismatches.empty()) {
      return absl::DataLossError(absl::StrCat(
          "verify: ", mismatches.size(), " of ", checked,
          " bot decisions differ from what BotDecisionRng gives: ",
          absl::StrJoin(mismatches.begin(),
                        mismatches.begin() + std::min<size_t>(mismatches.size(), 3), "; ")));
    }
    return Write(absl::StrCat("OK (", checked, " bot decisions recomputed)"));
  }

  // replay: rebuilds the state from the log alone and prints it. verify: also checks every
  // chance outcome against the seed and compares the result with the stored record; with --bot
  // SEAT=LEVEL (repeatable) and --forfeited-bot NAME, also every decision of those bots.
  absl::Status Replay(bool verify) {
    if (absl::Status s = CheckFlags(line_,
                                    verify ? std::vector<std::string>{"out", "bot", "forfeited-bot"}
                                           : std::vector<std::string>{"out"},
                                    1);
        !s.ok()) {
      return s;
    }
    if (line_.positional.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(line_.command, ": give the LOG file (- for stdin)"));
    }
    absl::StatusOr<engine::v1::GameRecord> record = ReadRecord(line_.positional[0]);
    if (!record.ok()) return record.status();
    absl::StatusOr<const Game*> game = GameOf(*record);
    if (!game.ok()) return game.status();
    absl::StatusOr<std::unique_ptr<State>> replayed = (*game)->Replay(*record, verify);
    if (!replayed.ok()) return replayed.status();
    if (!verify) return WriteMessage((*replayed)->Serialize());
    const engine::v1::GameRecord rebuilt = (*replayed)->Serialize();
    std::string difference;
    google::protobuf::util::MessageDifferencer differencer;
    differencer.ReportDifferencesToString(&difference);
    if (differencer.Compare(*record, rebuilt)) {
      if (!line_.Has("bot") && !line_.Has("forfeited-bot")) return Write("OK");
      absl::StatusOr<std::map<int, std::string>> bot_seats = BotSeats(record->num_players());
      if (!bot_seats.ok()) return bot_seats.status();
      return VerifyBotDecisions(**game, *record, *bot_seats);
    }
    const std::string first = difference.substr(0, difference.find('\n'));
    return absl::DataLossError(absl::StrCat(
        "verify: the stored record differs from its replay (stored, then replayed): ", first));
  }

  const engine::Registry& registry_;
  const CommandLine& line_;
  std::istream& in_;
  std::ostream& out_;
};

}  // namespace

int RunTool(const engine::Registry& registry, const std::vector<std::string>& args,
            std::istream& in, std::ostream& out, std::ostream& err) {
  absl::StatusOr<CommandLine> line = Parse(args);
  absl::Status status = line.status();
  if (line.ok()) status = Tool(registry, *line, in, out).Run();
  if (status.ok()) return 0;
  err << "parlor-engine: " << OneLine(status.message()) << "\n";
  return 2;
}

}  // namespace parlor::engine_tool
