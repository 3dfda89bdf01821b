// Hidden information: nothing a seat may not see ever reaches it. Full games of every registered
// game are played over gRPC against a real sessions server on a real PostgreSQL; at every version
// each seat's GetGame, ListMyGames, GetHistory, SubmitAction answers, WatchGame / WatchMyGames
// stream messages and the error messages of deliberately bad calls are recorded, and so is what a
// spectator of the (public) game gets from GetGame, GetHistory, ListPublicGames and WatchGame.
// Once the game is over its record gives the true state at every version, and every recorded item
// of a game still running is checked against the engine's own view of that version for that seat
// (engine::Viewer::Seat) or for a spectator (engine::Viewer::Spectator):
//   - every view must be exactly the engine's view for that viewer (a reveal-all view, another
//     seat's hand or a pending choice would differ);
//   - no bytes and no text may hold the seed (hex or raw) before the game has ended;
//   - no text may hold a secret sequence (another hand, a deck or stack order: what the reveal-all
//     view shows and the seat's view does not);
//   - no history description may name a move the seat could not tell from its own view.
// The checker is shown to catch each kind of leak by feeding it one.
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/core/game.h"
#include "engine/core/state.h"
#include "engine/games/all_games.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/reflection.h"
#include "gtest/gtest.h"
#include "parlor/sessions/v1/sessions.grpc.pb.h"
#include "services/common/testing/test_server.h"
#include "services/sessions/domain/engine_glue.h"
#include "services/sessions/sessions_server.h"
#include "services/sessions/testing/sessions_test_server.h"
#include "services/sessions/testing/stored_record.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::sessions {
namespace {

using google::protobuf::Any;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using ::parlor::testing::Bearer;

// Versions after which a game is ended by a resignation (random games of the five, with the short
// options below, end within about 410).
constexpr int64_t kMaxVersions = 600;

const char* const kPlayers[] = {
    "00000000-0000-4000-8000-00000000a11c", "00000000-0000-4000-8000-0000000000b0",
    "00000000-0000-4000-8000-0000000ca201", "00000000-0000-4000-8000-000000000d0d"};

// The engine's viewer for a receiving seat; -1 is a spectator of a public game.
engine::Viewer ViewerOf(int seat) {
  return seat < 0 ? engine::Viewer::Spectator() : engine::Viewer::Seat(seat);
}

// One thing a viewer received. `seat` is the receiving seat, -1 for a spectator.
struct Receipt {
  Receipt(std::string what, int seat, int64_t version, bool after_end = false)
      : what(std::move(what)), seat(seat), version(version), after_end(after_end) {}

  std::string what;
  int seat = -1;
  // The version the game was at when it was received (views carry their own versions).
  int64_t version = 0;
  // Received after the game ended: everything is public then (the seed is revealed and history
  // shows the reveal-all view), so it is not checked.
  bool after_end = false;
  std::vector<std::pair<int64_t, Any>> views;  // (version the view is of, the view)
  std::vector<v1::Game> summaries;
  // (version of the move, its description) from history events.
  std::vector<std::pair<int64_t, std::string>> descriptions;
  // (version of the move, its typed action) from history events.
  std::vector<std::pair<int64_t, Any>> actions;
  std::vector<std::string> texts;  // error messages and other free text
  std::string bytes;               // everything received, serialized
};

// Renders a repeated scalar field as "a, b, c" (how the games and the text format list values).
std::string JoinRepeated(const Message& m, const FieldDescriptor* f) {
  const google::protobuf::Reflection* r = m.GetReflection();
  std::vector<std::string> items;
  for (int i = 0; i < r->FieldSize(m, f); ++i) {
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        items.push_back(absl::StrCat(r->GetRepeatedInt32(m, f, i)));
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        items.push_back(absl::StrCat(r->GetRepeatedInt64(m, f, i)));
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        items.push_back(absl::StrCat(r->GetRepeatedUInt32(m, f, i)));
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        items.push_back(absl::StrCat(r->GetRepeatedUInt64(m, f, i)));
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        items.push_back(absl::StrCat(r->GetRepeatedEnumValue(m, f, i)));
        break;
      case FieldDescriptor::CPPTYPE_STRING:
        items.push_back(r->GetRepeatedString(m, f, i));
        break;
      default:
        return "";
    }
  }
  return absl::StrJoin(items, ", ");
}

// Every repeated scalar sequence of three or more values in `m` (recursively).
void Sequences(const Message& m, std::set<std::string>* out) {
  const google::protobuf::Reflection* r = m.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(m, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated()) {
        for (int i = 0; i < r->FieldSize(m, f); ++i) Sequences(r->GetRepeatedMessage(m, f, i), out);
      } else {
        Sequences(r->GetMessage(m, f), out);
      }
    } else if (f->is_repeated() && r->FieldSize(m, f) >= 3) {
      out->insert(JoinRepeated(m, f));
    }
  }
}

// The secrets of one seat at one version: what the reveal-all view shows that the seat's view
// does not, as text that must never appear in anything the seat receives.
struct Secrets {
  std::string seed_hex;
  std::string seed_raw;
  std::vector<std::string> sequences;
  bool views_differ = false;  // the reveal-all view is not the seat's view
};

// Knows the true state of one game at every version and checks receipts against it.
class LeakChecker {
 public:
  LeakChecker(const engine::v1::GameRecord& record,
              std::vector<std::unique_ptr<engine::State>> states)
      : states_(std::move(states)) {
    absl::StatusOr<engine::Seed> seed = engine::Seed::FromBytes(record.seed());
    EXPECT_TRUE(seed.ok());
    if (seed.ok()) {
      seed_hex_ = seed->ToHex();
      seed_raw_ = std::string(seed->AsBytes());
    }
    for (int i = 0; i < record.log_size(); ++i) log_.push_back(record.log(i));
  }

  int64_t final_version() const { return static_cast<int64_t>(states_.size()) - 1; }
  const engine::State& state(int64_t version) const { return *states_[version]; }

  Secrets SecretsOf(int seat, int64_t version) const {
    Secrets secrets{seed_hex_, seed_raw_, {}, false};
    const engine::State& s = *states_[version];
    std::unique_ptr<Message> all = s.View(engine::Viewer::All());
    std::unique_ptr<Message> mine = s.View(ViewerOf(seat));
    secrets.views_differ = Deterministic(*all) != Deterministic(*mine);
    std::set<std::string> all_sequences, visible;
    Sequences(*all, &all_sequences);
    Sequences(*mine, &visible);
    for (const std::string& sequence : all_sequences) {
      if (!visible.contains(sequence)) secrets.sequences.push_back(sequence);
    }
    return secrets;
  }

  // Every leak in `receipt`, described; empty when there is none.
  std::vector<std::string> Check(const Receipt& receipt) const {
    std::vector<std::string> leaks;
    if (receipt.after_end) return leaks;
    const int seat = receipt.seat;
    auto leak = [&](std::string what) {
      leaks.push_back(absl::StrCat(receipt.what, " to seat ", seat, " at version ", receipt.version,
                                   ": ", what));
    };
    if (receipt.version < 0 || receipt.version > final_version()) {
      leak("version out of range");
      return leaks;
    }
    const Secrets secrets = SecretsOf(seat, receipt.version);
    for (const auto& [version, view] : receipt.views) {
      if (version < 0 || version > final_version()) {
        leak(absl::StrCat("a view of unknown version ", version));
        continue;
      }
      const std::string want = Deterministic(*states_[version]->View(ViewerOf(seat)));
      std::unique_ptr<Message> got = Unpack(view);
      if (got == nullptr || Deterministic(*got) != want) {
        leak(absl::StrCat("the view of version ", version, " is not the seat's own view"));
      }
    }
    for (const v1::Game& game : receipt.summaries) {
      if (game.status() != v1::GAME_STATUS_FINISHED && !game.seed().empty()) {
        leak("a running game's summary carries its seed");
      }
    }
    auto scan = [&](const std::string& where, const std::string& text) {
      if (!secrets.seed_hex.empty() && absl::StrContains(text, secrets.seed_hex)) {
        leak(absl::StrCat(where, " holds the seed (hex)"));
      }
      if (!secrets.seed_raw.empty() && absl::StrContains(text, secrets.seed_raw)) {
        leak(absl::StrCat(where, " holds the seed (bytes)"));
      }
    };
    scan("the bytes", receipt.bytes);
    std::vector<std::string> texts = receipt.texts;
    for (const auto& [version, description] : receipt.descriptions) texts.push_back(description);
    for (const std::string& text : texts) {
      scan(absl::StrCat("text \"", text, "\""), text);
      for (const std::string& sequence : secrets.sequences) {
        if (absl::StrContains(text, sequence)) {
          leak(absl::StrCat("text \"", text, "\" holds the secret sequence ", sequence));
        }
      }
    }
    for (const auto& [version, description] : receipt.descriptions) {
      if (const std::string hidden = HiddenMoveText(seat, version);
          !hidden.empty() && absl::StrContains(description, hidden)) {
        leak(absl::StrCat("the description \"", description, "\" names the hidden move \"", hidden,
                          "\""));
      }
    }
    for (const auto& [version, action] : receipt.actions) {
      if (version < 1 || version > final_version() ||
          log_[version].kind() != engine::v1::LogEntry::KIND_ACTION) {
        leak(absl::StrCat("a typed action for version ", version, ", which is no action"));
        continue;
      }
      if (const std::string hidden = HiddenMoveText(seat, version); !hidden.empty()) {
        leak(absl::StrCat("the typed action of version ", version, " reveals the hidden move \"",
                          hidden, "\""));
      }
      const std::string want =
          Deterministic(*states_[version - 1]->game().ActionToProto(log_[version].action()));
      std::unique_ptr<Message> got = Unpack(action);
      if (got == nullptr || Deterministic(*got) != want) {
        leak(absl::StrCat("the typed action of version ", version, " is not the move made"));
      }
    }
    return leaks;
  }

  // The words for move `version` if `seat` cannot tell it from its own view (another legal move
  // of the mover would have left the seat's view the same); "" when the seat may know it.
  std::string HiddenMoveText(int seat, int64_t version) const {
    if (version < 1 || version > final_version()) return "";
    const engine::v1::LogEntry& entry = log_[version];
    if (entry.kind() != engine::v1::LogEntry::KIND_ACTION || entry.seat() == seat) return "";
    const engine::State& before = *states_[version - 1];
    const std::string made = before.ActionToString(entry.seat(), entry.action());
    const std::string seen = Deterministic(*states_[version]->View(ViewerOf(seat)));
    for (engine::Action other : before.LegalActions(entry.seat())) {
      if (other == entry.action() || before.ActionToString(entry.seat(), other) == made) continue;
      std::unique_ptr<engine::State> alternative = before.Clone();
      if (!alternative->Apply(entry.seat(), other).ok()) continue;
      if (Deterministic(*alternative->View(ViewerOf(seat))) == seen) return made;
    }
    return "";
  }

 private:
  // The message an Any holds, as its own type; null if the type is unknown or the bytes do not
  // parse.
  static std::unique_ptr<Message> Unpack(const Any& any) {
    const google::protobuf::Descriptor* type =
        google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(
            std::string(any.type_url().substr(any.type_url().rfind('/') + 1)));
    if (type == nullptr) return nullptr;
    std::unique_ptr<Message> message(
        google::protobuf::MessageFactory::generated_factory()->GetPrototype(type)->New());
    if (!any.UnpackTo(message.get())) return nullptr;
    return message;
  }

  std::vector<std::unique_ptr<engine::State>> states_;
  std::vector<engine::v1::LogEntry> log_;
  std::string seed_hex_;
  std::string seed_raw_;
};

// Collects every message of one server stream on its own thread until cancelled.
template <typename Response>
class StreamRecorder {
 public:
  template <typename Open>
  StreamRecorder(const std::string& token, Open open) : context_(Bearer(token, absl::Minutes(5))) {
    reader_ = open(context_.get());
    thread_ = std::thread([this] {
      Response response;
      while (reader_->Read(&response)) {
        std::lock_guard<std::mutex> lock(mu_);
        received_.push_back(response);
      }
    });
  }
  ~StreamRecorder() { Stop(); }
  void Stop() {
    if (!thread_.joinable()) return;
    context_->TryCancel();
    thread_.join();
    reader_->Finish();
  }
  std::vector<Response> received() {
    std::lock_guard<std::mutex> lock(mu_);
    return received_;
  }

 private:
  std::unique_ptr<grpc::ClientContext> context_;
  std::unique_ptr<grpc::ClientReader<Response>> reader_;
  std::thread thread_;
  std::mutex mu_;
  std::vector<Response> received_;
};

class SessionsHiddenInfoPgTest : public SessionsServerPgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    StartSessions(TestSessionsConfig("hidden-info-page-secret"));
  }

  // The stored record, made whole with the game's log rows (the snapshot leaves the log out).
  engine::v1::GameRecord StoredRecord(const std::string& game_id) {
    absl::StatusOr<parlor::testing::StoredGameRecord> stored =
        parlor::testing::ReadStoredGameRecord(db_url(), game_id);
    EXPECT_TRUE(stored.ok()) << stored.status();
    return stored.ok() ? std::move(stored->whole) : engine::v1::GameRecord();
  }

  engine::Registry registry_ = engine::AllGames();
};

TEST_F(SessionsHiddenInfoPgTest, NoSeatEverReceivesWhatItMayNotSee) {
  std::mt19937_64 rng(14);
  for (const engine::Game* game : registry_.games()) {
    SCOPED_TRACE(game->name());
    // Two seats, and the options that make a random game short, so that every game of the five is
    // played to its end in seconds.
    const int players = 2;
    const std::map<std::string, std::map<std::string, std::string>> kShortGames = {
        {"kadice", {{"max_rounds", "30"}}}, {"picadice", {{"turn_limit_per_seat", "25"}}}};
    std::vector<std::string> tokens;
    v1::CreateGameRequest create;
    create.set_match_id(absl::StrCat("hidden-", game->name()));
    create.set_game(game->name());
    if (auto it = kShortGames.find(game->name()); it != kShortGames.end()) {
      create.mutable_options()->insert(it->second.begin(), it->second.end());
    }
    for (int i = 0; i < players; ++i) {
      v1::SeatSpec* seat = create.add_seats();
      seat->set_account_id(kPlayers[i]);
      seat->set_display_name(absl::StrCat("P", i));
      tokens.push_back(keys_.PlayerToken(kPlayers[i]));
    }
    create.mutable_time_control()->mutable_per_move()->mutable_limit()->set_seconds(86400);
    // Public, so that a spectator (an account with no seat) watches it too.
    create.set_visibility(v1::VISIBILITY_PUBLIC);
    const int spectator = players;  // index of the spectator's token and stream
    tokens.push_back(keys_.PlayerToken(kPlayers[3]));
    v1::CreateGameResponse created;
    grpc::Status status =
        internal_->CreateGame(Bearer(keys_.ServiceToken()).get(), create, &created);
    ASSERT_TRUE(status.ok()) << status.error_message();
    const std::string game_id = created.game().game_id();

    std::vector<std::unique_ptr<StreamRecorder<v1::WatchGameResponse>>> game_streams;
    std::vector<std::unique_ptr<StreamRecorder<v1::WatchMyGamesResponse>>> my_streams;
    for (int s = 0; s <= spectator; ++s) {
      v1::WatchGameRequest watch;
      watch.set_game_id(game_id);
      watch.set_after_version(0);
      game_streams.push_back(std::make_unique<StreamRecorder<v1::WatchGameResponse>>(
          tokens[s], [&](grpc::ClientContext* c) { return sessions_->WatchGame(c, watch); }));
      if (s == spectator) break;
      my_streams.push_back(std::make_unique<StreamRecorder<v1::WatchMyGamesResponse>>(
          tokens[s], [&](grpc::ClientContext* c) {
            return sessions_->WatchMyGames(c, v1::WatchMyGamesRequest());
          }));
    }

    std::vector<Receipt> receipts;
    std::vector<Any> seen_actions;  // every action any seat was offered: probes for bad moves
    int64_t version = 0;
    bool finished = false;
    int bad_calls = 0;
    int typed_actions = 0;  // typed actions received in history events
    bool ended_by_resignation = false;
    while (!finished) {
      ASSERT_LT(version, 5000);
      // A random game that runs long is ended by a resignation (the game still ends by its
      // rules: a forfeit in a game of two sides).
      if (version >= kMaxVersions) {
        v1::ResignRequest resign;
        resign.set_game_id(game_id);
        v1::ResignResponse resigned;
        status = sessions_->Resign(Bearer(tokens[0]).get(), resign, &resigned);
        ASSERT_TRUE(status.ok()) << status.error_message();
        ASSERT_EQ(resigned.game().status(), v1::GAME_STATUS_FINISHED);
        version = resigned.game().version();
        ended_by_resignation = true;
        break;
      }
      std::vector<v1::GetGameResponse> states(players);
      for (int s = 0; s < players; ++s) {
        v1::GetGameRequest get;
        get.set_game_id(game_id);
        status = sessions_->GetGame(Bearer(tokens[s]).get(), get, &states[s]);
        ASSERT_TRUE(status.ok()) << status.error_message();
        Receipt r{"GetGame", s, version};
        r.views.emplace_back(states[s].game().version(), states[s].view());
        r.summaries.push_back(states[s].game());
        r.bytes = Deterministic(states[s]);
        receipts.push_back(std::move(r));
        // Players' records (public), now and then: checked like everything else received.
        if (version % 25 == 0) {
          v1::GetPlayerRecordsRequest records_request;
          for (int p = 0; p < players; ++p) records_request.add_account_ids(kPlayers[p]);
          v1::GetPlayerRecordsResponse records;
          status = sessions_->GetPlayerRecords(Bearer(tokens[s]).get(), records_request, &records);
          ASSERT_TRUE(status.ok()) << status.error_message();
          Receipt rec{"GetPlayerRecords", s, version};
          rec.bytes = Deterministic(records);
          receipts.push_back(std::move(rec));
        }
        for (const Any& a : states[s].legal_actions()) {
          if (std::none_of(seen_actions.begin(), seen_actions.end(), [&](const Any& b) {
                return b.SerializeAsString() == a.SerializeAsString();
              })) {
            seen_actions.push_back(a);
          }
        }

        v1::GetHistoryRequest history;
        history.set_game_id(game_id);
        history.set_from_version(std::max<int64_t>(0, version - 1));
        v1::GetHistoryResponse events;
        status = sessions_->GetHistory(Bearer(tokens[s]).get(), history, &events);
        ASSERT_TRUE(status.ok()) << status.error_message();
        Receipt h{"GetHistory", s, version};
        for (const v1::HistoryEvent& e : events.events()) {
          h.views.emplace_back(e.version(), e.view());
          h.descriptions.emplace_back(e.version(), e.description());
          if (e.has_action()) {
            h.actions.emplace_back(e.version(), e.action());
            ++typed_actions;
          }
        }
        h.bytes = Deterministic(events);
        receipts.push_back(std::move(h));

        // The games list carries only summaries: one seat lists at each version, in turn.
        if (version % players != s) continue;
        v1::ListMyGamesResponse listed;
        v1::ListMyGamesRequest with_last_move;
        with_last_move.set_with_last_move(true);
        status = sessions_->ListMyGames(Bearer(tokens[s]).get(), with_last_move, &listed);
        ASSERT_TRUE(status.ok()) << status.error_message();
        Receipt l{"ListMyGames", s, version};
        l.summaries.assign(listed.games().begin(), listed.games().end());
        for (const v1::Game& g : listed.games()) {
          if (g.game_id() != game_id || !g.has_last_move()) continue;
          l.descriptions.emplace_back(g.last_move().version(), g.last_move().description());
          if (g.last_move().has_action()) {
            l.actions.emplace_back(g.last_move().version(), g.last_move().action());
          }
        }
        l.bytes = Deterministic(listed);
        receipts.push_back(std::move(l));
      }
      {
        // What the spectator gets at this version: the game, its newest history, the public list.
        v1::GetGameRequest get;
        get.set_game_id(game_id);
        v1::GetGameResponse watched;
        status = sessions_->GetGame(Bearer(tokens[spectator]).get(), get, &watched);
        ASSERT_TRUE(status.ok()) << status.error_message();
        EXPECT_EQ(watched.legal_actions_size(), 0);
        Receipt r{"GetGame (spectator)", -1, version};
        r.views.emplace_back(watched.game().version(), watched.view());
        r.summaries.push_back(watched.game());
        r.bytes = Deterministic(watched);
        receipts.push_back(std::move(r));

        v1::GetHistoryRequest history;
        history.set_game_id(game_id);
        history.set_from_version(std::max<int64_t>(0, version - 1));
        v1::GetHistoryResponse events;
        status = sessions_->GetHistory(Bearer(tokens[spectator]).get(), history, &events);
        ASSERT_TRUE(status.ok()) << status.error_message();
        Receipt h{"GetHistory (spectator)", -1, version};
        for (const v1::HistoryEvent& e : events.events()) {
          h.views.emplace_back(e.version(), e.view());
          h.descriptions.emplace_back(e.version(), e.description());
          if (e.has_action()) {
            h.actions.emplace_back(e.version(), e.action());
            ++typed_actions;
          }
        }
        h.bytes = Deterministic(events);
        receipts.push_back(std::move(h));

        v1::ListPublicGamesRequest list;
        list.set_game(game->name());
        v1::ListPublicGamesResponse listed;
        status = sessions_->ListPublicGames(Bearer(tokens[spectator]).get(), list, &listed);
        ASSERT_TRUE(status.ok()) << status.error_message();
        Receipt l{"ListPublicGames (spectator)", -1, version};
        l.summaries.assign(listed.games().begin(), listed.games().end());
        l.bytes = Deterministic(listed);
        receipts.push_back(std::move(l));
      }
      const v1::Game& now = states[0].game();
      ASSERT_EQ(now.version(), version);
      if (now.status() == v1::GAME_STATUS_FINISHED) break;
      const int mover = now.acting_seats(0);

      // Bad calls, whose error messages must not leak either: every seat offers a move it was
      // offered once but may not make now (out of turn, or not legal now), and one with a stale
      // version.
      for (int s = 0; s < players; ++s) {
        std::vector<Any> probes;
        for (const Any& a : seen_actions) {
          const bool legal_now = std::any_of(
              states[s].legal_actions().begin(), states[s].legal_actions().end(),
              [&](const Any& b) { return b.SerializeAsString() == a.SerializeAsString(); });
          if (!legal_now) probes.push_back(a);
        }
        std::shuffle(probes.begin(), probes.end(), rng);
        probes.resize(std::min<size_t>(probes.size(), 1));
        if (!states[s].legal_actions().empty()) probes.push_back(states[s].legal_actions(0));
        for (size_t p = 0; p < probes.size(); ++p) {
          v1::SubmitActionRequest bad;
          bad.set_game_id(game_id);
          const bool stale = p + 1 == probes.size() && !states[s].legal_actions().empty();
          bad.set_expected_version(stale ? version + 1 : version);
          bad.set_idempotency_key(absl::StrCat("bad-", version, "-", s, "-", p));
          *bad.mutable_action() = probes[p];
          v1::SubmitActionResponse ignored;
          status = sessions_->SubmitAction(Bearer(tokens[s]).get(), bad, &ignored);
          ASSERT_FALSE(status.ok()) << "a move the seat was not offered was accepted";
          Receipt e{absl::StrCat("SubmitAction error (", status.error_code(), ")"), s, version};
          e.texts.push_back(status.error_message());
          e.bytes = status.error_message() + status.error_details();
          receipts.push_back(std::move(e));
          ++bad_calls;
        }
      }

      const v1::GetGameResponse& mine = states[mover];
      ASSERT_GT(mine.legal_actions_size(), 0);
      v1::SubmitActionRequest submit;
      submit.set_game_id(game_id);
      submit.set_expected_version(version);
      submit.set_idempotency_key(absl::StrCat("move-", version));
      *submit.mutable_action() = mine.legal_actions(rng() % mine.legal_actions_size());
      v1::SubmitActionResponse moved;
      status = sessions_->SubmitAction(Bearer(tokens[mover]).get(), submit, &moved);
      ASSERT_TRUE(status.ok()) << status.error_message();
      version = moved.game().version();
      finished = moved.game().status() == v1::GAME_STATUS_FINISHED;
      Receipt m{"SubmitAction", mover, version, finished};
      m.views.emplace_back(version, moved.view());
      m.summaries.push_back(moved.game());
      m.bytes = Deterministic(moved);
      receipts.push_back(std::move(m));
    }

    // Let the streams deliver the last move, then stop them.
    const absl::Time deadline = absl::Now() + absl::Seconds(5);
    for (auto& stream : game_streams) {
      while (absl::Now() < deadline) {
        std::vector<v1::WatchGameResponse> got = stream->received();
        if (!got.empty() && got.back().game().status() == v1::GAME_STATUS_FINISHED) break;
        absl::SleepFor(absl::Milliseconds(20));
      }
    }
    int stream_messages = 0;
    for (int s = 0; s <= spectator; ++s) {
      game_streams[s]->Stop();
      for (const v1::WatchGameResponse& w : game_streams[s]->received()) {
        const bool ended = w.game().status() == v1::GAME_STATUS_FINISHED;
        Receipt r{"WatchGame", s == spectator ? -1 : s, w.game().version(), ended};
        if (w.has_event()) {
          r.views.emplace_back(w.event().version(), w.event().view());
          r.descriptions.emplace_back(w.event().version(), w.event().description());
          if (w.event().has_action())
            r.actions.emplace_back(w.event().version(), w.event().action());
        }
        r.summaries.push_back(w.game());
        r.bytes = Deterministic(w);
        receipts.push_back(std::move(r));
        ++stream_messages;
      }
      if (s == spectator) break;
      my_streams[s]->Stop();
      for (const v1::WatchMyGamesResponse& w : my_streams[s]->received()) {
        const bool ended = w.game().status() == v1::GAME_STATUS_FINISHED;
        Receipt r{"WatchMyGames", s, w.game().version(), ended};
        r.summaries.push_back(w.game());
        r.bytes = Deterministic(w);
        receipts.push_back(std::move(r));
        ++stream_messages;
      }
    }
    EXPECT_GT(stream_messages, 0);

    // The truth: the stored record, replayed to every version.
    const engine::v1::GameRecord record = StoredRecord(game_id);
    absl::StatusOr<std::vector<std::unique_ptr<engine::State>>> states =
        StatesBetween(*game, record, 0, version);
    ASSERT_TRUE(states.ok()) << states.status();
    ASSERT_EQ(static_cast<int64_t>(states->size()), version + 1);
    const LeakChecker checker(record, *std::move(states));

    int leaks = 0;
    int checked = 0;
    for (const Receipt& r : receipts) {
      if (r.after_end) continue;
      ++checked;
      for (const std::string& leak : checker.Check(r)) {
        ADD_FAILURE() << leak;
        if (++leaks > 20) break;
      }
      if (leaks > 20) break;
    }

    // Once the game has ended, the typed actions alone replay it: the audit needs no text.
    {
      std::unique_ptr<engine::State> replay = checker.state(0).Clone();
      for (int64_t from = 1; from <= version; from += 200) {
        v1::GetHistoryRequest history;
        history.set_game_id(game_id);
        history.set_from_version(from);
        history.set_page_size(200);
        v1::GetHistoryResponse events;
        status = sessions_->GetHistory(Bearer(tokens[1]).get(), history, &events);
        ASSERT_TRUE(status.ok()) << status.error_message();
        for (const v1::HistoryEvent& e : events.events()) {
          if (e.kind() == v1::EVENT_KIND_FORFEIT) {
            ASSERT_TRUE(replay->Forfeit(e.seat()).ok());
            continue;
          }
          ASSERT_EQ(e.kind(), v1::EVENT_KIND_ACTION) << "version " << e.version();
          ASSERT_TRUE(e.has_action()) << "version " << e.version() << " has no typed action";
          absl::StatusOr<engine::Action> action = game->ActionFromAny(e.action());
          ASSERT_TRUE(action.ok()) << action.status();
          ASSERT_TRUE(replay->Apply(e.seat(), *action).ok()) << "version " << e.version();
        }
      }
      EXPECT_EQ(Deterministic(*replay->View(engine::Viewer::All())),
                Deterministic(*checker.state(version).View(engine::Viewer::All())));
    }
    EXPECT_GT(typed_actions, 0);

    // The checker is not vacuous: it catches each kind of leak when fed one.
    int secret_views = 0;
    int spectator_secret_views = 0;
    int hidden_moves = 0;
    Receipt fake_view{"planted reveal-all view", -1, -1};
    for (int64_t v = 0; v < version; ++v) {
      if (checker.SecretsOf(-1, v).views_differ) ++spectator_secret_views;
      for (int s = 0; s < players; ++s) {
        const Secrets secrets = checker.SecretsOf(s, v);
        if (secrets.views_differ) {
          ++secret_views;
          if (fake_view.seat < 0) {
            fake_view.seat = s;
            fake_view.version = v;
            fake_view.views.emplace_back(v, PackAny(*checker.state(v).View(engine::Viewer::All())));
            if (!secrets.sequences.empty()) {
              fake_view.texts.push_back(absl::StrCat("planted error: ", secrets.sequences.front()));
            }
          }
        }
        if (!checker.HiddenMoveText(s, v).empty()) ++hidden_moves;
      }
    }
    Receipt fake_seed{"planted error message", 0, 0};
    fake_seed.texts.push_back(
        absl::StrCat("internal: seed ", checker.SecretsOf(0, 0).seed_hex, " is bad"));
    EXPECT_FALSE(checker.Check(fake_seed).empty()) << "the seed in an error message went unseen";
    if (fake_view.seat >= 0) {
      const std::vector<std::string> caught = checker.Check(fake_view);
      EXPECT_GE(caught.size(), fake_view.texts.empty() ? 1u : 2u)
          << "a planted reveal-all view or secret sequence went unseen";
    }
    for (int64_t v = 1; v <= version && fake_view.seat >= 0; ++v) {
      for (int s = 0; s < players; ++s) {
        const std::string hidden = checker.HiddenMoveText(s, v);
        if (hidden.empty()) continue;
        Receipt fake_move{"planted description", s, v};
        fake_move.descriptions.emplace_back(v, absl::StrCat("seat played ", hidden));
        EXPECT_FALSE(checker.Check(fake_move).empty()) << "a planted hidden move went unseen";
        Receipt fake_action{"planted typed action", s, v};
        fake_action.actions.emplace_back(v, PackAny(*checker.state(v - 1).game().ActionToProto(
                                                record.log(static_cast<int>(v)).action())));
        EXPECT_FALSE(checker.Check(fake_action).empty()) << "a planted hidden action went unseen";
        v = version;
        break;
      }
    }
    std::printf(
        "hidden-info %s: %d seats, %lld versions, %d receipts checked (%d stream messages, %d "
        "error messages), %d seat-versions and %d spectator-versions with hidden state, %d hidden "
        "moves, %d typed actions, %d "
        "leaks%s\n",
        game->name().c_str(), players, static_cast<long long>(version + 1), checked,
        stream_messages, bad_calls, secret_views, spectator_secret_views, hidden_moves,
        typed_actions, leaks, ended_by_resignation ? " (ended by resignation)" : "");
    std::fflush(stdout);
  }
}

// Table talk: what a private game's players say and do around it stays with them. A player who
// is not seated reads none of its chat (list, stream, report), learns nothing of its rematch,
// nudges or seen versions, and its WatchMyGames carries nothing of the game; a seated player sees
// its own seen version only; a spectator of a public game reads the chat but sees no player's
// seen version.
TEST_F(SessionsHiddenInfoPgTest, TableTalkOfAPrivateGameStaysWithItsPlayers) {
  const std::string alice = keys_.PlayerToken(kPlayers[0]);
  const std::string bob = keys_.PlayerToken(kPlayers[1]);
  const std::string outsider = keys_.PlayerToken(kPlayers[3]);
  auto create = [&](const std::string& match, bool is_public) {
    v1::CreateGameRequest create;
    create.set_match_id(match);
    create.set_game("picadice");  // one seat acts at a time: the other may nudge
    for (int i = 0; i < 2; ++i) {
      v1::SeatSpec* seat = create.add_seats();
      seat->set_account_id(kPlayers[i]);
      seat->set_display_name(absl::StrCat("P", i));
    }
    create.mutable_time_control()->mutable_per_move()->mutable_limit()->set_seconds(86400);
    create.set_visibility(is_public ? v1::VISIBILITY_PUBLIC : v1::VISIBILITY_PRIVATE);
    v1::CreateGameResponse created;
    grpc::Status status =
        internal_->CreateGame(Bearer(keys_.ServiceToken()).get(), create, &created);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return created.game();
  };
  const v1::Game game = create("talk-private", false);
  const v1::Game open = create("talk-public", true);
  StreamRecorder<v1::WatchMyGamesResponse> outsider_games(outsider, [&](grpc::ClientContext* c) {
    return sessions_->WatchMyGames(c, v1::WatchMyGamesRequest());
  });
  absl::SleepFor(absl::Milliseconds(300));  // the stream opens before anything is said

  constexpr char kSecret[] = "meet me at the third oak";
  v1::SendChatMessageRequest say;
  say.set_game_id(game.game_id());
  say.set_text(kSecret);
  v1::SendChatMessageResponse said;
  grpc::Status status = sessions_->SendChatMessage(Bearer(alice).get(), say, &said);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const std::string waiter = game.acting_seats(0) == 0 ? bob : alice;
  v1::NudgeRequest nudge;
  nudge.set_game_id(game.game_id());
  v1::NudgeResponse nudged;
  status = sessions_->Nudge(Bearer(waiter).get(), nudge, &nudged);
  ASSERT_TRUE(status.ok()) << status.error_message();
  v1::MarkSeenRequest seen;
  seen.set_game_id(game.game_id());
  seen.set_version(0);
  v1::MarkSeenResponse marked;
  ASSERT_TRUE(sessions_->MarkSeen(Bearer(alice).get(), seen, &marked).ok());

  // Everything the outsider tries is refused, and no answer holds what was said.
  std::vector<std::pair<std::string, grpc::Status>> refusals;
  {
    v1::ListChatMessagesRequest list;
    list.set_game_id(game.game_id());
    v1::ListChatMessagesResponse listed;
    refusals.emplace_back("ListChatMessages",
                          sessions_->ListChatMessages(Bearer(outsider).get(), list, &listed));
    EXPECT_EQ(listed.messages_size(), 0);
    v1::ReportChatMessageRequest report;
    report.set_game_id(game.game_id());
    report.set_message_id(said.message().message_id());
    v1::ReportChatMessageResponse reported;
    refusals.emplace_back("ReportChatMessage",
                          sessions_->ReportChatMessage(Bearer(outsider).get(), report, &reported));
    v1::SendChatMessageResponse ignored;
    refusals.emplace_back("SendChatMessage",
                          sessions_->SendChatMessage(Bearer(outsider).get(), say, &ignored));
    v1::GetRematchRequest rematch;
    rematch.set_game_id(game.game_id());
    v1::GetRematchResponse got;
    refusals.emplace_back("GetRematch",
                          sessions_->GetRematch(Bearer(outsider).get(), rematch, &got));
    refusals.emplace_back("Nudge", sessions_->Nudge(Bearer(outsider).get(), nudge, &nudged));
    refusals.emplace_back("MarkSeen", sessions_->MarkSeen(Bearer(outsider).get(), seen, &marked));
    v1::WatchGameRequest watch;
    watch.set_game_id(game.game_id());
    watch.set_after_version(-1);
    watch.set_chat_after_message_id(0);
    auto context = Bearer(outsider, absl::Seconds(5));
    auto reader = sessions_->WatchGame(context.get(), watch);
    v1::WatchGameResponse streamed;
    EXPECT_FALSE(reader->Read(&streamed)) << "a private game's stream opened to an outsider";
    refusals.emplace_back("WatchGame", reader->Finish());
  }
  for (const auto& [rpc, refused] : refusals) {
    EXPECT_FALSE(refused.ok()) << rpc << " answered an outsider";
    EXPECT_TRUE(refused.error_code() == grpc::StatusCode::PERMISSION_DENIED ||
                refused.error_code() == grpc::StatusCode::NOT_FOUND)
        << rpc << ": " << refused.error_message();
    EXPECT_FALSE(absl::StrContains(refused.error_message(), kSecret)) << rpc;
    EXPECT_FALSE(absl::StrContains(refused.error_message(), "nudge")) << rpc;
  }

  // Each player sees its own seen version, not the other's.
  v1::GetGameRequest get;
  get.set_game_id(game.game_id());
  v1::GetGameResponse looked;
  ASSERT_TRUE(sessions_->GetGame(Bearer(alice).get(), get, &looked).ok());
  EXPECT_EQ(looked.game().seen_version(), 0);
  ASSERT_TRUE(sessions_->GetGame(Bearer(bob).get(), get, &looked).ok());
  EXPECT_EQ(looked.game().seen_version(), -1);
  v1::ListMyGamesResponse listed;
  ASSERT_TRUE(sessions_->ListMyGames(Bearer(bob).get(), v1::ListMyGamesRequest(), &listed).ok());
  for (const v1::Game& g : listed.games()) EXPECT_EQ(g.seen_version(), -1) << g.game_id();

  // A spectator of the public game reads its chat but no player's seen version.
  seen.set_game_id(open.game_id());
  ASSERT_TRUE(sessions_->MarkSeen(Bearer(alice).get(), seen, &marked).ok());
  say.set_game_id(open.game_id());
  say.set_text("good game");
  ASSERT_TRUE(sessions_->SendChatMessage(Bearer(bob).get(), say, &said).ok());
  v1::ListChatMessagesRequest list_open;
  list_open.set_game_id(open.game_id());
  v1::ListChatMessagesResponse open_chat;
  status = sessions_->ListChatMessages(Bearer(outsider).get(), list_open, &open_chat);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(open_chat.messages_size(), 1);
  EXPECT_EQ(open_chat.messages(0).text(), "good game");
  get.set_game_id(open.game_id());
  ASSERT_TRUE(sessions_->GetGame(Bearer(outsider).get(), get, &looked).ok());
  EXPECT_EQ(looked.game().my_seat(), -1);
  EXPECT_EQ(looked.game().seen_version(), 0);  // unset: a spectator has no inbox
  EXPECT_EQ(looked.game().unseen_versions(), 0);

  outsider_games.Stop();
  for (const v1::WatchMyGamesResponse& r : outsider_games.received()) {
    EXPECT_NE(r.game().game_id(), game.game_id());
    EXPECT_NE(r.game().game_id(), open.game_id());
    EXPECT_FALSE(r.has_chat());
  }
}

}  // namespace
}  // namespace parlor::sessions
